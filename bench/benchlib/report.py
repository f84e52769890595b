"""Turning runs into results: per benchmark a Markdown table (size, each configuration's
median, gpurun / best peer configuration) and a PNG plot drawn by gnuplot; an index."""

import shutil
import statistics
import subprocess
from dataclasses import replace
from pathlib import Path

from .runner import Run

GPURUN = "gpurun"
OVERLAP = {"key": "overlap_pct", "title": "Overlap(%)", "lower_is_better": False}


def fmt(v: float | None) -> str:
    """A median as the tables show it: three significant digits below 1 (sub-microsecond
    latencies differ in the third: 0.160 against 0.182), two decimals up to 1000, then none."""
    if v is None:
        return "—"
    if abs(v) >= 1000:
        return f"{v:.0f}"
    return f"{v:.2f}" if abs(v) >= 1 or v == 0 else f"{v:#.3g}"


def medians(runs: list[Run]) -> tuple[dict, int, bool]:
    """size -> median over the undisturbed successful runs (all successful ones when every run
    was disturbed); also how many runs counted and whether disturbed ones had to be used."""
    ok = [r for r in runs if r.ok]
    calm = [r for r in ok if not r.disturbed]
    used = calm or ok
    sizes = sorted({s for r in used for s in r.values})
    med = {s: statistics.median([r.values[s] for r in used if s in r.values]) for s in sizes}
    return med, len(used), bool(used) and not calm


def gpu_bound(ref: dict | None, placement: str | None, size: int, lower: bool) -> float | None:
    """The GPU reference's bound for a size: time (us) when lower is better, else MB/s."""
    if not ref or not placement or size <= 0:
        return None
    kind = {"D D": "d2d", "H D": "h2d", "D H": "d2h"}.get(placement)
    row = next((r for r in ref.get("rows", []) if r["size"] == size), None)
    if not kind or not row:
        return None
    return row[f"{kind}_us"] if lower else row[f"{kind}_mbps"]


class BenchReport:
    """Everything known about one benchmark across configurations."""

    def __init__(self, bench: str, configs: list[str], runs: list[Run], skipped: dict,
                 absent: dict | None = None):
        self.bench = bench
        self.absent = absent or {}  # MPI -> why it was not found at all
        self.configs = configs
        self.runs = {c: [r for r in runs if r.config == c and r.bench == bench] for c in configs}
        self.skipped = skipped  # config -> why it did not run this benchmark
        self.med, self.count, self.fallback = {}, {}, {}
        for c in configs:
            self.med[c], self.count[c], self.fallback[c] = medians(self.runs[c])
        metric = next((r.metric for rs in self.runs.values() for r in rs if r.ok), None)
        self.metric = metric or {"key": "value", "title": "value", "lower_is_better": True}
        self.sizes = sorted({s for m in self.med.values() for s in m})

    @property
    def lower(self) -> bool:
        return self.metric["lower_is_better"]

    def best_peer(self, size: int) -> str | None:
        """The peer configuration with the best median at `size`."""
        peers = [c for c in self.configs if c != GPURUN and size in self.med.get(c, {})]
        if not peers:
            return None
        pick = min if self.lower else max
        return pick(peers, key=lambda c: self.med[c][size])

    def ratio(self, size: int) -> float | None:
        """gpurun over the best peer configuration (best_peer: by median), paired by round: in
        each repetition, gpurun's value over that configuration's value of the same round (runs
        next to each other in time share the host's state), then the median over rounds.
        Not the best peer value of each round: with several noisy peer configurations, the
        luckiest of their runs in each round is better than any one configuration's typical
        run. Falls back to the ratio of medians when no round has both."""
        best = self.best_peer(size)
        if best is None:
            return None
        paired = []
        for rep in sorted({r.rep for rs in self.runs.values() for r in rs}):
            mine = self._value(GPURUN, rep, size)
            theirs = self._value(best, rep, size)
            if mine is not None and theirs:
                paired.append(mine / theirs)
        if paired:
            return statistics.median(paired)
        mine = self.med.get(GPURUN, {}).get(size)
        theirs = self.med[best][size]
        return mine / theirs if mine is not None and theirs else None

    def _value(self, config: str, rep: int, size: int) -> float | None:
        """The round's value, from an undisturbed run; from a disturbed one when every run of
        the configuration was disturbed (as its median is), so that no peer drops out of the
        ratio (Open MPI across test hosts: its daemons detach, so their CPU counts as others')."""
        calm_only = not self.fallback.get(config, False)
        for r in self.runs.get(config, []):
            if r.rep == rep and r.ok and size in r.values and not (calm_only and r.disturbed):
                return r.values[size]
        return None

    def best_peer_note(self) -> str | None:
        """Which peer configuration each size's ratio pairs with, runs of sizes merged."""
        spans: list[list] = []  # [config, first size, last size]
        for s in self.sizes:
            best = self.best_peer(s)
            if best is None:
                continue
            if spans and spans[-1][0] == best:
                spans[-1][2] = s
            else:
                spans.append([best, s, s])
        if not spans or GPURUN not in self.configs:
            return None
        name = {s: "—" if s < 0 else str(s) for s in self.sizes}
        parts = [f"{c} ({name[a]}" + (f"-{name[b]}" if b != a else "") + ")" for c, a, b in spans]
        return ("- best peer configuration (best median; the ratio pairs gpurun's runs with its "
                "runs of the same round): " + ", ".join(parts))

    def hop_note(self) -> str | None:
        hops = sorted({(r.rep, r.hop_ns) for rs in self.runs.values() for r in rs
                       if r.hop_ns is not None})
        if not hops:
            return None
        values = [h for _, h in hops]
        return (f"- host placement: a cache line took {min(values):.0f} / "
                f"{statistics.median(values):.0f} / {max(values):.0f} ns (min / median / max "
                f"over {len(values)} rounds) to go from one core to the other; it moves every "
                "shared-memory figure, which is why the ratio pairs runs of the same round")

    def table(self, gpu_ref: dict | None, placement: str | None) -> str:
        better = "lower" if self.lower else "higher"
        lines = [f"### {self.bench}: {self.metric['title']}, median per configuration "
                 f"({better} is better)", ""]
        head = ["Size", *self.configs, "gpurun / best peer (paired)"]
        lines += ["| " + " | ".join(head) + " |", "|" + "---:|" * len(head)]
        for s in self.sizes:
            cells = [str(s) if s >= 0 else "—"]
            for c in self.configs:
                v = self.med[c].get(s)
                cells.append(fmt(v) + ("*" if v is not None and self.fallback[c] else ""))
            r = self.ratio(s)
            cells.append(f"{r:.2f}" if r is not None else "n/a")
            lines.append("| " + " | ".join(cells) + " |")
        if not self.sizes:
            lines.append("")
            lines.append("No configuration produced results for this benchmark (see below).")
        lines += self._gpu_table(gpu_ref, placement)
        lines += self._overlap_table()
        lines += [""] + self.notes()
        return "\n".join(lines) + "\n"

    def _overlap_table(self) -> list[str]:
        """Nonblocking collectives: the overlap of communication and compute, a table of its
        own (the main table shows the overall time)."""
        runs = [replace(r, values=r.overlap, metric=OVERLAP, overlap={})
                for rs in self.runs.values() for r in rs if r.overlap]
        if not runs:
            return []
        sub = BenchReport(self.bench, self.configs, runs, self.skipped, self.absent)
        rows = sub.table(None, None).split("\n\n")[1]  # the heading's table, without notes
        return ["", f"### {self.bench}: {OVERLAP['title']}, median per configuration "
                "(higher is better)", "", rows]

    def _gpu_table(self, ref: dict | None, placement: str | None) -> list[str]:
        if not ref or not placement:
            return []
        lines = ["", f"As a fraction of the GPU bound (cudaMemcpy {placement} on "
                 f"{ref.get('device', 'the GPU')}; 1.00 = as fast as the hardware copy):", "",
                 "| Size | " + " | ".join(self.configs) + " |",
                 "|" + "---:|" * (len(self.configs) + 1)]
        for s in self.sizes:
            bound = gpu_bound(ref, placement, s, self.lower)
            if bound is None:
                continue
            cells = []
            for c in self.configs:
                v = self.med[c].get(s)
                frac = None if not v else (bound / v if self.lower else v / bound)
                cells.append(f"{frac:.2f}" if frac is not None else "—")
            lines.append(f"| {s} | " + " | ".join(cells) + " |")
        return lines

    def spread(self, config: str) -> float | None:
        """Run-to-run spread of a configuration: median over sizes of (max - min) / median of
        the runs in its medians. Large values mean noise the load check could not see (for
        example contention on the host of a virtual machine)."""
        used = [r for r in self.runs[config] if r.ok and (not r.disturbed or self.fallback[config])]
        if len(used) < 2:
            return None
        rel = []
        for s, med in self.med[config].items():
            vals = [r.values[s] for r in used if s in r.values]
            if med and len(vals) > 1:
                rel.append((max(vals) - min(vals)) / med)
        return statistics.median(rel) if rel else None

    def notes(self) -> list[str]:
        out = [f"- {name}: not available: {why}" for name, why in self.absent.items()]
        best = self.best_peer_note()
        if best:
            out.append(best)
        hop = self.hop_note()
        if hop:
            out.append(hop)
        for c in self.configs:
            runs = self.runs[c]
            if c in self.skipped:
                out.append(f"- {c}: skipped: {self.skipped[c]}")
                continue
            if runs and all(r.skipped for r in runs):
                out.append(f"- {c}: {runs[0].status}")
                continue
            bad = [r for r in runs if not r.ok and not r.skipped]
            dist = [r for r in runs if r.ok and r.disturbed]
            slowed = [r for r in runs if r.ok and r.slowed]
            hung = [r for r in runs if r.ok and r.hung_at_exit]
            spread = self.spread(c)
            out.append(f"- {c}: {self.count[c]} run(s) in the medians"
                       + (f", spread between runs {spread:.0%}" if spread is not None else "")
                       + (f"; {len(dist)} disturbed by other load (others used up to "
                          f"{max(r.foreign for r in dist):.0%} of the CPUs)" if dist else "")
                       + (f"; {len(slowed)} on a slowed CPU (up to "
                          f"{max(r.slowdown for r in slowed):.1f}x; kept)" if slowed else "")
                       + (f"; {len(hung)} hung at exit after printing complete results "
                          "(killed at the timeout; their values count)" if hung else "")
                       + (f"; {len(bad)} failed: {bad[0].status}" if bad else ""))
            if bad and bad[0].output_tail:
                out.append("  ```\n  " + bad[0].output_tail.replace("\n", "\n  ") + "\n  ```")
            if self.fallback[c]:
                out.append(f"  * every {c} run was disturbed: its medians and the paired ratios "
                           "include them")
        return out

    def plot(self, out_dir: Path) -> Path | None:
        """Draws bench.png with gnuplot (log-log, one line per configuration)."""
        dat, script, png = (out_dir / f"{self.bench}.{x}" for x in ("dat", "gp", "png"))
        if all(s < 0 for s in self.sizes):
            body = self._plot_bars(dat)
        else:
            body = self._plot_lines(dat)
        script.write_text(f"set terminal pngcairo size 960,600 noenhanced\n"
                          f"set output '{png}'\nset title '{self.bench}: "
                          f"{self.metric['title']} (median per configuration)'\n" + body)
        gnuplot = shutil.which("gnuplot")
        if not gnuplot:
            return None
        proc = subprocess.run([gnuplot, str(script)], capture_output=True, text=True)
        return png if proc.returncode == 0 and png.is_file() else None

    def _plot_lines(self, dat: Path) -> str:
        rows = []
        for s in (s for s in self.sizes if s > 0):
            vals = [self.med[c].get(s) for c in self.configs]
            rows.append(f"{s} " + " ".join("NaN" if v is None else f"{v:.6g}" for v in vals))
        dat.write_text("# size " + " ".join(self.configs) + "\n" + "\n".join(rows) + "\n")
        plots = ", ".join(f"'{dat}' using 1:{i + 2} with linespoints title '{c}'"
                          for i, c in enumerate(self.configs))
        return ("set logscale xy\nset xlabel 'Message size (bytes)'\n"
                f"set ylabel '{self.metric['title']}'\nset key left top\nset grid\n"
                f"set datafile missing 'NaN'\nplot {plots}\n")

    def _plot_bars(self, dat: Path) -> str:
        rows = [f"{c} {self.med[c][-1]:.6g}" for c in self.configs if -1 in self.med[c]]
        dat.write_text("# configuration value\n" + "\n".join(rows) + "\n")
        return ("set style data histograms\nset style fill solid 0.6\nset boxwidth 0.8\n"
                f"set yrange [0:*]\nset ylabel '{self.metric['title']}'\nset grid ytics\n"
                f"plot '{dat}' using 2:xtic(1) notitle\n")

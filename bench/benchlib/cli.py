"""bench/compare: the same benchmarks under gpurun and every other MPI found, side by side.

Builds the suite with each MPI, runs the chosen benchmarks interleaved over configurations
(A, B, C, then B, C, A ...) for several repetitions, flags runs disturbed by other load, and writes
per benchmark a Markdown table and a PNG plot, plus an index (README.md) and the raw runs.
"""

import argparse
import json
import os
import shlex
import sys
import time
from dataclasses import asdict
from pathlib import Path

from . import build, hosts, mpis, report, runner

QUICK_BENCHES = ["osu_latency", "osu_bw", "osu_allreduce", "osu_barrier"]
FULL_BENCHES = ["osu_latency", "osu_bw", "osu_bibw", "osu_mbw_mr", "osu_allreduce", "osu_bcast",
                "osu_reduce", "osu_allgather", "osu_alltoall", "osu_barrier", "osu_init"]
# Programs without message sizes, and the options of the quick mode they accept.
SIZELESS = {"osu_barrier": ["-i", "-x"], "osu_init": [], "osu_hello": []}
QUICK_ARGS = ["-m", "1:1048576"]  # OSU's iteration counts, sizes up to 1 MiB


def parse_args(argv):
    p = argparse.ArgumentParser(prog="bench/compare", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--quick", action="store_true",
                   help=f"{','.join(QUICK_BENCHES)}, sizes 1..1M, 5 repetitions (under 3 min on 2 cores)")
    p.add_argument("--bench", help="comma-separated benchmarks (default: quick or full set)")
    p.add_argument("--mpi", help="comma-separated MPIs among gpurun,openmpi,mpich and --add-mpi "
                   "names (default: all found)")
    p.add_argument("--configs", help="comma-separated configurations, e.g. "
                   "openmpi,mpich-tuned (default: every MPI as installed and tuned)")
    p.add_argument("--add-mpi", action="append", default=[], metavar="NAME=CC:LAUNCHER[:cuda]",
                   help="another MPI: its compiler wrapper and launcher (taking -np N)")
    p.add_argument("-np", type=int, default=2, help="ranks per run (default 2)")
    p.add_argument("--reps", type=int, help="repetitions (default 5)")
    p.add_argument("--args", default="", help="extra benchmark arguments, e.g. '-d cuda D D'")
    p.add_argument("--out", default=str(mpis.REPO_DIR / "build" / "bench-compare"),
                   help="output directory (default: build/bench-compare)")
    p.add_argument("--build", default=str(mpis.REPO_DIR / "build"),
                   help="gpurun's build directory (default: build/)")
    p.add_argument("--build-dir", help="where suites are built (default: BUILD/bench-suites)")
    p.add_argument("--gpurun", help="gpurun launcher (default: BUILD/bin/gpurun)")
    p.add_argument("--gpurun-bin", help="prebuilt gpurun benchmarks (default: BUILD/bench/gpurun)")
    p.add_argument("--gpu-ref", help="GPU reference program (default: built or compiled)")
    p.add_argument("--timeout", type=float, default=300, help="seconds per run (default 300)")
    p.add_argument("--load-threshold", type=float, default=0.15,
                   help="flag a run when others used more than this share of the CPUs (0.15)")
    p.add_argument("--hosts", metavar="DIR",
                   help="run across the test hosts of scripts/testhosts.sh start DIR, each MPI "
                   "as installed over UCX/TCP (see bench/benchlib/hosts.py)")
    p.add_argument("--list", action="store_true", help="list configurations and exit")
    args = p.parse_args(argv)
    args.reps = args.reps or 5
    benches = args.bench.split(",") if args.bench else (QUICK_BENCHES if args.quick
                                                        else FULL_BENCHES)
    args.benches = [b.strip() for b in benches if b.strip()]
    args.extra = shlex.split(args.args)
    # Programs start on the test hosts in another working directory: paths must be absolute.
    args.build = str(Path(args.build).resolve())
    args.build_dir = str(Path(args.build_dir).resolve()) if args.build_dir else None
    return args


def log(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


def discover(args) -> tuple[list[mpis.Config], dict]:
    """Configurations to compare, and the MPIs left out with the reason."""
    wanted = set(args.mpi.split(",")) if args.mpi else None
    found, missing = mpis.find_peers()
    left_out = {m.split(":")[0]: m for m in missing}
    found += [mpis.parse_extra_mpi(s) for s in args.add_mpi]
    if wanted is None or "gpurun" in wanted:
        g, why = mpis.find_gpurun(Path(args.build), args.gpurun, args.gpurun_bin)
        if g:
            found.insert(0, g)
        else:
            left_out["gpurun"] = why
    found = [m for m in found if wanted is None or m.name in wanted]
    configs = mpis.configs_for(found)
    if args.configs:
        names = set(args.configs.split(","))
        configs = [c for c in configs if c.name in names]
    if args.hosts:
        configs = hosts.across(configs, Path(args.hosts), args.np)
    return configs, left_out


def _keep_options(argv: list[str], allowed: list[str]) -> list[str]:
    """The options of argv in allowed, with their values (the others take one value)."""
    out, i = [], 0
    while i < len(argv):
        if argv[i] in allowed:
            out += argv[i:i + 2]
        i += 2 if argv[i].startswith("-") and argv[i] != "-c" and argv[i] != "-f" else 1
    return out


def bench_args(args, bench: str) -> list[str]:
    """Quick-mode options, then the user's; programs without sizes get only what they take."""
    argv = (QUICK_ARGS if args.quick else []) + args.extra
    return _keep_options(argv, SIZELESS[bench]) if bench in SIZELESS else argv


def placement(extra: list[str], bench: str) -> str | None:
    """Buffer placement of a -d cuda run: 'D D', 'H D', 'D H' (collectives: 'D D')."""
    if "-d" not in extra:
        return None
    rest = extra[extra.index("-d") + 2:]
    if bench.startswith(("osu_latency", "osu_bw", "osu_bibw", "osu_mbw", "osu_multi")) \
            and len(rest) >= 2 and rest[0] in "DH" and rest[1] in "DH":
        return f"{rest[0]} {rest[1]}"
    return "D D"


def prepare(args, configs) -> tuple[dict, dict, list]:
    """Builds every MPI's suite; returns config -> bindir, config -> {bench: why skipped},
    and the configurations that can run."""
    build_root = Path(args.build_dir) if args.build_dir else Path(args.build) / "bench-suites"
    bindirs, skipped, usable, built = {}, {}, [], {}
    cuda = "-d" in args.extra
    for c in configs:
        skipped[c.name] = {b: f"{c.name} cannot run {b} yet (bench/gpurun_programs.txt)"
                           for b in args.benches if not c.can_run(b)}
        if cuda and not c.mpi.cuda_aware:
            skipped[c.name] = {b: f"{c.mpi.name} is not CUDA-aware" for b in args.benches}
            continue
        if c.mpi.name not in built:
            try:
                built[c.mpi.name] = build.build_suite(c.mpi, build_root, log)
            except build.BuildError as err:
                log(f"bench/compare: {c.mpi.name} left out: {err}")
                built[c.mpi.name] = None
        if built[c.mpi.name] is None:
            skipped[c.name] = {b: "the suite did not build" for b in args.benches}
            continue
        bindirs[c.name] = built[c.mpi.name]
        usable.append(c)
    return bindirs, skipped, usable


def run_all(args, usable, bindirs, skipped, gpu_ref, hop_probe) -> tuple[list, list]:
    runs, refs = [], []
    probe = runner.CpuProbe()
    for rep in range(1, args.reps + 1):
        for bench in args.benches:
            # One round: every configuration once, back to back, after a look at how far apart
            # the host placed our cores right now.
            hop = runner.measure_hop(hop_probe)
            # Each round starts one configuration further on: in a fixed order, the column
            # that always ran first measured one algorithm 15% slower than a later column
            # measured the same one (bench/sweep, osu_allreduce -np 2 at 32K-64K).
            shift = (rep - 1) % len(usable) if usable else 0
            for c in usable[shift:] + usable[:shift]:
                if bench in skipped[c.name]:
                    continue
                program = bindirs[c.name] / bench
                r = runner.run_one(c, program, bench_args(args, bench), args.np, rep,
                                   args.timeout, args.load_threshold, probe)
                r.hop_ns = hop
                runs.append(r)
                flag = f", DISTURBED: {disturbance(r)}" if r.disturbed else ""
                if r.slowed:
                    flag += f", CPU {r.slowdown:.1f}x slower than at best"
                log(f"[{rep}/{args.reps}] {bench:<16} {c.name:<14} {r.status} "
                    f"({r.wall_s:.1f} s{flag})")
        if gpu_ref:
            ref, why = runner.run_gpu_ref(gpu_ref, args.timeout)
            refs.append(ref) if ref else log(f"GPU reference failed: {why}")
    return runs, refs


def disturbance(r: runner.Run) -> str:
    return f"others used {r.foreign:.0%} of the CPUs"


def merge_refs(refs: list[dict]) -> dict | None:
    """Median over repetitions of every number of the GPU reference."""
    if not refs:
        return None
    import statistics
    out = dict(refs[-1])
    out["rows"] = []
    for row in refs[-1]["rows"]:
        same = [r for ref in refs for r in ref["rows"] if r["size"] == row["size"]]
        out["rows"].append({k: statistics.median(r[k] for r in same) for k in row})
    for k in ("launch_us", "launch_sync_us", "event_rtt_us"):
        out[k] = statistics.median(r[k] for r in refs)
    return out


def write_index(args, out: Path, configs, left_out, reports, ref) -> Path:
    lines = ["# gpurun bench/compare results", "",
             f"- when: {time.strftime('%Y-%m-%d %H:%M:%S')}; machine: {runner.NCPU} CPUs, "
             f"load average at the end {os.getloadavg()[0]:.2f}",
             f"- command: bench/compare {' '.join(shlex.quote(a) for a in sys.argv[1:])}",
             f"- ranks: {args.np}; repetitions: {args.reps}, interleaved over configurations",
             "- a run is *disturbed* when other processes used more than "
             f"{args.load_threshold:.0%} of the CPUs during it; medians leave such runs out. "
             f"A run around which a fixed piece of work ran over {runner.SLOW_FACTOR}x slower "
             "than at best is marked *slowed* and kept (see bench/README.md)", "",
             "## Configurations", "",
             "Every configuration is pinned to loopback (UCX_NET_DEVICES=lo; Open MPI "
             "`*_tcp_if_include lo`, MPICH `-iface lo`); Open MPI may run as root.", ""]
    for c in configs:
        lines.append(f"- **{c.name}**: {c.note}; `{' '.join(c.command(args.np, ['PROGRAM']))}`"
                     + (f" with {' '.join(f'{k}={v}' for k, v in c.env.items())}" if c.env else ""))
    lines += [f"- **{name}**: not available: {why}" for name, why in left_out.items()]
    if ref:
        lines += ["", f"GPU reference on {ref.get('device')}: kernel launch "
                  f"{ref['launch_us']:.2f} us, launch + sync {ref['launch_sync_us']:.2f} us, "
                  f"event round trip {ref['event_rtt_us']:.2f} us."]
    lines += ["", "## Benchmarks", ""]
    for rep, png in reports:
        lines.append(f"- [{rep.bench}]({rep.bench}.md)" +
                     (f", plot [{png.name}]({png.name})" if png else ", no plot (no data or "
                      "no gnuplot)"))
    index = out / "README.md"
    index.write_text("\n".join(lines) + "\n")
    return index


def main(argv=None) -> int:
    args = parse_args(argv)
    configs, left_out = discover(args)
    if args.list:
        for c in configs:
            print(f"{c.name:<16} {c.note}")
        for name, why in left_out.items():
            print(f"{name:<16} not available: {why}")
        return 0
    if not configs:
        log("bench/compare: no MPI found: install openmpi-bin or mpich, or build gpurun")
        return 1
    for name, why in left_out.items():
        log(f"bench/compare: {name} left out: {why}")
    bindirs, skipped, usable = prepare(args, configs)
    cuda = "-d" in args.extra
    build_root = Path(args.build_dir) if args.build_dir else Path(args.build) / "bench-suites"
    gpu_ref = build.find_gpu_ref(Path(args.build), args.gpu_ref, build_root, log) if cuda \
        else None
    hop_probe = build.build_hop_probe(build_root, log)
    runs, refs = run_all(args, usable, bindirs, skipped, gpu_ref, hop_probe)
    ref = merge_refs(refs)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    names = [c.name for c in configs]
    reports = []
    for bench in args.benches:
        rep = report.BenchReport(bench, names, runs,
                                 {c: s[bench] for c, s in skipped.items() if bench in s},
                                 left_out)
        (out / f"{bench}.md").write_text(rep.table(ref, placement(args.extra, bench)))
        reports.append((rep, rep.plot(out)))
    (out / "runs.json").write_text(json.dumps([asdict(r) for r in runs], indent=1))
    index = write_index(args, out, configs, left_out, reports, ref)
    print(f"bench/compare: tables and plots in {out}/ (start with {index})")
    for rep, png in reports:
        print(f"  {out / (rep.bench + '.md')}" + (f"  {png}" if png else ""))
    failed = [r for r in runs if not r.ok and not r.skipped]
    if failed:
        log(f"bench/compare: {len(failed)} of {len(runs)} runs failed (see the tables' notes)")
    return 1 if failed else 0

"""Running benchmarks: one run of one program under one configuration, with a measure of how
much other load shared the machine while it ran.

Disturbance, two ways:
- other load on this machine: the machine-wide busy CPU time (/proc/stat, steal included)
  minus the CPU time of our own run (its processes' rusage) is CPU that something else used;
  flagged when that share of the machine's capacity exceeds a threshold;
- a slowed CPU that no counter here shows (a virtual machine whose host is busy): a fixed
  piece of work is timed just before and after each run and compared with the fastest time
  seen; marked *slowed* when it took over 1.5 times as long.
A run disturbed by other load is kept in the results, marked, and left out of the medians when
undisturbed runs exist. A slowed run is only marked: on a 2-core AMD EPYC virtual machine the
probe swung between two levels (1.0-1.3x and 1.6-2.0x of its best) with no bearing on the
benchmarks (per configuration, the median of the slowed runs over that of the others: 0.55 to
1.29, about 1.0 in the middle, 54 configuration and size pairs of 4 series), and leaving those
runs out left 3-4 of 9 in a median (osu_alltoall 8 B: 0.295 us from 4 runs, 0.183 from all 9).
"""

import ctypes
import json
import os
import resource
import signal
import subprocess
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

from .mpis import Config

NCPU = os.cpu_count() or 1
_TICK = os.sysconf("SC_CLK_TCK")


SLOW_FACTOR = 1.5  # probe time over the best one that marks a slowed CPU


class CpuProbe:
    """Times a fixed piece of work (about 10 ms of one core) to notice a slowed CPU."""

    def __init__(self):
        self.best = min(self._once() for _ in range(5))

    @staticmethod
    def _once() -> float:
        t0 = time.perf_counter()
        sum(range(1_000_000))
        return time.perf_counter() - t0

    def slowdown(self) -> float:
        """This moment's probe time over the fastest seen (the minimum of three tries)."""
        t = min(self._once() for _ in range(3))
        self.best = min(self.best, t)
        return t / self.best


SKIP_EXIT = 77  # a program's exit status when the MPI lacks what it measures (bench.h)


@dataclass
class Run:
    config: str
    bench: str
    rep: int
    ok: bool = False
    status: str = ""  # "ok", "failed (exit N)", "timeout", "skipped: why", "hung at exit..."
    values: dict = field(default_factory=dict)  # size (int, -1 when sizeless) -> value
    metric: dict = field(default_factory=dict)  # key, title, lower_is_better
    wall_s: float = 0.0
    own_cpu_s: float = 0.0
    foreign: float = 0.0  # share of the machine's CPU used by others during the run
    slowdown: float = 1.0  # CPU probe around the run over the fastest probe
    slowed: bool = False  # slowdown over SLOW_FACTOR: marked, kept in the medians
    hop_ns: float | None = None  # core-to-core cache-line time measured before the round
    overlap: dict = field(default_factory=dict)  # size -> overlap % (nonblocking collectives)
    load_before: float = 0.0
    disturbed: bool = False
    hung_at_exit: bool = False  # timed out after printing complete results (MPI_Finalize)
    skipped: bool = False  # the program exited 77: this MPI lacks what it measures
    command: str = ""
    output_tail: str = ""


def _busy_seconds() -> float:
    with open("/proc/stat") as f:
        fields = [int(x) for x in f.readline().split()[1:]]
    # user nice system idle iowait irq softirq steal ...
    busy = fields[0] + fields[1] + fields[2] + fields[5] + fields[6] + fields[7]
    return busy / _TICK


PR_SET_CHILD_SUBREAPER = 36  # prctl(2)


def _become_subreaper() -> None:
    """Makes this process the one that inherits the run's orphans: a launcher that exits
    before the remote agents it started (Open MPI's mpirun across the test hosts) leaves them,
    and the ranks under them, to be reaped by init, and their CPU time would count as other
    load."""
    try:
        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
    except (OSError, AttributeError):
        pass


_lingering: set[int] = set()  # orphans still alive when _reap_orphans gave up on them


def _children() -> set[int]:
    pids: set[int] = set()
    for task in Path("/proc/self/task").iterdir():
        try:
            pids.update(int(pid) for pid in (task / "children").read_text().split())
        except OSError:
            pass
    return pids


def _reap_orphans(limit_s: float = 5.0) -> None:
    """Waits for the run's orphans (see _become_subreaper), at most limit_s, so that their CPU
    time is in this process's children's usage. One still alive then is left to live on and
    not waited for again."""
    end = time.monotonic() + limit_s
    while True:
        try:
            while os.waitpid(-1, os.WNOHANG)[0] != 0:
                pass
        except ChildProcessError:
            return
        waiting = _children() - _lingering
        if not waiting:
            return
        if time.monotonic() > end:
            _lingering.update(waiting)
            return
        time.sleep(0.01)


def _children_cpu() -> float:
    ru = resource.getrusage(resource.RUSAGE_CHILDREN)
    return ru.ru_utime + ru.ru_stime


def lower_is_better(key: str) -> bool:
    """Times are better low; bandwidths, rates and overlap high (from the JSON column key)."""
    return key.endswith(("_us", "_ms"))


def _json_doc(stdout: str) -> dict:
    """The JSON document of a program's --format json output."""
    start, end = stdout.find("{"), stdout.rfind("}")
    return json.loads(stdout[start:end + 1])


def parse_output(stdout: str) -> tuple[dict, dict]:
    """(size -> first column value, metric description) from a program's --format json."""
    doc = _json_doc(stdout)
    column = doc["columns"][0]
    key = column["key"]
    values = {int(row.get("size", -1)): float(row[key]) for row in doc["rows"]}
    metric = {"key": key, "title": column["title"], "lower_is_better": lower_is_better(key)}
    return values, metric


def parse_overlap(stdout: str) -> dict:
    """size -> overlap % from a nonblocking collective's --format json; empty for others."""
    doc = _json_doc(stdout)
    return {int(row.get("size", -1)): float(row["overlap_pct"]) for row in doc["rows"]
            if "overlap_pct" in row}


# How long a run that printed complete results may take to exit before it counts as hung: a
# peer hung in MPI_Finalize across the test hosts (MPICH over UCX, about 1 run in 10) then
# costs this, not the whole --timeout. Leaving takes well under a second otherwise.
EXIT_GRACE_S = 30.0


@dataclass
class Finished:
    """How a run's command ended: its exit code (None: killed) and output, and whether it was
    killed EXIT_GRACE_S after printing complete results rather than at the timeout."""

    returncode: int | None
    stdout: str
    stderr: str
    killed_after_results: bool = False


def _drain(stream, into: list[bytes]) -> None:
    """Appends what the pipe gives as it comes (os.read returns what is there)."""
    for chunk in iter(lambda: os.read(stream.fileno(), 65536), b""):
        into.append(chunk)


def _joined(chunks: list[bytes]) -> str:
    return b"".join(chunks).decode(errors="replace")


def _complete(stdout: str) -> bool:
    try:
        parse_output(stdout)
    except (ValueError, KeyError, IndexError):
        return False
    return True


def _wait_for_exit(proc: subprocess.Popen, out: list[bytes], deadline: float,
                   grace: float) -> str:
    """Waits until proc exits ("exited"), the deadline passes ("timeout") or `grace` seconds
    pass after complete results on stdout ("results"), whichever comes first."""
    seen, results_by = 0, None
    while True:
        try:
            proc.wait(timeout=0.25)
            return "exited"
        except subprocess.TimeoutExpired:
            pass
        now = time.monotonic()
        if results_by is None and len(out) != seen:
            seen = len(out)
            if _complete(_joined(out)):
                results_by = now + grace
        if results_by is not None and now >= results_by:
            return "results"
        if now >= deadline:
            return "timeout"


def _run_group(cmd: list[str], env: dict, timeout: float) -> Finished:
    """Runs cmd in a session of its own; at the timeout, or EXIT_GRACE_S seconds after it
    printed complete results, the whole process group is killed (launchers leave proxies and ranks
    behind otherwise) and the output so far is kept."""
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            start_new_session=True)
    out: list[bytes] = []
    err: list[bytes] = []
    readers = [threading.Thread(target=_drain, args=(proc.stdout, out), daemon=True),
               threading.Thread(target=_drain, args=(proc.stderr, err), daemon=True)]
    for reader in readers:
        reader.start()
    deadline = time.monotonic() + timeout
    try:
        ended = _wait_for_exit(proc, out, deadline, EXIT_GRACE_S)
        exited = ended == "exited"
        # Processes the launcher left behind may still hold the pipes: wait for them up to
        # the deadline, as for the launcher.
        for reader in readers:
            reader.join(max(0.0, deadline - time.monotonic()) if exited else 0)
        if not exited or any(reader.is_alive() for reader in readers):
            _kill_group(proc)
            for reader in readers:  # unless a process outside the group holds the pipes
                reader.join(5)
        proc.wait()
    except BaseException:  # Ctrl-C: the run's group is in a session of its own
        _kill_group(proc)
        raise
    for reader, pipe in zip(readers, (proc.stdout, proc.stderr)):
        if not reader.is_alive():
            pipe.close()
    return Finished(proc.returncode if exited else None, _joined(out), _joined(err),
                    killed_after_results=ended == "results")


def _kill_group(proc: subprocess.Popen) -> None:
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass


def _parse(run: Run, stdout: str) -> str | None:
    """Reads the values into run; the reason when the output is not a complete document."""
    try:
        run.values, run.metric = parse_output(stdout)
        run.overlap = parse_overlap(stdout)
    except (ValueError, KeyError, IndexError) as err:
        return str(err)
    return None


def _finish(run: Run, done: Finished, ours: bool, timeout: float) -> None:
    out = done.stdout + done.stderr
    run.output_tail = "\n".join(out.splitlines()[-8:])
    if done.returncode is None:
        # A peer that printed all its results and then hung (MPI_Finalize across the test
        # hosts, seen with MPICH over UCX on a loaded machine) measured what it was asked to:
        # its values count, marked. gpurun must never hang, so its own hang is a failure.
        complete = _parse(run, done.stdout) is None
        run.hung_at_exit = complete
        when = (f"{EXIT_GRACE_S:.0f} s after them" if done.killed_after_results
                else f"at {timeout:.0f} s")
        if complete and not ours:
            run.ok, run.status = True, f"hung at exit after complete results (killed {when})"
        else:
            run.status = "timeout" + (" after complete results" if complete else "")
        return
    if done.returncode == SKIP_EXIT:
        said = [line for line in done.stderr.splitlines() if line.startswith(run.bench + ":")]
        run.skipped = True
        run.status = "skipped: " + (said[0] if said else f"exit {SKIP_EXIT}")
        return
    if done.returncode != 0:
        run.status = f"failed (exit {done.returncode})"
        return
    why = _parse(run, done.stdout)
    if why:
        run.status = f"unreadable output ({why})"
        return
    run.ok, run.status = True, "ok"


def run_one(config: Config, program: Path, args: list[str], np: int, rep: int,
            timeout: float, threshold: float, probe: CpuProbe | None = None) -> Run:
    run = Run(config.name, program.name, rep)
    before = probe.slowdown() if probe else 1.0
    cmd = config.command(np, [str(program), *args, "--format", "json"])
    run.command = " ".join(cmd)
    run.load_before = os.getloadavg()[0]
    _become_subreaper()
    busy0, cpu0, t0 = _busy_seconds(), _children_cpu(), time.monotonic()
    done = _run_group(cmd, config.environ(), timeout)
    run.wall_s = time.monotonic() - t0
    _reap_orphans()
    run.own_cpu_s = _children_cpu() - cpu0
    # /proc/stat counts in clock ticks: allow two of them for rounding on short runs.
    other = max(0.0, _busy_seconds() - busy0 - run.own_cpu_s - 2.0 / _TICK)
    run.foreign = other / (run.wall_s * NCPU) if run.wall_s > 0 else 0.0
    run.slowdown = max(before, probe.slowdown()) if probe else 1.0
    run.disturbed = run.foreign > threshold
    run.slowed = run.slowdown > SLOW_FACTOR
    _finish(run, done, config.mpi.family == "gpurun", timeout)
    return run


def run_gpu_ref(gpu_ref: Path, timeout: float) -> tuple[dict | None, str]:
    """The GPU reference's JSON, or None and the reason."""
    try:
        proc = subprocess.run([str(gpu_ref), "--quick", "--format", "json"], capture_output=True,
                              text=True, timeout=timeout)
    except (OSError, subprocess.TimeoutExpired) as err:
        return None, str(err)
    if proc.returncode != 0:
        return None, (proc.stderr.strip() or f"exit {proc.returncode}")
    try:
        return json.loads(proc.stdout), ""
    except ValueError as err:
        return None, f"unreadable output ({err})"


def measure_hop(probe: Path | None) -> float | None:
    """Half a cache-line round trip between two cores now (bench/probe/hop.c), in ns."""
    if probe is None:
        return None
    try:
        proc = subprocess.run([str(probe)], capture_output=True, text=True, timeout=10)
        return json.loads(proc.stdout).get("hop_ns")
    except (OSError, ValueError, subprocess.TimeoutExpired):
        return None

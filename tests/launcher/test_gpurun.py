#!/usr/bin/env python3
"""Tests of gpurun driven as a subprocess (CTest label `mpi`).

Environment: GPURUN (build/bin/gpurun), MPI_RANK (mpi_rank, an MPI program on libmpi) and
PMIX_RANK_PROGRAM (pmix_rank, the same modes as a bare PMIx client). Each test gets a
fresh, empty TMPDIR; the cleanup tests check that it is empty again afterwards, that no
/dev/shm/gpurun-* entry is left and that every rank PID is gone. Timeouts here are hang
guards only, never assertions about speed.
"""
import hashlib
import os
import re
import shutil
import signal
import socket
import stat
import subprocess
import sys
import tempfile
import time
import unittest

GPURUN = os.environ.get("GPURUN", "build/bin/gpurun")
RANK = os.environ.get("MPI_RANK", "build/tests/bin/mpi_rank")
PMIX_RANK = os.environ.get("PMIX_RANK_PROGRAM", "build/tests/bin/pmix_rank")
HANG_GUARD = 60
FIXTURES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "topo", "fixtures")
DGX_GPUS = ["0000:18:00.0", "0000:2a:00.0", "0000:3a:00.0", "0000:5d:00.0", "0000:9a:00.0",
            "0000:ab:00.0", "0000:ba:00.0", "0000:db:00.0"]
PCIE_GPUS = ["0000:05:00.0", "0000:08:00.0", "0000:83:00.0", "0000:86:00.0"]


def pid_alive(pid):
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:  # a zombie is a dead process that its parent has not reaped yet
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except FileNotFoundError:
        return False


def shm_entries():
    return sorted(e for e in os.listdir("/dev/shm") if e.startswith("gpurun-"))


class GpurunTest(unittest.TestCase):
    def setUp(self):
        self._tmp = tempfile.TemporaryDirectory(prefix="gpurun-test-")
        self.tmpdir = self._tmp.name
        self.env = dict(os.environ, TMPDIR=self.tmpdir)
        self.shm_before = shm_entries()

    def tearDown(self):
        self._tmp.cleanup()

    def run_gpurun(self, *args, stdin=subprocess.DEVNULL, env=None, input=None, cwd=None):
        return subprocess.run([GPURUN, *args], stdin=None if input is not None else stdin,
                              input=input, capture_output=True, text=True,
                              env=env or self.env, timeout=HANG_GUARD, cwd=cwd)

    def start_gpurun(self, *args):
        return subprocess.Popen([GPURUN, *args], stdin=subprocess.DEVNULL,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                env=self.env)

    def read_pids(self, proc, count):
        """Reads 'pid <rank> <pid>' lines from a running gpurun until `count` are seen."""
        pids = {}
        while len(pids) < count:
            line = proc.stdout.readline()
            self.assertTrue(line, "gpurun's output ended before every rank printed its pid")
            m = re.match(r"pid (\d+) (\d+)", line)
            if m:
                pids[int(m.group(1))] = int(m.group(2))
        return pids

    def assert_nothing_left(self, pids):
        for rank, pid in pids.items():
            self.assertFalse(pid_alive(pid), f"rank {rank} (pid {pid}) still runs")
        self.assertEqual(os.listdir(self.tmpdir), [], "the job left files in TMPDIR")
        self.assertEqual(shm_entries(), self.shm_before, "the job left /dev/shm entries")

    def pids_from(self, text):
        return {int(r): int(p) for r, p in re.findall(r"^pid (\d+) (\d+)$", text, re.M)}


class CommandLine(GpurunTest):
    def assert_usage_error(self, *args, mentions=""):
        r = self.run_gpurun(*args)
        self.assertEqual(r.returncode, 2, f"{args}: {r.stderr}")
        lines = r.stderr.splitlines()
        self.assertEqual(len(lines), 1, f"{args}: expected one line, got {r.stderr!r}")
        self.assertTrue(lines[0].startswith("gpurun: "), lines[0])
        self.assertIn(mentions, lines[0])
        self.assertEqual(r.stdout, "")
        self.assertEqual(os.listdir(self.tmpdir), [], "something was started")

    def test_bad_command_lines(self):
        self.assert_usage_error("--frobnicate", "-np", "1", "true", mentions="--frobnicate")
        self.assert_usage_error("-np", "0", "true", mentions="-np")
        self.assert_usage_error("-np", "-3", "true", mentions="-np")
        self.assert_usage_error("-np", "two", "true", mentions="two")
        self.assert_usage_error("-n", "2", mentions="no program")
        self.assert_usage_error("-np", mentions="-np")
        self.assert_usage_error("-np", "1", "no-such-program-xyz", mentions="not found in PATH")
        self.assert_usage_error("-np", "1", "./no/such/file", mentions="no such file")
        with tempfile.NamedTemporaryFile(mode="w", suffix=".sh") as script:
            script.write("#!/bin/sh\nexit 0\n")
            script.flush()
            os.chmod(script.name, 0o644)
            self.assert_usage_error("-np", "1", script.name, mentions="not an executable")
        self.assert_usage_error("-np", "1", "/tmp", mentions="not an executable")
        self.assert_usage_error("--bind-to", "l2cache", "true", mentions="l2cache")
        self.assert_usage_error("--timeout", "soon", "true", mentions="soon")
        self.assert_usage_error("-x", "=1", "true", mentions="names no variable")
        self.assert_usage_error("-launcher", "pbs", "true", mentions="-launcher pbs")
        self.assert_usage_error("-launcher", "fork", "-hosts", "localhost,nohost", "true",
                                mentions="on nohost")

    def test_mpich_launcher_fork_runs_here(self):
        r = self.run_gpurun("-launcher", "fork", "-n", "2", "-bootstrap=fork", RANK, "hello")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(sorted(r.stdout.splitlines()), ["rank 0 of 2", "rank 1 of 2"])

    def test_program_built_against_open_mpi_is_refused(self):
        # Its ranks would each load Open MPI's library and run alone; one built against MPICH
        # (the ABI tests) runs on gpurun's library.
        source = os.path.join(self.tmpdir, "ompi_app.c")
        program = os.path.join(self.tmpdir, "ompi_app")
        with open(source, "w") as f:
            f.write("#include <mpi.h>\nint main(int c, char **v) { MPI_Init(&c, &v); "
                    "MPI_Finalize(); return 0; }\n")
        subprocess.run(["mpicc.openmpi", source, "-o", program], check=True)
        os.remove(source)
        r = self.run_gpurun("-np", "2", program)
        os.remove(program)
        self.assertEqual(r.returncode, 2, r.stderr)
        self.assertIn("is built against Open MPI (it needs libmpi.so.40)", r.stderr)
        self.assertIn("mpicc", r.stderr)

    def test_more_than_32_ranks_per_core_need_oversubscribe(self):
        too_many = 32 * len(os.sched_getaffinity(0)) + 1
        self.assert_usage_error("-np", str(too_many), "true", mentions="--oversubscribe")

    def test_bad_host_options(self):
        self.assert_usage_error("-H", "a:0", "true", mentions="'a:0'")
        self.assert_usage_error("-H", "a b", "true", mentions="not a host name")
        self.assert_usage_error("--npernode", "0", "-H", "a", "true", mentions="--npernode")
        self.assert_usage_error("--launch-agent", " ", "-H", "a", "true",
                                mentions="--launch-agent needs a command")
        self.assert_usage_error("-H", "a", "--hostfile", "/dev/null", "true", mentions="not both")
        self.assert_usage_error("--map-by", "numa", "--gpus-per-rank", "1", "true",
                                mentions="--map-by numa")
        # All of these name this host: the slots decide, no agent is started.
        self.assert_usage_error("-np", "4", "-H", "localhost:1,127.0.0.1:2", "true",
                                mentions="4 ranks do not fit the 3 slots")

    def test_version_and_help(self):
        r = self.run_gpurun("--version")
        self.assertEqual(r.returncode, 0)
        self.assertRegex(r.stdout, r"^gpurun \d+\.\d+\.\d+ \(PMIx ")
        r = self.run_gpurun("--help")
        self.assertEqual(r.returncode, 0)
        for option in ("-np", "-x", "--wdir", "--app", "--tag-output", "--timeout", "--bind-to",
                       "--info", "-H",
                       "--hostfile", "--npernode", "--launch-agent", "--map-by slot|node"):
            self.assertIn(option, r.stdout)

    def test_double_dash_ends_options(self):
        r = self.run_gpurun("-np", "1", "--", "sh", "-c", "echo $0 $1", "--tag-output", "x")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(r.stdout, "--tag-output x\n")

    def test_export_variables(self):
        env = dict(self.env, GPURUN_TEST_FROM_ENV="inherited")
        r = self.run_gpurun("-x", "GPURUN_TEST_SET=value=with=equals", "-x",
                            "GPURUN_TEST_FROM_ENV", "-np", "1", "sh", "-c",
                            'echo "$GPURUN_TEST_SET $GPURUN_TEST_FROM_ENV"', env=env)
        self.assertEqual(r.stdout, "value=with=equals inherited\n", r.stderr)
        # A name not set here: a warning, as Open MPI's mpirun gives, and the job runs without it.
        r = self.run_gpurun("-x", "GPURUN_TEST_UNSET_VAR", "-x", "GPURUN_TEST_SET=1", "-np", "1",
                            "sh", "-c", 'echo "${GPURUN_TEST_UNSET_VAR-unset} $GPURUN_TEST_SET"')
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(r.stdout, "unset 1\n")
        self.assertIn("gpurun: warning: -x GPURUN_TEST_UNSET_VAR: GPURUN_TEST_UNSET_VAR is not set "
                      "here; the ranks do not get it", r.stderr)


class ExitCodes(GpurunTest):
    def test_success(self):
        r = self.run_gpurun("-np", "3", RANK, "hello")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(sorted(r.stdout.splitlines()), [f"rank {i} of 3" for i in range(3)])

    def test_first_failing_exit_code(self):
        r = self.run_gpurun("-np", "3", RANK, "exit", "1", "5")
        self.assertEqual(r.returncode, 5)
        host = socket.gethostname()
        pid = self.pids_from(r.stdout)[1]
        self.assertIn(f"gpurun: rank 1 (pid {pid}) on host {host} exited with code 5", r.stderr)

    def test_plain_program_exit_code(self):
        r = self.run_gpurun("-np", "2", "sh", "-c", "exit 3")
        self.assertEqual(r.returncode, 3)
        self.assertEqual(len(re.findall(r"exited with code 3", r.stderr)), 1, r.stderr)

    def test_rank_exiting_without_finalize_ends_the_job(self):
        r = self.run_gpurun("-np", "3", RANK, "noinit", "1")
        self.assertNotEqual(r.returncode, 0)
        self.assertIn("rank 1", r.stderr)
        self.assertIn("without finalizing", r.stderr)
        self.assert_nothing_left(self.pids_from(r.stdout))

    def test_timeout(self):
        r = self.run_gpurun("--timeout", "1", "-np", "2", RANK, "wait")
        self.assertEqual(r.returncode, 124)
        self.assertIn("--timeout of 1s", r.stderr)
        self.assert_nothing_left(self.pids_from(r.stdout))

    def test_mpiexec_timeout_from_the_environment(self):
        # MPICH's mpiexec takes its limit from MPIEXEC_TIMEOUT; --timeout wins over it.
        env = dict(self.env, MPIEXEC_TIMEOUT="1")
        r = self.run_gpurun("-np", "2", RANK, "wait", env=env)
        self.assertEqual(r.returncode, 124, r.stderr)
        self.assert_nothing_left(self.pids_from(r.stdout))
        r = self.run_gpurun("--timeout", "30", "-np", "1", "sh", "-c", "sleep 2", env=env)
        self.assertEqual(r.returncode, 0, r.stderr)
        r = self.run_gpurun("-np", "1", "true", env=dict(self.env, MPIEXEC_TIMEOUT="soon"))
        self.assertEqual(r.returncode, 2)
        self.assertIn("MPIEXEC_TIMEOUT", r.stderr)


class Output(GpurunTest):
    def test_report_bindings_are_the_ranks_own(self):
        r = self.run_gpurun("--report-bindings", "-l", "-np", "3", "sh", "-c",
                            "grep Cpus_allowed_list /proc/self/status")
        self.assertEqual(r.returncode, 0, r.stderr)
        seen = dict(re.findall(r"^\[(\d)\] Cpus_allowed_list:\s*(\S+)$", r.stdout, re.M))
        reported = dict(re.findall(r"^gpurun: rank (\d) on \S+: CPUs (\S+)$", r.stderr, re.M))
        self.assertEqual(sorted(seen), ["0", "1", "2"], r.stdout)
        self.assertEqual(reported, seen, r.stderr)
        r = self.run_gpurun("--report-bindings", "--bind-to", "none", "-np", "1", "true")
        self.assertRegex(r.stderr, r"^gpurun: rank 0 on \S+: not bound$")

    def test_tagged_lines_are_whole(self):
        r = self.run_gpurun("--tag-output", "-np", "3", RANK, "lines", "200")
        self.assertEqual(r.returncode, 0, r.stderr)
        lines = r.stdout.splitlines()
        self.assertEqual(len(lines), 600)
        for line in lines:
            self.assertRegex(line, r"^\[(\d)\] rank \1 line \d+ of a whole line$")
        self.assertEqual(sorted(r.stderr.splitlines()), [f"[{i}] to stderr" for i in range(3)])

    def test_untagged_lines_and_partial_last_line(self):
        r = self.run_gpurun("-np", "2", RANK, "lines", "50")
        for line in r.stdout.splitlines():
            self.assertRegex(line, r"^rank \d line \d+ of a whole line$")
        r = self.run_gpurun("-np", "1", "printf", "no newline")
        self.assertEqual(r.stdout, "no newline")
        r = self.run_gpurun("--tag-output", "-np", "1", "printf", "no newline")
        self.assertEqual(r.stdout, "[0] no newline\n")

    def test_stdin_reaches_rank_zero_only(self):
        r = self.run_gpurun("--tag-output", "-np", "3", RANK, "stdin", input="one\ntwo\n")
        self.assertEqual(r.returncode, 0, r.stderr)
        lines = r.stdout.splitlines()
        self.assertEqual([l for l in lines if l.startswith("[0]")],
                         ["[0] rank 0 got: one", "[0] rank 0 got: two", "[0] rank 0 stdin EOF"])
        self.assertEqual(sorted(l for l in lines if not l.startswith("[0]")),
                         ["[1] rank 1 stdin EOF", "[2] rank 2 stdin EOF"])

    def test_stdin_to_a_rank_to_all_or_to_none(self):
        """Open MPI's --stdin RANK|all|none."""
        for target, readers in (("2", [2]), ("all", [0, 1, 2]), ("none", []), ("0", [0])):
            r = self.run_gpurun("--tag-output", "--stdin", target, "-np", "3", RANK, "stdin",
                                input="one\ntwo\n")
            self.assertEqual(r.returncode, 0, r.stderr)
            for i in range(3):
                got = [f"[{i}] rank {i} got: one", f"[{i}] rank {i} got: two"]
                self.assertEqual([l for l in r.stdout.splitlines() if l.startswith(f"[{i}]")],
                                 (got if i in readers else []) + [f"[{i}] rank {i} stdin EOF"],
                                 target)
        for target, mentions in (("3", "--stdin 3: the job has 3 ranks"),
                                 ("-1", "'-1' is not a rank, all or none")):
            r = self.run_gpurun("--stdin", target, "-np", "3", "true")
            self.assertEqual(r.returncode, 2, r.stderr)
            self.assertIn(mentions, r.stderr)

    def test_stdin_to_all_ranks_whole_at_each_reader_pace(self):
        """Every rank gets all of a large input, however fast it reads; a rank that stops
        reading early or exits leaves the others theirs."""
        data = os.urandom(3 << 20)
        want = hashlib.md5(data).hexdigest()
        script = ('case $OMPI_COMM_WORLD_RANK in 1) head -c 1000 >/dev/null; sleep 0.3;; '
                  '2) sleep 0.3; md5sum;; 3) exit 0;; *) md5sum;; esac')
        r = subprocess.run([GPURUN, "--tag-output", "--stdin", "all", "-np", "4", "sh", "-c",
                            script], input=data, capture_output=True, timeout=HANG_GUARD)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(sorted(r.stdout.decode().split()),
                         sorted(["[0]", want, "-", "[2]", want, "-"]))


class Failures(GpurunTest):
    """The four ways a job ends, through an MPI program; PmixClient repeats them with a bare
    PMIx client."""
    abort_message = "MPI_Abort(errorcode 7) called on rank 1"
    program = RANK

    def test_abort_is_reported_and_ends_the_others(self):
        r = self.run_gpurun("-np", "3", self.program, "abort", "1", "7")
        self.assertEqual(r.returncode, 7)
        pids = self.pids_from(r.stdout)
        self.assertEqual(sorted(pids), [0, 1, 2])
        host = socket.gethostname()
        self.assertIn(f"gpurun: rank 1 (pid {pids[1]}) on host {host} ended the job with "
                      f"code 7: {self.abort_message}", r.stderr)
        self.assertEqual(r.stderr.count("gpurun: rank"), 1, r.stderr)
        self.assert_nothing_left(pids)

    def test_rank_killed_by_signal(self):
        r = self.run_gpurun("-np", "3", self.program, "kill", "2")
        self.assertEqual(r.returncode, 128 + signal.SIGKILL)
        pids = self.pids_from(r.stdout)
        self.assertIn(f"rank 2 (pid {pids[2]}) on host {socket.gethostname()} was killed by "
                      "signal SIGKILL", r.stderr)
        self.assert_nothing_left(pids)

    def test_normal_run_leaves_nothing(self):
        r = self.run_gpurun("-np", "2", self.program, "litter")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assert_nothing_left(self.pids_from(r.stdout))

    def test_sigterm_to_gpurun_is_forwarded_and_cleaned_up(self):
        proc = self.start_gpurun("-np", "2", self.program, "wait")
        pids = self.read_pids(proc, 2)
        proc.send_signal(signal.SIGTERM)
        out, err = proc.communicate(timeout=HANG_GUARD)
        self.assertEqual(proc.returncode, 128 + signal.SIGTERM, err)
        self.assert_nothing_left(pids)

    def test_hangup_quit_and_interrupt_end_the_job_like_sigterm(self):
        for sig in (signal.SIGHUP, signal.SIGQUIT, signal.SIGINT):
            with self.subTest(signal=sig.name):
                proc = self.start_gpurun("-np", "2", self.program, "wait")
                pids = self.read_pids(proc, 2)
                proc.send_signal(sig)
                out, err = proc.communicate(timeout=HANG_GUARD)
                self.assertEqual(proc.returncode, 128 + sig, err)
                self.assertIn(f"caught {sig.name}", err)
                self.assert_nothing_left(pids)

    def test_sigterm_while_ranks_start_stops_starting_them(self):
        asked = 500
        started = os.path.join(self.tmpdir, "started")
        proc = self.start_gpurun("--oversubscribe", "-np", str(asked), "sh", "-c",
                                 f"echo $$ >> {started}; exec sleep 60")
        deadline = time.monotonic() + HANG_GUARD
        while not os.path.exists(started) and time.monotonic() < deadline:
            time.sleep(0.001)
        proc.send_signal(signal.SIGTERM)
        out, err = proc.communicate(timeout=HANG_GUARD)
        self.assertEqual(proc.returncode, 128 + signal.SIGTERM, err)
        with open(started) as f:
            pids = [int(line) for line in f if line.strip()]
        os.remove(started)
        self.assertLess(len(pids), asked, "every rank was started after the signal")
        self.assert_nothing_left(dict(enumerate(pids)))

    def wait_until_gone(self, pids):
        deadline = time.monotonic() + HANG_GUARD
        while any(pid_alive(p) for p in pids.values()) and time.monotonic() < deadline:
            time.sleep(0.01)

    def test_what_a_killed_gpurun_left_is_swept_by_the_next_job(self):
        # SIGKILL leaves gpurun no chance to clean up; its ranks die with it (parent-death
        # signal), and the next gpurun with the same TMPDIR removes the job directory and the
        # shared-memory segments, because the process that made them no longer runs.
        proc = self.start_gpurun("-np", "2", self.program, "wait")
        pids = self.read_pids(proc, 2)
        proc.kill()
        proc.communicate(timeout=HANG_GUARD)
        self.wait_until_gone(pids)
        self.assertEqual(len(os.listdir(self.tmpdir)), 1, "the killed job left no directory")
        self.assertGreater(len(shm_entries()), len(self.shm_before), "it left no segment")
        r = self.run_gpurun("-np", "1", self.program, "hello")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assert_nothing_left(pids)

    def fake_job_dir(self, scope):
        """A job directory and segment as a job whose gpurun is gone (pid beyond pid_max)
        left them, its owner file naming `scope`."""
        token = os.urandom(8).hex()
        path = os.path.join(self.tmpdir, "gpurun." + os.urandom(8).hex())
        os.mkdir(path, 0o700)
        with open(os.path.join(path, "owner"), "w") as f:
            f.write(f"999999999 12345 {scope} {token}\n")
        segment = f"/dev/shm/gpurun-{token}-rank0"
        open(segment, "w").close()
        self.addCleanup(lambda: os.path.exists(segment) and os.remove(segment))
        return path, segment

    def test_only_dead_owners_of_this_machine_are_swept(self):
        with open("/proc/sys/kernel/random/boot_id") as f:
            here = f.read().strip() + "/" + os.readlink("/proc/self/ns/pid")
        mine = self.fake_job_dir(here)
        other_host = self.fake_job_dir("0a0a0a0a-0000-0000-0000-000000000000/pid:[4026531836]")
        r = self.run_gpurun("-np", "1", self.program, "hello")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertFalse(os.path.exists(mine[0]) or os.path.exists(mine[1]), "not swept")
        # A TMPDIR on a shared file system holds other hosts' jobs: their pids mean nothing here.
        self.assertTrue(os.path.exists(other_host[0]) and os.path.exists(other_host[1]),
                        "another machine's job was swept")
        shutil.rmtree(other_host[0])

    def test_a_running_job_is_not_swept(self):
        proc = self.start_gpurun("-np", "2", self.program, "wait")
        pids = self.read_pids(proc, 2)
        running = os.listdir(self.tmpdir)
        segments = shm_entries()
        r = self.run_gpurun("-np", "1", self.program, "hello")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(os.listdir(self.tmpdir), running, "a running job's directory went")
        self.assertEqual(shm_entries(), segments, "a running job's segments went")
        proc.send_signal(signal.SIGTERM)
        proc.communicate(timeout=HANG_GUARD)
        self.assert_nothing_left(pids)

    def test_ranks_receive_the_forwarded_signal(self):
        script = 'trap "echo got TERM; exit 0" TERM; echo ready; while :; do sleep 0.05; done'
        proc = self.start_gpurun("-np", "2", "sh", "-c", script)
        for _ in range(2):
            self.assertEqual(proc.stdout.readline(), "ready\n")
        proc.send_signal(signal.SIGTERM)
        out, err = proc.communicate(timeout=HANG_GUARD)
        self.assertEqual(out, "got TERM\ngot TERM\n", err)
        self.assertEqual(proc.returncode, 128 + signal.SIGTERM)


class PmixClient(Failures):
    abort_message = "test abort"
    program = PMIX_RANK

    def test_fence_exchanges_every_key(self):
        r = self.run_gpurun("-np", "3", PMIX_RANK, "hello")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(sorted(r.stdout.splitlines()),
                         [f"rank {i} of 3: peers ok" for i in range(3)])


class JobEnvironment(GpurunTest):
    def info_lines(self, *args, env=None):
        r = self.run_gpurun(*args, PMIX_RANK, "info", env=env)
        self.assertEqual(r.returncode, 0, r.stderr)
        fields = [dict(zip(l.split()[::2], l.split()[1::2])) for l in r.stdout.splitlines()]
        return sorted(fields, key=lambda f: int(f["rank"]))

    def test_private_job_directory(self):
        first = self.info_lines("-np", "2")
        second = self.info_lines("-np", "2")
        for info in first + second:
            self.assertEqual(os.path.dirname(info["jobdir"]), self.tmpdir)
            self.assertEqual(info["mode"], "700")
        name1, name2 = (os.path.basename(i[0]["jobdir"]) for i in (first, second))
        self.assertNotEqual(name1, name2)
        self.assertRegex(name1, r"[0-9a-f]{16}$")
        self.assertNotEqual(first[0]["token"], second[0]["token"])
        self.assertEqual(first[0]["jobdir"], first[1]["jobdir"])
        self.assertEqual(os.listdir(self.tmpdir), [])

    def test_binding_and_oversubscription(self):
        ncpus = len(os.sched_getaffinity(0))
        cores = self.info_lines("-np", "1")[0]
        self.assertEqual(cores["oversubscribed"], "0")
        unbound = self.info_lines("--bind-to", "none", "-np", "1")[0]
        self.assertEqual(int(unbound["cpus"]), ncpus)
        over = self.info_lines("-np", str(ncpus + 1))
        for info in over:
            self.assertEqual(info["oversubscribed"], "1")
        over_unbound = self.info_lines("--bind-to", "none", "-np", str(ncpus + 1))
        for info in over_unbound:
            self.assertEqual(info["oversubscribed"], "1")
            self.assertEqual(int(info["cpus"]), ncpus)
        if ncpus > 1:  # one rank per core: fewer CPUs than the whole machine
            self.assertLess(int(cores["cpus"]), ncpus)
            for info in over:
                self.assertLess(int(info["cpus"]), ncpus, "oversubscribed ranks wrap the cores")

    def test_cores_are_those_within_gpuruns_affinity(self):
        # A container's cpuset narrows gpurun's affinity: the ranks learn how many cores that
        # leaves (gpurun.cores), not the machine's count.
        ncpus = len(os.sched_getaffinity(0))
        whole = self.info_lines("-np", "1")[0]
        self.assertGreaterEqual(int(whole["cores"]), 1)
        self.assertLessEqual(int(whole["cores"]), ncpus)
        first = min(os.sched_getaffinity(0))
        r = subprocess.run([GPURUN, "-np", "2", PMIX_RANK, "info"], capture_output=True,
                           text=True, env=self.env, timeout=HANG_GUARD,
                           preexec_fn=lambda: os.sched_setaffinity(0, {first}))
        self.assertEqual(r.returncode, 0, r.stderr)
        for line in r.stdout.splitlines():
            info = dict(zip(line.split()[::2], line.split()[1::2]))
            self.assertEqual(info["cores"], "1")
            self.assertEqual(info["oversubscribed"], "1")

    def test_ranks_are_told_how_large_messages_move_between_cores(self):
        # gpurun measures it once two ranks share the host (runtime/topo/copy_probe.h) and
        # tells every rank alike; GPURUN_TOPO_COPY sets it; one rank has nothing to measure.
        self.assertEqual(self.info_lines("-np", "1")[0]["copy"], "-")
        for forced in ("pipeline", "cma"):
            env = dict(self.env, GPURUN_TOPO_COPY=forced)
            self.assertEqual({i["copy"] for i in self.info_lines("-np", "2", env=env)}, {forced})
        if len(os.sched_getaffinity(0)) > 1:
            measured = {i["copy"] for i in self.info_lines("-np", "3")}
            self.assertEqual(len(measured), 1, measured)
            self.assertIn(measured.pop(), ("pipeline", "cma"))

    def test_ranks_select_collectives_by_the_copy_gpurun_measured(self):
        env = dict(self.env, GPURUN_LOG_LEVEL="info,coll:debug")
        r = self.run_gpurun("-np", "2", RANK, "hello", env=env)
        self.assertEqual(r.returncode, 0, r.stderr)
        launcher = re.findall(r"info launcher: copy between cores (\w+):", r.stderr)
        ranks = re.findall(r"debug coll: copy between cores: (\w+)", r.stderr)
        self.assertEqual(len(launcher), 1, r.stderr)
        self.assertEqual(ranks, launcher * 2, r.stderr)

    def test_ranks_move_messages_as_gpurun_measured(self):
        # The shm eager limit and the way large messages go (CMA or the fragment pipeline) are
        # the launcher's probe's, alike on every rank, not each rank's own timing.
        env = dict(self.env, GPURUN_LOG_LEVEL="info,transport:info")
        r = self.run_gpurun("-np", "2", RANK, "hello", env=env)
        self.assertEqual(r.returncode, 0, r.stderr)
        copy = re.findall(r"info launcher: copy between cores (\w+):", r.stderr)
        self.assertEqual(len(copy), 1, r.stderr)
        large = re.findall(r"shm: large messages by (.*) \(the host's copy probe\)", r.stderr)
        want = "CMA single copy" if copy[0] == "cma" else "fragment pipeline"
        self.assertEqual(large, [want] * 2, r.stderr)
        eager = re.findall(r"info launcher: shm eager limit (\d+) bytes", r.stderr)
        ranks = re.findall(r"via shm path host \(eager up to (\d+) bytes, ", r.stderr)
        if copy[0] == "cma":
            self.assertEqual(len(eager), 1, r.stderr)
            self.assertIn(eager[0], ("4096", "8192", "16384"))
            self.assertEqual(ranks, eager * 2, r.stderr)
        else:
            self.assertEqual(ranks, ["16384"] * 2, r.stderr)

    def test_collectives_and_eager_limit_follow_the_copy(self):
        # coll/tuning.json: a 64K bcast of two ranks goes by CMA straight between the buffers
        # (cma) where CMA wins, through the shared segment's pipeline where it does not; and
        # messages above 8K go by rendezvous there (api/wiring.cc), but up to 16K in one packet
        # while the sender streams; above 16K elsewhere.
        env = dict(self.env, GPURUN_LOG_LEVEL="warn,coll:debug,transport:info")
        for copy, algorithm, eager, streaming in (("cma", "cma", 8192, 16384),
                                                  ("pipeline", "shm", 16384, 16384)):
            r = self.run_gpurun("-np", "2", RANK, "bcast", "65536",
                                env=dict(env, GPURUN_TOPO_COPY=copy))
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assertEqual(r.stdout.count("bcast ok"), 2, r.stdout)
            self.assertIn(f"copy between cores: {copy}", r.stderr)
            self.assertRegex(r.stderr, rf"bcast of 65536 bytes .* on 2 ranks: {algorithm}\n")
            self.assertEqual(r.stderr.count(f"via shm path host (eager up to {eager} bytes, "
                                            f"{streaming} while streaming)"), 2, r.stderr)

    def test_inherited_launcher_variables_are_scrubbed(self):
        env = dict(self.env, PMIX_NAMESPACE="outer.job", PMIX_RANK="5",
                   PMIX_SERVER_URI41="pmix-server.1;tcp4://127.0.0.1:1", SLURM_STEP_ID="3",
                   SLURM_PROCID="5", SLURM_JOB_ID="42", OMPI_COMM_WORLD_RANK="5",
                   PMI_RANK="5", OMPI_MCA_btl="self")
        r = self.run_gpurun("-np", "2", RANK, "hello", env=env)
        self.assertEqual(r.returncode, 0, r.stderr)
        r = self.run_gpurun("-np", "1", "env", env=env)
        ranks_env = dict(l.split("=", 1) for l in r.stdout.splitlines() if "=" in l)
        for gone in ("SLURM_STEP_ID", "SLURM_PROCID", "PMI_RANK"):
            self.assertNotIn(gone, ranks_env)
        self.assertEqual(ranks_env["OMPI_COMM_WORLD_RANK"], "0")  # its own, not the outer one
        self.assertNotEqual(ranks_env["PMIX_SERVER_URI41"], env["PMIX_SERVER_URI41"])
        self.assertEqual(ranks_env["PMIX_RANK"], "0")
        self.assertTrue(ranks_env["PMIX_NAMESPACE"].startswith("gpurun."))
        self.assertEqual(ranks_env["SLURM_JOB_ID"], "42")
        self.assertEqual(ranks_env["OMPI_MCA_btl"], "self")


class Mpmd(GpurunTest):
    """Several programs in one job: gpurun A : B and --app FILE."""

    LINE = re.compile(r"^rank (\d+) of (\d+) app (-?\d+) tag (\S+) name (\S+) var (.*) cwd (\S+)$")

    def setUp(self):
        super().setUp()
        self._files = tempfile.TemporaryDirectory(prefix="gpurun-apps-")  # beside TMPDIR
        self.files = self._files.name
        self.rank = os.path.abspath(RANK)  # a relative one would be looked for under --wdir

    def tearDown(self):
        self._files.cleanup()
        super().tearDown()

    def app_lines(self, stdout):
        """mpi_rank app output as {rank: (size, app, tag, name, var, cwd)}, and the
        "ranks of app" lines as {rank: (app, app size, apps in all)}."""
        ranks, sizes = {}, {}
        for line in stdout.splitlines():
            m = self.LINE.match(line)
            if m:
                ranks[int(m.group(1))] = (int(m.group(2)), int(m.group(3)), *m.group(4, 5, 6, 7))
            m = re.match(r"^rank (\d+): ranks of app (\d+): (\d+), apps in all: (\d+)$", line)
            if m:
                sizes[int(m.group(1))] = tuple(int(g) for g in m.group(2, 3, 4))
        return ranks, sizes

    def copy_of_rank(self, directory, name):
        os.makedirs(directory, exist_ok=True)
        path = os.path.join(directory, name)
        shutil.copy(RANK, path)
        return path

    def test_programs_share_one_world(self):
        other = self.copy_of_rank(os.path.join(self.files, "bin"), "other_rank")
        r = self.run_gpurun("-x", "MPMD_VAR=job", "-np", "2", self.rank, "app", "first", ":",
                            "-np", "3", "-x", "MPMD_VAR=own", "--wdir", "/", other, "app",
                            "second")
        self.assertEqual(r.returncode, 0, r.stderr)
        ranks, sizes = self.app_lines(r.stdout)
        self.assertEqual(sorted(ranks), [0, 1, 2, 3, 4], r.stdout)
        for rank in (0, 1):
            self.assertEqual(ranks[rank], (5, 0, "first", self.rank, "job", os.getcwd()))
            self.assertEqual(sizes[rank], (0, 2, 2))
        for rank in (2, 3, 4):
            self.assertEqual(ranks[rank], (5, 1, "second", other, "own", "/"))
            self.assertEqual(sizes[rank], (1, 3, 2))
        self.assert_nothing_left({})

    def test_a_programs_own_hostfile(self):
        hostfile = os.path.join(self.files, "hosts")
        with open(hostfile, "w") as f:
            f.write("localhost slots=2\n")
        r = self.run_gpurun("-np", "1", self.rank, "app", "a", ":", "-np", "2", "--hostfile",
                            hostfile, self.rank, "app", "b")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(sorted(self.app_lines(r.stdout)[0]), [0, 1, 2], r.stdout)
        CommandLine.assert_usage_error(self, "-np", "1", self.rank, ":", "-np", "1", "-H",
                                       "localhost", "-f", hostfile, self.rank,
                                       mentions="program 2 (after ':'): give its hosts with -H")

    def test_a_programs_path_and_wdir_find_it(self):
        bin_dir = os.path.join(self.files, "bin")
        self.copy_of_rank(bin_dir, "on_path")
        self.copy_of_rank(bin_dir, "in_wdir")
        path = bin_dir + ":" + os.environ.get("PATH", "/usr/bin:/bin")
        r = self.run_gpurun("-np", "1", "-x", f"PATH={path}", "on_path", "app", "p", ":",
                            "-np", "1", "--wdir", bin_dir, "./in_wdir", "app", "w")
        self.assertEqual(r.returncode, 0, r.stderr)
        ranks, _ = self.app_lines(r.stdout)
        self.assertEqual(ranks[0][1:4], (0, "p", "on_path"))
        self.assertEqual(ranks[1][1:4], (1, "w", "./in_wdir"))
        self.assertEqual(ranks[1][5], bin_dir)

    def test_app_file(self):
        app_file = os.path.join(self.files, "apps")
        with open(app_file, "w") as f:
            f.write(f"# the ranks of each program\n\n-np 1 {self.rank} app one\n"
                    f"  -np 2 -x 'MPMD_VAR=two words' --wdir=/ {self.rank} app \"two\"\n")
        r = self.run_gpurun("--tag-output", "--app", app_file)
        self.assertEqual(r.returncode, 0, r.stderr)
        ranks, sizes = self.app_lines(re.sub(r"^\[\d+\] ", "", r.stdout, flags=re.M))
        self.assertEqual(ranks[0], (3, 0, "one", self.rank, "-", os.getcwd()))
        self.assertEqual(ranks[1], (3, 1, "two", self.rank, "two words", "/"))
        self.assertEqual(sizes[2], (1, 2, 2))
        r = self.run_gpurun("-configfile", app_file)  # MPICH's name for it
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(len(self.app_lines(r.stdout)[0]), 3, r.stdout)

    def test_mpich_spellings(self):
        # mpiexec (a link to gpurun) as MPICH users write it: -genv for every program, -env for
        # one (which wins), -hosts, -f and -ppn for the hosts (all this one here).
        hostfile = os.path.join(self.files, "hosts")
        with open(hostfile, "w") as f:
            f.write("localhost:4\n")
        r = self.run_gpurun("-genv", "MPMD_VAR", "every", "-f", hostfile, "-ppn", "3", "-n", "1",
                            self.rank, "app", "a", ":", "-n", "2", "-env", "MPMD_VAR", "own",
                            "-hosts", "localhost", self.rank, "app", "b")
        self.assertEqual(r.returncode, 0, r.stderr)
        ranks, _ = self.app_lines(r.stdout)
        self.assertEqual([ranks[i][4] for i in range(3)], ["every", "own", "own"])
        # -genvlist/-envlist take the named variables' values here; -genvall/-envall are what
        # gpurun does anyway.
        env = dict(self.env, MPMD_VAR="listed")
        r = self.run_gpurun("-genvall", "-genvlist", "MPMD_VAR", "-n", "1", self.rank, "app", "a",
                            ":", "-n", "1", "-envall", "-env", "MPMD_VAR", "own", self.rank,
                            "app", "b", env=env)
        self.assertEqual(r.returncode, 0, r.stderr)
        ranks, _ = self.app_lines(r.stdout)
        self.assertEqual([ranks[i][4] for i in range(2)], ["listed", "own"])
        # A listed name not set here: a warning (MPICH's mpiexec says nothing), the others go.
        r = self.run_gpurun("-genvlist", "GPURUN_TEST_UNSET_VAR,MPMD_VAR", "-n", "1", self.rank,
                            "app", "a", env=env)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(self.app_lines(r.stdout)[0][0][4], "listed")
        self.assertIn("-genvlist GPURUN_TEST_UNSET_VAR: GPURUN_TEST_UNSET_VAR is not set here",
                      r.stderr)
        usage = CommandLine.assert_usage_error
        usage(self, "-genvlist", "A,,B", "true", mentions="'A,,B' names an empty variable")
        usage(self, "-genv", "A", mentions="-genv needs a name and a value")
        usage(self, "-env", "A=1", "x", "true", mentions="'A=1' is no variable name")
        usage(self, "-n", "1", self.rank, ":", "-n", "1", "-genv", "A", "1", self.rank,
              mentions="'-genv' applies to the whole job")

    def test_display_map(self):
        r = self.run_gpurun("--display-map", "-np", "2", "true", ":", "-np", "1", "sh", "-c",
                            "true")
        self.assertEqual(r.returncode, 0, r.stderr)
        host = socket.gethostname()
        self.assertEqual(r.stderr.splitlines(),
                         [f"gpurun: rank 0 on {host}: true (program 1)",
                          f"gpurun: rank 1 on {host}: true (program 1)",
                          f"gpurun: rank 2 on {host}: sh (program 2)"])

    def test_display_allocation(self):
        host = socket.gethostname()
        r = self.run_gpurun("--display-allocation", "-np", "1", "true")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(r.stderr.splitlines(),
                         [f"gpurun: allocation: {host} slots={len(os.sched_getaffinity(0))} "
                          "(this host)"])
        with tempfile.TemporaryDirectory() as tmp:
            hostfile = os.path.join(tmp, "hosts")
            with open(hostfile, "w") as f:
                f.write("localhost slots=3 max_slots=5\n")
            r = self.run_gpurun("--display-allocation", "--hostfile", str(hostfile), "-np", "1",
                                "true")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(r.stderr.splitlines(),
                         ["gpurun: allocation: localhost slots=3 max_slots=5 (this host)"])

    def test_open_mpi_spellings(self):
        r = self.run_gpurun("--allow-run-as-root", "-N", "2", "--wd", "/", "-np", "1", "pwd")
        self.assertEqual((r.returncode, r.stdout), (0, "/\n"), r.stderr)

    def test_pmix_app_keys(self):
        r = self.run_gpurun("-np", "2", PMIX_RANK, "apps", ":", "-np", "1", PMIX_RANK, "apps",
                            ":", "-np", "2", PMIX_RANK, "apps")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(sorted(r.stdout.splitlines()),
                         [f"rank {r} appnum {a} apps 3 size {z} leader {l}"
                          for r, a, z, l in [(0, 0, 2, 0), (1, 0, 2, 0), (2, 1, 1, 2),
                                             (3, 2, 2, 3), (4, 2, 2, 3)]])
        r = self.run_gpurun("-np", "2", PMIX_RANK, "apps")
        self.assertEqual(sorted(r.stdout.splitlines()),
                         [f"rank {r} appnum 0 apps 1 size 2 leader 0" for r in (0, 1)], r.stderr)

    def test_bad_mpmd_command_lines(self):
        usage = CommandLine.assert_usage_error
        usage(self, "-np", "1", self.rank, ":", mentions="program 2 (after ':'): no program to run")
        usage(self, "-np", "1", self.rank, ":", "-np", "1", "--tag-output", self.rank,
              mentions="'--tag-output' applies to the whole job")
        usage(self, "-np", "1", self.rank, ":", "-np", "1", "--frobnicate", self.rank,
              mentions="unknown option '--frobnicate'")
        usage(self, "-np", "1", self.rank, ":", "-np", "x", self.rank,
              mentions="program 2 (after ':'): -np")
        usage(self, self.rank, ":", "-np", "1", self.rank, mentions="program 1: no -np")
        usage(self, "-np", "1", self.rank, ":", self.rank, mentions="program 2 (after ':'): no -np")
        usage(self, "-np", "1", ":", "-np", "1", self.rank,
              mentions="no program before the first ':'")
        usage(self, "-np", "1", self.rank, ":", "-np", "1", "-H", "a:0", self.rank,
              mentions="program 2 (after ':'): ")
        usage(self, "-np", "1", self.rank, ":", "-np", "1", "no-such-program-xyz",
              mentions="not found in PATH")
        usage(self, "--wdir", "/no/such/dir", "-np", "1", self.rank, mentions="--wdir /no/such/dir")
        usage(self, "--app", "/no/such/file", mentions="cannot read")
        app_file = os.path.join(self.files, "apps")
        with open(app_file, "w") as f:
            f.write(f"-np 1 {self.rank}\n-np 1 {self.rank} 'unclosed\n")
        usage(self, "--app", app_file, mentions=f"{app_file}:2: unbalanced quote (')")
        usage(self, "--app", app_file, self.rank, mentions="one too many")
        usage(self, "-np", "2", "--app", app_file, mentions="go on each line")
        usage(self, "-x", "A=1", "--app", app_file, mentions="go on each line")
        with open(app_file, "w") as f:
            f.write("# nothing\n")
        usage(self, "--app", app_file, mentions="names no program")


class Info(GpurunTest):
    def test_info_params_lists_the_launcher_knobs(self):
        env = dict(self.env, GPURUN_LAUNCHER_KILL_GRACE="250ms")
        r = self.run_gpurun("--info", "params", env=env)
        self.assertEqual(r.returncode, 0, r.stderr)
        row = re.search(r"^GPURUN_LAUNCHER_KILL_GRACE\s+(\S+)\s+(\S+)\s+(\S+)\s+(.+)$",
                        r.stdout, re.M)
        self.assertIsNotNone(row, r.stdout)
        self.assertEqual(row.groups()[:3], ("250ms", "300ms", "env"))
        for knob in ("GPURUN_LAUNCHER_PMIX_GDS", "GPURUN_LAUNCHER_LINE_MAX",
                     "GPURUN_LAUNCHER_PROFILE"):
            self.assertRegex(r.stdout, rf"(?m)^{knob}\s+\S+\s+\S+\s+default\s+\S")
        library = os.path.join(os.path.dirname(GPURUN), "..", "lib", "libmpi.so.12")
        if os.path.exists(library):
            self.assertIn("library knobs:", r.stdout)
            self.assertRegex(r.stdout, r"(?m)^GPURUN_(?!LAUNCHER_)\w+\s+\S+")
        else:
            self.assertEqual(len(r.stderr.splitlines()), 1)
            self.assertIn("cannot load", r.stderr)
            self.assertIn("launcher's knobs only", r.stderr)

    def test_unknown_knob_warning(self):
        env = dict(self.env, GPURUN_LAUNCHER_KILL_GRAEC="1s")
        r = self.run_gpurun("-np", "1", "true", env=env)
        self.assertEqual(r.returncode, 0)
        self.assertIn("GPURUN_LAUNCHER_KILL_GRAEC", r.stderr)
        self.assertIn("did you mean GPURUN_LAUNCHER_KILL_GRACE", r.stderr)

    def test_unknown_info_topic(self):
        r = self.run_gpurun("--info", "no-such-topic")
        self.assertEqual(r.returncode, 2)
        self.assertEqual(len(r.stderr.splitlines()), 1, r.stderr)


def fixture(name):
    return os.path.join(FIXTURES, name)


def explain_sections(text):
    """Splits --explain output into {"header", "Placement", "Topology", "Paths between ranks"}."""
    sections, name = {"header": []}, "header"
    for line in text.splitlines():
        if line in ("Placement", "Topology", "Paths between ranks"):
            name = line
            sections[name] = []
        else:
            sections[name].append(line)
    return sections


def placement_rows(text):
    """--explain placement rows as {rank: {"gpu", "numa", "cpus", "nic"}}."""
    rows = {}
    for line in explain_sections(text)["Placement"][1:]:
        if not line.strip():
            continue
        m = re.match(r"^(\d+)\s+\S+\s+(-|(?:GPU\d+ \S+?)(?:,GPU\d+ \S+)*)\s+(\S+)\s+(\S+)\s+(.*)$",
                     line)
        assert m, line
        rows[int(m.group(1))] = {"gpu": m.group(2), "numa": m.group(3), "cpus": m.group(4),
                                 "nic": m.group(5)}
    return rows


def matrix_row(text, label):
    for line in explain_sections(text)["Topology"]:
        if line.startswith(label + " "):
            return line.split()[1:]
    raise AssertionError(f"no matrix row {label} in {text}")


def path_lines(text):
    """{"0-1": (host path, device path, [refusal lines])} from --explain."""
    out, last = {}, None
    for line in explain_sections(text)["Paths between ranks"][1:]:
        m = re.match(r"^(\d+-\d+)\s+(.+?)\s{2,}(.+)$", line)
        if m:
            last = m.group(1)
            out[last] = (m.group(2), m.group(3), [])
        elif line.startswith("        ") and last:
            out[last][2].append(line.strip())
    return out


class FixtureTest(GpurunTest):
    def setUp(self):
        super().setUp()
        self.env.pop("CUDA_VISIBLE_DEVICES", None)  # the tests set it where they mean to


class Explain(FixtureTest):
    def setUp(self):
        super().setUp()
        # The fixtures' device paths name cuda_ipc, a transport only a CUDA build has.
        if os.environ.get("CUDA_BUILT_FOR_TESTS") == "0":
            self.skipTest("built without CUDA: no cuda_ipc transport to choose")

    def explain(self, *args, topo=None, env=None, code=0):
        env = dict(env or self.env)
        if topo:
            env["GPURUN_TOPO_FILE"] = fixture(topo)
        r = self.run_gpurun("--explain", *args, env=env)
        self.assertEqual(r.returncode, code, r.stderr)
        return r

    def test_dgx_h100(self):
        out = self.explain(topo="dgx-h100.xml").stdout
        self.assertIn("8 ranks", out)
        self.assertIn("not this machine: bindings are shown, not applied", out)
        rows = placement_rows(out)
        self.assertEqual(sorted(rows), list(range(8)))
        for r, row in rows.items():
            self.assertEqual(row["gpu"], f"GPU{r} {DGX_GPUS[r]}")
            self.assertEqual(row["nic"], f"NIC{r} mlx5_{r} (PIX)")
            self.assertEqual(row["numa"], "0" if r < 4 else "1")
            self.assertEqual(row["cpus"], "0-111" if r < 4 else "112-223")
        self.assertEqual(matrix_row(out, "GPU0"),
                         ["X"] + ["NV18"] * 7 + ["PIX"] + ["PHB"] * 3 + ["SYS"] * 4 + ["0-111", "0"])
        self.assertEqual(matrix_row(out, "NIC5")[:8], ["SYS"] * 4 + ["PHB", "PIX", "PHB", "PHB"])
        paths = path_lines(out)
        self.assertEqual(len(paths), 28)
        for pair, (host, device, refused) in paths.items():
            self.assertEqual(device, "cuda_ipc NVL", pair)
            self.assertEqual(refused, [], pair)
        self.assertEqual(paths["0-1"][0], "shm same NUMA")
        self.assertEqual(paths["3-4"][0], "shm SYS")

    def test_ranks_a_host_and_cores_a_rank(self):
        out = self.explain("-N", "3", "--map-by", "core", "--cpus-per-rank", "4",
                           topo="dgx-h100.xml").stdout
        self.assertIn("3 ranks", out)
        rows = placement_rows(out)
        self.assertEqual([rows[r]["cpus"] for r in sorted(rows)], ["0-7", "8-15", "16-23"])

    def test_pcie_two_socket(self):
        out = self.explain("-np", "4", topo="pcie-2socket.xml").stdout
        self.assertEqual(matrix_row(out, "GPU0")[:7], ["X", "PXB", "SYS", "SYS", "PXB", "PHB", "SYS"])
        self.assertEqual(matrix_row(out, "GPU2")[:7], ["SYS", "SYS", "X", "PHB", "SYS", "SYS", "PHB"])
        self.assertEqual(matrix_row(out, "GPU3")[:7], ["SYS", "SYS", "PHB", "X", "SYS", "SYS", "PIX"])
        self.assertIn("NIC1: eno1 (0000:0a:00.0)", out)
        self.assertIn("GPU0-GPU2: IOH topology not supported", out)
        rows = placement_rows(out)
        self.assertEqual(rows[0]["nic"], "NIC0 mlx5_0 (PXB)")
        self.assertEqual(rows[2]["nic"], "NIC2 mlx5_1 (PHB)")
        self.assertEqual(rows[3]["nic"], "NIC2 mlx5_1 (PIX)")
        paths = path_lines(out)
        self.assertEqual(paths["0-1"][1], "cuda_ipc PXB")
        self.assertEqual(paths["2-3"][1], "cuda_ipc PHB")
        host, device, refused = paths["0-2"]
        self.assertEqual((host, device), ("shm SYS", "shm SYS, staged through host memory"))
        self.assertEqual(refused, ["device buffers: cuda_ipc SYS refused: peer access off between "
                                   "GPU 0 and GPU 2 (NVML: IOH topology not supported)"])

    def test_knobs_show_as_reasons(self):
        env = dict(self.env, GPURUN_TOPO_P2P_LEVEL="PXB")
        paths = path_lines(self.explain("-np", "4", topo="pcie-2socket.xml", env=env).stdout)
        self.assertEqual(paths["0-1"][1], "cuda_ipc PXB")
        self.assertEqual(paths["2-3"][1], "shm same NUMA, staged through host memory")
        self.assertIn("beyond GPURUN_TOPO_P2P_LEVEL=PXB", paths["2-3"][2][0])
        env = dict(self.env, GPURUN_TOPO_P2P="0")
        paths = path_lines(self.explain("-np", "2", topo="dgx-h100.xml", env=env).stdout)
        self.assertEqual(paths["0-1"][2], ["device buffers: cuda_ipc NVL refused: disabled by "
                                           "GPURUN_TOPO_P2P=0"])

    def test_gpu_and_nic_under_one_switch(self):
        out = self.explain(topo="gpu-nic-switch.xml").stdout
        self.assertIn("1 rank on host", out)
        self.assertEqual(placement_rows(out)[0]["nic"], "NIC1 mlx5_0 (PIX)")
        self.assertEqual(matrix_row(out, "GPU0")[:3], ["X", "PHB", "PIX"])
        self.assertIn("NVLink and P2P data: none in the file", out)
        self.assertIn("(one rank: no pairs)", out)

    def test_node_without_gpu(self):
        out = self.explain("-np", "3", topo="no-gpu.xml").stdout
        self.assertIn("placement: by core", out)
        rows = placement_rows(out)
        self.assertEqual([rows[r]["gpu"] for r in range(3)], ["-"] * 3)
        self.assertEqual([rows[r]["cpus"] for r in range(3)], ["0-1", "2-3", "4-5"])
        self.assertEqual(path_lines(out)["0-2"][:2], ("shm same NUMA", "- (no GPU on this host)"))

    def test_default_is_one_rank_per_gpu(self):
        rows = placement_rows(self.explain("--gpus-per-rank", "2", topo="dgx-h100.xml").stdout)
        self.assertEqual(sorted(rows), [0, 1, 2, 3])
        self.assertEqual(rows[1]["gpu"], f"GPU2 {DGX_GPUS[2]},GPU3 {DGX_GPUS[3]}")
        self.assertEqual(rows[1]["nic"], "NIC2 mlx5_2 (PIX)")

    def test_this_host(self):
        out = self.explain("-np", "2").stdout
        self.assertIn("topology: this host\n", out)
        self.assertNotIn("not this machine", out)
        has_gpu = "GPUs: 0," not in out
        self.assertIn("placement: by GPU" if has_gpu else "placement: by core", out)
        library = os.path.join(os.path.dirname(GPURUN), "..", "lib", "libmpi.so.12")
        if os.path.exists(library):
            self.assertRegex(out, r"transports: self\S* shm .*, from \S*libmpi.so.12\n")

    def test_copy_between_cores(self):
        if len(os.sched_getaffinity(0)) > 1:
            self.assertRegex(self.explain("-np", "2").stdout,
                             r"copy between cores: (pipeline|cma) \(64K between CPUs \d+ and \d+: "
                             r"pipeline [0-9.]+ us, CMA ([0-9.]+ us; 16K: one packet [0-9.]+ us, "
                             r"CMA [0-9.]+ us|unavailable \(.*\)); ")
        forced = self.explain("-np", "2", env=dict(self.env, GPURUN_TOPO_COPY="cma")).stdout
        self.assertIn("copy between cores: cma (set by GPURUN_TOPO_COPY=cma;", forced)
        one = self.explain("-np", "1").stdout
        self.assertIn("copy between cores: unknown (not measured: one rank on this host;", one)

    def test_dump_then_explain_from_the_dump(self):
        dump = os.path.join(self.tmpdir, "topo.xml")
        first = self.explain("-np", "4", topo="pcie-2socket.xml",
                             env=dict(self.env, GPURUN_TOPO_DUMP=dump)).stdout
        second = self.explain("-np", "4", env=dict(self.env, GPURUN_TOPO_FILE=dump)).stdout
        for section in ("Placement", "Topology", "Paths between ranks"):
            self.assertEqual(explain_sections(first)[section], explain_sections(second)[section])
        # This host's own topology, dumped and explained from the file: the same matrix.
        here = self.explain("-np", "2", env=dict(self.env, GPURUN_TOPO_DUMP=dump)).stdout
        again = self.explain("-np", "2", env=dict(self.env, GPURUN_TOPO_FILE=dump)).stdout
        self.assertEqual(explain_sections(here)["Topology"], explain_sections(again)["Topology"])
        os.remove(dump)

    def test_program_is_checked_not_run(self):
        marker = os.path.join(self.tmpdir, "ran")
        self.explain("-np", "2", "sh", "-c", f"touch {marker}")
        self.assertFalse(os.path.exists(marker))
        r = self.run_gpurun("--explain", "no-such-program-xyz")
        self.assertEqual(r.returncode, 2)
        self.assertIn("not found in PATH", r.stderr)


class GpuPlacement(FixtureTest):
    """Ranks placed as on the fixture machines (GPURUN_TOPO_FILE): the keys they are given."""

    def info_lines(self, *args, topo=None, env=None):
        env = dict(env or self.env)
        if topo:
            env["GPURUN_TOPO_FILE"] = fixture(topo)
        r = self.run_gpurun(*args, PMIX_RANK, "info", env=env)
        self.assertEqual(r.returncode, 0, r.stderr)
        fields = [dict(zip(l.split()[::2], l.split()[1::2])) for l in r.stdout.splitlines()]
        return sorted(fields, key=lambda f: int(f["rank"]))

    def test_report_bindings_name_gpu_and_nic(self):
        env = dict(self.env, GPURUN_TOPO_FILE=fixture("dgx-h100.xml"))
        r = self.run_gpurun("--report-bindings", "-np", "2", "true", env=env)
        self.assertEqual(r.returncode, 0, r.stderr)
        lines = sorted(l for l in r.stderr.splitlines() if l.startswith("gpurun: rank"))
        self.assertEqual(len(lines), 2, r.stderr)
        for rank, line in enumerate(lines):
            self.assertIn(f"rank {rank} on ", line)
            self.assertIn(f"(not applied here), GPU {DGX_GPUS[rank]}, NIC mlx5_", line)

    def test_ranks_are_told_their_gpu_and_nic(self):
        for info in self.info_lines("-np", "3", topo="dgx-h100.xml"):
            r = int(info["rank"])
            self.assertEqual(info["gpus"], DGX_GPUS[r])
            self.assertEqual(info["nic"], f"mlx5_{r}")
            self.assertEqual(info["cuda_visible"], "-", "gpurun must not hide GPUs")

    def test_user_visible_devices_are_kept_and_followed(self):
        env = dict(self.env, CUDA_VISIBLE_DEVICES="2,3")
        infos = self.info_lines("-np", "2", topo="dgx-h100.xml", env=env)
        self.assertEqual([i["gpus"] for i in infos], DGX_GPUS[2:4])
        self.assertEqual([i["cuda_visible"] for i in infos], ["2,3", "2,3"])
        env = dict(env, GPURUN_TOPO_FILE=fixture("dgx-h100.xml"))
        out = self.run_gpurun("--explain", env=env).stdout
        self.assertIn("hidden by CUDA_VISIBLE_DEVICES (no rank placed on them): GPU0 GPU1 GPU4 "
                      "GPU5 GPU6 GPU7\n", out)
        self.assertEqual(sorted(placement_rows(out)), [0, 1])

    def test_several_gpus_per_rank(self):
        infos = self.info_lines("--gpus-per-rank", "2", "-np", "2", topo="pcie-2socket.xml")
        self.assertEqual([i["gpus"] for i in infos],
                         [",".join(PCIE_GPUS[:2]), ",".join(PCIE_GPUS[2:])])
        self.assertEqual([i["nic"] for i in infos], ["mlx5_0", "mlx5_1"])

    def test_more_ranks_than_gpus_spread_evenly(self):
        infos = self.info_lines("-np", "5", topo="pcie-2socket.xml")
        self.assertEqual([i["gpus"] for i in infos], [PCIE_GPUS[0]] * 2 + PCIE_GPUS[1:])
        # The same placement, shown by --explain (no ranks started) for more ranks.
        env = dict(self.env, GPURUN_TOPO_FILE=fixture("pcie-2socket.xml"))
        for np, shares in (("6", [0, 0, 1, 1, 2, 3]), ("8", [0, 0, 1, 1, 2, 2, 3, 3])):
            r = self.run_gpurun("--explain", "--map-by", "gpu", "-np", np, env=env)
            self.assertEqual(r.returncode, 0, r.stderr)
            rows = placement_rows(r.stdout)
            self.assertEqual([rows[k]["gpu"] for k in sorted(rows)],
                             [f"GPU{g} {PCIE_GPUS[g]}" for g in shares])

    def test_map_by_core_gives_no_gpu(self):
        for info in self.info_lines("--map-by", "core", "-np", "2", topo="dgx-h100.xml"):
            self.assertEqual((info["gpus"], info["nic"]), ("-", "-"))

    def test_real_host_without_gpu_is_unchanged(self):
        ncpus = len(os.sched_getaffinity(0))
        for info in self.info_lines("-np", "1"):
            self.assertEqual((info["gpus"], info["nic"]), ("-", "-"))
            if ncpus > 1:
                self.assertEqual(info["cpus"], "1", "one rank is bound to one core")

    def assert_usage_error(self, *args, mentions, topo=None):
        env = dict(self.env)
        if topo:
            env["GPURUN_TOPO_FILE"] = fixture(topo)
        r = self.run_gpurun(*args, "true", env=env)
        self.assertEqual(r.returncode, 2, r.stderr)
        self.assertEqual(len(r.stderr.splitlines()), 1, r.stderr)
        self.assertIn(mentions, r.stderr)
        self.assertEqual(os.listdir(self.tmpdir), [], "something was started")

    def test_impossible_gpu_requests(self):
        self.assert_usage_error("--gpus-per-rank", "3", "-np", "3", topo="dgx-h100.xml",
                                mentions="--gpus-per-rank 3 with -np 3 needs 9 GPUs; this host has 8")
        self.assert_usage_error("--gpus-per-rank", "1", "-np", "2", topo="no-gpu.xml",
                                mentions="this host has no GPU")
        self.assert_usage_error("--map-by", "gpu", "-np", "1", topo="no-gpu.xml",
                                mentions="--map-by gpu: this host has no GPU")
        self.assert_usage_error("--gpus-per-rank", "0", mentions="--gpus-per-rank")
        self.assert_usage_error("--map-by", "board", mentions="board")
        self.assert_usage_error("--map-by", "socket", "--gpus-per-rank", "1",
                                mentions="not --map-by numa, socket")
        self.assert_usage_error("--map-by", "core", "--gpus-per-rank", "1", mentions="--map-by core")
        env = dict(self.env, CUDA_VISIBLE_DEVICES="0")
        r = self.run_gpurun("--gpus-per-rank", "1", "-np", "2", "true",
                            env=dict(env, GPURUN_TOPO_FILE=fixture("pcie-2socket.xml")))
        self.assertEqual(r.returncode, 2)
        self.assertIn("needs 2 GPUs; this host has 1 GPU visible (CUDA_VISIBLE_DEVICES hides 3)",
                      r.stderr)


class Singleton(GpurunTest):
    def test_program_run_alone_is_rank_zero_of_one(self):
        env = {k: v for k, v in self.env.items() if not k.startswith(("PMIX_", "PMI_", "SLURM_"))}
        r = subprocess.run([RANK, "hello"], capture_output=True, text=True, env=env,
                           stdin=subprocess.DEVNULL, timeout=HANG_GUARD)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(r.stdout, "rank 0 of 1\n")

    def test_pmi_launcher_is_refused(self):
        # MPICH's mpiexec (Hydra) speaks PMI-1: each rank would be a singleton giving wrong
        # answers; MPI_Init fails and says how to start the job.
        env = {k: v for k, v in self.env.items() if not k.startswith(("PMIX_", "PMI_", "SLURM_"))}
        r = subprocess.run(["mpiexec.mpich", "-n", "2", RANK, "hello"], capture_output=True,
                           text=True, env=env, stdin=subprocess.DEVNULL, timeout=HANG_GUARD)
        self.assertNotEqual(r.returncode, 0, r.stdout)
        self.assertNotIn("rank 0 of 1", r.stdout)
        self.assertIn("started as one of 2 by a launcher that speaks PMI-1 or PMI-2", r.stderr)
        self.assertIn("start the job with gpurun", r.stderr)
        # PMI_SIZE=1 is a job of one: the program runs alone, as without a launcher.
        r = subprocess.run([RANK, "hello"], capture_output=True, text=True,
                           env=dict(env, PMI_SIZE="1", PMI_RANK="0"), stdin=subprocess.DEVNULL,
                           timeout=HANG_GUARD)
        self.assertEqual((r.returncode, r.stdout), (0, "rank 0 of 1\n"), r.stderr)


if __name__ == "__main__":
    unittest.main()

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
import socket
import subprocess
import tempfile
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

    def assert_usage_error(self, *args, mentions=""):
        """gpurun refuses the command line with one line on stderr and starts nothing."""
        r = self.run_gpurun(*args)
        self.assertEqual(r.returncode, 2, f"{args}: {r.stderr}")
        lines = r.stderr.splitlines()
        self.assertEqual(len(lines), 1, f"{args}: expected one line, got {r.stderr!r}")
        self.assertTrue(lines[0].startswith("gpurun: "), lines[0])
        self.assertIn(mentions, lines[0])
        self.assertEqual(r.stdout, "")
        self.assertEqual(os.listdir(self.tmpdir), [], "something was started")


class CommandLine(GpurunTest):
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

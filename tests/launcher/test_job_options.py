#!/usr/bin/env python3
"""gpurun's output options and the peers' spellings of placement that job scripts carry
(CTest label `mpi`): --output-filename with its modifiers, --merge-stderr-to-stdout,
--timestamp-output, Open MPI's -c and --map-by ppr:N:node, the clear refusal of --mca, and
the cores a rank that runs threads takes.
Same environment as test_gpurun.py, whose GpurunTest it uses."""
import glob
import os
import re
import socket
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from test_gpurun import RANK, GpurunTest  # noqa: E402

# Each rank says who it is on both streams, and leaves its last line open.
SAY = 'echo "out $PMIX_RANK"; echo "err $PMIX_RANK" >&2; printf "open $PMIX_RANK"'


def read(path):
    with open(path) as f:
        return f.read()


class OutputOptions(GpurunTest):
    def files_under(self, top):
        found = []
        for root, _, files in os.walk(top):
            found += [os.path.relpath(os.path.join(root, f), top) for f in files]
        return sorted(found)

    def test_output_filename_writes_each_rank_and_copies_to_the_terminal(self):
        top = os.path.join(self.tmpdir, "out")
        r = self.run_gpurun("-np", "3", "--output-filename", top, "sh", "-c", SAY)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(self.files_under(top),
                         [f"1/rank.{i}/{s}" for i in range(3) for s in ("stderr", "stdout")])
        for i in range(3):  # as the rank wrote them: no prefix, the open line left open
            self.assertEqual(read(f"{top}/1/rank.{i}/stdout"), f"out {i}\nopen {i}")
            self.assertEqual(read(f"{top}/1/rank.{i}/stderr"), f"err {i}\n")
            self.assertIn(f"out {i}", r.stdout)
            self.assertIn(f"err {i}", r.stderr)

    def test_nocopy_nojobid_merged_and_zero_filled(self):
        top = os.path.join(self.tmpdir, "out")
        r = self.run_gpurun("-np", "10", "--oversubscribe", "--merge-stderr-to-stdout",
                            f"--output-filename={top}:nocopy,nojobid", "sh", "-c", SAY)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual((r.stdout, r.stderr), ("", ""))
        self.assertEqual(self.files_under(top), [f"rank.{i:02d}/stdout" for i in range(10)])
        text = read(f"{top}/rank.07/stdout")
        self.assertEqual(sorted(text.split("\n")), ["err 7", "open 7", "out 7"])

    def test_output_filename_of_an_mpi_program(self):
        top = os.path.join(self.tmpdir, "relative")
        r = self.run_gpurun("-np", "2", "--output-filename", "relative:nocopy", RANK, "lines",
                            "20", cwd=self.tmpdir)
        self.assertEqual(r.returncode, 0, r.stderr)
        for i in range(2):
            lines = read(f"{top}/1/rank.{i}/stdout").splitlines()
            self.assertEqual(len(lines), 20)
            self.assertTrue(all(re.fullmatch(rf"rank {i} line \d+ of a whole line", line)
                                for line in lines), lines)

    def test_bad_output_filename(self):
        for args, mentions in ((["--output-filename", "d:copy", "true"],
                                "'copy' is not a modifier"),
                               (["--output-filename=", "true"], "needs a directory"),
                               (["--output-filename"], "needs a value")):
            r = self.run_gpurun(*args)
            self.assertEqual(r.returncode, 2, r.stderr)
            self.assertIn(mentions, r.stderr)
        blocker = os.path.join(self.tmpdir, "file")
        open(blocker, "w").close()
        r = self.run_gpurun("--output-filename", blocker, "sh", "-c", "echo ran")
        self.assertNotEqual(r.returncode, 0)
        self.assertIn(f"--output-filename: cannot create {blocker}/1/rank.0", r.stderr)
        self.assertNotIn("ran", r.stdout)

    def test_mpich_file_patterns(self):
        """MPICH's -outfile-pattern and -errfile-pattern: each stream in the file its pattern
        names (%r rank, %h host, %p its index, %g 0), not on gpurun's; one file for ranks whose
        names are the same."""
        host = socket.gethostname()
        r = self.run_gpurun("-np", "3", "-outfile-pattern", "out.%r.%h.%p%g", "--stdin", "none",
                            "sh", "-c", SAY, cwd=self.tmpdir)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(r.stdout, "")
        self.assertEqual(sorted(r.stderr.splitlines()), [f"err {i}" for i in range(3)])
        for i in range(3):
            self.assertEqual(read(f"{self.tmpdir}/out.{i}.{host}.00"), f"out {i}\nopen {i}")
        r = self.run_gpurun("-np", "2", "--errfile-pattern=err.txt", "sh", "-c", SAY,
                            cwd=self.tmpdir)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(r.stderr, "")
        self.assertEqual(sorted(read(f"{self.tmpdir}/err.txt").splitlines()), ["err 0", "err 1"])
        for args, mentions in ((["-outfile-pattern", "x.%q"], "'%q' in 'x.%q' is not"),
                               (["-outfile-pattern", "x", "--output-filename", "d"], "not both"),
                               (["-outfile-pattern", "none/x.%r"],
                                "-outfile-pattern: cannot create none/x.0")):
            r = self.run_gpurun(*args, "sh", "-c", "echo ran", cwd=self.tmpdir)
            self.assertNotEqual(r.returncode, 0)
            self.assertIn(mentions, r.stderr)
            self.assertNotIn("ran", r.stdout)

    def test_merge_stderr_to_stdout(self):
        r = self.run_gpurun("-np", "2", "--merge-stderr-to-stdout", "--tag-output", "sh", "-c",
                            SAY)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(r.stderr, "")
        self.assertEqual(sorted(r.stdout.splitlines()),
                         ["[0] err 0", "[0] open 0", "[0] out 0",
                          "[1] err 1", "[1] open 1", "[1] out 1"])

    def test_timestamp_output(self):
        r = self.run_gpurun("-np", "2", "--timestamp-output", "-l", "sh", "-c", SAY)
        self.assertEqual(r.returncode, 0, r.stderr)
        stamp = r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{6} "
        for line in r.stdout.splitlines():
            self.assertRegex(line, rf"^{stamp}\[(\d)\] (out|open) \1$")
        self.assertEqual(len(r.stdout.splitlines()), 4)
        for line in r.stderr.splitlines():
            self.assertRegex(line, rf"^{stamp}\[(\d)\] err \1$")

    def test_open_mpi_placement_spellings(self):
        for args, count in ((["-c", "3"], 3), (["--map-by", "ppr:2:node"], 2),
                            (["-N", "2"], 2), (["--npernode", "3"], 3)):
            r = self.run_gpurun(*args, RANK, "hello")
            self.assertEqual(r.returncode, 0, f"{args}: {r.stderr}")
            self.assertEqual(sorted(re.findall(r"^rank (\d+) of (\d+)$", r.stdout, re.M)),
                             [(str(i), str(count)) for i in range(count)], f"{args}: {r.stdout}")
        r = self.run_gpurun("-np", "4", "--npernode", "2", "true")
        self.assertEqual(r.returncode, 2)
        self.assertIn("--npernode 2", r.stderr)
        for args, mentions in ((["--map-by", "ppr:2:board"], "not ppr:N:node, ppr:N:numa"),
                               (["--map-by", "ppr:x:node"], "not a positive number"),
                               (["--map-by", "ppr:1:socket", "-N", "2"], "not with --npernode"),
                               (["--map-by", "board"], "is not node, slot, numa, socket"),
                               (["--mca", "btl", "self"], "GPURUN_* environment variables"),
                               (["-mca", "btl", "self"], "no MCA parameters")):
            r = self.run_gpurun(*args, "true")
            self.assertEqual(r.returncode, 2, f"{args}: {r.stderr}")
            self.assertIn(mentions, r.stderr)


def cpu_topology(cpu, name):
    with open(f"/sys/devices/system/cpu/cpu{cpu}/topology/{name}") as f:
        return int(f.read())


def packages():
    """This machine's packages (sockets) as the CPUs of each that gpurun may use, from sysfs."""
    found = {}
    for cpu in os.sched_getaffinity(0):
        found.setdefault(cpu_topology(cpu, "physical_package_id"), set()).add(cpu)
    return [found[k] for k in sorted(found)]


class MapByDomain(GpurunTest):
    """Open MPI's --map-by socket|package|l3cache and ppr:N:socket|package|numa|l3cache."""

    def bindings(self, stderr):
        return {int(r): cpus_of(c)
                for r, c in re.findall(r"^gpurun: rank (\d+) on \S+: CPUs (\S+)$", stderr, re.M)}

    def test_ppr_puts_n_ranks_on_each_socket(self):
        sockets = packages()
        r = self.run_gpurun("--map-by", "ppr:2:socket", "--report-bindings", RANK, "hello")
        self.assertEqual(r.returncode, 0, r.stderr)
        count = 2 * len(sockets)
        self.assertEqual(sorted(re.findall(r"^rank (\d+) of (\d+)$", r.stdout, re.M)),
                         [(str(i), str(count)) for i in range(count)], r.stdout)
        bound = self.bindings(r.stderr)
        self.assertEqual(sorted(bound), list(range(count)), r.stderr)
        for rank, cpus in bound.items():  # ranks 0, 1 on the first socket, 2, 3 on the next
            self.assertTrue(cpus <= sockets[rank // 2], f"rank {rank}: {cpus}")
        r = self.run_gpurun("-np", str(count + 1), "--map-by", "ppr:2:socket", "true")
        self.assertEqual(r.returncode, 2, r.stderr)
        self.assertIn(f"with --map-by ppr:2:socket: {count} ranks a host", r.stderr)

    def test_ppr_with_bind_to_core_gives_cores_of_the_socket(self):
        sockets = packages()
        r = self.run_gpurun("--map-by", "ppr:1:package", "--bind-to", "core",
                            "--report-bindings", "true")
        self.assertEqual(r.returncode, 0, r.stderr)
        explained = self.run_gpurun("--explain", "--map-by", "ppr:1:package")
        self.assertIn("placement: 1 to each of the packages (sockets) in turn", explained.stdout)
        bound = self.bindings(r.stderr)
        self.assertEqual(len(bound), len(sockets), r.stderr)
        for rank, cpus in bound.items():  # one core of its socket
            self.assertTrue(cpus <= sockets[rank], f"rank {rank}: {cpus}")
            self.assertEqual(len({cpu_topology(c, "core_id") for c in cpus}), 1, f"{cpus}")

    def test_rank_by_socket_deals_ranks_over_the_sockets_one_core_each(self):
        sockets = packages()
        r = self.run_gpurun("-np", "2", "--rank-by", "socket", "--report-bindings", "true")
        self.assertEqual(r.returncode, 0, r.stderr)
        bound = self.bindings(r.stderr)
        self.assertEqual(sorted(bound), [0, 1], r.stderr)
        for rank, cpus in bound.items():
            self.assertTrue(cpus <= sockets[rank % len(sockets)], f"rank {rank}: {cpus}")
            self.assertEqual(len({cpu_topology(c, "core_id") for c in cpus}), 1, f"{cpus}")
        for args, mentions in ((["--map-by", "node"], "not with --map-by node"),
                               (["--map-by", "ppr:1:numa"], "not with --map-by node"),
                               (["--bind-to", "core"], None)):
            r = self.run_gpurun("--rank-by", "numa", *args, "true")
            if mentions is None:
                self.assertEqual(r.returncode, 0, r.stderr)
            else:
                self.assertEqual(r.returncode, 2, r.stderr)
                self.assertIn(mentions, r.stderr)

    def test_map_by_socket_deals_ranks_over_the_sockets(self):
        sockets = packages()
        for spelling in ("socket", "package", "l3cache", "numa"):
            r = self.run_gpurun("-np", "3", "--map-by", spelling, "--report-bindings", "true")
            self.assertEqual(r.returncode, 0, f"{spelling}: {r.stderr}")
            bound = self.bindings(r.stderr)
            self.assertEqual(sorted(bound), [0, 1, 2], r.stderr)
            if spelling in ("socket", "package"):
                for rank, cpus in bound.items():
                    self.assertEqual(cpus, sockets[rank % len(sockets)], f"rank {rank}")


def cpus_of(text):
    """The CPUs of a list such as 0-3,8."""
    cpus = set()
    for part in text.split(","):
        first, _, last = part.partition("-")
        cpus.update(range(int(first), int(last or first) + 1))
    return cpus


class RankVariables(GpurunTest):
    """Where a rank is, in the variables the peers' launchers set (launcher/environment.h)."""
    NAMES = ("OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE", "OMPI_COMM_WORLD_LOCAL_RANK",
             "OMPI_COMM_WORLD_LOCAL_SIZE", "OMPI_COMM_WORLD_NODE_RANK", "MV2_COMM_WORLD_RANK",
             "MV2_COMM_WORLD_SIZE", "MV2_COMM_WORLD_LOCAL_RANK", "MV2_COMM_WORLD_LOCAL_SIZE",
             "MPI_LOCALRANKID", "MPI_LOCALNRANKS")

    def test_each_rank_is_told_where_it_is(self):
        show = "echo $PMIX_RANK " + " ".join(f"${name}" for name in self.NAMES)
        r = self.run_gpurun("-np", "3", "-x", "OMPI_COMM_WORLD_SIZE=99", "sh", "-c", show,
                            env=dict(self.env, MPI_LOCALRANKID="7"))
        self.assertEqual(r.returncode, 0, r.stderr)
        rows = sorted(line.split() for line in r.stdout.splitlines())
        self.assertEqual(rows, [[str(i), str(i), "3", str(i), "3", str(i), str(i), "3", str(i),
                                 "3", str(i), "3"] for i in range(3)])


class CoresPerRank(GpurunTest):
    """Ranks that run threads take several cores: --cpus-per-rank N, Open MPI's PE=N, MPICH's
    --bind-to core:N, or their OMP_NUM_THREADS."""

    def cpus_seen(self, *args, env=None):
        r = self.run_gpurun("--report-bindings", *args, "sh", "-c",
                            "grep Cpus_allowed_list /proc/self/status", env=env)
        self.assertEqual(r.returncode, 0, f"{args}: {r.stderr}")
        seen = re.findall(r"^Cpus_allowed_list:\s*(\S+)$", r.stdout, re.M)
        reported = re.findall(r"^gpurun: rank \d+ on \S+: CPUs (\S+)$", r.stderr, re.M)
        self.assertEqual(sorted(seen), sorted(reported), r.stderr)
        return [cpus_of(s) for s in seen], r.stderr

    def test_several_cores_a_rank(self):
        cores = len(os.sched_getaffinity(0))
        if cores < 2:
            self.skipTest("one CPU here")
        [one], _ = self.cpus_seen("-np", "1")
        for args in (["--cpus-per-rank", "2"], ["--cpus-per-proc=2"], ["--map-by", "slot:PE=2"],
                     ["--map-by", "ppr:1:node:PE=2"], ["--bind-to", "core:2"],
                     ["-x", "OMP_NUM_THREADS=2"], ["--bind-to", "numa"],
                     ["--bind-to", "socket"]):
            [two], _ = self.cpus_seen("-np", "1", *args)
            self.assertTrue(one < two, f"{args}: {one} then {two}")
        [two], _ = self.cpus_seen("-np", "1", env=dict(self.env, OMP_NUM_THREADS="2,1"))
        self.assertTrue(one < two, two)
        # OMP_NUM_THREADS asking more cores than there are: one each, said in a warning.
        ranks, err = self.cpus_seen("-np", str(cores), "-x", "OMP_NUM_THREADS=2")
        self.assertIn("OMP_NUM_THREADS=2 asks", err)
        self.assertTrue(all(len(r) == len(one) for r in ranks), ranks)

    def test_a_thread_or_a_cache(self):
        """--bind-to hwthread: one hardware thread of the rank's core, each rank its own;
        --use-hwthread-cpus and --map-by hwthread: a hardware thread each;
        --bind-to l3cache: the CPUs under the L3 cache of the rank's core."""
        cores = len(os.sched_getaffinity(0))
        np = str(min(cores, 4))
        by_core, _ = self.cpus_seen("-np", np, "--bind-to", "core")
        threads, _ = self.cpus_seen("-np", np, "--bind-to", "hwthread")
        self.assertTrue(all(len(t) == 1 for t in threads), threads)
        self.assertEqual(len(set().union(*threads)), len(threads), threads)
        self.assertTrue(all(any(t <= c for c in by_core) for t in threads), (threads, by_core))
        for args in (["--use-hwthread-cpus"], ["--map-by", "hwthread"]):
            ranks, err = self.cpus_seen("-np", np, *args)
            self.assertTrue(all(len(t) == 1 for t in ranks), (args, ranks))
            self.assertEqual(len(set().union(*ranks)), len(ranks), (args, ranks))
            self.assertNotIn("warning", err)
        [core], _ = self.cpus_seen("-np", "1")
        [cache], _ = self.cpus_seen("-np", "1", "--bind-to", "l3cache")
        self.assertTrue(core <= cache, (core, cache))
        index = f"/sys/devices/system/cpu/cpu{min(core)}/cache/index3"
        if os.path.exists(index + "/shared_cpu_list"):
            with open(index + "/level") as level, open(index + "/shared_cpu_list") as shared:
                if level.read().strip() == "3":
                    expected = cpus_of(shared.read().strip()) & os.sched_getaffinity(0)
                    self.assertEqual(cache, expected)

    def test_cores_that_are_not_there(self):
        cores = len(os.sched_getaffinity(0))
        for args, mentions in ((["-np", str(cores), "--cpus-per-rank", "2"],
                                f"needs {2 * cores} cores"),
                               (["--map-by", "slot:span"], "'span' is not a modifier"),
                               (["--bind-to", "board"], "hwthread, l3cache, numa"),
                               (["--cpus-per-rank", "0"], "not a positive number")):
            r = self.run_gpurun(*args, "true")
            self.assertEqual(r.returncode, 2, f"{args}: {r.stderr}")
            self.assertIn(mentions, r.stderr)


class Rankfile(GpurunTest):
    """Open MPI's --rankfile: each rank on the host and the cores its line names."""

    def write(self, text):
        path = os.path.join(self.tmpdir, "ranks")
        with open(path, "w") as f:
            f.write(text)
        return path

    def test_each_rank_on_its_cores(self):
        if len(os.sched_getaffinity(0)) < 2:
            self.skipTest("needs two cores")
        first, second = sorted(os.sched_getaffinity(0))[:2]
        path = self.write("rank 0=localhost slot=1\n# the first core\nrank 1 = localhost slot = 0:0\n"
                          "rank 2=+n0 slot=*\n")
        for args in (["--rankfile", path], ["-rf", path, "-H", "localhost:3"]):
            r = self.run_gpurun(*args, "--report-bindings", "sh", "-c",
                                'echo "$PMIX_RANK $(grep Cpus_allowed_list /proc/self/status '
                                '| cut -f2)"')
            self.assertEqual(r.returncode, 0, f"{args}: {r.stderr}")
            seen = dict(line.split() for line in r.stdout.splitlines())
            self.assertEqual(sorted(seen), ["0", "1", "2"])
            self.assertEqual(cpus_of(seen["0"]), {second})
            self.assertEqual(cpus_of(seen["1"]), {first})
            self.assertTrue({first, second} <= cpus_of(seen["2"]), seen)
            self.assertIn(f"rank 0 on {socket.gethostname()}: CPUs {second}", r.stderr)

    def test_mistakes_in_the_file(self):
        for text, args, mentions in (
                ("rank 0=localhost slot=0\nrank 2=localhost slot=0\n", [], ": rank 1 is missing"),
                ("rank 0=localhost slot=0\n", ["-np", "2"], "places 1 ranks, not the 2 of -np"),
                ("rank 0=localhost slot=4096\n", [], "rank 0 slot=4096: core 4096 is not there"),
                ("rank 0=localhost slot=9:0\n", [], "socket 9 is not there"),
                ("rank 0=+n2 slot=0\n", ["-H", "localhost"], "+n2: the job's hosts"),
                ("rank 0=localhost\n", [], ":1: 'rank 0=localhost' is not 'rank N=HOST")):
            r = self.run_gpurun("--rankfile", self.write(text), *args, "sh", "-c", "echo ran")
            self.assertEqual(r.returncode, 2, f"{text}: {r.stderr}")
            self.assertIn(mentions, r.stderr)
            self.assertNotIn("ran", r.stdout)
        r = self.run_gpurun("--rankfile", os.path.join(self.tmpdir, "none"), "true")
        self.assertEqual(r.returncode, 2)
        self.assertIn("cannot read it", r.stderr)


if __name__ == "__main__":
    unittest.main()

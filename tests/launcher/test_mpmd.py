#!/usr/bin/env python3
"""Several programs in one job (gpurun A : B, --app FILE, the peers' MPMD spellings) and gpurun
--info (CTest label `mpi`; the environment and helpers are test_gpurun.py's)."""
import os
import re
import shutil
import socket
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from test_gpurun import GPURUN, PMIX_RANK, RANK, GpurunTest  # noqa: E402


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
        self.assert_usage_error("-np", "1", self.rank, ":", "-np", "1", "-H", "localhost", "-f",
                                hostfile, self.rank,
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
        usage = GpurunTest.assert_usage_error
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
        usage = GpurunTest.assert_usage_error
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


if __name__ == "__main__":
    unittest.main()

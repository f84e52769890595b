#!/usr/bin/env python3
"""gpurun across hosts, on test hosts made of network namespaces (CTest label `multihost`).

The hosts come from scripts/testhosts.sh (a CTest fixture): TESTHOSTS is the script,
TESTHOSTS_DIR its state directory. gpurun itself runs in the first host's network namespace
(nsenter), as the root namespace cannot reach the test subnet (its guard route), and starts its
daemons with the launch agent `testhosts.sh exec DIR {host}`, which gives each host a private
/tmp and /dev/shm. After every test, nothing may be left on any host: no process in the hosts'
namespaces, no file in their /tmp or /dev/shm, nothing in gpurun's TMPDIR, no rank alive.
Timeouts are hang guards, never assertions about speed.

Environment: GPURUN, HOST_RANK (host_rank.c), PMIX_RANK_PROGRAM (tests/launcher/pmix_rank.c),
MPI_WHERE (mpi_where.c), MPI_RANK (tests/launcher/mpi_rank.c), WRONG_SECRET_AGENT, TESTHOSTS,
TESTHOSTS_DIR.
"""
import os
import re
import socket
import subprocess
import sys
import tempfile
import time
import unittest

GPURUN = os.environ.get("GPURUN", "build/bin/gpurun")
HOST_RANK = os.environ.get("HOST_RANK", "build/tests/bin/host_rank")
PMIX_RANK = os.environ.get("PMIX_RANK_PROGRAM", "build/tests/bin/pmix_rank")
MPI_WHERE = os.environ.get("MPI_WHERE", "build/tests/bin/mpi_where")
MPI_RANK = os.environ.get("MPI_RANK", "build/tests/bin/mpi_rank")
WRONG_SECRET_AGENT = os.environ.get("WRONG_SECRET_AGENT", "tests/multihost/wrong_secret_agent.sh")
TESTHOSTS = os.environ.get("TESTHOSTS", "scripts/testhosts.sh")
HOSTS_DIR = os.environ.get("TESTHOSTS_DIR", "build/testhosts")
HANG_GUARD = 60


def test_hosts():
    out = subprocess.run([TESTHOSTS, "list", HOSTS_DIR], capture_output=True, text=True,
                         check=True).stdout
    return [tuple(line.split()) for line in out.splitlines()]


HOSTS = test_hosts() if os.path.isdir(HOSTS_DIR) else []
H1, H2 = (HOSTS[0][0], HOSTS[1][0]) if len(HOSTS) >= 2 else ("gpurun-h1", "gpurun-h2")
AGENT = f"{TESTHOSTS} exec {HOSTS_DIR} {{host}}"


def pid_alive(pid):
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except FileNotFoundError:
        return False


def where_lines(text):
    """host_rank where output as {rank: {"size", "local", "node", ...}}."""
    out = {}
    for line in text.splitlines():
        words = line.split()
        fields = dict(zip(words[2::2], words[3::2]))
        out[int(words[1])] = fields
    return out


def descendants(pid):
    """Every process below `pid` (through /proc/<pid>/task/*/children)."""
    out, todo = [], [pid]
    while todo:
        p = todo.pop()
        try:
            for task in os.listdir(f"/proc/{p}/task"):
                with open(f"/proc/{p}/task/{task}/children") as f:
                    kids = [int(k) for k in f.read().split()]
                out += kids
                todo += kids
        except FileNotFoundError:
            pass
    return out


def netns_of(pid):
    try:
        own = os.stat(f"/proc/{pid}/ns/net")
    except FileNotFoundError:
        return None
    for name in os.listdir("/run/netns"):
        st = os.stat(f"/run/netns/{name}")
        if (st.st_ino, st.st_dev) == (own.st_ino, own.st_dev):
            return name
    return None


@unittest.skipUnless(len(HOSTS) >= 2, f"no test hosts in {HOSTS_DIR} (the testhosts fixture)")
class MultiHostTest(unittest.TestCase):
    def setUp(self):
        self._tmp = tempfile.TemporaryDirectory(prefix="gpurun-mh-")
        self.tmpdir = self._tmp.name
        self.env = dict(os.environ, TMPDIR=self.tmpdir)
        self.assertEqual(self.leftovers(), "", "the hosts were not clean before the test")

    def tearDown(self):
        self.assertEqual(self.leftovers(), "", "the job left something on a host")
        self.assertEqual(os.listdir(self.tmpdir), [], "the job left files in gpurun's TMPDIR")
        self._tmp.cleanup()

    def leftovers(self):
        r = subprocess.run([TESTHOSTS, "check", HOSTS_DIR], capture_output=True, text=True)
        return r.stdout + r.stderr

    def command(self, *args, agent=AGENT):
        agent_args = ["--launch-agent", agent] if agent else []
        return ["nsenter", f"--net=/run/netns/{H1}", GPURUN, *agent_args, *args]

    def gpurun(self, *args, agent=AGENT, input=None, env=None):
        return subprocess.run(self.command(*args, agent=agent), input=input,
                              stdin=None if input is not None else subprocess.DEVNULL,
                              capture_output=True, text=True, env=env or self.env,
                              timeout=HANG_GUARD)

    def start(self, *args, agent=AGENT):
        return subprocess.Popen(self.command(*args, agent=agent), stdin=subprocess.DEVNULL,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                env=self.env)

    def read_pids(self, proc, count):
        pids = {}
        while len(pids) < count:
            line = proc.stdout.readline()
            self.assertTrue(line, "gpurun's output ended before every rank printed its pid")
            m = re.match(r"pid (\d+) (\d+)", line)
            if m:
                pids[int(m.group(1))] = int(m.group(2))
        return pids

    def pids_from(self, text):
        return {int(r): int(p) for r, p in re.findall(r"^pid (\d+) (\d+)$", text, re.M)}

    def assert_ranks_gone(self, pids):
        for rank, pid in pids.items():
            self.assertFalse(pid_alive(pid), f"rank {rank} (pid {pid}) still runs")

    def assert_one_line(self, r, *mentions, code=None):
        if code is None:
            self.assertNotEqual(r.returncode, 0, r.stderr)
        else:
            self.assertEqual(r.returncode, code, r.stderr)
        lines = [l for l in r.stderr.splitlines() if l.startswith("gpurun: ")]
        self.assertEqual(len(lines), 1, r.stderr)
        for text in mentions:
            self.assertIn(text, lines[0])
        return lines[0]


class Hello(MultiHostTest):
    def test_ranks_report_their_host_rank_and_size(self):
        r = self.gpurun("-H", f"{H1}:2,{H2}:2", HOST_RANK, "where")
        self.assertEqual(r.returncode, 0, r.stderr)
        ranks = where_lines(r.stdout)
        self.assertEqual(sorted(ranks), [0, 1, 2, 3])
        for rank, f in ranks.items():
            host = [H1, H2][rank // 2]
            self.assertEqual(f["size"], "4")
            self.assertEqual((f["host"], f["netns"]), (host, host))
            self.assertEqual((f["node"], f["nodes"]), (str(rank // 2), "2"))
            self.assertEqual(f["local"], f"{rank % 2}/2")
            self.assertEqual(f["peers"], "0,1" if rank < 2 else "2,3")

    def test_mpi_program_on_two_hosts(self):
        r = self.gpurun("-H", f"{H1}:2,{H2}:2", MPI_WHERE)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(sorted(r.stdout.splitlines()),
                         [f"rank {i} of 4 netns {[H1, H2][i // 2]}" for i in range(4)])

    def test_this_host_runs_its_ranks_itself(self):
        r = self.gpurun("-H", f"localhost:2,{H2}:2", HOST_RANK, "where")
        self.assertEqual(r.returncode, 0, r.stderr)
        ranks = where_lines(r.stdout)
        for rank in (0, 1):  # under gpurun itself, in its namespace, named as the machine
            self.assertEqual(ranks[rank]["netns"], H1)
            self.assertEqual(ranks[rank]["host"], socket.gethostname())
        for rank in (2, 3):
            self.assertEqual((ranks[rank]["host"], ranks[rank]["netns"]), (H2, H2))

    def test_mpi_program_on_this_host_and_another(self):
        # The test hosts share the machine's system host name, which gpurun's own host is named
        # by: the ranks of each host must still find their own host's ranks alone.
        r = self.gpurun("-H", f"localhost:2,{H2}:1", MPI_WHERE)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(sorted(r.stdout.splitlines()),
                         [f"rank {i} of 3 netns {[H1, H1, H2][i]}" for i in range(3)])

    def test_report_bindings_and_map_from_every_host(self):
        r = self.gpurun("--report-bindings", "-H", f"{H1}:1,{H2}:2", "true")
        self.assertEqual(r.returncode, 0, r.stderr)
        lines = sorted(re.findall(r"^gpurun: rank (\d) on (\S+): CPUs \S+$", r.stderr, re.M))
        self.assertEqual(lines, [("0", H1), ("1", H2), ("2", H2)], r.stderr)
        r = self.gpurun("--display-map", "--map-by", "node", "-H", f"{H1}:2,{H2}:2", "-np", "3",
                        "true")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(r.stderr.splitlines(), [f"gpurun: rank 0 on {H1}: true",
                                                 f"gpurun: rank 1 on {H2}: true",
                                                 f"gpurun: rank 2 on {H1}: true"])

    def test_hosts_that_are_all_this_one_need_no_agent(self):
        # The agent would fail: it is never started.
        r = self.gpurun("-H", "localhost:2,127.0.0.1:1", HOST_RANK, "where", agent="false")
        self.assertEqual(r.returncode, 0, r.stderr)
        ranks = where_lines(r.stdout)
        self.assertEqual(sorted(ranks), [0, 1, 2])
        self.assertEqual({f["nodes"] for f in ranks.values()}, {"1"})


class Mpmd(MultiHostTest):
    """Several programs in one job across hosts: each host's daemon starts each rank with its
    program's arguments, environment and working directory."""

    def test_programs_across_hosts(self):
        rank = os.path.abspath(MPI_RANK)
        r = self.gpurun("-H", f"{H1}:2,{H2}:3", "-x", "MPMD_VAR=job", "-np", "2", rank, "app",
                        "first", ":", "-np", "3", "-x", "MPMD_VAR=own", "--wdir", "/", rank,
                        "app", "second")
        self.assertEqual(r.returncode, 0, r.stderr)
        lines = sorted(l for l in r.stdout.splitlines() if " of 5 " in l)
        self.assertEqual(lines, [f"rank {i} of 5 app 0 tag first name {rank} var job "
                                 f"cwd {os.getcwd()}" for i in (0, 1)] +
                         [f"rank {i} of 5 app 1 tag second name {rank} var own cwd /"
                          for i in (2, 3, 4)])
        self.assertIn("rank 2: ranks of app 1: 3, apps in all: 2", r.stdout)

    def test_programs_on_hosts_of_their_own(self):
        # Program 1 on the job's host H1; program 2 on H2, which only it names.
        r = self.gpurun("-H", f"{H1}:2", "-np", "2", MPI_WHERE, ":", "-np", "2", "-H", H2,
                        "--host", H2, MPI_WHERE)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(sorted(r.stdout.splitlines()),
                         [f"rank {i} of 4 netns {[H1, H1, H2, H2][i]}" for i in range(4)])
        # Without hosts of the job's own, the first program runs on this host.
        r = self.gpurun("-np", "2", MPI_WHERE, ":", "-np", "1", "-H", H2, MPI_WHERE)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(sorted(r.stdout.splitlines()),
                         [f"rank {i} of 3 netns {[H1, H1, H2][i]}" for i in range(3)])
        # Its hosts from a hostfile of its own.
        hostfile = os.path.join(self.tmpdir, "hosts")
        with open(hostfile, "w") as f:
            f.write(f"{H2} slots=2\n")
        r = self.gpurun("-H", f"{H1}:1", "-np", "1", MPI_WHERE, ":", "-np", "2", "--hostfile",
                        hostfile, MPI_WHERE)
        os.unlink(hostfile)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(sorted(r.stdout.splitlines()),
                         [f"rank {i} of 3 netns {[H1, H2, H2][i]}" for i in range(3)])
        # A program's ranks beyond its hosts' slots left is an error naming the program.
        r = self.gpurun("-H", f"{H1}:1,{H2}:1", "-np", "2", MPI_WHERE, ":", "-np", "1", "-H", H2,
                        MPI_WHERE)
        self.assert_one_line(r, "program 2 (after ':'): 1 ranks do not fit the 0 slots left on",
                             code=2)

    def test_pmix_app_keys_by_node(self):
        # Dealt round robin: ranks 0 and 2 on the first host, 1 and 3 on the second.
        r = self.gpurun("-H", f"{H1}:2,{H2}:2", "--map-by", "node", "-np", "1", PMIX_RANK,
                        "apps", ":", "-np", "3", PMIX_RANK, "apps")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(sorted(r.stdout.splitlines()),
                         ["rank 0 appnum 0 apps 2 size 1 leader 0"] +
                         [f"rank {i} appnum 1 apps 2 size 3 leader 1" for i in (1, 2, 3)])


class Mapping(MultiHostTest):
    def hosts_of(self, *args, agent=AGENT):
        r = self.gpurun(*args, HOST_RANK, "where", agent=agent)
        self.assertEqual(r.returncode, 0, r.stderr)
        ranks = where_lines(r.stdout)
        return [ranks[k]["netns"] for k in sorted(ranks)]

    def test_by_slot_fills_each_host_first(self):
        self.assertEqual(self.hosts_of("-np", "3", "-H", f"{H1}:2,{H2}:2"), [H1, H1, H2])

    def test_by_node_deals_round_robin(self):
        self.assertEqual(self.hosts_of("--map-by", "node", "-H", f"{H1}:2,{H2}:2"),
                         [H1, H2, H1, H2])

    def test_rank_by_numbers_the_mapped_ranks(self):
        self.assertEqual(self.hosts_of("--map-by", "node", "--rank-by", "slot", "-np", "3",
                                       "-H", f"{H1}:3,{H2}:3"), [H1, H1, H2])
        self.assertEqual(self.hosts_of("--rank-by", "node", "-H", f"{H1}:2,{H2}:2"),
                         [H1, H2, H1, H2])
        # By socket: numbered host by host, each host's ranks dealt over its sockets.
        self.assertEqual(self.hosts_of("--rank-by", "socket", "-H", f"{H1}:2,{H2}:2"),
                         [H1, H1, H2, H2])
        r = self.gpurun("--rank-by", "board", "-H", f"{H1}:2,{H2}:2", HOST_RANK, "where")
        self.assert_one_line(r, "--rank-by: 'board' is not slot, node", code=2)

    def test_npernode(self):
        self.assertEqual(self.hosts_of("--npernode", "1", "-H", f"{H1}:3,{H2}:3"), [H1, H2])

    def test_ppr_per_socket_puts_ranks_on_every_host(self):
        # ppr:1:socket: each host runs a rank on each of its sockets (the test hosts have this
        # machine's).
        sockets = set()
        for cpu in os.sched_getaffinity(0):
            path = f"/sys/devices/system/cpu/cpu{cpu}/topology/physical_package_id"
            with open(path) as f:
                sockets.add(f.read())
        n = len(sockets)
        self.assertEqual(self.hosts_of("--map-by", "ppr:1:socket", "-H", f"{H1}:4,{H2}:4"),
                         [H1] * n + [H2] * n)

    def test_oversubscribe(self):
        self.assertEqual(self.hosts_of("--oversubscribe", "-np", "4", "-H", f"{H1},{H2}"),
                         [H1, H1, H2, H2])

    def test_too_few_slots_is_a_usage_error(self):
        r = self.gpurun("-np", "5", "-H", f"{H1}:2,{H2}:2", HOST_RANK, "where")
        self.assert_one_line(r, "5 ranks do not fit the 4 slots", "--oversubscribe", code=2)
        self.assertEqual(r.stdout, "")

    def test_hosts_of_one_machine_share_its_cores(self):
        # The test hosts share this machine's kernel: their ranks are placed as one host's,
        # each bound to a core of its own instead of both to the first core.
        if len(os.sched_getaffinity(0)) < 2:
            self.skipTest("needs two cores")
        r = self.gpurun("-H", f"{H1}:1,{H2}:1", "-np", "2", "--bind-to", "core", "/bin/sh",
                        "-c", 'echo "rank $PMIX_RANK cpus $(grep Cpus_allowed_list: '
                        '/proc/self/status | cut -f2)"')
        self.assertEqual(r.returncode, 0, r.stderr)
        cpus = dict(line.split()[1::2] for line in r.stdout.splitlines()
                    if line.startswith("rank "))
        self.assertEqual(sorted(cpus), ["0", "1"], r.stdout)
        self.assertNotEqual(cpus["0"], cpus["1"], "both ranks were bound to the same cores")

    def test_cores_per_rank_reach_the_remote_host(self):
        # The daemon binds its rank to both cores (the job asks 2 a rank, from -x
        # OMP_NUM_THREADS or --cpus-per-rank), not to one.
        if len(os.sched_getaffinity(0)) < 2:
            self.skipTest("needs two cores")
        show = 'echo "cpus $(grep Cpus_allowed_list: /proc/self/status | cut -f2)"'
        seen = []
        for args in ([], ["--cpus-per-rank", "2"], ["-x", "OMP_NUM_THREADS=2"]):
            r = self.gpurun("-H", f"{H2}:1", "-np", "1", *args, "/bin/sh", "-c", show)
            self.assertEqual(r.returncode, 0, r.stderr)
            seen.append(r.stdout.split()[1])
        one, *two = seen
        self.assertEqual(two[0], two[1])
        self.assertNotEqual(one, two[0], "the rank was bound to one core")

    def test_rank_variables_count_within_each_host(self):
        show = ('echo "$OMPI_COMM_WORLD_RANK $OMPI_COMM_WORLD_SIZE $OMPI_COMM_WORLD_LOCAL_RANK '
                '$OMPI_COMM_WORLD_LOCAL_SIZE $MPI_LOCALRANKID"')
        r = self.gpurun("-H", f"localhost:2,{H2}:2", "/bin/sh", "-c", show)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(sorted(r.stdout.split("\n")[:-1]),
                         ["0 4 0 2 0", "1 4 1 2 1", "2 4 0 2 0", "3 4 1 2 1"])

    def test_mpich_launcher_options(self):
        """MPICH's -bootstrap-exec names the program that reaches a host (the host's name
        follows it, as for --launch-agent without {host}); -launcher fork refuses other hosts."""
        launcher = f"{TESTHOSTS} exec {HOSTS_DIR}"
        self.assertEqual(self.hosts_of("-bootstrap", "ssh", "-bootstrap-exec", launcher,
                                       "-hosts", f"{H1},{H2}", agent=None), [H1, H2])
        r = self.gpurun("-launcher", "fork", "-hosts", f"{H1},{H2}", HOST_RANK, "where")
        self.assertEqual(r.returncode, 2, r.stderr)
        self.assertIn("-launcher fork starts every rank on this host", r.stderr)

    def test_prefix_names_where_gpurun_is_on_the_hosts(self):
        """Open MPI's --prefix DIR: the daemons run DIR/bin/gpurun; one that is not there is
        one line naming the host."""
        prefix = os.path.dirname(os.path.dirname(os.path.abspath(GPURUN)))
        self.assertEqual(self.hosts_of("--prefix", prefix, "-H", f"{H1},{H2}"), [H1, H2])
        r = self.gpurun("--prefix", "/nonexistent-gpurun", "-H", f"{H1},{H2}", HOST_RANK,
                        "where")
        self.assertNotEqual(r.returncode, 0)
        self.assertRegex(r.stderr, rf"host ({H1}|{H2}): .*/nonexistent-gpurun/bin/gpurun")
        self.assertEqual(r.stdout, "")

    def test_rankfile_places_each_rank_on_its_host_and_cores(self):
        """--rankfile across hosts: +nK counts the -H hosts, a name is a host; the daemon binds
        each of its ranks to the cores of the rank's line."""
        path = os.path.join(self.tmpdir + ".rankfile")
        with open(path, "w") as f:
            f.write(f"rank 0=+n1 slot=0\nrank 1={H1} slot=0:0\nrank 2=+n1 slot=*\n")
        try:
            self.assertEqual(self.hosts_of("--rankfile", path, "-H", f"{H1},{H2}"), [H2, H1, H2])
            r = self.gpurun("--rankfile", path, "-H", f"{H1},{H2}", "/bin/sh", "-c",
                            'echo "$PMIX_RANK $(grep Cpus_allowed_list: /proc/self/status | '
                            'cut -f2)"')
            self.assertEqual(r.returncode, 0, r.stderr)
            cpus = dict(line.split() for line in r.stdout.splitlines())
            first = str(min(os.sched_getaffinity(0)))
            self.assertEqual((cpus["0"], cpus["1"]), (first, first))
            self.assertEqual(len(cpus["2"].replace("-", ",").split(",")),
                             min(2, len(os.sched_getaffinity(0))), cpus)
            with open(path, "w") as f:
                f.write(f"rank 0={H2} slot=7:0\n")
            r = self.gpurun("--rankfile", path, "/bin/sh", "-c", "echo ran")
            self.assertNotEqual(r.returncode, 0)
            self.assertIn("rank 0 slot=7:0: socket 7 is not there", r.stderr)
            self.assertIn(H2, r.stderr)
            self.assertNotIn("ran", r.stdout)
        finally:
            os.unlink(path)

    def test_numa_placement_within_each_host(self):
        self.assertEqual(self.hosts_of("--map-by", "numa", "-np", "2", "-H", f"{H1},{H2}"),
                         [H1, H2])


class Hostfile(MultiHostTest):
    def write(self, text):
        # Beside TMPDIR, which must stay empty.
        self.files = getattr(self, "files", 0) + 1
        path = f"{self.tmpdir}.{self.files}.hosts"
        with open(path, "w") as f:
            f.write(text)
        self.addCleanup(os.remove, path)
        return path

    def test_slots_comments_and_blank_lines(self):
        path = self.write(f"# two test hosts\n\n{H1} slots=1   # the first\n  {H2}\tslots=3\n")
        r = self.gpurun("--hostfile", path, HOST_RANK, "where")
        self.assertEqual(r.returncode, 0, r.stderr)
        ranks = where_lines(r.stdout)
        self.assertEqual([ranks[k]["netns"] for k in sorted(ranks)], [H1, H2, H2, H2])

    def test_errors_name_the_line(self):
        path = self.write(f"{H1} slots=2\n\n{H2} slots=many\n")
        r = self.gpurun("--hostfile", path, HOST_RANK, "where")
        self.assert_one_line(r, f"{path}:3:", "'slots=many'", code=2)
        path = self.write(f"{H1} cores=2\n")
        r = self.gpurun("--hostfile", path, HOST_RANK, "where")
        self.assert_one_line(r, f"{path}:1: unknown field 'cores=2'", code=2)
        r = self.gpurun("--hostfile", path + ".missing", HOST_RANK, "where")
        self.assert_one_line(r, "cannot read it", code=2)
        r = self.gpurun("--hostfile", path, "-H", H1, HOST_RANK, "where")
        self.assert_one_line(r, "not both", code=2)


class KeyExchange(MultiHostTest):
    def test_collected_and_direct_keys_across_hosts(self):
        for hosts in ([ "-H", f"{H1}:2,{H2}:2"], ["-H", f"localhost:2,{H2}:2"],
                      ["--map-by", "node", "-np", "3", "-H", f"{H1}:2,{H2}:2"]):
            r = self.gpurun(*hosts, HOST_RANK, "exchange")
            self.assertEqual(r.returncode, 0, r.stderr)
            n = len(r.stdout.splitlines())
            self.assertEqual(sorted(r.stdout.splitlines()),
                             [f"rank {i} exchange ok" for i in range(n)])
            self.assertGreaterEqual(n, 3)

    def test_pmix_fence_exchanges_every_key(self):
        r = self.gpurun("-H", f"{H1}:2,{H2}:2", PMIX_RANK, "hello")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(sorted(r.stdout.splitlines()),
                         [f"rank {i} of 4: peers ok" for i in range(4)])


class Output(MultiHostTest):
    def test_lines_from_both_hosts_are_whole(self):
        r = self.gpurun("--tag-output", "-H", f"localhost:2,{H2}:2", PMIX_RANK, "lines", "300")
        self.assertEqual(r.returncode, 0, r.stderr)
        lines = r.stdout.splitlines()
        self.assertEqual(len(lines), 1200)
        for line in lines:
            self.assertRegex(line, r"^\[(\d)\] rank \1 line \d+ of a whole line$")
        self.assertEqual(sorted(r.stderr.splitlines()), [f"[{i}] to stderr" for i in range(4)])

    def test_file_patterns_name_each_host(self):
        """MPICH's -outfile-pattern across hosts: %h is the rank's host as gpurun was given
        it, %p the host's index; the files are written on gpurun's host."""
        with tempfile.TemporaryDirectory(prefix="gpurun-mh-out-") as top:
            r = self.gpurun("-outfile-pattern", f"{top}/o.%h.%p.%r", "-H", f"{H1}:2,{H2}:2",
                            PMIX_RANK, "lines", "5")
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assertEqual(r.stdout, "")
            self.assertEqual(sorted(os.listdir(top)),
                             [f"o.{H1}.0.0", f"o.{H1}.0.1", f"o.{H2}.1.2", f"o.{H2}.1.3"])
            with open(f"{top}/o.{H2}.1.3") as f:
                self.assertEqual(len(f.read().splitlines()), 5)

    def test_output_files_of_remote_ranks_are_written_here(self):
        with tempfile.TemporaryDirectory(prefix="gpurun-mh-out-") as top:
            r = self.gpurun(f"--output-filename={top}:nocopy", "-H", f"localhost:2,{H2}:2",
                            PMIX_RANK, "lines", "30")
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assertEqual(r.stdout, "")
            for i in range(4):
                with open(f"{top}/1/rank.{i}/stdout") as f:
                    lines = f.read().splitlines()
                self.assertEqual(len(lines), 30, i)
                for line in lines:
                    self.assertRegex(line, rf"^rank {i} line \d+ of a whole line$")
                with open(f"{top}/1/rank.{i}/stderr") as f:
                    self.assertEqual(f.read(), "to stderr\n")

    def test_stdin_reaches_rank_zero_on_a_remote_host(self):
        r = self.gpurun("--tag-output", "-H", f"{H1}:2,{H2}:2", PMIX_RANK, "stdin",
                        input="one\ntwo\n")
        self.assertEqual(r.returncode, 0, r.stderr)
        lines = r.stdout.splitlines()
        self.assertEqual([l for l in lines if l.startswith("[0]")],
                         ["[0] rank 0 got: one", "[0] rank 0 got: two", "[0] rank 0 stdin EOF"])
        self.assertEqual(sorted(l for l in lines if not l.startswith("[0]")),
                         [f"[{i}] rank {i} stdin EOF" for i in (1, 2, 3)])

    def test_stdin_to_a_remote_rank_or_to_all(self):
        """--stdin 3: rank 3 alone reads it on the second host; --stdin all: every rank of both
        hosts reads all of it."""
        for target, readers in (("3", [3]), ("all", [0, 1, 2, 3])):
            r = self.gpurun("--tag-output", "--stdin", target, "-H", f"{H1}:2,{H2}:2", PMIX_RANK,
                            "stdin", input="one\ntwo\n")
            self.assertEqual(r.returncode, 0, r.stderr)
            for i in range(4):
                got = [f"[{i}] rank {i} got: one", f"[{i}] rank {i} got: two"]
                self.assertEqual([l for l in r.stdout.splitlines() if l.startswith(f"[{i}]")],
                                 (got if i in readers else []) + [f"[{i}] rank {i} stdin EOF"],
                                 target)


class TestHosts(unittest.TestCase):
    """scripts/testhosts.sh itself, on a set of its own (another prefix and subnet)."""

    def test_up_and_down_leaves_nothing(self):
        env = dict(os.environ, TESTHOSTS_PREFIX="gpurun-t", TESTHOSTS_NET="10.202.0")
        state = tempfile.mkdtemp(prefix="testhosts-", dir=os.path.dirname(HOSTS_DIR) or ".")
        os.rmdir(state)
        run = lambda *a: subprocess.run([TESTHOSTS, *a], capture_output=True, text=True, env=env,
                                        timeout=HANG_GUARD)
        sleeper = None
        try:
            r = run("start", state, "3")
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assertEqual(r.stdout.split(), ["gpurun-t1", "10.202.0.1", "gpurun-t2",
                                                "10.202.0.2", "gpurun-t3", "10.202.0.3"])
            routes = subprocess.run(["ip", "route"], capture_output=True, text=True).stdout
            self.assertIn("unreachable 10.202.0.0/24", routes)
            # t3 reaches t1 over the bridge; its /tmp and /dev/shm are its own.
            code = ("import socket,sys; s=socket.create_connection(('10.202.0.1',int(sys.argv[1])));"
                    "s.sendall(b'hi'); open('/tmp/t3-file','w'); open('/dev/shm/t3-seg','w')")
            listener = subprocess.Popen(
                ["nsenter", "--net=/run/netns/gpurun-t1", "python3", "-c",
                 "import socket; s=socket.socket(); s.bind(('10.202.0.1',0)); s.listen();"
                 "print(s.getsockname()[1], flush=True); c,_=s.accept(); print(c.recv(2).decode())"],
                stdout=subprocess.PIPE, text=True)
            port = listener.stdout.readline().strip()
            r = run("exec", state, "gpurun-t3", "python3", "-c", code, port)
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assertEqual(listener.communicate(timeout=HANG_GUARD)[0].strip(), "hi")
            self.assertTrue(os.path.exists(os.path.join(state, "hosts/gpurun-t3/tmp/t3-file")))
            self.assertFalse(os.path.exists("/tmp/t3-file"))
            r = run("check", state)
            self.assertEqual(r.returncode, 1)
            self.assertIn("gpurun-t3: /tmp/t3-file", r.stdout)
            self.assertIn("gpurun-t3: /shm/t3-seg", r.stdout)
            # A process left running in a host is ended by stop.
            sleeper = subprocess.Popen([TESTHOSTS, "exec", state, "gpurun-t2", "sleep", "600"],
                                       env=env)
            for _ in range(100):
                if run("check", state).stdout.count("process"):
                    break
                time.sleep(0.05)
            self.assertIn("gpurun-t2: process", run("check", state).stdout)
        finally:
            r = run("stop", state)
        self.assertEqual(r.returncode, 0, r.stderr)
        if sleeper is not None:
            sleeper.wait(timeout=HANG_GUARD)
        namespaces = subprocess.run(["ip", "netns", "list"], capture_output=True, text=True).stdout
        self.assertNotIn("gpurun-t", namespaces)
        self.assertNotIn("10.202.0.0/24",
                         subprocess.run(["ip", "route"], capture_output=True, text=True).stdout)
        with open("/proc/self/mounts") as f:
            self.assertNotIn(state, f.read())
        self.assertFalse(os.path.exists(state))


if __name__ == "__main__":
    unittest.main()

#!/usr/bin/env python3
"""gpurun across hosts when things go wrong (CTest label `multihost`): signals to gpurun and to the
ranks, ranks that fail, hosts that fail or cannot be reached, launch agents that fail or lie.
The test hosts, the environment and the helpers are test_multihost.py's."""
import hashlib
import hmac
import os
import shutil
import signal
import socket
import struct
import subprocess
import sys
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from test_multihost import (GPURUN, H1, H2, HANG_GUARD, HOST_RANK, HOSTS,  # noqa: E402
                            HOSTS_DIR, MPI_RANK, PMIX_RANK, TESTHOSTS, WRONG_SECRET_AGENT,
                            MultiHostTest, descendants, netns_of)


class Signals(MultiHostTest):
    def test_user_signal_reaches_remote_ranks(self):
        # SIGUSR1 to gpurun reaches every rank, here and through the other host's daemon, and
        # the job goes on; SIGUSR2 makes the ranks leave.
        waiter = ("import os, signal, sys\n"
                  "r = os.environ['PMIX_RANK']\n"
                  "signal.signal(signal.SIGUSR1, lambda *_: print('got USR1', r, flush=True))\n"
                  "signal.signal(signal.SIGUSR2, lambda *_: sys.exit(0))\n"
                  "print('ready', r, flush=True)\n"
                  "while True: signal.pause()\n")
        proc = self.start("-H", f"localhost:1,{H2}:1", sys.executable, "-c", waiter)
        try:
            for expected in ("ready", "got USR1"):
                ranks = set()
                while len(ranks) < 2:
                    line = proc.stdout.readline()
                    self.assertTrue(line, f"output ended before both ranks said {expected}")
                    if line.startswith(expected):
                        ranks.add(line.split()[-1])
                if expected == "ready":
                    proc.send_signal(signal.SIGUSR1)
            proc.send_signal(signal.SIGUSR2)
            self.assertEqual(proc.wait(timeout=HANG_GUARD), 0, proc.stderr.read())
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
            proc.stdout.close()
            proc.stderr.close()


    def test_stacks_at_timeout_from_every_host(self):
        # --get-stack-traces: the remote daemon passes the request to its rank alone, which
        # writes its stack as the local one does, before --timeout ends the job.
        r = self.gpurun("--timeout", "1", "--get-stack-traces", "-H", f"localhost:1,{H2}:1",
                        MPI_RANK, "wait")
        self.assertEqual(r.returncode, 124, r.stderr)
        for rank in (0, 1):
            self.assertIn(f"] rank {rank}: stack at gpurun's request:", r.stderr)
        self.assertEqual(r.stderr.count("(pause+0x"), 2, r.stderr)


class RankFailures(MultiHostTest):
    def test_remote_rank_exit_code_ends_the_job(self):
        r = self.gpurun("-H", f"localhost:2,{H2}:2", PMIX_RANK, "exit", "3", "5")
        pids = self.pids_from(r.stdout)
        self.assert_one_line(r, f"rank 3 (pid {pids[3]}) on host {H2} exited with code 5", code=5)
        self.assert_ranks_gone(pids)

    def test_remote_abort(self):
        r = self.gpurun("-H", f"{H1}:2,{H2}:2", PMIX_RANK, "abort", "2", "7")
        pids = self.pids_from(r.stdout)
        self.assert_one_line(r, f"rank 2 (pid {pids[2]}) on host {H2} ended the job with code 7",
                             code=7)
        self.assert_ranks_gone(pids)

    def test_remote_rank_killed_by_signal(self):
        r = self.gpurun("-H", f"localhost:1,{H2}:2", PMIX_RANK, "kill", "1")
        pids = self.pids_from(r.stdout)
        self.assert_one_line(r, f"rank 1 (pid {pids[1]}) on host {H2} was killed by signal SIGKILL",
                             code=128 + signal.SIGKILL)
        self.assert_ranks_gone(pids)

    def test_sigterm_to_gpurun_ends_every_host(self):
        proc = self.start("-H", f"{H1}:2,{H2}:2", PMIX_RANK, "wait")
        pids = self.read_pids(proc, 4)
        proc.send_signal(signal.SIGTERM)
        out, err = proc.communicate(timeout=HANG_GUARD)
        self.assertEqual(proc.returncode, 128 + signal.SIGTERM, err)
        self.assert_ranks_gone(pids)

    def test_timeout_across_hosts(self):
        r = self.gpurun("--timeout", "1", "-H", f"localhost:1,{H2}:2", PMIX_RANK, "wait")
        self.assert_one_line(r, "--timeout of 1s", code=124)
        self.assert_ranks_gone(self.pids_from(r.stdout))


class Faults(MultiHostTest):
    def test_failing_launch_agent(self):
        r = self.gpurun("-H", f"localhost,{H2}", HOST_RANK, "where", agent="false")
        self.assert_one_line(r, f"host {H2}:", "launch agent exited with code 1", code=1)
        self.assertEqual(r.stdout, "", "no rank may run when a host fails to start")

    def test_host_the_agent_cannot_reach(self):
        r = self.gpurun("-H", f"{H1},gpurun-no-such-host", HOST_RANK, "where")
        self.assert_one_line(r, "host gpurun-no-such-host:", "no such test host", code=1)
        self.assertEqual(r.stdout, "")

    @unittest.skipUnless(shutil.which("ssh"), "ssh is not installed")
    def test_unreachable_host_through_ssh(self):
        # The default agent, ssh, to an address of the test subnet that no host has.
        address = HOSTS[0][1].rsplit(".", 1)[0] + ".250"
        r = self.gpurun("-H", f"localhost,{address}", HOST_RANK, "where", agent=None)
        self.assert_one_line(r, f"host {address}: ssh:", "launch agent exited with code 255",
                             code=1)

    def test_daemon_that_cannot_reach_gpurun(self):
        # gpurun listens on its own loopback only: the daemon on H2 finds nobody there.
        env = dict(self.env, GPURUN_LAUNCHER_ADDRESS="127.0.0.1")
        r = self.gpurun("-H", f"localhost,{H2}", HOST_RANK, "where", env=env)
        self.assert_one_line(r, f"host {H2}: cannot reach gpurun at 127.0.0.1:", code=1)

    def test_wrong_secret(self):
        agent = f"{WRONG_SECRET_AGENT} {TESTHOSTS} {HOSTS_DIR} {{host}}"
        r = self.gpurun("-H", f"localhost,{H2}", HOST_RANK, "where", agent=agent)
        self.assert_one_line(r, f"host {H2}: its daemon failed authentication", code=1)
        self.assertEqual(r.stdout, "")

    def test_host_cut_off_mid_job(self):
        # H2's link goes down: no connection closes, the keep-alive probes find it gone.
        env = dict(self.env, GPURUN_LAUNCHER_HOST_TIMEOUT="2s")
        proc = subprocess.Popen(self.command("-H", f"localhost:2,{H2}:2", PMIX_RANK, "wait"),
                                stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True, env=env)
        pids = self.read_pids(proc, 4)
        subprocess.run(["ip", "-n", H2, "link", "set", "eth0", "down"], check=True)
        try:
            out, err = proc.communicate(timeout=HANG_GUARD)
        finally:
            subprocess.run(["ip", "-n", H2, "link", "set", "eth0", "up"], check=True)
        self.assertEqual(proc.returncode, 1, err)
        lines = [l for l in err.splitlines() if l.startswith("gpurun: ")]
        self.assertEqual(len(lines), 1, err)
        self.assertIn(f"host {H2}: lost its gpurun daemon", lines[0])
        self.assert_ranks_gone(pids)
        # The daemon, cut off from gpurun, ends its ranks and cleans its host by itself.
        for _ in range(200):
            if not self.leftovers():
                break
            time.sleep(0.05)
        # testhosts.sh start waited for the link; so does the next test.
        for _ in range(100):
            link = subprocess.run(["ip", "-n", H2, "-br", "link", "show", "eth0"],
                                  capture_output=True, text=True).stdout
            if " UP " in link:
                break
            time.sleep(0.05)

    def test_host_dying_mid_job(self):
        proc = self.start("-H", f"localhost:2,{H2}:2", PMIX_RANK, "wait")
        pids = self.read_pids(proc, 4)
        daemons = [p for p in descendants(proc.pid) if netns_of(p) == H2 and
                   b"--daemon" in open(f"/proc/{p}/cmdline", "rb").read()]
        self.assertEqual(len(daemons), 1, "one daemon on the remote host")
        os.kill(daemons[0], signal.SIGKILL)
        out, err = proc.communicate(timeout=HANG_GUARD)
        self.assertEqual(proc.returncode, 1, err)
        lines = [l for l in err.splitlines() if l.startswith("gpurun: ")]
        self.assertEqual(len(lines), 1, err)
        self.assertIn(f"host {H2}: lost its gpurun daemon", lines[0])
        self.assertIn("killed by SIGKILL", lines[0])
        self.assert_ranks_gone(pids)


class FakeLauncher(MultiHostTest):
    """A daemon started by hand, talking to this test as its 'gpurun' (wire.h, auth.h)."""

    def frame(self, kind, body=b""):
        return struct.pack("<II", kind, len(body)) + body

    def read_frame(self, conn):
        head = b""
        while len(head) < 8:
            chunk = conn.recv(8 - len(head))
            if not chunk:
                return None, b""
            head += chunk
        kind, length = struct.unpack("<II", head)
        body = b""
        while len(body) < length:
            body += conn.recv(length - len(body))
        return kind, body

    def string(self, data):
        return struct.pack("<I", len(data)) + data

    def run_daemon(self, launcher_secret):
        secret = os.urandom(32).hex()
        server = socket.socket()
        server.bind(("127.0.0.1", 0))
        server.listen(1)
        server.settimeout(HANG_GUARD)
        port = server.getsockname()[1]
        daemon = subprocess.Popen([GPURUN, "--daemon", f"127.0.0.1:{port}", "1", "10000"],
                                  stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                  stderr=subprocess.PIPE, text=True, env=self.env)
        daemon.stdin.write(secret + "\n")
        daemon.stdin.close()
        daemon.stdin = None
        conn, _ = server.accept()
        challenge = os.urandom(32)
        conn.sendall(self.frame(1, self.string(challenge)))  # kChallenge
        kind, body = self.read_frame(conn)
        self.assertEqual(kind, 2)  # kProof: node, nonce, proof, machine id
        node = struct.unpack("<I", body[:4])[0]
        nonce_len = struct.unpack("<I", body[4:8])[0]
        nonce = body[8:8 + nonce_len]
        at = 8 + nonce_len
        proof_len = struct.unpack("<I", body[at:at + 4])[0]
        proof = body[at + 4:at + 4 + proof_len]
        at += 4 + proof_len
        machine_len = struct.unpack("<I", body[at:at + 4])[0]
        with open("/proc/sys/kernel/random/boot_id") as f:
            self.assertEqual(body[at + 4:at + 4 + machine_len].decode(), f.read().strip(),
                             "the daemon names its machine by the kernel's boot id")
        def mac(key, role, first, second):
            data = self.string(role) + struct.pack("<I", node) + self.string(first) + \
                self.string(second)
            return hmac.new(key.encode(), data, hashlib.sha256).digest()
        self.assertEqual(node, 1)
        self.assertEqual(proof, mac(secret, b"gpurun daemon", challenge, nonce),
                         "the daemon's proof is HMAC-SHA256 of the job secret")
        key = launcher_secret or secret
        conn.sendall(self.frame(3, self.string(mac(key, b"gpurun launcher", nonce, challenge))))
        return daemon, conn, server

    def test_daemon_refuses_a_launcher_without_the_secret(self):
        daemon, conn, server = self.run_daemon(launcher_secret=os.urandom(32).hex())
        out, err = daemon.communicate(timeout=HANG_GUARD)
        self.assertEqual(daemon.returncode, 1)
        self.assertIn("failed authentication", err)
        self.assertIn("running nothing", err)
        self.assertEqual(self.read_frame(conn)[0], None, "the daemon sent nothing more")
        conn.close()
        server.close()

    def test_daemon_rejects_garbage_after_authentication(self):
        daemon, conn, server = self.run_daemon(launcher_secret=None)
        conn.sendall(self.frame(5, b"\xff" * 16))  # kJob that is no job
        out, err = daemon.communicate(timeout=HANG_GUARD)
        self.assertEqual(daemon.returncode, 1)
        self.assertIn("malformed", err)
        conn.close()
        server.close()


if __name__ == "__main__":
    unittest.main()

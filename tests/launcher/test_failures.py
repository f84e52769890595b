#!/usr/bin/env python3
"""How a job ends, with an MPI program and with a bare PMIx client: an abort, a rank killed by a
signal, a signal to gpurun, and what a killed gpurun leaves for the next job to sweep
(CTest label `mpi`; the environment and helpers are test_gpurun.py's)."""
import os
import shutil
import signal
import socket
import sys
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from test_gpurun import (HANG_GUARD, PMIX_RANK, RANK, GpurunTest, pid_alive,  # noqa: E402
                         shm_entries)


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


if __name__ == "__main__":
    unittest.main()

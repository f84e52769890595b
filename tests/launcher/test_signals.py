#!/usr/bin/env python3
"""The signals gpurun passes on to the ranks without ending the job (CTest label `mpi`): SIGUSR1
and SIGUSR2 (a batch system's warning before its time limit), SIGTSTP (Ctrl-Z: the ranks stop,
then gpurun) and SIGCONT; and the stacks the ranks write when --timeout ends a job run with
--get-stack-traces. Same environment as test_gpurun.py, whose GpurunTest it uses."""
import os
import signal
import subprocess
import sys
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from test_gpurun import GPURUN, HANG_GUARD, RANK, GpurunTest  # noqa: E402

# A rank that says it is ready, then reports each SIGUSR1 and leaves at SIGUSR2.
WAITER = """
import os, signal, sys
rank = os.environ["PMIX_RANK"]
signal.signal(signal.SIGUSR1, lambda *_: print(f"rank {rank} got USR1", flush=True))
signal.signal(signal.SIGUSR2, lambda *_: sys.exit(0))
print(f"rank {rank} ready pid {os.getpid()}", flush=True)
while True:
    signal.pause()
"""

# A rank that prints 40 ticks, 50 ms apart.
TICKER = """
import os, time
print(f"rank {os.environ['PMIX_RANK']} ready pid {os.getpid()}", flush=True)
for i in range(40):
    print(f"tick {i}", flush=True)
    time.sleep(0.05)
"""


def state(pid):
    with open(f"/proc/{pid}/status") as f:
        return next(line.split()[1] for line in f if line.startswith("State:"))


class ForwardedSignals(GpurunTest):
    def start(self, program, np=2):
        proc = subprocess.Popen([GPURUN, "-np", str(np), sys.executable, "-c", program],
                                stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True, env=self.env)
        self.addCleanup(lambda: proc.poll() is None and proc.kill())
        pids = []
        while len(pids) < np:
            line = proc.stdout.readline()
            self.assertTrue(line, "gpurun's output ended before every rank was ready")
            if " ready pid " in line:
                pids.append(int(line.split()[-1]))
        return proc, pids

    def wait_for(self, proc, text, count):
        seen = 0
        deadline = time.monotonic() + HANG_GUARD
        while seen < count and time.monotonic() < deadline:
            line = proc.stdout.readline()
            self.assertTrue(line, f"output ended with {seen} of {count} '{text}'")
            seen += text in line
        self.assertEqual(seen, count)

    def test_user_signals_reach_every_rank_and_the_job_goes_on(self):
        proc, _ = self.start(WAITER, np=3)
        proc.send_signal(signal.SIGUSR1)
        self.wait_for(proc, "got USR1", 3)
        proc.send_signal(signal.SIGUSR1)
        self.wait_for(proc, "got USR1", 3)
        proc.send_signal(signal.SIGUSR2)  # the ranks leave, each with code 0
        self.assertEqual(proc.wait(timeout=HANG_GUARD), 0, proc.stderr.read())

    def test_stop_and_continue(self):
        proc, pids = self.start(TICKER)
        proc.send_signal(signal.SIGTSTP)
        deadline = time.monotonic() + HANG_GUARD
        states = []
        while states != ["T"] * 3 and time.monotonic() < deadline:
            time.sleep(0.01)
            states = [state(pid) for pid in [proc.pid, *pids]]
        self.assertEqual(states, ["T"] * 3, "gpurun and its ranks did not all stop")
        proc.send_signal(signal.SIGCONT)
        out, err = proc.communicate(timeout=HANG_GUARD)
        self.assertEqual(proc.returncode, 0, err)
        self.assertEqual(out.count("tick 39"), 2, out)  # both ranks ran to the end
        self.assertNotIn("ending the job", err)


class TimeoutStacks(GpurunTest):
    def test_ranks_say_where_they_wait(self):
        # Both ranks wait in pause() after a barrier (mpi_rank wait) until --timeout ends them.
        r = self.run_gpurun("-np", "2", "--timeout", "1", "--get-stack-traces", RANK, "wait")
        self.assertEqual(r.returncode, 124, r.stderr)
        lines = r.stderr.splitlines()
        asked = "gpurun: the job ran past its --timeout of 1s; asking the ranks for their stacks"
        self.assertEqual(lines[0], asked, r.stderr)
        self.assertEqual(lines[-1], "gpurun: the job ran past its --timeout of 1s; ending it")
        # Each rank's stack comes in one piece: its header, then its frames, pause() among them.
        heads = [i for i, line in enumerate(lines) if line.endswith(": stack at gpurun's request:")]
        self.assertEqual(sorted(lines[i].split("] rank ")[1][0] for i in heads), ["0", "1"])
        for first, end in zip(heads, heads[1:] + [len(lines) - 1]):
            frames = lines[first + 1:end]
            self.assertEqual(sum("(pause+0x" in line for line in frames), 1, r.stderr)
            self.assertTrue(all(line.endswith("]") for line in frames), r.stderr)

    def test_a_rank_that_cannot_answer(self):
        # sleep has no handler for the request, which ends it; the job still ends as a timeout.
        r = self.run_gpurun("-np", "1", "--timeout", "1", "--get-stack-traces", "sleep", "100")
        self.assertEqual(r.returncode, 124, r.stderr)
        self.assertIn("rank 0", r.stderr)
        self.assertIn("gave no stack: it does not answer the request", r.stderr)
        self.assertNotIn("killed by signal", r.stderr)

    def test_without_the_option_no_stack(self):
        r = self.run_gpurun("-np", "2", "--timeout", "1", RANK, "wait")
        self.assertEqual(r.returncode, 124, r.stderr)
        self.assertNotIn("stack", r.stderr)


if __name__ == "__main__":
    unittest.main()

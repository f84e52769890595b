#!/usr/bin/env python3
"""Runs a command and checks its exit status and output, for CTest.

  expect.py [--exit N] [--match REGEX]... [--reject REGEX]... [--env K=V]... -- CMD ARGS...
  expect.py --skip "why"          (reports a skipped test: prints why, exits 77)
  --skip-on-exit N: the command's exit status N means "skipped" (exit 77) rather than failure.
  Options whose value starts with '-' are written --match=VALUE.
"""
import argparse
import os
import re
import subprocess
import sys


def main() -> int:
    p = argparse.ArgumentParser()
    p.add_argument("--exit", type=int, default=0, help="expected exit status")
    p.add_argument("--match", action="append", default=[], help="regex the output must contain")
    p.add_argument("--reject", action="append", default=[], help="regex it must not contain")
    p.add_argument("--env", action="append", default=[], help="K=V for the command")
    p.add_argument("--timeout", type=float, default=120)
    p.add_argument("--skip", help="report the test as skipped, with this reason")
    p.add_argument("--skip-on-exit", type=int, help="exit status that means: skipped")
    p.add_argument("cmd", nargs=argparse.REMAINDER)
    a = p.parse_args()
    if a.skip:
        print(f"SKIPPED: {a.skip}")
        return 77
    cmd = a.cmd[1:] if a.cmd and a.cmd[0] == "--" else a.cmd
    env = dict(os.environ)
    env.update(kv.split("=", 1) for kv in a.env)
    proc = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=a.timeout)
    out = proc.stdout + proc.stderr
    print(out)
    if a.skip_on_exit is not None and proc.returncode == a.skip_on_exit:
        print(f"SKIPPED: exit status {proc.returncode}")
        return 77
    errors = []
    if proc.returncode != a.exit:
        errors.append(f"exit status {proc.returncode}, expected {a.exit}")
    errors += [f"output lacks /{rx}/" for rx in a.match if not re.search(rx, out, re.M)]
    errors += [f"output has /{rx}/" for rx in a.reject if re.search(rx, out, re.M)]
    for e in errors:
        print(f"FAIL: {e}: {' '.join(cmd)}")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())

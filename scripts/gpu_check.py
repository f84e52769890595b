#!/usr/bin/env python3
"""Runs the GPU checks from a bundle (scripts/gpu_bundle.py) on a machine with a GPU.

  scripts/gpu_check.py [--bundle .gpu-bundle] [--out DIR] [--only REGEX] [--bench]

Every test of the bundle runs as CTest would run it (its working directory, environment,
timeout, and pass, fail and skip rules), with the bundle's libraries first on the library
path. --bench then runs the GPU figures: osu_latency and osu_bw with device buffers on both
sides, osu_allreduce with device buffers, each also with -q stream, and gpu_ref's hardware
bounds. Everything each command printed goes to OUT/gpu_check.log, the verdicts to
OUT/gpu_check.json and the figures to OUT/bench.log; a table goes to stdout. Exit status 1 when
a test failed.
"""
import argparse
import json
import os
import re
import subprocess
import sys
import time

BENCH = [
    ("osu_latency", 2, ["-d", "cuda", "D", "D", "-m", "1:4194304"]),
    ("osu_bw", 2, ["-d", "cuda", "D", "D", "-m", "1:4194304"]),
    ("osu_allreduce", 2, ["-d", "cuda", "-m", "4:4194304"]),
    ("osu_allreduce", 4, ["-d", "cuda", "-m", "4:4194304"]),
]


def environment(bundle):
    env = dict(os.environ)
    libs = [os.path.join(bundle, "build/lib"), os.path.join(bundle, "lib")]
    env["LD_LIBRARY_PATH"] = ":".join(libs + [env.get("LD_LIBRARY_PATH", "")]).rstrip(":")
    env["PMIX_MCA_mca_base_component_path"] = os.path.join(bundle, "pmix")
    return env


def fill(text, bundle, repo):
    return text.replace("{bundle}", bundle).replace("{repo}", repo)


def verdict(test, rc, out):
    """CTest's rules: skip, then fail, then pass."""
    if (test["skip_code"] is not None and rc == test["skip_code"]) or any(
            re.search(rx, out, re.M) for rx in test["skip"]):
        return "skipped"
    if any(re.search(rx, out, re.M) for rx in test["fail"]):
        return "failed"
    if test["pass"]:
        return "passed" if any(re.search(rx, out, re.M) for rx in test["pass"]) else "failed"
    return "passed" if rc == 0 else "failed"


def run(command, cwd, env, timeout):
    start = time.monotonic()
    try:
        p = subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True,
                           timeout=timeout)
        rc, out = p.returncode, p.stdout + p.stderr
    except subprocess.TimeoutExpired as e:
        rc, out = -1, f"{e.stdout or ''}{e.stderr or ''}\nTIMEOUT after {timeout} s"
    except OSError as e:
        rc, out = -1, f"cannot run: {e}"
    return rc, out, time.monotonic() - start


def run_tests(a, bundle, repo, env, log):
    results = []
    with open(os.path.join(bundle, "tests.json")) as f:
        tests = json.load(f)
    for t in tests:
        if a.only and not re.search(a.only, t["name"]):
            continue
        test_env = dict(env)
        test_env.update(fill(e, bundle, repo).split("=", 1) for e in t["env"])
        command = [fill(x, bundle, repo) for x in t["command"]]
        rc, out, secs = run(command, fill(t["cwd"], bundle, repo), test_env, t["timeout"])
        result = "failed" if rc == -1 else verdict(t, rc, out)
        results.append({"name": t["name"], "result": result, "seconds": round(secs, 2)})
        log.write(f"==== {t['name']}: {result} (exit {rc}, {secs:.1f} s)\n$ {' '.join(command)}\n"
                  f"{out}\n")
        print(f"{result:8} {secs:7.1f} s  {t['name']}", flush=True)
    return results


def run_bench(bundle, env, out_dir):
    gpurun = os.path.join(bundle, "build/bin/gpurun")
    with open(os.path.join(out_dir, "bench.log"), "w") as log:
        for name, np, args in BENCH:
            program = os.path.join(bundle, "build/bench/gpurun", name)
            for queue in ([], ["-q", "stream"]):
                command = [gpurun, "-np", str(np), program] + args + queue
                rc, out, _ = run(command, bundle, env, 300)
                log.write(f"$ {' '.join(command)}\n(exit {rc})\n{out}\n")
                print(f"bench    {name} -np {np} {' '.join(args + queue)}: exit {rc}", flush=True)
        rc, out, _ = run([os.path.join(bundle, "build/bench/gpu_ref")], bundle, env, 300)
        log.write(f"$ gpu_ref\n(exit {rc})\n{out}\n")


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--bundle", default=".gpu-bundle")
    p.add_argument("--out", default=os.environ.get("OUT", "gpu-check-out"))
    p.add_argument("--only", help="run only the tests whose name matches this regex")
    p.add_argument("--bench", action="store_true", help="also run the GPU benchmark figures")
    a = p.parse_args()
    bundle = os.path.realpath(a.bundle)
    repo = os.path.dirname(os.path.dirname(os.path.realpath(__file__)))
    os.makedirs(a.out, exist_ok=True)
    env = environment(bundle)
    print(run(["nvidia-smi", "-L"], bundle, env, 30)[1].strip())
    with open(os.path.join(a.out, "gpu_check.log"), "w") as log:
        results = run_tests(a, bundle, repo, env, log)
    with open(os.path.join(a.out, "gpu_check.json"), "w") as f:
        json.dump(results, f, indent=1)
    counts = {r: sum(1 for x in results if x["result"] == r) for r in ("passed", "failed",
                                                                         "skipped")}
    print(f"gpu_check: {counts['passed']} passed, {counts['failed']} failed, "
          f"{counts['skipped']} skipped of {len(results)}")
    if a.bench:
        run_bench(bundle, env, a.out)
    return 1 if counts["failed"] else 0


if __name__ == "__main__":
    sys.exit(main())

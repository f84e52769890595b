#!/usr/bin/env python3
"""Packs what the GPU checks need into one folder that travels to a machine with a GPU.

  scripts/gpu_bundle.py [--build build] [--out .gpu-bundle]

A lent GPU machine reaches no package registry and cannot build gpurun (it lacks PMIx, hwloc
and the rest), and its device time is short. This packs, from a build made here:
  - the tests with label `gpu` (ctest --show-only), their commands rewritten to run from the
    bundle and the repository's copy there: OUT/tests.json;
  - the build outputs they run (gpurun, libmpi, the test programs, the bench programs and
    gpu_ref), debug information stripped: OUT/build/...;
  - the shared libraries they load that are not the C library or the CUDA driver, the CUDA
    runtime that the benchmarks open, PMIx's plugins, and the network transports' libraries
    that libmpi opens (UCX with its modules, libfabric): OUT/lib, OUT/lib/ucx, OUT/pmix.
scripts/gpu_check.py runs it all there. Refuses to write a bundle over 60 MiB (the device tool
carries 64 MiB in all).
"""
import argparse
import json
import os
import re
import shutil
import subprocess
import sys

# Libraries the GPU machine has of its own: the C library and the CUDA driver.
SYSTEM = re.compile(r"^(linux-vdso|ld-linux|libc\.so|libm\.so|libdl\.so|librt\.so|libpthread"
                    r"|libcuda\.so|libnvidia-)")
BENCH = ["bench/gpurun/osu_latency", "bench/gpurun/osu_bw", "bench/gpurun/osu_allreduce",
         "bench/gpu_ref"]
PMIX_PLUGINS = "/usr/lib/x86_64-linux-gnu/pmix2/lib/pmix"
# Debian's libraries of the network transports, which libmpi opens with dlopen (ldd does not list
# them; some gpu tests run over ucx and ofi), and UCX's modules, which UCX looks for in the folder
# "ucx" beside libucs.
LIBDIR = "/usr/lib/x86_64-linux-gnu"
NETWORK = ["libucp.so.0", "libfabric.so.1"]
UCX_MODULES = os.path.join(LIBDIR, "ucx")
# The benchmarks load the CUDA runtime with dlopen (bench/common/cuda_rt.c): bring this one.
CUDART = "/usr/local/cuda/lib64/libcudart.so.13"
LIMIT = 60 << 20


def gpu_tests(build):
    out = subprocess.run(["ctest", "--test-dir", build, "-L", "gpu", "--show-only=json-v1"],
                         check=True, capture_output=True, text=True).stdout
    return json.loads(out)["tests"]


def rewrite(text, build, repo):
    """Paths of this machine, as placeholders that gpu_check.py fills in there."""
    text = text.replace(build, "{bundle}/build").replace(repo, "{repo}")
    return re.sub(r"^\S*/python3$", "python3", text)


def describe(test, build, repo):
    props = {p["name"]: p["value"] for p in test.get("properties", [])}
    return {
        "name": test["name"],
        "command": [rewrite(a, build, repo) for a in test["command"]],
        "cwd": rewrite(props.get("WORKING_DIRECTORY", build), build, repo),
        "env": [rewrite(e, build, repo) for e in props.get("ENVIRONMENT", [])],
        "timeout": props.get("TIMEOUT", 300),
        "pass": props.get("PASS_REGULAR_EXPRESSION", []),
        "fail": props.get("FAIL_REGULAR_EXPRESSION", []),
        "skip": props.get("SKIP_REGULAR_EXPRESSION", []),
        "skip_code": props.get("SKIP_RETURN_CODE"),
    }


def elf(path):
    with open(path, "rb") as f:
        return f.read(4) == b"\x7fELF"


def copy_stripped(src, dst):
    os.makedirs(os.path.dirname(dst), exist_ok=True)
    subprocess.run(["objcopy", "--strip-debug", src, dst], check=True)
    shutil.copymode(src, dst)


def libraries(paths):
    """The non-system libraries that `paths` load, by name: path."""
    found = {}
    for p in paths:
        out = subprocess.run(["ldd", p], capture_output=True, text=True).stdout
        for m in re.finditer(r"^\s*(\S+) => (/\S+)", out, re.M):
            if not SYSTEM.match(m.group(1)):
                found.setdefault(m.group(1), m.group(2))
    return found


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--build", default="build")
    p.add_argument("--out", default=".gpu-bundle")
    a = p.parse_args()
    build = os.path.realpath(a.build)
    repo = os.path.dirname(os.path.dirname(os.path.realpath(__file__)))
    raw = gpu_tests(build)
    tests = [describe(t, build, repo) for t in raw]
    shutil.rmtree(a.out, ignore_errors=True)
    os.makedirs(a.out)
    for t in tests:  # working directories, and folders that paths with ".." go through
        if t["cwd"].startswith("{bundle}/"):
            os.makedirs(os.path.join(a.out, t["cwd"][len("{bundle}/"):]), exist_ok=True)
    outputs = {os.path.join(build, "bin/gpurun"),
               os.path.realpath(os.path.join(build, "lib/libmpi.so.12"))}
    outputs |= {os.path.join(build, b) for b in BENCH if os.path.exists(os.path.join(build, b))}
    for t in raw:
        outputs |= {os.path.normpath(x) for x in t["command"]
                    if x.startswith(build + "/") and os.path.isfile(x)}
    copied = []
    for src in sorted(outputs):
        dst = os.path.join(a.out, "build", os.path.relpath(src, build))
        if elf(src):
            copy_stripped(src, dst)
            copied.append(src)
        else:
            os.makedirs(os.path.dirname(dst), exist_ok=True)
            shutil.copy2(src, dst)
    for link in ("libmpi.so.12", "libmpi.so", "libmpich.so.12"):
        os.symlink("libmpi.so.12.0.0", os.path.join(a.out, "build/lib", link))
    plugins = [os.path.join(PMIX_PLUGINS, f) for f in os.listdir(PMIX_PLUGINS)
               if f.endswith(".so")]
    network = [os.path.join(LIBDIR, n) for n in NETWORK if os.path.exists(os.path.join(LIBDIR, n))]
    modules = sorted(os.path.join(UCX_MODULES, f) for f in os.listdir(UCX_MODULES)
                     if f.endswith(".so.0")) if os.path.isdir(UCX_MODULES) else []
    for name, src in libraries(copied + plugins + network + modules).items():
        if not src.startswith(build + "/"):
            copy_stripped(os.path.realpath(src), os.path.join(a.out, "lib", name))
    for src in network:
        copy_stripped(os.path.realpath(src), os.path.join(a.out, "lib", os.path.basename(src)))
    for src in modules:
        copy_stripped(os.path.realpath(src), os.path.join(a.out, "lib/ucx", os.path.basename(src)))
    for src in plugins:
        copy_stripped(src, os.path.join(a.out, "pmix", os.path.basename(src)))
    if os.path.exists(CUDART):
        copy_stripped(os.path.realpath(CUDART), os.path.join(a.out, "lib", "libcudart.so.13"))
        os.symlink("libcudart.so.13", os.path.join(a.out, "lib", "libcudart.so"))
    with open(os.path.join(a.out, "tests.json"), "w") as f:
        json.dump(tests, f, indent=1)
    size = sum(os.path.getsize(os.path.join(d, n)) for d, _, names in os.walk(a.out)
               for n in names if not os.path.islink(os.path.join(d, n)))
    print(f"gpu_bundle: {len(tests)} tests, {len(copied)} programs, "
          f"{size / 2**20:.1f} MiB in {a.out}")
    if size > LIMIT:
        print(f"gpu_bundle: over {LIMIT >> 20} MiB: the device tool cannot carry it",
              file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Building the suite with each MPI's compiler wrapper (bench/CMakeLists.txt, standalone)."""

import shutil
import subprocess
from pathlib import Path

from .mpis import BENCH_DIR, Mpi


class BuildError(Exception):
    pass


def _run(cmd: list[str], log) -> None:
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode != 0:
        tail = "\n".join((proc.stdout + proc.stderr).splitlines()[-15:])
        raise BuildError(f"{' '.join(cmd)} failed ({proc.returncode}):\n{tail}")
    log(f"  {' '.join(cmd[:4])} ... ok")


def build_suite(mpi: Mpi, build_root: Path, log) -> Path:
    """Returns the directory holding mpi's benchmark binaries, building them if needed."""
    if mpi.prebuilt is not None:
        return mpi.prebuilt
    out = build_root / mpi.name
    cmd = ["cmake", "-S", str(BENCH_DIR), "-B", str(out), f"-DCMAKE_C_COMPILER={mpi.cc}",
           "-DCMAKE_BUILD_TYPE=RelWithDebInfo"]
    if shutil.which("ninja") and not (out / "Makefile").exists():
        cmd += ["-G", "Ninja"]
    if mpi.programs is not None:
        cmd.append("-DBENCH_PROGRAMS=" + ";".join(mpi.programs))
    log(f"building the suite for {mpi.name} with {mpi.cc} in {out}")
    _run(cmd, log)
    _run(["cmake", "--build", str(out), "-j2"], log)
    return out / "bin"


def find_gpu_ref(build_dir: Path, explicit: str | None, build_root: Path, log) -> Path | None:
    """The GPU reference program: given, built by gpurun's build, or compiled here with nvcc."""
    if explicit:
        return Path(explicit)
    built = build_dir / "bench" / "gpu_ref"
    if built.is_file():
        return built
    nvcc = shutil.which("nvcc") or ("/usr/local/cuda/bin/nvcc"
                                    if Path("/usr/local/cuda/bin/nvcc").is_file() else None)
    if not nvcc:
        return None
    out = build_root / "gpu_ref"
    out.parent.mkdir(parents=True, exist_ok=True)
    log(f"building the GPU reference with {nvcc}")
    _run([nvcc, "-O2", "-gencode", "arch=compute_80,code=sm_80", "-gencode",
          "arch=compute_90,code=sm_90", "-o", str(out), str(BENCH_DIR / "gpu" / "gpu_ref.cu")],
         log)
    return out


def build_hop_probe(build_root: Path, log) -> Path | None:
    """The core-to-core probe (bench/probe/hop.c), compiled with the system C compiler."""
    cc = shutil.which("cc") or shutil.which("gcc")
    if not cc:
        return None
    out = build_root / "hop"
    src = BENCH_DIR / "probe" / "hop.c"
    if out.is_file() and out.stat().st_mtime >= src.stat().st_mtime:
        return out
    out.parent.mkdir(parents=True, exist_ok=True)
    try:
        _run([cc, "-O2", "-pthread", "-o", str(out), str(src)], log)
    except BuildError as err:
        log(f"bench/compare: no core-to-core probe: {err}")
        return None
    return out

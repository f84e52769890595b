"""The MPIs the suite runs with, their configurations, and how each is launched.

This is the one place that knows launch flags: bench/compare, bench/launch and the CTest
tests all go through it. Every configuration is pinned to loopback (the machines here also
see a real NIC), and Open MPI is allowed to run as root.
"""

import os
import re
import shutil
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

BENCH_DIR = Path(__file__).resolve().parent.parent
REPO_DIR = BENCH_DIR.parent


@dataclass
class Mpi:
    """One MPI implementation: how to build the suite with it and how to start jobs."""

    name: str  # "openmpi", "mpich", "gpurun", or a user-given name
    family: str  # "openmpi", "mpich", "gpurun" or "generic": decides the launch flags
    launcher: str
    cc: str | None = None  # compiler wrapper; None: prebuilt binaries only
    prebuilt: Path | None = None  # directory holding already built benchmark binaries
    cuda_aware: bool = False
    programs: list[str] | None = None  # None: all; else the only programs it can run


@dataclass
class Config:
    """An MPI with a set of tuning flags: one column of the comparison."""

    name: str
    mpi: Mpi
    args: list[str] = field(default_factory=list)  # launcher arguments
    env: dict[str, str] = field(default_factory=dict)
    note: str = ""
    prefix: list[str] = field(default_factory=list)  # what the launcher runs under (nsenter)
    flags: list[str] | None = None  # launch flags replacing the one-host defaults

    def command(self, np: int, argv: list[str]) -> list[str]:
        flags = _launch_flags(self.mpi.family, np) if self.flags is None else \
            [f.replace("{np}", str(np)) for f in self.flags]
        return [*self.prefix, self.mpi.launcher, *flags, *self.args, *argv]

    def environ(self) -> dict[str, str]:
        env = dict(os.environ)
        env.update(_FAMILY_ENV.get(self.mpi.family, {}))
        env.update(self.env)
        return env

    def can_run(self, program: str) -> bool:
        return self.mpi.programs is None or program in self.mpi.programs


_FAMILY_ENV = {
    "openmpi": {
        "OMPI_ALLOW_RUN_AS_ROOT": "1",
        "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM": "1",
        "OMPI_MCA_btl_tcp_if_include": "lo",
        "OMPI_MCA_oob_tcp_if_include": "lo",
        "UCX_NET_DEVICES": "lo",
    },
    "mpich": {"UCX_NET_DEVICES": "lo", "HYDRA_IFACE": "lo"},
    "gpurun": {"UCX_NET_DEVICES": "lo"},
    "generic": {"UCX_NET_DEVICES": "lo"},
}


def _launch_flags(family: str, np: int) -> list[str]:
    if family == "openmpi":
        # --oversubscribe: more ranks than cores is normal on the 2-core machines here.
        return ["-np", str(np), "--oversubscribe"]
    if family == "mpich":
        return ["-iface", "lo", "-n", str(np)]
    return ["-np", str(np)]


# The best-known one-host tuning of each peer (shared/PEERS.md): without single-copy (CMA),
# Open MPI's copy-in/copy-out through shared memory is 2-4x faster for large messages; MPICH
# over UCX likewise without cma.
TUNINGS = {
    "openmpi": (["--mca", "btl_vader_single_copy_mechanism", "none"], {}),
    "mpich": ([], {"UCX_TLS": "self,sysv,posix"}),
}


def read_gpurun_programs() -> list[str]:
    text = (BENCH_DIR / "gpurun_programs.txt").read_text()
    return [ln.strip() for ln in text.splitlines() if re.fullmatch(r"[a-z_0-9]+", ln.strip())]


def _openmpi_cuda_aware() -> bool:
    info = shutil.which("ompi_info.openmpi") or shutil.which("ompi_info")
    if not info:
        return False
    out = _output([info, "--parsable", "--all"])
    return "mpi_built_with_cuda_support:value:true" in out


def _mpich_cuda_aware() -> bool:
    tool = shutil.which("mpichversion.mpich") or shutil.which("mpichversion")
    return bool(tool) and "--with-cuda" in _output([tool])


def _output(cmd: list[str]) -> str:
    try:
        return subprocess.run(cmd, capture_output=True, text=True, timeout=60).stdout
    except (OSError, subprocess.SubprocessError):
        return ""


def find_gpurun(build_dir: Path, launcher: str | None, bindir: str | None) -> tuple[Mpi | None, str]:
    """gpurun from its build tree; returns (Mpi or None, why it is missing)."""
    gpurun = Path(launcher) if launcher else build_dir / "bin" / "gpurun"
    if not gpurun.is_file():
        return None, f"gpurun launcher not found at {gpurun} (build gpurun first)"
    programs = read_gpurun_programs()
    wrapper = build_dir / "bin" / "mpicc"
    if wrapper.is_file():
        return Mpi("gpurun", "gpurun", str(gpurun), cc=str(wrapper), cuda_aware=True,
                   programs=programs), ""
    prebuilt = Path(bindir) if bindir else build_dir / "bench" / "gpurun"
    if not prebuilt.is_dir():
        return None, f"no gpurun compiler wrapper ({wrapper}) and no bench binaries in {prebuilt}"
    return Mpi("gpurun", "gpurun", str(gpurun), prebuilt=prebuilt, cuda_aware=True,
               programs=programs), ""


def find_peers() -> tuple[list[Mpi], list[str]]:
    """Debian's Open MPI and MPICH where installed; returns (found, notes on the missing)."""
    found, missing = [], []
    for name, cc, launcher, aware in (
        ("openmpi", "mpicc.openmpi", "mpirun.openmpi", _openmpi_cuda_aware),
        ("mpich", "mpicc.mpich", "mpiexec.mpich", _mpich_cuda_aware),
    ):
        cc_path, run_path = shutil.which(cc), shutil.which(launcher)
        if cc_path and run_path:
            found.append(Mpi(name, name, run_path, cc=cc_path, cuda_aware=aware()))
        else:
            missing.append(f"{name}: {cc} or {launcher} not installed")
    return found, missing


def parse_extra_mpi(spec: str) -> Mpi:
    """NAME=CC:LAUNCHER[:cuda] from --add-mpi."""
    m = re.fullmatch(r"([A-Za-z0-9_.-]+)=([^:]+):([^:]+)(:cuda)?", spec)
    if not m:
        raise ValueError(f"--add-mpi {spec}: expected NAME=CC:LAUNCHER[:cuda]")
    return Mpi(m[1], "generic", m[3], cc=m[2], cuda_aware=bool(m[4]))


def configs_for(mpis: list[Mpi]) -> list[Config]:
    """Each MPI as installed, then each peer in its one-host tuning."""
    configs = []
    for mpi in mpis:
        configs.append(Config(mpi.name, mpi, note="as installed"))
        if mpi.family in TUNINGS:
            args, env = TUNINGS[mpi.family]
            note = " ".join(args + [f"{k}={v}" for k, v in env.items()])
            configs.append(Config(f"{mpi.name}-tuned", mpi, list(args), dict(env), note))
    return configs


def launch_config(name: str, build_dir: Path, gpurun: str | None = None) -> Config:
    """The configuration called name, for bench/launch and the tests."""
    mpis, _ = find_peers()
    if name == "gpurun" or name.startswith("gpurun-"):
        launcher = gpurun or str(build_dir / "bin" / "gpurun")
        mpis.append(Mpi("gpurun", "gpurun", launcher, prebuilt=build_dir))
    for config in configs_for(mpis):
        if config.name == name:
            return config
    known = ", ".join(c.name for c in configs_for(mpis))
    raise ValueError(f"unknown or unavailable configuration {name!r} (available: {known})")

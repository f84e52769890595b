"""bench/compare --hosts: every configuration across the test hosts of scripts/testhosts.sh.

The test hosts are network namespaces on one machine (one kernel, one hostname). Each MPI gets
the flags that make it treat them as separate hosts and use its network path between them:
- launched from inside the first host's namespace, the others reached through the ssh
  stand-in scripts/testhosts-ssh (gpurun: its own --launch-agent);
- UCX over TCP on the hosts' eth0 (UCX_TLS=tcp,self): UCX would otherwise find shared memory
  between namespaces of one kernel;
- MPICH with MPIR_CVAR_NOLOCAL=1: it decides locality by hostname, which the namespaces share,
  and would otherwise use its shared memory across "hosts";
- Open MPI with its UCX pml (pml_ucx_tls/devices any: by default it only accepts RDMA devices)
  and --bind-to none: each host's daemon binds its first rank to core 0, so on test hosts that
  share the machine's cores its ranks would share one core and take turns at the scheduler's
  tick (4 ms a message).
Ranks are placed by blocks (ranks 0..k-1 on the first host): -np 2 puts one rank on each of
two hosts.
"""

import subprocess
from dataclasses import replace
from pathlib import Path

from .mpis import REPO_DIR, Config

TESTHOSTS = REPO_DIR / "scripts" / "testhosts.sh"
SSH = REPO_DIR / "scripts" / "testhosts-ssh"
UCX_ENV = {"UCX_TLS": "tcp,self", "UCX_NET_DEVICES": "eth0"}


def read_hosts(state_dir: Path) -> list[str]:
    """Host names of the test-host set in state_dir (scripts/testhosts.sh list)."""
    out = subprocess.run([str(TESTHOSTS), "list", str(state_dir)], capture_output=True,
                         text=True, check=True).stdout
    hosts = [line.split()[0] for line in out.splitlines() if line.strip()]
    if len(hosts) < 2:
        raise ValueError(f"{state_dir}: fewer than 2 test hosts (scripts/testhosts.sh start DIR)")
    return hosts


def _host_list(hosts: list[str], np: int) -> str:
    per_host = max(1, -(-np // len(hosts)))
    return ",".join(f"{h}:{per_host}" for h in hosts)


def across(configs: list[Config], state_dir: Path, np: int) -> list[Config]:
    """The as-installed configurations, launched across the test hosts."""
    hosts = read_hosts(state_dir)
    hl = _host_list(hosts, np)
    env = dict(UCX_ENV, TESTHOSTS_DIR=str(state_dir.resolve()))
    out = []
    for c in configs:
        if c.name != c.mpi.name:
            continue  # one-host tunings mean nothing between hosts
        family = c.mpi.family
        if family == "gpurun":
            flags = ["--launch-agent", f"{TESTHOSTS} exec {state_dir.resolve()} {{host}}",
                     "-H", hl, "--map-by", "slot", "-np", "{np}"]
            extra = {}  # its defaults: shm within a host, ucx between hosts
        elif family == "openmpi":
            flags = ["--mca", "plm_rsh_agent", str(SSH), "--mca", "routed", "direct",
                     "--mca", "oob_tcp_if_include", "eth0", "--mca", "btl_tcp_if_include", "eth0",
                     "--mca", "pml", "ucx", "--mca", "pml_ucx_tls", "any",
                     "--mca", "pml_ucx_devices", "any", "-x", "UCX_TLS", "-x", "UCX_NET_DEVICES",
                     "--host", hl, "--map-by", "slot", "--bind-to", "none", "-np", "{np}"]
            extra = {"OMPI_MCA_btl_tcp_if_include": "eth0", "OMPI_MCA_oob_tcp_if_include": "eth0"}
        elif family == "mpich":
            flags = ["-launcher", "ssh", "-launcher-exec", str(SSH), "-iface", "eth0",
                     "-hosts", hl, "-genvlist", "UCX_TLS,UCX_NET_DEVICES,MPIR_CVAR_NOLOCAL",
                     "-n", "{np}"]
            extra = {"HYDRA_IFACE": "eth0", "MPIR_CVAR_NOLOCAL": "1"}
        else:
            continue  # an --add-mpi launcher: no known way to place it on the test hosts
        # --wd=/: the launchers' remote daemons enter the launcher's directory, which may not
        # exist on a test host (its /tmp is its own).
        out.append(replace(c, prefix=["nsenter", f"--net=/run/netns/{hosts[0]}", "--wd=/"],
                           flags=flags,
                           env={**c.env, **env, **extra},
                           note=f"across {len(hosts)} test hosts ({hl}), UCX over TCP"))
    return out

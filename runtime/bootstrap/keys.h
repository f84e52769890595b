// The bootstrap protocol between gpurun (the PMIx server) and the ranks (PMIx clients):
// job-level keys that gpurun registers with the namespace, beside the standard PMIx ones
// (PMIX_JOB_SIZE, PMIX_LOCAL_SIZE, PMIX_LOCAL_PEERS, PMIX_LOCAL_RANK, PMIX_NODEID,
// PMIX_HOSTNAME, PMIX_NUM_NODES, PMIX_UNIV_SIZE, PMIX_APPNUM). Ranks started by another
// PMIx server (Slurm) find none of these and fall back to what they can work out alone.
#pragma once

namespace gpurun::bootstrap::keys {

// string: private per-job directory (mode 0700, unpredictable name) for any per-job file;
// gpurun removes it when the job ends. In a job across hosts each host has its own (made and
// removed by that host's gpurun daemon), so its files never meet another host's.
inline constexpr char kJobDir[] = "gpurun.jobdir";
// string: random token naming the job's shared-memory segments ("/dev/shm/gpurun-<token>-*"),
// which gpurun removes when the job ends, whatever way it ends. Per host, like kJobDir: hosts
// that share a /dev/shm (test hosts in network namespaces) never share a segment name.
inline constexpr char kJobToken[] = "gpurun.token";
// bool: more ranks than cores on this host; ranks then wait without spinning.
inline constexpr char kOversubscribed[] = "gpurun.oversubscribed";
// uint32: the cores gpurun may use on this host (within its own CPU affinity, as a container's
// cpuset sets it), which its ranks are bound to; more than the ranks: some are free.
inline constexpr char kCores[] = "gpurun.cores";
// string: how a large message between two cores of this host moves faster, "pipeline" or "cma"
// (runtime/topo/copy_probe.h), as gpurun measured it or GPURUN_TOPO_COPY set it; absent when
// not known (a host with one rank, or a probe that could not run).
inline constexpr char kCopy[] = "gpurun.copy";
// uint32: the shm eager limit in bytes that gpurun's copy probe chose for this host (16K where
// one packet beat CMA at 16K, 8K where CMA did); absent when not measured.
inline constexpr char kShmEager[] = "gpurun.shm_eager";

// Per-rank keys (in the rank's PMIX_PROC_DATA), present only when gpurun placed the rank on a
// GPU (launcher/placement.h):
// string: the PCI bus ids ("0000:18:00.0") of the rank's GPUs, comma-separated, its own device
// first. Find the CUDA device with cudaDeviceGetByPCIBusId: gpurun does not set
// CUDA_VISIBLE_DEVICES (every GPU stays visible, as CUDA IPC between ranks needs), so device
// numbers are not gpurun's GPU numbers.
inline constexpr char kGpus[] = "gpurun.gpus";
// string: the NIC nearest the rank's GPU, by its RDMA device name ("mlx5_0") or, without one,
// its network interface ("eth0"); absent when the host has no NIC gpurun knows of.
inline constexpr char kNic[] = "gpurun.nic";

}  // namespace gpurun::bootstrap::keys

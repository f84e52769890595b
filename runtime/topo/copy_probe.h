// How a host moves a large message between two of its cores faster: by a copy pipeline through
// shared memory (the sender copies chunks into a shared slot while the receiver copies the
// previous chunk out: every byte copied twice, and the receiver alone pulls it across the
// cores), or by CMA single copy split between both cores (process_vm_readv in the receiver for
// one half, process_vm_writev in the sender for the other: every byte copied once, half of it
// by each core).
//
// Which one wins is a property of the machine, not of the code. Between the two cores of an
// AMD Zen 5 that share an L3, the pipeline's copies stay in cache and a cross-core copy runs
// near memcpy speed, so the pipeline keeps up with CMA at 64K; on an Intel Xeon whose cores
// meet in a mesh, one core pulls only 8-11 GB/s across it, and CMA, with both cores pulling,
// takes 0.6x the pipeline's time (64K: 4.8 us against 7.7). The collectives of two ranks
// choose their algorithms by it (coll/tuning.json, "copy"), and the shm eager limit follows it
// (api/wiring.cc).
//
// probe_host_copy() measures it: gpurun forks a partner onto a second core and times both ways
// of moving 64K between the two processes, alternately, a few times each (well under a
// millisecond). Every rank of the host gets gpurun's answer (bootstrap keys::kCopy), so they
// all select alike.
//
// The same probe times a 16K and an 8K message both ways the pml could move them: in one
// packet through shared memory (the sender copies it in, the receiver out) or by CMA (the
// receiver copies it all), which sets the shm eager limit (keys::kShmEager). That is no
// consequence of the 64K answer: on a 2-core AMD EPYC whose 64K answer was cma too, one packet
// of 16K took 1.2 us against CMA's 2.8. On a 2-core Intel Xeon CMA won at both sizes, and by
// more in the pml than in the probe (probe at 16K: CMA 2.5-2.7 us, one packet 2.8-3.3; 8K by
// CMA against one packet, 5 interleaved runs: osu_latency 1.22 against 2.29 us, osu_bw 11.9
// against 7.4 GB/s, osu_bibw 14.1 against 7.7): the pml's packet path adds its header, ring
// slot and matching to the copies, so CMA takes a size whenever the probe finds it faster.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>

namespace gpurun::topo {

enum class HostCopy : std::uint8_t {
  kPipeline,  // a copy pipeline through shared memory is as fast or faster
  kCma,       // CMA single copy, split between both cores, is clearly faster
};

std::string_view host_copy_name(HostCopy copy);  // "pipeline", "cma"
// The same, or "unknown" for nullopt (not measured); a literal, so .data() ends with a NUL.
std::string_view host_copy_name(std::optional<HostCopy> copy);
std::optional<HostCopy> parse_host_copy(std::string_view name);
// For knobs of type HostCopy (case-insensitive names).
std::span<const std::pair<std::string_view, HostCopy>> param_enum_names(HostCopy);

// The fastest message of kPacketBytes and of kSmallPacketBytes each way: in one packet
// through shared memory, and by CMA with the receiver copying it all.
struct EagerTimings {
  double packet_us = 0;
  double packet_cma_us = 0;
  double small_packet_us = 0;
  double small_cma_us = 0;
};

struct CopyProbe {
  std::optional<HostCopy> copy;  // nullopt: not measured (see `why`)
  int cpu_a = -1;                // the two CPUs it ran on
  int cpu_b = -1;
  double pipeline_us = 0;  // fastest of the runs, per 64K message
  double cma_us = 0;
  EagerTimings eager;
  std::size_t shm_eager = 0;  // the shm eager limit these say (decide_shm_eager); 0: unknown
  std::string why;            // one line for logs and --explain
};

// CMA wins when it takes less than this share of the pipeline's time; closer results keep the
// pipeline, the rules that were measured where the two are equal.
inline constexpr double kCmaWinsBelow = 0.8;
// Bytes moved per run.
inline constexpr std::size_t kProbeBytes = 64 << 10;
// A message that fits one shm packet, and the shm eager limits decide_shm_eager chooses from:
// with CMA faster at kPacketBytes, messages from there on go by CMA; with CMA faster at
// kSmallPacketBytes too, from there on (kShmEagerFloor: at 4K one packet and CMA tied in the
// Xeon's osu_latency, 1.30 against 1.25 us, and a packet needs no handshake).
inline constexpr std::size_t kPacketBytes = 16 << 10;
inline constexpr std::size_t kSmallPacketBytes = 8 << 10;
inline constexpr std::size_t kShmEagerFloor = 4 << 10;
// The limit where the probe found CMA faster at 64K but did not time the packets.
inline constexpr std::size_t kShmEagerWhereCmaWins = 8 << 10;

// Measures between `cpu_a` (this thread, pinned there for the probe and put back after) and
// `cpu_b` (the partner). Blocks for well under a millisecond; gives up after half a second
// without an answer from the partner. It forks; the partner runs nothing but copies, atomics
// and system calls (no lock, no allocation), so other threads of the process do not matter.
CopyProbe probe_host_copy(int cpu_a, int cpu_b);

// The decision from two timings (the rule probe_host_copy applies).
HostCopy decide_host_copy(double pipeline_us, double cma_us);
// The shm eager limit from the packet timings: kPacketBytes unless CMA is faster at 16K, then
// kSmallPacketBytes unless CMA is faster at 8K too, then kShmEagerFloor.
std::size_t decide_shm_eager(const EagerTimings& timings);

}  // namespace gpurun::topo

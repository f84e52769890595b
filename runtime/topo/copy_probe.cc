#include "runtime/topo/copy_probe.h"

#include <sched.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>

#include "runtime/base/clock.h"

namespace gpurun::topo {
namespace {

// The pipeline's chunk and slots: coll/shm's bcast cuts a 64K message into 4 chunks of 16K
// (GPURUN_COLL_SHM_CHUNK_SIZE auto), which all fit the root's slot.
constexpr std::size_t kChunk = 16 << 10;
constexpr std::size_t kChunks = kProbeBytes / kChunk;
constexpr int kRunsEach = 8;  // the first of each warms caches and page tables, and is not counted
constexpr std::int64_t kDeadlineNs = 500'000'000;

// Shared by the two processes; each counter has one writer.
struct alignas(64) Control {
  alignas(64) std::atomic<std::int64_t> go;      // parent: run number to start
  alignas(64) std::atomic<std::int64_t> posted;  // parent: chunks in the slots
  alignas(64) std::atomic<std::int64_t> done;    // child: last run finished
  std::atomic<int> cma_error;                    // child: errno of a failed CMA read
  std::atomic<int> child_failed;                 // child: errno of its set-up (pinning)
};

// One mapping: the control block, the shared slots, then the parent's source and the child's
// destination, private to each after the fork (CMA moves between them).
struct Region {
  void* base = MAP_FAILED;
  std::size_t shared_bytes = 0;
  std::size_t private_bytes = 0;
  Control* control = nullptr;
  std::byte* slots = nullptr;
  std::byte* src = nullptr;
  std::byte* dst = nullptr;

  bool map() {
    shared_bytes = 4096 + kProbeBytes;
    private_bytes = 2 * kProbeBytes;
    base = mmap(nullptr, shared_bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    void* own =
        mmap(nullptr, private_bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (base == MAP_FAILED || own == MAP_FAILED) {
      if (own != MAP_FAILED) munmap(own, private_bytes);
      return false;
    }
    control = new (base) Control{};
    slots = static_cast<std::byte*>(base) + 4096;
    src = static_cast<std::byte*>(own);
    dst = src + kProbeBytes;
    return true;
  }
  ~Region() {
    if (base != MAP_FAILED) munmap(base, shared_bytes);
    if (src != nullptr) munmap(src, private_bytes);
  }
};

bool pin_to(int cpu) {
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cpu, &set);
  return sched_setaffinity(0, sizeof set, &set) == 0;
}

// Spins until `word` reaches `value`; false after the deadline. Yields now and then, so that a
// partner waiting for a core gets one.
bool wait_for(const std::atomic<std::int64_t>& word, std::int64_t value, std::int64_t deadline) {
  for (std::uint32_t spins = 1;; ++spins) {
    if (word.load(std::memory_order_acquire) >= value) return true;
    if ((spins & 1023) == 0) {
      if (clock::now_ns() > deadline) return false;
      sched_yield();
    }
  }
}

// What a run times; runs take the kinds in turn (run % kKinds).
enum Kind : std::int64_t {
  kPipeline = 1,
  kCma = 2,
  kPacket = 3,  // one packet of kPacketBytes
  kPacketCma = 4,
  kSmallPacket = 5,  // one packet of kSmallPacketBytes
  kSmallPacketCma = 0,
};
constexpr std::int64_t kKinds = 6;

// The message size of the packet kinds (one packet, or CMA).
std::size_t packet_bytes(std::int64_t kind) {
  return kind == kPacket || kind == kPacketCma ? kPacketBytes : kSmallPacketBytes;
}

// The CMA read of `bytes` at the start of the parent's source into the child's destination.
void cma_read(Region& r, pid_t parent, std::size_t bytes) {
  iovec local{r.dst, bytes}, remote{r.src, bytes};
  if (process_vm_readv(parent, &local, 1, &remote, 1, 0) != static_cast<ssize_t>(bytes))
    r.control->cma_error.store(errno);
}

// The receiving side of each run. `posted` counts the parent's posts (chunks and packets).
[[noreturn]] void child_main(Region& r, pid_t parent, int cpu) {
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (getppid() != parent || !pin_to(cpu)) {
    r.control->child_failed.store(errno != 0 ? errno : ESRCH);
    r.control->done.store(INT64_MAX, std::memory_order_release);  // the parent waits no more
    _exit(0);
  }
  std::memset(r.dst, 0, kProbeBytes);  // its own pages, as a receive buffer has
  const std::int64_t deadline = clock::now_ns() + kDeadlineNs;
  std::int64_t posted = 0;
  for (std::int64_t run = 1; run <= kKinds * kRunsEach; ++run) {
    if (!wait_for(r.control->go, run, deadline)) _exit(0);
    switch (run % kKinds) {
      case kPipeline:
        for (std::size_t k = 0; k < kChunks; ++k) {
          if (!wait_for(r.control->posted, ++posted, deadline)) _exit(0);
          std::memcpy(r.dst + k * kChunk, r.slots + k * kChunk, kChunk);
        }
        break;
      case kCma:
        cma_read(r, parent, kProbeBytes / 2);
        break;
      case kPacket:
      case kSmallPacket:
        if (!wait_for(r.control->posted, ++posted, deadline)) _exit(0);
        std::memcpy(r.dst, r.slots, packet_bytes(run % kKinds));
        break;
      default:
        cma_read(r, parent, packet_bytes(run % kKinds));
    }
    r.control->done.store(run, std::memory_order_release);
  }
  _exit(0);
}

// One run as the parent sees it: the sender's side, until the child says it is done.
bool parent_run(Region& r, pid_t child, std::int64_t run, std::int64_t* posted,
                std::int64_t deadline, int* error) {
  r.control->go.store(run, std::memory_order_release);
  switch (run % kKinds) {
    case kPipeline:
      for (std::size_t k = 0; k < kChunks; ++k) {
        std::memcpy(r.slots + k * kChunk, r.src + k * kChunk, kChunk);
        r.control->posted.store(++*posted, std::memory_order_release);
      }
      break;
    case kCma: {
      iovec local{r.src + kProbeBytes / 2, kProbeBytes / 2};
      iovec remote{r.dst + kProbeBytes / 2, kProbeBytes / 2};
      if (process_vm_writev(child, &local, 1, &remote, 1, 0) != kProbeBytes / 2) *error = errno;
      break;
    }
    case kPacket:
    case kSmallPacket:
      std::memcpy(r.slots, r.src, packet_bytes(run % kKinds));
      r.control->posted.store(++*posted, std::memory_order_release);
      break;
    default:
      break;  // the child reads it all
  }
  return wait_for(r.control->done, run, deadline);
}

struct Timings {
  double by_kind[kKinds] = {1e30, 1e30, 1e30, 1e30, 1e30, 1e30};  // fastest run of each kind
  int cma_error = 0;
  bool answered = true;
};

Timings time_runs(Region& r, pid_t child) {
  Timings t;
  const std::int64_t deadline = clock::now_ns() + kDeadlineNs;
  std::int64_t posted = 0;
  for (std::int64_t run = 1; run <= kKinds * kRunsEach && t.answered; ++run) {
    // The sender's data, in its cache, before the clock starts: writing lines the partner read
    // by CMA in the run before costs the sender their invalidation, which is no part of the
    // way measured (it made every run after a CMA run slower: 64K pipeline 10.4 us -> 8.3, a
    // 16K packet 6.5 us -> 2.6 on a 2-core AMD EPYC).
    std::memset(r.src, static_cast<int>(run), kProbeBytes);
    std::int64_t start = clock::now_ns();
    t.answered = parent_run(r, child, run, &posted, deadline, &t.cma_error);
    double us = static_cast<double>(clock::now_ns() - start) / 1000.0;
    double& best = t.by_kind[run % kKinds];
    if (run > kKinds) best = std::min(best, us);  // the first of each warms up
  }
  if (t.cma_error == 0) t.cma_error = r.control->cma_error.load();
  return t;
}

std::string format_us(double us) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f us", us);
  return buf;
}

}  // namespace

std::string_view host_copy_name(HostCopy copy) {
  return copy == HostCopy::kCma ? "cma" : "pipeline";
}

std::string_view host_copy_name(std::optional<HostCopy> copy) {
  return copy ? host_copy_name(*copy) : "unknown";
}

std::span<const std::pair<std::string_view, HostCopy>> param_enum_names(HostCopy) {
  static constexpr std::pair<std::string_view, HostCopy> kNames[] = {
      {"pipeline", HostCopy::kPipeline}, {"cma", HostCopy::kCma}};
  return kNames;
}

std::optional<HostCopy> parse_host_copy(std::string_view name) {
  for (const auto& [text, value] : param_enum_names(HostCopy{}))
    if (text == name) return value;
  return std::nullopt;
}

HostCopy decide_host_copy(double pipeline_us, double cma_us) {
  return cma_us < kCmaWinsBelow * pipeline_us ? HostCopy::kCma : HostCopy::kPipeline;
}

std::size_t decide_shm_eager(const EagerTimings& t) {
  if (!(t.packet_cma_us < t.packet_us)) return kPacketBytes;
  if (!(t.small_cma_us < t.small_packet_us)) return kSmallPacketBytes;
  return kShmEagerFloor;
}

CopyProbe probe_host_copy(int cpu_a, int cpu_b) {
  CopyProbe probe{.cpu_a = cpu_a, .cpu_b = cpu_b};
  cpu_set_t saved;
  Region region;
  if (cpu_a == cpu_b || sched_getaffinity(0, sizeof saved, &saved) != 0 || !region.map()) {
    probe.why = "not measured: no two CPUs or no memory for the probe";
    return probe;
  }
  pid_t parent = getpid();
  pid_t child = fork();
  if (child < 0) {
    probe.why = std::string("not measured: fork: ") + std::strerror(errno);
    return probe;
  }
  if (child == 0) child_main(region, parent, cpu_b);
  prctl(PR_SET_PTRACER, child);  // Yama: the child may read us by CMA (no-op without Yama)
  bool pinned = pin_to(cpu_a);
  int pin_error = pinned ? 0 : errno;
  Timings t = pinned ? time_runs(region, child) : Timings{.answered = false};
  if (!t.answered) kill(child, SIGKILL);
  waitpid(child, nullptr, 0);
  prctl(PR_SET_PTRACER, 0);
  sched_setaffinity(0, sizeof saved, &saved);
  int failed = region.control->child_failed.load();
  if (!pinned || failed != 0) {
    probe.why = "not measured: cannot run on CPU " + std::to_string(pinned ? cpu_b : cpu_a) + " (" +
                std::strerror(pinned ? failed : pin_error) + ")";
    return probe;
  }
  if (!t.answered) {
    probe.why = "not measured: the partner on CPU " + std::to_string(cpu_b) + " did not answer";
    return probe;
  }
  probe.pipeline_us = t.by_kind[kPipeline];
  std::string between = "64K between CPUs " + std::to_string(cpu_a) + " and " +
                        std::to_string(cpu_b) + ": pipeline " + format_us(probe.pipeline_us);
  if (t.cma_error != 0) {
    probe.copy = HostCopy::kPipeline;
    probe.why = between + ", CMA unavailable (" + std::strerror(t.cma_error) + ")";
    return probe;  // shm_eager unknown: the pml's own default without CMA
  }
  probe.cma_us = t.by_kind[kCma];
  probe.eager = EagerTimings{t.by_kind[kPacket], t.by_kind[kPacketCma], t.by_kind[kSmallPacket],
                             t.by_kind[kSmallPacketCma]};
  probe.copy = decide_host_copy(probe.pipeline_us, probe.cma_us);
  probe.shm_eager = decide_shm_eager(probe.eager);
  probe.why = between + ", CMA " + format_us(probe.cma_us) + "; 16K: one packet " +
              format_us(probe.eager.packet_us) + ", CMA " + format_us(probe.eager.packet_cma_us) +
              "; 8K: one packet " + format_us(probe.eager.small_packet_us) + ", CMA " +
              format_us(probe.eager.small_cma_us);
  return probe;
}

}  // namespace gpurun::topo

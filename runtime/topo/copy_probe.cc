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
  alignas(64) std::atomic<std::int64_t> go;        // parent: run number to start
  alignas(64) std::atomic<std::int64_t> posted;    // parent: chunks in the slots
  alignas(64) std::atomic<std::int64_t> consumed;  // child: chunks copied out
  alignas(64) std::atomic<std::int64_t> done;      // child: last run finished
  std::atomic<int> cma_error;                      // child: errno of a failed CMA read
  std::atomic<int> child_failed;                   // child: errno of its set-up (pinning)
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

// Odd runs: the pipeline's receiving side; even runs: the CMA reader of the first half.
[[noreturn]] void child_main(Region& r, pid_t parent, int cpu) {
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (getppid() != parent || !pin_to(cpu)) {
    r.control->child_failed.store(errno != 0 ? errno : ESRCH);
    r.control->done.store(INT64_MAX, std::memory_order_release);  // the parent waits no more
    _exit(0);
  }
  std::memset(r.dst, 0, kProbeBytes);  // its own pages, as a receive buffer has
  const std::int64_t deadline = clock::now_ns() + kDeadlineNs;
  for (std::int64_t run = 1; run <= 2 * kRunsEach; ++run) {
    if (!wait_for(r.control->go, run, deadline)) _exit(0);
    if (run % 2 == 1) {
      for (std::size_t k = 0; k < kChunks; ++k) {
        std::int64_t chunk = (run / 2) * kChunks + k + 1;
        if (!wait_for(r.control->posted, chunk, deadline)) _exit(0);
        std::memcpy(r.dst + k * kChunk, r.slots + k * kChunk, kChunk);
        r.control->consumed.store(chunk, std::memory_order_release);
      }
    } else {
      iovec local{r.dst, kProbeBytes / 2}, remote{r.src, kProbeBytes / 2};
      if (process_vm_readv(parent, &local, 1, &remote, 1, 0) != kProbeBytes / 2)
        r.control->cma_error.store(errno);
    }
    r.control->done.store(run, std::memory_order_release);
  }
  _exit(0);
}

// One run as the parent sees it: the sender's side, until the child says it is done.
bool parent_run(Region& r, pid_t child, std::int64_t run, std::int64_t deadline, int* error) {
  std::memset(r.src, static_cast<int>(run), kProbeBytes);  // the sender's data, in its cache
  r.control->go.store(run, std::memory_order_release);
  if (run % 2 == 1) {
    for (std::size_t k = 0; k < kChunks; ++k) {
      std::memcpy(r.slots + k * kChunk, r.src + k * kChunk, kChunk);
      r.control->posted.store((run / 2) * kChunks + k + 1, std::memory_order_release);
    }
  } else {
    iovec local{r.src + kProbeBytes / 2, kProbeBytes / 2};
    iovec remote{r.dst + kProbeBytes / 2, kProbeBytes / 2};
    if (process_vm_writev(child, &local, 1, &remote, 1, 0) != kProbeBytes / 2) *error = errno;
  }
  return wait_for(r.control->done, run, deadline);
}

struct Timings {
  double pipeline_us = 1e30;
  double cma_us = 1e30;
  int cma_error = 0;
  bool answered = true;
};

Timings time_runs(Region& r, pid_t child) {
  Timings t;
  const std::int64_t deadline = clock::now_ns() + kDeadlineNs;
  for (std::int64_t run = 1; run <= 2 * kRunsEach && t.answered; ++run) {
    std::int64_t start = clock::now_ns();
    t.answered = parent_run(r, child, run, deadline, &t.cma_error);
    double us = static_cast<double>(clock::now_ns() - start) / 1000.0;
    double& best = run % 2 == 1 ? t.pipeline_us : t.cma_us;
    if (run > 2) best = std::min(best, us);
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
  probe.pipeline_us = t.pipeline_us;
  probe.cma_us = t.cma_us;
  std::string between = "64K between CPUs " + std::to_string(cpu_a) + " and " +
                        std::to_string(cpu_b) + ": pipeline " + format_us(t.pipeline_us);
  if (t.cma_error != 0) {
    probe.copy = HostCopy::kPipeline;
    probe.why = between + ", CMA unavailable (" + std::strerror(t.cma_error) + ")";
    return probe;
  }
  probe.copy = decide_host_copy(t.pipeline_us, t.cma_us);
  probe.why = between + ", CMA " + format_us(t.cma_us);
  return probe;
}

}  // namespace gpurun::topo

// CpuSet: a set of operating-system PU (hardware thread) numbers, as the kernel's affinity
// calls and hwloc's os_index name them. A plain value type; not thread-safe to mutate.
#pragma once

#include <sched.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/base/status.h"

namespace gpurun::topo {

class CpuSet {
 public:
  CpuSet() = default;
  explicit CpuSet(std::vector<int> cpus);

  // Parses a kernel-style list ("0-3,8,10-11").
  static Result<CpuSet> parse(std::string_view list);
  // The CPUs that the calling thread may run on (sched_getaffinity).
  static Result<CpuSet> of_calling_thread();

  bool empty() const { return cpus_.empty(); }
  std::size_t size() const { return cpus_.size(); }
  bool contains(int cpu) const;
  // Sorted, unique OS indices.
  const std::vector<int>& cpus() const { return cpus_; }
  CpuSet intersect(const CpuSet& other) const;
  // Kernel-style list, "0-3,8".
  std::string to_string() const;
  // A key that two processes can compare to learn whether they are bound to the same CPUs
  // (a hash of the CPU numbers); 0 for the empty set, never 0 otherwise.
  std::uint64_t key() const;
  // Fills a cpu_set_t for sched_setaffinity; CPUs >= CPU_SETSIZE are an error.
  Status to_cpu_set(cpu_set_t& out) const;

  friend bool operator==(const CpuSet&, const CpuSet&) = default;

 private:
  std::vector<int> cpus_;
};

}  // namespace gpurun::topo

// The registry of algorithms, and the collectives' names.
#include <array>
#include <string>
#include <vector>

#include "coll/algorithm.h"

namespace gpurun::coll {
namespace {

constexpr int kCollectives = static_cast<int>(Collective::kCount);

constexpr std::array<std::string_view, kCollectives> kNames = {
    "barrier",
    "bcast",
    "reduce",
    "allreduce",
    "reduce_scatter",
    "reduce_scatter_block",
    "scan",
    "exscan",
    "gather",
    "gatherv",
    "scatter",
    "scatterv",
    "allgather",
    "allgatherv",
    "alltoall",
    "alltoallv",
    "alltoallw",
    "neighbor_allgather",
    "neighbor_allgatherv",
    "neighbor_alltoall",
    "neighbor_alltoallv",
    "neighbor_alltoallw",
};

// Filled at static initialisation, before main, from each algorithm file; never destroyed so
// that no registration outlives it.
std::array<std::vector<const Algorithm*>, kCollectives>& table() {
  static auto* t = new std::array<std::vector<const Algorithm*>, kCollectives>();
  return *t;
}

}  // namespace

std::string_view collective_name(Collective collective) {
  auto i = static_cast<std::size_t>(collective);
  return i < kNames.size() ? kNames[i] : "unknown";
}

std::optional<Collective> collective_of(std::string_view name) {
  for (int i = 0; i < kCollectives; ++i)
    if (kNames[i] == name) return static_cast<Collective>(i);
  return std::nullopt;
}

void Registry::add(const Algorithm& algorithm) {
  table()[static_cast<std::size_t>(algorithm.collective)].push_back(&algorithm);
}

std::span<const Algorithm* const> Registry::of(Collective collective) {
  return table()[static_cast<std::size_t>(collective)];
}

const Algorithm* Registry::find(Collective collective, std::string_view name) {
  for (const Algorithm* a : of(collective))
    if (a->name == name) return a;
  return nullptr;
}

}  // namespace gpurun::coll

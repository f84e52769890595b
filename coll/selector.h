// Choosing an algorithm for a call: the algorithm forced by GPURUN_COLL_<COLLECTIVE>_ALGO if it
// can run the call, else the first rule of the tuning table that matches and can run it, else
// (with a warning) any registered algorithm that can.
//
// A communicator's candidates (the forced algorithm and the table's rules that match its size
// and spread) are worked out once, when it first calls the collective (candidates()); each
// call then walks that short list (pick()). A forced algorithm that cannot run a call falls
// back with one warning per collective and process; an unknown forced name warns once too.
// Each (collective, size bucket) decision is logged once at debug by the caller.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "coll/algorithm.h"
#include "coll/tuning.h"
#include "runtime/base/status.h"

namespace gpurun::coll {

struct Candidate {
  const Algorithm* algorithm = nullptr;
  std::int64_t min_bytes = 0;
  std::int64_t max_bytes = 0;
  bool forced = false;                             // from the knob: falling back from it warns
  MemoryCondition memory = MemoryCondition::kAny;  // the rule's memory condition
};

class Selector {
 public:
  // `forced(c)`: the knob's value for collective c ("" or "auto": nothing forced).
  using ForcedFn = std::string (*)(Collective collective);
  Selector(const TuningTable* table, ForcedFn forced) : table_(table), forced_(forced) {}

  std::vector<Candidate> candidates(Collective collective, const CommShape& shape);
  // The algorithm for `args`, whose selection size is `bytes`; never `instead_of` (the
  // algorithm a call falls back from) when given, nor another that falls back for the same
  // reason (Algorithm::falls_back: the shared-memory ones, when their segment failed).
  Result<const Algorithm*> pick(std::span<const Candidate> candidates, const Args& args,
                                std::int64_t bytes, const Algorithm* instead_of = nullptr);

 private:
  const TuningTable* table_;
  ForcedFn forced_;
  // Per collective: whether a fallback from the forced algorithm, or from the whole table,
  // was already reported.
  std::uint32_t warned_forced_ = 0;
  std::uint32_t warned_table_ = 0;
  std::uint32_t warned_unknown_ = 0;
};

// The algorithms registered for every collective, one per line with its summary (`gpurun
// --info algos`).
std::string describe_algorithms();

}  // namespace gpurun::coll

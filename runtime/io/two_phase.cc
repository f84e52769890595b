// Two-phase collective access: what goes where (runtime/io/two_phase.h).
#include "runtime/io/two_phase.h"

#include <algorithm>
#include <climits>

namespace gpurun::io {
namespace {

bool by_offset(const Extent& a, const Extent& b) { return a.offset < b.offset; }

}  // namespace

std::int64_t RunCursor::next() const {
  if (index_ >= runs_.size()) return INT64_MAX;
  return runs_[index_].offset + used_;
}

std::int64_t RunCursor::take(std::int64_t end, std::vector<Extent>& pieces) {
  std::int64_t taken = 0;
  while (index_ < runs_.size()) {
    const Extent& run = runs_[index_];
    std::int64_t from = run.offset + used_;
    if (from >= end) break;
    std::int64_t bytes = std::min(run.bytes - used_, end - from);
    pieces.push_back({from, bytes});
    taken += bytes;
    used_ += bytes;
    if (used_ == run.bytes) {
      ++index_;
      used_ = 0;
    }
  }
  return taken;
}

std::int64_t window_length(std::int64_t base, std::int64_t end, int aggregators,
                           std::int64_t buffer) {
  std::int64_t span = std::max<std::int64_t>(end - base, 1);
  std::int64_t n = std::max(aggregators, 1);
  std::int64_t share = (span + n - 1) / n;
  if (buffer >= kWindowAlign) share = (share + kWindowAlign - 1) / kWindowAlign * kWindowAlign;
  return std::clamp<std::int64_t>(share, 1, std::max<std::int64_t>(buffer, 1));
}

std::vector<Extent> coverage(std::span<const Extent> pieces,
                             std::span<const std::int64_t> counts) {
  std::vector<Extent> sorted(pieces.begin(), pieces.end());
  // Bottom-up merge of the sorted lists: log2(lists) passes.
  std::vector<std::size_t> bounds{0};
  for (std::int64_t c : counts) bounds.push_back(bounds.back() + static_cast<std::size_t>(c));
  while (bounds.size() > 2) {
    std::vector<std::size_t> merged{0};
    for (std::size_t i = 0; i + 1 < bounds.size(); i += 2) {
      std::size_t last = std::min(i + 2, bounds.size() - 1);
      std::inplace_merge(sorted.begin() + static_cast<std::ptrdiff_t>(bounds[i]),
                         sorted.begin() + static_cast<std::ptrdiff_t>(bounds[i + 1]),
                         sorted.begin() + static_cast<std::ptrdiff_t>(bounds[last]), by_offset);
      merged.push_back(bounds[last]);
    }
    bounds = std::move(merged);
  }
  std::vector<Extent> runs;
  for (const Extent& p : sorted) {
    if (p.bytes <= 0) continue;
    if (!runs.empty() && p.offset <= runs.back().offset + runs.back().bytes) {
      runs.back().bytes = std::max(runs.back().bytes, p.offset + p.bytes - runs.back().offset);
    } else {
      runs.push_back(p);
    }
  }
  return runs;
}

bool ascending(std::span<const Extent> runs) {
  std::int64_t end = 0;
  for (const Extent& r : runs) {
    if (r.offset < end || r.bytes < 0) return false;
    end = r.offset + r.bytes;
  }
  return true;
}

bool interleaved(std::vector<Extent> spans) {
  std::erase_if(spans, [](const Extent& s) { return s.bytes <= 0; });
  std::sort(spans.begin(), spans.end(), by_offset);
  for (std::size_t i = 1; i < spans.size(); ++i) {
    if (spans[i].offset < spans[i - 1].offset + spans[i - 1].bytes) return true;
  }
  return false;
}

int aggregator_member(int index, int aggregators, int members) {
  return static_cast<int>(static_cast<std::int64_t>(index) * members / std::max(aggregators, 1));
}

std::int64_t bytes_before_end(std::span<const Extent> runs, std::int64_t size) {
  std::int64_t done = 0;
  for (const Extent& r : runs) {
    std::int64_t have = std::clamp<std::int64_t>(size - r.offset, 0, r.bytes);
    done += have;
    if (have < r.bytes) break;
  }
  return done;
}

}  // namespace gpurun::io

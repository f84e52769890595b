// Building compiled layouts: each builder merges what it can so that pack/unpack make as few
// copies as the memory layout allows.
#include "runtime/core/datatype_layout.h"

#include <limits>

namespace gpurun::core::layout {
namespace {

using Kind = Layout::Kind;

// A `blocks` child is copied into its parent's run list when it has at most kInlineRuns runs,
// or when the parent's list stays below kInlineTotal runs: the walk then makes one call per run
// instead of one per child, for little memory. Beyond, the child stays shared (an indexed type
// of a million struct elements would otherwise copy the struct's runs a million times).
constexpr std::size_t kInlineRuns = 16;
constexpr std::size_t kInlineTotal = 4096;

std::int64_t saturating_mul(std::int64_t a, std::int64_t b) {
  std::int64_t r;
  return __builtin_mul_overflow(a, b, &r) ? std::numeric_limits<std::int64_t>::max() : r;
}
std::int64_t saturating_add(std::int64_t a, std::int64_t b) {
  std::int64_t r;
  return __builtin_add_overflow(a, b, &r) ? std::numeric_limits<std::int64_t>::max() : r;
}

// Two nodes that differ at most in their displacement.
bool same_shape(const Layout& a, const Layout& b) {
  if (a.kind != b.kind || a.size != b.size) return false;
  switch (a.kind) {
    case Kind::kLeaf:
      return true;
    case Kind::kRepeat:
      return a.count == b.count && a.stride == b.stride && a.child == b.child;
    case Kind::kBlocks:
      return a.runs == b.runs;
    case Kind::kIndexed:
      return a.segments == b.segments && a.child == b.child;
    case Kind::kList:
      return a.items == b.items;
  }
  return false;
}

// Whether the nodes (two or more) have one shape at a constant step, which goes to `step`.
bool constant_step(const std::vector<LayoutPtr>& nodes, std::int64_t* step) {
  *step = nodes[1]->disp - nodes[0]->disp;
  for (std::size_t i = 1; i < nodes.size(); ++i) {
    if (!same_shape(*nodes[i], *nodes[0]) || nodes[i]->disp - nodes[i - 1]->disp != *step)
      return false;
  }
  return true;
}

bool inlinable(const Layout& node, std::size_t runs_so_far) {
  if (node.kind == Kind::kLeaf) return true;
  if (node.kind != Kind::kBlocks) return false;
  return node.runs->size() <= kInlineRuns || runs_so_far + node.runs->size() <= kInlineTotal;
}

void append_run(std::vector<Run>& runs, std::int64_t disp, std::int64_t bytes) {
  if (!runs.empty() && runs.back().disp + runs.back().bytes == disp) {
    runs.back().bytes += bytes;
    return;
  }
  std::int64_t start = runs.empty() ? 0 : runs.back().start + runs.back().bytes;
  runs.push_back(Run{disp, start, bytes});
}

void append_node_runs(std::vector<Run>& runs, const Layout& node) {
  if (node.kind == Kind::kLeaf) {
    append_run(runs, node.disp, node.size);
    return;
  }
  for (const Run& r : *node.runs) append_run(runs, node.disp + r.disp, r.bytes);
}

// One node for a run list: a leaf, a repeat of a leaf when the runs are equal and evenly
// spaced, or a blocks node.
LayoutPtr from_runs(std::vector<Run> runs) {
  if (runs.size() == 1) return leaf(runs[0].disp, runs[0].bytes);
  bool even = true;
  std::int64_t step = runs[1].disp - runs[0].disp;
  for (std::size_t i = 1; i < runs.size() && even; ++i)
    even = runs[i].bytes == runs[0].bytes && runs[i].disp - runs[i - 1].disp == step;
  if (even)
    return repeat(static_cast<std::int64_t>(runs.size()), step, leaf(runs[0].disp, runs[0].bytes));
  auto node = std::make_shared<Layout>();
  node->kind = Kind::kBlocks;
  node->size = runs.back().start + runs.back().bytes;
  node->blocks = static_cast<std::int64_t>(runs.size());
  node->runs = std::make_shared<const std::vector<Run>>(std::move(runs));
  return node;
}

// Merges each stretch of leaves and small blocks nodes into one node.
std::vector<LayoutPtr> merge_runs(const std::vector<LayoutPtr>& nodes) {
  std::vector<LayoutPtr> out;
  std::vector<Run> runs;
  for (const LayoutPtr& node : nodes) {
    if (inlinable(*node, runs.size())) {
      append_node_runs(runs, *node);
      continue;
    }
    if (!runs.empty()) out.push_back(from_runs(std::move(runs)));
    runs.clear();
    out.push_back(node);
  }
  if (!runs.empty()) out.push_back(from_runs(std::move(runs)));
  return out;
}

LayoutPtr list(const std::vector<LayoutPtr>& nodes) {
  auto items = std::make_shared<std::vector<Item>>();
  items->reserve(nodes.size());
  auto node = std::make_shared<Layout>();
  node->kind = Kind::kList;
  for (const LayoutPtr& n : nodes) {
    items->push_back(Item{node->size, n});
    node->size += n->size;
    node->blocks = saturating_add(node->blocks, n->blocks);
  }
  node->items = std::move(items);
  return node;
}

}  // namespace

LayoutPtr leaf(std::int64_t disp, std::int64_t bytes) {
  if (bytes == 0) return nullptr;
  auto node = std::make_shared<Layout>();
  node->kind = Kind::kLeaf;
  node->disp = disp;
  node->size = bytes;
  node->blocks = 1;
  return node;
}

LayoutPtr shifted(const LayoutPtr& node, std::int64_t disp) {
  if (!node || disp == 0) return node;
  auto copy = std::make_shared<Layout>(*node);
  copy->disp += disp;
  return copy;
}

LayoutPtr repeat(std::int64_t count, std::int64_t stride, const LayoutPtr& child) {
  if (!child || count == 0) return nullptr;
  if (count == 1) return child;
  if (child->kind == Kind::kLeaf && stride == child->size)
    return leaf(child->disp, count * child->size);
  auto node = std::make_shared<Layout>();
  node->kind = Kind::kRepeat;
  node->count = count;
  node->stride = stride;
  node->child = child;
  // Copies of a repeat that continue where the previous copy ended form one longer repeat.
  if (child->kind == Kind::kRepeat && child->count * child->stride == stride) {
    node->disp = child->disp;
    node->count = count * child->count;
    node->stride = child->stride;
    node->child = child->child;
  }
  node->size = node->count * node->child->size;
  node->blocks = saturating_mul(node->count, node->child->blocks);
  return node;
}

LayoutPtr sequence(const std::vector<LayoutPtr>& nodes) {
  std::vector<LayoutPtr> present;
  present.reserve(nodes.size());
  for (const LayoutPtr& n : nodes)
    if (n) present.push_back(n);
  if (present.empty()) return nullptr;
  if (present.size() == 1) return present[0];
  std::int64_t step;
  if (constant_step(present, &step))
    return repeat(static_cast<std::int64_t>(present.size()), step, present[0]);
  std::vector<LayoutPtr> merged = merge_runs(present);
  if (merged.size() == 1) return merged[0];
  return list(merged);
}

LayoutPtr indexed(const LayoutPtr& child, std::int64_t stride, std::vector<Segment> segments) {
  if (!child) return nullptr;
  // Drop empty segments; merge a segment into the previous one when it continues it.
  std::vector<Segment> merged;
  for (const Segment& s : segments) {
    if (s.count == 0) continue;
    if (!merged.empty() && merged.back().disp + merged.back().count * stride == s.disp) {
      merged.back().count += s.count;
      continue;
    }
    std::int64_t start =
        merged.empty() ? 0 : merged.back().start + merged.back().count * child->size;
    merged.push_back(Segment{s.disp, start, s.count});
  }
  std::vector<LayoutPtr> few;
  if (merged.size() <= 2 || child->kind == Kind::kLeaf) {
    // A leaf child makes runs; one or two segments make a repeat or a short sequence.
    for (const Segment& s : merged) few.push_back(shifted(repeat(s.count, stride, child), s.disp));
    return sequence(few);
  }
  bool even = true;
  std::int64_t step = merged[1].disp - merged[0].disp;
  for (std::size_t i = 1; i < merged.size() && even; ++i)
    even = merged[i].count == merged[0].count && merged[i].disp - merged[i - 1].disp == step;
  if (even)
    return repeat(static_cast<std::int64_t>(merged.size()), step,
                  shifted(repeat(merged[0].count, stride, child), merged[0].disp));
  auto node = std::make_shared<Layout>();
  node->kind = Kind::kIndexed;
  node->stride = stride;
  node->child = child;
  node->size = merged.back().start + merged.back().count * child->size;
  for (const Segment& s : merged)
    node->blocks = saturating_add(node->blocks, saturating_mul(s.count, child->blocks));
  node->segments = std::make_shared<const std::vector<Segment>>(std::move(merged));
  return node;
}

}  // namespace gpurun::core::layout

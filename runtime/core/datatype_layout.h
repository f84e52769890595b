// The compiled form of a datatype: one element's data as a tree of contiguous blocks.
//
// Five node kinds cover every type map:
//   leaf     one block of `size` bytes at `disp`
//   repeat   `count` copies of a child node, the k-th at disp + k * stride
//   blocks   a list of blocks (runs) at their own displacements, in packed order
//   indexed  a list of segments, each `count` copies of one shared child `stride` apart (an
//            indexed type of a non-contiguous type: one child, 24 bytes per segment)
//   list     a list of child nodes at their own displacements, in packed order
// Building a node merges what it can (a repeat of a leaf whose stride is the leaf's size is one
// leaf; adjacent runs merge; a list of equally shaped nodes at a constant step is a repeat), so
// a committed type moves with as few copies as its memory layout allows.
//
// Nodes are immutable and shared (a type's layout is reused by the types built from it).
// Every displacement is relative to the origin of the element that contains the node.
#pragma once

#include <cstdint>
#include <memory>
#include <type_traits>
#include <vector>

namespace gpurun::core {

struct Layout;
using LayoutPtr = std::shared_ptr<const Layout>;

// A block of a `blocks` node: `bytes` bytes at `disp`, starting at `start` in the packed stream.
struct Run {
  std::int64_t disp;
  std::int64_t start;
  std::int64_t bytes;
};

// A segment of an `indexed` node: `count` copies of the node's child from `disp`, starting at
// `start` in the packed stream.
struct Segment {
  std::int64_t disp;
  std::int64_t start;
  std::int64_t count;
};

// A child of a `list` node, starting at `start` in the packed stream.
struct Item {
  std::int64_t start;
  LayoutPtr node;
};

struct Layout {
  enum class Kind : std::uint8_t { kLeaf, kRepeat, kBlocks, kIndexed, kList };
  Kind kind = Kind::kLeaf;
  std::int64_t disp = 0;    // offset of the node's origin
  std::int64_t size = 0;    // packed bytes
  std::int64_t blocks = 0;  // contiguous copies a full pass makes (saturates at INT64_MAX)
  std::int64_t count = 0;   // repeat
  std::int64_t stride = 0;  // repeat, indexed
  LayoutPtr child;          // repeat, indexed
  std::shared_ptr<const std::vector<Run>> runs;          // blocks
  std::shared_ptr<const std::vector<Segment>> segments;  // indexed
  std::shared_ptr<const std::vector<Item>> items;        // list
};

namespace layout {

// Builders. They return nullptr for an empty layout (no data), and accept nullptr children.
LayoutPtr leaf(std::int64_t disp, std::int64_t bytes);
LayoutPtr shifted(const LayoutPtr& node, std::int64_t disp);
LayoutPtr repeat(std::int64_t count, std::int64_t stride, const LayoutPtr& child);
// The nodes one after the other in the packed stream (each at its own displacement).
LayoutPtr sequence(const std::vector<LayoutPtr>& nodes);
// Segments of copies of one child, `stride` apart within a segment ({disp, count} pairs; the
// `start` members are ignored).
LayoutPtr indexed(const LayoutPtr& child, std::int64_t stride, std::vector<Segment> segments);

// Moves bytes [skip, skip + length) of the packed stream of `count` copies of `node`, the k-th
// at origin + k * stride, to (pack) or from (unpack) `packed`. skip + length must not exceed
// count * node.size.
void pack(const Layout& node, std::int64_t count, std::int64_t stride, std::uintptr_t origin,
          std::int64_t skip, std::byte* packed, std::int64_t length);
void unpack(const Layout& node, std::int64_t count, std::int64_t stride, std::uintptr_t origin,
            std::int64_t skip, const std::byte* packed, std::int64_t length);

// Where a walk hands its blocks: fn(context, address, bytes).
struct BlockSink {
  void* context;
  void (*fn)(void* context, std::uintptr_t address, std::int64_t bytes);
};
// The walk of pack() without the copies: sink.fn gets each block of bytes [skip, skip + length)
// of the packed stream, in packed order, as the address where it lies (origin-relative
// addresses when origin is 0: MPI-IO maps a file view this way). Blocks that follow each other
// in memory come as one.
void visit_blocks(const Layout& node, std::int64_t count, std::int64_t stride,
                  std::uintptr_t origin, std::int64_t skip, std::int64_t length,
                  const BlockSink& sink);
// visit_blocks with a callable f(address, bytes).
template <class F>
void for_each_block(const Layout& node, std::int64_t count, std::int64_t stride,
                    std::uintptr_t origin, std::int64_t skip, std::int64_t length, F&& f) {
  BlockSink sink{&f, [](void* context, std::uintptr_t address, std::int64_t bytes) {
                   (*static_cast<std::remove_reference_t<F>*>(context))(address, bytes);
                 }};
  visit_blocks(node, count, stride, origin, skip, length, sink);
}

}  // namespace layout
}  // namespace gpurun::core

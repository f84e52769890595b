// The compiled form: merged blocks, compact loops, large sizes, and the types' lifetime.
#include "runtime/core/datatype_layout.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <cstring>
#include <vector>

#include "runtime/core/datatype_build.h"
#include "tests/core/datatype_test_util.h"

namespace gpurun::core {
namespace {

using testing_util::Typed;
using Kind = Layout::Kind;

TEST(DatatypeLayout, AdjacentBlocksMergeIntoOne) {
  Typed i = testing_util::basic(BasicType::kInt32, 4);
  Typed dense = testing_util::vector(4, 2, 2, i);  // the blocks follow each other
  dense.type->commit();
  EXPECT_TRUE(dense.type->contiguous());
  EXPECT_EQ(dense.type->block_count(), 1);
  Typed d = testing_util::basic(BasicType::kDouble, 8);
  Typed packed_struct = testing_util::structure({2, 1}, {0, 8}, {&i, &d});
  packed_struct.type->commit();
  EXPECT_TRUE(packed_struct.type->contiguous());
  Typed arr = testing_util::contiguous(1000, packed_struct);
  arr.type->commit();
  EXPECT_EQ(arr.type->block_count(), 1);
  EXPECT_EQ(arr.type->layout()->kind, Kind::kLeaf);
  EXPECT_EQ(arr.type->layout()->size, 16000);
}

// The blocks a walk hands out (one-sided operations and file views move one piece each).
std::vector<std::pair<std::uintptr_t, std::int64_t>> visited(const Typed& t, std::int64_t count) {
  std::vector<std::pair<std::uintptr_t, std::int64_t>> out;
  layout::for_each_block(*t.type->layout(), count, t.type->extent(), 0x1000, 0,
                         count * t.type->size(),
                         [&](std::uintptr_t at, std::int64_t n) { out.emplace_back(at, n); });
  return out;
}

TEST(DatatypeLayout, AWalkHandsOutTouchingBlocksAsOne) {
  // 65536 one-byte elements: one block, not 65536 (MPI_Put of 64 KiB of MPI_CHAR did one
  // copy per byte).
  Typed c = testing_util::basic(BasicType::kChar, 1);
  c.type->commit();
  auto blocks = visited(c, 65536);
  ASSERT_EQ(blocks.size(), 1u);
  EXPECT_EQ(blocks[0], std::make_pair(std::uintptr_t{0x1000}, std::int64_t{65536}));
  // A struct's last block ends where the next element's first begins: the walk joins them,
  // while the gap inside each element stays.
  Typed i = testing_util::basic(BasicType::kInt32, 4);
  Typed st = testing_util::structure({1, 1}, {0, 8}, {&i, &i});  // [0,4) [8,12), extent 12
  st.type->commit();
  auto joined = visited(st, 3);
  std::vector<std::pair<std::uintptr_t, std::int64_t>> want = {
      {0x1000, 4}, {0x1008, 8}, {0x1014, 8}, {0x1020, 4}};
  EXPECT_EQ(joined, want);
}

TEST(DatatypeLayout, NonContiguousTypesAreNotContiguous) {
  Typed i = testing_util::basic(BasicType::kInt32, 4);
  Typed padded = testing_util::resized(i, 0, 8);  // one block, but the extent has a gap
  padded.type->commit();
  EXPECT_FALSE(padded.type->contiguous());
  Typed shifted = testing_util::resized(i, -4, 4);  // one block per element, no gap
  shifted.type->commit();
  EXPECT_TRUE(shifted.type->contiguous());
  EXPECT_EQ(shifted.type->true_lb(), 0);
}

// Regular block lists become loops, not lists of a million entries.
TEST(DatatypeLayout, RegularBlocksBecomeALoop) {
  Typed d = testing_util::basic(BasicType::kDouble, 8);
  std::vector<std::int64_t> lengths(100000, 2), disps(100000);
  for (std::size_t k = 0; k < disps.size(); ++k) disps[k] = 5 * static_cast<std::int64_t>(k);
  Typed idx = testing_util::indexed(lengths, disps, d);
  idx.type->commit();
  ASSERT_EQ(idx.type->layout()->kind, Kind::kRepeat);
  EXPECT_EQ(idx.type->layout()->count, 100000);
  EXPECT_EQ(idx.type->layout()->stride, 40);
  EXPECT_EQ(idx.type->layout()->child->kind, Kind::kLeaf);
  EXPECT_EQ(idx.type->block_count(), 100000);
}

TEST(DatatypeLayout, VectorOfStructIsALoopOverItsBlocks) {
  Typed i = testing_util::basic(BasicType::kInt32, 4);
  Typed c = testing_util::basic(BasicType::kChar, 1);
  Typed st = testing_util::structure({1, 1, 1}, {0, 8, 9}, {&i, &c, &c});  // 2 blocks
  Typed v = testing_util::vector(1000, 1, 3, st);
  v.type->commit();
  const Layout* l = v.type->layout();
  ASSERT_EQ(l->kind, Kind::kRepeat);
  EXPECT_EQ(l->count, 1000);
  ASSERT_EQ(l->child->kind, Kind::kBlocks);
  EXPECT_EQ(l->child->runs->size(), 2u);
  EXPECT_EQ(v.type->block_count(), 2000);
}

// An irregular list of blocks of a non-contiguous type keeps one copy of the type's layout and
// a segment per block.
TEST(DatatypeLayout, IrregularBlocksOfAStructShareItsLayout) {
  Typed i = testing_util::basic(BasicType::kInt32, 4);
  Typed c = testing_util::basic(BasicType::kChar, 1);
  Typed st = testing_util::structure({1, 1}, {0, 8}, {&i, &c});  // 2 blocks, extent 12
  st.type->commit();
  std::vector<std::int64_t> lengths, disps;
  for (std::int64_t k = 0; k < 50; ++k) {
    lengths.push_back(1 + k % 3);
    disps.push_back(4 * k + k % 5);
  }
  Typed idx = testing_util::indexed(lengths, disps, st);
  testing_util::check(idx, 2);
  const Layout* l = idx.type->layout();
  ASSERT_EQ(l->kind, Kind::kIndexed);
  EXPECT_EQ(l->segments->size(), 50u);
  EXPECT_EQ(l->child.get(), st.type->layout()) << "the struct's layout is shared";
  EXPECT_EQ(l->stride, 12);
}

// Sizes beyond 2^32: every copy of an hvector of stride 0 reads one double, so the packed
// stream is long but the memory small.
TEST(DatatypeLayout, StreamsBeyondFourGigabytes) {
  Typed d = testing_util::basic(BasicType::kDouble, 8);
  const std::int64_t copies = std::int64_t{1} << 30;
  DatatypeRef big = testing_util::ok(make_hvector(copies, 1, 0, *d.type));
  DatatypeRef three = testing_util::ok(make_contiguous(3, *big));
  three->commit();
  EXPECT_EQ(three->size(), 3 * 8 * copies);
  EXPECT_EQ(three->count_elements(static_cast<std::uint64_t>(3 * 8 * copies)), 3 * copies);
  EXPECT_EQ(three->extent(), 24);
  char memory[48];  // two elements of `three`: six doubles
  for (int k = 0; k < 6; ++k) {
    char name[16];
    std::snprintf(name, sizeof name, "double%d_", k);
    std::memcpy(memory + 8 * k, name, 8);
  }
  unsigned char out[32];
  std::size_t offset = static_cast<std::size_t>(3 * 8 * copies - 12);
  ASSERT_EQ(three->pack(memory, 1, offset, out, sizeof out), 12u);
  EXPECT_EQ(std::memcmp(out, "le2_double2_", 12), 0);     // the third double, twice
  offset = static_cast<std::size_t>(4 * 8 * copies) + 3;  // second element, second double
  EXPECT_EQ(three->pack(memory, 2, offset, out, 5), 5u);
  EXPECT_EQ(std::memcmp(out, "ble4_", 5), 0);
}

// A type lives while something refers to it: the handle, or a type built from it.
TEST(DatatypeLayout, TypesLiveWhileReferenced) {
  const std::int64_t before = Datatype::live();
  {
    DatatypeRef parent;
    {
      Typed i = testing_util::basic(BasicType::kInt32, 4);
      Typed v = testing_util::vector(3, 1, 2, i);
      parent = testing_util::ok(make_contiguous(2, *v.type));
      EXPECT_EQ(Datatype::live(), before + 3);
    }
    EXPECT_EQ(Datatype::live(), before + 3) << "the parent keeps its children";
    parent->commit();
    int data[12] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11};
    int out[6];
    ASSERT_EQ(parent->pack(data, 1, 0, out, sizeof out), sizeof out);
    EXPECT_EQ(out[5], 9);  // the second element starts at extent 5 ints
    const Datatype* raw = parent.get();
    raw->retain();  // an operation in flight
    parent = DatatypeRef();
    EXPECT_EQ(Datatype::live(), before + 3);
    raw->release();
  }
  EXPECT_EQ(Datatype::live(), before);
}

TEST(DatatypeLayout, BadArgumentsAreRefused) {
  Typed i = testing_util::basic(BasicType::kInt32, 4);
  EXPECT_FALSE(make_contiguous(-1, *i.type).ok());
  EXPECT_FALSE(make_vector(2, -1, 1, *i.type).ok());
  const std::int64_t lengths[] = {1, 2}, disps[] = {0};
  EXPECT_FALSE(make_hindexed(lengths, disps, *i.type).ok());
  EXPECT_FALSE(make_contiguous(std::int64_t{1} << 62, *i.type).ok()) << "size overflows";
}

}  // namespace
}  // namespace gpurun::core

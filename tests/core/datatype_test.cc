// The datatype engine against the reference type maps of datatype_reference.h: bounds, sizes,
// element counts, and pack/unpack of whole buffers, random byte ranges and fragment sequences.
#include "runtime/core/datatype.h"

#include <gtest/gtest.h>

#include <random>
#include <set>

#include "runtime/core/datatype_build.h"
#include "tests/core/datatype_test_util.h"

namespace gpurun::core {
namespace {

using testing_util::Typed;

TEST(Datatype, PredefinedBasic) {
  Typed t = testing_util::basic(BasicType::kInt32, 4);
  EXPECT_EQ(t.type->size(), 4);
  EXPECT_EQ(t.type->extent(), 4);
  EXPECT_TRUE(t.type->contiguous());
  EXPECT_TRUE(t.type->committed());
  EXPECT_TRUE(t.type->predefined());
  EXPECT_EQ(t.type->basic(), BasicType::kInt32);
  EXPECT_EQ(t.type->count_elements(12), 3);
  EXPECT_EQ(t.type->count_elements(13), -1);
  testing_util::check(t, 5);
}

// The value-and-index pairs are laid out as C lays out their structs.
TEST(Datatype, PairTypesArePaddedLikeCStructs) {
  struct Case {
    BasicType value;
    std::int64_t first, second_disp, size, extent;
  };
  for (Case c :
       {Case{BasicType::kFloat, 4, 4, 8, 8}, Case{BasicType::kDouble, 8, 8, 12, 16},
        Case{BasicType::kInt16, 2, 4, 6, 8}, Case{BasicType::kLongDouble, 16, 16, 20, 32}}) {
    Typed first = testing_util::basic(c.value, c.first);
    Typed second = testing_util::basic(BasicType::kInt32, 4);
    Typed pair = testing_util::structure({1, 1}, {0, c.second_disp}, {&first, &second});
    EXPECT_EQ(pair.type->size(), c.size);
    EXPECT_EQ(pair.type->extent(), c.extent) << "first member of " << c.first << " bytes";
    EXPECT_EQ(pair.type->count_elements(c.first), 1);
    EXPECT_EQ(pair.type->count_elements(c.size), 2);
    EXPECT_EQ(pair.type->count_elements(c.first + 1), -1);
    testing_util::check(pair, 7);
  }
}

TEST(Datatype, EmptyTypesMoveNothing) {
  Typed i = testing_util::basic(BasicType::kInt32, 4);
  Typed empty = testing_util::contiguous(0, i);
  EXPECT_EQ(empty.type->size(), 0);
  EXPECT_EQ(empty.type->extent(), 0);
  EXPECT_TRUE(empty.type->contiguous());
  char buf[4];
  EXPECT_EQ(empty.type->pack(buf, 10, 0, buf, 4), 0u);
  EXPECT_EQ(empty.type->count_elements(0), 0);
  Typed holes = testing_util::indexed({0, 2, 0}, {4, 1, 9}, i);
  EXPECT_EQ(holes.type->size(), 8);
  testing_util::check(holes, 3);
}

TEST(Datatype, VectorsAndHvectors) {
  Typed d = testing_util::basic(BasicType::kDouble, 8);
  testing_util::check(testing_util::vector(5, 2, 3, d), 4);
  testing_util::check(testing_util::vector(4, 3, -5, d), 3);   // negative stride
  testing_util::check(testing_util::hvector(3, 2, 20, d), 2);  // stride not a multiple
  testing_util::check(testing_util::hvector(6, 1, 0, d), 2);   // every copy at one place
  Typed v = testing_util::vector(3, 1, 2, d);
  testing_util::check(testing_util::vector(2, 2, 3, v), 3);  // vector of vector
}

TEST(Datatype, IndexedFamilies) {
  Typed s = testing_util::basic(BasicType::kInt16, 2);
  testing_util::check(testing_util::indexed({3, 1, 2, 4}, {0, 5, -3, 12}, s), 3);
  testing_util::check(testing_util::hindexed({2, 2, 1}, {7, -5, 30}, s), 2);
  testing_util::check(testing_util::indexed({2, 2, 2, 2}, {0, 4, 8, 12}, s), 4);  // regular
  Typed c = testing_util::basic(BasicType::kChar, 1);
  testing_util::check(testing_util::indexed({1, 1, 1}, {2, 0, 1}, c), 5);  // out of order
}

TEST(Datatype, NestedVectorOfStructOfIndexed) {
  Typed i = testing_util::basic(BasicType::kInt32, 4);
  Typed d = testing_util::basic(BasicType::kDouble, 8);
  Typed c = testing_util::basic(BasicType::kChar, 1);
  Typed idx = testing_util::indexed({2, 1, 3}, {0, 3, 6}, i);
  Typed st = testing_util::structure({1, 2, 3}, {0, 40, 60}, {&idx, &d, &c});
  EXPECT_EQ(st.type->extent(), 64);  // 63 padded to the doubles' alignment
  Typed vec = testing_util::vector(3, 2, 3, st);
  testing_util::check(vec, 2);
  testing_util::check(testing_util::contiguous(2, vec), 2);
  EXPECT_EQ(vec.type->basic(), BasicType::kNone);
  EXPECT_EQ(idx.type->basic(), BasicType::kInt32);
}

TEST(Datatype, ResizedWithNegativeLowerBound) {
  Typed i = testing_util::basic(BasicType::kInt32, 4);
  Typed v = testing_util::vector(2, 1, 3, i);
  Typed r = testing_util::resized(v, -8, 24);
  EXPECT_EQ(r.type->lb(), -8);
  EXPECT_EQ(r.type->extent(), 24);
  EXPECT_EQ(r.type->true_lb(), 0);
  EXPECT_EQ(r.type->true_extent(), 16);
  testing_util::check(r, 5);
  Typed shrunk = testing_util::resized(i, 0, 2);  // elements overlap
  testing_util::check(shrunk, 4, /*unpack=*/false);
}

// Explicit bounds override the data's in every type built on them (MPI's lb/ub markers).
TEST(Datatype, ExplicitBoundsAreSticky) {
  Typed c = testing_util::basic(BasicType::kChar, 1);
  Typed d = testing_util::basic(BasicType::kDouble, 8);
  Typed r = testing_util::resized(c, 0, 3);
  Typed st = testing_util::structure({1, 1}, {0, 8}, {&r, &d});
  EXPECT_EQ(st.type->lb(), 0);
  EXPECT_EQ(st.type->extent(), 3);
  Typed st2 = testing_util::structure({1, 1}, {8, 0}, {&r, &d});
  EXPECT_EQ(st2.type->lb(), 8);
  EXPECT_EQ(st2.type->extent(), 3);
  testing_util::check(st2, 2, false);
  DatatypeRef ub = make_bound_marker(true, "MPI_UB");
  const Datatype* types[] = {d.type.get(), ub.get()};
  const std::int64_t lengths[] = {1, 1}, disps[] = {0, 24};
  DatatypeRef padded = std::move(make_struct(lengths, disps, types).value());
  EXPECT_EQ(padded->extent(), 24);
  EXPECT_EQ(padded->size(), 8);
  EXPECT_EQ(padded->basic(), BasicType::kDouble);
}

TEST(Datatype, Subarrays) {
  Typed f = testing_util::basic(BasicType::kFloat, 4);
  for (bool fortran : {false, true}) {
    Typed s = testing_util::subarray({5, 4, 6}, {2, 3, 4}, {1, 0, 2}, fortran, f);
    EXPECT_EQ(s.type->lb(), 0);
    EXPECT_EQ(s.type->extent(), 5 * 4 * 6 * 4);
    EXPECT_EQ(s.type->size(), 2 * 3 * 4 * 4);
    testing_util::check(s, 2);
  }
  Typed whole = testing_util::subarray({3, 4}, {3, 4}, {0, 0}, false, f);
  EXPECT_TRUE(whole.type->contiguous());
}

// Every element of the global array belongs to exactly one rank, and each rank's type is the
// reference's.
TEST(Datatype, DarraysPartitionTheArray) {
  Typed d = testing_util::basic(BasicType::kDouble, 8);
  struct Case {
    std::vector<std::int64_t> gsizes;
    std::vector<Distribution> distribs;
    std::vector<std::int64_t> dargs, psizes;
  };
  const auto B = Distribution::kBlock, C = Distribution::kCyclic, N = Distribution::kNone;
  const Case cases[] = {
      {{10, 7}, {B, C}, {kDefaultDarg, 2}, {3, 2}},
      {{9, 8, 5}, {C, N, B}, {kDefaultDarg, kDefaultDarg, 2}, {2, 1, 3}},
      {{13}, {C}, {3}, {4}},
      {{6, 6}, {B, B}, {4, kDefaultDarg}, {2, 2}},
  };
  for (const Case& c : cases) {
    for (bool fortran : {false, true}) {
      std::int64_t size = 1, total = 1;
      for (std::int64_t p : c.psizes) size *= p;
      for (std::int64_t g : c.gsizes) total *= g;
      std::multiset<std::int64_t> seen;
      for (std::int64_t rank = 0; rank < size; ++rank) {
        Typed t =
            testing_util::darray(size, rank, c.gsizes, c.distribs, c.dargs, c.psizes, fortran, d);
        EXPECT_EQ(t.type->extent(), total * 8);
        testing_util::check(t, 2);
        for (const reference::Elem& e : t.ref.map) seen.insert(e.disp);
      }
      ASSERT_EQ(static_cast<std::int64_t>(seen.size()), total);
      EXPECT_EQ(std::set<std::int64_t>(seen.begin(), seen.end()).size(), seen.size());
    }
  }
}

TEST(Datatype, CountElementsOfMixedStruct) {
  Typed i = testing_util::basic(BasicType::kInt32, 4);
  Typed d = testing_util::basic(BasicType::kDouble, 8);
  Typed c = testing_util::basic(BasicType::kChar, 1);
  Typed st = testing_util::structure({1, 1, 2}, {0, 8, 16}, {&i, &d, &c});
  Typed v = testing_util::vector(3, 1, 2, st);
  st.type->commit();
  v.type->commit();
  for (std::int64_t bytes = 0; bytes <= 3 * v.type->size(); ++bytes) {
    EXPECT_EQ(v.type->count_elements(bytes), reference::count_elements(v.ref, bytes))
        << bytes << " bytes";
  }
  EXPECT_EQ(st.type->count_elements(13), 3);
  EXPECT_EQ(st.type->count_elements(5), -1);
  EXPECT_EQ(st.type->elements(), 4);
  for (std::int64_t n = 0; n <= 3 * 2 * 4; ++n) {
    std::int64_t bytes = v.type->bytes_of_elements(n);
    EXPECT_EQ(reference::count_elements(v.ref, bytes), n) << n << " elements in " << bytes;
    EXPECT_EQ(v.type->count_elements(static_cast<std::uint64_t>(bytes)), n);
  }
  EXPECT_EQ(st.type->bytes_of_elements(3), 13);
}

// Random nests of every constructor against the reference.
TEST(Datatype, RandomTypesMatchTheReference) {
  std::mt19937 rng(2024);
  for (int n = 0; n < 300; ++n) {
    Typed t = testing_util::random_type(rng, 3);
    SCOPED_TRACE(testing::Message() << "random type " << n);
    testing_util::check(t, 1 + static_cast<std::int64_t>(rng() % 3), t.ref.size() > 0);
  }
}

}  // namespace
}  // namespace gpurun::core

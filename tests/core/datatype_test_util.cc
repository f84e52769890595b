#include "tests/core/datatype_test_util.h"

#include <algorithm>
#include <cstring>

namespace gpurun::core::testing_util {

Typed subarray(const std::vector<std::int64_t>& sizes, const std::vector<std::int64_t>& subsizes,
               const std::vector<std::int64_t>& starts, bool fortran, const Typed& old) {
  SubarrayArgs args{sizes, subsizes, starts, fortran ? Order::kFortran : Order::kC};
  auto take = [&](const std::vector<std::int64_t>& idx) {
    for (std::size_t d = 0; d < idx.size(); ++d)
      if (idx[d] < starts[d] || idx[d] >= starts[d] + subsizes[d]) return false;
    return true;
  };
  return {ok(make_subarray(args, *old.type)), reference::array_of(sizes, old.ref, fortran, take)};
}

Typed darray(std::int64_t size, std::int64_t rank, const std::vector<std::int64_t>& gsizes,
             const std::vector<Distribution>& distribs, const std::vector<std::int64_t>& dargs,
             const std::vector<std::int64_t>& psizes, bool fortran, const Typed& old) {
  DarrayArgs args{
      size, rank, gsizes, distribs, dargs, psizes, fortran ? Order::kFortran : Order::kC};
  std::vector<std::int64_t> coords(gsizes.size());
  for (std::size_t i = gsizes.size(), r = static_cast<std::size_t>(rank); i-- > 0;) {
    coords[i] = static_cast<std::int64_t>(r) % psizes[i];
    r /= static_cast<std::size_t>(psizes[i]);
  }
  // The owner of each global index, from the definitions of the distributions.
  auto take = [&](const std::vector<std::int64_t>& idx) {
    for (std::size_t d = 0; d < idx.size(); ++d) {
      std::int64_t g = gsizes[d], p = psizes[d], owner = 0;
      if (distribs[d] == Distribution::kBlock) {
        owner = idx[d] / (dargs[d] == kDefaultDarg ? (g + p - 1) / p : dargs[d]);
      } else if (distribs[d] == Distribution::kCyclic) {
        owner = (idx[d] / (dargs[d] == kDefaultDarg ? 1 : dargs[d])) % p;
      }
      if (owner != coords[d]) return false;
    }
    return true;
  };
  return {ok(make_darray(args, *old.type)), reference::array_of(gsizes, old.ref, fortran, take)};
}

namespace {

std::int64_t pick(std::mt19937& rng, std::int64_t lo, std::int64_t hi) {
  return lo + static_cast<std::int64_t>(rng() % static_cast<std::uint32_t>(hi - lo + 1));
}

std::vector<std::int64_t> picks(std::mt19937& rng, std::size_t n, std::int64_t lo,
                                std::int64_t hi) {
  std::vector<std::int64_t> v(n);
  for (auto& x : v) x = pick(rng, lo, hi);
  return v;
}

Typed random_basic(std::mt19937& rng) {
  switch (rng() % 5) {
    case 0:
      return basic(BasicType::kChar, 1);
    case 1:
      return basic(BasicType::kInt16, 2);
    case 2:
      return basic(BasicType::kInt32, 4);
    case 3:
      return basic(BasicType::kDouble, 8);
    default:
      return basic(BasicType::kLongDouble, 16);
  }
}

Typed random_struct(std::mt19937& rng, int depth) {
  std::size_t n = static_cast<std::size_t>(pick(rng, 1, 3));
  std::vector<Typed> members;
  for (std::size_t i = 0; i < n; ++i) members.push_back(random_type(rng, depth - 1));
  std::vector<const Typed*> types;
  for (const Typed& m : members) types.push_back(&m);
  return structure(picks(rng, n, 0, 3), picks(rng, n, -40, 120), types);
}

}  // namespace

Typed random_type(std::mt19937& rng, int depth) {
  if (depth == 0 || rng() % 5 == 0) return random_basic(rng);
  Typed old = random_type(rng, depth - 1);
  std::int64_t ext = std::max<std::int64_t>(1, old.ref.extent());
  std::size_t n = static_cast<std::size_t>(pick(rng, 1, 4));
  switch (rng() % 9) {
    case 0:
      return contiguous(pick(rng, 0, 4), old);
    case 1:
      return vector(pick(rng, 1, 4), pick(rng, 0, 3), pick(rng, -4, 5), old);
    case 2:
      return hvector(pick(rng, 1, 4), pick(rng, 1, 3), pick(rng, -3 * ext, 5 * ext), old);
    case 3:
      return indexed(picks(rng, n, 0, 3), picks(rng, n, -4, 8), old);
    case 4:
      return hindexed(picks(rng, n, 0, 3), picks(rng, n, -4 * ext, 8 * ext), old);
    case 5:
      return hindexed_block(pick(rng, 1, 3), picks(rng, n, -4 * ext, 8 * ext), old);
    case 6:
      return random_struct(rng, depth);
    case 7:
      return resized(old, pick(rng, -ext, ext), pick(rng, 1, 3 * ext));
    default: {
      std::vector<std::int64_t> sizes = picks(rng, n % 3 + 1, 1, 4), sub, start;
      for (std::int64_t s : sizes) {
        sub.push_back(pick(rng, 1, s));
        start.push_back(pick(rng, 0, s - sub.back()));
      }
      return subarray(sizes, sub, start, rng() % 2 == 0, old);
    }
  }
}

namespace {

// The bytes that `count` elements touch: [lo, hi) relative to the buffer's origin.
void span_of(const reference::Ref& ref, std::int64_t count, std::int64_t* lo, std::int64_t* hi) {
  *lo = ref.map[0].disp;
  *hi = *lo;
  for (std::int64_t k = 0; k < count; ++k)
    for (const reference::Elem& e : ref.map) {
      *lo = std::min(*lo, k * ref.extent() + e.disp);
      *hi = std::max(*hi, k * ref.extent() + e.disp + e.size);
    }
}

void check_pack(const Datatype& type, std::int64_t count, const std::uint8_t* origin,
                const std::vector<std::uint8_t>& want, std::mt19937& rng) {
  const std::size_t total = want.size();
  std::vector<std::uint8_t> got(total + 8, 0xcd);
  ASSERT_EQ(type.pack(origin, count, 0, got.data(), total + 8), total);
  EXPECT_TRUE(std::equal(want.begin(), want.end(), got.begin())) << "whole buffer";
  EXPECT_EQ(got[total], 0xcd) << "packed past the end";
  for (int i = 0; i < 40; ++i) {
    std::size_t offset = rng() % total, length = 1 + rng() % (total - offset + 3);
    std::size_t n = type.pack(origin, count, offset, got.data(), length);
    ASSERT_EQ(n, std::min(length, total - offset));
    ASSERT_EQ(std::memcmp(got.data(), want.data() + offset, n), 0)
        << "range [" << offset << ", +" << length << ")";
  }
  for (std::size_t offset = 0; offset < total;) {
    std::size_t length = 1 + rng() % std::max<std::size_t>(1, total / 5);
    std::size_t n = type.pack(origin, count, offset, got.data(), length);
    ASSERT_EQ(std::memcmp(got.data(), want.data() + offset, n), 0) << "fragment at " << offset;
    offset += n;
  }
}

}  // namespace

void check(const Typed& t, std::int64_t count, bool unpack) {
  t.type->commit();
  const Datatype& type = *t.type;
  const reference::Ref& ref = t.ref;
  EXPECT_EQ(type.size(), ref.size());
  EXPECT_EQ(type.lb(), ref.lb);
  EXPECT_EQ(type.extent(), ref.extent());
  EXPECT_EQ(type.elements(), static_cast<std::int64_t>(ref.map.size()));
  if (ref.map.empty()) return;
  EXPECT_EQ(type.true_lb(), ref.true_lb());
  EXPECT_EQ(type.true_extent(), ref.true_ub() - ref.true_lb());
  std::int64_t lo, hi;
  span_of(ref, count, &lo, &hi);
  std::vector<std::uint8_t> memory(static_cast<std::size_t>(hi - lo + 64));
  for (std::size_t i = 0; i < memory.size(); ++i)
    memory[i] = static_cast<std::uint8_t>(i * 131 + 17);
  const std::uint8_t* origin = memory.data() + 32 - lo;
  std::vector<std::uint8_t> want = reference::pack(ref, count, origin);
  ASSERT_EQ(static_cast<std::int64_t>(want.size()), count * type.size());
  std::mt19937 rng(static_cast<std::uint32_t>(want.size()));
  check_pack(type, count, origin, want, rng);
  for (std::int64_t bytes = 0; bytes <= std::min<std::int64_t>(count * type.size(), 300); ++bytes) {
    std::int64_t n = type.count_elements(static_cast<std::uint64_t>(bytes));
    ASSERT_EQ(n, reference::count_elements(ref, bytes)) << "elements in " << bytes << " bytes";
    if (n >= 0) {
      ASSERT_EQ(type.bytes_of_elements(n), bytes) << "bytes of " << n << " elements";
    }
  }
  if (!unpack) return;
  std::vector<std::uint8_t> expect(memory.size(), 0xee), actual(memory.size(), 0xee);
  reference::unpack(ref, count, expect.data() + 32 - lo, want);
  for (std::size_t offset = 0; offset < want.size();) {
    std::size_t length = 1 + rng() % std::max<std::size_t>(1, want.size() / 3);
    offset += type.unpack(actual.data() + 32 - lo, count, offset, want.data() + offset, length);
  }
  EXPECT_EQ(expect, actual) << "unpacked in fragments";
}

}  // namespace gpurun::core::testing_util

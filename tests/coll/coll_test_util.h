// Buffers for the algorithm conformance tests: int32 data in one of two layouts (plain
// MPI_INT, or a vector type of 2 ints with a gap between them, whose gaps must survive every
// collective), filled with values that tell rank and position apart, and read back as the
// logical sequence of ints.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "coll/algorithm.h"
#include "runtime/core/datatype.h"
#include "runtime/core/datatype_build.h"

namespace gpurun::coll::testing_util {

constexpr int kGap = -999;    // never a value: gaps and untouched elements hold it
constexpr int kUnset = -555;  // receive buffers start with it

struct Layout {
  std::string name;
  const core::Datatype* type = nullptr;
  int units = 1;          // int32s of storage per element (extent / 4)
  std::vector<int> data;  // which of them hold data, in type-map order
  int ints() const { return static_cast<int>(data.size()); }
};

inline const Layout& plain_ints() {
  static auto* type =
      new core::DatatypeRef(core::Datatype::predefined(core::BasicType::kInt32, 4, "MPI_INT"));
  static const Layout layout{"int", type->get(), 1, {0}};
  return layout;
}

// MPI_Type_vector(2, 1, 2, MPI_INT): ints at 0 and 8, extent 12.
inline const Layout& gapped_ints() {
  static auto* type = [] {
    auto t = core::make_vector(2, 1, 2, *plain_ints().type);
    EXPECT_TRUE(t.ok());
    t.value()->commit();
    return new core::DatatypeRef(std::move(t).value());
  }();
  static const Layout layout{"vector", type->get(), 3, {0, 2}};
  return layout;
}

// The value of logical int `i` of rank `r`'s data.
inline int value(int r, std::int64_t i) { return r * 100000 + static_cast<int>(i % 99991) * 3 + 1; }

// A buffer of `count` elements of a layout: storage with gaps and a view as logical ints.
struct Data {
  const Layout* layout = nullptr;
  std::vector<int> storage;

  Data() = default;
  Data(const Layout& l, std::int64_t count, int fill = kUnset)
      : layout(&l), storage(static_cast<std::size_t>(count * l.units), kGap) {
    for (std::int64_t i = 0; i < count * l.ints(); ++i) at(i) = fill;
  }
  std::int64_t count() const { return static_cast<std::int64_t>(storage.size()) / layout->units; }
  std::int64_t ints() const { return count() * layout->ints(); }
  int& at(std::int64_t i) {
    return storage[static_cast<std::size_t>((i / layout->ints()) * layout->units +
                                            layout->data[i % layout->ints()])];
  }
  int at(std::int64_t i) const { return const_cast<Data*>(this)->at(i); }
  void* base() { return storage.data(); }
  // Logical ints [first, first + n) set to value(r, first_value + k).
  void fill(int r, std::int64_t first, std::int64_t n, std::int64_t first_value) {
    for (std::int64_t k = 0; k < n; ++k) at(first + k) = value(r, first_value + k);
  }
  // Whether every gap still holds kGap.
  bool gaps_intact() const {
    for (std::size_t s = 0; s < storage.size(); ++s) {
      bool is_data = false;
      for (int d : layout->data) is_data |= static_cast<int>(s % layout->units) == d;
      if (!is_data && storage[s] != kGap) return false;
    }
    return true;
  }
};

// Compares logical ints [first, first + expected.size()) of `d` with `expected`; reports the
// first difference.
inline ::testing::AssertionResult same(const Data& d, std::int64_t first,
                                       const std::vector<int>& expected) {
  for (std::size_t k = 0; k < expected.size(); ++k) {
    if (d.at(first + static_cast<std::int64_t>(k)) != expected[k]) {
      return ::testing::AssertionFailure()
             << "int " << first + static_cast<std::int64_t>(k) << " is "
             << d.at(first + static_cast<std::int64_t>(k)) << ", expected " << expected[k];
    }
  }
  if (!d.gaps_intact()) return ::testing::AssertionFailure() << "a gap was written";
  return ::testing::AssertionSuccess();
}

// Every algorithm registered for `collective`, by name.
inline std::vector<std::string> algorithms_of(Collective collective) {
  std::vector<std::string> names;
  for (const Algorithm* a : Registry::of(collective)) names.emplace_back(a->name);
  return names;
}

}  // namespace gpurun::coll::testing_util

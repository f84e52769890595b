// Predefined datatypes for the op tests, built as the API layer builds them (one basic element,
// or the value-and-index pairs as C structs), and a check that an apply succeeded.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <string>

#include "runtime/core/datatype.h"
#include "runtime/core/datatype_build.h"
#include "runtime/core/op.h"

// Whether the compiler has _Float16 arithmetic to serve as the half-precision reference (GCC 12
// on x86-64; clang before 15 defines __FLT16_MAX__ but refuses the type there).
#if defined(__FLT16_MAX__) && !(defined(__clang__) && __clang_major__ < 15)
#define GPURUN_TEST_HAVE_FLOAT16 1
#else
#define GPURUN_TEST_HAVE_FLOAT16 0
#endif

namespace gpurun::core::op_test {

inline DatatypeRef predefined(BasicType basic, std::int64_t size, const std::string& name) {
  return Datatype::predefined(basic, size, name);
}

// A pair type: `value` at 0 and `index` at `index_disp`, padded like the C struct.
inline DatatypeRef pair(BasicType basic, const Datatype& value, const Datatype& index,
                        std::int64_t index_disp, const std::string& name) {
  const std::int64_t lengths[] = {1, 1};
  const std::int64_t disps[] = {0, index_disp};
  const Datatype* types[] = {&value, &index};
  Result<DatatypeRef> t = make_struct(lengths, disps, types);
  EXPECT_TRUE(t.ok());
  DatatypeRef r = std::move(t).value();
  r->mark_predefined(basic, name);
  return r;
}

inline DatatypeRef committed(Result<DatatypeRef> r) {
  EXPECT_TRUE(r.ok()) << r.status().to_string();
  if (!r.ok()) return {};
  DatatypeRef t = std::move(r).value();
  t->commit();
  return t;
}

inline ::testing::AssertionResult applied(const Op& op, const void* in, void* inout,
                                          std::int64_t count, const Datatype& type) {
  Status s = op.apply(in, inout, count, type);
  if (s.ok()) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure()
         << op.name() << " on " << type.name() << ": " << s.to_string();
}

}  // namespace gpurun::core::op_test

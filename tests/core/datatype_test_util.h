// Builds each test type twice, with the engine and with the reference, and checks that they
// agree: bounds, size, element counts, pack and unpack of whole buffers, random byte ranges
// and sequences of fragments.
#pragma once

#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "runtime/core/datatype.h"
#include "runtime/core/datatype_build.h"
#include "tests/core/datatype_reference.h"

namespace gpurun::core::testing_util {

struct Typed {
  DatatypeRef type;
  reference::Ref ref;
};

inline DatatypeRef ok(Result<DatatypeRef> r) {
  EXPECT_TRUE(r.ok()) << r.status().to_string();
  return r.ok() ? std::move(r).value() : DatatypeRef();
}

inline Typed basic(BasicType b, std::int64_t size, std::int64_t align = 0) {
  return {Datatype::predefined(b, size, "basic"), reference::basic(size, align ? align : size)};
}
inline Typed contiguous(std::int64_t n, const Typed& old) {
  return {ok(make_contiguous(n, *old.type)), reference::contiguous(n, old.ref)};
}
inline Typed vector(std::int64_t n, std::int64_t bl, std::int64_t stride, const Typed& old) {
  return {ok(make_vector(n, bl, stride, *old.type)), reference::vector(n, bl, stride, old.ref)};
}
inline Typed hvector(std::int64_t n, std::int64_t bl, std::int64_t stride, const Typed& old) {
  return {ok(make_hvector(n, bl, stride, *old.type)), reference::hvector(n, bl, stride, old.ref)};
}
inline Typed indexed(const std::vector<std::int64_t>& bls, const std::vector<std::int64_t>& disps,
                     const Typed& old) {
  std::vector<std::int64_t> bytes;
  for (std::int64_t d : disps) bytes.push_back(d * old.ref.extent());
  return {ok(make_indexed(bls, disps, *old.type)), reference::hindexed(bls, bytes, old.ref)};
}
inline Typed hindexed(const std::vector<std::int64_t>& bls, const std::vector<std::int64_t>& disps,
                      const Typed& old) {
  return {ok(make_hindexed(bls, disps, *old.type)), reference::hindexed(bls, disps, old.ref)};
}
inline Typed hindexed_block(std::int64_t bl, const std::vector<std::int64_t>& disps,
                            const Typed& old) {
  std::vector<std::int64_t> bls(disps.size(), bl);
  return {ok(make_hindexed_block(bl, disps, *old.type)), reference::hindexed(bls, disps, old.ref)};
}
inline Typed structure(const std::vector<std::int64_t>& bls, const std::vector<std::int64_t>& disps,
                       const std::vector<const Typed*>& types) {
  std::vector<const Datatype*> t;
  std::vector<const reference::Ref*> r;
  for (const Typed* x : types) {
    t.push_back(x->type.get());
    r.push_back(&x->ref);
  }
  return {ok(make_struct(bls, disps, t)), reference::structure(bls, disps, r)};
}
inline Typed resized(const Typed& old, std::int64_t lb, std::int64_t extent) {
  return {ok(make_resized(*old.type, lb, extent)), reference::resized(old.ref, lb, extent)};
}

Typed subarray(const std::vector<std::int64_t>& sizes, const std::vector<std::int64_t>& subsizes,
               const std::vector<std::int64_t>& starts, bool fortran, const Typed& old);
Typed darray(std::int64_t size, std::int64_t rank, const std::vector<std::int64_t>& gsizes,
             const std::vector<Distribution>& distribs, const std::vector<std::int64_t>& dargs,
             const std::vector<std::int64_t>& psizes, bool fortran, const Typed& old);

// A random nest of constructors, `depth` levels deep at most.
Typed random_type(std::mt19937& rng, int depth);

// Commits `t` and checks it against its reference with `count` elements.
void check(const Typed& t, std::int64_t count, bool unpack = true);

}  // namespace gpurun::core::testing_util

// The cost of one reduction on one core: core::Op::apply on `bytes` of data already in cache
// (sizes that fit) or in memory (larger), against memcpy of the same buffer as the yardstick.
// Reports GB/s counting what the loop must move: read in + read inout + write inout.
//
// Usage: op_reduce [bytes...]   (default 8 64K 1M 16M)
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "runtime/base/clock.h"
#include "runtime/core/datatype.h"
#include "runtime/core/datatype_build.h"
#include "runtime/core/op.h"

using namespace gpurun;  // NOLINT(google-build-using-namespace): a small program

namespace {

// Repeats `fn` until ~0.2 s have passed; returns ns per call (best of 5 rounds).
template <class Fn>
double time_ns(Fn&& fn) {
  double best = 1e30;
  for (int round = 0; round < 5; ++round) {
    long reps = 0;
    std::int64_t t0 = clock::now_ns(), t1;
    do {
      for (int i = 0; i < 16; ++i) fn();
      reps += 16;
      t1 = clock::now_ns();
    } while (t1 - t0 < 40'000'000);
    best = std::min(best, static_cast<double>(t1 - t0) / static_cast<double>(reps));
  }
  return best;
}

void report(const char* what, std::size_t bytes, double ns, double moved) {
  std::printf("%-28s %9zu B  %10.1f ns  %7.1f GB/s\n", what, bytes, ns, moved / ns);
}

void run(std::size_t bytes) {
  std::vector<char> in(bytes + 64), inout(bytes + 64), dst(bytes + 64);
  std::memset(in.data(), 0, in.size());
  std::memset(inout.data(), 0, inout.size());
  auto dbl = core::Datatype::predefined(core::BasicType::kDouble, 8, "MPI_DOUBLE");
  auto flt = core::Datatype::predefined(core::BasicType::kFloat, 4, "MPI_FLOAT");
  auto i32 = core::Datatype::predefined(core::BasicType::kInt32, 4, "MPI_INT");
  auto f16 = core::Datatype::predefined(core::BasicType::kFloat16, 2, "MPIX_C_FLOAT16");
  auto vec = std::move(core::make_vector(static_cast<std::int64_t>(bytes / 16), 1, 2, *dbl)).value();
  vec->commit();
  const core::Op& sum = core::Op::predefined(core::OpKind::kSum);
  const core::Op& max = core::Op::predefined(core::OpKind::kMax);
  double moved = 3.0 * static_cast<double>(bytes);
  report("memcpy (read + write)", bytes,
         time_ns([&] { std::memcpy(dst.data(), in.data(), bytes); asm volatile("" ::: "memory"); }),
         2.0 * static_cast<double>(bytes));
  auto apply = [&](const core::Op& op, const core::Datatype& t, std::int64_t count) {
    return time_ns([&] { (void)op.apply(in.data(), inout.data(), count, t); });
  };
  report("MPI_SUM double", bytes, apply(sum, *dbl, bytes / 8), moved);
  report("MPI_SUM float", bytes, apply(sum, *flt, bytes / 4), moved);
  report("MPI_MAX int", bytes, apply(max, *i32, bytes / 4), moved);
  report("MPI_SUM float16", bytes, apply(sum, *f16, bytes / 2), moved);
  if (bytes >= 16) report("MPI_SUM vector(stride 2) dbl", bytes, apply(sum, *vec, 1), moved / 2);
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::size_t> sizes = {8, 64 << 10, 1 << 20, 16 << 20};
  if (argc > 1) {
    sizes.clear();
    for (int i = 1; i < argc; ++i) sizes.push_back(std::strtoul(argv[i], nullptr, 10));
  }
  for (std::size_t s : sizes) run(s);
  return 0;
}

// Ranks as threads for the shared-memory collective tests: one segment in ordinary memory, laid
// out and initialised as a communicator's rank 0 does it, and an Arena per rank over it; the
// algorithms run the same code as over a shared memfd between processes.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <functional>
#include <memory>
#include <random>
#include <thread>
#include <vector>

#include "coll/shm/algorithms.h"
#include "coll/shm/arena.h"
#include "coll/shm/layout.h"
#include "runtime/core/communicator.h"
#include "runtime/core/datatype.h"
#include "runtime/core/datatype_build.h"
#include "runtime/core/group.h"

namespace gpurun::coll::shm::testing {

// The arenas start without a segment, as a communicator's do: operations made before the
// segment exists must size themselves once it does. Each rank maps it with ready().
class Team {
 public:
  Team(int size, std::size_t slot_bytes) : layout_{.size = size, .slot_bytes = slot_bytes} {
    memory_ = static_cast<std::byte*>(std::aligned_alloc(kPageBytes, layout_.total_bytes()));
    std::fill_n(memory_, layout_.total_bytes(), std::byte{0});
    layout_.init(memory_);
    group_ = core::Group::identity(size);
    for (int r = 0; r < size; ++r) {
      comms_.push_back(std::make_unique<core::Communicator>(group_, r, kContextId));
      arenas_.push_back(std::make_unique<Arena>(*comms_.back()));
    }
  }
  ~Team() {
    arenas_.clear();
    std::free(memory_);
  }
  Team(const Team&) = delete;
  Team& operator=(const Team&) = delete;

  int size() const { return layout_.size; }
  Arena& arena(int rank) { return *arenas_[rank]; }
  // Maps the segment into rank's arena (what a communicator's setup does).
  void ready(int rank) { arenas_[rank]->attach(memory_, layout_); }

  // Runs body(rank) on one thread per rank and waits for them all.
  void run(const std::function<void(int rank)>& body) {
    std::vector<std::thread> threads;
    for (int r = 0; r < size(); ++r) threads.emplace_back(body, r);
    for (auto& t : threads) t.join();
  }

 private:
  static constexpr std::uint32_t kContextId = 7;
  Layout layout_;
  std::byte* memory_ = nullptr;
  core::GroupPtr group_;
  std::vector<std::unique_ptr<core::Communicator>> comms_;
  std::vector<std::unique_ptr<Arena>> arenas_;
};

// Starts `op` and progresses it to the end (yielding, so that 9 ranks share 2 cores well).
// Every other call on a thread starts it as a blocking call does (ShmOp::start_blocking, which
// runs it at once where it can): the two ways meet in every test that starts a few.
inline void run_to_end(ShmOp& op) {
  thread_local unsigned calls = 0;
  bool done = false;
  if (calls++ % 2 == 0) {
    ASSERT_TRUE(op.start().ok());
  } else {
    ASSERT_TRUE(op.start_blocking(done).ok());
  }
  while (!done && !op.progress()) std::this_thread::yield();
  EXPECT_TRUE(op.status().ok()) << op.status().to_string();
}

// A few yields, a different number per rank and call: ranks arrive in any order.
inline void arrive_late(std::mt19937& random) {
  int yields = static_cast<int>(random() % 8);
  for (int i = 0; i < yields; ++i) std::this_thread::yield();
}

// Predefined types (live for the process) and derived ones built from them.
inline const core::Datatype& int32_type() {
  static auto* t =
      new core::DatatypeRef(core::Datatype::predefined(core::BasicType::kInt32, 4, "MPI_INT"));
  return **t;
}
inline const core::Datatype& double_type() {
  static auto* t =
      new core::DatatypeRef(core::Datatype::predefined(core::BasicType::kDouble, 8, "MPI_DOUBLE"));
  return **t;
}
inline const core::Datatype& byte_type() {
  static auto* t =
      new core::DatatypeRef(core::Datatype::predefined(core::BasicType::kByte, 1, "MPI_BYTE"));
  return **t;
}
// Two ints with a hole of one int between them, and a 4-byte hole after (extent 16): not
// contiguous, so data goes through pack/unpack.
inline const core::Datatype& strided_type() {
  static auto* t = [] {
    auto v = core::make_vector(2, 1, 2, int32_type());
    auto r = core::make_resized(*v.value(), 0, 16);
    r.value()->commit();
    return new core::DatatypeRef(r.value());
  }();
  return **t;
}

}  // namespace gpurun::coll::shm::testing

// The queue of enqueued operations (api/enqueue.h) over a test double of a device stream: a
// worker thread that runs the stream's work in order (the test's own "kernels", the start-word
// writes and the waits on the release word), and a double of the operations that records what
// the queue asked of them. Checks that an operation starts only once the stream has got to it,
// that the stream's later work waits until the operations of its wait point completed, that
// wait points pass in stream order, that a failed start still lets the stream go on, and the
// bookkeeping (busy, waitable, abandon).
#include <gtest/gtest.h>

#include <atomic>
#include <functional>
#include <memory>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "api/enqueue.h"
#include "tests/accel/serial_worker.h"

namespace gpurun::api {
namespace {

class FakeDevice final : public accel::Stream {
 public:
  void push(std::function<void()> work) { worker_.push(std::move(work)); }
  template <class Meanwhile>
  void drain(Meanwhile meanwhile) {
    worker_.drain(meanwhile);
  }
  Status signal(std::uint32_t value) override {
    push([this, value] { started_ = value; });
    return ok_status();
  }
  Status wait(std::uint32_t value) override {
    push([this, value] {
      while (!accel::reached(released_, value)) std::this_thread::yield();
    });
    return ok_status();
  }
  std::uint32_t started() const override { return started_; }
  void release(std::uint32_t value) override { released_ = value; }
  std::string describe() const override { return "fake device stream"; }

 private:
  std::atomic<std::uint32_t> started_{0};
  std::atomic<std::uint32_t> released_{0};
  testing::SerialWorker worker_;  // declared last: it goes first, before the words it writes
};

struct FakeOperations final : EnqueueQueue::Operations {
  bool start(core::Request* r, const char* call_name) override {
    started.push_back(r);
    names.emplace_back(call_name);
    return refused.count(r) == 0;
  }
  bool complete(const core::Request* r) override { return completed.count(r) != 0; }
  void finish(core::Request* r, const char* /*call_name*/, bool failed,
              MPI_Status* status) override {
    finished.push_back(r);
    if (failed) failures.push_back(r);
    if (status != MPI_STATUS_IGNORE) status->MPI_TAG = 77;
  }
  void abandon(core::Request* r) override { abandoned.push_back(r); }
  void busy(bool now) override { busy_calls.push_back(now); }

  std::set<const core::Request*> completed, refused;
  std::vector<core::Request*> started, finished, failures, abandoned;
  std::vector<std::string> names;
  std::vector<bool> busy_calls;
};

class EnqueueQueueTest : public ::testing::Test {
 protected:
  // Polls until `condition` holds (the worker runs meanwhile).
  template <class Condition>
  void poll_until(Condition condition) {
    while (!condition()) {
      queue_.poll();
      std::this_thread::yield();
    }
  }
  // Blocks the device stream until open() (the application's kernel still running).
  void block_device() {
    device_.push([this] {
      while (!gate_) std::this_thread::yield();
    });
  }
  void open() { gate_ = true; }
  // Waits until the device has run everything pushed so far.
  void drain() {
    device_.drain([this] { queue_.poll(); });
  }

  FakeDevice device_;
  FakeOperations ops_;
  EnqueueQueue queue_{device_, ops_};
  std::atomic<bool> gate_{false};
  core::Request a_, b_, c_;
};

TEST_F(EnqueueQueueTest, StartsOnlyOnceTheStreamHasGotThere) {
  block_device();
  ASSERT_TRUE(queue_.start_at("MPIX_Isend_enqueue", &a_).ok());
  for (int i = 0; i < 100; ++i) queue_.poll();
  EXPECT_TRUE(ops_.started.empty()) << "started before the stream's earlier work was done";
  open();
  poll_until([this] { return !ops_.started.empty(); });
  EXPECT_EQ(ops_.started, std::vector<core::Request*>{&a_});
  EXPECT_EQ(ops_.names.front(), "MPIX_Isend_enqueue");
}

TEST_F(EnqueueQueueTest, LaterWorkWaitsUntilTheOperationCompleted) {
  MPI_Status status{};
  ASSERT_TRUE(queue_.start_at("MPIX_Recv_enqueue", &a_).ok());
  ASSERT_TRUE(queue_.wait_for({&a_}, {&status}).ok());
  std::atomic<int> after{0};
  device_.push([&after] { after = 1; });
  poll_until([this] { return !ops_.started.empty(); });
  for (int i = 0; i < 100; ++i) queue_.poll();
  EXPECT_EQ(after, 0) << "the stream went on before the operation completed";
  EXPECT_TRUE(ops_.finished.empty());
  ops_.completed.insert(&a_);
  queue_.poll();
  EXPECT_EQ(ops_.finished, std::vector<core::Request*>{&a_});
  EXPECT_EQ(status.MPI_TAG, 77) << "the status went elsewhere";
  drain();
  EXPECT_EQ(after, 1);
  EXPECT_TRUE(queue_.idle());
}

TEST_F(EnqueueQueueTest, WaitPointsPassInStreamOrder) {
  // Isend a (not waited yet), blocking b, then a wait for a.
  ASSERT_TRUE(queue_.start_at("MPIX_Isend_enqueue", &a_).ok());
  ASSERT_TRUE(queue_.start_at("MPIX_Send_enqueue", &b_).ok());
  ASSERT_TRUE(queue_.wait_for({&b_}).ok());
  EXPECT_TRUE(queue_.waitable(&a_));
  EXPECT_FALSE(queue_.waitable(&b_));
  ASSERT_TRUE(queue_.wait_for({&a_}).ok());
  EXPECT_FALSE(queue_.waitable(&a_));
  poll_until([this] { return ops_.started.size() == 2; });
  ops_.completed.insert(&a_);  // a's wait point may not pass before b's
  for (int i = 0; i < 100; ++i) queue_.poll();
  EXPECT_TRUE(ops_.finished.empty());
  ops_.completed.insert(&b_);
  poll_until([this] { return ops_.finished.size() == 2; });
  EXPECT_EQ(ops_.finished, (std::vector<core::Request*>{&b_, &a_}));
  drain();
  EXPECT_TRUE(queue_.idle());
}

TEST_F(EnqueueQueueTest, WaitallCoversSeveralAndAFailedStartLetsTheStreamGoOn) {
  ops_.refused.insert(&b_);
  MPI_Status statuses[2] = {};
  ASSERT_TRUE(queue_.start_at("MPIX_Irecv_enqueue", &a_).ok());
  ASSERT_TRUE(queue_.start_at("MPIX_Isend_enqueue", &b_).ok());
  ASSERT_TRUE(queue_.wait_for({&a_, &b_}, {&statuses[0], &statuses[1]}).ok());
  std::atomic<int> after{0};
  device_.push([&after] { after = 1; });
  poll_until([this] { return ops_.started.size() == 2; });
  for (int i = 0; i < 100; ++i) queue_.poll();
  EXPECT_TRUE(ops_.finished.empty()) << "passed while a was still running";
  ops_.completed.insert(&a_);
  poll_until([this] { return ops_.finished.size() == 2; });
  EXPECT_EQ(ops_.failures, std::vector<core::Request*>{&b_});
  EXPECT_EQ(statuses[0].MPI_TAG, 77);
  drain();
  EXPECT_EQ(after, 1);
}

TEST_F(EnqueueQueueTest, RefusesRequestsItCannotWaitFor) {
  ASSERT_TRUE(queue_.start_at("MPIX_Isend_enqueue", &a_).ok());
  EXPECT_FALSE(queue_.wait_for({&c_}).ok());
  EXPECT_FALSE(queue_.wait_for({&a_, &a_}).ok());
  ASSERT_TRUE(queue_.wait_for({&a_}).ok());
  EXPECT_FALSE(queue_.wait_for({&a_}).ok()) << "waited for twice";
  ops_.completed.insert(&a_);
  poll_until([this] { return queue_.idle(); });
}

TEST_F(EnqueueQueueTest, CountsAsBusyWhilePointsArePendingAndAbandonsTheUnwaited) {
  FakeOperations ops;
  auto queue = std::make_unique<EnqueueQueue>(device_, ops);
  EXPECT_TRUE(queue->idle());
  ASSERT_TRUE(queue->start_at("MPIX_Isend_enqueue", &a_).ok());
  EXPECT_EQ(ops.busy_calls, std::vector<bool>{true});
  while (ops.started.empty()) queue->poll();
  EXPECT_TRUE(queue->idle()) << "an Isend without its wait holds nothing up";
  EXPECT_EQ(ops.busy_calls, (std::vector<bool>{true, false}));
  EXPECT_EQ(queue->poll(), 0);
  ASSERT_TRUE(queue->start_at("MPIX_Isend_enqueue", &b_).ok());
  EXPECT_GE(queue->poll(), 1) << "a pending point must keep the poller busy";
  while (ops.started.size() < 2) queue->poll();
  queue.reset();
  EXPECT_EQ(ops.abandoned, (std::vector<core::Request*>{&a_, &b_}));
}

}  // namespace
}  // namespace gpurun::api

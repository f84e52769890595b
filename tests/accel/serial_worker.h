// A test double of a device stream's execution: a thread that runs the work pushed to it one
// piece after the other, in order, as a GPU runs a stream's kernels and memory operations.
// Shared by the tests of cuda/stream.h and api/enqueue.h.
#pragma once

#include <atomic>
#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>

namespace gpurun::testing {

class SerialWorker {
 public:
  SerialWorker() : thread_([this] { run(); }) {}
  ~SerialWorker() {
    push(nullptr);
    thread_.join();
  }
  SerialWorker(const SerialWorker&) = delete;
  SerialWorker& operator=(const SerialWorker&) = delete;

  // Appends `work` (nullptr ends the thread).
  void push(std::function<void()> work) {
    const std::lock_guard<std::mutex> guard(mutex_);
    queue_.push_back(std::move(work));
    ready_.notify_one();
  }
  // Returns once everything pushed so far has run, calling `meanwhile` while it waits.
  template <class Meanwhile>
  void drain(Meanwhile meanwhile) {
    std::atomic<bool> done{false};
    push([&done] { done = true; });
    while (!done) {
      meanwhile();
      std::this_thread::yield();
    }
  }
  void drain() {
    drain([] {});
  }

 private:
  void run() {
    while (true) {
      std::function<void()> work;
      {
        std::unique_lock<std::mutex> guard(mutex_);
        ready_.wait(guard, [this] { return !queue_.empty(); });
        work = std::move(queue_.front());
        queue_.pop_front();
      }
      if (!work) return;
      work();
    }
  }

  std::mutex mutex_;
  std::condition_variable ready_;
  std::deque<std::function<void()>> queue_;
  std::thread thread_;
};

}  // namespace gpurun::testing

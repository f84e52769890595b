// Events that the PMIx server's thread hands to gpurun's main loop.
#pragma once

#include <mutex>
#include <string>
#include <vector>

namespace gpurun::launcher {

struct RankEvent {
  enum class Kind { kConnected, kFinalized, kAbort };
  Kind kind;
  int rank = -1;
  int code = 0;         // kAbort: the abort status
  std::string message;  // kAbort: the abort message
};

// A queue written by any thread and drained by the main loop, which polls fd() to wake up.
// push() is safe from PMIx callbacks: it takes a short lock and writes to an eventfd.
class EventQueue {
 public:
  EventQueue();  // throws std::runtime_error
  ~EventQueue();
  EventQueue(const EventQueue&) = delete;
  EventQueue& operator=(const EventQueue&) = delete;

  int fd() const { return fd_; }
  void push(RankEvent event);
  // Takes every queued event, oldest first, and clears the wake-up.
  std::vector<RankEvent> drain();

 private:
  int fd_ = -1;
  std::mutex mutex_;
  std::vector<RankEvent> events_;
};

}  // namespace gpurun::launcher

// Events that the PMIx server's thread hands to gpurun's main loop.
#pragma once

#include <cstdint>
#include <functional>
#include <mutex>
#include <string>
#include <vector>

namespace gpurun::launcher {

// Completes a PMIx request that waited on other hosts (a fence, a direct modex): a PMIx
// status and the data. Callable from any thread, once.
using PmixReply = std::function<void(int status, std::string data)>;

struct RankEvent {
  enum class Kind {
    kConnected,
    kFinalized,
    kAbort,
    // Jobs across hosts only:
    kFence,       // a fence of this host's ranks: `participants`, `sequence`, `data`, `reply`
    kModexAsk,    // a rank of this host wants the data of `rank` (another host's): `reply`
    kModexServed  // this host's PMIx server answered request `sequence`: `code`, `data`
  };
  Kind kind;
  int rank = -1;
  int code = 0;         // kAbort: the abort status; kModexServed: the PMIx status
  std::string message;  // kAbort: the abort message
  // kFence: the ranks taking part (-1: all of them) and the fence's number among the fences of
  // the same participants, which every host counts alike; kModexServed: the request id.
  std::vector<int> participants;
  std::uint32_t sequence = 0;
  std::string data;
  PmixReply reply;
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

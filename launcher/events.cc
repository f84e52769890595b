#include "launcher/events.h"

#include <sys/eventfd.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <utility>

namespace gpurun::launcher {

EventQueue::EventQueue() : fd_(eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK)) {
  if (fd_ < 0) throw std::runtime_error(std::string("eventfd: ") + std::strerror(errno));
}

EventQueue::~EventQueue() { close(fd_); }

void EventQueue::push(RankEvent event) {
  {
    std::lock_guard lock(mutex_);
    events_.push_back(std::move(event));
  }
  std::uint64_t one = 1;
  // Cannot fail short of a counter overflow; a lost wake-up is impossible since the
  // counter only needs to be non-zero.
  [[maybe_unused]] ssize_t n = write(fd_, &one, sizeof one);
}

std::vector<RankEvent> EventQueue::drain() {
  std::uint64_t count = 0;
  [[maybe_unused]] ssize_t n = read(fd_, &count, sizeof count);
  std::lock_guard lock(mutex_);
  return std::exchange(events_, {});
}

}  // namespace gpurun::launcher

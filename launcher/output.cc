#include "launcher/output.h"

#include <poll.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace gpurun::launcher {

bool write_all(int fd, const char* data, std::size_t size) {
  while (size > 0) {
    ssize_t n = write(fd, data, size);
    if (n > 0) {
      data += n;
      size -= static_cast<std::size_t>(n);
    } else if (n < 0 && errno == EINTR) {
      continue;
    } else if (n < 0 && errno == EAGAIN) {
      pollfd p{.fd = fd, .events = POLLOUT, .revents = 0};
      poll(&p, 1, -1);
    } else {
      return false;
    }
  }
  return true;
}

LineForwarder::LineForwarder(int dest_fd, std::string prefix, std::size_t line_max)
    : dest_fd_(dest_fd), prefix_(std::move(prefix)), line_max_(line_max > 0 ? line_max : 1) {}

void LineForwarder::emit(const char* data, std::size_t size, bool add_newline) {
  out_ += prefix_;
  out_.append(data, size);
  if (add_newline) out_ += '\n';
}

void LineForwarder::feed(const char* data, std::size_t size) {
  out_.clear();
  const char* end = data + size;
  while (data < end) {
    const char* newline = static_cast<const char*>(std::memchr(data, '\n', end - data));
    if (newline == nullptr) {
      partial_.append(data, end - data);
      break;
    }
    std::size_t len = static_cast<std::size_t>(newline - data) + 1;
    if (partial_.empty()) {
      emit(data, len, false);
    } else {
      partial_.append(data, len);
      emit(partial_.data(), partial_.size(), false);
      partial_.clear();
    }
    data = newline + 1;
  }
  while (partial_.size() >= line_max_) {
    emit(partial_.data(), line_max_, !prefix_.empty());
    partial_.erase(0, line_max_);
  }
  if (!out_.empty()) write_all(dest_fd_, out_.data(), out_.size());
}

void LineForwarder::finish() {
  out_.clear();
  if (!partial_.empty()) emit(partial_.data(), partial_.size(), !prefix_.empty());
  partial_.clear();
  if (!out_.empty()) write_all(dest_fd_, out_.data(), out_.size());
}

}  // namespace gpurun::launcher

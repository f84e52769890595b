// Forwarding of the ranks' output, whole lines at a time.
#pragma once

#include <cstddef>
#include <string>

namespace gpurun::launcher {

// Writes all of `data` to `fd`, waiting when the fd is full; output to a closed pipe is
// dropped (gpurun ignores SIGPIPE). Returns false when the data could not be written.
bool write_all(int fd, const char* data, std::size_t size);

// Collects one rank's stream (its stdout or stderr) and writes it to `dest_fd` in whole
// lines, each optionally preceded by a prefix such as "[3] ", so that lines of different
// ranks never mix. A line longer than `line_max` is forwarded in pieces of that size.
class LineForwarder {
 public:
  LineForwarder(int dest_fd, std::string prefix, std::size_t line_max);

  void feed(const char* data, std::size_t size);
  // End of stream: forwards a last partial line (with a newline added when prefixed, so
  // that the next rank's prefix starts a line).
  void finish();

 private:
  void emit(const char* data, std::size_t size, bool add_newline);

  int dest_fd_;
  std::string prefix_;
  std::size_t line_max_;
  std::string partial_;
  std::string out_;  // reused output buffer: prefix + lines, written in one call
};

}  // namespace gpurun::launcher

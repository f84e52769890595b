// Forwarding of the ranks' output, whole lines at a time, and gpurun's output options.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace gpurun::launcher {

// How the ranks' output reaches the user.
struct OutputSpec {
  bool tag = false;           // --tag-output: "[rank] " before each line
  bool timestamp = false;     // --timestamp-output: the time a line reached gpurun before it
  bool merge_stderr = false;  // --merge-stderr-to-stdout
  std::string dir;            // --output-filename DIR: each rank's streams into files there
  bool copy = true;           // ... and to gpurun's own stdout and stderr too (false: :nocopy)
  bool job_level = true;      // DIR/1/rank.N (false: :nojobid, DIR/rank.N)
};

// Writes all of `data` to `fd`, waiting when the fd is full; output to a closed pipe is
// dropped (gpurun ignores SIGPIPE). Returns false when the data could not be written.
bool write_all(int fd, const char* data, std::size_t size);

// The files of --output-filename, as Open MPI lays them out: DIR/1/rank.N/stdout and stderr
// (N left-filled with zeros to the width of the rank count, so that listings sort; without the
// "1" level for :nojobid), and no stderr file where stderr goes to stdout. Created, with their
// directories, before any rank starts; a relative DIR is taken from gpurun's working directory.
class OutputFiles {
 public:
  OutputFiles() = default;
  // Throws std::runtime_error naming the path that could not be created.
  OutputFiles(const OutputSpec& spec, int ranks);
  ~OutputFiles();
  OutputFiles(const OutputFiles&) = delete;
  OutputFiles& operator=(const OutputFiles&) = delete;
  // Rank r's stdout or stderr file (-1: none).
  int fd(int rank, bool is_stderr) const;

 private:
  std::vector<int> fds_;  // stdout, stderr of rank 0, then of rank 1, ...
};

// Collects one rank's stream (its stdout or stderr) and writes it to `dest_fd` (-1: nowhere)
// in whole lines, each optionally preceded by a prefix such as "[3] " and the time it arrived
// (`timestamp`), so that lines of different ranks never mix. A line longer than `line_max` is
// forwarded in pieces of that size. `file_fd` (-1: none) gets the same lines unprefixed, the
// stream's bytes as they came.
class LineForwarder {
 public:
  LineForwarder(int dest_fd, std::string prefix, std::size_t line_max, int file_fd = -1,
                bool timestamp = false);

  void feed(const char* data, std::size_t size);
  // End of stream: forwards a last partial line (with a newline added when prefixed, so
  // that the next rank's prefix starts a line).
  void finish();

 private:
  void emit(const char* data, std::size_t size, bool add_newline);
  bool prefixed() const { return !prefix_.empty() || timestamp_; }
  void stamp();
  void flush();  // writes out what emit() collected

  int dest_fd_;
  std::string prefix_;
  std::size_t line_max_;
  int file_fd_;
  bool timestamp_;
  std::string stamp_;  // the time of the data being forwarded, as lines show it
  std::string partial_;
  std::string out_;       // reused output buffer: prefix + lines, written in one call
  std::string file_out_;  // the same lines for the file
};

}  // namespace gpurun::launcher

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
  // MPICH's -outfile-pattern and -errfile-pattern: the stream goes into the file the pattern
  // names for each rank (%r rank, %h host, %p the host's index in the job, %g 0, %t the
  // job's start in seconds, %% a '%'), instead of gpurun's own stdout or stderr.
  std::string out_pattern;
  std::string err_pattern;
  // Whether a rank's stdout (stderr) is written to gpurun's own.
  bool copies(bool is_stderr) const {
    return copy && (is_stderr ? err_pattern : out_pattern).empty();
  }
};

// Checks the substitutions of an -outfile-pattern (throws UsageError naming `option`).
void check_pattern(const std::string& pattern, const std::string& option);

// Where a rank runs, for the patterns' %h and %p.
struct RankHost {
  std::string name;
  int node = 0;
};

// Writes all of `data` to `fd`, waiting when the fd is full; output to a closed pipe is
// dropped (gpurun ignores SIGPIPE). Returns false when the data could not be written.
bool write_all(int fd, const char* data, std::size_t size);

// The files of --output-filename, as Open MPI lays them out: DIR/1/rank.N/stdout and stderr
// (N left-filled with zeros to the width of the rank count, so that listings sort; without the
// "1" level for :nojobid), and no stderr file where stderr goes to stdout. Created, with their
// directories, before any rank starts; a relative DIR is taken from gpurun's working directory.
// Or the files of -outfile-pattern and -errfile-pattern: ranks whose pattern names one file
// share it (whole lines, in the order gpurun gets them); the directories must exist.
class OutputFiles {
 public:
  OutputFiles() = default;
  // Throws std::runtime_error naming the path that could not be created. `hosts`: each rank's,
  // for the patterns (one host, node 0, when empty).
  OutputFiles(const OutputSpec& spec, int ranks, const std::vector<RankHost>& hosts = {});
  ~OutputFiles();
  OutputFiles(const OutputFiles&) = delete;
  OutputFiles& operator=(const OutputFiles&) = delete;
  // Rank r's stdout or stderr file (-1: none).
  int fd(int rank, bool is_stderr) const;

 private:
  void make_rank_dirs(const OutputSpec& spec, int ranks);
  void open_patterns(const OutputSpec& spec, int ranks, const std::vector<RankHost>& hosts);

  std::vector<int> fds_;  // stdout, stderr of rank 0, then of rank 1, ...
  std::vector<int> owned_;  // every file opened (ranks may share one)
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

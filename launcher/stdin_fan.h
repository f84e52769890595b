// gpurun's stdin on its way to the ranks that read it (--stdin: rank 0 by default, one rank,
// every rank, or none), on gpurun's host and in each daemon for the ranks of its host.
//
// Each reading rank has a pipe and the bytes not yet written to it. What is read from stdin is
// copied to every pipe and written as each pipe takes it; more is read once every pipe has
// taken what it had (the slowest reader sets the pace, as a pipe does). At the end of stdin,
// each pipe is closed once it has taken its bytes; a rank that closes its end (EPIPE) or exits
// gets no more, and the others go on. Until start(), what is fed is held for the pipes added
// by then (a daemon may hear of input before its ranks run).
//
// Single-threaded, non-blocking pipes.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace gpurun::launcher {

// --stdin's target: a rank, or one of these.
inline constexpr int kStdinAll = -1;
inline constexpr int kStdinNone = -2;

// Whether `rank` reads gpurun's stdin when --stdin names `target`.
inline bool reads_stdin(int target, int rank) { return target == kStdinAll || target == rank; }

class StdinFan {
 public:
  StdinFan() = default;
  ~StdinFan();
  StdinFan(const StdinFan&) = delete;
  StdinFan& operator=(const StdinFan&) = delete;

  // Takes the write end `fd` of `rank`'s stdin pipe (ignored when fd < 0).
  void add(int rank, int fd);
  // Gives the pipes what was fed before (and the end, if it came); feed() writes at once after.
  void start();
  void feed(std::string_view data);
  void end();           // the end of stdin
  void drop(int rank);  // `rank` exited: its pipe is closed, its bytes forgotten
  void close_all();     // the job ends
  void on_writable(int rank);
  // Whether every pipe has taken what it was given (stdin may be read again).
  bool drained() const;
  // Whether a pipe is still open (stdin is still wanted here).
  bool open() const;
  // Calls f(fd, rank) for each pipe with bytes waiting: poll them for POLLOUT.
  template <typename F>
  void each_waiting(F f) const {
    for (const Pipe& pipe : pipes_)
      if (pipe.fd >= 0 && !pipe.pending.empty()) f(pipe.fd, pipe.rank);
  }

 private:
  struct Pipe {
    int rank;
    int fd;
    std::string pending;
  };
  void write_some(Pipe& pipe);
  static void close_pipe(Pipe& pipe);

  std::vector<Pipe> pipes_;
  bool started_ = false;
  bool ended_ = false;
  std::string held_;  // fed before start()
};

}  // namespace gpurun::launcher

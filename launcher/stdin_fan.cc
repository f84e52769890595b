#include "launcher/stdin_fan.h"

#include <unistd.h>

#include <algorithm>
#include <cerrno>

namespace gpurun::launcher {

StdinFan::~StdinFan() { close_all(); }

void StdinFan::add(int rank, int fd) {
  if (fd >= 0) pipes_.push_back(Pipe{.rank = rank, .fd = fd, .pending = {}});
}

void StdinFan::start() {
  started_ = true;
  std::string held = std::move(held_);
  held_.clear();
  if (!held.empty()) feed(held);
  if (ended_) end();
}

void StdinFan::feed(std::string_view data) {
  if (!started_) {
    held_.append(data);
    return;
  }
  for (Pipe& pipe : pipes_) {
    if (pipe.fd < 0) continue;
    pipe.pending.append(data);
    write_some(pipe);
  }
}

void StdinFan::end() {
  ended_ = true;
  if (!started_) return;
  for (Pipe& pipe : pipes_)
    if (pipe.pending.empty()) close_pipe(pipe);
}

void StdinFan::drop(int rank) {
  for (Pipe& pipe : pipes_)
    if (pipe.rank == rank) close_pipe(pipe);
}

void StdinFan::close_all() {
  for (Pipe& pipe : pipes_) close_pipe(pipe);
}

void StdinFan::on_writable(int rank) {
  for (Pipe& pipe : pipes_)
    if (pipe.rank == rank && pipe.fd >= 0) write_some(pipe);
}

bool StdinFan::drained() const {
  return std::all_of(pipes_.begin(), pipes_.end(),
                     [](const Pipe& pipe) { return pipe.fd < 0 || pipe.pending.empty(); });
}

bool StdinFan::open() const {
  return std::any_of(pipes_.begin(), pipes_.end(), [](const Pipe& pipe) { return pipe.fd >= 0; });
}

void StdinFan::write_some(Pipe& pipe) {
  ssize_t n = write(pipe.fd, pipe.pending.data(), pipe.pending.size());
  if (n > 0) {
    pipe.pending.erase(0, static_cast<std::size_t>(n));
  } else if (n < 0 && errno != EAGAIN && errno != EINTR) {
    close_pipe(pipe);  // the rank closed its stdin (EPIPE): nothing more to give it
    return;
  }
  if (pipe.pending.empty() && ended_) close_pipe(pipe);
}

void StdinFan::close_pipe(Pipe& pipe) {
  if (pipe.fd >= 0) close(pipe.fd);
  pipe.fd = -1;
  pipe.pending.clear();
}

}  // namespace gpurun::launcher

#include "launcher/output.h"

#include <fcntl.h>
#include <poll.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <stdexcept>

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

namespace {

// Rank r's directory name: rank.N, N as wide as the largest rank count's digits.
std::string rank_dir(int rank, int ranks) {
  int width = static_cast<int>(std::to_string(ranks).size());
  char name[32];
  std::snprintf(name, sizeof name, "rank.%0*d", width, rank);
  return name;
}

int create_file(const std::filesystem::path& path) {
  int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0)
    throw std::runtime_error("--output-filename: cannot create " + path.string() + ": " +
                             std::strerror(errno));
  return fd;
}

}  // namespace

OutputFiles::OutputFiles(const OutputSpec& spec, int ranks) {
  if (spec.dir.empty()) return;
  namespace fs = std::filesystem;
  std::error_code ec;
  fs::path top = fs::absolute(fs::path(spec.dir), ec);
  if (spec.job_level) top /= "1";
  fds_.assign(2 * static_cast<std::size_t>(ranks), -1);
  for (int r = 0; r < ranks; ++r) {
    fs::path dir = top / rank_dir(r, ranks);
    fs::create_directories(dir, ec);
    if (ec)
      throw std::runtime_error("--output-filename: cannot create " + dir.string() + ": " +
                               ec.message());
    std::size_t at = 2 * static_cast<std::size_t>(r);
    fds_[at] = create_file(dir / "stdout");
    if (!spec.merge_stderr) fds_[at + 1] = create_file(dir / "stderr");
  }
}

OutputFiles::~OutputFiles() {
  for (int fd : fds_)
    if (fd >= 0) close(fd);
}

int OutputFiles::fd(int rank, bool is_stderr) const {
  std::size_t at = 2 * static_cast<std::size_t>(rank) + (is_stderr ? 1 : 0);
  return at < fds_.size() ? fds_[at] : -1;
}

LineForwarder::LineForwarder(int dest_fd, std::string prefix, std::size_t line_max, int file_fd,
                             bool timestamp)
    : dest_fd_(dest_fd),
      prefix_(std::move(prefix)),
      line_max_(line_max > 0 ? line_max : 1),
      file_fd_(file_fd),
      timestamp_(timestamp) {}

// "2026-12-07 09:23:37.123456 ", local time.
void LineForwarder::stamp() {
  if (!timestamp_ || dest_fd_ < 0) return;
  timespec now{};
  clock_gettime(CLOCK_REALTIME, &now);
  tm local{};
  localtime_r(&now.tv_sec, &local);
  char text[64];
  std::size_t n = std::strftime(text, sizeof text, "%Y-%m-%d %H:%M:%S", &local);
  std::snprintf(text + n, sizeof text - n, ".%06ld ", now.tv_nsec / 1000);
  stamp_ = text;
}

// The file gets the bytes as they came: never a prefix, nor a newline the stream lacked.
void LineForwarder::emit(const char* data, std::size_t size, bool add_newline) {
  if (file_fd_ >= 0) file_out_.append(data, size);
  if (dest_fd_ < 0) return;
  out_ += stamp_;
  out_ += prefix_;
  out_.append(data, size);
  if (add_newline) out_ += '\n';
}

void LineForwarder::flush() {
  if (!out_.empty()) write_all(dest_fd_, out_.data(), out_.size());
  if (!file_out_.empty()) write_all(file_fd_, file_out_.data(), file_out_.size());
  out_.clear();
  file_out_.clear();
}

void LineForwarder::feed(const char* data, std::size_t size) {
  stamp();
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
    emit(partial_.data(), line_max_, prefixed());
    partial_.erase(0, line_max_);
  }
  flush();
}

void LineForwarder::finish() {
  stamp();
  if (!partial_.empty()) emit(partial_.data(), partial_.size(), prefixed());
  partial_.clear();
  flush();
}

}  // namespace gpurun::launcher

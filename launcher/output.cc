#include "launcher/output.h"

#include <fcntl.h>
#include <poll.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <map>
#include <stdexcept>
#include <string_view>

#include "launcher/cli.h"

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

int create_file(const std::filesystem::path& path, const std::string& option) {
  int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0)
    throw std::runtime_error(option + ": cannot create " + path.string() + ": " +
                             std::strerror(errno));
  return fd;
}

// `pattern` with its substitutions made for `rank`.
std::string expand(const std::string& pattern, int rank, const RankHost& host, long start) {
  std::string out;
  for (std::size_t k = 0; k < pattern.size(); ++k) {
    if (pattern[k] != '%' || k + 1 == pattern.size()) {
      out += pattern[k];
      continue;
    }
    switch (pattern[++k]) {
      case 'r':
        out += std::to_string(rank);
        break;
      case 'h':
        out += host.name;
        break;
      case 'p':
        out += std::to_string(host.node);
        break;
      case 'g':
        out += '0';
        break;
      case 't':
        out += std::to_string(start);
        break;
      default:
        out += pattern[k];
        break;  // %%, and what check_pattern refused
    }
  }
  return out;
}

}  // namespace

void check_pattern(const std::string& pattern, const std::string& option) {
  if (pattern.empty()) throw UsageError(option + " needs a file name");
  for (std::size_t k = 0; k < pattern.size(); ++k) {
    if (pattern[k] != '%') continue;
    if (k + 1 == pattern.size() ||
        std::string_view("rhpgt%").find(pattern[k + 1]) == std::string_view::npos)
      throw UsageError(option + ": '" + pattern.substr(k, 2) + "' in '" + pattern +
                       "' is not %r, %h, %p, %g, %t or %%");
    ++k;
  }
}

OutputFiles::OutputFiles(const OutputSpec& spec, int ranks, const std::vector<RankHost>& hosts) {
  if (!spec.dir.empty())
    make_rank_dirs(spec, ranks);
  else if (!spec.out_pattern.empty() || !spec.err_pattern.empty())
    open_patterns(spec, ranks, hosts);
}

void OutputFiles::make_rank_dirs(const OutputSpec& spec, int ranks) {
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
    fds_[at] = create_file(dir / "stdout", "--output-filename");
    owned_.push_back(fds_[at]);
    if (spec.merge_stderr) continue;
    fds_[at + 1] = create_file(dir / "stderr", "--output-filename");
    owned_.push_back(fds_[at + 1]);
  }
}

void OutputFiles::open_patterns(const OutputSpec& spec, int ranks,
                                const std::vector<RankHost>& hosts) {
  long start = static_cast<long>(std::time(nullptr));
  std::map<std::string, int> opened;  // path -> its fd
  fds_.assign(2 * static_cast<std::size_t>(ranks), -1);
  for (int r = 0; r < ranks; ++r) {
    RankHost host = static_cast<std::size_t>(r) < hosts.size() ? hosts[static_cast<std::size_t>(r)]
                                                               : RankHost{};
    for (int stream = 0; stream < 2; ++stream) {
      const std::string& pattern = stream == 0 ? spec.out_pattern : spec.err_pattern;
      if (pattern.empty() || (stream == 1 && spec.merge_stderr)) continue;
      std::string path = expand(pattern, r, host, start);
      auto [it, fresh] = opened.emplace(path, -1);
      if (fresh) {
        it->second = create_file(path, stream == 0 ? "-outfile-pattern" : "-errfile-pattern");
        owned_.push_back(it->second);
      }
      fds_[2 * static_cast<std::size_t>(r) + static_cast<std::size_t>(stream)] = it->second;
    }
  }
}

OutputFiles::~OutputFiles() {
  for (int fd : owned_) close(fd);
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

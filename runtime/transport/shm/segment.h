// A shared-memory segment that other local processes can map.
//
// The preferred form leaves nothing behind: an anonymous memfd that peers open through
// /proc/<pid>/fd/<fd> while the owner lives; the memory goes away with the last process that
// maps it. Where /proc of a peer is not reachable (other PID namespace), a named POSIX segment
// "/gpurun-<token>-<rank>" is used instead, created exclusively with mode 0600 and unlinked as
// soon as every peer has mapped it (the launcher removes it should a rank die first).
#pragma once

#include <cstddef>
#include <memory>
#include <string>

#include "runtime/base/status.h"

namespace gpurun::transport::shm {

class Segment;
Result<std::unique_ptr<Segment>> create_named(std::size_t size, const std::string& name);

class Segment {
 public:
  // Creates and maps a zero-filled segment of `size` bytes: a memfd when `memfd` holds and
  // the system offers it, else the POSIX segment `name`.
  static Result<std::unique_ptr<Segment>> create(std::size_t size, const std::string& name,
                                                 bool memfd);
  // Maps the segment another process created, from its descriptor().
  static Result<std::unique_ptr<Segment>> attach(const std::string& descriptor);
  ~Segment();
  Segment(const Segment&) = delete;
  Segment& operator=(const Segment&) = delete;

  void* base() const { return base_; }
  std::size_t size() const { return size_; }
  // How a peer finds the segment: "fd:<pid>:<fd>:<size>" or "name:<name>:<size>".
  const std::string& descriptor() const { return descriptor_; }
  // Maps the pages of [at, at + bytes) into this process now, allocating those nobody has
  // touched yet, so that the first pass over them takes no page fault each (a fault costs
  // microseconds on a virtual machine). Rounded out to whole pages; nothing where the kernel
  // cannot (before Linux 5.14).
  void populate(const void* at, std::size_t bytes) const;
  // Removes the segment's name, if it has one (mappings stay valid).
  void unlink();
  bool named() const { return !name_.empty(); }

 private:
  friend Result<std::unique_ptr<Segment>> create_named(std::size_t, const std::string&);
  Segment(void* base, std::size_t size, int fd, std::string descriptor, std::string name)
      : base_(base), size_(size), fd_(fd), descriptor_(std::move(descriptor)),
        name_(std::move(name)) {}
  void* base_;
  std::size_t size_;
  int fd_;
  std::string descriptor_;
  std::string name_;  // non-empty while a POSIX name exists
};

}  // namespace gpurun::transport::shm

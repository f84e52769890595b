#include "runtime/core/datatype.h"

#include <algorithm>
#include <cstring>

namespace gpurun::core {

std::shared_ptr<Datatype> Datatype::predefined(BasicType basic, std::int64_t size,
                                               std::string name) {
  auto t = std::make_shared<Datatype>();
  t->size_ = t->extent_ = t->true_extent_ = size;
  t->basic_ = basic;
  t->name_ = std::move(name);
  return t;
}

std::size_t Datatype::pack(const void* buf, std::int64_t count, std::size_t offset, void* dst,
                           std::size_t length) const {
  std::size_t total = static_cast<std::size_t>(count * size_);
  if (offset >= total) return 0;
  std::size_t n = std::min(length, total - offset);
  std::memcpy(dst, static_cast<const std::byte*>(buf) + true_lb_ + offset, n);
  return n;
}

std::size_t Datatype::unpack(void* buf, std::int64_t count, std::size_t offset, const void* src,
                             std::size_t length) const {
  std::size_t total = static_cast<std::size_t>(count * size_);
  if (offset >= total) return 0;
  std::size_t n = std::min(length, total - offset);
  std::memcpy(static_cast<std::byte*>(buf) + true_lb_ + offset, src, n);
  return n;
}

}  // namespace gpurun::core

namespace gpurun::core {

std::int64_t Datatype::count_elements(std::uint64_t bytes) const {
  if (size_ == 0) return 0;
  if (bytes % static_cast<std::uint64_t>(size_) != 0) return -1;
  return static_cast<std::int64_t>(bytes / static_cast<std::uint64_t>(size_));
}

}  // namespace gpurun::core

#include "api/bsend_buffer.h"

#include <algorithm>

namespace gpurun::api {

bool BsendBuffer::attach(void* base, std::size_t size) {
  if (attached()) return false;
  base_ = static_cast<std::byte*>(base);
  size_ = size;
  used_.clear();
  return true;
}

void BsendBuffer::detach() {
  base_ = nullptr;
  size_ = 0;
  used_.clear();
}

std::byte* BsendBuffer::allocate(std::size_t bytes) {
  if (!attached() || bytes > size_ || size_ - bytes < kOverhead) return nullptr;
  std::size_t length = bytes + kOverhead;
  // First fit: the gap before each used block, then the tail.
  std::size_t offset = 0;
  auto it = used_.begin();
  for (; it != used_.end(); ++it) {
    if (it->offset - offset >= length) break;
    offset = it->offset + it->length;
  }
  if (it == used_.end() && size_ - offset < length) return nullptr;
  used_.insert(it, Block{offset, length});
  return base_ + offset;
}

void BsendBuffer::release(std::byte* data) {
  auto offset = static_cast<std::size_t>(data - base_);
  auto it = std::lower_bound(used_.begin(), used_.end(), offset,
                             [](const Block& b, std::size_t o) { return b.offset < o; });
  if (it != used_.end() && it->offset == offset) used_.erase(it);
}

}  // namespace gpurun::api

#include "api/bsend_buffer.h"

#include <algorithm>

namespace gpurun::api {

bool BsendBuffer::attach(void* base, std::size_t size) {
  if (attached()) return false;
  attached_ = true;
  automatic_ = base == MPI_BUFFER_AUTOMATIC;
  base_ = automatic_ ? nullptr : static_cast<std::byte*>(base);
  size_ = automatic_ ? 0 : size;
  used_.clear();
  heap_.clear();
  return true;
}

void BsendBuffer::detach() {
  attached_ = false;
  automatic_ = false;
  base_ = nullptr;
  size_ = 0;
  used_.clear();
  heap_.clear();
}

std::byte* BsendBuffer::allocate(std::size_t bytes) {
  if (automatic_) {
    // At least one byte, so that every block has an address of its own.
    heap_.push_back(
        {std::make_unique_for_overwrite<std::byte[]>(std::max<std::size_t>(bytes, 1)), ++taken_});
    return heap_.back().data.get();
  }
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
  used_.insert(it, Block{offset, length, ++taken_});
  return base_ + offset;
}

void BsendBuffer::release(std::byte* data) {
  if (automatic_) {
    // Sends mostly complete in the order they started: look from the oldest.
    auto it = std::find_if(heap_.begin(), heap_.end(),
                           [data](const HeapBlock& b) { return b.data.get() == data; });
    if (it != heap_.end()) heap_.erase(it);
    return;
  }
  auto offset = static_cast<std::size_t>(data - base_);
  auto it = std::lower_bound(used_.begin(), used_.end(), offset,
                             [](const Block& b, std::size_t o) { return b.offset < o; });
  if (it != used_.end() && it->offset == offset) used_.erase(it);
}

bool BsendBuffer::released_upto(std::uint64_t upto) const {
  // The heap's blocks stay in the order taken; the user buffer's are by offset.
  if (automatic_) return heap_.empty() || heap_.front().number > upto;
  return std::none_of(used_.begin(), used_.end(),
                      [upto](const Block& b) { return b.number <= upto; });
}

}  // namespace gpurun::api

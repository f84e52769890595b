#include "runtime/core/request.h"

namespace gpurun::core {

Request* RequestPool::allocate() {
  std::uint32_t index;
  if (!free_.empty()) {
    index = free_.back();
    free_.pop_back();
  } else {
    index = count_++;
    if (index / kChunk >= chunks_.size()) chunks_.push_back(std::make_unique<Request[]>(kChunk));
    in_use_.push_back(false);
  }
  Request* r = &chunks_[index / kChunk][index % kChunk];
  r->~Request();
  new (r) Request();
  r->index = index;
  r->pool = this;
  in_use_[index] = true;
  return r;
}

void RequestPool::release(Request* request) {
  in_use_[request->index] = false;
  free_.push_back(request->index);
}

}  // namespace gpurun::core

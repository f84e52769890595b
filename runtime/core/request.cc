#include "runtime/core/request.h"

namespace gpurun::core {

void RequestPool::grow() {
  std::uint32_t index = count_++;
  if (index / kChunk >= chunks_.size()) chunks_.push_back(std::make_unique<Request[]>(kChunk));
  free_.push_back(index);
}

}  // namespace gpurun::core

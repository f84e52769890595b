// MPI handles are ints, encoded as in the MPICH ABI: bits 31-30 the kind (builtin, direct,
// indirect), bits 29-26 the object type, the low 26 bits an index. Predefined objects are
// builtin handles with the values of mpi.h; objects that users create get indirect handles,
// indexes into a HandleTable of their type.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

namespace gpurun::api {

enum class HandleKind : std::uint32_t { kInvalid = 0, kBuiltin = 1, kDirect = 2, kIndirect = 3 };
enum class ObjectType : std::uint32_t {
  kComm = 1,
  kGroup = 2,
  kDatatype = 3,
  kFile = 4,
  kErrhandler = 5,
  kOp = 6,
  kInfo = 7,
  kWin = 8,
  kKeyval = 9,
  kAttr = 10,
  kRequest = 11,
  kSession = 14,  // MPI_SESSION_NULL's type bits
  kStream = 15,   // MPIX_STREAM_NULL's type bits
};

inline constexpr std::uint32_t kIndexBits = 26;
inline constexpr std::uint32_t kIndexMask = (1u << kIndexBits) - 1;

constexpr int make_handle(HandleKind kind, ObjectType type, std::uint32_t index) {
  return static_cast<int>((static_cast<std::uint32_t>(kind) << 30) |
                          (static_cast<std::uint32_t>(type) << kIndexBits) | (index & kIndexMask));
}
constexpr HandleKind handle_kind(int handle) {
  return static_cast<HandleKind>(static_cast<std::uint32_t>(handle) >> 30);
}
constexpr ObjectType handle_type(int handle) {
  return static_cast<ObjectType>((static_cast<std::uint32_t>(handle) >> kIndexBits) & 0xf);
}
constexpr std::uint32_t handle_index(int handle) {
  return static_cast<std::uint32_t>(handle) & kIndexMask;
}

// Objects of one type, addressed by index. Storage grows in chunks that never move, so a
// looked-up pointer stays valid until its slot is released. Not thread-safe by itself: the
// API layer serialises creation and release.
template <class T>
class HandleTable {
 public:
  // Stores `object` and returns its index.
  std::uint32_t insert(std::unique_ptr<T> object) {
    std::uint32_t index;
    if (!free_.empty()) {
      index = free_.back();
      free_.pop_back();
    } else {
      index = count_++;
      if (index / kChunk >= chunks_.size()) chunks_.push_back(std::make_unique<Slot[]>(kChunk));
    }
    chunks_[index / kChunk][index % kChunk] = std::move(object);
    return index;
  }
  // The object at `index`, or nullptr when there is none (never allocated or released).
  T* find(std::uint32_t index) const {
    if (index >= count_) return nullptr;
    return chunks_[index / kChunk][index % kChunk].get();
  }
  // Removes and returns the object at `index`.
  std::unique_ptr<T> release(std::uint32_t index) {
    auto& slot = chunks_[index / kChunk][index % kChunk];
    std::unique_ptr<T> out = std::move(slot);
    if (out) free_.push_back(index);
    return out;
  }
  std::uint32_t live() const { return count_ - static_cast<std::uint32_t>(free_.size()); }

 private:
  static constexpr std::uint32_t kChunk = 1024;
  using Slot = std::unique_ptr<T>;
  std::vector<std::unique_ptr<Slot[]>> chunks_;
  std::vector<std::uint32_t> free_;
  std::uint32_t count_ = 0;
};

}  // namespace gpurun::api

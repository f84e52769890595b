// The buffer that MPI_Buffer_attach gives for buffered sends, and how its space is shared.
//
// Each buffered message takes its packed bytes plus kOverhead (MPI_BSEND_OVERHEAD) bytes of
// accounting, so a user who sizes the buffer as the standard says (the sum of MPI_Pack_size +
// MPI_BSEND_OVERHEAD over the messages in flight) always has room. Blocks are placed first-fit
// and go back when their send completes. The bookkeeping lives outside the user's buffer; the
// overhead is charged so that the sizing rule holds the same way on every MPI.
//
// Not thread-safe: the API layer serialises callers.
#pragma once

#include <mpi.h>

#include <cstddef>
#include <cstdint>
#include <vector>

namespace gpurun::api {

class BsendBuffer {
 public:
  static constexpr std::size_t kOverhead = MPI_BSEND_OVERHEAD;

  bool attached() const { return base_ != nullptr; }
  void* base() const { return base_; }
  std::size_t size() const { return size_; }
  // Blocks taken and not yet released (buffered sends in flight).
  std::size_t blocks() const { return used_.size(); }

  // Takes `base`/`size` as the buffer; false when one is attached already.
  bool attach(void* base, std::size_t size);
  // Gives the buffer back: every block must have been released.
  void detach();
  // Room for a message of `bytes` packed bytes: its first byte, or nullptr when it does not fit.
  std::byte* allocate(std::size_t bytes);
  // Returns a block that allocate() gave.
  void release(std::byte* data);

 private:
  struct Block {
    std::size_t offset;  // from base_
    std::size_t length;  // bytes + kOverhead
  };
  std::byte* base_ = nullptr;
  std::size_t size_ = 0;
  std::vector<Block> used_;  // sorted by offset
};

}  // namespace gpurun::api

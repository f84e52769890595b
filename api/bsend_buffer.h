// A buffer for buffered sends (MPI_Buffer_attach, MPI_Comm_attach_buffer,
// MPI_Session_attach_buffer), and how its space is shared.
//
// Each buffered message takes its packed bytes plus kOverhead (MPI_BSEND_OVERHEAD) bytes of
// accounting, so a user who sizes the buffer as the standard says (the sum of MPI_Pack_size +
// MPI_BSEND_OVERHEAD over the messages in flight) always has room. Blocks are placed first-fit
// and go back when their send completes. The bookkeeping lives outside the user's buffer; the
// overhead is charged so that the sizing rule holds the same way on every MPI.
//
// An automatic buffer (MPI-4.1's MPI_BUFFER_AUTOMATIC) has no user memory: each message gets a
// block of its own from the heap, freed when its send completes, so there is always room.
//
// Blocks are numbered as they are taken (1, 2, ...: the numbers go on across attach and
// detach), so that a flush can wait for the blocks taken before it and not for later ones.
//
// Not thread-safe: the API layer serialises callers.
#pragma once

#include <mpi.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

namespace gpurun::api {

class BsendBuffer {
 public:
  static constexpr std::size_t kOverhead = MPI_BSEND_OVERHEAD;

  bool attached() const { return attached_; }
  bool automatic() const { return automatic_; }
  // What was attached: the user's address (MPI_BUFFER_AUTOMATIC for an automatic buffer), or
  // nullptr when none is.
  void* base() const { return automatic_ ? MPI_BUFFER_AUTOMATIC : base_; }
  std::size_t size() const { return size_; }  // 0 for an automatic buffer
  // Blocks taken and not yet released (buffered sends in flight).
  std::size_t blocks() const { return automatic_ ? heap_.size() : used_.size(); }

  // Takes `base`/`size` as the buffer (MPI_BUFFER_AUTOMATIC: an automatic one, whatever
  // `size`); false when one is attached already.
  bool attach(void* base, std::size_t size);
  // Gives the buffer back: every block must have been released.
  void detach();
  // Room for a message of `bytes` packed bytes: its first byte, or nullptr when it does not fit.
  std::byte* allocate(std::size_t bytes);
  // Returns a block that allocate() gave.
  void release(std::byte* data);
  // The number of the last block taken (0: none yet).
  std::uint64_t taken() const { return taken_; }
  // Whether every block numbered `upto` or lower has been released.
  bool released_upto(std::uint64_t upto) const;

 private:
  struct Block {
    std::size_t offset;  // from base_
    std::size_t length;  // bytes + kOverhead
    std::uint64_t number;
  };
  struct HeapBlock {
    std::unique_ptr<std::byte[]> data;
    std::uint64_t number;
  };
  bool attached_ = false;
  bool automatic_ = false;
  std::byte* base_ = nullptr;
  std::size_t size_ = 0;
  std::uint64_t taken_ = 0;
  std::vector<Block> used_;      // sorted by offset
  std::vector<HeapBlock> heap_;  // an automatic buffer's blocks, in the order taken
};

}  // namespace gpurun::api

// The layout of a rank's inbox: the shared segment through which every other rank of the host
// sends to it. The owner creates it; each local peer maps it and writes only into its own
// lanes, so every lane has one producer and one consumer.
//
//   [InboxHeader][Doorbell] then, for each local rank s (the owner's own lane unused):
//   [RingControl][cells x ring_cells][FragmentControl][FragmentSlot + data] x fragments
//
// Fragments carry large messages: a pipeline of cache-sized slots that the sender fills while
// the receiver empties the previous one, so both copies run at once and stay in cache.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>

#include "runtime/progress/progress.h"
#include "runtime/transport/shm/ring.h"

namespace gpurun::transport::shm {

inline constexpr std::uint64_t kInboxMagic = 0x6770757275'6e7368ull;  // "gpurunsh"

struct alignas(64) InboxHeader {
  std::uint64_t magic;
  std::uint32_t local_size;
  std::uint32_t ring_cells;
  std::uint32_t fragment_size;
  std::uint32_t fragments;
  std::int32_t owner_rank;
  std::int32_t owner_pid;
  std::atomic<std::uint32_t> attached;  // peers that mapped this inbox
  std::uint64_t owner_base;             // where the inbox lies in its owner (a CMA probe)
  std::uint64_t owner_cpus;             // the owner's binding, CpuSet::key (0: not known)
  std::uint32_t owner_cma;              // 1: the owner moves large messages by CMA
};

struct alignas(64) FragmentControl {
  std::atomic<std::uint64_t> consumed;  // fragments the receiver has emptied
};

struct alignas(64) FragmentSlot {
  std::atomic<std::uint64_t> seq;  // fragment number + 1, written by the sender after the data
  std::uint64_t length;            // bytes of data in this fragment
};

struct InboxLayout {
  std::uint32_t local_size = 0;
  std::uint32_t ring_cells = 0;
  std::uint32_t fragment_size = 0;
  std::uint32_t fragments = 0;

  std::size_t lane_bytes() const {
    return sizeof(RingControl) + std::size_t{ring_cells} * sizeof(Cell) + sizeof(FragmentControl) +
           std::size_t{fragments} * (sizeof(FragmentSlot) + fragment_size);
  }
  std::size_t total_bytes() const {
    return sizeof(InboxHeader) + sizeof(progress::Doorbell) + std::size_t{local_size} * lane_bytes();
  }

  static InboxHeader* header(void* base) { return static_cast<InboxHeader*>(base); }
  static progress::Doorbell* doorbell(void* base) {
    return reinterpret_cast<progress::Doorbell*>(static_cast<std::byte*>(base) +
                                                 sizeof(InboxHeader));
  }
  std::byte* lane(void* base, std::uint32_t sender) const {
    return static_cast<std::byte*>(base) + sizeof(InboxHeader) + sizeof(progress::Doorbell) +
           std::size_t{sender} * lane_bytes();
  }
  RingControl* ring_control(void* base, std::uint32_t sender) const {
    return reinterpret_cast<RingControl*>(lane(base, sender));
  }
  Cell* cells(void* base, std::uint32_t sender) const {
    return reinterpret_cast<Cell*>(lane(base, sender) + sizeof(RingControl));
  }
  FragmentControl* fragment_control(void* base, std::uint32_t sender) const {
    return reinterpret_cast<FragmentControl*>(lane(base, sender) + sizeof(RingControl) +
                                              std::size_t{ring_cells} * sizeof(Cell));
  }
  FragmentSlot* slot(void* base, std::uint32_t sender, std::uint64_t index) const {
    auto* first = reinterpret_cast<std::byte*>(fragment_control(base, sender) + 1);
    return reinterpret_cast<FragmentSlot*>(first + (index % fragments) *
                                                       (sizeof(FragmentSlot) + fragment_size));
  }
  static std::byte* slot_data(FragmentSlot* slot) { return reinterpret_cast<std::byte*>(slot + 1); }
};

}  // namespace gpurun::transport::shm

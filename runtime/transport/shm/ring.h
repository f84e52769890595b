// A single-producer single-consumer ring of 64-byte cells in shared memory: how one rank's
// packets reach another on the same host.
//
// A packet takes one cell when its payload fits in the first cell (40 bytes), and more
// consecutive cells otherwise (64 payload bytes each). The first cell carries a sequence number,
// written last: the consumer polls that one word, and header and small payload arrive with it
// in the same cache line, so a small message costs the receiver one cache-line transfer and no
// atomic read-modify-write. A packet never wraps around the end of the ring: the producer pads
// with a skip cell instead.
//
// The consumer publishes how far it has read in a separate line, lazily (every quarter ring,
// and whenever it finds the ring empty), so that the producer rarely has to fetch that line.
//
// A cell the producer writes was last read by the consumer, so the write first has to take the
// line back from the consumer's cache: a cache-line transfer. The producer asks for all the cells
// of a packet before it copies the payload, and after it for the cells the next packet will take
// if it is as long (prefetch for writing), so that those transfers run in parallel instead of one
// after another behind each store.
//
// While the consumer keeps up, the producer keeps to the ring's first kHomeCells cells: at the
// first packet of a lap that would start beyond them, it looks how far the consumer has read
// (the one fetch of that line per lap), and if nearly all is read it pads to the end of the ring
// and starts the next lap at cell 0. A ping-pong then touches no more lines and pages than a
// ring of that size would (a ring four times as large cost 10-15% of the latency at 1K-2K), while
// a stream of messages that outruns the consumer still fills the whole ring.
//
// The consumer only reads the sequence word of the cell where the next packet starts, and that
// cell may hold payload bytes of an earlier lap that happen to equal the number it waits for.
// Two guards keep those bytes from passing for a packet:
// - the consumer stamps the continuation cells of a short packet (at most kStampCells cells)
//   with a number never expected there again; these few stores cost less than a clear by the
//   producer in a ping-pong of short messages;
// - for a longer packet, whose stamping would cost the consumer a store into every line it has
//   just read, the producer clears instead: for one lap after such a packet it clears the first
//   cell of the next packet before it releases the current one (that cell counts as taken in the
//   ring's room), and it clears the cells under padding that a packet was written into since
//   they were last cleared, so that no cell keeps a payload of an earlier lap.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "runtime/base/copy.h"
#include "runtime/base/prefetch.h"
#include "runtime/transport/transport.h"

namespace gpurun::transport::shm {

inline constexpr std::size_t kCellSize = 64;
inline constexpr std::size_t kFirstPayload = 40;  // payload bytes in the first cell
// How far ahead of its tail the producer claims cells for writing, at least.
inline constexpr std::uint64_t kPrefetchCells = 16;
// The cells a producer keeps to while the consumer keeps up (64K).
inline constexpr std::uint64_t kHomeCells = 1024;
// The longest packet, in cells, whose continuation cells the consumer stamps (a payload of up to
// 552 bytes).
inline constexpr std::uint32_t kStampCells = 9;

struct alignas(kCellSize) Cell {
  std::atomic<std::uint32_t> seq;  // position + 1 of the packet's first cell, written last
  std::uint32_t length;            // payload bytes
  PacketHeader header;
  std::byte payload[kFirstPayload];
};
static_assert(sizeof(Cell) == kCellSize);

// Where a packet's payload starts: contiguous from the first cell into the next ones.
inline std::byte* payload_of(Cell* cell) {
  return reinterpret_cast<std::byte*>(cell) + offsetof(Cell, payload);
}
inline const std::byte* payload_of(const Cell* cell) {
  return reinterpret_cast<const std::byte*>(cell) + offsetof(Cell, payload);
}

struct alignas(kCellSize) RingControl {
  std::atomic<std::uint64_t> head;  // cells the consumer has released
};

// Cells a packet with `length` payload bytes occupies.
inline std::uint32_t cells_for(std::size_t length) {
  if (length <= kFirstPayload) return 1;
  return 1 + static_cast<std::uint32_t>((length - kFirstPayload + kCellSize - 1) / kCellSize);
}

// The producer's side; its state is private to the producer.
class RingWriter {
 public:
  RingWriter() = default;
  // `count` is a power of two; `home` (at most `count`): see the top of the file.
  RingWriter(RingControl* control, Cell* cells, std::uint32_t count,
             std::uint64_t home = kHomeCells)
      : control_(control),
        cells_(cells),
        count_(count),
        mask_(count - 1),
        home_(home < count ? home : count) {}

  // Writes one packet, or returns false when the ring has no room for it now.
  bool write(const PacketHeader& header, const void* payload, std::size_t length) {
    std::uint32_t need = cells_for(length);
    std::uint64_t index = tail_ & mask_;
    std::uint64_t pad = (wraps(index, need) || leave_home(index)) ? count_ - index : 0;
    if (!reserve(need + pad + 1)) return false;
    if (pad != 0) {
      for (std::uint64_t p = index + 1; p < written_until_; ++p) clear(tail_ - index + p);
      written_until_ = index + 1;
      Cell& skip = cells_[index];
      skip.length = static_cast<std::uint32_t>(pad);
      skip.header.type = kSkip;
      skip.seq.store(static_cast<std::uint32_t>(tail_ + 1), std::memory_order_release);
      tail_ += pad;
      index = 0;
    }
    Cell& first = cells_[index];
    claim_until(tail_ + need);  // the packet's own cells
    first.length = static_cast<std::uint32_t>(length);
    copy_header(&first.header, header);
    // The first cell's payload ends at the cell's end, so a longer payload runs on through
    // the following cells in one block.
    copy_bytes(payload_of(&first), payload, length);
    if (need > kStampCells) loose_until_ = tail_ + need + count_;
    if (tail_ + need < loose_until_) clear(tail_ + need);
    first.seq.store(static_cast<std::uint32_t>(tail_ + 1), std::memory_order_release);
    tail_ += need;
    if (index + need > written_until_) written_until_ = index + need;
    // The cells the next packet takes if it is as long as this one, and at least kPrefetchCells.
    claim_until(tail_ + (need > kPrefetchCells ? need : kPrefetchCells));
    return true;
  }

  // Largest payload the ring can ever take in one packet (with padding and the cell after it, a
  // packet never needs more than the whole ring).
  std::size_t max_length() const { return kFirstPayload + (count_ / 2 - 1) * kCellSize; }
  // Whether write() would find room for a packet of `length` bytes now (a fresh look at the
  // consumer's head when the last one says no); padding that leave_home() may add is left out.
  bool has_room_for(std::size_t length) {
    std::uint64_t need = cells_for(length);
    std::uint64_t index = tail_ & mask_;
    return reserve(need + (wraps(index, need) ? count_ - index : 0) + 1);
  }

  static constexpr std::uint8_t kSkip = 0xff;

 private:
  // At the first packet of a lap that would start at `index` beyond the home cells: whether the
  // consumer has read all but a few cells, so that the lap may end here.
  bool leave_home(std::uint64_t index) {
    if (index < home_ || checked_lap_ == tail_ - index) return false;
    checked_lap_ = tail_ - index;
    cached_head_ = control_->head.load(std::memory_order_acquire);
    return tail_ - cached_head_ <= home_ / 4;
  }
  // Whether `need` cells from ring index `index` run past the ring's end (then the lap ends in
  // padding and the packet starts at cell 0).
  bool wraps(std::uint64_t index, std::uint64_t need) const { return index + need > count_; }
  bool reserve(std::uint64_t cells) {
    if (tail_ + cells - cached_head_ <= count_) return true;
    cached_head_ = control_->head.load(std::memory_order_acquire);
    return tail_ + cells - cached_head_ <= count_;
  }
  // Makes the cell at `position` hold a sequence number it is never expected to hold there:
  // the one of the same cell a lap earlier.
  void clear(std::uint64_t position) {
    cells_[position & mask_].seq.store(static_cast<std::uint32_t>(position + 1 - count_),
                                       std::memory_order_relaxed);
  }
  // Claims for writing the cells from the tail up to `end` that are not claimed yet.
  void claim_until(std::uint64_t end) {
    for (std::uint64_t p = prefetched_ > tail_ ? prefetched_ : tail_; p < end; ++p)
      prefetch_for_write(&cells_[p & mask_]);
    if (end > prefetched_) prefetched_ = end;
  }
  RingControl* control_ = nullptr;
  Cell* cells_ = nullptr;
  std::uint64_t count_ = 0;
  std::uint64_t mask_ = 0;
  std::uint64_t tail_ = 0;
  std::uint64_t cached_head_ = 0;
  std::uint64_t home_ = 0;
  // Where the lap that leave_home() last looked at starts.
  std::uint64_t checked_lap_ = ~std::uint64_t{0};
  std::uint64_t prefetched_ = 0;  // cells below this were claimed for writing
  // Cells below this may hold an unstamped payload from the lap before: clear before release.
  std::uint64_t loose_until_ = 0;
  // Cells from this index on hold no payload written since they were last cleared (or ever).
  std::uint64_t written_until_ = 0;
};

// The consumer's side; its state is private to the consumer.
class RingReader {
 public:
  RingReader() = default;
  // `count` is a power of two.
  RingReader(RingControl* control, Cell* cells, std::uint32_t count)
      : control_(control),
        cells_(cells),
        count_(count),
        mask_(count - 1),
        publish_every_(count / 4) {}

  // The next packet's first cell, or nullptr when none has arrived. Skips padding.
  const Cell* peek() {
    while (true) {
      if (!written(head_)) {
        if (published_ != head_) publish();
        return nullptr;
      }
      const Cell& cell = cells_[head_ & mask_];
      if (cell.header.type != RingWriter::kSkip) return &cell;
      head_ += cell.length;
    }
  }
  // Whether a packet (or padding) follows the one at the head.
  bool more_after_head() const {
    if (!written(head_)) return false;
    const Cell& cell = cells_[head_ & mask_];
    return written(head_ +
                   (cell.header.type == RingWriter::kSkip ? cell.length : cells_for(cell.length)));
  }
  // Releases the packet peek() returned.
  void pop(const Cell* cell) {
    std::uint32_t cells = cells_for(cell->length);
    // After a longer packet the producer guards against stale bytes (see the top of the file).
    if (cells <= kStampCells) stamp(cells);
    head_ += cells;
    if (head_ - published_ >= publish_every_) publish();
  }

 private:
  // Gives each continuation cell of the packet at the head a sequence number that is never
  // expected there again.
  void stamp(std::uint32_t cells) {
    for (std::uint32_t i = 1; i < cells; ++i) {
      std::uint64_t position = head_ + i;
      auto& word = const_cast<Cell&>(cells_[position & mask_]).seq;
      word.store(static_cast<std::uint32_t>(position + 1), std::memory_order_relaxed);
    }
  }
  // Whether the producer has released the packet (or padding) that starts at `position`.
  bool written(std::uint64_t position) const {
    return cells_[position & mask_].seq.load(std::memory_order_acquire) ==
           static_cast<std::uint32_t>(position + 1);
  }
  void publish() {
    control_->head.store(head_, std::memory_order_release);
    published_ = head_;
  }
  RingControl* control_ = nullptr;
  const Cell* cells_ = nullptr;
  std::uint64_t count_ = 0;
  std::uint64_t mask_ = 0;
  std::uint64_t head_ = 0;
  std::uint64_t published_ = 0;
  std::uint64_t publish_every_ = 1;
};

}  // namespace gpurun::transport::shm

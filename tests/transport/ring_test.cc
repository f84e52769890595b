#include "runtime/transport/shm/ring.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <memory>
#include <thread>
#include <vector>

namespace gpurun::transport::shm {
namespace {

// A ring in ordinary memory: the same code as in a shared segment, one producer, one consumer.
struct TestRing {
  explicit TestRing(std::uint32_t cells)
      : memory(static_cast<std::byte*>(std::aligned_alloc(64, 64 * (cells + 1)))), count(cells) {
    std::memset(memory, 0, 64 * (cells + 1));
    control = reinterpret_cast<RingControl*>(memory);
    first = reinterpret_cast<Cell*>(memory + 64);
  }
  ~TestRing() { std::free(memory); }
  RingWriter writer(std::uint64_t home = kHomeCells) {
    return RingWriter(control, first, count, home);
  }
  RingReader reader() { return RingReader(control, first, count); }
  std::byte* memory;
  std::uint32_t count;
  RingControl* control;
  Cell* first;
};

// Deterministic contents: byte i of packet n.
std::byte byte_of(std::uint64_t n, std::size_t i) {
  return static_cast<std::byte>((n * 131 + i * 7 + (i >> 8)) & 0xff);
}

std::vector<std::byte> payload(std::uint64_t n, std::size_t length) {
  std::vector<std::byte> out(length);
  for (std::size_t i = 0; i < length; ++i) out[i] = byte_of(n, i);
  return out;
}

PacketHeader header_of(std::uint64_t n) {
  return PacketHeader{1, 0, 0, static_cast<std::uint32_t>(n), static_cast<std::int32_t>(n * 3), 0};
}

void expect_packet(const Cell* cell, std::uint64_t n, std::size_t length) {
  ASSERT_NE(cell, nullptr);
  EXPECT_EQ(cell->length, length);
  EXPECT_EQ(cell->header.context, static_cast<std::uint32_t>(n));
  EXPECT_EQ(cell->header.tag, static_cast<std::int32_t>(n * 3));
  const std::byte* data = payload_of(cell);
  for (std::size_t i = 0; i < length; ++i) ASSERT_EQ(data[i], byte_of(n, i)) << "packet " << n;
}

TEST(Ring, CellsForPayloads) {
  EXPECT_EQ(cells_for(0), 1u);
  EXPECT_EQ(cells_for(kFirstPayload), 1u);
  EXPECT_EQ(cells_for(kFirstPayload + 1), 2u);
  EXPECT_EQ(cells_for(kFirstPayload + 64), 2u);
  EXPECT_EQ(cells_for(kFirstPayload + 65), 3u);
}

TEST(Ring, EmptyFullAndInOrder) {
  TestRing ring(16);
  RingWriter w = ring.writer();
  RingReader r = ring.reader();
  EXPECT_EQ(r.peek(), nullptr);
  // 15 packets: the cell after the last one counts as taken.
  for (std::uint64_t n = 0; n < 15; ++n)
    ASSERT_TRUE(w.write(header_of(n), payload(n, 8).data(), 8));
  EXPECT_FALSE(w.write(header_of(99), payload(99, 8).data(), 8)) << "a full ring must refuse";
  for (std::uint64_t n = 0; n < 15; ++n) {
    const Cell* c = r.peek();
    expect_packet(c, n, 8);
    r.pop(c);
  }
  EXPECT_EQ(r.peek(), nullptr);
  // The consumer published its position when it found the ring empty: room again.
  EXPECT_TRUE(w.write(header_of(15), payload(15, 8).data(), 8));
}

TEST(Ring, MultiCellPacketsWrapWithSkipCells) {
  TestRing ring(16);
  RingWriter w = ring.writer();
  RingReader r = ring.reader();
  std::uint64_t sent = 0, received = 0;
  // 5-cell packets do not divide 16: every lap ends with padding.
  ASSERT_EQ(cells_for(260), 5u);
  for (int round = 0; round < 50; ++round) {
    while (w.write(header_of(sent), payload(sent, 260).data(), 260)) ++sent;
    while (const Cell* c = r.peek()) {
      expect_packet(c, received, 260);
      r.pop(c);
      ++received;
    }
  }
  EXPECT_EQ(sent, received);
  EXPECT_GE(sent, 100u);
}

// A payload of `cells` cells, to be written at ring position `at`, whose bytes in each
// continuation cell's sequence word are the number the consumer will expect in that cell
// `laps` laps later.
std::vector<std::byte> tricky(std::uint32_t cells, std::uint64_t at, std::uint32_t count,
                              std::uint64_t laps) {
  std::vector<std::byte> out(kFirstPayload + std::size_t{cells - 1} * 64);
  for (std::uint32_t k = 1; k < cells; ++k) {
    auto v = static_cast<std::uint32_t>(at + k + laps * count + 1);
    std::memcpy(&out[kFirstPayload + std::size_t{k - 1} * 64], &v, sizeof v);
  }
  return out;
}

// Writes one-cell packets numbered `from` to `to` - 1, each read at once, the consumer then
// finding the ring empty (as in a ping-pong); returns the highest cell a packet took (-1 where a
// packet went missing).
std::ptrdiff_t lockstep(RingWriter& w, RingReader& r, const Cell* first, std::uint64_t from,
                        std::uint64_t to) {
  std::ptrdiff_t highest = 0;
  for (std::uint64_t n = from; n < to; ++n) {
    const Cell* c = w.write(header_of(n), payload(n, 4).data(), 4) ? r.peek() : nullptr;
    if (c == nullptr) {
      ADD_FAILURE() << "packet " << n << " was refused or did not arrive";
      return -1;
    }
    expect_packet(c, n, 4);
    highest = std::max(highest, c - first);
    r.pop(c);
    EXPECT_EQ(r.peek(), nullptr);
  }
  return highest;
}

// Reads a packet of `cells` cells written at `at` whose payload looks like later packets.
void read_tricky(RingWriter& w, RingReader& r, std::uint32_t cells, std::uint64_t at,
                 std::uint32_t count, std::uint64_t laps) {
  std::vector<std::byte> data = tricky(cells, at, count, laps);
  ASSERT_EQ(cells_for(data.size()), cells);
  ASSERT_TRUE(w.write(header_of(at), data.data(), data.size()));
  const Cell* c = r.peek();
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(c->length, data.size());
  r.pop(c);
}

// The consumer waits where no packet was written, however often it looks.
void expect_nothing(RingReader& r) {
  for (int i = 0; i < 20; ++i) EXPECT_EQ(r.peek(), nullptr) << "a stale payload was read";
}

// Writes and reads a packet of `cells` cells whose payload looks like the next lap's packets,
// then goes on until the consumer waits at cell `wait_at` of the next lap.
void expect_no_stale_packet(std::uint32_t count, std::uint32_t cells, std::uint64_t wait_at) {
  TestRing ring(count);
  RingWriter w = ring.writer();
  RingReader r = ring.reader();
  read_tricky(w, r, cells, 0, count, 1);
  lockstep(w, r, ring.first, cells, count + wait_at);
  expect_nothing(r);
}

// Payload bytes left in continuation cells must never pass for a packet on a later lap: a short
// packet's cells are stamped by the consumer.
TEST(Ring, StaleShortPayloadNeverLooksLikeAPacket) {
  ASSERT_LE(7u, kStampCells);
  expect_no_stale_packet(16, 7, 3);
}

// The same after a longer packet, whose cells the producer clears as the next lap goes on.
TEST(Ring, StaleLongPayloadNeverLooksLikeAPacket) {
  ASSERT_GT(12u, kStampCells);
  expect_no_stale_packet(32, 12, 1);
}

// A longer packet's cells that lie under padding on the next lap are still cleared then, and
// cannot pass for a packet two laps later.
TEST(Ring, StalePayloadUnderPaddingNeverLooksLikeAPacket) {
  TestRing ring(32);
  RingWriter w = ring.writer();
  RingReader r = ring.reader();
  lockstep(w, r, ring.first, 0, 20);
  read_tricky(w, r, 12, 20, 32, 2);  // cells 20..31
  lockstep(w, r, ring.first, 32, 32 + 24);
  // 9 cells do not fit in the 8 left: padding over cells 24..31 of this lap.
  ASSERT_TRUE(w.write(header_of(56), payload(56, 500).data(), 500));
  const Cell* c = r.peek();
  expect_packet(c, 56, 500);
  r.pop(c);
  lockstep(w, r, ring.first, 64 + 9, 64 + 25);  // the consumer now waits at cell 25, two laps on
  expect_nothing(r);
}

// has_room_for: room for a packet of that length now, as the consumer's published position
// says (the streaming sender's test in the pml).
TEST(Ring, SaysWhetherAPacketFitsNow) {
  TestRing ring(16);
  RingWriter w = ring.writer();
  RingReader r = ring.reader();
  const std::size_t three_cells = kFirstPayload + 2 * kCellSize;
  EXPECT_TRUE(w.has_room_for(three_cells));
  for (std::uint64_t n = 0; n < 13; ++n)
    ASSERT_TRUE(w.write(header_of(n), payload(n, 8).data(), 8));
  EXPECT_TRUE(w.has_room_for(8)) << "3 cells left, the last one counting as taken";
  EXPECT_FALSE(w.has_room_for(three_cells));
  EXPECT_FALSE(w.write(header_of(13), payload(13, three_cells).data(), three_cells));
  for (std::uint64_t n = 0; n < 13; ++n) r.pop(r.peek());
  EXPECT_EQ(r.peek(), nullptr);  // the consumer publishes its position here
  EXPECT_TRUE(w.has_room_for(three_cells)) << "a fresh look at the consumer finds room";
}

TEST(Ring, SaysWhetherAPacketFollowsTheHead) {
  TestRing ring(32);
  RingWriter w = ring.writer();
  RingReader r = ring.reader();
  EXPECT_FALSE(r.more_after_head());
  lockstep(w, r, ring.first, 0, 27);
  ASSERT_TRUE(w.write(header_of(27), payload(27, 8).data(), 8));  // cell 27
  EXPECT_FALSE(r.more_after_head());
  ASSERT_TRUE(w.write(header_of(28), payload(28, 8).data(), 8));  // cell 28
  EXPECT_TRUE(r.more_after_head());
  r.pop(r.peek());
  EXPECT_FALSE(r.more_after_head());
  ASSERT_TRUE(w.write(header_of(29), payload(29, 700).data(), 700));  // padding, cells 0..11
  EXPECT_TRUE(r.more_after_head()) << "padding after the head";
  r.pop(r.peek());
  EXPECT_TRUE(r.more_after_head()) << "a packet after the padding at the head";
  expect_packet(r.peek(), 29, 700);  // past the padding
  EXPECT_FALSE(r.more_after_head());
  ASSERT_TRUE(w.write(header_of(30), payload(30, 8).data(), 8));
  EXPECT_TRUE(r.more_after_head());
}

// A consumer that keeps up: the producer keeps to its home cells, lap after lap.
TEST(Ring, KeepsToItsHomeWhileTheConsumerKeepsUp) {
  TestRing ring(64);
  RingWriter w = ring.writer(16);
  RingReader r = ring.reader();
  EXPECT_EQ(lockstep(w, r, ring.first, 0, 1000), 15)
      << "the producer went beyond its home cells with an empty ring";
}

// A consumer that falls behind: the producer goes on beyond its home cells, and the packets
// come out in order.
TEST(Ring, FillsTheWholeRingWhenTheConsumerFallsBehind) {
  TestRing ring(64);
  RingWriter w = ring.writer(16);
  RingReader r = ring.reader();
  for (int lap = 0; lap < 5; ++lap) {
    // 63 packets: the cell after the last one counts as taken.
    for (std::uint64_t n = 0; n < 63; ++n)
      ASSERT_TRUE(w.write(header_of(n), payload(n, 8).data(), 8)) << "lap " << lap << ", " << n;
    EXPECT_FALSE(w.write(header_of(99), payload(99, 8).data(), 8));
    for (std::uint64_t n = 0; n < 63; ++n) {
      const Cell* c = r.peek();
      expect_packet(c, n, 8);
      r.pop(c);
    }
    EXPECT_EQ(r.peek(), nullptr);
  }
}

// A longer packet written beyond the home cells while the consumer fell behind, then laps that
// keep to the home cells, then a lap that goes beyond them again: the old packet's payload must
// not pass for a packet (the first lap that leaves home early clears what lay beyond).
TEST(Ring, StalePayloadBeyondHomeNeverLooksLikeAPacket) {
  constexpr std::uint32_t kCount = 64;
  TestRing ring(kCount);
  RingWriter w = ring.writer(16);
  RingReader r = ring.reader();
  for (std::uint64_t n = 0; n < 30; ++n)
    ASSERT_TRUE(w.write(header_of(n), payload(n, 4).data(), 4));
  std::vector<std::byte> data = tricky(12, 30, kCount, 3);  // cells 30..41, like lap 3's
  ASSERT_TRUE(w.write(header_of(30), data.data(), data.size()));
  for (int n = 0; n < 31; ++n) {
    const Cell* c = r.peek();
    ASSERT_NE(c, nullptr);
    r.pop(c);
  }
  // The rest of lap 0 (cells 42..63), then laps 1 and 2 within the home cells.
  EXPECT_EQ(lockstep(w, r, ring.first, 0, 22 + 16 + 16), 63);
  // Lap 3: cells 0..9 read at once (the consumer passes the padding), then the consumer falls
  // behind until cell 35, catches up and waits there.
  EXPECT_EQ(lockstep(w, r, ring.first, 0, 10), 9);
  for (std::uint64_t n = 10; n < 35; ++n)
    ASSERT_TRUE(w.write(header_of(n), payload(n, 4).data(), 4)) << n;
  for (std::uint64_t n = 10; n < 35; ++n) {
    const Cell* c = r.peek();
    expect_packet(c, n, 4);
    EXPECT_EQ(c - ring.first, static_cast<std::ptrdiff_t>(n));
    r.pop(c);
  }
  expect_nothing(r);
}

// Packets of 0 to 699 bytes from one thread to another; `home`: the producer's home cells.
void run_concurrently(std::uint64_t home) {
  TestRing ring(64);
  constexpr std::uint64_t kPackets = 200000;
  auto length_of = [](std::uint64_t n) { return static_cast<std::size_t>((n * 37) % 700); };
  std::atomic<bool> stop{false};
  std::thread producer([&] {
    RingWriter w = ring.writer(home);
    for (std::uint64_t n = 0; n < kPackets && !stop; ++n) {
      std::vector<std::byte> data = payload(n, length_of(n));
      while (!w.write(header_of(n), data.data(), data.size()) && !stop) std::this_thread::yield();
    }
  });
  RingReader r = ring.reader();
  std::uint64_t n = 0;
  while (n < kPackets) {
    const Cell* c = r.peek();
    if (c == nullptr) {
      std::this_thread::yield();
      continue;
    }
    expect_packet(c, n, length_of(n));
    if (::testing::Test::HasFatalFailure()) {
      stop = true;
      break;
    }
    r.pop(c);
    ++n;
  }
  producer.join();
  EXPECT_EQ(n, kPackets);
}

TEST(Ring, ConcurrentProducerAndConsumer) { run_concurrently(64); }

// The same where the producer goes back to cell 0 early whenever the consumer keeps up.
TEST(Ring, ConcurrentProducerAndConsumerWithHomeCells) { run_concurrently(16); }

}  // namespace
}  // namespace gpurun::transport::shm

#include "runtime/transport/shm/ring.h"

#include <gtest/gtest.h>

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
  RingWriter writer() { return RingWriter(control, first, count); }
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
  for (std::uint64_t n = 0; n < 16; ++n) ASSERT_TRUE(w.write(header_of(n), payload(n, 8).data(), 8));
  EXPECT_FALSE(w.write(header_of(99), payload(99, 8).data(), 8)) << "a full ring must refuse";
  for (std::uint64_t n = 0; n < 16; ++n) {
    const Cell* c = r.peek();
    expect_packet(c, n, 8);
    r.pop(c);
  }
  EXPECT_EQ(r.peek(), nullptr);
  // The consumer published its position when it found the ring empty: room again.
  EXPECT_TRUE(w.write(header_of(16), payload(16, 8).data(), 8));
}

TEST(Ring, MultiCellPacketsWrapWithSkipCells) {
  TestRing ring(16);
  RingWriter w = ring.writer();
  RingReader r = ring.reader();
  std::uint64_t sent = 0, received = 0;
  // 5-cell packets do not divide 16: every lap ends with padding.
  for (int round = 0; round < 50; ++round) {
    while (w.write(header_of(sent), payload(sent, 300).data(), 300)) ++sent;
    while (const Cell* c = r.peek()) {
      expect_packet(c, received, 300);
      r.pop(c);
      ++received;
    }
  }
  EXPECT_EQ(sent, received);
  EXPECT_GE(sent, 100u);
}

// Payload bytes left in continuation cells must never pass for a packet on a later lap.
TEST(Ring, StalePayloadNeverLooksLikeAPacket) {
  TestRing ring(8);
  RingWriter w = ring.writer();
  RingReader r = ring.reader();
  // A payload whose 4-byte words are all the sequence numbers the next laps will expect.
  std::vector<std::byte> tricky(kFirstPayload + 64 * 6);
  for (std::size_t i = 0; i + 4 <= tricky.size(); i += 4) {
    std::uint32_t v = static_cast<std::uint32_t>(9 + i / 64);
    std::memcpy(&tricky[i], &v, 4);
  }
  ASSERT_TRUE(w.write(header_of(0), tricky.data(), tricky.size()));
  const Cell* c = r.peek();
  ASSERT_NE(c, nullptr);
  r.pop(c);
  ASSERT_TRUE(w.write(header_of(1), payload(1, 4).data(), 4));
  c = r.peek();
  expect_packet(c, 1, 4);
  r.pop(c);
  for (int i = 0; i < 20; ++i) EXPECT_EQ(r.peek(), nullptr) << "a stale payload was read";
}

TEST(Ring, ConcurrentProducerAndConsumer) {
  TestRing ring(64);
  constexpr std::uint64_t kPackets = 200000;
  auto length_of = [](std::uint64_t n) { return static_cast<std::size_t>((n * 37) % 700); };
  std::atomic<bool> stop{false};
  std::thread producer([&] {
    RingWriter w = ring.writer();
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
    if (HasFatalFailure()) {
      stop = true;
      break;
    }
    r.pop(c);
    ++n;
  }
  producer.join();
  EXPECT_EQ(n, kPackets);
}

}  // namespace
}  // namespace gpurun::transport::shm

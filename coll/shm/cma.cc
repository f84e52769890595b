#include "coll/shm/cma.h"

#include <algorithm>
#include <string>

#include "runtime/transport/shm/cma.h"

namespace gpurun::coll::shm {

Source source_of(const std::vector<Buffer>& blocks, bool must_copy, std::vector<std::byte>& copy) {
  bool direct = !must_copy;
  for (const Buffer& b : blocks) direct = direct && b.contiguous();
  auto address = [](const Buffer& b) { return reinterpret_cast<std::uint64_t>(b.packed(0)); };
  if (direct && blocks.size() > 1) {
    std::uint64_t stride = address(blocks[1]) - address(blocks[0]);
    for (std::size_t i = 2; i < blocks.size() && direct; ++i)
      direct = address(blocks[i]) - address(blocks[i - 1]) == stride;
    if (direct) return Source{address(blocks[0]), stride};
  } else if (direct && blocks.size() == 1) {
    return Source{address(blocks[0]), 0};
  }
  std::uint64_t block = blocks.empty() ? 0 : blocks[0].bytes();
  copy.resize(block * blocks.size());
  for (std::size_t i = 0; i < blocks.size(); ++i) blocks[i].pack(0, copy.data() + i * block, block);
  return Source{reinterpret_cast<std::uint64_t>(copy.data()), block};
}

std::uint64_t in_slot_max(std::size_t slot_bytes, int blocks, bool shared_cores) {
  std::uint64_t room = slot_bytes / static_cast<std::size_t>(blocks) - kLineBytes;
  return std::min<std::uint64_t>(shared_cores ? 32768 : 4096, room / kLineBytes * kLineBytes);
}

bool put_entry(EntryLine& e, std::uint64_t seq, const Buffer& block, std::uint64_t bytes,
               std::byte* slot, std::uint64_t& at, std::uint64_t small, const std::byte* address) {
  e.check = line_check(seq);
  e.bytes = bytes;
  bool by_address = false;
  if (bytes <= kEntryData) {
    block.pack(0, e.data, bytes);
    e.where = kInEntry;
  } else if (bytes <= small) {
    block.pack(0, slot + at, bytes);
    e.where = kInSlot | at;
    at += (bytes + kLineBytes - 1) / kLineBytes * kLineBytes;
  } else {
    e.where = reinterpret_cast<std::uint64_t>(address);
    by_address = true;
  }
  e.seq.store(seq, std::memory_order_release);
  return by_address;
}

const std::byte* entry_address(const Buffer& block, std::uint64_t small, bool must_copy,
                               std::vector<std::byte>& copy) {
  std::uint64_t n = block.bytes();
  if (n <= small) return nullptr;
  if (block.contiguous() && !must_copy) return block.packed(0);
  copy.resize(n);
  block.pack(0, copy.data(), n);
  return copy.data();
}

void put_entries(EntryLine* entries, std::uint64_t seq, const std::vector<Buffer>& blocks, int self,
                 std::byte* slot, std::uint64_t small, bool must_copy, std::vector<std::byte>& copy,
                 std::vector<std::uint8_t>& addressed) {
  std::size_t p = blocks.size(), packed = 0;
  auto by_address = [&](const Buffer& b) { return !must_copy && b.contiguous(); };
  for (std::size_t r = 0; r < p; ++r)
    if (static_cast<int>(r) != self && blocks[r].bytes() > small && !by_address(blocks[r]))
      packed += blocks[r].bytes();
  copy.resize(packed);  // once: the addresses published must stay
  packed = 0;
  addressed.assign(p, 0);
  std::uint64_t at = p * kLineBytes;
  for (std::size_t r = 0; r < p; ++r) {
    if (static_cast<int>(r) == self) continue;
    const Buffer& b = blocks[r];
    const std::byte* address = nullptr;
    if (b.bytes() > small && by_address(b)) {
      address = b.packed(0);
    } else if (b.bytes() > small) {
      address = copy.data() + packed;
      b.pack(0, copy.data() + packed, b.bytes());
      packed += b.bytes();
    }
    addressed[r] = put_entry(entries[r], seq, b, b.bytes(), slot, at, small, address) ? 1 : 0;
  }
}

Status take_entry(const EntryLine& e, const std::byte* slot, std::size_t slot_bytes, int pid,
                  const Buffer& into, std::uint64_t got, std::vector<std::byte>& scratch) {
  if (e.where == kInEntry) {
    into.unpack(0, e.data, got);
  } else if ((e.where & kInSlot) != 0) {
    std::uint64_t at = e.where & ~kInSlot;
    if (at > slot_bytes || got > slot_bytes - at)
      return Status(ErrorCode::kInternal, "its entry points outside its slot");
    into.unpack(0, slot + at, got);
  } else {
    return read_block(pid, e.where, into, got, scratch);
  }
  return ok_status();
}

Status no_source(const char* collective, int rank) {
  return Status(ErrorCode::kInvalidArgument,
                std::string(collective) + ": rank " + std::to_string(rank) +
                    " runs another algorithm for this call: the ranks' counts or datatypes do "
                    "not match");
}

Status read_block(int pid, std::uint64_t remote, const Buffer& into, std::uint64_t bytes,
                  std::vector<std::byte>& scratch) {
  if (bytes == 0) return ok_status();
  if (into.contiguous()) return transport::shm::cma_read(pid, into.packed(0), remote, bytes);
  scratch.resize(bytes);
  Status st = transport::shm::cma_read(pid, scratch.data(), remote, bytes);
  if (st.ok()) into.unpack(0, scratch.data(), bytes);
  return st;
}

Status write_block(int pid, std::uint64_t remote, const Buffer& from, std::uint64_t bytes,
                   std::vector<std::byte>& scratch) {
  if (bytes == 0) return ok_status();
  if (from.contiguous()) return transport::shm::cma_write(pid, from.packed(0), remote, bytes);
  scratch.resize(bytes);
  from.pack(0, scratch.data(), bytes);
  return transport::shm::cma_write(pid, scratch.data(), remote, bytes);
}

}  // namespace gpurun::coll::shm

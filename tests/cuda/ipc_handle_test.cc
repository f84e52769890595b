// Marshalling of what crosses processes: the transport's address, cookies, descriptors in the
// shared export table.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstring>

#include "cuda/ipc/address.h"
#include "cuda/ipc/fd_channel.h"
#include "cuda/ipc/table.h"

namespace gpurun::cuda::ipc {
namespace {

std::string token() { return "ipctest" + std::to_string(getpid()); }

TEST(IpcAddress, RoundTrips) {
  PeerAddress a{3, "fd:1234:7:65536", "/tmp/gpurun-x/cuda_ipc-tok-3"};
  auto bytes = encode_address(a);
  auto back = decode_address(bytes);
  ASSERT_TRUE(back.ok()) << back.status().to_string();
  EXPECT_EQ(back->rank, 3);
  EXPECT_EQ(back->table, a.table);
  EXPECT_EQ(back->socket, a.socket);
  PeerAddress no_socket{0, "name:/gpurun-t-cuda_ipc-0:4096", ""};
  auto back2 = decode_address(encode_address(no_socket));
  ASSERT_TRUE(back2.ok());
  EXPECT_TRUE(back2->socket.empty());
}

TEST(IpcAddress, RejectsForeignBytes) {
  std::string shm_address = "fd:1234:7:65536";  // what the shm transport publishes
  std::span<const std::byte> span(reinterpret_cast<const std::byte*>(shm_address.data()),
                                  shm_address.size());
  EXPECT_EQ(decode_address(span).status().code(), ErrorCode::kInvalidArgument);
  auto bytes = encode_address(PeerAddress{1, "abc", "def"});
  bytes.pop_back();
  EXPECT_EQ(decode_address(bytes).status().code(), ErrorCode::kInvalidArgument);
  EXPECT_FALSE(decode_address({}).ok());
}

TEST(IpcCookie, NamesSlotAndGenerationAndIsToldFromShmCookies) {
  transport::BulkCookie c = make_cookie(17, 0xdeadbeef);
  EXPECT_TRUE(is_ipc_cookie(c));
  EXPECT_EQ(cookie_slot(c), 17u);
  EXPECT_EQ(cookie_generation(c), 0xdeadbeefu);
  // The shm transport's cookies: address 0 (pipeline) or a user-space address (CMA).
  EXPECT_FALSE(is_ipc_cookie(transport::BulkCookie{5, 0}));
  int local = 0;
  EXPECT_FALSE(is_ipc_cookie(transport::BulkCookie{5, reinterpret_cast<std::uint64_t>(&local)}));
}

TEST(IpcTable, DescriptorCrossesToAnotherMapping) {
  auto owner = Table::create(4, 8, 2, "/gpurun-" + token() + "-cuda_ipc-2");
  ASSERT_TRUE(owner.ok()) << owner.status().to_string();
  auto peer = Table::attach((*owner)->descriptor());
  ASSERT_TRUE(peer.ok()) << peer.status().to_string();
  EXPECT_EQ((*owner)->header().attached.load(), 1u);
  EXPECT_EQ((*peer)->slots(), 8u);
  EXPECT_EQ((*peer)->header().owner_rank, 2);

  Descriptor d;
  d.kind = HandleKind::kPool;
  d.device = 1;
  d.buffer_id = 99;
  d.range_start = 0x7f0000000000;
  d.range_size = 1 << 21;
  d.offset = 4096;
  d.size = 1000;
  d.pool_id = 0xabcdef;
  for (int i = 0; i < 16; ++i) d.device_uuid[i] = static_cast<unsigned char>(i);
  for (int i = 0; i < 64; ++i) d.handle[i] = static_cast<unsigned char>(255 - i);
  Slot& mine = (*owner)->slot(3, 5);
  mine.descriptor = d;
  mine.generation = 41;
  mine.state.store(static_cast<std::uint32_t>(SlotState::kOffered), std::memory_order_release);

  Slot& theirs = (*peer)->slot(3, 5);
  ASSERT_NE(&mine, &theirs) << "two mappings of one segment";
  EXPECT_EQ(theirs.state.load(std::memory_order_acquire),
            static_cast<std::uint32_t>(SlotState::kOffered));
  EXPECT_EQ(theirs.generation, 41u);
  EXPECT_EQ(std::memcmp(&theirs.descriptor, &d, sizeof d), 0);
  // Answers go the other way.
  theirs.state.store(static_cast<std::uint32_t>(SlotState::kDone), std::memory_order_release);
  EXPECT_EQ(mine.state.load(), static_cast<std::uint32_t>(SlotState::kDone));
  // Lanes and slots do not overlap.
  EXPECT_LE(reinterpret_cast<std::byte*>(&(*owner)->slot(2, 7)) + sizeof(Slot),
            reinterpret_cast<std::byte*>(&(*owner)->lane(3)));
}

TEST(IpcTable, ReleaseRingIsShared) {
  auto owner = Table::create(2, 4, 0, "/gpurun-" + token() + "-cuda_ipc-0");
  ASSERT_TRUE(owner.ok());
  auto peer = Table::attach((*owner)->descriptor());
  ASSERT_TRUE(peer.ok());
  LaneControl& lane = (*owner)->lane(1);
  lane.released[0] = 1234;
  lane.released_head.store(1, std::memory_order_release);
  LaneControl& seen = (*peer)->lane(1);
  EXPECT_EQ(seen.released_head.load(std::memory_order_acquire), 1u);
  EXPECT_EQ(seen.released[0], 1234u);
  seen.refused.store(1);
  EXPECT_EQ(lane.refused.load(), 1u);
}

TEST(IpcTable, AttachRejectsOtherSegments) {
  EXPECT_FALSE(Table::attach("nonsense").ok());
  EXPECT_FALSE(Table::attach("fd:1:99999:4096").ok());
}

TEST(IpcFdMessage, HasAFixedLayout) {
  FdMessage m;
  EXPECT_EQ(m.magic, kFdMessageMagic);
  EXPECT_EQ(sizeof m, 24u);
  EXPECT_EQ(std::string(handle_kind_name(HandleKind::kVmm)), "vmm");
  EXPECT_EQ(std::string(handle_kind_name(HandleKind::kLegacy)), "legacy");
  EXPECT_EQ(std::string(handle_kind_name(HandleKind::kPool)), "pool");
}

}  // namespace
}  // namespace gpurun::cuda::ipc

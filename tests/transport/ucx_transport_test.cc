// The ucx transport through the network conformance suite, over UCX's TCP (the network path)
// and over its shared-memory transports (what ranks of one host use when forced onto ucx);
// once more over TCP with bulk data cut into pieces of 4K, a window of 4 of them in flight, so
// that every bulk test moves many pieces, out of order and beyond the window.
#include "runtime/transport/ucx/ucx_transport.h"

#include <cstring>

#include "tests/transport/net_conformance.h"

namespace gpurun::transport::testing {
namespace {

Result<std::unique_ptr<Transport>> create_ucx(int rank, int size, PacketHandler handler) {
  ucx::Config config{.rank = rank, .size = size, .loopback_only = true};
  GPURUN_ASSIGN_OR_RETURN(auto t, ucx::UcxTransport::create(config, handler));
  return std::unique_ptr<Transport>(std::move(t));
}

Result<std::unique_ptr<Transport>> create_ucx_pieces(int rank, int size, PacketHandler handler) {
  ucx::Config config{.rank = rank,
                     .size = size,
                     .loopback_only = true,
                     .piece_size = std::size_t{4096},
                     .piece_window = 4};
  GPURUN_ASSIGN_OR_RETURN(auto t, ucx::UcxTransport::create(config, handler));
  return std::unique_ptr<Transport>(std::move(t));
}

INSTANTIATE_TEST_SUITE_P(Ucx, NetConformance,
                         ::testing::Values(NetSetup{"ucx_tcp", create_ucx, "UCX_TLS=tcp,self"},
                                           NetSetup{"ucx_shm", create_ucx, "UCX_TLS=sm,self"},
                                           NetSetup{"ucx_tcp_pieces", create_ucx_pieces,
                                                    "UCX_TLS=tcp,self"}),
                         setup_name);

TEST(UcxTransport, NamesItselfUcx) {
  ScopedEnv env("UCX_TLS=tcp,self");
  auto t = create_ucx(0, 1, PacketHandler{});
  ASSERT_TRUE(t.ok()) << t.status().to_string();
  EXPECT_EQ(t.value()->caps().name, "ucx");
}

// Two processes of different jobs (each rank 0 of 2): each numbers the other beyond its job
// (5 and 3), packets arrive with the sender's number at the receiver, and bulk data moves.
TEST(UcxTransport, ReachesAProcessOfAnotherJob) {
  ScopedEnv env("UCX_TLS=tcp,self");
  std::vector<Received> got[2];
  auto on_packet = [](void* context, const Packet& p) {
    auto* into = static_cast<std::vector<Received>*>(context);
    into->push_back(Received{p.peer, *p.header, std::vector<std::byte>(p.payload,
                                                                        p.payload + p.length)});
  };
  auto a = create_ucx(0, 2, PacketHandler{on_packet, &got[0]});
  auto b = create_ucx(0, 2, PacketHandler{on_packet, &got[1]});
  ASSERT_TRUE(a.ok() && b.ok());
  Transport& ta = **a;
  Transport& tb = **b;
  EXPECT_EQ(ta.connect_other_job(1, 3, tb.address()).status().code(),
            ErrorCode::kInvalidArgument);  // a number of its own job
  auto to_b = ta.connect_other_job(5, 3, tb.address());
  auto to_a = tb.connect_other_job(3, 5, ta.address());
  ASSERT_TRUE(to_b.ok() && to_a.ok()) << to_b.status().to_string();
  auto progress_until = [&](const std::function<bool()>& done) {
    for (int i = 0; i < 2000000 && !done(); ++i) {
      ta.progress();
      tb.progress();
    }
    return done();
  };
  PacketHeader h{1, 0, 0, 7, 11, 0};
  std::vector<std::byte> payload = pattern(100, 1);
  ASSERT_TRUE((*to_b)->send(h, payload.data(), payload.size()).ok());
  ASSERT_TRUE((*to_a)->send(h, payload.data(), payload.size()).ok());
  ASSERT_TRUE(progress_until([&] { return got[0].size() == 1 && got[1].size() == 1; }));
  EXPECT_EQ(got[1][0].peer, 3);  // B knows A as 3
  EXPECT_EQ(got[0][0].peer, 5);  // A knows B as 5
  EXPECT_EQ(got[1][0].payload, payload);

  std::vector<std::byte> big = pattern(std::size_t{1} << 20, 2), into(big.size());
  Done offered, pulled;
  auto cookie = (*to_b)->offer(contiguous(big, big.size()), offered.completion());
  ASSERT_TRUE(cookie.ok());
  ASSERT_TRUE((*to_b)->send(h, &*cookie, sizeof *cookie).ok());  // the cookie travels
  ASSERT_TRUE(progress_until([&] { return got[1].size() == 2; }));
  BulkCookie arrived;
  std::memcpy(&arrived, got[1][1].payload.data(), sizeof arrived);
  ASSERT_TRUE((*to_a)->pull(arrived, contiguous(into, into.size()), pulled.completion()).ok());
  ASSERT_TRUE(progress_until([&] { return offered.called && pulled.called; }));
  EXPECT_TRUE(offered.status.ok() && pulled.status.ok());
  EXPECT_EQ(into, big);
}

}  // namespace
}  // namespace gpurun::transport::testing

// The ucx transport through the network conformance suite, over UCX's TCP (the network path)
// and over its shared-memory transports (what ranks of one host use when forced onto ucx);
// once more over TCP with bulk data cut into pieces of 4K, a window of 4 of them in flight, so
// that every bulk test moves many pieces, out of order and beyond the window.
#include "runtime/transport/ucx/ucx_transport.h"

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

}  // namespace
}  // namespace gpurun::transport::testing

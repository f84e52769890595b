// The ofi transport through the network conformance suite over libfabric's tcp provider on
// loopback (once more with bulk data in small pieces), and the provider and domain choice
// against fixed offer lists.
#include "runtime/transport/ofi/ofi_transport.h"

#include "tests/transport/net_conformance.h"

namespace gpurun::transport::testing {
namespace {

Result<std::unique_ptr<Transport>> create_ofi(int rank, int size, PacketHandler handler) {
  ofi::Config config{.rank = rank, .size = size, .loopback_only = true};
  GPURUN_ASSIGN_OR_RETURN(auto t, ofi::OfiTransport::create(config, handler));
  return std::unique_ptr<Transport>(std::move(t));
}

// Bulk data in pieces of 4K, 4 in flight: every bulk test moves many pieces.
Result<std::unique_ptr<Transport>> create_ofi_pieces(int rank, int size, PacketHandler handler) {
  ofi::Config config{.rank = rank,
                     .size = size,
                     .loopback_only = true,
                     .piece_size = std::size_t{4096},
                     .piece_window = 4};
  GPURUN_ASSIGN_OR_RETURN(auto t, ofi::OfiTransport::create(config, handler));
  return std::unique_ptr<Transport>(std::move(t));
}

INSTANTIATE_TEST_SUITE_P(Ofi, NetConformance,
                         ::testing::Values(NetSetup{"ofi_tcp", create_ofi, ""},
                                           NetSetup{"ofi_tcp_pieces", create_ofi_pieces, ""}),
                         setup_name);

TEST(OfiTransport, ChoosesTcpOnLoopbackForOneHost) {
  auto t = ofi::OfiTransport::create(ofi::Config{.rank = 0, .size = 1, .loopback_only = true},
                                     PacketHandler{});
  ASSERT_TRUE(t.ok()) << t.status().to_string();
  EXPECT_EQ(t.value()->caps().name, "ofi");
  EXPECT_EQ(t.value()->provider(), "tcp;ofi_rxm");
  EXPECT_EQ(t.value()->domain_name(), "lo");
}

// More pieces pulled at once, each way, than the provider's receive queue holds: the receives
// wait in order for room (the queue less the packet buffers), none is refused by the provider,
// packets keep flowing meanwhile, and every byte arrives.
TEST(OfiTransport, PullsBeyondTheReceiveQueueWaitTheirTurn) {
  NetPair pair(NetSetup{"ofi_tcp_pieces", create_ofi_pieces, ""});
  constexpr int kPulls = 48;  // each way
  constexpr std::size_t kSize = std::size_t{256} << 10;  // 64 pieces of 4K: 3072 to each rank
  std::vector<std::vector<std::byte>> src, dst;
  std::vector<Done> offered(2 * kPulls), pulled(2 * kPulls);
  for (int i = 0; i < 2 * kPulls; ++i) {
    int from = i % 2;
    src.push_back(pattern(kSize, i));
    dst.emplace_back(kSize);
    auto cookie = pair.to_peer(from).offer(contiguous(src[i], kSize), offered[i].completion());
    ASSERT_TRUE(cookie.ok()) << cookie.status().to_string();
    ASSERT_TRUE(pair.to_peer(1 - from)
                    .pull(*cookie, contiguous(dst[i], kSize), pulled[i].completion())
                    .ok());
  }
  for (int i = 0; i < 200; ++i) pair.send(i % 2, PacketHeader{1, 0, 0, 0, i, 0}, pattern(64, i));
  ASSERT_TRUE(pair.progress_until([&] {
    for (int i = 0; i < 2 * kPulls; ++i)
      if (!offered[i].called || !pulled[i].called) return false;
    return true;
  }));
  for (int i = 0; i < 2 * kPulls; ++i) {
    EXPECT_TRUE(pulled[i].status.ok() && offered[i].status.ok()) << i;
    ASSERT_EQ(dst[i], src[i]) << i;
  }
  EXPECT_TRUE(pair.progress_until(
      [&] { return pair.received(0).size() == 100 && pair.received(1).size() == 100; }));
  for (int rank = 0; rank < 2; ++rank) {
    auto& t = dynamic_cast<ofi::OfiTransport&>(pair.transport(rank));
    EXPECT_EQ(t.receives_refused(), 0u) << "rank " << rank;
    EXPECT_TRUE(t.quiescent());
  }
}

// What fi_getinfo offers on a machine with eth0 and lo, in its order.
std::vector<ofi::Offer> offers() {
  return {{"net", "eth0", false, true},         {"tcp;ofi_rxm", "eth0", false, false},
          {"tcp;ofi_rxm", "eth0", false, true}, {"tcp;ofi_rxm", "lo", true, false},
          {"tcp;ofi_rxm", "lo", true, true},    {"udp;ofi_rxd", "eth0", false, true},
          {"shm", "shm", false, false},         {"sockets", "lo", true, true},
          {"sockets", "eth0", false, true}};
}

std::size_t choose(const ofi::Preference& pref) {
  auto chosen = ofi::choose_offer(offers(), pref);
  EXPECT_TRUE(chosen.ok()) << chosen.status().to_string();
  return chosen.ok() ? *chosen : 999;
}

TEST(OfiChoice, FirstProviderInOrderAndItsIpv4Domain) {
  EXPECT_EQ(choose({}), 0u) << "the first provider fi_getinfo offers";
  EXPECT_EQ(choose({.provider = "tcp"}), 2u) << "a layer names the provider; IPv4 first";
  EXPECT_EQ(choose({.provider = "tcp;ofi_rxm"}), 2u);
  EXPECT_EQ(choose({.provider = "ofi_rxd"}), 5u);
}

TEST(OfiChoice, LoopbackForOneHostTheNicOtherwise) {
  EXPECT_EQ(choose({.provider = "tcp", .loopback_only = true}), 4u);
  EXPECT_EQ(choose({.loopback_only = true}), 4u) << "net has no loopback domain: next provider";
  EXPECT_EQ(choose({.provider = "tcp", .nic = "lo"}), 4u) << "the launcher's NIC";
  EXPECT_EQ(choose({.provider = "tcp", .nic = "ib0"}), 2u) << "an unknown NIC is ignored";
  EXPECT_EQ(choose({.provider = "tcp", .domain = "lo"}), 4u);
}

TEST(OfiChoice, NeverSocketsOrShmUnlessAsked) {
  std::vector<ofi::Offer> only_bad = {{"shm", "shm", false, false}, {"sockets", "lo", true, true}};
  auto none = ofi::choose_offer(only_bad, {.loopback_only = true});
  ASSERT_FALSE(none.ok());
  EXPECT_NE(none.status().message().find("no provider other than sockets and shm"),
            std::string_view::npos)
      << none.status().message();
  auto forced = ofi::choose_offer(only_bad, {.provider = "sockets", .loopback_only = true});
  ASSERT_TRUE(forced.ok());
  EXPECT_EQ(*forced, 1u);
}

TEST(OfiChoice, SaysWhyNothingFits) {
  auto no_domain = ofi::choose_offer(offers(), {.provider = "tcp", .domain = "ib0"});
  ASSERT_FALSE(no_domain.ok());
  EXPECT_NE(no_domain.status().message().find("no domain ib0"), std::string_view::npos);
  EXPECT_NE(no_domain.status().message().find("tcp;ofi_rxm/lo"), std::string_view::npos)
      << "lists what is offered: " << no_domain.status().message();
  std::vector<ofi::Offer> loopback = {{"tcp;ofi_rxm", "lo", true, true}};
  auto spans_hosts = ofi::choose_offer(loopback, {});
  ASSERT_FALSE(spans_hosts.ok());
  EXPECT_NE(spans_hosts.status().message().find("only loopback"), std::string_view::npos);
  auto no_provider = ofi::choose_offer(offers(), {.provider = "verbs"});
  ASSERT_FALSE(no_provider.ok());
  EXPECT_NE(no_provider.status().message().find("no provider named verbs"), std::string_view::npos);
}

}  // namespace
}  // namespace gpurun::transport::testing

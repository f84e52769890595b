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

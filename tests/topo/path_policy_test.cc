// The path policy on fixture topologies: which transport, which path class, and the reasons
// for every better path refused.
#include "runtime/topo/path_policy.h"

#include <gtest/gtest.h>

#include "tests/topo/fixtures.h"

namespace gpurun::topo {
namespace {

const std::vector<TransportInfo> kAll = {
    {.name = "self", .reach = Reach::kSelf, .host_memory = true, .device_memory = true},
    {.name = "shm", .reach = Reach::kHost, .host_memory = true},
    {.name = "cuda_ipc", .reach = Reach::kHost, .host_memory = false, .device_memory = true},
    {.name = "ucx", .reach = Reach::kNetwork, .host_memory = true, .device_memory = true},
};

class PathPolicy : public ::testing::Test {
 protected:
  // Rank `rank` on `host` with GPU `gpu` and NIC `nic`, bound to the CPUs of the GPU's NUMA
  // node (or unbound without a GPU).
  RankSite site(const Topology& t, int rank, int gpu, int nic = -1, std::string host = "a") {
    RankSite s{.rank = rank, .host = std::move(host), .gpu = gpu, .nic = nic};
    if (gpu >= 0) s.cpus = t.gpus()[static_cast<std::size_t>(gpu)].cpus;
    return make_site(t, s);
  }
  PathChoice choose(const Topology& t, const RankSite& a, const RankSite& b, MemoryKind memory,
                    std::span<const TransportInfo> transports = kAll) {
    auto choice = choose_path(PathQuery{.topology = &t,
                                        .a = &a,
                                        .b = &b,
                                        .memory = memory,
                                        .transports = transports,
                                        .knobs = knobs,
                                        .failed = failed});
    EXPECT_TRUE(choice.ok()) << choice.status().to_string();
    return choice.ok() ? *choice : PathChoice{};
  }
  // The single refusal of `choice`, whose reason must contain `reason`.
  void expect_refused(const PathChoice& choice, const std::string& transport,
                      const std::string& reason, std::optional<PathClass> path) {
    ASSERT_EQ(choice.refused.size(), 1u) << describe(choice);
    EXPECT_EQ(choice.refused[0].transport, transport);
    EXPECT_NE(choice.refused[0].reason.find(reason), std::string::npos) << choice.refused[0].reason;
    EXPECT_EQ(choice.refused[0].path, path);
  }

  PolicyKnobs knobs;
  std::vector<Failure> failed;
};

TEST_F(PathPolicy, DeviceBuffersOnAnNvlinkPairGoByCudaIpc) {
  Topology t = load_fixture(kDgx);
  PathChoice c = choose(t, site(t, 0, 0), site(t, 1, 3), MemoryKind::kDevice);
  EXPECT_EQ(c.transport, "cuda_ipc");
  EXPECT_EQ(c.device_path, PathClass::NVL);
  EXPECT_FALSE(c.staged);
  EXPECT_TRUE(c.refused.empty());
  EXPECT_EQ(describe(c), "cuda_ipc NVL");
  // Across the sockets too: NVSwitch reaches every GPU.
  EXPECT_EQ(choose(t, site(t, 0, 0), site(t, 1, 7), MemoryKind::kDevice).device_path,
            PathClass::NVL);
}

TEST_F(PathPolicy, HostBuffersGoByShmWithTheirNumaLink) {
  Topology t = load_fixture(kDgx);
  PathChoice same = choose(t, site(t, 0, 0), site(t, 1, 1), MemoryKind::kHost);
  EXPECT_EQ(same.transport, "shm");
  EXPECT_EQ(same.host_link, HostLink::kNuma);
  EXPECT_FALSE(same.device_path.has_value());
  EXPECT_EQ(describe(same), "shm same NUMA");
  PathChoice across = choose(t, site(t, 0, 0), site(t, 4, 4), MemoryKind::kHost);
  EXPECT_EQ(across.host_link, HostLink::kSys);
  EXPECT_TRUE(across.refused.empty());
}

TEST_F(PathPolicy, PeerAccessOffStagesWithTheReason) {
  Topology t = load_fixture(kPcie);
  PathChoice c = choose(t, site(t, 0, 0), site(t, 2, 2), MemoryKind::kDevice);
  EXPECT_EQ(c.transport, "shm");
  EXPECT_TRUE(c.staged);
  EXPECT_FALSE(c.device_path.has_value());
  expect_refused(c, "cuda_ipc", "peer access off between GPU 0 and GPU 2", PathClass::SYS);
  EXPECT_NE(c.refused[0].reason.find("IOH topology not supported"), std::string::npos);
  EXPECT_EQ(describe(c), "shm SYS, staged through host memory");
  // Within a socket peer access is on: PXB and PHB pairs use it.
  EXPECT_EQ(choose(t, site(t, 0, 0), site(t, 1, 1), MemoryKind::kDevice).device_path,
            PathClass::PXB);
  EXPECT_EQ(choose(t, site(t, 0, 2), site(t, 1, 3), MemoryKind::kDevice).device_path,
            PathClass::PHB);
}

TEST_F(PathPolicy, KnobsRefuseCudaIpc) {
  Topology t = load_fixture(kDgx);
  knobs.p2p = false;
  PathChoice off = choose(t, site(t, 0, 0), site(t, 1, 1), MemoryKind::kDevice);
  EXPECT_EQ(off.transport, "shm");
  EXPECT_TRUE(off.staged);
  expect_refused(off, "cuda_ipc", "disabled by GPURUN_TOPO_P2P=0", PathClass::NVL);
  knobs.p2p = true;
  knobs.staging = true;
  expect_refused(choose(t, site(t, 0, 0), site(t, 1, 1), MemoryKind::kDevice), "cuda_ipc",
                 "GPURUN_TOPO_STAGING=1", PathClass::NVL);
  knobs.staging = false;
  std::vector<TransportInfo> disabled = kAll;
  disabled[2].disabled_by = "GPURUN_TRANSPORTS=^cuda_ipc";
  expect_refused(choose(t, site(t, 0, 0), site(t, 1, 1), MemoryKind::kDevice, disabled), "cuda_ipc",
                 "disabled by GPURUN_TRANSPORTS=^cuda_ipc", PathClass::NVL);
}

TEST_F(PathPolicy, P2pLevelCapsThePathClass) {
  Topology t = load_fixture(kPcie);
  knobs.p2p_level = PathClass::PXB;
  EXPECT_EQ(choose(t, site(t, 0, 0), site(t, 1, 1), MemoryKind::kDevice).transport, "cuda_ipc");
  PathChoice phb = choose(t, site(t, 0, 2), site(t, 1, 3), MemoryKind::kDevice);
  EXPECT_TRUE(phb.staged);
  expect_refused(phb, "cuda_ipc",
                 "path PHB between GPU 2 and GPU 3 is beyond "
                 "GPURUN_TOPO_P2P_LEVEL=PXB",
                 PathClass::PHB);
}

TEST_F(PathPolicy, HiddenGpuAndFailedIpcAreRefused) {
  Topology t = load_fixture(kDgx);
  RankSite a = site(t, 0, 0);
  a.hidden_gpus = {1, 2, 3};
  PathChoice hidden = choose(t, a, site(t, 1, 3), MemoryKind::kDevice);
  EXPECT_TRUE(hidden.staged);
  expect_refused(hidden, "cuda_ipc", "GPU 3 hidden from rank 0", PathClass::NVL);
  failed = {{"cuda_ipc", "IPC failed: cudaIpcOpenMemHandle: invalid device context"}};
  expect_refused(choose(t, site(t, 0, 0), site(t, 1, 3), MemoryKind::kDevice), "cuda_ipc",
                 "IPC failed: cudaIpcOpenMemHandle", PathClass::NVL);
}

TEST_F(PathPolicy, RanksWithoutGpuStage) {
  Topology t = load_fixture(kDgx);
  PathChoice c = choose(t, site(t, 0, 0), site(t, 1, -1), MemoryKind::kDevice);
  EXPECT_TRUE(c.staged);
  expect_refused(c, "cuda_ipc", "rank 1 has no GPU", std::nullopt);
  Topology none = load_fixture(kNoGpu);
  PathChoice n = choose(none, site(none, 0, -1), site(none, 1, -1), MemoryKind::kDevice);
  EXPECT_EQ(n.transport, "shm");
  EXPECT_EQ(n.host_link, HostLink::kNuma);  // one NUMA node: unbound ranks share it
  expect_refused(n, "cuda_ipc", "rank 0 has no GPU", std::nullopt);
}

TEST_F(PathPolicy, BuildWithoutCudaStagesWithoutRefusal) {
  Topology t = load_fixture(kDgx);
  std::vector<TransportInfo> host_only = {kAll[0], kAll[1], kAll[3]};
  PathChoice c = choose(t, site(t, 0, 0), site(t, 1, 1), MemoryKind::kDevice, host_only);
  EXPECT_EQ(c.transport, "shm");
  EXPECT_TRUE(c.staged);
  EXPECT_TRUE(c.refused.empty());
}

TEST_F(PathPolicy, OtherHostGoesByUcx) {
  Topology t = load_fixture(kDgx);
  RankSite a = site(t, 0, 0, 0, "a");
  RankSite b = site(t, 8, 0, 0, "b");
  PathChoice host = choose(t, a, b, MemoryKind::kHost);
  EXPECT_EQ(host.transport, "ucx");
  EXPECT_EQ(host.host_link, HostLink::kNet);
  EXPECT_EQ(describe(host), "ucx NET");
  PathChoice device = choose(t, a, b, MemoryKind::kDevice);
  EXPECT_EQ(device.transport, "ucx");
  EXPECT_FALSE(device.staged);
  EXPECT_EQ(device.device_path, PathClass::PIX);
  EXPECT_EQ(describe(device), "ucx NET, GPUDirect RDMA PIX");
}

TEST_F(PathPolicy, FarNicStagesNetworkTransfers) {
  Topology t = load_fixture(kPcie);
  RankSite a = site(t, 0, 0, 0, "a");  // GPU0 - mlx5_0: PXB
  RankSite b = site(t, 4, 2, 0, "b");  // GPU2 - mlx5_0: SYS
  PathChoice c = choose(t, a, b, MemoryKind::kDevice);
  EXPECT_EQ(c.transport, "ucx");
  EXPECT_TRUE(c.staged);
  expect_refused(c, "ucx", "GPU-NIC path SYS of rank 4 is beyond GPURUN_TOPO_GDR_LEVEL=PXB",
                 PathClass::SYS);
  knobs.gdr_level = PathClass::SYS;
  EXPECT_FALSE(choose(t, a, b, MemoryKind::kDevice).staged);
  RankSite no_nic = site(t, 5, 1, -1, "b");
  expect_refused(choose(t, a, no_nic, MemoryKind::kDevice), "ucx", "rank 5 has no NIC",
                 std::nullopt);
}

TEST_F(PathPolicy, DisabledShmFallsBackToTheNetworkTransport) {
  Topology t = load_fixture(kDgx);
  std::vector<TransportInfo> no_shm = kAll;
  no_shm[1].disabled_by = "GPURUN_TRANSPORTS=^shm";
  PathChoice c = choose(t, site(t, 0, 0), site(t, 1, 1), MemoryKind::kHost, no_shm);
  EXPECT_EQ(c.transport, "ucx");
  expect_refused(c, "shm", "disabled by GPURUN_TRANSPORTS=^shm", std::nullopt);
}

TEST_F(PathPolicy, NoTransportIsAnError) {
  Topology t = load_fixture(kDgx);
  std::vector<TransportInfo> host_only = {kAll[0], kAll[1]};
  RankSite a = site(t, 0, 0, 0, "a");
  RankSite b = site(t, 1, 0, 0, "b");
  auto c = choose_path(PathQuery{.topology = &t, .a = &a, .b = &b, .transports = host_only});
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.status().code(), ErrorCode::kNotFound);
  EXPECT_NE(c.status().message().find("rank 1 on host b"), std::string::npos);
  RankSite bad = site(t, 2, 0);
  bad.gpu = 8;
  auto invalid = choose_path(PathQuery{.topology = &t, .a = &a, .b = &bad, .transports = kAll});
  EXPECT_EQ(invalid.status().code(), ErrorCode::kInvalidArgument);
}

TEST_F(PathPolicy, SelfGoesBySelf) {
  Topology t = load_fixture(kDgx);
  RankSite a = site(t, 3, 3);
  PathChoice c = choose(t, a, a, MemoryKind::kDevice);
  EXPECT_EQ(c.transport, "self");
  EXPECT_EQ(c.host_link, HostLink::kSelf);
  EXPECT_EQ(c.device_path, PathClass::LOC);
}

TEST_F(PathPolicy, RanksSharingAGpuUseCudaIpcAtLoc) {
  Topology t = load_fixture(kPcie);
  knobs.p2p_level = PathClass::LOC;
  PathChoice c = choose(t, site(t, 0, 1), site(t, 1, 1), MemoryKind::kDevice);
  EXPECT_EQ(c.transport, "cuda_ipc");
  EXPECT_EQ(c.device_path, PathClass::LOC);
}

TEST(Transports, FormatAndParseRoundTrip) {
  std::vector<TransportInfo> list = kAll;
  list[3].disabled_by = "GPURUN_TRANSPORTS=^ucx (a test)";
  std::string text = format_transports(list);
  EXPECT_NE(text.find("cuda_ipc host device\n"), std::string::npos) << text;
  EXPECT_NE(text.find("shm host host\n"), std::string::npos) << text;
  auto parsed = parse_transports(text);
  ASSERT_TRUE(parsed.ok()) << parsed.status().to_string();
  ASSERT_EQ(parsed->size(), list.size());
  for (std::size_t i = 0; i < list.size(); ++i) {
    EXPECT_EQ((*parsed)[i].name, list[i].name);
    EXPECT_EQ((*parsed)[i].reach, list[i].reach);
    EXPECT_EQ((*parsed)[i].host_memory, list[i].host_memory);
    EXPECT_EQ((*parsed)[i].device_memory, list[i].device_memory);
    EXPECT_EQ((*parsed)[i].disabled_by, list[i].disabled_by);
  }
  EXPECT_FALSE(parse_transports("shm nowhere host\n").ok());
  EXPECT_FALSE(parse_transports("shm host\n").ok());
  EXPECT_FALSE(parse_transports("shm host host because\n").ok());
}

}  // namespace
}  // namespace gpurun::topo

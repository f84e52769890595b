// The topology model built from each fixture: counts, NUMA CPU sets, GPU bus ids, NICs,
// NVLink and P2P data, the path classes between chosen devices, and dump-then-load.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <sstream>

#include "runtime/base/param.h"
#include "runtime/topo/pci_probe.h"
#include "tests/topo/fixtures.h"

namespace gpurun::topo {
namespace {

using Kind = DeviceRef::Kind;

std::vector<std::string> bus_ids(std::span<const Gpu> gpus) {
  std::vector<std::string> out;
  for (const Gpu& gpu : gpus) out.push_back(gpu.bus_id);
  return out;
}

std::vector<std::string> nic_names(std::span<const Nic> nics) {
  std::vector<std::string> out;
  for (const Nic& nic : nics) out.push_back(nic.name);
  return out;
}

TEST(Fixture, DgxH100Model) {
  Topology t = load_fixture(kDgx);
  EXPECT_FALSE(t.is_this_system());
  EXPECT_TRUE(t.has_io());
  EXPECT_EQ(t.num_packages(), 2);
  EXPECT_EQ(t.num_cores(), 112);
  EXPECT_EQ(t.num_pus(), 224);
  ASSERT_EQ(t.numa_nodes().size(), 2u);
  EXPECT_EQ(t.numa_nodes()[0].cpus.to_string(), "0-111");
  EXPECT_EQ(t.numa_nodes()[1].cpus.to_string(), "112-223");
  EXPECT_EQ(t.numa_nodes()[1].package, 1);
  // The NVSwitch chips (NVIDIA, class 0680) are no GPUs.
  EXPECT_EQ(
      bus_ids(t.gpus()),
      (std::vector<std::string>{"0000:18:00.0", "0000:2a:00.0", "0000:3a:00.0", "0000:5d:00.0",
                                "0000:9a:00.0", "0000:ab:00.0", "0000:ba:00.0", "0000:db:00.0"}));
  for (const Gpu& gpu : t.gpus()) {
    EXPECT_EQ(gpu.numa, gpu.index < 4 ? 0 : 1) << gpu.bus_id;
    EXPECT_EQ(gpu.cpus, t.numa_nodes()[static_cast<std::size_t>(gpu.numa)].cpus);
    EXPECT_EQ(gpu.name, "GH100 [H100 SXM5 80GB]");
    EXPECT_TRUE(gpu.uuid.starts_with("GPU-0d6a5f21")) << gpu.uuid;
  }
  EXPECT_EQ(nic_names(t.nics()),
            (std::vector<std::string>{"mlx5_0", "mlx5_1", "mlx5_2", "mlx5_3", "mlx5_4", "mlx5_5",
                                      "mlx5_6", "mlx5_7"}));
  EXPECT_TRUE(t.nics()[3].rdma);
  EXPECT_EQ(t.nics()[3].devices, (std::vector<std::string>{"ib3", "mlx5_3"}));
  EXPECT_EQ(t.nics()[3].bus_id, "0000:5e:00.0");
  EXPECT_EQ(t.link_source(), "file");
}

TEST(Fixture, DgxH100PathClasses) {
  Topology t = load_fixture(kDgx);
  for (int a = 0; a < 8; ++a) {
    for (int b = 0; b < 8; ++b) {
      EXPECT_EQ(t.gpu_path(a, b), a == b ? PathClass::LOC : PathClass::NVL) << a << "," << b;
      EXPECT_EQ(t.nvlinks(a, b), a == b ? 0 : 18);
      EXPECT_EQ(t.p2p(a, b), P2pStatus::kOk);
    }
    // Each GPU shares its PCIe switch with one NIC; the others of its socket are behind
    // other host bridges of the same NUMA node; the rest across the sockets.
    for (int n = 0; n < 8; ++n) {
      PathClass want = n == a ? PathClass::PIX : (n / 4 == a / 4 ? PathClass::PHB : PathClass::SYS);
      EXPECT_EQ(t.gpu_nic_path(a, n), want) << "GPU " << a << " NIC " << n;
    }
  }
  EXPECT_EQ(t.path({Kind::kNic, 0}, {Kind::kNic, 0}), PathClass::LOC);
  EXPECT_EQ(t.path({Kind::kNic, 0}, {Kind::kNic, 5}), PathClass::SYS);
}

TEST(Fixture, PcieTwoSocketModelAndPaths) {
  Topology t = load_fixture(kPcie);
  EXPECT_EQ(t.num_packages(), 2);
  ASSERT_EQ(t.numa_nodes().size(), 2u);
  EXPECT_EQ(t.numa_nodes()[0].cpus.to_string(), "0-31");
  EXPECT_EQ(bus_ids(t.gpus()), (std::vector<std::string>{"0000:05:00.0", "0000:08:00.0",
                                                         "0000:83:00.0", "0000:86:00.0"}));
  EXPECT_EQ(nic_names(t.nics()), (std::vector<std::string>{"mlx5_0", "eno1", "mlx5_1"}));
  EXPECT_FALSE(t.nics()[1].rdma);
  // GPU0 and GPU1: each behind a switch of its own, both under a top-level switch.
  EXPECT_EQ(t.gpu_path(0, 1), PathClass::PXB);
  // GPU2 and GPU3: switches on two root ports of one host bridge.
  EXPECT_EQ(t.gpu_path(2, 3), PathClass::PHB);
  EXPECT_EQ(t.gpu_path(0, 2), PathClass::SYS);
  EXPECT_EQ(t.gpu_path(1, 3), PathClass::SYS);
  EXPECT_EQ(t.gpu_nic_path(0, 0), PathClass::PXB);  // its switch, then the top switch
  EXPECT_EQ(t.gpu_nic_path(0, 1), PathClass::PHB);  // eno1 on a root port
  EXPECT_EQ(t.gpu_nic_path(0, 2), PathClass::SYS);
  EXPECT_EQ(t.gpu_nic_path(3, 2), PathClass::PIX);
  EXPECT_EQ(t.gpu_nic_path(2, 2), PathClass::PHB);
  EXPECT_EQ(t.nvlinks(0, 1), 0);
  EXPECT_EQ(t.p2p(0, 1), P2pStatus::kOk);
  EXPECT_EQ(t.p2p(0, 2), P2pStatus::kTopology);
  EXPECT_EQ(t.p2p(3, 1), P2pStatus::kTopology);
}

TEST(Fixture, GpuAndNicUnderOneSwitch) {
  Topology t = load_fixture(kGpuNic);
  ASSERT_EQ(t.gpus().size(), 1u);  // the cuda0/nvml0 OS devices add no GPU
  EXPECT_EQ(t.gpus()[0].bus_id, "0000:03:00.0");
  EXPECT_EQ(t.gpus()[0].name, "AD102GL [L40S]");
  EXPECT_EQ(t.gpus()[0].numa, 0);
  EXPECT_EQ(nic_names(t.nics()), (std::vector<std::string>{"eth0", "mlx5_0"}));
  EXPECT_EQ(t.gpu_nic_path(0, 1), PathClass::PIX);
  EXPECT_EQ(t.gpu_nic_path(0, 0), PathClass::PHB);
  EXPECT_EQ(t.link_source(), "none in the file");
  EXPECT_EQ(t.p2p(0, 0), P2pStatus::kOk);
}

TEST(Fixture, NodeWithoutGpu) {
  Topology t = load_fixture(kNoGpu);
  EXPECT_TRUE(t.gpus().empty());
  EXPECT_TRUE(t.has_io());
  EXPECT_EQ(nic_names(t.nics()), (std::vector<std::string>{"eth0"}));
  EXPECT_EQ(t.num_pus(), 8);
  EXPECT_EQ(t.link_source(), "no GPU");
}

TEST(Fixture, GpusFoundByAnyFormOfBusId) {
  Topology t = load_fixture(kDgx);
  EXPECT_EQ(t.gpu_by_bus_id("00000000:2A:00.0"), 1);  // NVML's form
  EXPECT_EQ(t.gpu_by_bus_id("0000:2a:00.0"), 1);
  EXPECT_EQ(t.gpu_by_bus_id("db:00.0"), 7);
  EXPECT_FALSE(t.gpu_by_bus_id("0000:19:00.0").has_value());  // a NIC
  EXPECT_FALSE(t.gpu_by_bus_id("cuda0").has_value());
  EXPECT_EQ(t.nic_by_name("mlx5_6"), 6);
  EXPECT_EQ(t.nic_by_name("ib2"), 2);
  EXPECT_EQ(normalize_bus_id("0000:1A:0F.7"), "0000:1a:0f.7");
  EXPECT_FALSE(normalize_bus_id("0000:1a:00").has_value());
  EXPECT_FALSE(normalize_bus_id("0000:1a:20.0").has_value());  // device numbers end at 1f
}

TEST(Fixture, HostLinksBetweenCpuSets) {
  Topology t = load_fixture(kDgx);
  EXPECT_EQ(t.host_link(CpuSet({0, 1}), CpuSet({100})), HostLink::kNuma);
  EXPECT_EQ(t.host_link(CpuSet({0}), CpuSet({112})), HostLink::kSys);
  EXPECT_EQ(t.host_link(CpuSet(), CpuSet({0})), HostLink::kSys);     // unbound: anywhere
  auto snc = Topology::load_synthetic("pack:1 numa:2 core:2 pu:1");  // two NUMA nodes per socket
  ASSERT_TRUE(snc.ok());
  EXPECT_EQ(snc->host_link(CpuSet({0}), CpuSet({1})), HostLink::kNuma);
  EXPECT_EQ(snc->host_link(CpuSet({0}), CpuSet({3})), HostLink::kPackage);
  EXPECT_EQ(snc->numa_of(CpuSet({2, 3})), 1);
  EXPECT_EQ(snc->numa_of(CpuSet({1, 2})), -1);
}

class TempFile {
 public:
  TempFile() {
    char name[] = "/tmp/gpurun-topo-test-XXXXXX";
    int fd = mkstemp(name);
    EXPECT_GE(fd, 0);
    close(fd);
    path_ = name;
  }
  ~TempFile() { std::remove(path_.c_str()); }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

void expect_same_model(const Topology& a, const Topology& b) {
  EXPECT_EQ(bus_ids(a.gpus()), bus_ids(b.gpus()));
  EXPECT_EQ(nic_names(a.nics()), nic_names(b.nics()));
  EXPECT_EQ(a.all_pus(), b.all_pus());
  ASSERT_EQ(a.gpus().size(), b.gpus().size());
  for (std::size_t i = 0; i < a.gpus().size(); ++i) {
    EXPECT_EQ(a.gpus()[i].uuid, b.gpus()[i].uuid);
    EXPECT_EQ(a.gpus()[i].numa, b.gpus()[i].numa);
    auto gi = static_cast<int>(i);
    for (int j = 0; j < static_cast<int>(a.gpus().size()); ++j) {
      EXPECT_EQ(a.nvlinks(gi, j), b.nvlinks(gi, j));
      EXPECT_EQ(a.p2p(gi, j), b.p2p(gi, j));
      EXPECT_EQ(a.gpu_path(gi, j), b.gpu_path(gi, j));
    }
    for (int n = 0; n < static_cast<int>(a.nics().size()); ++n)
      EXPECT_EQ(a.gpu_nic_path(gi, n), b.gpu_nic_path(gi, n));
  }
}

TEST(Fixture, DumpThenLoadGivesTheSameModel) {
  for (const char* name : {kDgx, kPcie, kGpuNic, kNoGpu}) {
    SCOPED_TRACE(name);
    Topology original = load_fixture(name);
    TempFile file;
    ASSERT_TRUE(original.dump(file.path()).ok());
    auto again = Topology::load_file(file.path());
    ASSERT_TRUE(again.ok()) << again.status().to_string();
    expect_same_model(original, *again);
  }
}

TEST(Fixture, DumpWritesLinksLearnedAfterLoading) {
  // A synthetic topology has no I/O; a host dump must still load back with its CPUs.
  auto synthetic = Topology::load_synthetic("pack:2 numa:1 core:2 pu:2");
  ASSERT_TRUE(synthetic.ok());
  TempFile file;
  ASSERT_TRUE(synthetic->dump(file.path()).ok());
  auto again = Topology::load_file(file.path());
  ASSERT_TRUE(again.ok()) << again.status().to_string();
  EXPECT_EQ(again->num_pus(), 8);
  EXPECT_EQ(again->numa_nodes().size(), 2u);
  EXPECT_FALSE(synthetic->dump("/nonexistent-dir/x.xml").ok());
}

std::string read_text(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

void write_text(const std::string& path, const std::string& text) {
  std::ofstream out(path);
  out << text;
}

TEST(Fixture, BadFilesAreRefusedWithTheReason) {
  auto missing = Topology::load_file("/nonexistent/topology.xml");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().code(), ErrorCode::kInvalidArgument);
  EXPECT_NE(missing.status().message().find("/nonexistent/topology.xml"), std::string::npos);
  std::string text = read_text(fixture_path(kPcie));
  for (auto [from, to, mentions] :
       {std::tuple{"0000:08:00.0=ok", "0000:99:00.0=ok", "0000:99:00.0"},
        std::tuple{"0000:08:00.0=ok", "0000:08:00.0=maybe", "maybe"},
        std::tuple{"0000:08:00.0=ok", "0000:08:00.0", "PEER=VALUE"}}) {
    std::string bad = text;
    bad.replace(bad.find(from), std::string(from).size(), to);
    TempFile file;
    write_text(file.path(), bad);
    auto topo = Topology::load_file(file.path());
    ASSERT_FALSE(topo.ok()) << to;
    EXPECT_NE(topo.status().message().find(mentions), std::string::npos) << topo.status().message();
    EXPECT_NE(topo.status().message().find("gpurun.p2p"), std::string::npos);
  }
}

// GPURUN_TOPO_FILE and GPURUN_TOPO_DUMP through Topology::load().
TEST(Fixture, LoadFollowsTheFileAndDumpKnobs) {
  param::ParamBase* file = param::find("GPURUN_TOPO_FILE");
  param::ParamBase* dump = param::find("GPURUN_TOPO_DUMP");
  ASSERT_NE(file, nullptr);
  ASSERT_NE(dump, nullptr);
  TempFile out;
  ASSERT_TRUE(file->set_from_string(fixture_path(kPcie)).ok());
  ASSERT_TRUE(dump->set_from_string(out.path()).ok());
  auto topo = Topology::load();
  ASSERT_TRUE(file->set_from_string("").ok());
  ASSERT_TRUE(dump->set_from_string("").ok());
  ASSERT_TRUE(topo.ok()) << topo.status().to_string();
  EXPECT_EQ(topo->source(), "file " + fixture_path(kPcie));
  EXPECT_EQ(topo->gpus().size(), 4u);
  auto dumped = Topology::load_file(out.path());
  ASSERT_TRUE(dumped.ok()) << dumped.status().to_string();
  expect_same_model(*topo, *dumped);
}

}  // namespace
}  // namespace gpurun::topo

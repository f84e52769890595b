#include "runtime/topo/topology.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>

#include "runtime/topo/pci_probe.h"

namespace gpurun::topo {
namespace {

TEST(Topology, SyntheticTwoPackagesOfFourCoresWithTwoThreads) {
  auto topo = Topology::load_synthetic("pack:2 core:4 pu:2");
  ASSERT_TRUE(topo.ok()) << topo.status().to_string();
  EXPECT_EQ(topo->num_packages(), 2);
  EXPECT_EQ(topo->num_cores(), 8);
  EXPECT_EQ(topo->num_pus(), 16);
  EXPECT_FALSE(topo->is_this_system());
  // Synthetic topologies number PUs in order, so core i holds PUs 2i and 2i+1.
  for (const Core& core : topo->cores()) {
    EXPECT_EQ(core.pus, CpuSet({2 * core.index, 2 * core.index + 1})) << core.index;
    EXPECT_EQ(core.package, core.index / 4) << core.index;
  }
  EXPECT_EQ(topo->all_pus().to_string(), "0-15");
}

TEST(Topology, CoresWithinAnAllowedSetKeepOnlyAllowedPus) {
  auto topo = Topology::load_synthetic("pack:2 core:4 pu:2");
  ASSERT_TRUE(topo.ok());
  // PUs 1, 2 and 3 touch cores 0 and 1; PU 9 touches core 4 (first core of package 1).
  auto cores = topo->cores_within(CpuSet({1, 2, 3, 9}));
  ASSERT_EQ(cores.size(), 3u);
  EXPECT_EQ(cores[0].index, 0);
  EXPECT_EQ(cores[0].pus, CpuSet({1}));
  EXPECT_EQ(cores[1].pus, CpuSet({2, 3}));
  EXPECT_EQ(cores[2].index, 4);
  EXPECT_EQ(cores[2].package, 1);
  EXPECT_TRUE(topo->cores_within(CpuSet({99})).empty());
}

TEST(Topology, NoCoreLevelFallsBackToPus) {
  auto topo = Topology::load_synthetic("pack:1 pu:3");
  ASSERT_TRUE(topo.ok()) << topo.status().to_string();
  EXPECT_EQ(topo->num_cores(), 3);
  EXPECT_EQ(topo->cores()[2].pus, CpuSet({2}));
}

TEST(Topology, RejectsABadSyntheticDescription) {
  auto topo = Topology::load_synthetic("pack:two");
  ASSERT_FALSE(topo.ok());
  EXPECT_EQ(topo.status().code(), ErrorCode::kInvalidArgument);
}

TEST(Topology, HostTopologyCoversTheOnlineCpus) {
  auto topo = Topology::load_host();
  ASSERT_TRUE(topo.ok()) << topo.status().to_string();
  EXPECT_TRUE(topo->is_this_system());
  EXPECT_GE(topo->num_cores(), 1);
  EXPECT_EQ(topo->num_pus(), static_cast<int>(sysconf(_SC_NPROCESSORS_ONLN)));
  auto allowed = CpuSet::of_calling_thread();
  ASSERT_TRUE(allowed.ok());
  EXPECT_FALSE(topo->cores_within(*allowed).empty());
  EXPECT_FALSE(topo->numa_nodes().empty());
}

// gpurun's start-up path: without an NVIDIA GPU on the PCI bus, no I/O discovery (and so no
// GPU, NIC or NVML look-up); with one, the GPUs are there.
TEST(Topology, HostLoadsIoDevicesOnlyWithAnNvidiaGpu) {
  bool nvidia = has_nvidia_gpu(kPciDevicesDir);
  auto topo = Topology::load_host();
  ASSERT_TRUE(topo.ok()) << topo.status().to_string();
  EXPECT_EQ(topo->has_io(), nvidia);
  EXPECT_EQ(topo->gpus().empty(), !nvidia);
  if (!nvidia) {
    EXPECT_TRUE(topo->nics().empty());
    EXPECT_EQ(topo->link_source(), "no GPU");
  }
  EXPECT_EQ(topo->source(), "this host");
}

TEST(Topology, HostIoDevicesWhenAsked) {
  auto topo = Topology::load_host(Topology::Io::kAlways);
  ASSERT_TRUE(topo.ok()) << topo.status().to_string();
  EXPECT_EQ(topo->gpus().empty(), !has_nvidia_gpu(kPciDevicesDir));
  for (const Nic& nic : topo->nics()) {
    EXPECT_FALSE(nic.name.empty());
    EXPECT_TRUE(normalize_bus_id(nic.bus_id).has_value()) << nic.bus_id;
    // Every NIC is a device the kernel lists on the PCI bus.
    struct stat st;
    EXPECT_EQ(stat((std::string(kPciDevicesDir) + "/" + nic.bus_id).c_str(), &st), 0);
  }
  auto without = Topology::load_host(Topology::Io::kNever);
  ASSERT_TRUE(without.ok());
  EXPECT_FALSE(without->has_io());
  EXPECT_TRUE(without->nics().empty());
}

// A directory laid out as /sys/bus/pci/devices, with the devices given as (vendor, class).
class FakePciBus {
 public:
  FakePciBus() {
    char name[] = "/tmp/gpurun-pci-XXXXXX";
    dir_ = mkdtemp(name);
  }
  ~FakePciBus() { std::system(("rm -rf " + dir_).c_str()); }
  void add(const std::string& bus_id, const char* vendor, const char* pci_class) {
    std::string device = dir_ + "/" + bus_id;
    mkdir(device.c_str(), 0700);
    std::ofstream(device + "/vendor") << vendor << "\n";
    std::ofstream(device + "/class") << pci_class << "\n";
  }
  const std::string& dir() const { return dir_; }

 private:
  std::string dir_;
};

TEST(PciProbe, FindsNvidiaGpusOnly) {
  FakePciBus bus;
  bus.add("0000:00:03.0", "0x1af4", "0x020000");
  EXPECT_FALSE(has_nvidia_gpu(bus.dir()));
  bus.add("0000:05:00.0", "0x10de", "0x068000");  // an NVSwitch: NVIDIA, not a GPU
  EXPECT_FALSE(has_nvidia_gpu(bus.dir()));
  bus.add("0000:18:00.0", "0x10de", "0x030200");  // a 3D controller
  EXPECT_TRUE(has_nvidia_gpu(bus.dir()));
  FakePciBus vga;
  vga.add("0000:01:00.0", "0x10de", "0x030000");
  EXPECT_TRUE(has_nvidia_gpu(vga.dir()));
  EXPECT_FALSE(has_nvidia_gpu("/nonexistent/pci/devices"));
}

}  // namespace
}  // namespace gpurun::topo

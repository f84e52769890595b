// The fixture topologies of tests/topo/fixtures (written by make_fixtures.py).
#pragma once

#include <gtest/gtest.h>

#include <string>

#include "runtime/topo/topology.h"

namespace gpurun::topo {

inline std::string fixture_path(const char* name) {
  return std::string(GPURUN_TOPO_FIXTURES) + "/" + name;
}

// Loads a fixture; the test fails (and gets an empty synthetic topology) when it cannot.
inline Topology load_fixture(const char* name) {
  auto topo = Topology::load_file(fixture_path(name));
  EXPECT_TRUE(topo.ok()) << name << ": " << topo.status().to_string();
  if (!topo.ok()) return std::move(Topology::load_synthetic("pu:1").value());
  return std::move(topo.value());
}

inline constexpr char kDgx[] = "dgx-h100.xml";
inline constexpr char kPcie[] = "pcie-2socket.xml";
inline constexpr char kGpuNic[] = "gpu-nic-switch.xml";
inline constexpr char kNoGpu[] = "no-gpu.xml";

}  // namespace gpurun::topo

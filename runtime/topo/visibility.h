// Which GPUs a process can see: CUDA_VISIBLE_DEVICES, read as CUDA reads it.
#pragma once

#include <string_view>
#include <vector>

#include "runtime/base/status.h"
#include "runtime/topo/topology.h"

namespace gpurun::topo {

// The GPUs of `topology` that CUDA_VISIBLE_DEVICES=`value` hides, ascending. Entries are
// device indices, taken in PCI bus id order (CUDA's order with CUDA_DEVICE_ORDER=PCI_BUS_ID,
// and its default order on hosts of identical GPUs), or UUIDs ("GPU-8f3a...", a prefix is
// enough); as in CUDA, the list ends at the first entry that names no GPU. An empty value
// hides every GPU. kUnsupported for entries this model cannot map (MIG instances, UUIDs when
// the topology knows none): the caller then cannot tell which GPUs are hidden.
Result<std::vector<int>> hidden_gpus(const Topology& topology, std::string_view value);

}  // namespace gpurun::topo

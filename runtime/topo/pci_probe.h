// A quick look at the PCI bus, without hwloc: whether this host has an NVIDIA GPU, and so
// whether the topology is worth loading with its I/O devices (hwloc's PCI discovery costs
// about 10 ms; this costs a few file reads per PCI device).
#pragma once

#include <string>

namespace gpurun::topo {

inline constexpr char kPciDevicesDir[] = "/sys/bus/pci/devices";

// True when a device of `devices_dir` (laid out as /sys/bus/pci/devices: one directory per
// device with "vendor" and "class" files) is an NVIDIA GPU: vendor 0x10de, class 0x0300xx
// (VGA) or 0x0302xx (3D controller). False when the directory cannot be read.
bool has_nvidia_gpu(const std::string& devices_dir);

}  // namespace gpurun::topo

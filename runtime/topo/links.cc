// NVLink and peer-to-peer data between GPUs: from NVML, or from gpurun's info attributes in
// an hwloc XML file (README.md), and written back into such a file by dump().
#include <hwloc.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <map>

#include "runtime/base/log.h"
#include "runtime/topo/nvml.h"
#include "runtime/topo/topology.h"

namespace gpurun::topo {
namespace {

constexpr char kNvlinkInfo[] = "gpurun.nvlink";
constexpr char kP2pInfo[] = "gpurun.p2p";
constexpr char kUuidInfo[] = "gpurun.uuid";
constexpr char kNameInfo[] = "gpurun.name";
constexpr char kSwitch[] = "switch";

constexpr std::array<std::pair<std::string_view, PathClass>, 7> kPathNames = {{
    {"LOC", PathClass::LOC},
    {"NVL", PathClass::NVL},
    {"PIX", PathClass::PIX},
    {"PXB", PathClass::PXB},
    {"PHB", PathClass::PHB},
    {"SYS", PathClass::SYS},
    {"NET", PathClass::NET},
}};

struct P2pName {
  P2pStatus status;
  std::string_view name;
  std::string_view reason;
};
constexpr std::array<P2pName, 7> kP2pNames = {{
    {P2pStatus::kUnknown, "unknown", "no NVML data"},
    {P2pStatus::kOk, "ok", "supported"},
    {P2pStatus::kChipset, "chipset", "chipset not supported"},
    {P2pStatus::kGpu, "gpu", "GPU not supported"},
    {P2pStatus::kTopology, "topology", "IOH topology not supported"},
    {P2pStatus::kRegkey, "regkey", "disabled by a driver registry key"},
    {P2pStatus::kUnsupported, "unsupported", "not supported"},
}};

// Splits "a=1,b=2" into pairs; false when an item has no '='.
bool split_pairs(std::string_view text, std::vector<std::pair<std::string, std::string>>& out) {
  while (!text.empty()) {
    std::string_view item = text.substr(0, text.find(','));
    text.remove_prefix(std::min(text.size(), item.size() + 1));
    auto eq = item.find('=');
    if (eq == std::string_view::npos) return false;
    out.emplace_back(item.substr(0, eq), item.substr(eq + 1));
  }
  return true;
}

bool parse_count(const std::string& text, int& out) {
  char* end = nullptr;
  long value = std::strtol(text.c_str(), &end, 10);
  if (end == text.c_str() || *end != '\0' || value < 0 || value > 1024) return false;
  out = static_cast<int>(value);
  return true;
}

Status bad_info(const std::string& gpu, const char* info, const std::string& why) {
  return Status(ErrorCode::kInvalidArgument, "GPU " + gpu + ": info " + info + ": " + why);
}

void add_info_once(hwloc_obj_t obj, const char* name, const std::string& value) {
  if (value.empty() || hwloc_obj_get_info_by_name(obj, name) != nullptr) return;
  hwloc_obj_add_info(obj, name, value.c_str());
}

struct TopologyCloser {
  void operator()(hwloc_topology* topology) const { hwloc_topology_destroy(topology); }
};

}  // namespace

std::string_view path_class_name(PathClass path) {
  return kPathNames[static_cast<std::size_t>(path)].first;
}

std::span<const std::pair<std::string_view, PathClass>> param_enum_names(PathClass) {
  return kPathNames;
}

std::string_view host_link_name(HostLink link) {
  constexpr std::array<std::string_view, 5> kNames = {"self", "same NUMA", "same package", "SYS",
                                                      "NET"};
  return kNames[static_cast<std::size_t>(link)];
}

std::string_view p2p_status_name(P2pStatus status) {
  return kP2pNames[static_cast<std::size_t>(status)].name;
}

std::string_view p2p_status_reason(P2pStatus status) {
  return kP2pNames[static_cast<std::size_t>(status)].reason;
}

std::optional<P2pStatus> parse_p2p_status(std::string_view name) {
  for (const P2pName& entry : kP2pNames)
    if (entry.name == name) return entry.status;
  return std::nullopt;
}

std::size_t Topology::pair(int gpu_a, int gpu_b) const {
  return static_cast<std::size_t>(gpu_a) * gpus_.size() + static_cast<std::size_t>(gpu_b);
}

int Topology::nvlinks(int gpu_a, int gpu_b) const {
  if (gpu_a == gpu_b) return 0;
  int links = std::max(direct_links_[pair(gpu_a, gpu_b)], direct_links_[pair(gpu_b, gpu_a)]);
  auto sa = switch_links_[static_cast<std::size_t>(gpu_a)];
  auto sb = switch_links_[static_cast<std::size_t>(gpu_b)];
  return links + std::min(sa, sb);
}

P2pStatus Topology::p2p(int gpu_a, int gpu_b) const {
  if (gpu_a == gpu_b) return P2pStatus::kOk;
  return p2p_[pair(gpu_a, gpu_b)];
}

Status Topology::read_link_infos(hwloc_topology* raw) {
  bool any = false;
  for (const Gpu& gpu : gpus_) {
    hwloc_obj_t obj = hwloc_get_pcidev_by_busidstring(raw, gpu.bus_id.c_str());
    any |= obj != nullptr && (hwloc_obj_get_info_by_name(obj, kNvlinkInfo) != nullptr ||
                              hwloc_obj_get_info_by_name(obj, kP2pInfo) != nullptr);
    GPURUN_TRY(read_gpu_infos(raw, gpu.index));
  }
  if (gpus_.empty())
    link_source_ = "no GPU";
  else
    link_source_ = any ? "file" : "none in the file";
  return ok_status();
}

Status Topology::read_gpu_infos(hwloc_topology* raw, int gpu) {
  const std::string& bus_id = gpus_[static_cast<std::size_t>(gpu)].bus_id;
  hwloc_obj_t obj = hwloc_get_pcidev_by_busidstring(raw, bus_id.c_str());
  if (obj == nullptr) return ok_status();
  for (const char* info : {kNvlinkInfo, kP2pInfo}) {
    const char* text = hwloc_obj_get_info_by_name(obj, info);
    std::vector<std::pair<std::string, std::string>> items;
    if (text == nullptr) continue;
    if (!split_pairs(text, items)) return bad_info(bus_id, info, "expected PEER=VALUE,...");
    for (const auto& [peer_text, value] : items) {
      bool is_switch = info == kNvlinkInfo && peer_text == kSwitch;
      std::optional<int> peer = is_switch ? std::optional<int>(-1) : gpu_by_bus_id(peer_text);
      if (!peer) return bad_info(bus_id, info, "'" + peer_text + "' is no GPU of this topology");
      if (info == kNvlinkInfo) {
        int count = 0;
        if (!parse_count(value, count)) return bad_info(bus_id, info, "bad link count " + value);
        (is_switch ? switch_links_[static_cast<std::size_t>(gpu)]
                   : direct_links_[pair(gpu, *peer)]) = count;
      } else {
        std::optional<P2pStatus> status = parse_p2p_status(value);
        if (!status) return bad_info(bus_id, info, "bad status '" + value + "'");
        p2p_[pair(gpu, *peer)] = *status;
      }
    }
  }
  return ok_status();
}

Status Topology::update_links_from_nvml(const std::string& library) {
  GPURUN_ASSIGN_OR_RETURN(nvml::Report report, nvml::query(library));
  std::vector<int> direct(gpus_.size() * gpus_.size(), 0);
  std::vector<int> switches(gpus_.size(), 0);
  std::vector<P2pStatus> p2p(gpus_.size() * gpus_.size(), P2pStatus::kUnknown);
  std::vector<int> ours;  // NVML index -> our GPU index (-1: not in the topology)
  for (const nvml::Device& device : report.devices)
    ours.push_back(gpu_by_bus_id(device.bus_id).value_or(-1));
  std::size_t n = report.devices.size();
  for (std::size_t i = 0; i < n; ++i) {
    if (ours[i] < 0) continue;
    for (const std::string& peer : report.devices[i].nvlink_peers) {
      std::optional<int> other = gpu_by_bus_id(peer);
      if (peer == nvml::kSwitchPeer || !other)
        ++switches[static_cast<std::size_t>(ours[i])];
      else
        ++direct[pair(ours[i], *other)];
    }
    for (std::size_t j = 0; j < n; ++j)
      if (ours[j] >= 0) p2p[pair(ours[i], ours[j])] = report.p2p[i * n + j];
  }
  for (std::size_t i = 0; i < n; ++i) {
    if (ours[i] < 0) continue;
    Gpu& gpu = gpus_[static_cast<std::size_t>(ours[i])];
    if (!report.devices[i].name.empty()) gpu.name = report.devices[i].name;
    if (!report.devices[i].uuid.empty()) gpu.uuid = report.devices[i].uuid;
  }
  direct_links_ = std::move(direct);
  switch_links_ = std::move(switches);
  p2p_ = std::move(p2p);
  link_source_ = "NVML";
  return ok_status();
}

Status Topology::add_link_infos(hwloc_topology* copy) const {
  for (const Gpu& gpu : gpus_) {
    hwloc_obj_t obj = hwloc_get_pcidev_by_busidstring(copy, gpu.bus_id.c_str());
    if (obj == nullptr)
      return Status(ErrorCode::kInternal, "GPU " + gpu.bus_id + " missing from the copy");
    std::string links, p2p;
    auto sw = switch_links_[static_cast<std::size_t>(gpu.index)];
    if (sw > 0) links = std::string(kSwitch) + "=" + std::to_string(sw);
    for (const Gpu& peer : gpus_) {
      if (peer.index == gpu.index) continue;
      if (int n = direct_links_[pair(gpu.index, peer.index)]; n > 0)
        links += (links.empty() ? "" : ",") + peer.bus_id + "=" + std::to_string(n);
      if (P2pStatus s = p2p_[pair(gpu.index, peer.index)]; s != P2pStatus::kUnknown)
        p2p += (p2p.empty() ? "" : ",") + peer.bus_id + "=" + std::string(p2p_status_name(s));
    }
    add_info_once(obj, kNvlinkInfo, links);
    add_info_once(obj, kP2pInfo, p2p);
    add_info_once(obj, kUuidInfo, gpu.uuid);
    const char* model = hwloc_obj_get_info_by_name(obj, "PCIDevice");
    if (model == nullptr || gpu.name != model) add_info_once(obj, kNameInfo, gpu.name);
  }
  return ok_status();
}

Status Topology::dump(const std::string& path) const {
  hwloc_topology_t raw = nullptr;
  if (hwloc_topology_dup(&raw, handle_.get()) != 0)
    return errno_status("hwloc topology dup", errno);
  std::unique_ptr<hwloc_topology, TopologyCloser> copy(raw);
  GPURUN_TRY(add_link_infos(raw));
  std::string temporary = path + ".tmp." + std::to_string(getpid());
  if (hwloc_topology_export_xml(raw, temporary.c_str(), 0) != 0) {
    Status status = errno_status("writing the topology to " + temporary, errno);
    unlink(temporary.c_str());
    return status;
  }
  if (std::rename(temporary.c_str(), path.c_str()) != 0) {
    Status status = errno_status("renaming " + temporary + " to " + path, errno);
    unlink(temporary.c_str());
    return status;
  }
  return ok_status();
}

}  // namespace gpurun::topo

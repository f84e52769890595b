#include "runtime/topo/path_policy.h"

#include <algorithm>
#include <array>
#include <sstream>

namespace gpurun::topo {
namespace {

constexpr std::array<std::string_view, 3> kReachNames = {"self", "host", "network"};
constexpr char kDisabledBy[] = "disabled-by";

std::string rank_name(const RankSite& site) { return "rank " + std::to_string(site.rank); }
std::string gpu_name(int gpu) { return "GPU " + std::to_string(gpu); }

bool hides(const RankSite& site, int gpu) {
  return std::find(site.hidden_gpus.begin(), site.hidden_gpus.end(), gpu) != site.hidden_gpus.end();
}

const Failure* failure_of(const PathQuery& q, const std::string& transport) {
  for (const Failure& failure : q.failed)
    if (failure.transport == transport) return &failure;
  return nullptr;
}

// The worse of NVML's two directions between the GPUs of a and b.
P2pStatus pair_p2p(const Topology& topo, int a, int b) {
  P2pStatus there = topo.p2p(a, b);
  P2pStatus back = topo.p2p(b, a);
  if (there != P2pStatus::kOk && there != P2pStatus::kUnknown) return there;
  if (back != P2pStatus::kOk && back != P2pStatus::kUnknown) return back;
  return there == P2pStatus::kUnknown ? back : there;
}

// Why the device-capable host transport `t` (cuda_ipc) may not carry device buffers between
// a and b; nullopt when it may.
std::optional<std::string> peer_access_refusal(const PathQuery& q, const TransportInfo& t) {
  const RankSite& a = *q.a;
  const RankSite& b = *q.b;
  for (const RankSite* site : {&a, &b})
    if (site->gpu < 0) return rank_name(*site) + " has no GPU";
  if (hides(a, b.gpu))
    return gpu_name(b.gpu) + " hidden from " + rank_name(a) +
           " (CUDA_VISIBLE_DEVICES): IPC needs both GPUs visible";
  if (hides(b, a.gpu))
    return gpu_name(a.gpu) + " hidden from " + rank_name(b) +
           " (CUDA_VISIBLE_DEVICES): IPC needs both GPUs visible";
  if (!t.disabled_by.empty()) return "disabled by " + t.disabled_by;
  if (q.knobs.staging) return "device buffers staged by GPURUN_TOPO_STAGING=1";
  if (!q.knobs.p2p) return "disabled by GPURUN_TOPO_P2P=0";
  if (a.gpu != b.gpu) {
    P2pStatus status = pair_p2p(*q.topology, a.gpu, b.gpu);
    if (status != P2pStatus::kOk && status != P2pStatus::kUnknown)
      return "peer access off between " + gpu_name(a.gpu) + " and " + gpu_name(b.gpu) +
             " (NVML: " + std::string(p2p_status_reason(status)) + ")";
  }
  PathClass path = q.topology->gpu_path(a.gpu, b.gpu);
  if (q.knobs.p2p_level && path > *q.knobs.p2p_level)
    return "path " + std::string(path_class_name(path)) + " between " + gpu_name(a.gpu) + " and " +
           gpu_name(b.gpu) +
           " is beyond GPURUN_TOPO_P2P_LEVEL=" + std::string(path_class_name(*q.knobs.p2p_level));
  if (const Failure* failure = failure_of(q, t.name)) return failure->reason;
  return std::nullopt;
}

// Why the network transport `t` may not move device buffers itself (GPUDirect RDMA).
std::optional<std::string> gdr_refusal(const PathQuery& q, const TransportInfo& t,
                                       std::optional<PathClass>& path) {
  for (const RankSite* site : {q.a, q.b}) {
    if (site->gpu < 0) return rank_name(*site) + " has no GPU";
    if (site->nic < 0 || !site->gpu_nic) return rank_name(*site) + " has no NIC";
  }
  path = std::max(*q.a->gpu_nic, *q.b->gpu_nic);
  if (q.knobs.staging) return "device buffers staged by GPURUN_TOPO_STAGING=1";
  for (const RankSite* site : {q.a, q.b})
    if (*site->gpu_nic > q.knobs.gdr_level)
      return "GPU-NIC path " + std::string(path_class_name(*site->gpu_nic)) + " of " +
             rank_name(*site) +
             " is beyond GPURUN_TOPO_GDR_LEVEL=" + std::string(path_class_name(q.knobs.gdr_level));
  if (const Failure* failure = failure_of(q, t.name)) return failure->reason;
  return std::nullopt;
}

// The first usable transport of `reach` that moves host memory; disabled ones are refused.
const TransportInfo* first_host_carrier(const PathQuery& q, Reach reach, PathChoice& choice) {
  for (const TransportInfo& t : q.transports) {
    if (t.reach != reach || !t.host_memory) continue;
    if (t.disabled_by.empty()) return &t;
    choice.refused.push_back(Refusal{t.name, std::nullopt, "disabled by " + t.disabled_by});
  }
  return nullptr;
}

Result<PathChoice> no_transport(const PathQuery& q, const PathChoice& choice) {
  std::string message = "no transport reaches " + rank_name(*q.b) + " on host " + q.b->host;
  for (const Refusal& refusal : choice.refused)
    message += "; " + refusal.transport + ": " + refusal.reason;
  return Status(ErrorCode::kNotFound, message);
}

// Device buffers within one host: peer access when allowed, else staged.
void try_peer_access(const PathQuery& q, PathChoice& choice) {
  for (const TransportInfo& t : q.transports) {
    if (t.reach != Reach::kHost || !t.device_memory) continue;
    std::optional<PathClass> path;
    if (q.a->gpu >= 0 && q.b->gpu >= 0) path = q.topology->gpu_path(q.a->gpu, q.b->gpu);
    std::optional<std::string> refusal = peer_access_refusal(q, t);
    if (!refusal) {
      choice.transport = t.name;
      choice.device_path = path;
      return;
    }
    choice.refused.push_back(Refusal{t.name, path, *refusal});
  }
}

Result<PathChoice> host_path(const PathQuery& q) {
  PathChoice choice;
  choice.host_link = q.topology->host_link(q.a->cpus, q.b->cpus);
  if (q.memory == MemoryKind::kDevice) {
    try_peer_access(q, choice);
    if (!choice.transport.empty()) return choice;
    choice.staged = true;
  }
  const TransportInfo* carrier = first_host_carrier(q, Reach::kHost, choice);
  if (carrier == nullptr) carrier = first_host_carrier(q, Reach::kNetwork, choice);
  if (carrier == nullptr) return no_transport(q, choice);
  choice.transport = carrier->name;
  return choice;
}

Result<PathChoice> network_path(const PathQuery& q) {
  PathChoice choice;
  choice.host_link = HostLink::kNet;
  const TransportInfo* carrier = first_host_carrier(q, Reach::kNetwork, choice);
  if (carrier == nullptr) return no_transport(q, choice);
  choice.transport = carrier->name;
  if (q.memory == MemoryKind::kHost) return choice;
  choice.staged = true;
  if (!carrier->device_memory) return choice;
  std::optional<PathClass> path;
  std::optional<std::string> refusal = gdr_refusal(q, *carrier, path);
  if (refusal) {
    choice.refused.push_back(Refusal{carrier->name, path, "GPUDirect RDMA: " + *refusal});
  } else {
    choice.staged = false;
    choice.device_path = path;
  }
  return choice;
}

Status check_site(const Topology& topology, const RankSite& site) {
  if (site.gpu >= static_cast<int>(topology.gpus().size()))
    return Status(ErrorCode::kInvalidArgument,
                  rank_name(site) + ": GPU " + std::to_string(site.gpu) + " is not on its host");
  if (site.nic >= static_cast<int>(topology.nics().size()))
    return Status(ErrorCode::kInvalidArgument,
                  rank_name(site) + ": NIC " + std::to_string(site.nic) + " is not on its host");
  return ok_status();
}

}  // namespace

std::string_view reach_name(Reach reach) { return kReachNames[static_cast<std::size_t>(reach)]; }

RankSite make_site(const Topology& topology, const RankSite& site) {
  RankSite out = site;
  out.gpu_nic.reset();
  if (site.gpu >= 0 && site.nic >= 0 && site.gpu < static_cast<int>(topology.gpus().size()) &&
      site.nic < static_cast<int>(topology.nics().size()))
    out.gpu_nic = topology.gpu_nic_path(site.gpu, site.nic);
  return out;
}

Result<PathChoice> choose_path(const PathQuery& q) {
  if (q.topology == nullptr || q.a == nullptr || q.b == nullptr)
    return Status(ErrorCode::kInvalidArgument, "path query without topology or ranks");
  GPURUN_TRY(check_site(*q.topology, *q.a));
  if (q.a->host == q.b->host) GPURUN_TRY(check_site(*q.topology, *q.b));
  if (q.a->rank == q.b->rank) {
    for (const TransportInfo& t : q.transports) {
      if (t.reach != Reach::kSelf || !t.disabled_by.empty()) continue;
      PathChoice choice{.transport = t.name, .host_link = HostLink::kSelf};
      if (q.memory == MemoryKind::kDevice) choice.device_path = PathClass::LOC;
      return choice;
    }
  }
  return q.a->host == q.b->host ? host_path(q) : network_path(q);
}

std::string describe(const PathChoice& choice) {
  std::string out = choice.transport + " ";
  if (choice.device_path && choice.host_link != HostLink::kNet)
    return out + std::string(path_class_name(*choice.device_path));
  out += host_link_name(choice.host_link);
  if (choice.device_path)
    out += ", GPUDirect RDMA " + std::string(path_class_name(*choice.device_path));
  if (choice.staged) out += ", staged through host memory";
  return out;
}

std::string format_transports(std::span<const TransportInfo> transports) {
  std::string out;
  for (const TransportInfo& t : transports) {
    out += t.name + " " + std::string(reach_name(t.reach)) + " ";
    if (t.host_memory) out += "host";
    if (t.device_memory) out += t.host_memory ? ",device" : "device";
    if (!t.disabled_by.empty()) out += std::string(" ") + kDisabledBy + " " + t.disabled_by;
    out += "\n";
  }
  return out;
}

Result<std::vector<TransportInfo>> parse_transports(std::string_view text) {
  std::vector<TransportInfo> out;
  std::istringstream lines{std::string(text)};
  for (std::string line; std::getline(lines, line);) {
    if (line.empty()) continue;
    std::istringstream fields(line);
    std::string reach, memory, word;
    TransportInfo t;
    fields >> t.name >> reach >> memory;
    auto it = std::find(kReachNames.begin(), kReachNames.end(), reach);
    if (t.name.empty() || it == kReachNames.end() || memory.empty())
      return Status(ErrorCode::kInvalidArgument, "bad transport line '" + line + "'");
    t.reach = static_cast<Reach>(it - kReachNames.begin());
    t.host_memory = memory.find("host") != std::string::npos;
    t.device_memory = memory.find("device") != std::string::npos;
    if (fields >> word) {
      if (word != kDisabledBy)
        return Status(ErrorCode::kInvalidArgument, "bad transport line '" + line + "'");
      std::getline(fields >> std::ws, t.disabled_by);
    }
    out.push_back(std::move(t));
  }
  return out;
}

}  // namespace gpurun::topo

#include "launcher/explain.h"

#include <algorithm>
#include <cstdio>
#include <map>

#include "launcher/info.h"
#include "runtime/topo/params.h"

namespace gpurun::launcher {
namespace {

// How the ranks were placed: by GPU, by core, or over a kind of domain (--map-by numa, socket,
// l3cache; ppr:N:OBJECT, N to each).
std::string placement_kind(const PlacementRequest& request, const Placement& p) {
  if (p.by_gpu) return "by GPU";
  if (!maps_by_domain(request.map_by)) return "by core";
  std::string kind = request.map_by == MapBy::kNuma      ? "the NUMA nodes"
                     : request.map_by == MapBy::kPackage ? "the packages (sockets)"
                                                         : "the L3 caches";
  if (request.ranks_per_domain == 0) return "dealt over " + kind;
  return std::to_string(request.ranks_per_domain) + " to each of " + kind + " in turn";
}

using topo::PathClass;

// Pads `text` to `width` columns (at least one space after it).
std::string cell(const std::string& text, std::size_t width) {
  return text + std::string(text.size() < width ? width - text.size() : 1, ' ');
}

std::string gpu_label(int gpu) { return "GPU" + std::to_string(gpu); }
std::string nic_label(int nic) { return "NIC" + std::to_string(nic); }

std::string numa_label(int numa) { return numa < 0 ? "N/A" : std::to_string(numa); }

// One matrix cell: X on the diagonal, NV<links> for NVLink, else the path class.
std::string matrix_cell(const topo::Topology& t, topo::DeviceRef a, topo::DeviceRef b) {
  PathClass path = t.path(a, b);
  if (path == PathClass::LOC) return "X";
  if (path == PathClass::NVL) return "NV" + std::to_string(t.nvlinks(a.index, b.index));
  return std::string(topo::path_class_name(path));
}

std::string legend(const topo::Topology& t) {
  std::string out =
      "Legend:\n"
      "  X    = self\n"
      "  NV#  = NVLink, # links (directly or through NVSwitches)\n"
      "  PIX  = PCIe through at most one PCIe switch\n"
      "  PXB  = PCIe through several PCIe switches, not the host bridge\n"
      "  PHB  = PCIe through a host bridge (the CPU), within one NUMA node\n"
      "  SYS  = PCIe and the link between NUMA nodes (sockets)\n";
  if (!t.nics().empty()) out += "NICs:\n";
  for (const topo::Nic& nic : t.nics())
    out += "  " + nic_label(nic.index) + ": " + nic.name + " (" + nic.bus_id +
           (nic.rdma ? ", RDMA" : "") + ")\n";
  std::string off;
  for (const topo::Gpu& a : t.gpus())
    for (const topo::Gpu& b : t.gpus()) {
      topo::P2pStatus status = t.p2p(a.index, b.index);
      if (a.index < b.index && status != topo::P2pStatus::kOk &&
          status != topo::P2pStatus::kUnknown)
        off += "  " + gpu_label(a.index) + "-" + gpu_label(b.index) + ": " +
               std::string(topo::p2p_status_reason(status)) + "\n";
    }
  if (!off.empty()) out += "GPU peer access off (NVML):\n" + off;
  return out;
}

std::string placement_rows(const ExplainInput& in) {
  const topo::Topology& t = in.plan->topology;
  const Placement& p = in.plan->placement;
  std::string out = cell("rank", 6) +
                    cell("host", std::max<std::size_t>(6, in.hostname.size() + 2)) +
                    cell("GPU", 20) + cell("NUMA", 6) + cell("CPUs", 14) + "NIC\n";
  for (std::size_t r = 0; r < p.ranks.size(); ++r) {
    const RankPlace& rank = p.ranks[r];
    std::string gpus;
    for (int gpu : rank.gpus)
      gpus += std::string(gpus.empty() ? "" : ",") + gpu_label(gpu) + " " +
              t.gpus()[static_cast<std::size_t>(gpu)].bus_id;
    int numa = rank.cpus ? t.numa_of(*rank.cpus) : (t.numa_nodes().size() == 1 ? 0 : -1);
    std::string nic = "-";
    if (rank.nic >= 0)
      nic = nic_label(rank.nic) + " " + nic_name(t, rank) + " (" +
            std::string(topo::path_class_name(t.gpu_nic_path(rank.gpus.front(), rank.nic))) + ")";
    out += cell(std::to_string(r), 6) +
           cell(in.hostname, std::max<std::size_t>(6, in.hostname.size() + 2)) +
           cell(gpus.empty() ? "-" : gpus, 20) + cell(numa_label(numa), 6) +
           cell(rank.cpus ? rank.cpus->to_string() : "unbound", 14) + nic + "\n";
  }
  return out;
}

std::string header(const ExplainInput& in) {
  const topo::Topology& t = in.plan->topology;
  const Placement& p = in.plan->placement;
  std::string out = "gpurun --explain: " + std::to_string(p.ranks.size()) + " rank" +
                    (p.ranks.size() == 1 ? "" : "s") + " on host " + in.hostname + "\n";
  out += "topology: " + t.source();
  if (!t.is_this_system()) out += " (not this machine: bindings are shown, not applied)";
  out += "\n";
  out += "GPUs: " + std::to_string(t.gpus().size()) + ", NICs: " + std::to_string(t.nics().size()) +
         ", NVLink and P2P data: " + t.link_source() + "\n";
  if (!in.plan->request.hidden_gpus.empty()) {
    out += "hidden by CUDA_VISIBLE_DEVICES (no rank placed on them):";
    for (int gpu : in.plan->request.hidden_gpus) out += std::string(" ") + gpu_label(gpu);
    out += "\n";
  }
  out += "placement: " + placement_kind(in.plan->request, p);
  out += p.oversubscribed ? ", oversubscribed (more ranks than cores)" : "";
  const topo::CopyProbe& copy = in.plan->copy;
  out += "\ncopy between cores: " + std::string(topo::host_copy_name(copy.copy)) + " (" + copy.why +
         "; coll/tuning.json rules with \"copy\")";
  if (copy.shm_eager > 0) {
    const char* why = copy.shm_eager >= topo::kPacketBytes ? "one packet faster at 16K"
                      : copy.shm_eager >= topo::kSmallPacketBytes
                          ? "CMA faster at 16K, one packet at 8K"
                          : "CMA faster at 16K and at 8K";
    out += "\nshm eager limit: " + std::to_string(copy.shm_eager / 1024) + "K (" + why + ")";
  }
  out += "\ntransports:";
  for (const topo::TransportInfo& tr : in.transports)
    out += " " + tr.name + (tr.device_memory ? "(device)" : "") +
           (tr.disabled_by.empty() ? "" : "(disabled by " + tr.disabled_by + ")");
  out += ", from " + in.transports_source + "\n";
  out += "policy: GPURUN_TOPO_P2P=" + std::string(in.knobs.p2p ? "1" : "0") +
         " GPURUN_TOPO_P2P_LEVEL=" +
         (in.knobs.p2p_level ? std::string(topo::path_class_name(*in.knobs.p2p_level)) : "auto") +
         " GPURUN_TOPO_GDR_LEVEL=" + std::string(topo::path_class_name(in.knobs.gdr_level)) +
         " GPURUN_TOPO_STAGING=" + (in.knobs.staging ? "1" : "0") + "\n";
  return out;
}

topo::RankSite site_of(const ExplainInput& in, int rank) {
  const RankPlace& place = in.plan->placement.ranks[static_cast<std::size_t>(rank)];
  topo::RankSite site{.rank = rank,
                      .host = in.hostname,
                      .cpus = place.cpus.value_or(topo::CpuSet()),
                      .gpu = place.gpus.empty() ? -1 : place.gpus.front(),
                      .nic = place.nic,
                      .hidden_gpus = in.plan->request.hidden_gpus};
  return topo::make_site(in.plan->topology, site);
}

// "shm same NUMA", with the refusals appended to `notes`.
std::string path_cell(const ExplainInput& in, const topo::RankSite& a, const topo::RankSite& b,
                      topo::MemoryKind memory, std::string& notes) {
  auto choice = topo::choose_path(topo::PathQuery{.topology = &in.plan->topology,
                                                  .a = &a,
                                                  .b = &b,
                                                  .memory = memory,
                                                  .transports = in.transports,
                                                  .knobs = in.knobs});
  if (!choice.ok()) return "none: " + std::string(choice.status().message());
  const char* kind = memory == topo::MemoryKind::kHost ? "host" : "device";
  for (const topo::Refusal& refusal : choice->refused)
    notes += "        " + std::string(kind) + " buffers: " + refusal.transport +
             (refusal.path ? std::string(" ") + std::string(topo::path_class_name(*refusal.path))
                           : std::string()) +
             " refused: " + refusal.reason + "\n";
  return topo::describe(*choice);
}

std::string path_rows(const ExplainInput& in) {
  int np = static_cast<int>(in.plan->placement.ranks.size());
  bool gpus = !in.plan->topology.gpus().empty();
  std::string out = cell("ranks", 8) + cell("host buffers", 30) + "device buffers\n";
  if (np < 2) out += "(one rank: no pairs)\n";
  for (int i = 0; i < np; ++i) {
    topo::RankSite a = site_of(in, i);
    for (int j = i + 1; j < np; ++j) {
      topo::RankSite b = site_of(in, j);
      std::string notes;
      std::string host = path_cell(in, a, b, topo::MemoryKind::kHost, notes);
      std::string device =
          gpus ? path_cell(in, a, b, topo::MemoryKind::kDevice, notes) : "- (no GPU on this host)";
      out += cell(std::to_string(i) + "-" + std::to_string(j), 8) + cell(host, 30) + device + "\n" +
             notes;
    }
  }
  return out;
}

}  // namespace

std::string matrix_text(const topo::Topology& t) {
  using Kind = topo::DeviceRef::Kind;
  std::vector<topo::DeviceRef> devices;
  for (const topo::Gpu& gpu : t.gpus()) devices.push_back({Kind::kGpu, gpu.index});
  for (const topo::Nic& nic : t.nics()) devices.push_back({Kind::kNic, nic.index});
  if (devices.empty()) return "no GPU or NIC on this host\n";
  auto label = [](topo::DeviceRef d) {
    return d.kind == Kind::kGpu ? gpu_label(d.index) : nic_label(d.index);
  };
  std::string out = cell("", 8);
  for (topo::DeviceRef d : devices) out += cell(label(d), 7);
  out += cell("CPU Affinity", 16) + "NUMA Affinity\n";
  for (topo::DeviceRef row : devices) {
    out += cell(label(row), 8);
    for (topo::DeviceRef col : devices) out += cell(matrix_cell(t, row, col), 7);
    const topo::CpuSet& cpus =
        row.kind == Kind::kGpu ? t.gpus()[row.index].cpus : t.nics()[row.index].cpus;
    int numa = row.kind == Kind::kGpu ? t.gpus()[row.index].numa : t.nics()[row.index].numa;
    out += cell(cpus.to_string(), 16) + numa_label(numa) + "\n";
  }
  return out + "\n" + legend(t);
}

std::string explain_text(const ExplainInput& in) {
  return header(in) + "\nPlacement\n" + placement_rows(in) + "\nTopology\n" +
         matrix_text(in.plan->topology) + "\nPaths between ranks\n" + path_rows(in);
}

int explain(const Options& options) {
  ExplainInput input;
  Plan plan = make_plan(options, topo::Topology::Io::kAlways);
  plan.copy = measure_copy(plan);
  input.plan = &plan;
  input.hostname = host_name();
  input.transports = build_transports(input.transports_source);
  input.knobs = topo::params::policy_knobs();
  std::fputs(explain_text(input).c_str(), stdout);
  return 0;
}

}  // namespace gpurun::launcher

#include "launcher/job_spec.h"

#include <array>

#include "launcher/stdin_fan.h"
#include "launcher/wire.h"

extern char** environ;

namespace gpurun::launcher {

std::string encode(const JobSpec& spec) {
  wire::Encoder e;
  e.str(spec.nspace).i32(spec.node).u32(static_cast<std::uint32_t>(spec.map.nodes.size()));
  for (const NodeRanks& node : spec.map.nodes) e.str(node.name).ints(node.ranks);
  e.u32(static_cast<std::uint32_t>(spec.apps.size()));
  for (const App& app : spec.apps) {
    std::vector<std::string> exports;
    for (const auto& [name, value] : app.exports) exports.push_back(name + "=" + value);
    e.i32(app.np).str(app.program).strings(app.argv).strings(exports).str(app.wdir);
  }
  e.strings(spec.env).str(spec.cwd);
  e.i32(static_cast<int>(spec.bind)).i32(static_cast<int>(spec.map_by)).i32(spec.gpus_per_rank);
  e.i32(spec.cpus_per_rank).i32(spec.cpus_from_threads ? 1 : 0).i32(spec.hwthread_cpus ? 1 : 0);
  e.i32(spec.share.first).i32(spec.share.ranks).i32(spec.report_bindings ? 1 : 0);
  e.i32(spec.stdin_rank).strings(spec.slots).i32(spec.ranks_per_domain);
  return e.take();
}

namespace {

// The programs of a job of `size` ranks: each with a program and its ranks, all ranks covered.
void decode_apps(wire::Decoder& d, int size, std::vector<App>& apps) {
  std::uint32_t count = d.u32();
  if (count == 0 || count > static_cast<std::uint32_t>(size))
    throw wire::ProtocolError("bad programs");
  std::int64_t ranks = 0;
  for (std::uint32_t k = 0; k < count; ++k) {
    App app{.np = d.i32(), .program = d.str(), .argv = d.strings()};
    for (const std::string& entry : d.strings()) {
      auto eq = entry.find('=');
      if (eq == std::string::npos || eq == 0) throw wire::ProtocolError("bad export");
      app.exports.emplace_back(entry.substr(0, eq), entry.substr(eq + 1));
    }
    app.wdir = d.str();
    if (app.np < 0 || (app.np == 0 && count > 1) || app.program.empty() || app.argv.empty())
      throw wire::ProtocolError("bad program");
    ranks += app.np == 0 ? size : app.np;
    apps.push_back(std::move(app));
  }
  if (ranks != size) throw wire::ProtocolError("the programs' ranks are not the job's");
}

}  // namespace

JobSpec decode_job_spec(std::string_view body) {
  wire::Decoder d(body);
  JobSpec spec;
  spec.nspace = d.str();
  spec.node = d.i32();
  std::uint32_t nodes = d.u32();
  if (nodes == 0 || nodes > 1u << 20) throw wire::ProtocolError("bad node count");
  int size = 0;
  for (std::uint32_t n = 0; n < nodes; ++n) {
    NodeRanks node{.name = d.str(), .local = static_cast<int>(n) == spec.node, .ranks = d.ints()};
    size += static_cast<int>(node.ranks.size());
    spec.map.nodes.push_back(std::move(node));
  }
  spec.map.node_of.assign(static_cast<std::size_t>(size), -1);
  for (std::size_t n = 0; n < spec.map.nodes.size(); ++n)
    for (int rank : spec.map.nodes[n].ranks) {
      if (rank < 0 || rank >= size || spec.map.node_of[static_cast<std::size_t>(rank)] >= 0)
        throw wire::ProtocolError("bad rank map");
      spec.map.node_of[static_cast<std::size_t>(rank)] = static_cast<int>(n);
    }
  if (spec.node < 0 || spec.node >= static_cast<int>(nodes)) throw wire::ProtocolError("bad node");
  decode_apps(d, size, spec.apps);
  spec.env = d.strings();
  spec.cwd = d.str();
  spec.bind = static_cast<BindTo>(d.i32());
  spec.map_by = static_cast<MapBy>(d.i32());
  spec.gpus_per_rank = d.i32();
  spec.cpus_per_rank = d.i32();
  spec.cpus_from_threads = d.i32() != 0;
  spec.hwthread_cpus = d.i32() != 0;
  spec.share.first = d.i32();
  spec.share.ranks = d.i32();
  spec.report_bindings = d.i32() != 0;
  spec.stdin_rank = d.i32();
  if (spec.stdin_rank >= size || spec.stdin_rank < kStdinNone)
    throw wire::ProtocolError("bad stdin rank");
  spec.slots = d.strings();
  if (!spec.slots.empty() && static_cast<int>(spec.slots.size()) != size)
    throw wire::ProtocolError("bad rank slots");
  spec.ranks_per_domain = d.i32();
  if (spec.ranks_per_domain < 0) throw wire::ProtocolError("bad ranks per domain");
  int local = static_cast<int>(spec.map.nodes[static_cast<std::size_t>(spec.node)].ranks.size());
  if (spec.share.ranks != 0 &&
      (spec.share.first < 0 || spec.share.first + local > spec.share.ranks))
    throw wire::ProtocolError("bad machine share");
  if (!d.done()) throw wire::ProtocolError("trailing bytes in the job");
  return spec;
}

std::vector<std::string> forwarded_env() {
  static constexpr std::array<std::string_view, 5> kPrefixes = {"GPURUN_", "UCX_", "FI_", "NCCL_",
                                                                "PMIX_MCA_"};
  std::vector<std::string> env;
  for (char** e = environ; e != nullptr && *e != nullptr; ++e) {
    std::string_view entry(*e);
    std::string_view name = entry.substr(0, entry.find('='));
    for (std::string_view prefix : kPrefixes)
      if (name.starts_with(prefix)) {
        env.emplace_back(entry);
        break;
      }
  }
  return env;
}

}  // namespace gpurun::launcher

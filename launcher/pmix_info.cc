#include "launcher/pmix_info.h"

#include <pmix.h>
#include <pmix_server.h>

#include <cstdlib>
#include <stdexcept>

#include "runtime/bootstrap/keys.h"

namespace gpurun::launcher {

InfoList::~InfoList() {
  for (pmix_info_t& info : items_) PMIX_INFO_DESTRUCT(&info);
}

pmix_info_t& InfoList::next() {
  items_.emplace_back();
  PMIX_INFO_CONSTRUCT(&items_.back());
  return items_.back();
}

void InfoList::add_string(const char* key, const std::string& value) {
  PMIX_INFO_LOAD(&next(), key, value.c_str(), PMIX_STRING);
}
void InfoList::add_bool(const char* key, bool value) {
  PMIX_INFO_LOAD(&next(), key, &value, PMIX_BOOL);
}
void InfoList::add_uint32(const char* key, std::uint32_t value) {
  PMIX_INFO_LOAD(&next(), key, &value, PMIX_UINT32);
}
void InfoList::add_uint16(const char* key, std::uint16_t value) {
  PMIX_INFO_LOAD(&next(), key, &value, PMIX_UINT16);
}
void InfoList::add_rank(const char* key, pmix_rank_t value) {
  PMIX_INFO_LOAD(&next(), key, &value, PMIX_PROC_RANK);
}
void InfoList::add_topology(const char* key, pmix_topology_t* topology) {
  PMIX_INFO_LOAD(&next(), key, topology, PMIX_TOPO);
}
void InfoList::add_regex(const char* key, char* regex) {
  PMIX_INFO_LOAD(&next(), key, regex, PMIX_REGEX);
  std::free(regex);
}

void InfoList::add_array(const char* key, InfoList&& list) {
  pmix_data_array_t array;
  array.type = PMIX_INFO;
  array.size = list.size();
  array.array = list.data();
  // PMIX_INFO_LOAD copies the array (and each value) into the new info.
  PMIX_INFO_LOAD(&next(), key, &array, PMIX_DATA_ARRAY);
}

namespace {

char* make_regex(const std::string& text, bool ppn) {
  char* regex = nullptr;
  pmix_status_t rc =
      ppn ? PMIx_generate_ppn(text.c_str(), &regex) : PMIx_generate_regex(text.c_str(), &regex);
  if (rc != PMIX_SUCCESS)
    throw std::runtime_error(std::string("PMIx_generate_regex: ") + PMIx_Error_string(rc));
  return regex;
}

std::string join(const std::vector<int>& ranks) {
  std::string out;
  for (int r : ranks) out += std::string(out.empty() ? "" : ",") + std::to_string(r);
  return out;
}

// The program (MPI_APPNUM) of `rank`.
std::uint32_t app_of(const JobLayout& job, int rank) {
  std::uint32_t app = 0;
  for (int first = 0; app < job.app_sizes.size(); ++app) {
    first += job.app_sizes[app];
    if (rank < first) return app;
  }
  return 0;
}

// The programs' PMIx application data: number, size and first rank of each.
void add_apps(InfoList& info, const JobLayout& job) {
  std::vector<int> sizes = job.app_sizes;
  if (sizes.empty()) sizes.push_back(job.map.size());
  info.add_uint32(PMIX_JOB_NUM_APPS, static_cast<std::uint32_t>(sizes.size()));
  int first = 0;
  for (std::size_t k = 0; k < sizes.size(); ++k) {
    InfoList app;
    app.add_uint32(PMIX_APPNUM, static_cast<std::uint32_t>(k));
    app.add_uint32(PMIX_APP_SIZE, static_cast<std::uint32_t>(sizes[k]));
    app.add_rank(PMIX_APPLDR, static_cast<pmix_rank_t>(first));
    info.add_array(PMIX_APP_INFO_ARRAY, std::move(app));
    first += sizes[k];
  }
}

// Rank `rank`, the `index`-th rank of node `node`.
InfoList rank_info(const JobLayout& job, int rank, int node, std::size_t index) {
  const NodeRanks& where = job.map.nodes[static_cast<std::size_t>(node)];
  InfoList info;
  info.add_rank(PMIX_RANK, static_cast<pmix_rank_t>(rank));
  info.add_uint16(PMIX_LOCAL_RANK, static_cast<std::uint16_t>(index));
  info.add_uint16(PMIX_NODE_RANK, static_cast<std::uint16_t>(index));
  info.add_uint32(PMIX_NODEID, static_cast<std::uint32_t>(node));
  info.add_uint32(PMIX_APPNUM, app_of(job, rank));
  info.add_string(PMIX_HOSTNAME, where.name);
  if (node != job.node) return info;
  if (index < job.rank_gpus.size() && !job.rank_gpus[index].empty())
    info.add_string(bootstrap::keys::kGpus, job.rank_gpus[index]);
  if (index < job.rank_nics.size() && !job.rank_nics[index].empty())
    info.add_string(bootstrap::keys::kNic, job.rank_nics[index]);
  return info;
}

}  // namespace

InfoList job_info(const std::string& nspace, const JobLayout& job) {
  const JobMap& map = job.map;
  const NodeRanks& here = map.nodes[static_cast<std::size_t>(job.node)];
  auto size = static_cast<std::uint32_t>(map.size());
  auto local = static_cast<std::uint32_t>(here.ranks.size());
  std::string names;
  std::string ppn;
  for (const NodeRanks& node : map.nodes) {
    names += (names.empty() ? "" : ",") + node.name;
    ppn += std::string(ppn.empty() ? "" : ";") + join(node.ranks);
  }
  InfoList info;
  info.add_uint32(PMIX_UNIV_SIZE, size);
  info.add_uint32(PMIX_JOB_SIZE, size);
  info.add_uint32(PMIX_MAX_PROCS, size);
  info.add_uint32(PMIX_LOCAL_SIZE, local);
  info.add_uint32(PMIX_NODE_SIZE, local);
  info.add_string(PMIX_LOCAL_PEERS, join(here.ranks));
  info.add_rank(PMIX_LOCALLDR, static_cast<pmix_rank_t>(here.ranks.front()));
  info.add_uint32(PMIX_NUM_NODES, static_cast<std::uint32_t>(map.nodes.size()));
  info.add_uint32(PMIX_NODEID, static_cast<std::uint32_t>(job.node));
  info.add_uint32(PMIX_APPNUM, 0);
  info.add_string(PMIX_HOSTNAME, here.name);
  info.add_string(PMIX_JOBID, nspace);
  info.add_regex(PMIX_NODE_MAP, make_regex(names, false));
  info.add_regex(PMIX_PROC_MAP, make_regex(ppn, true));
  add_apps(info, job);
  info.add_string(bootstrap::keys::kJobDir, job.jobdir);
  info.add_string(bootstrap::keys::kJobToken, job.token);
  info.add_bool(bootstrap::keys::kOversubscribed, job.oversubscribed);
  if (job.cores > 0)
    info.add_uint32(bootstrap::keys::kCores, static_cast<std::uint32_t>(job.cores));
  if (!job.copy.empty()) info.add_string(bootstrap::keys::kCopy, job.copy);
  if (job.shm_eager > 0)
    info.add_uint32(bootstrap::keys::kShmEager, static_cast<std::uint32_t>(job.shm_eager));
  for (std::size_t n = 0; n < map.nodes.size(); ++n)
    for (std::size_t i = 0; i < map.nodes[n].ranks.size(); ++i)
      info.add_array(PMIX_PROC_DATA, rank_info(job, map.nodes[n].ranks[i], static_cast<int>(n), i));
  return info;
}

}  // namespace gpurun::launcher

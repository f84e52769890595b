// The hosts of a communicator (coll/algo/hier.h), kept per communicator.
//
// The layout comes from Args::job_nodes (every job rank's node id, from the bootstrap) and the
// communicator's group; it is the same on every rank. It is kept by context id, checked
// against the communicator it was built for (a context id can be reused by another
// communicator), and dropped by release() when the communicator is freed.
#include <algorithm>
#include <map>
#include <memory>
#include <unordered_map>

#include "coll/algo/common.h"
#include "coll/algo/hier.h"

namespace gpurun::coll::algo::hier {
namespace {

struct Kept {
  const core::Communicator* comm = nullptr;
  int size = 0;
  bool one_host = true;
  const int* nodes = nullptr;
  std::unique_ptr<Layout> layout;  // null: not known
};

std::unordered_map<std::uint32_t, Kept>& kept() {
  static auto* k = new std::unordered_map<std::uint32_t, Kept>;
  return *k;
}

// Each rank's host, or an empty layout when a node id is missing.
std::unique_ptr<Layout> build(const Args& a) {
  const int p = a.comm->size();
  auto l = std::make_unique<Layout>();
  l->host_of.assign(static_cast<std::size_t>(p), 0);
  if (a.one_host || p == 1) {
    l->hosts.emplace_back(static_cast<std::size_t>(p));
    for (int i = 0; i < p; ++i) l->hosts[0][static_cast<std::size_t>(i)] = i;
    l->leaders = {0};
    return l;
  }
  std::map<int, int> host_of_node;  // node id -> host index (order of first rank)
  for (int i = 0; i < p; ++i) {
    int job_rank = a.comm->group().job_rank(i);
    if (job_rank < 0 || static_cast<std::size_t>(job_rank) >= a.job_nodes.size()) return nullptr;
    auto [it, added] = host_of_node.emplace(a.job_nodes[static_cast<std::size_t>(job_rank)],
                                            static_cast<int>(l->hosts.size()));
    if (added) {
      l->hosts.emplace_back();
      l->leaders.push_back(i);
    }
    std::vector<int>& members = l->hosts[static_cast<std::size_t>(it->second)];
    if (!members.empty() && members.back() != i - 1) l->contiguous = false;
    members.push_back(i);
    l->host_of[static_cast<std::size_t>(i)] = it->second;
  }
  return l;
}

}  // namespace

const Layout* layout_of(const Args& a) {
  Kept& k = kept()[a.comm->context_id()];
  bool same = k.comm == a.comm && k.size == a.comm->size() && k.one_host == a.one_host &&
              k.nodes == a.job_nodes.data();
  if (!same) {
    k.comm = a.comm;
    k.size = a.comm->size();
    k.one_host = a.one_host;
    k.nodes = a.job_nodes.data();
    k.layout = build(a);
  }
  return k.layout.get();
}

void release(std::uint32_t context_id) { kept().erase(context_id); }

bool usable(const Args& a) {
  return host_or_device(a) && a.comm != nullptr && layout_of(a) != nullptr;
}

bool usable_ordered(const Args& a) {
  if (!usable(a)) return false;
  return a.op == nullptr || a.op->commutative() || layout_of(a)->contiguous;
}

Team team_of(std::span<const int> ranks, int rank) {
  auto it = std::find(ranks.begin(), ranks.end(), rank);
  return Team{ranks, it == ranks.end() ? -1 : static_cast<int>(it - ranks.begin())};
}

}  // namespace gpurun::coll::algo::hier

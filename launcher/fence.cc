#include "launcher/fence.h"

#include <algorithm>

namespace gpurun::launcher {

FenceCoordinator::FenceCoordinator(std::vector<int> node_of, int nodes)
    : node_of_(std::move(node_of)), nodes_(nodes) {}

std::vector<int> FenceCoordinator::nodes_of(const std::vector<int>& participants) const {
  std::vector<int> nodes;
  for (int rank : participants) {
    if (rank < 0) {
      nodes.clear();
      for (int n = 0; n < nodes_; ++n) nodes.push_back(n);
      return nodes;
    }
    if (rank < static_cast<int>(node_of_.size()))
      nodes.push_back(node_of_[static_cast<std::size_t>(rank)]);
  }
  std::sort(nodes.begin(), nodes.end());
  nodes.erase(std::unique(nodes.begin(), nodes.end()), nodes.end());
  return nodes;
}

std::optional<FenceCoordinator::Complete> FenceCoordinator::contribute(
    int node, const std::vector<int>& participants, std::uint32_t sequence, std::string data) {
  std::vector<int> nodes = nodes_of(participants);
  if (!std::binary_search(nodes.begin(), nodes.end(), node)) return std::nullopt;
  Key key{participants, sequence};
  auto& contributions = fences_[key];
  contributions.emplace(node, std::move(data));
  if (contributions.size() < nodes.size()) return std::nullopt;
  Complete done{.participants = participants, .sequence = sequence, .nodes = std::move(nodes)};
  for (auto& [n, blob] : contributions) done.data += blob;
  fences_.erase(key);
  return done;
}

}  // namespace gpurun::launcher

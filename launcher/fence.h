// Fences across hosts, gathered by gpurun: each host's PMIx server contributes the data of its
// own ranks once they have all entered the fence; when every host holding a participant has
// contributed, every one of them gets the contributions concatenated in node order (PMIx 4.2
// unpacks concatenated blobs).
//
// A fence is named by its participants (ranks, -1 for the whole job) and its sequence number
// among the fences of the same participants, which every host counts alike.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace gpurun::launcher {

class FenceCoordinator {
 public:
  // `node_of`: the node of each rank; `nodes`: how many nodes the job has.
  FenceCoordinator(std::vector<int> node_of, int nodes);

  struct Complete {
    std::vector<int> participants;
    std::uint32_t sequence = 0;
    std::vector<int> nodes;  // the hosts to answer, ascending
    std::string data;        // every node's contribution, in node order
  };
  // Records node `node`'s contribution; returns the fence when it was the last one missing.
  // A contribution from a node holding no participant, or a second one, is ignored.
  std::optional<Complete> contribute(int node, const std::vector<int>& participants,
                                     std::uint32_t sequence, std::string data);
  // The nodes that hold a participant (all of them for -1); ascending.
  std::vector<int> nodes_of(const std::vector<int>& participants) const;
  // Fences still waiting for a contribution.
  std::size_t pending() const { return fences_.size(); }

 private:
  using Key = std::pair<std::vector<int>, std::uint32_t>;
  std::vector<int> node_of_;
  int nodes_;
  std::map<Key, std::map<int, std::string>> fences_;
};

}  // namespace gpurun::launcher

#include "runtime/core/context_ids.h"

#include <algorithm>
#include <bit>

namespace gpurun::core {
namespace {

constexpr std::uint64_t bit(int id) { return std::uint64_t{1} << (id % 64); }

}  // namespace

ContextIds::ContextIds() {
  free_.fill(-1);  // all bits set
  free_[0] &= static_cast<std::int64_t>(~(bit(0) | bit(1)));
  free_[kBridgeId / 64] &= static_cast<std::int64_t>(~bit(kBridgeId % 64));
}

ContextIds::Ticket ContextIds::enter(std::uint64_t key) {
  Ticket t = next_ticket_++;
  competing_.emplace(key, t);
  return t;
}

void ContextIds::leave(Ticket ticket) {
  std::erase_if(competing_, [ticket](const auto& e) { return e.second == ticket; });
  if (holder_ == ticket) holder_ = 0;
}

bool ContextIds::offer(Ticket ticket, Mask* out) {
  if (holder_ == 0 && !competing_.empty() && competing_.begin()->second == ticket) holder_ = ticket;
  if (holder_ != ticket) {
    out->fill(0);
    return false;
  }
  *out = free_;
  return true;
}

int ContextIds::conclude(Ticket ticket, const Mask& reduced) {
  int id = holder_ == ticket ? lowest(reduced) : -1;
  if (id >= 0 && is_free(id)) {
    free_[id / 64] &= static_cast<std::int64_t>(~bit(id));
    holder_ = 0;
    return id;
  }
  // Nothing this round: keep the mask unless an agreement of lower key waits for it.
  if (holder_ == ticket && competing_.begin()->second != ticket) holder_ = 0;
  return -1;
}

int ContextIds::take_alone() {
  if (holder_ != 0) return -1;
  int id = lowest(free_);
  if (id < 0) return -2;
  free_[id / 64] &= static_cast<std::int64_t>(~bit(id));
  return id;
}

std::vector<int> ContextIds::release(int id) {
  if (id < 2 || id >= kBridgeId) return {};  // the reserved ids are never given back
  resting_.push_back(id);
  std::vector<int> freed;
  bool scarce = free_count() < kMaxIds / 2;  // then none rests
  while (!resting_.empty() && (scarce || resting_.size() > kResting)) {
    freed.push_back(resting_.front());
    resting_.pop_front();
  }
  for (int r : freed) free_[r / 64] |= static_cast<std::int64_t>(bit(r));
  return freed;
}

bool ContextIds::is_free(int id) const {
  if (id < 0 || id >= kMaxIds) return false;
  return (static_cast<std::uint64_t>(free_[id / 64]) & bit(id)) != 0;
}

int ContextIds::free_count() const {
  int n = 0;
  for (std::int64_t w : free_) n += std::popcount(static_cast<std::uint64_t>(w));
  return n;
}

int ContextIds::lowest(const Mask& mask) {
  for (int w = 0; w < kWords; ++w) {
    auto bits = static_cast<std::uint64_t>(mask[w]);
    if (bits != 0) return w * 64 + std::countr_zero(bits);
  }
  return -1;
}

}  // namespace gpurun::core

// Matching: receives posted before their message, and messages that arrived before their
// receive, per communicator context. Both queues keep arrival/post order, which is what MPI's
// ordering rule needs: messages from one source on one communicator match in the order sent.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "pml/counters.h"
#include "runtime/core/request.h"
#include "runtime/transport/transport.h"

namespace gpurun::pml {

inline constexpr int kAnySource = -2;
inline constexpr int kAnyTag = -1;

inline bool matches(int want_source, int want_tag, int source, int tag) {
  return (want_source == kAnySource || want_source == source) &&
         (want_tag == kAnyTag || want_tag == tag);
}

// A message that arrived before a receive matched it. Small payloads stay inline.
struct Unexpected {
  int source = 0;  // rank in the communicator
  int tag = 0;
  int peer = 0;  // job rank of the sender
  std::uint8_t type = 0;
  bool sync = false;
  bool device_route = false;  // a rendezvous offered on the sender's device endpoint
  std::uint32_t context = 0;
  std::uint64_t size = 0;          // message bytes
  std::uint64_t sender_token = 0;  // for the ack of a synchronous send
  transport::BulkCookie cookie;    // for a rendezvous message
  std::size_t length = 0;          // eager payload bytes held
  std::byte inline_data[64];
  std::unique_ptr<std::byte[]> heap_data;
  Unexpected* next = nullptr;
  Unexpected* prev = nullptr;

  const std::byte* data() const { return heap_data ? heap_data.get() : inline_data; }
};

// A doubly linked list through the elements' own next/prev fields.
template <class T>
class IntrusiveList {
 public:
  bool empty() const { return head_ == nullptr; }
  T* front() const { return head_; }
  void push_back(T* item) {
    item->next = nullptr;
    item->prev = tail_;
    if (tail_) tail_->next = item;
    else head_ = item;
    tail_ = item;
  }
  void remove(T* item) {
    if (item->prev) item->prev->next = item->next;
    else head_ = item->next;
    if (item->next) item->next->prev = item->prev;
    else tail_ = item->prev;
    item->next = item->prev = nullptr;
  }

 private:
  T* head_ = nullptr;
  T* tail_ = nullptr;
};

class MatchQueues {
 public:
  MatchQueues() = default;
  MatchQueues(const MatchQueues&) = delete;
  MatchQueues& operator=(const MatchQueues&) = delete;
  // Messages nobody received (a rank that finalizes with sends to it pending) go with the
  // queues: held, they belong to them.
  ~MatchQueues() {
    while (Unexpected* u = unexpected_.front()) {
      unexpected_.remove(u);
      count_down(g_counters.unexpected);
      delete u;
    }
    for (const core::Request* r = posted_.front(); r != nullptr; r = r->next)
      count_down(g_counters.posted);
  }
  // The first posted receive that `source`/`tag` matches, taken off the queue.
  core::Request* take_posted(int source, int tag) {
    for (core::Request* r = posted_.front(); r != nullptr; r = r->next) {
      if (matches(r->peer, r->tag, source, tag)) {
        posted_.remove(r);
        count_down(g_counters.posted);
        return r;
      }
    }
    return nullptr;
  }
  // The first arrived message that a receive for `source`/`tag` matches; taken off the queue
  // when `take`.
  Unexpected* find_unexpected(int source, int tag, bool take) {
    for (Unexpected* u = unexpected_.front(); u != nullptr; u = u->next) {
      if (matches(source, tag, u->source, u->tag)) {
        if (take) {
          unexpected_.remove(u);
          count_down(g_counters.unexpected);
        }
        return u;
      }
    }
    return nullptr;
  }
  template <class Fn>
  void for_each_posted(Fn fn) const {
    for (const core::Request* r = posted_.front(); r != nullptr; r = r->next) fn(r);
  }
  // Takes every posted receive that `pick` chooses off the queue, in order, and hands it to
  // `take`.
  template <class Pick, class Take>
  void take_posted_if(Pick pick, Take take) {
    for (core::Request* r = posted_.front(); r != nullptr;) {
      core::Request* next = r->next;
      if (pick(r)) {
        posted_.remove(r);
        count_down(g_counters.posted);
        take(r);
      }
      r = next;
    }
  }
  void post(core::Request* r) {
    posted_.push_back(r);
    count_up(g_counters.posted);
  }
  void hold(Unexpected* u) {
    unexpected_.push_back(u);
    count_held();
  }
  bool unpost(core::Request* r) {
    if (!is_posted(r)) return false;
    posted_.remove(r);
    count_down(g_counters.posted);
    return true;
  }
  bool is_posted(const core::Request* r) const {
    for (const core::Request* p = posted_.front(); p != nullptr; p = p->next)
      if (p == r) return true;
    return false;
  }
  bool idle() const { return posted_.empty() && unexpected_.empty(); }

 private:
  IntrusiveList<core::Request> posted_;
  IntrusiveList<Unexpected> unexpected_;
};

}  // namespace gpurun::pml

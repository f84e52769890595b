// The progress engine: transports register a poll function; waiting code calls wait(done).
//
// Wait policy (DESIGN.md decision 8): when every rank has a core, a waiting rank spins on
// poll() for the lowest latency, and only after a long idle stretch (GPURUN_PROGRESS_SPIN_TIME)
// sleeps on its doorbell. When ranks outnumber cores it yields its core after every second
// poll that found nothing (GPURUN_PROGRESS_YIELD_POLLS): the peer it waits for is then most
// often not running, and a poll costs a small part of the context switch that lets that peer
// run. Polling 32 times between yields made each wait for a descheduled peer some 2-3 us
// longer (osu_* -np 4 on 2 cores, 8 B, medians of 5 interleaved runs, 32 -> 1 poll: barrier
// 3.8 -> 2.0 us, reduce 6.9 -> 2.4, allreduce 5.6 -> 4.3, alltoall 5.8 -> 2.4). Since the
// ranks are bound to shared cores (launcher/placement.h), a second poll before the yield
// catches what a rank on the other core posts meanwhile, and saves the switch (1 -> 2 polls,
// medians of 3 interleaved runs: allreduce 1.45 -> 1.22 us, alltoall 1.33 -> 1.13, allgather
// 1.34 -> 1.14, barrier 1.55 -> 1.57, reduce 0.61 -> 0.64; 3 and more polls lose again). A
// caller that knows better passes its own count to wait(): one waiting for a small message
// from a peer on another core, which is then often running, polls longer (api/requests.cc).
// It sleeps on its doorbell after GPURUN_PROGRESS_SPIN_TIME (2 ms) without work. A sender
// rings the doorbell of a peer that sleeps (Doorbell::ring), and every sleep has a timeout, so
// a wake-up lost to a race costs at most GPURUN_PROGRESS_SLEEP_MAX, never a hang.
//
// Not thread-safe: one thread polls at a time (the API layer serialises callers).
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "runtime/base/clock.h"

namespace gpurun::progress {

enum class WaitPolicy : std::uint8_t { kAuto, kSpin, kYield, kBlock };

// Whether peers sleep often (ranks outnumber cores): then ring() orders the caller's earlier
// stores before its look at the sleeping flag, so a wake-up is never missed. Otherwise a rank
// sleeps only after a long idle stretch, and the rare missed wake-up costs one sleep timeout.
extern bool g_doorbell_fence;

// A rank's doorbell, in shared memory so that peers can ring it. Lives in one cache line.
struct alignas(64) Doorbell {
  std::atomic<std::uint32_t> sleeping{0};  // 1 while the owner sleeps (a futex word)
  std::atomic<std::uint32_t> rings{0};     // bumped by every ring(), a futex word

  // Wakes the owner if it sleeps. Cheap when it does not: one load of a line that stays
  // shared in the caller's cache.
  void ring() {
    if (g_doorbell_fence) std::atomic_thread_fence(std::memory_order_seq_cst);
    if (sleeping.load(std::memory_order_relaxed) != 0) [[unlikely]]
      wake();
  }
  void wake();
};

using PollFn = int (*)(void* context);  // returns how many events it handled

// A poller's count of the work its owner has in hand. Atomic, so that a thread other than the
// one changing it may look (the collectives' unit tests run several ranks as threads of one
// process); the engine loads it relaxed, which costs what a plain load does.
using PendingWord = std::atomic<std::size_t>;

// Changes a pending word. Its owner changes it under the library's lock, one thread at a time,
// so this is a relaxed load and store, the code a plain counter gets, not a locked add. (The
// collectives' unit tests, whose ranks are threads, may lose a count: they advance their arenas
// themselves.)
inline void add_pending(PendingWord& word, std::ptrdiff_t delta) {
  word.store(word.load(std::memory_order_relaxed) + delta, std::memory_order_relaxed);
}

class Engine {
 public:
  // Registers a poller; at setup time only. A poller with a `pending` word is called only
  // while that word is not zero: its owner counts there the work it has in hand, and the
  // engine skips it with a load instead of a call when it has none.
  void add(PollFn fn, void* context, std::string name, const PendingWord* pending = nullptr);
  // Runs every poller once. Returns the number of events handled.
  int poll() {
    int events = 0;
    for (const Poller& p : pollers_)
      if (p.pending == nullptr || p.pending->load(std::memory_order_relaxed) != 0)
        events += p.fn(p.context);
    return events;
  }
  // Polls until done() returns true, applying the wait policy.
  template <class Done>
  void wait(Done&& done, std::uint64_t yield_polls = 0) {
    if (done()) return;
    Idle idle(*this, yield_polls != 0 ? yield_polls : yield_polls_);
    while (true) {
      int events = poll();
      if (done()) return;
      if (events == 0) idle.step();
      else idle.reset();
    }
  }

  // Resolves the policy (auto from oversubscription) and where this rank's doorbell is.
  void configure(bool oversubscribed, Doorbell* own_doorbell);
  WaitPolicy policy() const { return policy_; }
  Doorbell* doorbell() const { return doorbell_; }

 private:
  struct Poller {
    PollFn fn;
    void* context;
    const PendingWord* pending;
    std::string name;
  };
  // What a waiting thread does between polls that found nothing.
  class Idle {
   public:
    Idle(Engine& engine, std::uint64_t yield_polls) : engine_(engine), yield_polls_(yield_polls) {}
    void reset() {
      idle_polls_ = 0;
      yield_countdown_ = 0;
      until_clock_ = 0;
      idle_since_ns_ = 0;
    }
    void step();

   private:
    void sleep();
    Engine& engine_;
    std::uint64_t yield_polls_;  // idle polls between yields
    std::uint64_t idle_polls_ = 0;
    std::uint32_t until_clock_ = 0;  // idle polls left before the next look at the clock
    std::uint64_t yield_countdown_ = 0;  // idle polls since the last yield
    std::int64_t idle_since_ns_ = 0;
  };

  std::vector<Poller> pollers_;
  WaitPolicy policy_ = WaitPolicy::kSpin;
  Doorbell* doorbell_ = nullptr;
  Doorbell private_doorbell_;  // until a transport provides a shared one
  std::int64_t spin_ns_ = 0;
  std::int64_t sleep_max_ns_ = 0;
  std::uint64_t yield_polls_ = 1;  // idle polls between yields (GPURUN_PROGRESS_YIELD_POLLS)
};

// The process's engine.
Engine& engine();

// Whether a thread of the rank's (the progress helper) can run beside it rather than take its
// CPU: the rank may run on more than one CPU and the host has more CPUs than ranks.
bool spare_cpu(int rank_cpus, long host_cpus, int host_ranks);

}  // namespace gpurun::progress

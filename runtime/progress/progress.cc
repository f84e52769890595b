#include "runtime/progress/progress.h"

#include <linux/futex.h>
#include <sched.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <climits>
#include <ctime>

#include "runtime/base/log.h"
#include "runtime/progress/params.h"

namespace gpurun::progress {
namespace {

// Polls between two clock reads while spinning: reading the clock costs about as much as an
// idle poll, so checking every 256 polls keeps the spin loop on polling.
constexpr std::uint64_t kPollsPerClockCheck = 256;
// Yielding before the first sleep when ranks outnumber cores: a yield hands the core to a rank
// that has work at the cost of a context switch, where a sleep and its wake-up cost several
// microseconds; after this long idle the rank sleeps, so a rank blocked for long costs little.
constexpr std::int64_t kOversubscribedSpinNs = 2'000'000;
// Spinning before the first sleep when every rank has a core: sleeping costs the next message
// a wake-up, so a rank sleeps only after a long idle stretch (and then uses ~5% of a core).
constexpr std::int64_t kDedicatedSpinNs = 50'000'000;

long futex(std::atomic<std::uint32_t>* word, int op, std::uint32_t value, const timespec* timeout) {
  return syscall(SYS_futex, reinterpret_cast<std::uint32_t*>(word), op, value, timeout, nullptr,
                 0);
}

inline void cpu_relax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#endif
}

const char* policy_name(WaitPolicy p) {
  switch (p) {
    case WaitPolicy::kAuto: return "auto";
    case WaitPolicy::kSpin: return "spin";
    case WaitPolicy::kYield: return "yield";
    case WaitPolicy::kBlock: return "block";
  }
  return "?";
}

}  // namespace

bool g_doorbell_fence = false;

void Doorbell::wake() {
  rings.fetch_add(1, std::memory_order_release);
  futex(&rings, FUTEX_WAKE, INT_MAX, nullptr);
}

Engine& engine() {
  static Engine* e = new Engine();
  return *e;
}

void Engine::add(PollFn fn, void* context, std::string name, const PendingWord* pending) {
  pollers_.push_back(Poller{fn, context, pending, std::move(name)});
}

void Engine::configure(bool oversubscribed, Doorbell* own_doorbell) {
  doorbell_ = own_doorbell ? own_doorbell : &private_doorbell_;
  policy_ = params::wait().get();
  if (policy_ == WaitPolicy::kAuto) policy_ = oversubscribed ? WaitPolicy::kYield : WaitPolicy::kSpin;
  auto spin = params::spin_time().get();
  spin_ns_ = spin ? spin->count() : (oversubscribed ? kOversubscribedSpinNs : kDedicatedSpinNs);
  sleep_max_ns_ = params::sleep_max().get().count();
  yield_polls_ = static_cast<std::uint64_t>(std::max(params::yield_polls().get(), 1));
  g_doorbell_fence = policy_ != WaitPolicy::kSpin;
  GPURUN_LOG(info, init, "wait policy %s, spin %lld ns before sleeping%s", policy_name(policy_),
             static_cast<long long>(spin_ns_), oversubscribed ? " (ranks outnumber cores)" : "");
}

// Spinning neither pauses nor reads the clock on every poll: a message that arrives during
// either would be seen that much later. The idle stretch is timed from the first clock check.
void Engine::Idle::step() {
  ++idle_polls_;
  switch (engine_.policy_) {
    case WaitPolicy::kYield:
      if (++yield_countdown_ >= yield_polls_) {
        yield_countdown_ = 0;
        sched_yield();
      }
      break;
    case WaitPolicy::kBlock:
      cpu_relax();  // a rank that will soon give its core away
      break;
    default:
      break;
  }
  // A countdown, not a modulo: a division on every spin would delay noticing a message.
  if (until_clock_ > 1) {
    --until_clock_;
    return;
  }
  bool first = until_clock_ == 0;  // most waits end before the first look at the clock
  until_clock_ = engine_.policy_ == WaitPolicy::kSpin ? kPollsPerClockCheck : 16;
  if (first) return;
  std::int64_t now = clock::now_ns();
  if (idle_since_ns_ == 0) {
    idle_since_ns_ = now;
    return;
  }
  if (now - idle_since_ns_ >= engine_.spin_ns_) sleep();
}

// Announces the sleep, polls once more (a message may have arrived before the announcement
// was visible), then waits on the doorbell for at most sleep_max.
void Engine::Idle::sleep() {
  Doorbell* bell = engine_.doorbell_;
  std::uint32_t seen = bell->rings.load(std::memory_order_acquire);
  bell->sleeping.store(1, std::memory_order_seq_cst);
  if (engine_.poll() == 0) {
    timespec timeout{0, engine_.sleep_max_ns_};
    futex(&bell->rings, FUTEX_WAIT, seen, &timeout);
  }
  bell->sleeping.store(0, std::memory_order_relaxed);
  // Whatever woke us (a ring, the timeout), look for work right away; if there is none, the
  // idle stretch goes on from where it was, so the next check sleeps again.
}

bool spare_cpu(int rank_cpus, long host_cpus, int host_ranks) {
  return rank_cpus > 1 && host_cpus > host_ranks;
}

}  // namespace gpurun::progress

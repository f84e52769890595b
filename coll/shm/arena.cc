#include "coll/shm/arena.h"

#include <algorithm>
#include <cstddef>

#include "coll/shm/op.h"
#include "coll/shm/params.h"
#include "coll/shm/setup.h"
#include "runtime/base/log.h"

namespace gpurun::coll::shm {
namespace {

progress::PendingWord g_queued{0};

std::vector<progress::Doorbell*>& doorbells() {
  static auto* table = new std::vector<progress::Doorbell*>();
  return *table;
}

}  // namespace

std::size_t queued_everywhere() { return g_queued.load(std::memory_order_relaxed); }
const progress::PendingWord* queued_word() { return &g_queued; }

std::size_t new_slot_bytes() {
  std::uint64_t bytes = params::slot_size().get().bytes;
  bytes = std::max<std::uint64_t>(bytes, kPageBytes * Arena::kParts);
  return (bytes + kPageBytes - 1) / kPageBytes * kPageBytes;
}

void set_doorbell(int job_rank, progress::Doorbell* bell) {
  auto& table = doorbells();
  if (job_rank < 0) return;
  if (static_cast<std::size_t>(job_rank) >= table.size()) table.resize(job_rank + 1, nullptr);
  table[job_rank] = bell;
}

std::string& token_storage() {
  static auto* token = new std::string();
  return *token;
}

void set_job_token(std::string token) { token_storage() = std::move(token); }
const std::string& job_token() { return token_storage(); }

progress::Doorbell* doorbell_of(int job_rank) {
  const auto& table = doorbells();
  if (job_rank < 0 || static_cast<std::size_t>(job_rank) >= table.size()) return nullptr;
  return table[job_rank];
}

Arena::Arena(const core::Communicator& comm)
    : rank_(comm.rank()),
      size_(comm.size()),
      context_id_(comm.context_id()),
      group_(comm.shared_group()) {
  if (size_ == 1) {  // nobody to share with: the same code runs over private memory
    Layout layout{.size = 1, .slot_bytes = new_slot_bytes()};
    private_memory_.resize(layout.total_bytes() + kPageBytes);
    auto address = reinterpret_cast<std::uintptr_t>(private_memory_.data());
    void* base = reinterpret_cast<void*>((address + kPageBytes - 1) / kPageBytes * kPageBytes);
    layout.init(base);
    map(base, layout);
  }
}

Arena::Arena(void* base, const Layout& layout, int rank, std::vector<progress::Doorbell*> bells)
    : rank_(rank), size_(layout.size), bells_(std::move(bells)) {
  map(base, layout);
  if (!bells_.empty()) bells_[rank_] = nullptr;
}

Arena::~Arena() = default;

bool Arena::serves(const core::Communicator& comm) const {
  return comm.context_id() == context_id_ && comm.shared_group() == group_ && comm.rank() == rank_;
}

void Arena::map(void* base, const Layout& layout) {
  base_ = base;
  layout_ = layout;
  state_ = State::kReady;
  flat_ = size_ <= std::max(params::flat_max().get(), 2);
  if (!flat_) {
    int radix = std::max(params::tree_radix().get(), 2);
    parent_ = tree_parent(rank_, radix);
    children_ = tree_children(rank_, size_, radix);
  }
}

void Arena::set_core_groups(std::vector<int> groups) {
  groups_ = std::move(groups);
  grouped_ = false;
  for (int r = 0; r < static_cast<int>(groups_.size()); ++r)
    if (groups_[static_cast<std::size_t>(r)] != r) grouped_ = true;
  if (grouped_ && log::enabled(log::Level::debug, log::Subsys::coll)) {
    std::string list;
    for (int g : groups_) {
      if (!list.empty()) list += ' ';
      list += std::to_string(g);
    }
    GPURUN_LOG(debug, coll, "communicator %u: ranks share cores, groups by rank: %s", context_id_,
               list.c_str());
  }
}

// Ranks that outnumber cores take turns on them: a rank whose core partners have all posted
// would, by giving up its core, only make them run and find nothing to do (osu_barrier -np 4 on
// 2 cores: 2.07-2.7 context switches a barrier instead of 2, and runs of 1.77 us among those of
// 1.37). 32 looks take at most about 0.4 us here, less than a context switch.
constexpr int kLineSpinLooks = 32;

bool Arena::own_core_posted(std::uint64_t seq) const {
  int own = core_group(rank_);
  for (int r = own; r < size_; ++r)
    if (r != rank_ && core_group(r) == own && !line_ready(r, seq)) return false;
  return true;
}

bool Arena::spin_for_line(int r, std::uint64_t seq) const {
  ++line_spins_;
  for (int look = 0; look < kLineSpinLooks; ++look) {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    asm volatile("yield");
#endif
    if (line_ready(r, seq)) return true;
  }
  return false;
}

bool Arena::all_reached(std::uint64_t value) {
  if (lower_bound_ >= value) return true;
  if (value != wait_value_) {
    wait_value_ = value;
    wait_cursor_ = 0;
  }
  for (; wait_cursor_ < size_; ++wait_cursor_) {
    if (wait_cursor_ != rank_ && !reached(wait_cursor_, value)) return false;
  }
  lower_bound_ = value;
  return true;
}

bool Arena::all_finished(std::uint64_t value) {
  if (lower_bound_ >= value || size_ == 1) return true;
  std::uint64_t low = ~std::uint64_t{0};
  for (int r = 0; r < size_; ++r)
    if (r != rank_) low = std::min(low, control(r)->step.load(std::memory_order_acquire));
  lower_bound_ = std::max(lower_bound_, low);
  return lower_bound_ >= value;
}

bool Arena::publish_count(std::uint64_t seq, std::uint64_t bytes) {
  std::uint64_t& previous = entry_seq_[seq % kCountEntries];
  if (previous != 0 && !all_finished(step_value(previous, kEndStep))) return false;
  previous = seq;
  CountEntry& e = control(rank_)->count[seq % kCountEntries];
  e.bytes.store(bytes, std::memory_order_relaxed);
  e.seq.store(seq, std::memory_order_release);
  return true;
}

bool Arena::parts_writable(int first, int count) {
  for (int p = first; p < first + count; ++p)
    if (!done(part_need_[p])) return false;
  return true;
}

void Arena::parts_written(int first, int count, std::uint64_t value, int reader) {
  for (int p = first; p < first + count; ++p) part_need_[p] = Need{value, reader};
}

void Arena::enqueue(ShmOp* op) {
  queue_.push_back(op);
  progress::add_pending(g_queued, 1);
}

std::uint64_t Arena::number(int tag) {
  std::uint64_t seq = issued_ + 1;
  if (tag >= 0) {
    auto t = static_cast<std::uint64_t>(tag);
    std::uint64_t last = last_tag_ & 0x7fffffffu;
    if (t + (std::uint64_t{1} << 30) < last) tag_epoch_ += std::uint64_t{1} << 31;  // wrapped
    std::uint64_t extended = tag_epoch_ + t;
    if (extended > last_tag_) {  // not a persistent collective's first start, with an old tag
      last_tag_ = extended;
      seq = std::max(seq, extended + 1);
    }
  }
  issued_ = seq;
  return seq;
}

void Arena::drop(ShmOp* op) {
  auto it = std::find(queue_.begin(), queue_.end(), op);
  if (it == queue_.end()) return;
  queue_.erase(it);
  progress::add_pending(g_queued, -1);
}

int Arena::advance() {
  if (state_ == State::kSettingUp) {
    if (!setup_->progress()) return 0;
    finish_setup();
  }
  if (state_ == State::kBroken) {
    std::deque<ShmOp*> diverted;
    diverted.swap(queue_);
    progress::add_pending(g_queued, -static_cast<std::ptrdiff_t>(diverted.size()));
    for (ShmOp* op : diverted) op->divert(Status(ErrorCode::kIo, "its setup failed"));
    return 0;
  }
  int completed = 0;
  while (!queue_.empty()) {
    ShmOp* op = queue_.front();
    if (!op->step()) return completed;
    queue_.pop_front();
    progress::add_pending(g_queued, -1);
    op->complete();
    ++completed;
  }
  return completed;
}

void Arena::start_setup(pml::Pml& pml, const core::Communicator& comm) {
  if (state_ != State::kNew) return;
  state_ = State::kSettingUp;
  setup_ = std::make_unique<Setup>(pml, comm, new_slot_bytes());
}

void Arena::finish_setup() {
  if (!setup_->status().ok()) {
    GPURUN_LOG(warn, coll,
               "no shared-memory collectives on communicator %u (%s); its collectives use "
               "other algorithms",
               context_id_, setup_->status().to_string().c_str());
    state_ = State::kBroken;
    setup_.reset();
    return;
  }
  segment_ = setup_->take_segment();
  map(segment_->base(), setup_->layout());
  set_core_groups(setup_->core_groups());
  set_cma_pids(setup_->cma_pids());
  setup_.reset();
  bells_.assign(size_, nullptr);
  for (int r = 0; r < size_; ++r)
    if (r != rank_) bells_[r] = doorbell_of(group_->job_rank(r));
  GPURUN_LOG(debug, coll,
             "shared collective segment of communicator %u: %d ranks, slot %zu, CMA %s",
             context_id_, size_, layout_.slot_bytes, cma() ? "between all" : "not between all");
}

}  // namespace gpurun::coll::shm

// Bcast through the root's slot in shared memory.
//
// Idea: up to 56 bytes travel in the root's flag line with the flag itself: the others see
// flag and data in one cache-line hop. Larger messages are pipelined: the root packs chunk k
// into quarter k mod 4 of its slot and posts step k + 1; every other rank copies each chunk
// out as soon as it is posted and posts the same step, which tells the root the quarter is
// free again. The root runs up to four chunks ahead; all readers copy at once.
// Single copy (the "cma" algorithm): the root publishes where its data lies (coll/shm/cma.h;
// a packed copy for a non-contiguous type) and returns once every other rank has read it
// from there by CMA and posted that it is done. With two ranks and a message of at least
// kSplitMin both cores copy: the reader publishes where its buffer lies (when contiguous) and
// reads the first half while the root writes the second into it (process_vm_writev); the
// reader reads that half too where the root could not write it.
// Where ranks take turns on cores (Arena::core_group) and the message fits in half a slot, the
// single copy is relayed: the root also puts the message in its slot, from which the readers
// on its core copy it, and of two readers that share another core the first to arrive reads
// the root's buffer and puts the message in its own slot for the other (decide_role). The root
// then waits for one reader per other core instead of all, and fewer system calls pin the
// root's pages at once (they contend for its page-table lock: with the root's partner and a
// relay reading 64K together, each read took 8.7 us, where one alone took 2.3-4).
// osu_bcast -np 4 on 2 cores, 7-9 interleaved runs, medians (us): 8K 1.39 -> 1.19, 16K 2.26
// -> 1.42, 64K 5.4 -> 3.0, 128K 12.7 -> 4.9, 256K 16.3 -> 9.3 (all but 64K against shm, which
// the table took there).
// Requirements: the members share memory (one host); host buffers; any datatype.
// Cost: n bytes, chunk c: (n / c + 1) hops + the root's copy of n + one chunk's copy-out
// (the copies overlap); memory traffic n in, n out per rank, all within the cache. Single
// copy: 2 hops at the root, 1 elsewhere, and one read of n by CMA per other rank; relayed, one
// read by CMA per other core and two copies of n per other reader.
#include <algorithm>
#include <atomic>
#include <string>
#include <vector>

#include "coll/shm/algorithms.h"
#include "coll/shm/buffer.h"
#include "coll/shm/cma.h"
#include "coll/shm/params.h"
#include "runtime/transport/shm/cma.h"

namespace gpurun::coll::shm {
namespace {

// Two ranks split a message from this size on: a second copier pays for its system call and
// the flag it posts (osu_bcast -np 2, medians of 7 interleaved runs: 32K 1.56 us split vs
// binomial 1.73, 64K 2.21 vs 3.00; the reader alone took 1.84 and 3.00).
constexpr std::uint64_t kSplitMin = 32 << 10;
// The root's step once it has written the reader's second half, or found it could not.
constexpr std::uint64_t kWroteStep = kReadStep + 1;
constexpr std::uint64_t kUnwrittenStep = kReadStep + 2;

// The steps of a relayed bcast (Bcast::relayed_), where the root waits for kRootReadStep.
constexpr std::uint64_t kArrivedStep = 1;   // a reader with a partner: here, undecided
constexpr std::uint64_t kRelayStep = 2;     // ... it reads the root's buffer for both
constexpr std::uint64_t kRootReadStep = 3;  // done with the root's buffer
constexpr std::uint64_t kPassedStep = 4;    // the message is in this rank's slot
constexpr std::uint64_t kTakesStep = 5;     // ... it takes the message from its partner's slot
constexpr std::uint64_t kTakenStep = 6;     // taken from a slot
// Bcast::mates_ of a reader on the root's core: it takes the message from the root's slot.
constexpr int kFromRoot = -2;

// The largest chunk the pipeline picks by itself where every rank has a core: beyond, the
// readers wait longer for the first chunk than the overlap gains (osu_bcast -np 2 on a 2-core
// AMD EPYC, 9 interleaved runs of the library with 256K and with 128K chunks, medians, us:
// 512K 14.2 -> 11.9, 1M 32.5 -> 28.2, 2M 56.8 -> 54.4, 4M 105 -> 101). Where ranks take turns on
// cores, fewer chunks mean fewer turns, and a quarter slot stays the limit (-np 4 on 2 cores, 128K
// chunks against 256K, 5 runs: 1M 44.9 against 32.2 us, 4M 264 against 192).
constexpr std::uint64_t kAutoChunkMax = 128 << 10;

// The pipeline chunk for a message of `bytes`: the knob, or a quarter of the message (enough
// chunks to overlap the root's copy-in with the copies out) of at least 8K and, unless ranks
// share cores (`shared_cores`), at most kAutoChunkMax; never more than a quarter slot.
std::uint64_t chunk_for(std::uint64_t bytes, std::size_t quarter, bool shared_cores) {
  std::uint64_t chunk;
  if (auto knob = params::chunk_size().get()) {
    chunk = knob->bytes;
  } else {
    chunk = std::max<std::uint64_t>(bytes / 4, 8192);
    if (!shared_cores) chunk = std::min(chunk, kAutoChunkMax);
  }
  chunk = std::clamp<std::uint64_t>(chunk, kLineBytes, quarter);
  return chunk / kLineBytes * kLineBytes;
}

class Bcast final : public ShmOp {
 public:
  Bcast(Arena& arena, const Args& args, bool cma)
      : ShmOp(arena, args),
        cma_(cma),
        data_(args.recvbuf != nullptr ? args.recvbuf : args.sendbuf, args.count, args.type),
        hold_(args.type),
        root_(args.root) {}

 private:
  void plan() override {
    chunk_ = chunk_for(data_.bytes(), arena_.part_bytes(), arena_.grouped());
    chunks_ = (data_.bytes() + chunk_ - 1) / chunk_;
    direct_ = cma_ && arena_.cma() && arena_.size() > 1;
    split_ = direct_ && arena_.size() == 2 && data_.bytes() >= kSplitMin;
    half_ = transport::shm::cma_half(data_.bytes());
    relayed_ = direct_ && !split_ && arena_.grouped() &&
               data_.bytes() + kLineBytes <= arena_.slot_bytes() / 2;
    relay_mate_ = -1;
    root_passes_ = false;
    if (!relayed_) return;
    mates_.resize(static_cast<std::size_t>(arena_.size()));
    for (int r = 0; r < arena_.size(); ++r) mates_[static_cast<std::size_t>(r)] = relay_mate(r);
    relay_mate_ = mates_[static_cast<std::size_t>(arena_.rank())];
    root_passes_ = std::find(mates_.begin(), mates_.end(), kFromRoot) != mates_.end();
  }
  // Reader `rank`'s partner in a relayed bcast: kFromRoot on the root's core; the other member
  // of its core group when the group has two; else -1 (it reads the root's buffer itself).
  int relay_mate(int rank) const {
    if (rank == root_) return -1;
    int mate = -1, members = 0;
    for (int r = 0; r < arena_.size(); ++r)
      if (arena_.core_group(r) == arena_.core_group(rank)) {
        ++members;
        if (r != rank) mate = r;
      }
    if (arena_.core_group(root_) == arena_.core_group(rank)) return kFromRoot;
    return members == 2 ? mate : -1;
  }
  // At the root: whether reader r is done with the root's buffer, or will never read it: it
  // has not arrived while its partner relays (r will see that and take from the partner; the
  // partner's step is read first, and r looks at it only after posting its arrival).
  bool done_with_buffer(int r) const {
    auto at = [&](std::uint64_t step) { return step_value(seq_, step); };
    int mate = mates_[static_cast<std::size_t>(r)];
    if (mate == kFromRoot) return true;
    if (mate < 0) return arena_.reached(r, at(kRootReadStep));
    std::uint64_t mates = arena_.control(mate)->step.load(std::memory_order_seq_cst);
    std::uint64_t theirs = arena_.control(r)->step.load(std::memory_order_seq_cst);
    if (theirs >= at(kRootReadStep)) return true;
    return theirs < at(kArrivedStep) && mates >= at(kRelayStep) && mates != at(kTakesStep);
  }
  void reset() override {
    next_ = 0;
    posted_ = false;
    wrote_ = false;
    read_ = false;
    role_ = Role::kNone;
    waited_ = 0;
    passed_ = false;
  }
  bool run() override {
    if (data_.bytes() == 0) return true;
    if (data_.bytes() <= kInlineBytes) return arena_.rank() == root_ ? put_line() : get_line();
    if (direct_) return arena_.rank() == root_ ? offer() : take();
    return arena_.rank() == root_ ? put_chunks() : get_chunks();
  }
  bool put_line() {
    if (!arena_.line_writable(seq_)) return false;
    data_.pack(0, arena_.line(root_, seq_).data, data_.bytes());
    post_line();
    arena_.line_written(seq_, Arena::kAllReaders);
    return true;
  }
  bool get_line() {
    if (!arena_.line_ready(root_, seq_)) return false;
    data_.unpack(0, arena_.line(root_, seq_).data, data_.bytes());
    return true;
  }
  bool offer() {
    if (!posted_) {
      if (!arena_.line_writable(seq_)) return false;
      source_ = source_of({data_}, false, copy_);
      put_source(arena_.line(root_, seq_), seq_, source_);
      post_line();
      arena_.line_written(seq_, Arena::kAllReaders);
      posted_ = true;
    }
    if (root_passes_ && !passed_) {
      if (!pass_on()) return false;
      passed_ = true;
    }
    if (split_ && !wrote_) {
      // A reader whose count chose no split (an erroneous call) passes without a line.
      int reader = 1 - root_;
      Source to;
      if (arena_.line_ready(reader, seq_)) {
        if (!get_source(arena_.line(reader, seq_), seq_, to)) to = Source{};
      } else if (!arena_.reached(reader, step_value(seq_, kEndStep))) {
        return false;
      }
      write_half(to);
      wrote_ = true;
    }
    if (!relayed_) return arena_.all_reached(step_value(seq_, kReadStep));
    for (; waited_ < arena_.size(); ++waited_)
      if (waited_ != root_ && !done_with_buffer(waited_)) return false;
    return true;
  }
  // The second half into the reader's buffer, where it published one of this message's size
  // (its count is not checked here: a reader whose count differs reads nothing and fails).
  void write_half(const Source& to) {
    bool wrote = false;
    if (to.base != 0 && to.stride == data_.bytes()) {
      const auto* from = reinterpret_cast<const std::byte*>(source_.base);
      wrote = transport::shm::cma_write(arena_.cma_pid(1 - root_), from + half_, to.base + half_,
                                        data_.bytes() - half_)
                  .ok();  // else the reader reads it itself
    }
    arena_.post(step_value(seq_, wrote ? kWroteStep : kUnwrittenStep));
  }
  // A reader of a split message publishes where its buffer lies, and its byte count.
  bool take() {
    bool writable = split_ && data_.contiguous();
    if (split_ && !posted_) {
      if (!arena_.line_writable(seq_)) return false;
      Source mine{writable ? reinterpret_cast<std::uint64_t>(data_.packed(0)) : 0, data_.bytes()};
      put_source(arena_.line(arena_.rank(), seq_), seq_, mine);
      post_line();
      arena_.line_written(seq_, root_);
      posted_ = true;
    }
    if (relay_mate_ >= 0 && role_ == Role::kNone) {
      arena_.post(step_value(seq_, kArrivedStep));
      std::atomic_thread_fence(std::memory_order_seq_cst);  // before the look at the partner
      role_ = Role::kArrived;
    }
    if (!check_counts()) return false;
    if (mismatched()) return true;
    if (role_ == Role::kArrived) decide_role();
    if (role_ == Role::kTakes) return take_from(relay_mate_);
    if (relay_mate_ == kFromRoot) return take_from(root_);
    if (role_ == Role::kPassing) return pass_on();
    if (!arena_.line_ready(root_, seq_)) return false;
    Source root;
    if (!get_source(arena_.line(root_, seq_), seq_, root)) {
      fail(no_source("bcast", root_));
      return true;
    }
    std::uint64_t from = root.base;
    if (!read_) {
      read(from, 0, writable ? half_ : data_.bytes());
      read_ = true;
    }
    if (writable) {
      if (!arena_.reached(root_, step_value(seq_, kWroteStep))) return false;
      if (arena_.reached(root_, step_value(seq_, kUnwrittenStep)))
        read(from, half_, data_.bytes() - half_);
    }
    // The root's buffer is the caller's again.
    arena_.post(step_value(seq_, relayed_ ? kRootReadStep : kReadStep));
    if (role_ != Role::kRelay) return true;
    role_ = Role::kPassing;
    return pass_on();
  }
  // Relay or not, from the partner's step: a partner not yet here leaves the relay to this
  // rank, and so does one that takes from this rank; of two here undecided the lower rank
  // relays; a partner that relays, or has finished (it could only have relayed), is taken
  // from. Each looks only after posting its arrival, so two that look at once both see the
  // other here, undecided or decided, and agree. (A partner that arrives between this rank's
  // look and its decision may relay too: both then read the root's buffer, which costs only a
  // system call.)
  void decide_role() {
    auto at = [&](std::uint64_t step) { return step_value(seq_, step); };
    std::uint64_t theirs = arena_.control(relay_mate_)->step.load(std::memory_order_seq_cst);
    bool relay;
    if (theirs < at(kArrivedStep)) {
      relay = true;
    } else if (theirs == at(kArrivedStep)) {
      relay = arena_.rank() < relay_mate_;
    } else if (theirs < at(kTakesStep)) {
      relay = false;  // it relays
    } else {
      relay = theirs == at(kTakesStep);  // else it relayed and has finished
    }
    role_ = relay ? Role::kRelay : Role::kTakes;
    arena_.post(at(relay ? kRelayStep : kTakesStep));
    std::atomic_thread_fence(std::memory_order_seq_cst);
  }
  // The message into this rank's slot (the root's or a relay's), behind a head line.
  bool pass_on() {
    if (!arena_.parts_writable(slot_half_parts(), 2)) return false;
    std::byte* half = slot_half(arena_.rank());
    data_.pack(0, half + kLineBytes, data_.bytes());
    HeadedChunks::post_head(half, seq_, data_.bytes());
    arena_.parts_written(slot_half_parts(), 2, step_value(seq_, kTakenStep), Arena::kAllReaders);
    arena_.post(step_value(seq_, kPassedStep));
    return true;
  }
  // The message from `source`'s slot: its core partner's (relayed) or the root's.
  bool take_from(int source) {
    std::uint64_t theirs = 0;
    const std::byte* half = slot_half(source);
    if (!source_head(half, source, theirs)) return false;
    if (theirs == data_.bytes()) {
      data_.unpack(0, half + kLineBytes, data_.bytes());
    } else {
      fail_source(source, "rank " + std::to_string(source), theirs, data_.bytes());
    }
    arena_.post(step_value(seq_, kTakenStep));
    return true;
  }
  // Bytes [offset, offset + length) of the root's data at `from` into this rank's buffer.
  void read(std::uint64_t from, std::uint64_t offset, std::uint64_t length) {
    Status st = offset == 0 && length == data_.bytes()
                    ? read_block(arena_.cma_pid(root_), from, data_, length, copy_)
                    : transport::shm::cma_read(arena_.cma_pid(root_), data_.packed(offset),
                                               from + offset, length);
    if (!st.ok()) fail(std::move(st.prepend("bcast: reading the root's data")));
  }
  std::byte* chunk_buffer(std::uint64_t k) const { return arena_.part(root_, k); }
  std::size_t chunk_length(std::uint64_t k) const {
    return static_cast<std::size_t>(std::min(chunk_, data_.bytes() - k * chunk_));
  }
  bool put_chunks() {
    for (; next_ < chunks_; ++next_) {
      int part = static_cast<int>(next_ % Arena::kParts);
      if (!arena_.parts_writable(part, 1)) return false;
      data_.pack(next_ * chunk_, chunk_buffer(next_), chunk_length(next_));
      std::uint64_t step = step_value(seq_, next_ + 1);
      arena_.post(step);
      arena_.parts_written(part, 1, step, Arena::kAllReaders);
    }
    return true;
  }
  bool get_chunks() {
    for (; next_ < chunks_; ++next_) {
      std::uint64_t step = step_value(seq_, next_ + 1);
      if (!arena_.reached(root_, step)) return false;
      data_.unpack(next_ * chunk_, chunk_buffer(next_), chunk_length(next_));
      arena_.post(step);
    }
    return true;
  }

  bool cma_;             // single copy by CMA asked for (the "cma" algorithm)
  bool direct_ = false;  // ... and possible: every member reaches every other
  Buffer data_;
  TypeHold hold_;
  int root_;
  std::uint64_t chunk_ = 0;
  std::uint64_t chunks_ = 0;
  std::uint64_t next_ = 0;
  bool posted_ = false;          // CMA: this rank has published its line
  std::vector<std::byte> copy_;  // CMA: the root's data packed, or a non-root's on its way
  Source source_;                // CMA, at the root: what it published
  bool split_ = false;           // CMA: two ranks copy a half each
  std::uint64_t half_ = 0;       // ... the first half's length
  bool wrote_ = false;           // ... the root has written (or given up on) the second
  bool read_ = false;            // ... the reader has read the first
  bool relayed_ = false;         // CMA: readers that share a core pass the message on
  std::vector<int> mates_;       // ... every member's partner (relay_mate())
  int relay_mate_ = -1;          // ... this rank's
  enum class Role : std::uint8_t { kNone, kArrived, kRelay, kPassing, kTakes };
  Role role_ = Role::kNone;   // ... where this rank is, when it has a partner on its core
  int waited_ = 0;            // ... the root has seen the readers before this done
  bool root_passes_ = false;  // ... the root has core partners, who copy from its slot
  bool passed_ = false;       // ... it has put the message there
};

}  // namespace

std::unique_ptr<ShmOp> make_bcast(Arena& arena, const Args& args) {
  return std::make_unique<Bcast>(arena, args, false);
}

std::unique_ptr<ShmOp> make_bcast_cma(Arena& arena, const Args& args) {
  return std::make_unique<Bcast>(arena, args, true);
}

}  // namespace gpurun::coll::shm

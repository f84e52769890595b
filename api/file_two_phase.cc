// Two-phase collective access over a file's communicator (api/file_two_phase.h).
//
// A round: every member cuts its runs at the round's windows (one per aggregator), tells each
// aggregator how many pieces and bytes it has for it (an alltoall), sends the pieces (file
// offset and length) and, for a write, their data (alltoallv, straight from the member's
// packed stream: a window's pieces are one slice of it). An aggregator merges what its window
// received into the runs they cover and writes each with one system call from a window
// buffer; for a read it reads what the pieces cover (at once when they cover at least half of
// their span), and sends every member its pieces back into the slice of its stream they belong
// to. Rounds go on from the first byte not yet moved (an allreduce), so stretches of the file
// that no member accesses cost nothing.
#include "api/file_two_phase.h"

#include <climits>
#include <cstring>
#include <numeric>
#include <vector>

#include "runtime/io/two_phase.h"

namespace gpurun::api {
namespace {

struct Counts {
  long long pieces = 0;
  long long bytes = 0;
};

constexpr auto kPieceBytes = static_cast<MPI_Count>(sizeof(io::Extent));

// Displacements of consecutive blocks of `counts`.
std::vector<MPI_Aint> packed_displs(const std::vector<MPI_Count>& counts) {
  std::vector<MPI_Aint> displs(counts.size(), 0);
  for (std::size_t i = 1; i < counts.size(); ++i) displs[i] = displs[i - 1] + counts[i - 1];
  return displs;
}

class Rounds {
 public:
  Rounds(const File& f, bool write, std::span<const io::Extent> runs, std::byte* data,
         const TwoPhasePlan& plan)
      : f_(f), write_(write), cursor_(runs), data_(data), plan_(plan) {
    PMPI_Comm_size(f.comm, &members_);
    int me = 0;
    PMPI_Comm_rank(f.comm, &me);
    for (int w = 0; w < plan.aggregators; ++w) {
      if (io::aggregator_member(w, plan.aggregators, members_) == me) aggregator_ = true;
    }
    auto n = static_cast<std::size_t>(members_);
    out_.resize(n);
    in_.resize(n);
    piece_displs_.resize(n);
    data_displs_.resize(n);
  }

  // Runs every round. Returns the first error of this member (its aggregator's file access).
  Status run() {
    for (std::int64_t base = plan_.begin; base != INT64_MAX; base = next_base()) {
      cut(base, io::window_length(base, plan_.end, plan_.aggregators, plan_.buffer));
      PMPI_Alltoall(out_.data(), 2, MPI_LONG_LONG, in_.data(), 2, MPI_LONG_LONG, f_.comm);
      send_pieces();
      if (write_) {
        move_data(data_, data_displs_, out_, in_data_, in_, true);
        if (aggregator_) write_window();
      } else {
        if (aggregator_) read_window();
        move_data(data_, data_displs_, out_, in_data_, in_, false);
      }
    }
    return error_;
  }

 private:
  // The first file byte no member has moved yet, or INT64_MAX when all are.
  std::int64_t next_base() {
    long long mine = cursor_.next(), all = 0;
    PMPI_Allreduce(&mine, &all, 1, MPI_LONG_LONG, MPI_MIN, f_.comm);
    return all;
  }

  // This member's pieces for each aggregator's window of the round at `base`.
  void cut(std::int64_t base, std::int64_t length) {
    pieces_.clear();
    std::fill(out_.begin(), out_.end(), Counts{});
    for (int w = 0; w < plan_.aggregators; ++w) {
      auto to = static_cast<std::size_t>(io::aggregator_member(w, plan_.aggregators, members_));
      std::size_t before = pieces_.size();
      std::int64_t bytes = cursor_.take(base + (w + 1) * length, pieces_);
      out_[to] = Counts{static_cast<long long>(pieces_.size() - before), bytes};
      piece_displs_[to] = static_cast<MPI_Aint>(before) * kPieceBytes;
      data_displs_[to] = sent_;
      sent_ += bytes;
    }
  }

  void send_pieces() {
    std::vector<MPI_Count> counts(out_.size()), in_counts(in_.size());
    long long total = 0;
    for (std::size_t m = 0; m < out_.size(); ++m) {
      counts[m] = out_[m].pieces * kPieceBytes;
      in_counts[m] = in_[m].pieces * kPieceBytes;
      total += in_[m].pieces;
    }
    in_pieces_.resize(static_cast<std::size_t>(total));
    PMPI_Alltoallv_c(pieces_.data(), counts.data(), piece_displs_.data(), MPI_BYTE,
                     in_pieces_.data(), in_counts.data(), packed_displs(in_counts).data(),
                     MPI_BYTE, f_.comm);
  }

  // The data of the round: a write sends the stream's slices to the aggregators' `gathered`,
  // a read sends `gathered` back into the stream's slices.
  void move_data(std::byte* stream, const std::vector<MPI_Aint>& stream_displs,
                 const std::vector<Counts>& mine, std::vector<std::byte>& gathered,
                 const std::vector<Counts>& theirs, bool to_aggregators) {
    std::vector<MPI_Count> stream_counts(mine.size()), gathered_counts(theirs.size());
    for (std::size_t m = 0; m < mine.size(); ++m) {
      stream_counts[m] = mine[m].bytes;
      gathered_counts[m] = theirs[m].bytes;
    }
    std::vector<MPI_Aint> gathered_displs = packed_displs(gathered_counts);
    if (to_aggregators) {
      gathered.resize(static_cast<std::size_t>(gathered_displs.back() + gathered_counts.back()));
      PMPI_Alltoallv_c(stream, stream_counts.data(), stream_displs.data(), MPI_BYTE,
                       gathered.data(), gathered_counts.data(), gathered_displs.data(), MPI_BYTE,
                       f_.comm);
    } else {
      PMPI_Alltoallv_c(gathered.data(), gathered_counts.data(), gathered_displs.data(), MPI_BYTE,
                       stream, stream_counts.data(), stream_displs.data(), MPI_BYTE, f_.comm);
    }
  }

  std::vector<io::Extent> covered() const {
    std::vector<std::int64_t> counts(in_.size());
    for (std::size_t m = 0; m < in_.size(); ++m) counts[m] = in_[m].pieces;
    return io::coverage(in_pieces_, counts);
  }

  void keep(Status st) {
    if (!st.ok() && error_.ok()) error_ = std::move(st);
  }

  void write_window() {
    std::vector<io::Extent> runs = covered();
    if (runs.empty()) return;
    std::int64_t lo = runs.front().offset, hi = runs.back().offset + runs.back().bytes;
    window_.resize(static_cast<std::size_t>(hi - lo));
    // Shared, as every write that does not sieve (runtime/io/file_view.h); refused locks
    // (a file system without them) do not stop the write.
    io::RangeLock lock(&f_.file, lo, hi - lo, !f_.file.readable());
    std::size_t at = 0;
    for (const io::Extent& p : in_pieces_) {
      std::memcpy(window_.data() + (p.offset - lo), in_data_.data() + at,
                  static_cast<std::size_t>(p.bytes));
      at += static_cast<std::size_t>(p.bytes);
    }
    for (const io::Extent& r : runs)
      keep(f_.file.write_at(r.offset, window_.data() + (r.offset - lo), r.bytes));
  }

  // Reads [offset, offset + bytes) into the window (which starts at `lo`); what lies beyond the
  // end of the file reads as zeros.
  void read_into(std::int64_t lo, std::int64_t offset, std::int64_t bytes) {
    std::byte* to = window_.data() + (offset - lo);
    Result<std::int64_t> got = f_.file.read_at(offset, to, bytes);
    std::int64_t have = got.ok() ? got.value() : 0;
    keep(got.status());
    std::memset(to + have, 0, static_cast<std::size_t>(bytes - have));
  }

  void read_window() {
    std::vector<io::Extent> runs = covered();
    long long total = 0;
    for (const Counts& c : in_) total += c.bytes;
    in_data_.resize(static_cast<std::size_t>(total));
    if (runs.empty()) return;
    std::int64_t lo = runs.front().offset, hi = runs.back().offset + runs.back().bytes;
    std::int64_t bytes = 0;
    for (const io::Extent& r : runs) bytes += r.bytes;
    window_.resize(static_cast<std::size_t>(hi - lo));
    if (2 * bytes >= hi - lo) {
      read_into(lo, lo, hi - lo);
    } else {
      for (const io::Extent& r : runs) read_into(lo, r.offset, r.bytes);
    }
    std::size_t at = 0;
    for (const io::Extent& p : in_pieces_) {
      std::memcpy(in_data_.data() + at, window_.data() + (p.offset - lo),
                  static_cast<std::size_t>(p.bytes));
      at += static_cast<std::size_t>(p.bytes);
    }
  }

  const File& f_;
  bool write_;
  io::RunCursor cursor_;
  std::byte* data_;
  TwoPhasePlan plan_;
  int members_ = 1;
  bool aggregator_ = false;
  std::int64_t sent_ = 0;  // stream bytes handed out in earlier windows
  // This member's pieces of a round, and per member what goes to it.
  std::vector<io::Extent> pieces_;
  std::vector<Counts> out_, in_;
  std::vector<MPI_Aint> piece_displs_, data_displs_;
  // An aggregator's: what each member sent it (pieces and data, in member order).
  std::vector<io::Extent> in_pieces_;
  std::vector<std::byte> in_data_;
  std::vector<std::byte> window_;
  Status error_;
};

}  // namespace

Result<std::int64_t> two_phase(const File& f, bool write, std::span<const io::Extent> runs,
                               std::byte* data, const TwoPhasePlan& plan) {
  Status error;
  std::int64_t size = INT64_MAX;
  if (!write) {
    Result<std::int64_t> got = f.file.size();
    if (got.ok()) size = got.value();
    error = got.status();
  }
  Status moved = Rounds(f, write, runs, data, plan).run();
  if (error.ok()) error = std::move(moved);
  int mine[2] = {error.ok() ? 0 : 1, error.sys_errno()}, all[2] = {0, 0};
  PMPI_Allreduce(mine, all, 2, MPI_INT, MPI_MAX, f.comm);
  if (!error.ok()) return error;
  if (all[0] != 0) {
    return Status(ErrorCode::kIo,
                  "the file access of another member (an aggregator of this collective call) "
                  "failed",
                  all[1]);
  }
  return io::bytes_before_end(runs, size);
}

}  // namespace gpurun::api

// MPI-IO's collective reads and writes at explicit offsets and through the individual file
// pointer (the *_all calls, their split and nonblocking forms). The members first agree: on
// their arguments (one bad one and the call does nothing anywhere), and on how the data moves.
// When their file runs interleave and are short (or the hints say so), by two-phase access
// (api/file_two_phase.h); otherwise each member moves its own runs, as an independent call
// does. The choice follows io_write_all at 4 ranks (bench/io): two-phase access is 13x faster
// with runs of 8 bytes, 3x with 1 KiB, even with 16 KiB, slower beyond.
#include <climits>
#include <cstdlib>
#include <string>
#include <vector>

#include "api/file_access.h"
#include "api/file_two_phase.h"
#include "runtime/base/log.h"
#include "runtime/base/param.h"
#include "runtime/io/two_phase.h"

namespace gpurun::api {

enum class TwoPhaseMode : std::uint8_t { kAutomatic, kEnable, kDisable };

std::span<const std::pair<std::string_view, TwoPhaseMode>> param_enum_names(TwoPhaseMode) {
  static constexpr std::pair<std::string_view, TwoPhaseMode> kNames[] = {
      {"automatic", TwoPhaseMode::kAutomatic},
      {"enable", TwoPhaseMode::kEnable},
      {"disable", TwoPhaseMode::kDisable}};
  return kNames;
}

namespace {

param::Param<TwoPhaseMode> g_mode(
    "GPURUN_IO_TWO_PHASE", TwoPhaseMode::kAutomatic,
    "How collective MPI-IO reads and writes move the data: \"automatic\" by two-phase access "
    "(the members send their pieces to aggregators, which read and write the file in large "
    "runs) when the members' file runs interleave, \"enable\" always, \"disable\" never (each "
    "member reads and writes its own runs). The hints romio_cb_read and romio_cb_write choose "
    "per file.");
param::Param<param::Size> g_run(
    "GPURUN_IO_TWO_PHASE_RUN", param::Size{16 << 10},
    "In automatic mode, two-phase access is chosen when the members' file runs interleave and "
    "are this long or shorter on average (longer runs move as fast by each member's own system "
    "calls).");
param::Param<param::Size> g_buffer(
    "GPURUN_IO_TWO_PHASE_BUFFER", param::Size{16 << 20},
    "The most bytes of the file that one aggregator of two-phase access reads or writes in one "
    "round, at least 512 (the hint cb_buffer_size sets it per file).");
param::Param<int> g_aggregators(
    "GPURUN_IO_TWO_PHASE_AGGREGATORS", 0,
    "How many members of a file's group read and write the file in two-phase access, spread "
    "over the group; 0: every member (the hint cb_nodes sets it per file).");

// The smallest window of two-phase access: smaller ones (a buffer of 0 or 1 byte) would take a
// round of four collectives per byte.
constexpr long long kLeastBuffer = 512;

// How a member would move the data, from the file's hints, else the knobs.
struct Settings {
  long long mode;
  long long buffer;
  long long aggregators;
};

long long positive_hint(const core::Info& info, const char* key, long long fallback) {
  const std::string* text = info.get(key);
  if (text == nullptr) return fallback;
  char* end = nullptr;
  long long value = std::strtoll(text->c_str(), &end, 10);
  return end != text->c_str() && *end == '\0' && value > 0 ? value : fallback;
}

Settings settings_of(const File& f, bool write) {
  TwoPhaseMode mode = g_mode.get();
  if (const std::string* hint = f.info->get(write ? "romio_cb_write" : "romio_cb_read")) {
    for (const auto& [name, value] : param_enum_names(TwoPhaseMode{}))
      if (*hint == name) mode = value;
  }
  return Settings{static_cast<long long>(mode),
                  positive_hint(*f.info, "cb_buffer_size",
                                static_cast<long long>(g_buffer.get().bytes)),
                  positive_hint(*f.info, "cb_nodes", g_aggregators.get())};
}

// The aggregators that setting `setting` gives a group of `members` (0: every member).
int aggregators_of(long long setting, long long members) {
  return static_cast<int>(setting <= 0 ? members : std::min(setting, members));
}

// What each member tells the others before anything moves.
struct Summary {
  long long ok;         // its arguments were good and its data is ready
  long long first;      // its first file byte
  long long bytes;      // from there to one past its last
  long long ascending;  // its runs go forward in the file
  long long runs;       // how many
  long long data;       // their bytes
  Settings settings;
};

Summary summary_of(bool ok, const std::vector<io::Extent>& runs, const Settings& settings) {
  Summary s{ok ? 1 : 0, 0, 0, io::ascending(runs) ? 1 : 0, 0, 0, settings};
  s.runs = static_cast<long long>(runs.size());
  for (const io::Extent& r : runs) s.data += r.bytes;
  if (!runs.empty()) {
    s.first = runs.front().offset;
    s.bytes = runs.back().offset + runs.back().bytes - s.first;
  }
  return s;
}

// Whether the data moves by two-phase access, with its plan; member 0's settings rule.
bool two_phase_plan(const File& f, const std::vector<Summary>& all, TwoPhasePlan& plan) {
  std::vector<io::Extent> spans;
  bool ascending = true;
  long long runs = 0, data = 0;
  plan.begin = INT64_MAX;
  plan.end = 0;
  for (const Summary& s : all) {
    spans.push_back({s.first, s.bytes});
    ascending = ascending && s.ascending != 0;
    runs += s.runs;
    data += s.data;
    if (s.bytes > 0) plan.begin = std::min<std::int64_t>(plan.begin, s.first);
    plan.end = std::max<std::int64_t>(plan.end, s.first + s.bytes);
  }
  const Settings& rule = all.front().settings;
  auto members = static_cast<long long>(all.size());
  plan.aggregators = aggregators_of(rule.aggregators, members);
  plan.buffer = std::max<long long>(rule.buffer, kLeastBuffer);
  if (f.atomic || !ascending) return false;
  auto mode = static_cast<TwoPhaseMode>(rule.mode);
  if (mode == TwoPhaseMode::kDisable) return false;
  if (mode == TwoPhaseMode::kEnable) return true;
  auto short_runs = static_cast<long long>(g_run.get().bytes) * runs >= data;
  return short_runs && io::interleaved(spans);
}

}  // namespace

void add_hints_in_effect(const File& f, core::Info& info) {
  int members = 1;
  PMPI_Comm_size(f.comm, &members);
  for (bool write : {false, true}) {
    Settings s = settings_of(f, write);
    auto mode = static_cast<TwoPhaseMode>(s.mode);
    for (const auto& [name, value] : param_enum_names(TwoPhaseMode{})) {
      const char* key = write ? "romio_cb_write" : "romio_cb_read";
      if (value == mode && info.get(key) == nullptr) info.set(key, name);
    }
    if (info.get("cb_buffer_size") == nullptr)
      info.set("cb_buffer_size", std::to_string(std::max<long long>(s.buffer, kLeastBuffer)));
    if (info.get("cb_nodes") == nullptr)
      info.set("cb_nodes", std::to_string(aggregators_of(s.aggregators, members)));
  }
}

int collective_access(const Call& call, MPI_File fh, File& f, const Access& a, MPI_Offset offset,
                      const void* buf, MPI_Count count, MPI_Datatype datatype,
                      const core::Datatype* type, MPI_Status* status, int rc) {
  PackedStream stream;
  Status ready;
  std::vector<io::Extent> runs;
  std::int64_t unit = f.view.etype->size(), start = 0, bytes = 0;
  if (rc == MPI_SUCCESS) {
    start = a.position == Position::kAt ? offset : f.pointer;
    bytes = count * type->size();
    ready = stream.pack(buf, count, *type, a.write, conversion_of(f, datatype));
    if (ready.ok()) runs = io::view_extents(f.view, start * unit, bytes);
  }
  int members = 1;
  PMPI_Comm_size(f.comm, &members);
  std::vector<Summary> all(static_cast<std::size_t>(members));
  Summary mine = summary_of(rc == MPI_SUCCESS && ready.ok(), runs, settings_of(f, a.write));
  constexpr int kLongs = sizeof(Summary) / sizeof(long long);
  PMPI_Allgather(&mine, kLongs, MPI_LONG_LONG, all.data(), kLongs, MPI_LONG_LONG, f.comm);
  if (rc != MPI_SUCCESS) return rc;
  if (!ready.ok()) return raise_file_status(call, fh, ready);
  for (const Summary& s : all)
    if (s.ok == 0) return refused_by_another(call, fh);
  TwoPhasePlan plan;
  Result<std::int64_t> done = std::int64_t{0};
  if (two_phase_plan(f, all, plan)) {
    GPURUN_LOG(debug, io,
               "%s: two-phase access, aggregators %d, windows of at most %lld bytes, file "
               "bytes [%lld, %lld)",
               call.name, plan.aggregators, static_cast<long long>(plan.buffer),
               static_cast<long long>(plan.begin), static_cast<long long>(plan.end));
    done = two_phase(f, a.write, runs, stream.data(), plan);
  } else {
    done = move_own(f, a.write, runs, stream.data());
  }
  if (done.ok() && !a.write) {
    Status back = stream.unpack(const_cast<void*>(buf), count, *type, done.value());
    if (!back.ok()) done = std::move(back);
  }
  if (!done.ok()) return raise_file_status(call, fh, done.status());
  if (a.position == Position::kIndividual) f.pointer = start + done.value() / unit;
  set_access_status(status, done.value());
  return MPI_SUCCESS;
}

}  // namespace gpurun::api

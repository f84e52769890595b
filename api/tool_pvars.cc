// MPI_T performance variables and their sessions: the counts of the point-to-point layer
// (pml/counters.h), every one an MPI_UNSIGNED_LONG_LONG bound to no object, in category "pml".
//   pml_posted_receives           level: receives posted and waiting for their message now
//                                 (the library's own among them)
//   pml_unexpected_messages       level: messages that arrived before their receive, held now
//   pml_unexpected_messages_peak  high-water mark of the one above since MPI_Init
//   pml_eager_sends               counter: messages sent in one packet
//   pml_rendezvous_sends          counter: messages sent by rendezvous
//   pml_bytes_sent                counter: the bytes of both
// The levels and the mark are continuous and read-only (they read as the layer has them now; a
// start or stop of one is MPI_T_ERR_PVAR_NO_STARTSTOP, a write or reset MPI_T_ERR_PVAR_NO_WRITE).
// A counter's handle starts stopped at 0 and counts what happens while it runs; a write sets
// it, a reset sets it to 0, and a read-and-reset is atomic. Messages that the shared-memory
// collectives move without point-to-point are not among them.
#include <memory>
#include <mutex>
#include <set>
#include <vector>

#include "api/tools.h"
#include "pml/counters.h"

// A handle: the variable it reads and, for a counter, what it has counted.
struct MPIR_T_pvar_handle_s {
  int index;
  bool running = false;
  std::uint64_t base = 0;     // the count when it last started (or was reset or written)
  std::uint64_t counted = 0;  // what it counted before that
};

// A session owns its handles.
struct MPIR_T_pvar_session_s {
  std::vector<std::unique_ptr<MPIR_T_pvar_handle_s>> handles;
};

namespace gpurun::api {
namespace {

struct Pvar {
  const char* name;
  const char* desc;
  int var_class;
  std::atomic<std::uint64_t> pml::Counters::*count;
  bool continuous() const { return var_class != MPI_T_PVAR_CLASS_COUNTER; }
};

const Pvar kPvars[] = {
    {"pml_posted_receives",
     "Receives posted and waiting for their message (the library's own among them).",
     MPI_T_PVAR_CLASS_LEVEL, &pml::Counters::posted},
    {"pml_unexpected_messages",
     "Messages that arrived before a receive matched them, held until one does.",
     MPI_T_PVAR_CLASS_LEVEL, &pml::Counters::unexpected},
    {"pml_unexpected_messages_peak",
     "The most messages held at once, waiting for their receive, since MPI_Init.",
     MPI_T_PVAR_CLASS_HIGHWATERMARK, &pml::Counters::unexpected_peak},
    {"pml_eager_sends", "Point-to-point messages sent in one packet (eager protocol).",
     MPI_T_PVAR_CLASS_COUNTER, &pml::Counters::eager_sends},
    {"pml_rendezvous_sends",
     "Point-to-point messages offered to their receiver by rendezvous (larger than the eager "
     "limit).",
     MPI_T_PVAR_CLASS_COUNTER, &pml::Counters::rendezvous_sends},
    {"pml_bytes_sent", "Bytes of the point-to-point messages sent, eager and rendezvous.",
     MPI_T_PVAR_CLASS_COUNTER, &pml::Counters::bytes_sent},
};
constexpr int kCount = static_cast<int>(std::size(kPvars));

struct PvarState {
  std::mutex mutex;
  std::set<MPI_T_pvar_session> sessions;
};

PvarState& pvars() {
  static auto* state = new PvarState();
  return *state;
}

std::uint64_t now(const Pvar& v) { return (pml::g_counters.*v.count).load(); }

int get_num(int* num) {
  if (int rc = tool_initialized()) return rc;
  if (num == nullptr) return MPI_T_ERR_INVALID;
  *num = kCount;
  return MPI_SUCCESS;
}

int get_info(int index, char* name, int* name_len, int* verbosity, int* var_class,
             MPI_Datatype* datatype, MPI_T_enum* enumtype, char* desc, int* desc_len, int* bind,
             int* readonly, int* continuous, int* atomic) {
  if (int rc = tool_initialized()) return rc;
  if (index < 0 || index >= kCount) return MPI_T_ERR_INVALID_INDEX;
  const Pvar& v = kPvars[index];
  tool_string(v.name, name, name_len);
  tool_string(v.desc, desc, desc_len);
  if (verbosity != nullptr) *verbosity = MPI_T_VERBOSITY_USER_DETAIL;
  if (var_class != nullptr) *var_class = v.var_class;
  if (datatype != nullptr) *datatype = MPI_UNSIGNED_LONG_LONG;
  if (enumtype != nullptr) *enumtype = MPI_T_ENUM_NULL;
  if (bind != nullptr) *bind = MPI_T_BIND_NO_OBJECT;
  if (readonly != nullptr) *readonly = v.continuous() ? 1 : 0;
  if (continuous != nullptr) *continuous = v.continuous() ? 1 : 0;
  if (atomic != nullptr) *atomic = 1;
  return MPI_SUCCESS;
}

int get_index(const char* name, int var_class, int* index) {
  if (int rc = tool_initialized()) return rc;
  if (name == nullptr || index == nullptr) return MPI_T_ERR_INVALID;
  for (int i = 0; i < kCount; ++i) {
    if (std::string_view(kPvars[i].name) == name && kPvars[i].var_class == var_class) {
      *index = i;
      return MPI_SUCCESS;
    }
  }
  return MPI_T_ERR_INVALID_NAME;
}

int session_create(MPI_T_pvar_session* session) {
  if (int rc = tool_initialized()) return rc;
  if (session == nullptr) return MPI_T_ERR_INVALID;
  PvarState& s = pvars();
  std::lock_guard lock(s.mutex);
  *session = new MPIR_T_pvar_session_s();
  s.sessions.insert(*session);
  return MPI_SUCCESS;
}

int session_free(MPI_T_pvar_session* session) {
  if (int rc = tool_initialized()) return rc;
  PvarState& s = pvars();
  std::lock_guard lock(s.mutex);
  if (session == nullptr || s.sessions.erase(*session) == 0) return MPI_T_ERR_INVALID_SESSION;
  delete *session;
  *session = MPI_T_PVAR_SESSION_NULL;
  return MPI_SUCCESS;
}

// The calls below run under the state's lock, with `session` checked (Locked).
int handle_alloc(MPI_T_pvar_session session, int index, MPI_T_pvar_handle* handle, int* count) {
  if (index < 0 || index >= kCount) return MPI_T_ERR_INVALID_INDEX;
  if (handle == nullptr || count == nullptr) return MPI_T_ERR_INVALID;
  session->handles.push_back(std::make_unique<MPIR_T_pvar_handle_s>());
  *handle = session->handles.back().get();
  (*handle)->index = index;
  *count = 1;
  return MPI_SUCCESS;
}

bool in_session(MPI_T_pvar_session session, MPI_T_pvar_handle handle) {
  for (const auto& h : session->handles)
    if (h.get() == handle) return true;
  return false;
}

int handle_free(MPI_T_pvar_session session, MPI_T_pvar_handle* handle) {
  if (handle == nullptr || !in_session(session, *handle)) return MPI_T_ERR_INVALID_HANDLE;
  std::erase_if(session->handles, [&](const auto& h) { return h.get() == *handle; });
  *handle = MPI_T_PVAR_HANDLE_NULL;
  return MPI_SUCCESS;
}

// What the handle reads now, with the variable's count `count`.
std::uint64_t value_of(const MPIR_T_pvar_handle_s& h, std::uint64_t count) {
  if (kPvars[h.index].continuous()) return count;
  return h.counted + (h.running ? count - h.base : 0);
}

// Starts (`run`) or stops the handle; a continuous variable cannot.
int start_stop(MPIR_T_pvar_handle_s& h, bool run) {
  if (kPvars[h.index].continuous()) return MPI_T_ERR_PVAR_NO_STARTSTOP;
  std::uint64_t count = now(kPvars[h.index]);
  h.counted = value_of(h, count);
  h.base = count;
  h.running = run;
  return MPI_SUCCESS;
}

// Sets the handle's value (reset: 0); a read-only variable cannot be set.
int set(MPIR_T_pvar_handle_s& h, std::uint64_t value) {
  if (kPvars[h.index].continuous()) return MPI_T_ERR_PVAR_NO_WRITE;
  h.counted = value;
  h.base = now(kPvars[h.index]);
  return MPI_SUCCESS;
}

// `fn` on one handle of the session, or on each of them for MPI_T_PVAR_ALL_HANDLES (skipping
// those it does not apply to, as the standard has it) when `all_allowed`.
template <class Fn>
int each(MPI_T_pvar_session session, MPI_T_pvar_handle handle, bool all_allowed, Fn fn) {
  if (handle == MPI_T_PVAR_ALL_HANDLES && all_allowed) {
    for (const auto& h : session->handles)
      if (!kPvars[h->index].continuous()) (void)fn(*h);
    return MPI_SUCCESS;
  }
  if (!in_session(session, handle)) return MPI_T_ERR_INVALID_HANDLE;
  return fn(*handle);
}

int read(MPIR_T_pvar_handle_s& h, void* buf, bool reset) {
  if (buf == nullptr) return MPI_T_ERR_INVALID;
  if (reset && kPvars[h.index].continuous()) return MPI_T_ERR_PVAR_NO_WRITE;
  std::uint64_t count = now(kPvars[h.index]);
  *static_cast<unsigned long long*>(buf) = value_of(h, count);
  if (reset) {
    h.counted = 0;
    h.base = count;
  }
  return MPI_SUCCESS;
}

// Runs `fn(session)` under the lock once the session is checked.
template <class Fn>
int locked(MPI_T_pvar_session session, Fn fn) {
  if (int rc = tool_initialized()) return rc;
  PvarState& s = pvars();
  std::lock_guard lock(s.mutex);
  if (!s.sessions.contains(session)) return MPI_T_ERR_INVALID_SESSION;
  return fn(session);
}

}  // namespace

void tool_pvars_end() {
  PvarState& s = pvars();
  std::lock_guard lock(s.mutex);
  for (MPI_T_pvar_session session : s.sessions) delete session;
  s.sessions.clear();
}

int tool_pvar_count() { return kCount; }
std::string_view tool_pvar_category(int) { return "pml"; }

}  // namespace gpurun::api

namespace t = gpurun::api;
using PvarHandle = MPIR_T_pvar_handle_s;

GPURUN_TOOL_FN(MPI_T_pvar_get_num, (int* num_pvar), t::get_num(num_pvar))
GPURUN_TOOL_FN(MPI_T_pvar_get_info,
               (int pvar_index, char* name, int* name_len, int* verbosity, int* var_class,
                MPI_Datatype* datatype, MPI_T_enum* enumtype, char* desc, int* desc_len, int* bind,
                int* readonly, int* continuous, int* atomic),
               t::get_info(pvar_index, name, name_len, verbosity, var_class, datatype, enumtype,
                           desc, desc_len, bind, readonly, continuous, atomic))
GPURUN_TOOL_FN(MPI_T_pvar_get_index, (const char* name, int var_class, int* pvar_index),
               t::get_index(name, var_class, pvar_index))
GPURUN_TOOL_FN(MPI_T_pvar_session_create, (MPI_T_pvar_session * session),
               t::session_create(session))
GPURUN_TOOL_FN(MPI_T_pvar_session_free, (MPI_T_pvar_session * session), t::session_free(session))
GPURUN_TOOL_FN(MPI_T_pvar_handle_alloc,
               (MPI_T_pvar_session session, int pvar_index, void*, MPI_T_pvar_handle* handle,
                int* count),
               t::locked(session,
                         [&](auto s) { return t::handle_alloc(s, pvar_index, handle, count); }))
GPURUN_TOOL_FN(MPI_T_pvar_handle_free, (MPI_T_pvar_session session, MPI_T_pvar_handle* handle),
               t::locked(session, [&](auto s) { return t::handle_free(s, handle); }))
GPURUN_TOOL_FN(MPI_T_pvar_start, (MPI_T_pvar_session session, MPI_T_pvar_handle handle),
               t::locked(session, [&](auto s) {
                 return t::each(s, handle, true,
                                [](PvarHandle& h) { return t::start_stop(h, true); });
               }))
GPURUN_TOOL_FN(MPI_T_pvar_stop, (MPI_T_pvar_session session, MPI_T_pvar_handle handle),
               t::locked(session, [&](auto s) {
                 return t::each(s, handle, true,
                                [](PvarHandle& h) { return t::start_stop(h, false); });
               }))
GPURUN_TOOL_FN(MPI_T_pvar_reset, (MPI_T_pvar_session session, MPI_T_pvar_handle handle),
               t::locked(session, [&](auto s) {
                 return t::each(s, handle, true, [](PvarHandle& h) { return t::set(h, 0); });
               }))
GPURUN_TOOL_FN(MPI_T_pvar_read, (MPI_T_pvar_session session, MPI_T_pvar_handle handle, void* buf),
               t::locked(session, [&](auto s) {
                 return t::each(s, handle, false,
                                [&](PvarHandle& h) { return t::read(h, buf, false); });
               }))
GPURUN_TOOL_FN(MPI_T_pvar_readreset,
               (MPI_T_pvar_session session, MPI_T_pvar_handle handle, void* buf),
               t::locked(session, [&](auto s) {
                 return t::each(s, handle, false,
                                [&](PvarHandle& h) { return t::read(h, buf, true); });
               }))
GPURUN_TOOL_FN(MPI_T_pvar_write,
               (MPI_T_pvar_session session, MPI_T_pvar_handle handle, const void* buf),
               t::locked(session, [&](auto s) {
                 return t::each(s, handle, false, [&](PvarHandle& h) {
                   return buf == nullptr ? MPI_T_ERR_INVALID
                                         : t::set(h, *static_cast<const unsigned long long*>(buf));
                 });
               }))

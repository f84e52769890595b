// Sessions (MPI-4): MPI_Session_init and _finalize, the process sets, groups from them,
// MPI_Comm_create_from_group, the sessions' error handlers and info.
//
// A session may start before MPI_Init, or without it: the first one starts the runtime, and
// the runtime ends with the last user, session or world model (api/init.h). Every process of
// the job is in the process set "mpi://WORLD", each alone in "mpi://SELF"; a communicator made
// from a group of either is agreed over MPI_COMM_WORLD's ranks, whose members that are not in
// the group take no part. Errors of the calls on a session go to its error handler; those of
// MPI_Session_init itself, before any session exists, and of a call given no session (a null,
// finalized or wrong handle) end the job unless MPI_Init installed another handler on
// MPI_COMM_WORLD.
#include "api/session.h"

#include <algorithm>
#include <cstdarg>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>

#include "api/bsend.h"
#include "api/checks.h"
#include "api/comm_build.h"
#include "api/errhandler.h"
#include "api/error_codes.h"
#include "api/group.h"
#include "api/info.h"
#include "api/init.h"

namespace gpurun::api {
namespace {

constexpr const char* kPsets[] = {"mpi://WORLD", "mpi://SELF"};
constexpr int kNumPsets = 2;

ObjectTable<Session>& sessions() {
  static auto* table = new ObjectTable<Session>();
  return *table;
}

void run_session_errhandler(MPI_Session session, int code, const std::string& message) {
  Session* s = find_session(session);
  if (s == nullptr) {
    run_errhandler(MPI_COMM_NULL, code, message);
    return;
  }
  MPI_Errhandler handler = s->errhandler.handle();
  if (handler == MPI_ERRORS_RETURN) return;
  if (MPI_Session_errhandler_function* function = session_errhandler_function(handler)) {
    MPI_Session session_arg = session;
    int code_arg = code;
    function(&session_arg, &code_arg);
    return;
  }
  end_job(class_of_code(code), message);
}

}  // namespace

Session* find_session(MPI_Session handle) {
  if (handle_kind(handle) != HandleKind::kIndirect || handle_type(handle) != ObjectType::kSession)
    return nullptr;
  return sessions().find(handle_index(handle));
}

int raise_session(const Call& call, MPI_Session session, int error_class, const char* fmt, ...) {
  va_list args;
  va_start(args, fmt);
  std::string message;
  int code = error_code_v(call, error_class, &message, fmt, args);
  va_end(args);
  run_session_errhandler(session, code, message);
  return code;
}

namespace {

// The thread level an info's "thread_level" asks (MPI_THREAD_SINGLE when it asks none).
int thread_level_of(const core::Info* info) {
  const std::string* v = info ? info->get("thread_level") : nullptr;
  if (v == nullptr) return MPI_THREAD_SINGLE;
  if (*v == "MPI_THREAD_MULTIPLE") return MPI_THREAD_MULTIPLE;
  if (*v == "MPI_THREAD_SERIALIZED") return MPI_THREAD_SERIALIZED;
  if (*v == "MPI_THREAD_FUNNELED") return MPI_THREAD_FUNNELED;
  return MPI_THREAD_SINGLE;
}

int session_init(const Call& call, MPI_Info info, MPI_Errhandler errhandler, MPI_Session* session) {
  GPURUN_CHECK_NOT_NULL(MPI_COMM_NULL, session);
  const core::Info* hints = nullptr;
  if (info != MPI_INFO_NULL && (hints = find_info(info)) == nullptr) {
    return raise(call, MPI_COMM_NULL, MPI_ERR_INFO, "argument info (0x%x) is not an info object",
                 static_cast<unsigned>(info));
  }
  if (std::string problem = errhandler_problem(errhandler, ErrhandlerFor::kSession);
      !problem.empty())
    return raise(call, MPI_COMM_NULL, MPI_ERR_ARG, "%s", problem.c_str());
  int level = thread_level_of(hints);
  if (int rc = start_runtime(call, level); rc != MPI_SUCCESS) return rc;
  auto s = std::make_unique<Session>();
  s->errhandler = ErrhandlerRef(errhandler);
  s->info = std::make_unique<core::Info>();
  static constexpr const char* kLevels[] = {"MPI_THREAD_SINGLE", "MPI_THREAD_FUNNELED",
                                            "MPI_THREAD_SERIALIZED", "MPI_THREAD_MULTIPLE"};
  s->info->set("thread_level", kLevels[state().thread_level]);
  std::uint32_t index = sessions().insert(std::move(s));
  if (index == ObjectTable<Session>::kFull)
    return raise(call, MPI_COMM_NULL, MPI_ERR_NO_MEM, "too many sessions; finalize some");
  *session = make_handle(HandleKind::kIndirect, ObjectType::kSession, index);
  session_started();
  return MPI_SUCCESS;
}

// The index of process set `name` in kPsets, or -1.
int pset_index(const char* name) {
  for (int i = 0; i < kNumPsets; ++i)
    if (name != nullptr && std::strcmp(name, kPsets[i]) == 0) return i;
  return -1;
}

core::GroupPtr pset_group(int index) {
  ProcessState& s = state();
  return index == 0 ? s.world.comm->shared_group() : s.self.comm->shared_group();
}

int check_pset(const Call& call, MPI_Session session, const char* name, int* index) {
  if (name == nullptr)
    return raise_session(call, session, MPI_ERR_ARG, "argument pset_name is a null pointer");
  *index = pset_index(name);
  if (*index < 0) {
    return raise_session(call, session, MPI_ERR_ARG,
                         "argument pset_name \"%s\" names no process set (there are "
                         "\"mpi://WORLD\" and \"mpi://SELF\")",
                         name);
  }
  return MPI_SUCCESS;
}

int nth_pset(const Call& call, MPI_Session session, int n, int* pset_len, char* pset_name) {
  GPURUN_CHECK_SESSION(s, session);
  (void)s;
  if (pset_len == nullptr)
    return raise_session(call, session, MPI_ERR_ARG, "argument pset_len is a null pointer");
  if (n < 0 || n >= kNumPsets) {
    return raise_session(call, session, MPI_ERR_ARG,
                         "argument n %d is not the number of a process set (0..%d)", n,
                         kNumPsets - 1);
  }
  if (*pset_len < 0) {
    return raise_session(call, session, MPI_ERR_ARG, "argument pset_len holds %d, a negative size",
                         *pset_len);
  }
  auto len = static_cast<int>(std::strlen(kPsets[n]));
  if (*pset_len == 0) {
    *pset_len = len + 1;  // the length the name needs, its terminating zero included
    return MPI_SUCCESS;
  }
  if (pset_name == nullptr)
    return raise_session(call, session, MPI_ERR_ARG, "argument pset_name is a null pointer");
  int copied = std::min(len, *pset_len - 1);
  std::memcpy(pset_name, kPsets[n], static_cast<std::size_t>(copied));
  pset_name[copied] = '\0';
  return MPI_SUCCESS;
}

int session_finalize(const Call& call, MPI_Session* session) {
  GPURUN_CHECK_NOT_NULL(MPI_COMM_NULL, session);
  GPURUN_CHECK_SESSION(s, *session);
  retire_bsend(s->bsend);  // a buffer still attached: its messages go first
  sessions().release(handle_index(*session));
  *session = MPI_SESSION_NULL;
  return session_finished(call);
}

int comm_from_group(const Call& call, MPI_Group group, const char* stringtag,
                    MPI_Errhandler errhandler, MPI_Comm* newcomm) {
  GPURUN_CHECK_GROUP(g, group, "group");
  if (stringtag == nullptr)
    return raise(call, MPI_COMM_NULL, MPI_ERR_ARG, "argument stringtag is a null pointer");
  GPURUN_CHECK_NOT_NULL(MPI_COMM_NULL, newcomm);
  if (std::string problem = errhandler_problem(errhandler, ErrhandlerFor::kComm); !problem.empty())
    return raise(call, MPI_COMM_NULL, MPI_ERR_ARG, "%s", problem.c_str());
  int rc = create_group(call, MPI_COMM_WORLD, state().world, std::move(g), string_tag(stringtag),
                        &errhandler, newcomm);
  // Its buffered sends may use the session's buffer.
  if (rc == MPI_SUCCESS && *newcomm != MPI_COMM_NULL)
    find_comm(*newcomm)->session = group_session(group);
  return rc;
}

}  // namespace
}  // namespace gpurun::api

using namespace gpurun::api;  // NOLINT(google-build-using-namespace): the C API's own layer
namespace core = gpurun::core;

// May come before MPI_Init: no entry check, the lock only once the runtime runs.
extern "C" int PMPI_Session_init(MPI_Info info, MPI_Errhandler errhandler, MPI_Session* session) {
  const Call call{"MPI_Session_init"};
  if (phase() == Phase::kInitialized) {
    const BigLock lock;
    return session_init(call, info, errhandler, session);
  }
  return session_init(call, info, errhandler, session);
}

extern "C" int PMPI_Session_finalize(MPI_Session* session) {
  GPURUN_API_ENTER("MPI_Session_finalize");
  return session_finalize(call, session);
}

extern "C" int PMPI_Session_get_num_psets(MPI_Session session, MPI_Info /*info*/,
                                          int* npset_names) {
  GPURUN_API_ENTER("MPI_Session_get_num_psets");
  GPURUN_CHECK_SESSION(s, session);
  (void)s;
  if (npset_names == nullptr)
    return raise_session(call, session, MPI_ERR_ARG, "argument npset_names is a null pointer");
  *npset_names = kNumPsets;
  return MPI_SUCCESS;
}

extern "C" int PMPI_Session_get_nth_pset(MPI_Session session, MPI_Info /*info*/, int n,
                                         int* pset_len, char* pset_name) {
  GPURUN_API_ENTER("MPI_Session_get_nth_pset");
  return nth_pset(call, session, n, pset_len, pset_name);
}

extern "C" int PMPI_Session_get_pset_info(MPI_Session session, const char* pset_name,
                                          MPI_Info* info) {
  GPURUN_API_ENTER("MPI_Session_get_pset_info");
  GPURUN_CHECK_SESSION(s, session);
  (void)s;
  int index;
  if (int rc = check_pset(call, session, pset_name, &index); rc != MPI_SUCCESS) return rc;
  if (info == nullptr)
    return raise_session(call, session, MPI_ERR_ARG, "argument info is a null pointer");
  auto out = std::make_unique<core::Info>();
  out->set("mpi_size", std::to_string(pset_group(index)->size()));
  *info = new_info_handle(std::move(out));
  return MPI_SUCCESS;
}

extern "C" int PMPI_Group_from_session_pset(MPI_Session session, const char* pset_name,
                                            MPI_Group* newgroup) {
  GPURUN_API_ENTER("MPI_Group_from_session_pset");
  GPURUN_CHECK_SESSION(s, session);
  (void)s;
  int index;
  if (int rc = check_pset(call, session, pset_name, &index); rc != MPI_SUCCESS) return rc;
  if (newgroup == nullptr)
    return raise_session(call, session, MPI_ERR_ARG, "argument newgroup is a null pointer");
  MPI_Group h = new_group_handle(pset_group(index), session);
  if (h == MPI_GROUP_NULL)
    return raise_session(call, session, MPI_ERR_NO_MEM, "too many groups; free some");
  *newgroup = h;
  return MPI_SUCCESS;
}

extern "C" int PMPI_Comm_create_from_group(MPI_Group group, const char* stringtag,
                                           MPI_Info /*info*/, MPI_Errhandler errhandler,
                                           MPI_Comm* newcomm) {
  GPURUN_API_ENTER("MPI_Comm_create_from_group");
  return comm_from_group(call, group, stringtag, errhandler, newcomm);
}

extern "C" int PMPI_Session_get_info(MPI_Session session, MPI_Info* info_used) {
  GPURUN_API_ENTER("MPI_Session_get_info");
  GPURUN_CHECK_SESSION(s, session);
  if (info_used == nullptr)
    return raise_session(call, session, MPI_ERR_ARG, "argument info_used is a null pointer");
  *info_used = new_info_handle(std::make_unique<core::Info>(*s->info));
  return MPI_SUCCESS;
}

extern "C" int PMPI_Session_create_errhandler(MPI_Session_errhandler_function* fn,
                                              MPI_Errhandler* errhandler) {
  GPURUN_API_ENTER("MPI_Session_create_errhandler");
  return create_errhandler(call, "session_errhandler_fn", {.session = fn}, errhandler);
}

extern "C" int PMPI_Session_set_errhandler(MPI_Session session, MPI_Errhandler errhandler) {
  GPURUN_API_ENTER("MPI_Session_set_errhandler");
  GPURUN_CHECK_SESSION(s, session);
  std::string problem = errhandler_problem(errhandler, ErrhandlerFor::kSession);
  if (!problem.empty()) return raise_session(call, session, MPI_ERR_ARG, "%s", problem.c_str());
  s->errhandler = ErrhandlerRef(errhandler);
  return MPI_SUCCESS;
}

extern "C" int PMPI_Session_get_errhandler(MPI_Session session, MPI_Errhandler* errhandler) {
  GPURUN_API_ENTER("MPI_Session_get_errhandler");
  GPURUN_CHECK_SESSION(s, session);
  if (errhandler == nullptr)
    return raise_session(call, session, MPI_ERR_ARG, "argument errhandler is a null pointer");
  add_errhandler_handle(s->errhandler.handle());
  *errhandler = s->errhandler.handle();
  return MPI_SUCCESS;
}

extern "C" int PMPI_Session_call_errhandler(MPI_Session session, int errorcode) {
  GPURUN_API_ENTER("MPI_Session_call_errhandler");
  GPURUN_CHECK_SESSION(s, session);
  (void)s;
  if (class_of_code(errorcode) < 0) {
    return raise_session(call, session, MPI_ERR_ARG, "argument errorcode %d is not an error code",
                         errorcode);
  }
  char text[MPI_MAX_ERROR_STRING];
  error_text(errorcode, text);
  run_session_errhandler(session, errorcode, std::string("MPI_Session_call_errhandler: ") + text);
  return MPI_SUCCESS;
}

GPURUN_MPI_ALIAS(MPI_Session_init)
GPURUN_MPI_ALIAS(MPI_Session_finalize)
GPURUN_MPI_ALIAS(MPI_Session_get_num_psets)
GPURUN_MPI_ALIAS(MPI_Session_get_nth_pset)
GPURUN_MPI_ALIAS(MPI_Session_get_pset_info)
GPURUN_MPI_ALIAS(MPI_Group_from_session_pset)
GPURUN_MPI_ALIAS(MPI_Comm_create_from_group)
GPURUN_MPI_ALIAS(MPI_Session_get_info)
GPURUN_MPI_ALIAS(MPI_Session_create_errhandler)
GPURUN_MPI_ALIAS(MPI_Session_set_errhandler)
GPURUN_MPI_ALIAS(MPI_Session_get_errhandler)
GPURUN_MPI_ALIAS(MPI_Session_call_errhandler)

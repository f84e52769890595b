// Error handlers on communicators: the table of user handlers, their references, running a
// communicator's handler, and the calls (MPI_Comm_create/set/get/call_errhandler,
// MPI_Errhandler_free, and the MPI-1 names MPI_Errhandler_create/set/get).
#include "api/errhandler.h"

#include <cstdio>
#include <utility>

#include "api/checks.h"
#include "api/error_codes.h"

namespace gpurun::api {
namespace {

struct Errhandler {
  ErrhandlerFunctions functions;  // one is set
  ErrhandlerFor kind() const {
    return functions.file      ? ErrhandlerFor::kFile
           : functions.win     ? ErrhandlerFor::kWin
           : functions.session ? ErrhandlerFor::kSession
                               : ErrhandlerFor::kComm;
  }
  int handles = 1;   // handles the user holds (create, each get) and has not freed
  int attached = 0;  // ErrhandlerRefs: communicators, and communicators being made
};

ObjectTable<Errhandler>& errhandlers() {
  static auto* table = new ObjectTable<Errhandler>();
  return *table;
}

bool is_user_handle(MPI_Errhandler handle) {
  return handle_kind(handle) == HandleKind::kIndirect &&
         handle_type(handle) == ObjectType::kErrhandler;
}

// The user handler `handle` names (its handle freed or not: communicators keep it), or nullptr.
Errhandler* find_errhandler(MPI_Errhandler handle) {
  if (!is_user_handle(handle)) return nullptr;
  return errhandlers().find(handle_index(handle));
}

// Deletes the handler once neither a handle nor a communicator refers to it.
void release_if_unused(MPI_Errhandler handle, const Errhandler& h) {
  if (h.handles == 0 && h.attached == 0) errhandlers().release(handle_index(handle));
}

void attach(MPI_Errhandler handle) {
  if (Errhandler* h = find_errhandler(handle)) ++h->attached;
}

void detach(MPI_Errhandler handle) {
  if (Errhandler* h = find_errhandler(handle)) {
    --h->attached;
    release_if_unused(handle, *h);
  }
}

// Checks an errhandler argument: a predefined handler, or a user handler whose handle the
// caller still holds, made for communicators. Returns MPI_SUCCESS or the error.
int check_errhandler(const Call& call, MPI_Comm comm, MPI_Errhandler handle,
                     ErrhandlerFor what = ErrhandlerFor::kComm) {
  std::string problem = errhandler_problem(handle, what);
  if (problem.empty()) return MPI_SUCCESS;
  return raise(call, comm, MPI_ERR_ARG, "%s", problem.c_str());
}

const char* kind_name(ErrhandlerFor kind) {
  switch (kind) {
    case ErrhandlerFor::kFile:
      return "files";
    case ErrhandlerFor::kWin:
      return "windows";
    case ErrhandlerFor::kSession:
      return "sessions";
    default:
      return "communicators";
  }
}

// A communicator in a message: its name, or its handle when it has none.
std::string comm_label(MPI_Comm comm, const CommEntry& entry) {
  if (!entry.name.empty()) return entry.name;
  char text[16];
  std::snprintf(text, sizeof text, "0x%x", static_cast<unsigned>(comm));
  return text;
}

int set_errhandler(const Call& call, MPI_Comm comm, MPI_Errhandler errhandler) {
  GPURUN_CHECK_COMM(entry, comm);
  if (int rc = check_errhandler(call, comm, errhandler); rc != MPI_SUCCESS) return rc;
  entry->errhandler = ErrhandlerRef(errhandler);
  return MPI_SUCCESS;
}

// The handle returned is a new reference to a user handler, which MPI_Errhandler_free drops.
int get_errhandler(const Call& call, MPI_Comm comm, MPI_Errhandler* errhandler) {
  GPURUN_CHECK_COMM(entry, comm);
  GPURUN_CHECK_NOT_NULL(comm, errhandler);
  MPI_Errhandler handle = entry->errhandler.handle();
  add_errhandler_handle(handle);
  *errhandler = handle;
  return MPI_SUCCESS;
}

}  // namespace

ErrhandlerRef::ErrhandlerRef(MPI_Errhandler handle) : handle_(handle) { attach(handle_); }

ErrhandlerRef::ErrhandlerRef(const ErrhandlerRef& other) : handle_(other.handle_) {
  attach(handle_);
}

ErrhandlerRef::ErrhandlerRef(ErrhandlerRef&& other) noexcept : handle_(other.handle_) {
  other.handle_ = MPI_ERRORS_ARE_FATAL;
}

ErrhandlerRef& ErrhandlerRef::operator=(ErrhandlerRef other) noexcept {
  std::swap(handle_, other.handle_);
  return *this;
}

ErrhandlerRef::~ErrhandlerRef() { detach(handle_); }

std::string errhandler_problem(MPI_Errhandler handle, ErrhandlerFor what) {
  if (is_predefined_errhandler(handle)) return "";
  if (handle == MPI_ERRHANDLER_NULL) return "argument errhandler is MPI_ERRHANDLER_NULL";
  char text[160];
  const Errhandler* h = find_errhandler(handle);
  if (h == nullptr) {
    std::snprintf(text, sizeof text, "argument errhandler (0x%x) is not an error handler%s",
                  static_cast<unsigned>(handle), is_user_handle(handle) ? " (freed?)" : "");
  } else if (h->handles == 0) {
    std::snprintf(text, sizeof text,
                  "argument errhandler (0x%x) was freed with MPI_Errhandler_free; a handle is "
                  "freed once",
                  static_cast<unsigned>(handle));
  } else if (what != ErrhandlerFor::kAny && h->kind() != what) {
    std::snprintf(text, sizeof text, "argument errhandler (0x%x) was made for %s, not for %s",
                  static_cast<unsigned>(handle), kind_name(h->kind()), kind_name(what));
  } else {
    return "";
  }
  return text;
}

int create_errhandler(const Call& call, const char* arg, const ErrhandlerFunctions& functions,
                      MPI_Errhandler* errhandler) {
  if (functions.comm == nullptr && functions.file == nullptr && functions.win == nullptr &&
      functions.session == nullptr)
    return raise(call, MPI_COMM_NULL, MPI_ERR_ARG, "argument %s is a null pointer", arg);
  GPURUN_CHECK_NOT_NULL(MPI_COMM_NULL, errhandler);
  auto h = std::make_unique<Errhandler>();
  h->functions = functions;
  std::uint32_t index = errhandlers().insert(std::move(h));
  if (index == ObjectTable<Errhandler>::kFull) {
    return raise(call, MPI_COMM_NULL, MPI_ERR_NO_MEM,
                 "too many error handlers; free some with MPI_Errhandler_free");
  }
  *errhandler = make_handle(HandleKind::kIndirect, ObjectType::kErrhandler, index);
  return MPI_SUCCESS;
}

MPI_File_errhandler_function* file_errhandler_function(MPI_Errhandler handle) {
  const Errhandler* h = find_errhandler(handle);
  return h ? h->functions.file : nullptr;
}

MPI_Win_errhandler_function* win_errhandler_function(MPI_Errhandler handle) {
  const Errhandler* h = find_errhandler(handle);
  return h ? h->functions.win : nullptr;
}

MPI_Session_errhandler_function* session_errhandler_function(MPI_Errhandler handle) {
  const Errhandler* h = find_errhandler(handle);
  return h ? h->functions.session : nullptr;
}

void add_errhandler_handle(MPI_Errhandler handle) {
  if (Errhandler* h = find_errhandler(handle)) ++h->handles;
}

bool is_predefined_errhandler(MPI_Errhandler handle) {
  return handle == MPI_ERRORS_ARE_FATAL || handle == MPI_ERRORS_RETURN ||
         handle == MPI_ERRORS_ABORT;
}

MPI_Comm_errhandler_function* errhandler_function(MPI_Errhandler handle) {
  const Errhandler* h = find_errhandler(handle);
  return h ? h->functions.comm : nullptr;
}

void run_errhandler(MPI_Comm comm, int code, const std::string& message) {
  bool initialized = phase() == Phase::kInitialized;
  CommEntry* entry = initialized ? find_comm(comm) : nullptr;
  if (entry == nullptr && initialized) {
    entry = &state().world;
    comm = MPI_COMM_WORLD;
  }
  MPI_Errhandler handler = entry ? entry->errhandler.handle() : MPI_ERRORS_ARE_FATAL;
  if (handler == MPI_ERRORS_RETURN) return;
  if (MPI_Comm_errhandler_function* function = errhandler_function(handler)) {
    // Copies: the function may change what it is given, and may set another handler on (or
    // free) the communicator while it runs.
    MPI_Comm comm_arg = comm;
    int code_arg = code;
    function(&comm_arg, &code_arg);
    return;
  }
  // MPI_ERRORS_ARE_FATAL, and MPI_ERRORS_ABORT: aborting the communicator's processes ends the
  // job, as MPI_Abort does.
  end_job(class_of_code(code), message);
}

}  // namespace gpurun::api

using namespace gpurun::api;  // NOLINT(google-build-using-namespace): the C API's own layer

extern "C" int PMPI_Comm_create_errhandler(MPI_Comm_errhandler_function* comm_errhandler_fn,
                                           MPI_Errhandler* errhandler) {
  GPURUN_API_ENTER("MPI_Comm_create_errhandler");
  return create_errhandler(call, "comm_errhandler_fn", {.comm = comm_errhandler_fn}, errhandler);
}

extern "C" int PMPI_Errhandler_create(MPI_Comm_errhandler_function* comm_errhandler_fn,
                                      MPI_Errhandler* errhandler) {
  GPURUN_API_ENTER("MPI_Errhandler_create");
  return create_errhandler(call, "comm_errhandler_fn", {.comm = comm_errhandler_fn}, errhandler);
}

extern "C" int PMPI_Comm_set_errhandler(MPI_Comm comm, MPI_Errhandler errhandler) {
  GPURUN_API_ENTER("MPI_Comm_set_errhandler");
  return set_errhandler(call, comm, errhandler);
}

extern "C" int PMPI_Errhandler_set(MPI_Comm comm, MPI_Errhandler errhandler) {
  GPURUN_API_ENTER("MPI_Errhandler_set");
  return set_errhandler(call, comm, errhandler);
}

extern "C" int PMPI_Comm_get_errhandler(MPI_Comm comm, MPI_Errhandler* errhandler) {
  GPURUN_API_ENTER("MPI_Comm_get_errhandler");
  return get_errhandler(call, comm, errhandler);
}

extern "C" int PMPI_Errhandler_get(MPI_Comm comm, MPI_Errhandler* errhandler) {
  GPURUN_API_ENTER("MPI_Errhandler_get");
  return get_errhandler(call, comm, errhandler);
}

// Predefined handlers may be freed too (MPI-4.0, and MPICH): the handle becomes
// MPI_ERRHANDLER_NULL, the handler stays.
extern "C" int PMPI_Errhandler_free(MPI_Errhandler* errhandler) {
  GPURUN_API_ENTER("MPI_Errhandler_free");
  GPURUN_CHECK_NOT_NULL(MPI_COMM_NULL, errhandler);
  MPI_Errhandler handle = *errhandler;
  if (int rc = check_errhandler(call, MPI_COMM_NULL, handle, ErrhandlerFor::kAny);
      rc != MPI_SUCCESS) {
    return rc;
  }
  if (Errhandler* h = find_errhandler(handle)) {
    --h->handles;
    release_if_unused(handle, *h);
  }
  *errhandler = MPI_ERRHANDLER_NULL;
  return MPI_SUCCESS;
}

// Returns MPI_SUCCESS once the handler returned (MPI_ERRORS_RETURN, or a user function), as
// the standard says: the error was the caller's to report, not this call's.
extern "C" int PMPI_Comm_call_errhandler(MPI_Comm comm, int errorcode) {
  GPURUN_API_ENTER("MPI_Comm_call_errhandler");
  GPURUN_CHECK_COMM(entry, comm);
  if (class_of_code(errorcode) < 0) {
    return raise(call, comm, MPI_ERR_ARG, "argument errorcode %d is not an error code", errorcode);
  }
  char text[MPI_MAX_ERROR_STRING];
  error_text(errorcode, text);
  char message[2 * MPI_MAX_ERROR_STRING];
  std::snprintf(message, sizeof message,
                "MPI_Comm_call_errhandler: error code %d (%s) on communicator %s (rank %d)",
                errorcode, text, comm_label(comm, *entry).c_str(), world_rank());
  run_errhandler(comm, errorcode, message);
  return MPI_SUCCESS;
}

GPURUN_MPI_ALIAS(MPI_Comm_create_errhandler)
GPURUN_MPI_ALIAS(MPI_Errhandler_create)
GPURUN_MPI_ALIAS(MPI_Comm_set_errhandler)
GPURUN_MPI_ALIAS(MPI_Errhandler_set)
GPURUN_MPI_ALIAS(MPI_Comm_get_errhandler)
GPURUN_MPI_ALIAS(MPI_Errhandler_get)
GPURUN_MPI_ALIAS(MPI_Errhandler_free)
GPURUN_MPI_ALIAS(MPI_Comm_call_errhandler)

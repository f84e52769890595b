// Error classes, error codes that carry their message, and raising errors through the
// communicator's error handler (api/errhandler.h).
//
// An error code is class + 128 * sequence: MPI_Error_class recovers the class, and
// MPI_Error_string finds the message in a ring of the most recent errors (older codes fall
// back to their class's text). Codes above MPI_ERR_LASTCODE are the ones users add
// (api/error_codes.h).
#include <unistd.h>

#include <array>
#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <string>

#include "api/call.h"
#include "api/errhandler.h"
#include "api/error_codes.h"
#include "api/state.h"

namespace gpurun::api {
namespace {

constexpr int kLastCode = MPI_ERR_LASTCODE;

struct ClassText {
  int error_class;
  const char* name;
  const char* text;
};

constexpr ClassText kClasses[] = {
    {0, "MPI_SUCCESS", "no error"},
    {1, "MPI_ERR_BUFFER", "invalid buffer pointer"},
    {2, "MPI_ERR_COUNT", "invalid count"},
    {3, "MPI_ERR_TYPE", "invalid datatype"},
    {4, "MPI_ERR_TAG", "invalid tag"},
    {5, "MPI_ERR_COMM", "invalid communicator"},
    {6, "MPI_ERR_RANK", "invalid rank"},
    {7, "MPI_ERR_ROOT", "invalid root"},
    {8, "MPI_ERR_GROUP", "invalid group"},
    {9, "MPI_ERR_OP", "invalid reduction operation"},
    {10, "MPI_ERR_TOPOLOGY", "invalid topology"},
    {11, "MPI_ERR_DIMS", "invalid dimensions"},
    {12, "MPI_ERR_ARG", "invalid argument"},
    {13, "MPI_ERR_UNKNOWN", "unknown error"},
    {14, "MPI_ERR_TRUNCATE", "message truncated: the receive buffer is too small"},
    {15, "MPI_ERR_OTHER", "other error"},
    {16, "MPI_ERR_INTERN", "internal error"},
    {17, "MPI_ERR_IN_STATUS", "error code is in the status"},
    {18, "MPI_ERR_PENDING", "request pending"},
    {19, "MPI_ERR_REQUEST", "invalid request"},
    {20, "MPI_ERR_ACCESS", "permission denied"},
    {21, "MPI_ERR_AMODE", "invalid file access mode"},
    {22, "MPI_ERR_BAD_FILE", "invalid file name"},
    {23, "MPI_ERR_CONVERSION", "data conversion failed"},
    {24, "MPI_ERR_DUP_DATAREP", "data representation already defined"},
    {25, "MPI_ERR_FILE_EXISTS", "file exists"},
    {26, "MPI_ERR_FILE_IN_USE", "file in use"},
    {27, "MPI_ERR_FILE", "invalid file handle"},
    {28, "MPI_ERR_INFO", "invalid info object"},
    {29, "MPI_ERR_INFO_KEY", "invalid info key"},
    {30, "MPI_ERR_INFO_VALUE", "invalid info value"},
    {31, "MPI_ERR_INFO_NOKEY", "info key not defined"},
    {32, "MPI_ERR_IO", "i/o error"},
    {33, "MPI_ERR_NAME", "service name not published"},
    {34, "MPI_ERR_NO_MEM", "out of memory"},
    {35, "MPI_ERR_NOT_SAME", "arguments differ between processes"},
    {36, "MPI_ERR_NO_SPACE", "no space left"},
    {37, "MPI_ERR_NO_SUCH_FILE", "no such file"},
    {38, "MPI_ERR_PORT", "invalid port name"},
    {39, "MPI_ERR_QUOTA", "quota exceeded"},
    {40, "MPI_ERR_READ_ONLY", "file is read-only"},
    {41, "MPI_ERR_SERVICE", "invalid service name"},
    {42, "MPI_ERR_SPAWN", "process spawn failed"},
    {43, "MPI_ERR_UNSUPPORTED_DATAREP", "unsupported data representation"},
    {44, "MPI_ERR_UNSUPPORTED_OPERATION", "operation not supported"},
    {45, "MPI_ERR_WIN", "invalid window"},
    {46, "MPI_ERR_BASE", "invalid base address"},
    {47, "MPI_ERR_LOCKTYPE", "invalid lock type"},
    {48, "MPI_ERR_KEYVAL", "invalid attribute key"},
    {49, "MPI_ERR_RMA_CONFLICT", "conflicting accesses to a window"},
    {50, "MPI_ERR_RMA_SYNC", "wrong synchronisation of one-sided calls"},
    {51, "MPI_ERR_SIZE", "invalid size"},
    {52, "MPI_ERR_DISP", "invalid displacement"},
    {53, "MPI_ERR_ASSERT", "invalid assertion"},
    {55, "MPI_ERR_RMA_RANGE", "access outside the window"},
    {56, "MPI_ERR_RMA_ATTACH", "memory cannot be attached"},
    {57, "MPI_ERR_RMA_SHARED", "memory cannot be shared"},
    {58, "MPI_ERR_RMA_FLAVOR", "wrong window flavor"},
    {75, "MPI_ERR_SESSION", "invalid session"},
    {76, "MPI_ERR_PROC_ABORTED", "a peer process aborted"},
    {77, "MPI_ERR_VALUE_TOO_LARGE", "value too large for the output argument"},
};

const ClassText* find_class(int error_class) {
  for (const ClassText& c : kClasses)
    if (c.error_class == error_class) return &c;
  return nullptr;
}

// The most recent error messages, by code.
class MessageRing {
 public:
  int store(int error_class, const std::string& message) {
    std::lock_guard lock(mutex_);
    sequence_ = sequence_ % (kLastCode / kClassModulus - 1) + 1;
    int code = error_class + kClassModulus * sequence_;
    Slot& slot = slots_[sequence_ % slots_.size()];
    slot.code = code;
    std::snprintf(slot.message, sizeof slot.message, "%s", message.c_str());
    return code;
  }
  bool lookup(int code, char* out, std::size_t size) {
    if (code < kClassModulus) return false;  // a bare class has no message of its own
    std::lock_guard lock(mutex_);
    const Slot& slot = slots_[(code / kClassModulus) % slots_.size()];
    if (slot.code != code) return false;
    std::snprintf(out, size, "%s", slot.message);
    return true;
  }

 private:
  struct Slot {
    int code = 0;
    char message[MPI_MAX_ERROR_STRING] = {};
  };
  std::mutex mutex_;
  std::array<Slot, 64> slots_;
  int sequence_ = 0;
};

MessageRing& ring() {
  static MessageRing* r = new MessageRing();
  return *r;
}

std::string with_context(const Call& call, const char* fmt, va_list args) {
  char text[MPI_MAX_ERROR_STRING];
  std::vsnprintf(text, sizeof text, fmt, args);
  std::string message = std::string(call.name) + ": " + text;
  int rank = world_rank();
  if (rank >= 0) message += " (rank " + std::to_string(rank) + ")";
  return message;
}

int handle_error(MPI_Comm comm, int error_class, const std::string& message) {
  int code = ring().store(error_class, message);
  run_errhandler(comm, code, message);
  return code;
}

}  // namespace

[[noreturn]] void end_job(int error_class, const std::string& message) {
  // gpurun reports the end of the job itself; elsewhere the line comes from here.
  bool connected = phase() == Phase::kInitialized && state().bootstrap;
  bool under_gpurun =
      connected && state().bootstrap->job().launcher == bootstrap::Launcher::kGpurun;
  std::string line = "gpurun: fatal error: " + message + "\n";
  if (!under_gpurun) {
    ssize_t rc = write(STDERR_FILENO, line.data(), line.size());
    (void)rc;
  }
  int exit_code = (error_class > 0 && error_class < 126) ? error_class : 1;
  if (connected) state().bootstrap->abort(exit_code, "fatal error: " + message);
  _exit(exit_code);
}

int raise(const Call& call, MPI_Comm comm, int error_class, const char* fmt, ...) {
  va_list args;
  va_start(args, fmt);
  std::string message = with_context(call, fmt, args);
  va_end(args);
  return handle_error(comm, error_class, message);
}

int error_class_of(ErrorCode code) {
  switch (code) {
    case ErrorCode::kOk: return MPI_SUCCESS;
    case ErrorCode::kInvalidArgument: return MPI_ERR_ARG;
    case ErrorCode::kOutOfRange: return MPI_ERR_ARG;
    case ErrorCode::kNotFound: return MPI_ERR_OTHER;
    case ErrorCode::kAlreadyExists: return MPI_ERR_OTHER;
    case ErrorCode::kNoResource: return MPI_ERR_OTHER;  // transient: the caller retries
    case ErrorCode::kInProgress: return MPI_ERR_PENDING;
    case ErrorCode::kUnsupported: return MPI_ERR_UNSUPPORTED_OPERATION;
    case ErrorCode::kTruncated: return MPI_ERR_TRUNCATE;
    case ErrorCode::kNoMemory: return MPI_ERR_NO_MEM;
    case ErrorCode::kIo: return MPI_ERR_OTHER;
    case ErrorCode::kTimeout: return MPI_ERR_OTHER;
    case ErrorCode::kPeerFailed: return MPI_ERR_PROC_ABORTED;
    case ErrorCode::kAborted: return MPI_ERR_PROC_ABORTED;
    case ErrorCode::kInternal: return MPI_ERR_INTERN;
    case ErrorCode::kInvalidRoot:
      return MPI_ERR_ROOT;
    case ErrorCode::kConversion:
      return MPI_ERR_CONVERSION;
  }
  return MPI_ERR_UNKNOWN;
}

int raise_status(const Call& call, MPI_Comm comm, const Status& status) {
  return raise(call, comm, error_class_of(status.code()), "%s", status.to_string().c_str());
}

int error_code(const Call& call, int error_class, const char* fmt, ...) {
  va_list args;
  va_start(args, fmt);
  std::string message;
  int code = error_code_v(call, error_class, &message, fmt, args);
  va_end(args);
  return code;
}

int error_code_v(const Call& call, int error_class, std::string* message, const char* fmt,
                 va_list args) {
  *message = with_context(call, fmt, args);
  return ring().store(error_class, *message);
}

int outside_init(const Call& call) {
  const char* when = phase() == Phase::kBefore ? "before MPI_Init" : "after MPI_Finalize";
  std::string message = std::string(call.name) + " was called " + when +
                        "; MPI calls are valid only between MPI_Init and MPI_Finalize";
  return handle_error(MPI_COMM_NULL, MPI_ERR_OTHER, message);
}

int out_of_memory(const Call& call, MPI_Comm comm, const char* arg) {
  return raise(call, comm, MPI_ERR_NO_MEM,
               "argument %s asks for more memory than this process can have (is it larger than "
               "its array?)",
               arg);
}

int class_of_code(int code) {
  if (code >= 0 && code <= kLastCode) return code % kClassModulus;
  return added_class_of(code);
}

bool is_error_class(int code) {
  if (code >= 0 && code < kClassModulus) return find_class(code) != nullptr;
  return added_class_of(code) == code;
}

void error_text(int code, char* out) {
  if (added_error_string(code, out, MPI_MAX_ERROR_STRING)) return;
  if (ring().lookup(code, out, MPI_MAX_ERROR_STRING)) return;
  if (const ClassText* c = find_class(code % kClassModulus)) {
    std::snprintf(out, MPI_MAX_ERROR_STRING, "%s: %s", c->name, c->text);
  } else {
    std::snprintf(out, MPI_MAX_ERROR_STRING, "error code %d", code);
  }
}

}  // namespace gpurun::api

using gpurun::api::Call;

extern "C" int PMPI_Error_class(int errorcode, int* errorclass) {
  const Call call{"MPI_Error_class"};
  GPURUN_CHECK_NOT_NULL(MPI_COMM_NULL, errorclass);
  int error_class = gpurun::api::class_of_code(errorcode);
  if (error_class < 0)
    return gpurun::api::raise(call, MPI_COMM_NULL, MPI_ERR_ARG,
                              "argument errorcode %d is not an error code", errorcode);
  *errorclass = error_class;
  return MPI_SUCCESS;
}

extern "C" int PMPI_Error_string(int errorcode, char* string, int* resultlen) {
  const Call call{"MPI_Error_string"};
  GPURUN_CHECK_NOT_NULL(MPI_COMM_NULL, string);
  GPURUN_CHECK_NOT_NULL(MPI_COMM_NULL, resultlen);
  if (gpurun::api::class_of_code(errorcode) < 0)
    return gpurun::api::raise(call, MPI_COMM_NULL, MPI_ERR_ARG,
                              "argument errorcode %d is not an error code", errorcode);
  gpurun::api::error_text(errorcode, string);
  *resultlen = static_cast<int>(std::strlen(string));
  return MPI_SUCCESS;
}
GPURUN_MPI_ALIAS(MPI_Error_class)
GPURUN_MPI_ALIAS(MPI_Error_string)

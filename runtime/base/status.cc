#include "runtime/base/status.h"

#include <cstdio>
#include <cstdlib>
#include <cerrno>
#include <cstring>

namespace gpurun {

std::string_view error_code_name(ErrorCode code) {
  switch (code) {
    case ErrorCode::kOk: return "ok";
    case ErrorCode::kInvalidArgument: return "invalid argument";
    case ErrorCode::kOutOfRange: return "out of range";
    case ErrorCode::kNotFound: return "not found";
    case ErrorCode::kAlreadyExists: return "already exists";
    case ErrorCode::kNoResource: return "no resource";
    case ErrorCode::kInProgress: return "in progress";
    case ErrorCode::kUnsupported: return "unsupported";
    case ErrorCode::kTruncated: return "truncated";
    case ErrorCode::kNoMemory: return "out of memory";
    case ErrorCode::kIo: return "i/o error";
    case ErrorCode::kTimeout: return "timeout";
    case ErrorCode::kPeerFailed: return "peer failed";
    case ErrorCode::kAborted: return "aborted";
    case ErrorCode::kInternal: return "internal error";
  }
  return "unknown";
}

Status::Status(ErrorCode code, std::string message, int sys_errno)
    : rep_(code == ErrorCode::kOk ? nullptr
                                  : std::make_unique<Rep>(Rep{code, sys_errno, std::move(message)})) {}

Status::Status(const Status& other)
    : rep_(other.rep_ ? std::make_unique<Rep>(*other.rep_) : nullptr) {}

Status& Status::operator=(const Status& other) {
  if (this != &other) rep_ = other.rep_ ? std::make_unique<Rep>(*other.rep_) : nullptr;
  return *this;
}

std::string Status::to_string() const {
  if (!rep_) return "ok";
  std::string out(rep_->message);
  if (rep_->sys_errno != 0) {
    out += ": ";
    out += std::strerror(rep_->sys_errno);
  }
  return out;
}

Status& Status::prepend(std::string_view what) {
  if (rep_) rep_->message = std::string(what) + ": " + rep_->message;
  return *this;
}

Status errno_status(std::string_view what, int err) {
  return Status(err == ENOMEM ? ErrorCode::kNoMemory : ErrorCode::kIo, std::string(what), err);
}

namespace detail {
void assert_fail(const char* cond, const char* file, int line) {
  std::fprintf(stderr, "gpurun: internal error: assertion '%s' failed at %s:%d\n", cond, file,
               line);
  std::abort();
}
}  // namespace detail

}  // namespace gpurun

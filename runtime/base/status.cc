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
    case ErrorCode::kInvalidRoot:
      return "invalid root";
    case ErrorCode::kConversion:
      return "conversion failed";
  }
  return "unknown";
}

Status::Status(ErrorCode code, std::string message, int sys_errno) {
  if (code != ErrorCode::kOk)
    bits_ = reinterpret_cast<std::uintptr_t>(new Rep{code, sys_errno, std::move(message)});
}

Status::Status(const Status& other) {
  bits_ = other.heap() ? reinterpret_cast<std::uintptr_t>(new Rep(*other.rep())) : other.bits_;
}

Status& Status::operator=(const Status& other) {
  if (this != &other) {
    reset();
    bits_ = other.heap() ? reinterpret_cast<std::uintptr_t>(new Rep(*other.rep())) : other.bits_;
  }
  return *this;
}

std::string Status::to_string() const {
  if (ok()) return "ok";
  if (immediate()) return std::string(error_code_name(code()));
  std::string out(rep()->message);
  if (rep()->sys_errno != 0) {
    out += ": ";
    out += std::strerror(rep()->sys_errno);
  }
  return out;
}

Status& Status::prepend(std::string_view what) {
  if (immediate()) {
    ErrorCode c = code();
    bits_ = reinterpret_cast<std::uintptr_t>(new Rep{c, 0, std::string(error_code_name(c))});
  }
  if (heap()) rep()->message = std::string(what) + ": " + rep()->message;
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

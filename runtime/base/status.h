// Status and Result<T>: how every module below api/ reports errors.
//
// A Status is one pointer: null means success, so returning an ok Status costs nothing on the
// hot path. An error carries a code, the errno or library code that caused it (0 if none) and
// a message written where the error was detected. No exceptions cross module boundaries.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

namespace gpurun {

enum class ErrorCode : std::uint8_t {
  kOk,
  kInvalidArgument,  // the caller passed something wrong
  kOutOfRange,       // an index or size beyond what the object holds
  kNotFound,         // a key, peer or object that does not exist
  kAlreadyExists,
  kNoResource,   // flow control: try again later (never logged as an error)
  kInProgress,   // flow control: the operation continues
  kUnsupported,  // valid request that gpurun does not implement
  kTruncated,    // a message longer than the receive buffer
  kNoMemory,
  kIo,  // a system call failed
  kTimeout,
  kPeerFailed,  // a remote process died or went away
  kAborted,
  kInternal,     // an invariant broke
  kInvalidRoot,  // a collective's root that differs between the ranks of a call
  kConversion,   // a data conversion function of the program's failed
};

std::string_view error_code_name(ErrorCode code);

class [[nodiscard]] Status {
 public:
  Status() = default;
  // An error without a message: no allocation, for flow control on hot paths (kNoResource,
  // kInProgress).
  explicit Status(ErrorCode code) : bits_(immediate_bits(code)) {}
  Status(ErrorCode code, std::string message, int sys_errno = 0);
  Status(const Status& other);
  Status& operator=(const Status& other);
  Status(Status&& other) noexcept : bits_(other.bits_) { other.bits_ = 0; }
  Status& operator=(Status&& other) noexcept {
    if (this != &other) {
      reset();
      bits_ = other.bits_;
      other.bits_ = 0;
    }
    return *this;
  }
  ~Status() { reset(); }

  bool ok() const { return bits_ == 0; }
  ErrorCode code() const {
    if (bits_ == 0) return ErrorCode::kOk;
    return immediate() ? static_cast<ErrorCode>(bits_ >> 1) : rep()->code;
  }
  int sys_errno() const { return heap() ? rep()->sys_errno : 0; }
  std::string_view message() const { return heap() ? std::string_view(rep()->message) : ""; }
  // "<code name>: <message>[: <strerror>]", for logs.
  std::string to_string() const;
  // Prepends context: "what: <old message>". Returns *this for chaining.
  Status& prepend(std::string_view what);

 private:
  struct Rep {
    ErrorCode code;
    int sys_errno;
    std::string message;
  };
  // 0: ok; odd: an immediate code (code << 1 | 1); otherwise a Rep* on the heap.
  static std::uintptr_t immediate_bits(ErrorCode code) {
    return code == ErrorCode::kOk ? 0 : (static_cast<std::uintptr_t>(code) << 1) | 1;
  }
  bool immediate() const { return (bits_ & 1) != 0; }
  bool heap() const { return bits_ != 0 && !immediate(); }
  Rep* rep() const { return reinterpret_cast<Rep*>(bits_); }
  void reset() {
    if (heap()) delete rep();
    bits_ = 0;
  }
  std::uintptr_t bits_ = 0;
};

inline Status ok_status() { return Status(); }
// Builds an error from errno after a failed system call: Status(kIo, "what", errno).
Status errno_status(std::string_view what, int err);

template <class T>
class [[nodiscard]] Result {
 public:
  Result(T value) : value_(std::move(value)) {}  // NOLINT(google-explicit-constructor)
  Result(Status status) : status_(std::move(status)) {}  // NOLINT(google-explicit-constructor)

  bool ok() const { return status_.ok(); }
  const Status& status() const& { return status_; }
  Status&& status() && { return std::move(status_); }
  T& value() & { return *value_; }
  const T& value() const& { return *value_; }
  T&& value() && { return std::move(*value_); }
  T* operator->() { return &*value_; }
  const T* operator->() const { return &*value_; }
  T& operator*() & { return *value_; }

 private:
  Status status_;
  std::optional<T> value_;
};

namespace detail {
inline Status take_status(Status&& s) { return std::move(s); }
inline Status take_status(const Status& s) { return s; }
template <class T>
Status take_status(Result<T>&& r) {
  return std::move(r).status();
}
}  // namespace detail

}  // namespace gpurun

#define GPURUN_CONCAT_INNER(a, b) a##b
#define GPURUN_CONCAT(a, b) GPURUN_CONCAT_INNER(a, b)

// Returns the Status of `expr` from the enclosing function when it is an error.
#define GPURUN_TRY(expr)                                              \
  do {                                                                \
    auto&& gpurun_try_result_ = (expr);                               \
    if (!gpurun_try_result_.ok()) [[unlikely]]                        \
      return ::gpurun::detail::take_status(std::move(gpurun_try_result_)); \
  } while (0)

// `lhs = value of expr`, or returns its Status from the enclosing function.
#define GPURUN_ASSIGN_OR_RETURN(lhs, expr) \
  GPURUN_ASSIGN_OR_RETURN_IMPL(GPURUN_CONCAT(gpurun_result_, __LINE__), lhs, expr)
#define GPURUN_ASSIGN_OR_RETURN_IMPL(tmp, lhs, expr) \
  auto tmp = (expr);                                 \
  if (!tmp.ok()) [[unlikely]]                        \
    return std::move(tmp).status();                  \
  lhs = std::move(tmp).value()

// Internal invariants only, never user input.
#define GPURUN_ASSERT(cond)                                                          \
  do {                                                                               \
    if (!(cond)) [[unlikely]]                                                        \
      ::gpurun::detail::assert_fail(#cond, __FILE__, __LINE__);                      \
  } while (0)

namespace gpurun::detail {
[[noreturn]] void assert_fail(const char* cond, const char* file, int line);
}

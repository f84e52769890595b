// Error classes and codes that users add: MPI_Add_error_class, MPI_Add_error_code and
// MPI_Add_error_string (where they lie in the range of codes: api/error_codes.h).
#include "api/error_codes.h"

#include <algorithm>
#include <climits>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "api/checks.h"

namespace gpurun::api {
namespace {

struct Added {
  int error_class;   // the class itself, for a class
  std::string text;  // MPI_Add_error_string; empty until then
};

// The classes and codes added so far: code kFirstAddedCode + i is added_[i]. Locked, because
// MPI_Error_class and MPI_Error_string read it without the library's lock.
class AddedCodes {
 public:
  // Adds a code of `error_class`, or a new class when `error_class` is -1. Returns the new
  // code, or -1 when the range is used up.
  int add(int error_class) {
    std::lock_guard lock(mutex_);
    if (added_.size() > static_cast<std::size_t>(INT_MAX - kFirstAddedCode)) return -1;
    int code = kFirstAddedCode + static_cast<int>(added_.size());
    added_.push_back(Added{error_class < 0 ? code : error_class, {}});
    return code;
  }
  int class_of(int code) const {
    std::lock_guard lock(mutex_);
    const Added* a = find(code);
    return a ? a->error_class : -1;
  }
  bool text(int code, char* out, std::size_t size) const {
    std::lock_guard lock(mutex_);
    const Added* a = find(code);
    if (a == nullptr) return false;
    std::snprintf(out, size, "%s", a->text.c_str());
    return true;
  }
  bool set_text(int code, std::string text) {
    std::lock_guard lock(mutex_);
    Added* a = find(code);
    if (a == nullptr) return false;
    a->text = std::move(text);
    return true;
  }
  int last() const {
    std::lock_guard lock(mutex_);
    return kFirstAddedCode - 1 + static_cast<int>(added_.size());
  }

 private:
  Added* find(int code) {
    if (code < kFirstAddedCode) return nullptr;
    auto i = static_cast<std::size_t>(code - kFirstAddedCode);
    return i < added_.size() ? &added_[i] : nullptr;
  }
  const Added* find(int code) const { return const_cast<AddedCodes*>(this)->find(code); }

  mutable std::mutex mutex_;
  std::vector<Added> added_;
};

AddedCodes& added() {
  static auto* codes = new AddedCodes();
  return *codes;
}

}  // namespace

int added_class_of(int code) { return added().class_of(code); }

bool added_error_string(int code, char* out, std::size_t size) {
  return added().text(code, out, size);
}

int last_used_code() { return added().last(); }

}  // namespace gpurun::api

using namespace gpurun::api;  // NOLINT(google-build-using-namespace): the C API's own layer

extern "C" int PMPI_Add_error_class(int* errorclass) {
  GPURUN_API_ENTER("MPI_Add_error_class");
  GPURUN_CHECK_NOT_NULL(MPI_COMM_NULL, errorclass);
  int made = added().add(-1);
  if (made < 0) {
    return raise(call, MPI_COMM_NULL, MPI_ERR_OTHER,
                 "no error class is left: %d classes and codes were added already",
                 INT_MAX - MPI_ERR_LASTCODE);
  }
  *errorclass = made;
  return MPI_SUCCESS;
}

extern "C" int PMPI_Add_error_code(int errorclass, int* errorcode) {
  GPURUN_API_ENTER("MPI_Add_error_code");
  GPURUN_CHECK_NOT_NULL(MPI_COMM_NULL, errorcode);
  if (errorclass == MPI_SUCCESS) {
    return raise(call, MPI_COMM_NULL, MPI_ERR_ARG,
                 "argument errorclass is MPI_SUCCESS, which is no error class");
  }
  if (!is_error_class(errorclass)) {
    return raise(call, MPI_COMM_NULL, MPI_ERR_ARG,
                 "argument errorclass %d is not an error class (a predefined one, or one that "
                 "MPI_Add_error_class gave)",
                 errorclass);
  }
  int made = added().add(errorclass);
  if (made < 0) {
    return raise(call, MPI_COMM_NULL, MPI_ERR_OTHER,
                 "no error code is left: %d classes and codes were added already",
                 INT_MAX - MPI_ERR_LASTCODE);
  }
  *errorcode = made;
  return MPI_SUCCESS;
}

// A string replaces the one set before. The standard allows MPI_MAX_ERROR_STRING characters,
// but MPI_Error_string has room for one fewer (and the terminating null): the last is cut.
extern "C" int PMPI_Add_error_string(int errorcode, const char* string) {
  GPURUN_API_ENTER("MPI_Add_error_string");
  GPURUN_CHECK_NOT_NULL(MPI_COMM_NULL, string);
  if (errorcode >= 0 && errorcode <= MPI_ERR_LASTCODE) {
    return raise(call, MPI_COMM_NULL, MPI_ERR_ARG,
                 "argument errorcode %d is a predefined error code or class, whose string "
                 "cannot change; only those of MPI_Add_error_class and MPI_Add_error_code can",
                 errorcode);
  }
  std::size_t length = std::strlen(string);
  if (length > MPI_MAX_ERROR_STRING) {
    return raise(call, MPI_COMM_NULL, MPI_ERR_ARG,
                 "argument string is %zu characters long, more than MPI_MAX_ERROR_STRING (%d)",
                 length, MPI_MAX_ERROR_STRING);
  }
  std::string text(string, std::min<std::size_t>(length, MPI_MAX_ERROR_STRING - 1));
  if (!added().set_text(errorcode, std::move(text))) {
    return raise(call, MPI_COMM_NULL, MPI_ERR_ARG,
                 "argument errorcode %d is not an error code (MPI_Add_error_class or "
                 "MPI_Add_error_code give them)",
                 errorcode);
  }
  return MPI_SUCCESS;
}

GPURUN_MPI_ALIAS(MPI_Add_error_class)
GPURUN_MPI_ALIAS(MPI_Add_error_code)
GPURUN_MPI_ALIAS(MPI_Add_error_string)

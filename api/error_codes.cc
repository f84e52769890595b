// Error classes and codes that users add: MPI_Add_error_class, MPI_Add_error_code and
// MPI_Add_error_string (where they lie in the range of codes: api/error_codes.h), and take away
// again: MPI-4.1's MPI_Remove_error_class, MPI_Remove_error_code and MPI_Remove_error_string, also
// under MPICH 4.0's names MPIX_Delete_error_class, _code and _string.
//
// A removed class or code is no error code any more (MPI_Error_class reports MPI_ERR_ARG), and its
// number is never given again: a stale copy of it in the program cannot come to mean another one.
// MPI_LASTUSEDCODE stays the largest number given. As the standard asks, a code goes after its
// string and a class after its codes; a class takes its own string with it.
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
  int error_class;        // the class itself, for a class
  std::string text;       // MPI_Add_error_string; empty until then
  bool has_text = false;  // MPI_Add_error_string was called (and its string not removed)
  bool removed = false;   // MPI_Remove_error_class or MPI_Remove_error_code
};

// Why a removal was refused.
enum class Refusal { kNone, kNotAdded, kNotAClass, kIsAClass, kHasText, kHasCodes, kNoText };

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
    a->has_text = true;
    return true;
  }
  // Removes added class (`want_class`) or code `code`; for a class with codes left, `left` is
  // one of them.
  Refusal remove(int code, bool want_class, int* left) {
    std::lock_guard lock(mutex_);
    Added* a = find(code);
    if (a == nullptr) return Refusal::kNotAdded;
    bool is_class = a->error_class == code;
    if (is_class != want_class) return want_class ? Refusal::kNotAClass : Refusal::kIsAClass;
    if (!want_class && a->has_text) return Refusal::kHasText;
    if (want_class && (*left = a_code_of(code)) >= 0) return Refusal::kHasCodes;
    *a = Added{a->error_class, {}, false, true};
    return Refusal::kNone;
  }
  Refusal remove_text(int code) {
    std::lock_guard lock(mutex_);
    Added* a = find(code);
    if (a == nullptr) return Refusal::kNotAdded;
    if (!a->has_text) return Refusal::kNoText;
    a->text.clear();
    a->has_text = false;
    return Refusal::kNone;
  }
  int last() const {
    std::lock_guard lock(mutex_);
    return kFirstAddedCode - 1 + static_cast<int>(added_.size());
  }

 private:
  Added* find(int code) {
    if (code < kFirstAddedCode) return nullptr;
    auto i = static_cast<std::size_t>(code - kFirstAddedCode);
    return i < added_.size() && !added_[i].removed ? &added_[i] : nullptr;
  }
  // A code of added class `error_class` that is not removed (not the class itself), or -1.
  int a_code_of(int error_class) const {
    for (std::size_t i = 0; i < added_.size(); ++i) {
      int code = kFirstAddedCode + static_cast<int>(i);
      if (!added_[i].removed && added_[i].error_class == error_class && code != error_class) {
        return code;
      }
    }
    return -1;
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

namespace {

// What a refused removal of `code` (argument `arg` of `call`) reports.
int refuse_removal(const Call& call, const char* arg, int code, Refusal why, int left,
                   const char* added_what) {
  if (why == Refusal::kNotAdded && code >= 0 && code <= MPI_ERR_LASTCODE) {
    return raise(call, MPI_COMM_NULL, MPI_ERR_ARG,
                 "argument %s %d is one of MPI's own; only the classes and codes that "
                 "MPI_Add_error_class and MPI_Add_error_code gave can be removed",
                 arg, code);
  }
  switch (why) {
    case Refusal::kNotAClass:
      return raise(call, MPI_COMM_NULL, MPI_ERR_ARG,
                   "argument %s %d is an error code of class %d, not a class (remove it with "
                   "MPI_Remove_error_code)",
                   arg, code, added_class_of(code));
    case Refusal::kIsAClass:
      return raise(call, MPI_COMM_NULL, MPI_ERR_ARG,
                   "argument %s %d is an error class, not a code (remove it with "
                   "MPI_Remove_error_class)",
                   arg, code);
    case Refusal::kHasText:
      return raise(call, MPI_COMM_NULL, MPI_ERR_ARG,
                   "argument %s %d still has a string; remove that first "
                   "(MPI_Remove_error_string)",
                   arg, code);
    case Refusal::kHasCodes:
      return raise(call, MPI_COMM_NULL, MPI_ERR_ARG,
                   "argument %s %d still has error code %d; remove its codes first "
                   "(MPI_Remove_error_code)",
                   arg, code, left);
    case Refusal::kNoText:
      return raise(call, MPI_COMM_NULL, MPI_ERR_ARG,
                   "argument %s %d has no string (MPI_Add_error_string gave it none, or it was "
                   "removed)",
                   arg, code);
    default:
      return raise(call, MPI_COMM_NULL, MPI_ERR_ARG,
                   "argument %s %d is no %s, or it was removed already", arg, code, added_what);
  }
}

int remove_added(const Call& call, int code, bool want_class) {
  int left = -1;
  Refusal why = added().remove(code, want_class, &left);
  if (why == Refusal::kNone) return MPI_SUCCESS;
  return refuse_removal(call, want_class ? "errorclass" : "errorcode", code, why, left,
                        want_class ? "error class that MPI_Add_error_class gave"
                                   : "error code that MPI_Add_error_code gave");
}

int remove_text(const Call& call, int code) {
  Refusal why = added().remove_text(code);
  if (why == Refusal::kNone) return MPI_SUCCESS;
  return refuse_removal(call, "errorcode", code, why, -1,
                        "error class or code that MPI_Add_error_class or MPI_Add_error_code gave");
}

}  // namespace

extern "C" int PMPI_Remove_error_class(int errorclass) {
  GPURUN_API_ENTER("MPI_Remove_error_class");
  return remove_added(call, errorclass, true);
}

extern "C" int PMPI_Remove_error_code(int errorcode) {
  GPURUN_API_ENTER("MPI_Remove_error_code");
  return remove_added(call, errorcode, false);
}

extern "C" int PMPI_Remove_error_string(int errorcode) {
  GPURUN_API_ENTER("MPI_Remove_error_string");
  return remove_text(call, errorcode);
}

extern "C" int PMPIX_Delete_error_class(int errorclass) {
  GPURUN_API_ENTER("MPIX_Delete_error_class");
  return remove_added(call, errorclass, true);
}

extern "C" int PMPIX_Delete_error_code(int errorcode) {
  GPURUN_API_ENTER("MPIX_Delete_error_code");
  return remove_added(call, errorcode, false);
}

extern "C" int PMPIX_Delete_error_string(int errorcode) {
  GPURUN_API_ENTER("MPIX_Delete_error_string");
  return remove_text(call, errorcode);
}

GPURUN_MPI_ALIAS(MPI_Add_error_class)
GPURUN_MPI_ALIAS(MPI_Add_error_code)
GPURUN_MPI_ALIAS(MPI_Add_error_string)
GPURUN_MPI_ALIAS(MPI_Remove_error_class)
GPURUN_MPI_ALIAS(MPI_Remove_error_code)
GPURUN_MPI_ALIAS(MPI_Remove_error_string)
GPURUN_MPI_ALIAS(MPIX_Delete_error_class)
GPURUN_MPI_ALIAS(MPIX_Delete_error_code)
GPURUN_MPI_ALIAS(MPIX_Delete_error_string)

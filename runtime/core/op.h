// Reduction operations: the predefined MPI ops on every type they are defined for, and users'
// ops. Applying an op is `inout[i] = in[i] op inout[i]` for each element, `in` holding the
// operand of the lower rank when the op is not commutative.
//
// THIS FILE IS THE CONTRACT that collectives use; the ops work fills in op.cc (and may add
// members, keeping these).
#pragma once

#include <cstdint>
#include <memory>

#include "runtime/base/status.h"
#include "runtime/core/datatype.h"

namespace gpurun::core {

enum class OpKind : std::uint8_t {
  kMax,
  kMin,
  kSum,
  kProd,
  kLand,
  kBand,
  kLor,
  kBor,
  kLxor,
  kBxor,
  kMinloc,
  kMaxloc,
  kReplace,  // MPI_REPLACE (one-sided; defined as "take in")
  kNoOp,     // MPI_NO_OP
  kUser,
};

// A user's function, applied to `count` elements of `type` (the API layer wraps the
// MPI_User_function and the datatype's handle in `context`).
using UserFn = void (*)(const void* in, void* inout, std::int64_t count, const Datatype& type,
                        void* context);

class Op {
 public:
  // The predefined op of `kind` (never kUser); lives for the whole process.
  static const Op& predefined(OpKind kind);
  static std::unique_ptr<Op> user(UserFn fn, void* context, bool commutative);

  OpKind kind() const { return kind_; }
  bool commutative() const { return commutative_; }
  bool is_predefined() const { return kind_ != OpKind::kUser; }
  // Whether the standard defines this op on `type` (user ops: on every type).
  bool defined_for(const Datatype& type) const;
  // inout[i] = in[i] op inout[i], for `count` elements of `type`. kInvalidArgument when the op
  // is not defined for the type.
  Status apply(const void* in, void* inout, std::int64_t count, const Datatype& type) const;
  // "MPI_SUM", or "user op".
  const char* name() const;

  Op(OpKind kind, bool commutative) : kind_(kind), commutative_(commutative) {}

 private:
  OpKind kind_;
  bool commutative_;
  UserFn user_fn_ = nullptr;
  void* user_context_ = nullptr;
};

}  // namespace gpurun::core

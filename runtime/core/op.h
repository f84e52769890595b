// Reduction operations: the predefined MPI ops on every type they are defined for, and users'
// ops. Applying an op is `inout[i] = in[i] op inout[i]` for each element, `in` holding the
// operand of the lower rank when the op is not commutative.
//
// THIS FILE IS THE CONTRACT that collectives use; the ops work fills in op.cc (and may add
// members, keeping these).
//
// Which types a predefined op takes (MPI-4.0 section 6.9.2, by the type's basic element):
//   MPI_MAX, MPI_MIN        integers, floating point (float16 .. binary128)
//   MPI_SUM, MPI_PROD       integers, floating point, complex
//   MPI_LAND, MPI_LOR,      C integers, logical (MPI_C_BOOL, MPI_CXX_BOOL, MPI_LOGICAL); not the
//   MPI_LXOR                Fortran MPI_INTEGERn types, which the standard leaves out
//   MPI_BAND, MPI_BOR,      integers, MPI_BYTE
//   MPI_BXOR
//   MPI_MINLOC, MPI_MAXLOC  the value-and-index pairs (value first; ties keep the smaller index)
//   MPI_REPLACE, MPI_NO_OP  any type made of one predefined type (one-sided calls only: the API
//                           refuses them in reductions, as the standard does)
// Two extensions that both Open MPI and MPICH make, kept so that their programs run unchanged:
// MPI_CHAR and MPI_CHARACTER reduce as small integers (the standard leaves them out), and the
// logical ops take MPI_AINT, MPI_OFFSET and MPI_COUNT (the standard gives them only the others).
// A derived type reduces element-wise when it is made of one basic type (a vector of MPI_INT);
// a type mixing basic types is not defined for any predefined op. Integer arithmetic wraps
// (two's complement) instead of overflowing; MPI_LAND and friends write 1 or 0.
//
// Thread-safety: the predefined ops are immutable and may be applied from any thread at once.
// A user op is immutable after creation; whether its function is thread-safe is the user's
// business.
#pragma once

#include <atomic>
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

inline constexpr int kPredefinedOpCount = static_cast<int>(OpKind::kUser);

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
  // Every predefined op is commutative except MPI_REPLACE and MPI_NO_OP.
  bool commutative() const { return commutative_; }
  bool is_predefined() const { return kind_ != OpKind::kUser; }
  // Whether the standard defines this op on `type` (user ops: on every type).
  bool defined_for(const Datatype& type) const;
  // Ok when the op is defined for `type`; otherwise kInvalidArgument with a message that names
  // the op and the type and says which types the op takes.
  Status check(const Datatype& type) const;
  // inout[i] = in[i] op inout[i], for `count` elements of `type`. kInvalidArgument when the op
  // is not defined for the type. Contiguous data is reduced in place by one vectorised loop;
  // other layouts are packed through a bounded scratch buffer (allocated per call). `in` and
  // `inout` must not overlap (unless they are the same buffer). Does not block.
  Status apply(const void* in, void* inout, std::int64_t count, const Datatype& type) const;
  // The loop apply() ends in on packed data of `type` (its elements one after the other), for
  // callers that apply the op on the same type many times: inout = in op inout over `n` basic
  // elements, `per_item` of them in one item of `type`, both addresses multiples of
  // `alignment`. Set only where apply() would run that loop for every count: a predefined op
  // defined on `type`, contiguous and not empty; otherwise `loop` is null.
  struct PackedLoop {
    void (*loop)(const void* in, void* inout, std::int64_t n) = nullptr;
    std::int64_t per_item = 1;
    std::int64_t alignment = 1;
    // out = a op b over `n` basic elements, the three addresses multiples of `alignment`:
    // one pass where a copy of b and `loop` would take two. Null for the pair types and
    // half precision (copy, then `loop`).
    void (*combine)(const void* a, const void* b, void* out, std::int64_t n) = nullptr;
  };
  PackedLoop packed_loop(const Datatype& type) const;
  // "MPI_SUM", or "user op".
  const char* name() const;

  // References held by operations in flight (a nonblocking or persistent collective), so that
  // MPI_Op_free can tell whether a user op is still in use and keep it until it is not.
  // Predefined ops need none (they live for the whole process). Atomic.
  void retain() const { users_.fetch_add(1, std::memory_order_relaxed); }
  void release() const { users_.fetch_sub(1, std::memory_order_acq_rel); }
  bool in_use() const { return users_.load(std::memory_order_acquire) > 0; }

  // The user op's function and context (null for predefined ops).
  UserFn user_fn() const { return user_fn_; }
  void* user_context() const { return user_context_; }

  constexpr Op(OpKind kind, bool commutative) : kind_(kind), commutative_(commutative) {}
  Op(const Op&) = delete;
  Op& operator=(const Op&) = delete;

 private:
  Status apply_strided(const void* in, void* inout, std::int64_t count, const Datatype& type) const;
  Status replace(const void* in, void* inout, std::int64_t count, const Datatype& type) const;

  OpKind kind_;
  bool commutative_;
  UserFn user_fn_ = nullptr;
  void* user_context_ = nullptr;
  mutable std::atomic<std::int32_t> users_{0};
};

}  // namespace gpurun::core

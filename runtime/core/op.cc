// Applying ops to typed buffers: which (op, type) pairs are defined, and the three ways data is
// reached: one contiguous block (the kernel runs on the user's memory), the predefined pair
// types in their padded C layout (a kernel that knows the padding), and any other layout
// (packed through a small scratch buffer, reduced there, unpacked back).
#include "runtime/core/op.h"

#include <algorithm>
#include <cstring>
#include <new>
#include <string>

#include "runtime/core/op_kernels.h"

namespace gpurun::core {
namespace {

// Scratch per operand for layouts that are not one block: small enough to stay in L1/L2 while
// it is packed, reduced and unpacked.
constexpr std::int64_t kScratchBytes = std::int64_t{16} << 10;

constexpr const char* kNames[] = {
    "MPI_MAX", "MPI_MIN",  "MPI_SUM",  "MPI_PROD",   "MPI_LAND",   "MPI_BAND",    "MPI_LOR",
    "MPI_BOR", "MPI_LXOR", "MPI_BXOR", "MPI_MINLOC", "MPI_MAXLOC", "MPI_REPLACE", "MPI_NO_OP",
};
static_assert(std::size(kNames) == kPredefinedOpCount);

// What each predefined op takes, for error messages.
const char* takes(OpKind kind) {
  switch (kind) {
    case OpKind::kMax:
    case OpKind::kMin:
      return "integer and floating-point types";
    case OpKind::kSum:
    case OpKind::kProd:
      return "integer, floating-point and complex types";
    case OpKind::kLand:
    case OpKind::kLor:
    case OpKind::kLxor:
      return "C integer types and the logical types MPI_C_BOOL, MPI_CXX_BOOL, MPI_LOGICAL";
    case OpKind::kBand:
    case OpKind::kBor:
    case OpKind::kBxor:
      return "integer types and MPI_BYTE";
    case OpKind::kMinloc:
    case OpKind::kMaxloc:
      return "the value-and-index pair types (MPI_2INT, MPI_FLOAT_INT, MPI_DOUBLE_INT, "
             "MPI_LONG_INT, MPI_SHORT_INT, MPI_LONG_DOUBLE_INT, MPI_2REAL, ...)";
    default:
      return "types made of one predefined type";
  }
}

bool is_logical(OpKind kind) {
  return kind == OpKind::kLand || kind == OpKind::kLor || kind == OpKind::kLxor;
}

bool is_integer(BasicType basic) {
  return basic >= BasicType::kInt8 && basic <= BasicType::kUint64;
}

// The Fortran INTEGER types share their representation (BasicType) with C's, but the standard
// leaves them out of the logical ops; the predefined types are told apart by their names.
bool has_fortran_integer(const Datatype& type) {
  if (type.predefined()) return type.name().starts_with("MPI_INTEGER");
  for (const DatatypeRef& child : type.children())
    if (has_fortran_integer(*child)) return true;
  return false;
}

// "MPI_WCHAR", "a derived datatype of MPI_INT", "the derived datatype "halo" mixing basic types".
std::string describe(const Datatype& type) {
  if (type.predefined()) return type.name();
  std::string what =
      type.name().empty() ? "a derived datatype" : "the derived datatype \"" + type.name() + "\"";
  if (type.basic() == BasicType::kNone) return what + " mixing basic types";
  const Datatype* leaf = &type;
  while (!leaf->predefined() && !leaf->children().empty()) leaf = leaf->children()[0].get();
  return leaf->predefined() ? what + " of " + leaf->name() : what;
}

bool aligned(std::uintptr_t a, std::uintptr_t b, std::int64_t alignment) {
  return ((a | b) & static_cast<std::uintptr_t>(alignment - 1)) == 0;
}

std::uintptr_t address(const void* buf, std::int64_t offset) {
  return reinterpret_cast<std::uintptr_t>(buf) + static_cast<std::uintptr_t>(offset);
}

// Scratch for one or two operands of up to `chunk` bytes each (default-initialised: no zeroing).
std::unique_ptr<std::byte[]> scratch(std::int64_t bytes) {
  return std::unique_ptr<std::byte[]>(new (std::nothrow) std::byte[bytes]);
}

Status no_memory(std::int64_t bytes) {
  return Status(ErrorCode::kNoMemory,
                "cannot allocate " + std::to_string(bytes) + " bytes of reduction scratch");
}

}  // namespace

const Op& Op::predefined(OpKind kind) {
  // Constant-initialized: no guard at each call (MPI_Accumulate asks at every call).
  static constinit const Op ops[kPredefinedOpCount] = {
      {OpKind::kMax, true},      {OpKind::kMin, true},    {OpKind::kSum, true},
      {OpKind::kProd, true},     {OpKind::kLand, true},   {OpKind::kBand, true},
      {OpKind::kLor, true},      {OpKind::kBor, true},    {OpKind::kLxor, true},
      {OpKind::kBxor, true},     {OpKind::kMinloc, true}, {OpKind::kMaxloc, true},
      {OpKind::kReplace, false}, {OpKind::kNoOp, false},
  };
  GPURUN_ASSERT(kind != OpKind::kUser);
  return ops[static_cast<int>(kind)];
}

std::unique_ptr<Op> Op::user(UserFn fn, void* context, bool commutative) {
  std::unique_ptr<Op> op(new Op(OpKind::kUser, commutative));
  op->user_fn_ = fn;
  op->user_context_ = context;
  return op;
}

const char* Op::name() const {
  return is_predefined() ? kNames[static_cast<int>(kind_)] : "user op";
}

bool Op::defined_for(const Datatype& type) const {
  if (kind_ == OpKind::kUser) return true;
  BasicType basic = type.basic();
  if (basic == BasicType::kNone) return false;
  if (kind_ == OpKind::kReplace || kind_ == OpKind::kNoOp) return true;
  if (packed_kernel(kind_, basic).loop == nullptr) return false;
  return !(is_logical(kind_) && is_integer(basic) && has_fortran_integer(type));
}

Status Op::check(const Datatype& type) const {
  if (defined_for(type)) return ok_status();
  std::string text = std::string(name()) + " is not defined for " + describe(type);
  if (type.basic() == BasicType::kNone) {
    text += ": predefined ops apply only to types made of one predefined type";
  } else if (is_logical(kind_) && is_integer(type.basic())) {
    text +=
        ": the standard defines the logical ops on C integers and logical types, not on "
        "Fortran INTEGER (use MPI_INT or MPI_LOGICAL)";
  } else {
    text += std::string(": it takes ") + takes(kind_);
  }
  return Status(ErrorCode::kInvalidArgument, std::move(text));
}

Status Op::apply(const void* in, void* inout, std::int64_t count, const Datatype& type) const {
  switch (kind_) {  // once per call, never per element
    case OpKind::kUser:
      if (count > 0) user_fn_(in, inout, count, type, user_context_);
      return ok_status();
    case OpKind::kNoOp:
      return check(type);
    case OpKind::kReplace:
      return replace(in, inout, count, type);
    default:
      break;
  }
  BasicType basic = type.basic();
  const Kernel& kernel = packed_kernel(kind_, basic);
  if (kernel.loop == nullptr ||
      (is_logical(kind_) && is_integer(basic) && has_fortran_integer(type))) [[unlikely]]
    return check(type);
  if (count <= 0 || type.size() == 0) return ok_status();
  std::uintptr_t a = address(in, type.true_lb());
  std::uintptr_t b = address(inout, type.true_lb());
  if (type.contiguous() && aligned(a, b, kernel.alignment)) [[likely]] {
    // Predefined types are one element each: no division on the common path.
    std::int64_t n = type.size() == kernel.unit ? count : count * (type.size() / kernel.unit);
    kernel.loop(reinterpret_cast<const void*>(a), reinterpret_cast<void*>(b), n);
    return ok_status();
  }
  return apply_strided(in, inout, count, type);
}

Op::PackedLoop Op::packed_loop(const Datatype& type) const {
  if (kind_ == OpKind::kUser || kind_ == OpKind::kNoOp || kind_ == OpKind::kReplace) return {};
  const Kernel& kernel = packed_kernel(kind_, type.basic());
  if (kernel.loop == nullptr || !type.contiguous() || type.size() == 0 ||
      type.size() % kernel.unit != 0 || !defined_for(type))
    return {};
  return PackedLoop{kernel.loop, type.size() / kernel.unit, kernel.alignment, kernel.combine};
}

Status Op::apply_strided(const void* in, void* inout, std::int64_t count,
                         const Datatype& type) const {
  BasicType basic = type.basic();
  const Kernel& pairs = struct_kernel(kind_, basic);
  if (type.predefined() && pairs.loop != nullptr && type.extent() == pairs.unit &&
      aligned(address(in, 0), address(inout, 0), pairs.alignment)) {
    pairs.loop(in, inout, count);
    return ok_status();
  }
  const Kernel& kernel = packed_kernel(kind_, basic);
  const std::int64_t unit = kernel.unit;
  const std::int64_t total = count * type.size();
  const std::int64_t chunk =
      std::min(total, std::max<std::int64_t>(1, kScratchBytes / unit) * unit);
  std::unique_ptr<std::byte[]> buffer = scratch(2 * chunk);
  if (!buffer) return no_memory(2 * chunk);
  std::byte* a = buffer.get();
  std::byte* b = a + chunk;  // chunk is a multiple of the element size, hence of its alignment
  for (std::int64_t offset = 0; offset < total; offset += chunk) {
    auto length = static_cast<std::size_t>(std::min(chunk, total - offset));
    auto at = static_cast<std::size_t>(offset);
    type.pack(in, count, at, a, length);
    type.pack(inout, count, at, b, length);
    kernel.loop(a, b, static_cast<std::int64_t>(length) / unit);
    type.unpack(inout, count, at, b, length);
  }
  return ok_status();
}

Status Op::replace(const void* in, void* inout, std::int64_t count, const Datatype& type) const {
  if (type.basic() == BasicType::kNone) return check(type);
  if (count <= 0 || type.size() == 0 || in == inout) return ok_status();
  const std::int64_t total = count * type.size();
  if (type.contiguous()) {
    std::memmove(reinterpret_cast<void*>(address(inout, type.true_lb())),
                 reinterpret_cast<const void*>(address(in, type.true_lb())),
                 static_cast<std::size_t>(total));
    return ok_status();
  }
  const std::int64_t chunk = std::min(total, kScratchBytes);
  std::unique_ptr<std::byte[]> buffer = scratch(chunk);
  if (!buffer) return no_memory(chunk);
  for (std::int64_t offset = 0; offset < total; offset += chunk) {
    auto length = static_cast<std::size_t>(std::min(chunk, total - offset));
    type.pack(in, count, static_cast<std::size_t>(offset), buffer.get(), length);
    type.unpack(inout, count, static_cast<std::size_t>(offset), buffer.get(), length);
  }
  return ok_status();
}

}  // namespace gpurun::core

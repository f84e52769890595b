#include "api/device_local.h"

#include <algorithm>
#include <memory>
#include <new>
#include <optional>
#include <string>

namespace gpurun::api::local {
namespace {

// The bytes that `count` elements of a type touch, relative to the buffer's address.
struct Span {
  std::int64_t lo = 0;
  std::int64_t size = 0;
};

Span span_of(std::int64_t count, const core::Datatype& type) {
  if (count <= 0 || type.size() == 0) return {};
  std::int64_t stretch = (count - 1) * type.extent();
  std::int64_t lo = type.true_lb() + std::min<std::int64_t>(0, stretch);
  std::int64_t hi = type.true_lb() + type.true_extent() + std::max<std::int64_t>(0, stretch);
  return {lo, hi - lo};
}

// Address arithmetic on user pointers (which may point outside what they are based on: absolute
// displacements, negative lower bounds).
void* offset_of(const void* base, std::int64_t offset) {
  return reinterpret_cast<void*>(reinterpret_cast<std::uintptr_t>(base) +
                                 static_cast<std::uintptr_t>(offset));
}

// A user buffer, the bytes of it that the call touches, and the memory of the first of them.
struct Operand {
  void* base = nullptr;
  Span span;
  accel::MemoryInfo memory;

  bool device() const { return !accel::is_host(memory.kind); }
};

Operand operand_of(accel::Accelerator& a, const void* base, Span span) {
  Operand o{const_cast<void*>(base), span, {}};
  if (span.size > 0) o.memory = a.query(offset_of(base, span.lo));
  return o;
}

bool on_device(accel::Accelerator& a, const void* p) { return !accel::is_host(a.query(p).kind); }

// Host memory that stands for the touched bytes of a device operand. Its first byte has the
// alignment of the device's first byte modulo kAlign, so the host code sees the elements as
// aligned as they are on the device.
class HostCopy {
 public:
  static constexpr std::size_t kAlign = 64;

  // The copy of `o`, with its bytes copied in when `fill`.
  static Result<HostCopy> of(accel::Accelerator& a, const Operand& o, bool fill) {
    HostCopy c;
    c.operand_ = o;
    auto size = static_cast<std::size_t>(o.span.size);
    c.block_.reset(new (std::nothrow) std::byte[size + kAlign]);
    if (!c.block_)
      return Status(ErrorCode::kNoMemory,
                    "no host memory to stage " + std::to_string(size) + " bytes of device memory");
    std::uintptr_t first = reinterpret_cast<std::uintptr_t>(offset_of(o.base, o.span.lo));
    std::uintptr_t block = reinterpret_cast<std::uintptr_t>(c.block_.get());
    c.data_ = c.block_.get() + ((first - block) & (kAlign - 1));
    if (fill) GPURUN_TRY(a.copy(c.data_, offset_of(o.base, o.span.lo), size));
    return c;
  }

  // The pointer the host code uses in place of the operand's base pointer.
  void* host() const { return offset_of(data_, -operand_.span.lo); }

  // Copies the touched bytes back to the device operand.
  Status write_back(accel::Accelerator& a) const {
    return a.copy(offset_of(operand_.base, operand_.span.lo), data_,
                  static_cast<std::size_t>(operand_.span.size));
  }

 private:
  std::unique_ptr<std::byte[]> block_;
  std::byte* data_ = nullptr;
  Operand operand_;
};

// Host pointers for the operands: the operand itself when it is host memory, else a copy.
Result<void*> host_view(accel::Accelerator& a, const Operand& o, bool fill,
                        std::optional<HostCopy>& copy) {
  if (!o.device()) return o.base;
  GPURUN_ASSIGN_OR_RETURN(copy, HostCopy::of(a, o, fill));
  return copy->host();
}

Result<Path> reduce_staged(accel::Accelerator& a, const Reduce& args, const Operand& in,
                           const Operand& inout) {
  std::optional<HostCopy> in_copy, inout_copy;
  GPURUN_ASSIGN_OR_RETURN(void* host_in, host_view(a, in, true, in_copy));
  // Copied in whole: the op reads it, and writing the span back keeps the gaps of the type.
  GPURUN_ASSIGN_OR_RETURN(void* host_inout, host_view(a, inout, true, inout_copy));
  GPURUN_TRY(args.op->apply(host_in, host_inout, args.count, *args.type));
  if (inout_copy) GPURUN_TRY(inout_copy->write_back(a));
  return Path::kStaged;
}

Result<Path> move_staged(accel::Accelerator& a, const Move& args, const Operand& typed,
                         const Operand& packed, bool pack) {
  std::optional<HostCopy> typed_copy, packed_copy;
  // The typed side is always copied in: pack reads it, and unpack writes only the type's bytes
  // of the span (the gaps go back as they were).
  GPURUN_ASSIGN_OR_RETURN(void* host_typed, host_view(a, typed, true, typed_copy));
  GPURUN_ASSIGN_OR_RETURN(void* host_packed, host_view(a, packed, !pack, packed_copy));
  auto bytes = static_cast<std::size_t>(packed.span.size);
  if (pack) {
    args.type->pack(host_typed, args.count, 0, host_packed, bytes);
    if (packed_copy) GPURUN_TRY(packed_copy->write_back(a));
  } else {
    args.type->unpack(host_typed, args.count, 0, host_packed, bytes);
    if (typed_copy) GPURUN_TRY(typed_copy->write_back(a));
  }
  return Path::kStaged;
}

Result<Path> move(accel::Accelerator& a, const Move& args, bool pack) {
  const core::Datatype& type = *args.type;
  Operand typed = operand_of(a, args.typed, span_of(args.count, type));
  Operand packed =
      operand_of(a, args.packed, Span{0, std::max<std::int64_t>(0, args.count) * type.size()});
  if (packed.span.size == 0) return Path::kHost;
  if (!typed.device() && !packed.device()) {
    auto bytes = static_cast<std::size_t>(packed.span.size);
    if (pack)
      type.pack(args.typed, args.count, 0, args.packed, bytes);
    else
      type.unpack(args.typed, args.count, 0, args.packed, bytes);
    return Path::kHost;
  }
  // The device kernels take a typed buffer on the device (its base pointer too) and packed
  // memory of the host or of the same device.
  bool native = typed.device() && on_device(a, args.typed) &&
                (!packed.device() || packed.memory.device == typed.memory.device);
  if (native) {
    accel::DevicePack d{
        .type = &type, .typed = args.typed, .count = args.count, .packed = args.packed};
    Status st = pack ? a.pack(d) : a.unpack(d);
    if (st.ok()) return Path::kNative;
    if (st.code() != ErrorCode::kUnsupported) return st;
  }
  return move_staged(a, args, typed, packed, pack);
}

}  // namespace

Result<Path> reduce(accel::Accelerator& a, const Reduce& args) {
  Span span = span_of(args.count, *args.type);
  Operand in = operand_of(a, args.in, span);
  Operand inout = operand_of(a, args.inout, span);
  if (!in.device() && !inout.device()) {
    GPURUN_TRY(args.op->apply(args.in, args.inout, args.count, *args.type));
    return Path::kHost;
  }
  if (in.device() && inout.device() && in.memory.device == inout.memory.device &&
      a.check_reduce(*args.op, *args.type).ok()) {
    Status st = a.reduce(accel::DeviceReduce{
        .op = args.op, .type = args.type, .in = args.in, .inout = args.inout, .count = args.count});
    if (st.ok()) return Path::kNative;
    // kUnsupported comes before any device work (a driver too old for the kernels).
    if (st.code() != ErrorCode::kUnsupported) return st;
  }
  return reduce_staged(a, args, in, inout);
}

Result<Path> pack(accel::Accelerator& a, const Move& args) { return move(a, args, true); }

Result<Path> unpack(accel::Accelerator& a, const Move& args) { return move(a, args, false); }

}  // namespace gpurun::api::local

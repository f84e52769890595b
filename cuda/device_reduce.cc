// reduce_on_device of device.h: contiguous data and the predefined pair types in their C
// layout are reduced in place by one kernel; other layouts are packed into device scratch
// (both operands), reduced there and unpacked, all on one stream.
#include <algorithm>
#include <optional>
#include <string>

#include "cuda/device.h"
#include "cuda/device_work.h"
#include "cuda/kernels/launch.h"

namespace gpurun::cuda {
namespace {

using core::BasicType;
using core::OpKind;
using kernels::DeviceOp;
using kernels::DeviceType;

static_assert(static_cast<int>(OpKind::kMax) == static_cast<int>(DeviceOp::kMax));
static_assert(static_cast<int>(OpKind::kMaxloc) == static_cast<int>(DeviceOp::kMaxloc));

struct DeviceElement {
  DeviceType type;
  std::int64_t index_at = 0;  // pairs: where the index sits in the C struct
};

// The pair types, with the index offset of their C struct (struct { V value; I index; }).
std::optional<DeviceElement> pair_element(BasicType basic) {
  switch (basic) {
    case BasicType::kFloatInt:
      return DeviceElement{DeviceType::kFloatInt, 4};
    case BasicType::kDoubleInt:
      return DeviceElement{DeviceType::kDoubleInt, 8};
    case BasicType::kLongInt:
      return DeviceElement{DeviceType::kLongInt, 8};
    case BasicType::kShortInt:
      return DeviceElement{DeviceType::kShortInt, 4};
    case BasicType::kTwoInt:
      return DeviceElement{DeviceType::kTwoInt, 4};
    case BasicType::kTwoFloat:
      return DeviceElement{DeviceType::kTwoFloat, 4};
    case BasicType::kTwoDouble:
      return DeviceElement{DeviceType::kTwoDouble, 8};
    default:
      return std::nullopt;
  }
}

// The device representation of a basic type; none for long double and binary128 (and their
// complex and pair types), which have no device arithmetic.
std::optional<DeviceElement> device_element(BasicType basic) {
  switch (basic) {
    case BasicType::kInt8:
    case BasicType::kChar:
      return DeviceElement{DeviceType::kInt8};
    case BasicType::kUint8:
      return DeviceElement{DeviceType::kUint8};
    case BasicType::kInt16:
      return DeviceElement{DeviceType::kInt16};
    case BasicType::kUint16:
      return DeviceElement{DeviceType::kUint16};
    case BasicType::kInt32:
      return DeviceElement{DeviceType::kInt32};
    case BasicType::kUint32:
      return DeviceElement{DeviceType::kUint32};
    case BasicType::kInt64:
      return DeviceElement{DeviceType::kInt64};
    case BasicType::kUint64:
      return DeviceElement{DeviceType::kUint64};
    case BasicType::kFloat:
      return DeviceElement{DeviceType::kFloat};
    case BasicType::kDouble:
      return DeviceElement{DeviceType::kDouble};
    case BasicType::kFloat16:
      return DeviceElement{DeviceType::kHalf};
    case BasicType::kBfloat16:
      return DeviceElement{DeviceType::kBfloat16};
    case BasicType::kFloatComplex:
      return DeviceElement{DeviceType::kFloatComplex};
    case BasicType::kDoubleComplex:
      return DeviceElement{DeviceType::kDoubleComplex};
    case BasicType::kBool:
      return DeviceElement{DeviceType::kBool};
    case BasicType::kLogical:
      return DeviceElement{DeviceType::kLogical32};
    case BasicType::kByte:
      return DeviceElement{DeviceType::kByte};
    default:
      break;
  }
  return pair_element(basic);
}

std::string no_device_text(const core::Datatype& type) {
  std::string name = type.predefined() ? type.name() : "this datatype";
  return name +
         " has no device arithmetic (long double and binary128 types): reduce it on "
         "the host, staging device buffers through host memory";
}

// The kernel launch for elements laid out one after the other (`stride` 0) or for the pair
// types in their C layout.
Status launch(const Work& work, DeviceOp op, const kernels::ReduceLaunch& base) {
  kernels::ReduceLaunch r = base;
  r.op = op;
  r.stream = work.stream;
  if (int rc = kernels::launch_reduce(r); rc != 0) {
    if (rc < 0) return Status(ErrorCode::kInternal, "no reduction kernel for this op and type");
    return Status(ErrorCode::kIo, std::string("reduction kernel launch: ") +
                                      kernels::error_name(rc) + ": " + kernels::error_string(rc));
  }
  return ok_status();
}

// Non-contiguous layouts: both operands packed into scratch, reduced there, unpacked back.
Status reduce_strided(const Work& work, const ReduceArgs& a, DeviceType element) {
  const core::Datatype& type = *a.type;
  std::int64_t total = a.count * type.size();
  GPURUN_ASSIGN_OR_RETURN(Scratch scratch,
                          Scratch::make(work, static_cast<std::size_t>(2 * total)));
  std::uintptr_t x = scratch.address();
  std::uintptr_t y = x + static_cast<std::uintptr_t>(total);
  auto in = reinterpret_cast<std::uintptr_t>(a.in);
  auto inout = reinterpret_cast<std::uintptr_t>(a.inout);
  GPURUN_TRY(move_window(work, type, true, in, x, 0, total));
  if (a.op->kind() == OpKind::kReplace) return move_window(work, type, false, inout, x, 0, total);
  GPURUN_TRY(move_window(work, type, true, inout, y, 0, total));
  kernels::ReduceLaunch r{.type = element,
                          .in = reinterpret_cast<const void*>(x),
                          .inout = reinterpret_cast<void*>(y),
                          .count = total / kernels::type_size(element)};
  GPURUN_TRY(launch(work, static_cast<DeviceOp>(a.op->kind()), r));
  return move_window(work, type, false, inout, y, 0, total);
}

Status reduce_in_place(const Work& work, const ReduceArgs& a, const DeviceElement& element) {
  const core::Datatype& type = *a.type;
  auto shift = [&](const void* p) {
    return reinterpret_cast<std::uintptr_t>(p) + static_cast<std::uintptr_t>(type.true_lb());
  };
  if (a.op->kind() == OpKind::kReplace) {
    if (a.in == a.inout) return ok_status();
    std::size_t bytes = static_cast<std::size_t>(a.count * type.size());
    if (CUresult rc = work.api().memcpy_async(shift(a.inout), shift(a.in), bytes, work.stream);
        rc != CUDA_SUCCESS)
      return driver_error(work.api(), "cuMemcpyAsync for MPI_REPLACE", rc);
    return ok_status();
  }
  std::int64_t unit = kernels::type_size(element.type);
  kernels::ReduceLaunch r{.type = element.type,
                          .in = reinterpret_cast<const void*>(shift(a.in)),
                          .inout = reinterpret_cast<void*>(shift(a.inout)),
                          .count = type.size() == unit ? a.count : a.count * (type.size() / unit)};
  return launch(work, static_cast<DeviceOp>(a.op->kind()), r);
}

// The kernels load whole elements: both operands must start on a multiple of the element's size
// (16 bytes at most), as every allocation and array of the type does. Others (doubles from byte
// 4 of a buffer) would fault on the device: they go through aligned scratch.
bool elements_aligned(const ReduceArgs& a, const DeviceElement& element) {
  auto align =
      static_cast<std::uintptr_t>(std::min<std::int64_t>(kernels::type_size(element.type), 16));
  auto lb = static_cast<std::uintptr_t>(a.type->true_lb());
  std::uintptr_t in = reinterpret_cast<std::uintptr_t>(a.in) + lb;
  std::uintptr_t inout = reinterpret_cast<std::uintptr_t>(a.inout) + lb;
  return align <= 1 || (in | inout) % align == 0;
}

// The predefined pair types whose C struct has padding (MPI_DOUBLE_INT, MPI_SHORT_INT, ...):
// one kernel over the structs, `extent` bytes apart.
bool struct_pairs(const core::Datatype& type, const DeviceElement& element) {
  return type.predefined() && core::is_pair(type.basic()) && !type.contiguous() &&
         element.index_at != 0;
}

}  // namespace

Status check_reduce(const core::Op& op, const core::Datatype& type) {
  if (op.kind() == OpKind::kUser)
    return Status(ErrorCode::kUnsupported,
                  "user-defined ops run on the host: stage device buffers through host memory");
  GPURUN_TRY(op.check(type));
  if (op.kind() == OpKind::kNoOp || op.kind() == OpKind::kReplace) return ok_status();
  std::optional<DeviceElement> element = device_element(type.basic());
  if (!element) return Status(ErrorCode::kUnsupported, no_device_text(type));
  if (!kernels::reduce_available(static_cast<DeviceOp>(op.kind()), element->type))
    return Status(ErrorCode::kUnsupported,
                  std::string("no device kernel for ") + op.name() + " on " + type.name());
  return ok_status();
}

Status reduce_on_device(const ReduceArgs& a) {
  if (a.op == nullptr || a.type == nullptr || !a.type->committed())
    return Status(ErrorCode::kInvalidArgument,
                  "a device reduction needs an op and a committed datatype");
  GPURUN_TRY(check_reduce(*a.op, *a.type));
  if (a.count <= 0 || a.type->size() == 0 || a.op->kind() == OpKind::kNoOp) return ok_status();
  GPURUN_TRY(device_work_status());
  State& state = *State::get();
  // The data begins at address + true_lb, which may lie before the allocation (scratch laid
  // out like a user buffer): classify the data.
  const std::int64_t lb = a.type->true_lb();
  PointerInfo inout = state.memory().classify(static_cast<const std::byte*>(a.inout) + lb);
  PointerInfo in = state.memory().classify(static_cast<const std::byte*>(a.in) + lb);
  if (!on_device(inout) || !on_device(in))
    return Status(ErrorCode::kInvalidArgument,
                  std::string("a device reduction needs device buffers, but ") +
                      (on_device(in) ? "inout" : "in") +
                      " is host memory; core::Op::apply reduces host buffers");
  GPURUN_ASSIGN_OR_RETURN(Work work, begin_work(state, inout.device, a.stream));
  ScopedContext scope(work.api(), work.context);
  GPURUN_TRY(scope.status());
  std::optional<DeviceElement> element = device_element(a.type->basic());
  if (!element) {  // MPI_REPLACE on a type without device arithmetic: only bytes move
    element = DeviceElement{DeviceType::kByte};
  }
  if (a.type->contiguous() && elements_aligned(a, *element)) {
    GPURUN_TRY(reduce_in_place(work, a, *element));
  } else if (struct_pairs(*a.type, *element) && a.op->kind() != OpKind::kReplace) {
    kernels::ReduceLaunch r{.type = element->type,
                            .in = a.in,
                            .inout = a.inout,
                            .count = a.count,
                            .stride = a.type->extent(),
                            .index_at = element->index_at};
    GPURUN_TRY(launch(work, static_cast<DeviceOp>(a.op->kind()), r));
  } else {
    GPURUN_TRY(reduce_strided(work, a, element->type));
  }
  return finish_work(work);
}

}  // namespace gpurun::cuda

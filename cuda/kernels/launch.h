// The interface between the host code of the cuda module and its kernels (reduce.cu,
// pack.cu): plain structs and functions, so that the .cu files need no project header (nvcc
// compiles them as C++17) and the host code needs no CUDA runtime header. Launches are
// asynchronous on the given stream; the caller has made the stream's context current.
#pragma once

#include <cstdint>

struct CUstream_st;

#if defined(__CUDACC__)
#define GPURUN_HOST_DEVICE __host__ __device__
#else
#define GPURUN_HOST_DEVICE
#endif

namespace gpurun::cuda::kernels {

// The predefined reduction ops, in core::OpKind's order.
enum class DeviceOp : std::uint8_t {
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
  kCount,
};

// Element representations the device kernels handle.
enum class DeviceType : std::uint8_t {
  kInt8,
  kUint8,
  kInt16,
  kUint16,
  kInt32,
  kUint32,
  kInt64,
  kUint64,
  kFloat,
  kDouble,
  kHalf,      // IEEE binary16, computed in float and rounded once
  kBfloat16,  // bfloat16, computed in float and rounded once
  kFloatComplex,
  kDoubleComplex,
  kBool,       // 1-byte logical
  kLogical32,  // 4-byte logical (Fortran LOGICAL)
  kByte,       // bit operations only
  kFloatInt,   // value-and-index pairs
  kDoubleInt,
  kLongInt,
  kShortInt,
  kTwoInt,
  kTwoFloat,
  kTwoDouble,
  kCount,
};

struct ReduceLaunch {
  DeviceOp op = DeviceOp::kSum;
  DeviceType type = DeviceType::kInt32;
  const void* in = nullptr;
  void* inout = nullptr;
  std::int64_t count = 0;   // elements (pairs: pairs)
  std::int64_t stride = 0;  // pairs only: bytes from one pair to the next; 0 means packed
  std::int64_t index_at = 0;  // pairs only: offset of the index within a pair; 0 means packed
  CUstream_st* stream = nullptr;
};

// inout[i] = in[i] op inout[i]. Returns 0 (cudaSuccess), the launch's cudaError_t, or -1 when
// no kernel exists for (op, type).
int launch_reduce(const ReduceLaunch& launch);
// Whether a kernel exists for (op, type): exactly the pairs the standard defines.
bool reduce_available(DeviceOp op, DeviceType type);
// Bytes of one element of `type` in the packed layout.
int type_size(DeviceType type);

// One contiguous block of a datatype's element: `bytes` bytes at `disp` from the element's
// origin, starting at `start` in the element's packed stream.
struct Run {
  std::int64_t disp;
  std::int64_t start;
  std::int64_t bytes;
};

struct PackLaunch {
  bool pack = true;            // typed -> packed (else packed -> typed)
  const Run* runs = nullptr;   // device memory: the runs of one element
  std::int64_t runs_per_element = 0;
  std::int64_t size = 0;       // packed bytes of one element
  std::int64_t extent = 0;     // bytes from one element to the next
  std::uintptr_t typed = 0;    // the typed buffer (origin of element 0)
  std::uintptr_t packed = 0;   // where byte `offset` of the packed stream goes or comes from
  std::int64_t first_run = 0;  // runs [first_run, first_run + run_count) of the whole stream
  std::int64_t run_count = 0;
  std::int64_t offset = 0;  // the window [offset, offset + length) of the packed stream
  std::int64_t length = 0;
  bool wide = false;  // a warp per run (long runs) instead of a thread per run
  CUstream_st* stream = nullptr;
};

// Moves the window of the packed stream. Returns 0 or the launch's cudaError_t.
int launch_pack(const PackLaunch& launch);

// What run `index` of the window (0 <= index < run_count) moves: `bytes` bytes between `typed`
// and `packed` (0 bytes when the run lies outside the window). The kernels and the host
// reference (tests) share it.
struct RunSpan {
  std::uintptr_t typed;
  std::uintptr_t packed;
  std::int64_t bytes;
};
GPURUN_HOST_DEVICE inline RunSpan run_span(const PackLaunch& p, const Run& run,
                                           std::int64_t element) {
  std::int64_t lo = element * p.size + run.start;
  std::int64_t hi = lo + run.bytes;
  std::int64_t from = lo > p.offset ? lo : p.offset;
  std::int64_t end = p.offset + p.length;
  std::int64_t to = hi < end ? hi : end;
  if (from >= to) return RunSpan{0, 0, 0};
  return RunSpan{p.typed + static_cast<std::uintptr_t>(element * p.extent + run.disp + (from - lo)),
                 p.packed + static_cast<std::uintptr_t>(from - p.offset), to - from};
}

// cudaGetErrorName and cudaGetErrorString of a cudaError_t.
const char* error_name(int error);
const char* error_string(int error);

}  // namespace gpurun::cuda::kernels

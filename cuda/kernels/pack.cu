// Pack and unpack kernels: move a window of a datatype's packed stream between a typed buffer
// and a packed one, walking the flat list of runs of cuda/device_layout.h. Run k of the whole
// stream is run k % runs of element k / runs, so any window starts without a walk.
//
// Two shapes: a thread per run when runs are short (struct members, small vector blocks: one
// warp moves 32 runs at once), a warp per run when they are long (its lanes stride through the
// run, so loads and stores are coalesced). Each run moves in the widest words its addresses
// and length allow (16, 8, 4 or 1 bytes).
#include <cuda_runtime.h>

#include "cuda/kernels/launch.h"

namespace gpurun::cuda::kernels {
namespace {

constexpr int kThreads = 256;
constexpr int kWarp = 32;
constexpr long long kMaxBlocks = 8192;

template <class Word>
__device__ void move_words(std::uintptr_t dst, std::uintptr_t src, long long bytes, int lane,
                           int lanes) {
  auto* d = reinterpret_cast<Word*>(dst);
  const auto* s = reinterpret_cast<const Word*>(src);
  long long n = bytes / static_cast<long long>(sizeof(Word));
  for (long long i = lane; i < n; i += lanes) d[i] = s[i];
}

__device__ void move_span(std::uintptr_t dst, std::uintptr_t src, long long bytes, int lane,
                          int lanes) {
  std::uintptr_t bits = dst | src | static_cast<std::uintptr_t>(bytes);
  if ((bits & 15) == 0) {
    move_words<uint4>(dst, src, bytes, lane, lanes);
  } else if ((bits & 7) == 0) {
    move_words<unsigned long long>(dst, src, bytes, lane, lanes);
  } else if ((bits & 3) == 0) {
    move_words<unsigned int>(dst, src, bytes, lane, lanes);
  } else {
    move_words<unsigned char>(dst, src, bytes, lane, lanes);
  }
}

__device__ void move_run(const PackLaunch& p, long long index, int lane, int lanes) {
  long long g = p.first_run + index;
  long long element = g / p.runs_per_element;
  RunSpan span = run_span(p, p.runs[g % p.runs_per_element], element);
  if (span.bytes == 0) return;
  if (p.pack) {
    move_span(span.packed, span.typed, span.bytes, lane, lanes);
  } else {
    move_span(span.typed, span.packed, span.bytes, lane, lanes);
  }
}

__global__ void move_thread_per_run(PackLaunch p) {
  long long stride = static_cast<long long>(gridDim.x) * blockDim.x;
  for (long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
       i < p.run_count; i += stride)
    move_run(p, i, 0, 1);
}

__global__ void move_warp_per_run(PackLaunch p) {
  int lane = static_cast<int>(threadIdx.x) % kWarp;
  long long warps = static_cast<long long>(gridDim.x) * (blockDim.x / kWarp);
  for (long long w = (static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x) / kWarp;
       w < p.run_count; w += warps)
    move_run(p, w, lane, kWarp);
}

unsigned blocks_for(long long workers_per_block, long long work) {
  long long blocks = (work + workers_per_block - 1) / workers_per_block;
  return static_cast<unsigned>(blocks < kMaxBlocks ? blocks : kMaxBlocks);
}

}  // namespace

int launch_pack(const PackLaunch& launch) {
  if (launch.run_count <= 0 || launch.length <= 0) return 0;
  if (launch.wide) {
    move_warp_per_run<<<blocks_for(kThreads / kWarp, launch.run_count), kThreads, 0,
                        launch.stream>>>(launch);
  } else {
    move_thread_per_run<<<blocks_for(kThreads, launch.run_count), kThreads, 0, launch.stream>>>(
        launch);
  }
  return static_cast<int>(cudaGetLastError());
}

}  // namespace gpurun::cuda::kernels

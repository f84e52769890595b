/* gpurun: the MPIX extensions that gpurun implements.
 *
 * Names MPICH has keep MPICH's spelling and values, so code written for MPICH's GPU support
 * compiles and runs unchanged: MPIX_Query_cuda_support, MPIX_GPU_query_support and the
 * MPIX_GPU_SUPPORT_* values, the MPIX_BFLOAT16 datatype (which MPICH 4.0 lacks: gpurun's
 * handle value, not MPICH's). Names MPICH lacks are gpurun's own (MPIX_Query_cuda_path,
 * MPIX_Comm_query_cuda_path, MPIX_CUDA_PATH_*); tests/abi lists them in GPURUN_EXTENSIONS.
 *
 * MPICH declares its MPIX_ functions in mpi.h, and so does gpurun: mpi.h includes this header.
 * Including it alone works too.
 *
 *   int MPIX_Query_cuda_support(void)
 *       1 when this process can use CUDA device memory (CUDA built, a driver that is not the
 *       toolkit's stub, a device, GPURUN_CUDA not off), else 0. May be called at any time,
 *       before MPI_Init too; the first call loads the driver (no context is created).
 *
 *   int MPIX_GPU_query_support(int gpu_type, int *is_supported)
 *       *is_supported = 1 when the GPU type (MPIX_GPU_SUPPORT_CUDA, _ZE, _HIP) is usable,
 *       else 0 (gpurun supports CUDA only). MPI_ERR_ARG for another gpu_type or a null pointer.
 *
 *   int MPIX_Query_cuda_path(const char *call, int *path)
 *       How the MPI call named `call` ("MPI_Send", "MPI_Iallreduce", "MPI_Pack_c", any case)
 *       treats CUDA device buffers in this process:
 *         MPIX_CUDA_PATH_NATIVE   moved or reduced on the device (CUDA IPC, device kernels)
 *         MPIX_CUDA_PATH_STAGED   accepted, copied through host memory
 *         MPIX_CUDA_PATH_REFUSED  not accepted (the call fails with MPI_ERR_BUFFER); always
 *                                 the answer when MPIX_Query_cuda_support() is 0
 *       MPI_ERR_ARG when `call` names no MPI call that takes a message buffer, or a pointer
 *       is null. May be called at any time.
 *
 *   int MPIX_Comm_query_cuda_path(MPI_Comm comm, const char *call, int *path)
 *       The same question for calls on `comm`: where every rank of `comm` asserts device
 *       memory only (info key mpi_assert_memory_alloc_kinds = "cuda:device", or the knob
 *       GPURUN_ASSERT_MEMORY_ALLOC_KINDS), every collective but the w forms answers
 *       MPIX_CUDA_PATH_NATIVE; elsewhere the answers are MPIX_Query_cuda_path's.
 *       MPI_ERR_COMM for an invalid communicator; needs MPI initialized. */
#ifndef GPURUN_MPIX_H_INCLUDED
#define GPURUN_MPIX_H_INCLUDED

#include <mpi.h>

#if defined(__cplusplus)
extern "C" {
#endif

/* MPIX_GPU_query_support's gpu_type (MPICH's values). */
#define MPIX_GPU_SUPPORT_CUDA (0)
#define MPIX_GPU_SUPPORT_ZE (1)
#define MPIX_GPU_SUPPORT_HIP (2)

/* bfloat16 (8-bit exponent, 7-bit significand), reduced like MPIX_C_FLOAT16. */
#define MPIX_BFLOAT16 ((MPI_Datatype)0x4c0002f0)

/* MPIX_Query_cuda_path's answers. */
#define MPIX_CUDA_PATH_REFUSED 0
#define MPIX_CUDA_PATH_STAGED 1
#define MPIX_CUDA_PATH_NATIVE 2

int MPIX_Query_cuda_support(void) GPURUN_API;
int MPIX_GPU_query_support(int gpu_type, int *is_supported) GPURUN_API;
int MPIX_Query_cuda_path(const char *call, int *path) GPURUN_API;
int MPIX_Comm_query_cuda_path(MPI_Comm comm, const char *call, int *path) GPURUN_API;

int PMPIX_Query_cuda_support(void) GPURUN_API;
int PMPIX_GPU_query_support(int gpu_type, int *is_supported) GPURUN_API;
int PMPIX_Query_cuda_path(const char *call, int *path) GPURUN_API;
int PMPIX_Comm_query_cuda_path(MPI_Comm comm, const char *call, int *path) GPURUN_API;

#if defined(__cplusplus)
}
#endif

#endif

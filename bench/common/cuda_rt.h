/* The CUDA runtime, loaded with dlopen only when a benchmark is asked for device buffers, so
 * the suite builds and runs on machines without CUDA. Rank-local calls. */
#ifndef BENCH_COMMON_CUDA_RT_H
#define BENCH_COMMON_CUDA_RT_H

#include <stddef.h>

/* Loads the runtime and selects device (local_rank mod device count). Returns 0 on success,
 * else fills why (a message that says what is missing) and returns -1. */
int bench_cuda_open(int local_rank, int *device, char *why, size_t why_len);
/* Each returns 0 on success, else fills why and returns -1. */
int bench_cuda_malloc(void **p, size_t bytes, char *why, size_t why_len);
void bench_cuda_free(void *p);
int bench_cuda_to_device(void *dst, const void *src, size_t bytes, char *why, size_t why_len);
int bench_cuda_to_host(void *dst, const void *src, size_t bytes, char *why, size_t why_len);
/* A non-blocking CUDA stream (a cudaStream_t), for -q stream. */
int bench_cuda_stream_create(void **stream, char *why, size_t why_len);
int bench_cuda_stream_synchronize(void *stream, char *why, size_t why_len);
void bench_cuda_stream_destroy(void *stream);

#endif

/* gpurun: the device API, calls that a CUDA kernel makes to drive communication itself.
 *
 * Kernel-triggered partitioned communication, with the names of the MPI Forum hybrid working
 * group's proposal (as NVIDIA's MPI-ACX prototype spells them). The host sets up an MPI-4
 * partitioned request and hands the kernel a device handle to it:
 *
 *   MPI_Psend_init(buf, partitions, count, type, dest, tag, comm, MPI_INFO_NULL, &req);
 *   MPIX_Prequest_create(req, &preq);          (mpix.h; preq is a plain pointer, pass it by value)
 *   MPI_Start(&req);
 *   kernel<<<partitions, threads, 0, stream>>>(buf, preq);
 *   MPI_Wait(&req, MPI_STATUS_IGNORE);         (and MPI_Start / launch / MPI_Wait again, ...)
 *   MPIX_Prequest_free(&preq);                 (once no kernel uses it; before MPI_Request_free
 *                                              or after, but while the request is inactive)
 *
 *   __device__ int MPIX_Pready(int partition, MPIX_Prequest preq)
 *       The send-side partition is ready, as MPI_Pready says: gpurun sends it once every
 *       partition of the receiver that needs its bytes is ready. Make every write to the
 *       partition first, then call it from one thread, e.g. after __syncthreads():
 *         __syncthreads(); if (threadIdx.x == 0) MPIX_Pready(blockIdx.x, preq);
 *   __device__ int MPIX_Parrived(MPIX_Prequest preq, int partition, int *flag)
 *       *flag = 1 once the receive-side partition's data is in the buffer (reads after it see
 *       the data), else 0, as MPI_Parrived says (1 before the request's first MPI_Start too).
 *       A kernel may poll it, but only for data whose sender does not wait for this kernel (a
 *       grid larger than what runs at once can keep the blocks that would mark partitions
 *       ready from running).
 *
 * Both return MPI_SUCCESS, or for a misuse MPI_ERR_ARG (a partition out of range, the other
 * side's call) or MPI_ERR_REQUEST (no prequest; MPIX_Pready before the first MPI_Start). A
 * device cannot run an error handler: the first misuse is recorded in the prequest, and the
 * epoch the host sees it in fails with MPI_ERR_ARG and a message naming the call and the
 * partition (MPI_Wait returns it through the communicator's error handler). A send epoch fails
 * at once: the receiver partitions not sent yet go too long, so that the receiver's epoch fails
 * (MPI_ERR_TRUNCATE) rather than wait. A receive epoch fails once its data is in; a misuse after
 * that counts in the next epoch. A partition marked ready twice in one epoch goes unnoticed.
 *
 * The same functions run on the host too (this header compiles as C, C++ and CUDA): a thread
 * that does not call MPI (a worker of MPI_THREAD_FUNNELED code, say) may mark partitions ready
 * and watch them arrive through them. Something must progress MPI meanwhile: gpurun's
 * progress helper does while the program is outside MPI (in cudaStreamSynchronize, say), where
 * a rank has a spare CPU for it or GPURUN_PROGRESS_HELPER=on; otherwise the program must keep
 * calling MPI (MPI_Wait, MPI_Test) while a kernel waits for partitions.
 *
 * How: the prequest lives in pinned host memory that the device reaches with the same pointer
 * (without CUDA, in ordinary host memory), one 32-bit word per partition after a header. Each
 * MPI_Start opens a new epoch, numbered 1, 2, ...; MPIX_Pready writes the epoch's number into
 * the partition's word, which gpurun's progress reads; on the receive side gpurun writes it
 * there once the partition arrived, and MPIX_Parrived compares. Nothing is reset between
 * epochs. */
#ifndef GPURUN_DEVICE_CUH_INCLUDED
#define GPURUN_DEVICE_CUH_INCLUDED

#include <mpi.h>
#include <stdint.h>

#if defined(__CUDACC__)
#define GPURUN_HOST_DEVICE __host__ __device__
#else
#define GPURUN_HOST_DEVICE
#endif

/* The header of a prequest (MPIX_Prequest, mpix.h, points to it), shared with the library
 * (layout version 1). The partitions' words follow it. */
#define GPURUN_PREQUEST_MAGIC 0x71727067u
struct MPIX_Prequest_s {
  uint32_t magic;      /* GPURUN_PREQUEST_MAGIC while the prequest exists */
  int32_t partitions;  /* of the request */
  int32_t send;        /* 1: a send request (MPIX_Pready), 0: a receive (MPIX_Parrived) */
  uint32_t epoch;      /* the active epoch's number; 0 while the request is not started */
  uint32_t misuse;     /* the first misuse: GPURUN_MISUSE_* << 28 | partition (28 bits) */
  uint32_t reserved[3];
};

/* What a misuse was (the top 4 bits of `misuse`). */
#define GPURUN_MISUSE_PARTITION 1u /* the partition is out of range */
#define GPURUN_MISUSE_INACTIVE 2u  /* the request is not started */
#define GPURUN_MISUSE_SIDE 3u      /* MPIX_Pready on a receive, MPIX_Parrived on a send */

static inline GPURUN_HOST_DEVICE volatile uint32_t *gpurun_prequest_words(
    struct MPIX_Prequest_s *p) {
  return (volatile uint32_t *)(p + 1);
}

/* Orders the caller's earlier writes before its later ones as other processors (and the
 * host's copies) see them: before a partition is marked ready, after one is seen arrived. On the
 * host the loads and stores below order themselves. */
static inline GPURUN_HOST_DEVICE void gpurun_prequest_fence(void) {
#if defined(__CUDA_ARCH__)
  __threadfence_system();
#endif
}

/* A word of the prequest that another thread or the device may write meanwhile. On the host an
 * atomic load with acquire order (what its writer wrote before the word is seen after it); on the
 * device a volatile load, ordered by gpurun_prequest_fence. */
static inline GPURUN_HOST_DEVICE uint32_t gpurun_prequest_load(volatile uint32_t *word) {
#if defined(__CUDA_ARCH__)
  return *word;
#else
  return __atomic_load_n(word, __ATOMIC_ACQUIRE);
#endif
}

/* Stores `value` into a prequest's word: on the host atomically, with release order (what the
 * caller wrote before is seen by whoever loads the value); on the device a volatile store. */
static inline GPURUN_HOST_DEVICE void gpurun_prequest_store(volatile uint32_t *word,
                                                            uint32_t value) {
#if defined(__CUDA_ARCH__)
  *word = value;
#else
  __atomic_store_n(word, value, __ATOMIC_RELEASE);
#endif
}

/* Records the first misuse of `p` and returns the call's error class. */
static inline GPURUN_HOST_DEVICE int gpurun_prequest_misuse(struct MPIX_Prequest_s *p,
                                                            uint32_t what, int partition) {
  uint32_t record = what << 28 | ((uint32_t)partition & 0x0fffffffu);
#if defined(__CUDA_ARCH__)
  volatile uint32_t *misuse = &p->misuse;
  if (*misuse == 0) *misuse = record;
  gpurun_prequest_fence();
#else
  uint32_t none = 0;
  __atomic_compare_exchange_n(&p->misuse, &none, record, 0, __ATOMIC_RELEASE, __ATOMIC_RELAXED);
#endif
  return what == GPURUN_MISUSE_INACTIVE ? MPI_ERR_REQUEST : MPI_ERR_ARG;
}

/* The epoch of `p` (0: never started) for a call on side `send`, with *rc = MPI_SUCCESS; or
 * -1 after recording the misuse in *rc. */
static inline GPURUN_HOST_DEVICE int64_t gpurun_prequest_epoch(struct MPIX_Prequest_s *p, int send,
                                                               int partition, int *rc) {
  *rc = MPI_SUCCESS;
  if (p == 0 || gpurun_prequest_load(&p->magic) != GPURUN_PREQUEST_MAGIC) {
    *rc = MPI_ERR_REQUEST;
  } else if (p->send != send) {
    *rc = gpurun_prequest_misuse(p, GPURUN_MISUSE_SIDE, partition);
  } else if (partition < 0 || partition >= p->partitions) {
    *rc = gpurun_prequest_misuse(p, GPURUN_MISUSE_PARTITION, partition);
  }
  return *rc == MPI_SUCCESS ? (int64_t)gpurun_prequest_load(&p->epoch) : -1;
}

static inline GPURUN_HOST_DEVICE int MPIX_Pready(int partition, MPIX_Prequest preq) {
  int rc;
  int64_t epoch = gpurun_prequest_epoch(preq, 1, partition, &rc);
  if (epoch < 0) return rc;
  if (epoch == 0) return gpurun_prequest_misuse(preq, GPURUN_MISUSE_INACTIVE, partition);
  gpurun_prequest_fence();
  gpurun_prequest_store(gpurun_prequest_words(preq) + partition, (uint32_t)epoch);
  return MPI_SUCCESS;
}

/* Never started: nothing is on its way (MPI_Parrived's flag on an inactive request). */
static inline GPURUN_HOST_DEVICE int MPIX_Parrived(MPIX_Prequest preq, int partition, int *flag) {
  int rc;
  int64_t epoch = gpurun_prequest_epoch(preq, 0, partition, &rc);
  if (epoch < 0) return rc;
  *flag = epoch == 0 ||
          gpurun_prequest_load(gpurun_prequest_words(preq) + partition) == (uint32_t)epoch;
  if (*flag) gpurun_prequest_fence();
  return MPI_SUCCESS;
}

#endif

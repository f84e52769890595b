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
 *   int MPIX_Query_hip_support(void), int MPIX_Query_ze_support(void)
 *       0: gpurun moves no HIP or Level Zero memory. May be called at any time.
 *
 *   int MPIX_Grequest_start(query_fn, free_fn, cancel_fn, poll_fn, wait_fn, extra_state, &request)
 *   int MPIX_Grequest_class_create(query_fn, free_fn, cancel_fn, poll_fn, wait_fn, &greq_class)
 *   int MPIX_Grequest_class_allocate(greq_class, extra_state, &request)
 *       MPICH's extended generalized requests: MPI_Grequest_start's request, plus poll_fn,
 *       which every test or wait on the request calls while it is not complete (to advance it
 *       and call MPI_Grequest_complete), and wait_fn, which MPI_Wait and MPI_Waitall call
 *       once as wait_fn(1, &extra_state, 0, &status) to block until it is done. Either may be
 *       NULL. A class keeps the five functions for every request allocated from it.
 *
 *   Fault tolerance (MPICH's names of User-Level Failure Mitigation), where a failed process
 *   ends the whole job, as it does under gpurun, so that no running process ever sees one:
 *   MPIX_Comm_failure_ack(comm) acknowledges none; MPIX_Comm_failure_get_acked(comm, &group)
 *       gives MPI_GROUP_EMPTY; MPIX_Comm_agree(comm, &flag) (collective) gives every member
 *       the bitwise AND of their flags (of both groups' on an intercommunicator);
 *       MPIX_Comm_shrink(comm, &newcomm) (collective) makes a communicator of the same group,
 *       with comm's error handler and no attributes; MPIX_Comm_revoke(comm) is refused
 *       (MPI_ERR_UNSUPPORTED_OPERATION). The MPIX_ERR_* classes are not defined, so that a
 *       program that tests for them with #ifdef builds without its fault-tolerant path.
 *
 *   int MPIX_Delete_error_class(int errorclass), MPIX_Delete_error_code(int errorcode),
 *   MPIX_Delete_error_string(int errorcode)
 *       MPICH 4.0's names of MPI-4.1's MPI_Remove_error_class, _code and _string, which they
 *       are.
 *
 *   int MPIX_Query_cuda_path(const char *call, int *path)
 *       How the MPI call named `call` ("MPI_Send", "MPI_Iallreduce", "MPI_Pack_c", any case;
 *       the stream forms "MPIX_Send_enqueue", "MPIX_Stream_isend" answer as the MPI call they
 *       run) treats CUDA device buffers in this process:
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
 *       MPI_ERR_COMM for an invalid communicator; needs MPI initialized.
 *
 * Streams (MPICH 4.1's extension, same names, signatures and handle values):
 *
 *   MPIX_Stream_create(info, &stream): info key "type" = "cudaStream_t" with key "value" the
 *       cudaStream_t in hexadecimal (MPIX_Info_set_hex) makes a CUDA stream; without "type"
 *       (or MPI_INFO_NULL) a host stream, an execution context of one thread at a time.
 *   MPIX_Stream_free(&stream): MPI_ERR_OTHER while a communicator still uses the stream.
 *   MPIX_Stream_comm_create(comm, stream, &newcomm): collective; a duplicate of comm on which
 *       this process's operations belong to `stream` (each process gives its own, or
 *       MPIX_STREAM_NULL).
 *   MPIX_Stream_comm_create_multiplex(comm, count, streams, &newcomm): collective; each process
 *       attaches `count` streams (0: one MPIX_STREAM_NULL), addressed by their index.
 *   MPIX_Comm_get_stream(comm, idx, &stream): the idx-th local stream, MPIX_STREAM_NULL if none.
 *   MPIX_Stream_send/isend/recv/irecv(..., source_stream_index, dest_stream_index): messages
 *       from one stream of the sender to one stream of the receiver; a message matches only a
 *       receive with the same pair of indices (and the usual source, tag and communicator).
 *   MPIX_Stream_progress(stream): progresses pending operations.
 *   MPIX_Send_enqueue, MPIX_Recv_enqueue, MPIX_Isend_enqueue, MPIX_Irecv_enqueue,
 *   MPIX_Wait_enqueue, MPIX_Waitall_enqueue, MPIX_Allreduce_enqueue: the operation is appended
 *       to the communicator's CUDA stream and runs once the stream's earlier work is done; the
 *       stream's later work waits for the blocking forms and for MPIX_Wait(all)_enqueue. The
 *       host does not wait: the calls return at once. Buffers and statuses must stay valid
 *       until the stream has passed the operation. The communicator needs a CUDA stream
 *       (MPI_ERR_COMM otherwise); a request of MPIX_I*_enqueue completes only with
 *       MPIX_Wait(all)_enqueue (MPI_Wait and the like refuse it: MPI_ERR_REQUEST). A stream
 *       being captured into a CUDA graph is refused (MPI_ERR_UNSUPPORTED_OPERATION).
 *
 * Kernel-triggered partitioned communication (the MPI Forum hybrid working group's proposal,
 * with MPI-ACX's names; the device calls MPIX_Pready and MPIX_Parrived are in gpurun/device.cuh):
 *
 *   int MPIX_Prequest_create(MPI_Request request, MPIX_Prequest *prequest)
 *       A handle to the partitioned request `request` (MPI_Psend_init, MPI_Precv_init) that
 *       kernels and threads that do not call MPI pass to MPIX_Pready / MPIX_Parrived. One per
 *       request (MPI_ERR_REQUEST for another kind of request or a second prequest).
 *   int MPIX_Prequest_free(MPIX_Prequest *prequest)
 *       Frees it (*prequest becomes MPIX_PREQUEST_NULL); MPI_ERR_REQUEST while its request is
 *       active. Prequests left at MPI_Finalize are freed there. */
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

/* Extended generalized requests (MPICH's types). */
typedef int MPIX_Grequest_class;
typedef int(MPIX_Grequest_poll_function)(void *extra_state, MPI_Status *status);
typedef int(MPIX_Grequest_wait_function)(int count, void **array_of_states, double timeout,
                                         MPI_Status *status);

/* Streams. */
typedef int MPIX_Stream;
#define MPIX_STREAM_NULL ((MPIX_Stream)0x3c000000)

/* Kernel-triggered partitioned communication. */
typedef struct MPIX_Prequest_s *MPIX_Prequest;
#define MPIX_PREQUEST_NULL ((MPIX_Prequest)0)

int MPIX_Query_cuda_support(void) GPURUN_API;
int MPIX_GPU_query_support(int gpu_type, int *is_supported) GPURUN_API;
int MPIX_Query_hip_support(void) GPURUN_API;
int MPIX_Query_ze_support(void) GPURUN_API;
int MPIX_Delete_error_class(int errorclass) GPURUN_API;
int MPIX_Comm_failure_ack(MPI_Comm comm) GPURUN_API;
int MPIX_Comm_failure_get_acked(MPI_Comm comm, MPI_Group *failedgrp) GPURUN_API;
int MPIX_Comm_agree(MPI_Comm comm, int *flag) GPURUN_API;
int MPIX_Comm_shrink(MPI_Comm comm, MPI_Comm *newcomm) GPURUN_API;
int MPIX_Comm_revoke(MPI_Comm comm) GPURUN_API;
int MPIX_Grequest_start(MPI_Grequest_query_function *query_fn, MPI_Grequest_free_function *free_fn,
                        MPI_Grequest_cancel_function *cancel_fn,
                        MPIX_Grequest_poll_function *poll_fn, MPIX_Grequest_wait_function *wait_fn,
                        void *extra_state, MPI_Request *request) GPURUN_API;
int MPIX_Grequest_class_create(MPI_Grequest_query_function *query_fn,
                               MPI_Grequest_free_function *free_fn,
                               MPI_Grequest_cancel_function *cancel_fn,
                               MPIX_Grequest_poll_function *poll_fn,
                               MPIX_Grequest_wait_function *wait_fn,
                               MPIX_Grequest_class *greq_class) GPURUN_API;
int MPIX_Grequest_class_allocate(MPIX_Grequest_class greq_class, void *extra_state,
                                 MPI_Request *request) GPURUN_API;
int MPIX_Delete_error_code(int errorcode) GPURUN_API;
int MPIX_Delete_error_string(int errorcode) GPURUN_API;
int MPIX_Query_cuda_path(const char *call, int *path) GPURUN_API;
int MPIX_Comm_query_cuda_path(MPI_Comm comm, const char *call, int *path) GPURUN_API;

int PMPIX_Query_cuda_support(void) GPURUN_API;
int PMPIX_GPU_query_support(int gpu_type, int *is_supported) GPURUN_API;
int PMPIX_Query_hip_support(void) GPURUN_API;
int PMPIX_Query_ze_support(void) GPURUN_API;
int PMPIX_Delete_error_class(int errorclass) GPURUN_API;
int PMPIX_Comm_failure_ack(MPI_Comm comm) GPURUN_API;
int PMPIX_Comm_failure_get_acked(MPI_Comm comm, MPI_Group *failedgrp) GPURUN_API;
int PMPIX_Comm_agree(MPI_Comm comm, int *flag) GPURUN_API;
int PMPIX_Comm_shrink(MPI_Comm comm, MPI_Comm *newcomm) GPURUN_API;
int PMPIX_Comm_revoke(MPI_Comm comm) GPURUN_API;
int PMPIX_Grequest_start(MPI_Grequest_query_function *query_fn,
                         MPI_Grequest_free_function *free_fn,
                         MPI_Grequest_cancel_function *cancel_fn,
                         MPIX_Grequest_poll_function *poll_fn,
                         MPIX_Grequest_wait_function *wait_fn, void *extra_state,
                         MPI_Request *request) GPURUN_API;
int PMPIX_Grequest_class_create(MPI_Grequest_query_function *query_fn,
                                MPI_Grequest_free_function *free_fn,
                                MPI_Grequest_cancel_function *cancel_fn,
                                MPIX_Grequest_poll_function *poll_fn,
                                MPIX_Grequest_wait_function *wait_fn,
                                MPIX_Grequest_class *greq_class) GPURUN_API;
int PMPIX_Grequest_class_allocate(MPIX_Grequest_class greq_class, void *extra_state,
                                  MPI_Request *request) GPURUN_API;
int PMPIX_Delete_error_code(int errorcode) GPURUN_API;
int PMPIX_Delete_error_string(int errorcode) GPURUN_API;
int PMPIX_Query_cuda_path(const char *call, int *path) GPURUN_API;
int PMPIX_Comm_query_cuda_path(MPI_Comm comm, const char *call, int *path) GPURUN_API;

int MPIX_Info_set_hex(MPI_Info info, const char *key, const void *value, int value_size) GPURUN_API;
int MPIX_Stream_create(MPI_Info info, MPIX_Stream *stream) GPURUN_API;
int MPIX_Stream_free(MPIX_Stream *stream) GPURUN_API;
int MPIX_Stream_comm_create(MPI_Comm comm, MPIX_Stream stream, MPI_Comm *newcomm) GPURUN_API;
int MPIX_Stream_comm_create_multiplex(MPI_Comm comm, int count, MPIX_Stream array_of_streams[],
                                      MPI_Comm *newcomm) GPURUN_API;
int MPIX_Comm_get_stream(MPI_Comm comm, int idx, MPIX_Stream *stream) GPURUN_API;
int MPIX_Stream_progress(MPIX_Stream stream) GPURUN_API;
int MPIX_Stream_send(const void *buf, int count, MPI_Datatype datatype, int dest, int tag,
                     MPI_Comm comm, int source_stream_index, int dest_stream_index) GPURUN_API;
int MPIX_Stream_isend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag,
                      MPI_Comm comm, int source_stream_index, int dest_stream_index,
                      MPI_Request *request) GPURUN_API;
int MPIX_Stream_recv(void *buf, int count, MPI_Datatype datatype, int source, int tag,
                     MPI_Comm comm, int source_stream_index, int dest_stream_index,
                     MPI_Status *status) GPURUN_API;
int MPIX_Stream_irecv(void *buf, int count, MPI_Datatype datatype, int source, int tag,
                      MPI_Comm comm, int source_stream_index, int dest_stream_index,
                      MPI_Request *request) GPURUN_API;
int MPIX_Send_enqueue(const void *buf, int count, MPI_Datatype datatype, int dest, int tag,
                      MPI_Comm comm) GPURUN_API;
int MPIX_Recv_enqueue(void *buf, int count, MPI_Datatype datatype, int source, int tag,
                      MPI_Comm comm, MPI_Status *status) GPURUN_API;
int MPIX_Isend_enqueue(const void *buf, int count, MPI_Datatype datatype, int dest, int tag,
                       MPI_Comm comm, MPI_Request *request) GPURUN_API;
int MPIX_Irecv_enqueue(void *buf, int count, MPI_Datatype datatype, int source, int tag,
                       MPI_Comm comm, MPI_Request *request) GPURUN_API;
int MPIX_Wait_enqueue(MPI_Request *request, MPI_Status *status) GPURUN_API;
int MPIX_Waitall_enqueue(int count, MPI_Request array_of_requests[],
                         MPI_Status *array_of_statuses) GPURUN_API;
int MPIX_Allreduce_enqueue(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
                           MPI_Op op, MPI_Comm comm) GPURUN_API;
int MPIX_Stream_send_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
                       MPI_Comm comm, int source_stream_index, int dest_stream_index) GPURUN_API;
int MPIX_Stream_isend_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
                        MPI_Comm comm, int source_stream_index, int dest_stream_index,
                        MPI_Request *request) GPURUN_API;
int MPIX_Stream_recv_c(void *buf, MPI_Count count, MPI_Datatype datatype, int source, int tag,
                       MPI_Comm comm, int source_stream_index, int dest_stream_index,
                       MPI_Status *status) GPURUN_API;
int MPIX_Stream_irecv_c(void *buf, MPI_Count count, MPI_Datatype datatype, int source, int tag,
                        MPI_Comm comm, int source_stream_index, int dest_stream_index,
                        MPI_Request *request) GPURUN_API;
int MPIX_Send_enqueue_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
                        MPI_Comm comm) GPURUN_API;
int MPIX_Recv_enqueue_c(void *buf, MPI_Count count, MPI_Datatype datatype, int source, int tag,
                        MPI_Comm comm, MPI_Status *status) GPURUN_API;
int MPIX_Isend_enqueue_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
                         MPI_Comm comm, MPI_Request *request) GPURUN_API;
int MPIX_Irecv_enqueue_c(void *buf, MPI_Count count, MPI_Datatype datatype, int source, int tag,
                         MPI_Comm comm, MPI_Request *request) GPURUN_API;
int MPIX_Allreduce_enqueue_c(const void *sendbuf, void *recvbuf, MPI_Count count,
                             MPI_Datatype datatype, MPI_Op op, MPI_Comm comm) GPURUN_API;
int MPIX_Prequest_create(MPI_Request request, MPIX_Prequest *prequest) GPURUN_API;
int MPIX_Prequest_free(MPIX_Prequest *prequest) GPURUN_API;

int PMPIX_Info_set_hex(MPI_Info info, const char *key, const void *value,
                       int value_size) GPURUN_API;
int PMPIX_Stream_create(MPI_Info info, MPIX_Stream *stream) GPURUN_API;
int PMPIX_Stream_free(MPIX_Stream *stream) GPURUN_API;
int PMPIX_Stream_comm_create(MPI_Comm comm, MPIX_Stream stream, MPI_Comm *newcomm) GPURUN_API;
int PMPIX_Stream_comm_create_multiplex(MPI_Comm comm, int count, MPIX_Stream array_of_streams[],
                                       MPI_Comm *newcomm) GPURUN_API;
int PMPIX_Comm_get_stream(MPI_Comm comm, int idx, MPIX_Stream *stream) GPURUN_API;
int PMPIX_Stream_progress(MPIX_Stream stream) GPURUN_API;
int PMPIX_Stream_send(const void *buf, int count, MPI_Datatype datatype, int dest, int tag,
                      MPI_Comm comm, int source_stream_index, int dest_stream_index) GPURUN_API;
int PMPIX_Stream_isend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag,
                       MPI_Comm comm, int source_stream_index, int dest_stream_index,
                       MPI_Request *request) GPURUN_API;
int PMPIX_Stream_recv(void *buf, int count, MPI_Datatype datatype, int source, int tag,
                      MPI_Comm comm, int source_stream_index, int dest_stream_index,
                      MPI_Status *status) GPURUN_API;
int PMPIX_Stream_irecv(void *buf, int count, MPI_Datatype datatype, int source, int tag,
                       MPI_Comm comm, int source_stream_index, int dest_stream_index,
                       MPI_Request *request) GPURUN_API;
int PMPIX_Send_enqueue(const void *buf, int count, MPI_Datatype datatype, int dest, int tag,
                       MPI_Comm comm) GPURUN_API;
int PMPIX_Recv_enqueue(void *buf, int count, MPI_Datatype datatype, int source, int tag,
                       MPI_Comm comm, MPI_Status *status) GPURUN_API;
int PMPIX_Isend_enqueue(const void *buf, int count, MPI_Datatype datatype, int dest, int tag,
                        MPI_Comm comm, MPI_Request *request) GPURUN_API;
int PMPIX_Irecv_enqueue(void *buf, int count, MPI_Datatype datatype, int source, int tag,
                        MPI_Comm comm, MPI_Request *request) GPURUN_API;
int PMPIX_Wait_enqueue(MPI_Request *request, MPI_Status *status) GPURUN_API;
int PMPIX_Waitall_enqueue(int count, MPI_Request array_of_requests[],
                          MPI_Status *array_of_statuses) GPURUN_API;
int PMPIX_Allreduce_enqueue(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
                            MPI_Op op, MPI_Comm comm) GPURUN_API;
int PMPIX_Stream_send_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
                        MPI_Comm comm, int source_stream_index, int dest_stream_index) GPURUN_API;
int PMPIX_Stream_isend_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
                         MPI_Comm comm, int source_stream_index, int dest_stream_index,
                         MPI_Request *request) GPURUN_API;
int PMPIX_Stream_recv_c(void *buf, MPI_Count count, MPI_Datatype datatype, int source, int tag,
                        MPI_Comm comm, int source_stream_index, int dest_stream_index,
                        MPI_Status *status) GPURUN_API;
int PMPIX_Stream_irecv_c(void *buf, MPI_Count count, MPI_Datatype datatype, int source, int tag,
                         MPI_Comm comm, int source_stream_index, int dest_stream_index,
                         MPI_Request *request) GPURUN_API;
int PMPIX_Send_enqueue_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
                         MPI_Comm comm) GPURUN_API;
int PMPIX_Recv_enqueue_c(void *buf, MPI_Count count, MPI_Datatype datatype, int source, int tag,
                         MPI_Comm comm, MPI_Status *status) GPURUN_API;
int PMPIX_Isend_enqueue_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest,
                          int tag, MPI_Comm comm, MPI_Request *request) GPURUN_API;
int PMPIX_Irecv_enqueue_c(void *buf, MPI_Count count, MPI_Datatype datatype, int source, int tag,
                          MPI_Comm comm, MPI_Request *request) GPURUN_API;
int PMPIX_Allreduce_enqueue_c(const void *sendbuf, void *recvbuf, MPI_Count count,
                              MPI_Datatype datatype, MPI_Op op, MPI_Comm comm) GPURUN_API;
int PMPIX_Prequest_create(MPI_Request request, MPIX_Prequest *prequest) GPURUN_API;
int PMPIX_Prequest_free(MPIX_Prequest *prequest) GPURUN_API;

#if defined(__cplusplus)
}
#endif

#endif

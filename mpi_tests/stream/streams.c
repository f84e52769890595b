/* MPIX streams without a device: MPIX_Info_set_hex, host streams and the communicators bound
 * to them (MPIX_Stream_comm_create, MPIX_Comm_get_stream, messages on them), and what is
 * refused with which error: freeing a stream in use, bad handles and indices, CUDA streams
 * where CUDA is unusable, other stream types, enqueued operations without a CUDA stream, and
 * MPIX_Wait_enqueue of an ordinary request, MPIX_Waitall_enqueue without a status array. */
#include <stdio.h>
#include <string.h>

#include "mtest.h"

static void check_hex(void) {
  MPI_Info info;
  MPI_Info_create(&info);
  unsigned char bytes[4] = {0x12, 0xab, 0x00, 0xff};
  int rc = MPIX_Info_set_hex(info, "value", bytes, 4);
  mtest_expect_error(rc, MPI_SUCCESS, "MPIX_Info_set_hex", NULL);
  char value[16] = "";
  int flag = 0;
  MPI_Info_get(info, "value", sizeof value - 1, value, &flag);
  MTEST_CHECK(flag && strcmp(value, "12ab00ff") == 0, "hex of 12 ab 00 ff: \"%s\"", value);
  MPI_Info_free(&info);
}

/* MPIX_Stream_create with info "type" = `type` and, unless NULL, "value" = `value`. */
static int create_typed(const char *type, const char *value, MPIX_Stream *stream) {
  MPI_Info info;
  MPI_Info_create(&info);
  MPI_Info_set(info, "type", type);
  if (value != NULL) MPI_Info_set(info, "value", value);
  int rc = MPIX_Stream_create(info, stream);
  MPI_Info_free(&info);
  return rc;
}

static void check_refused_streams(void) {
  MPIX_Stream s = MPIX_STREAM_NULL;
  mtest_expect_arg_error(create_typed("cudaStream_t", NULL, &s), MPI_ERR_INFO_NOKEY,
                         "MPIX_Stream_create", "value");
  mtest_expect_arg_error(create_typed("cudaStream_t", "12zz", &s), MPI_ERR_INFO_VALUE,
                         "MPIX_Stream_create", "value");
  mtest_expect_arg_error(create_typed("hipStream_t", NULL, &s), MPI_ERR_UNSUPPORTED_OPERATION,
                         "MPIX_Stream_create", "type");
  if (MPIX_Query_cuda_support() == 0) {
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "type", "cudaStream_t");
    void *cuda_stream = (void *)0x1234;
    MPIX_Info_set_hex(info, "value", &cuda_stream, sizeof cuda_stream);
    mtest_expect_error(MPIX_Stream_create(info, &s), MPI_ERR_UNSUPPORTED_OPERATION,
                       "MPIX_Stream_create of a CUDA stream without CUDA", "CUDA stream");
    MPI_Info_free(&info);
  }
  MTEST_CHECK(s == MPIX_STREAM_NULL, "a refused stream was made: 0x%x", (unsigned)s);
}

/* A ring message on `comm`, by MPI_Send/MPI_Recv and by MPIX_Stream_send/recv (indices 0). */
static void ring(MPI_Comm comm) {
  int rank, size;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  int to = (rank + 1) % size, from = (rank + size - 1) % size, got = -1, got2 = -1;
  MPI_Request req;
  MPI_Irecv(&got, 1, MPI_INT, from, 3, comm, &req);
  MPI_Send(&rank, 1, MPI_INT, to, 3, comm);
  MPI_Wait(&req, MPI_STATUS_IGNORE);
  MPIX_Stream_irecv(&got2, 1, MPI_INT, from, 4, comm, 0, 0, &req);
  MPIX_Stream_send(&rank, 1, MPI_INT, to, 4, comm, 0, 0);
  MPI_Wait(&req, MPI_STATUS_IGNORE);
  MTEST_CHECK(got == from && got2 == from, "ring on a stream comm: %d and %d, not %d", got, got2,
              from);
}

static void check_stream_comm(void) {
  MPIX_Stream s = MPIX_STREAM_NULL, got = 0;
  mtest_expect_error(MPIX_Stream_create(MPI_INFO_NULL, &s), MPI_SUCCESS, "MPIX_Stream_create",
                     NULL);
  MTEST_CHECK(s != MPIX_STREAM_NULL, "a host stream is MPIX_STREAM_NULL");
  MPI_Comm sc;
  mtest_expect_error(MPIX_Stream_comm_create(MPI_COMM_WORLD, s, &sc), MPI_SUCCESS,
                     "MPIX_Stream_comm_create", NULL);
  MPI_Comm_set_errhandler(sc, MPI_ERRORS_RETURN);
  MPIX_Comm_get_stream(sc, 0, &got);
  MTEST_CHECK(got == s, "MPIX_Comm_get_stream gave 0x%x, not 0x%x", (unsigned)got, (unsigned)s);
  MPIX_Comm_get_stream(MPI_COMM_WORLD, 0, &got);
  MTEST_CHECK(got == MPIX_STREAM_NULL, "MPI_COMM_WORLD's stream is 0x%x", (unsigned)got);
  mtest_expect_arg_error(MPIX_Comm_get_stream(sc, 1, &got), MPI_ERR_ARG, "MPIX_Comm_get_stream",
                         "idx");
  ring(sc);
  int x = 0;
  mtest_expect_arg_error(MPIX_Stream_send(&x, 1, MPI_INT, 0, 0, sc, 1, 0), MPI_ERR_ARG,
                         "MPIX_Stream_send", "source_stream_index");
  mtest_expect_arg_error(MPIX_Send_enqueue(&x, 1, MPI_INT, 0, 0, sc), MPI_ERR_COMM,
                         "MPIX_Send_enqueue", "comm");
  mtest_expect_arg_error(MPIX_Allreduce_enqueue(&x, &x, 1, MPI_INT, MPI_SUM, sc), MPI_ERR_COMM,
                         "MPIX_Allreduce_enqueue", "comm");
  mtest_expect_error(MPIX_Stream_free(&s), MPI_ERR_OTHER, "MPIX_Stream_free of a stream in use",
                     "still used");
  MPI_Comm_free(&sc);
  MPIX_Stream stale = s;
  mtest_expect_error(MPIX_Stream_free(&s), MPI_SUCCESS, "MPIX_Stream_free", NULL);
  MTEST_CHECK(s == MPIX_STREAM_NULL, "a freed stream's handle is 0x%x", (unsigned)s);
  mtest_expect_arg_error(MPIX_Stream_free(&stale), MPI_ERR_ARG, "MPIX_Stream_free", "stream");
}

static void check_null_stream_comm(void) {
  MPI_Comm c;
  mtest_expect_error(MPIX_Stream_comm_create(MPI_COMM_WORLD, MPIX_STREAM_NULL, &c), MPI_SUCCESS,
                     "MPIX_Stream_comm_create with MPIX_STREAM_NULL", NULL);
  ring(c);
  MPI_Request req;
  int x = 0;
  MPI_Isend(&x, 0, MPI_INT, MPI_PROC_NULL, 0, c, &req);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  mtest_expect_arg_error(MPIX_Wait_enqueue(&req, MPI_STATUS_IGNORE), MPI_ERR_REQUEST,
                         "MPIX_Wait_enqueue", "request");
  mtest_expect_arg_error(MPIX_Waitall_enqueue(1, &req, NULL), MPI_ERR_ARG, "MPIX_Waitall_enqueue",
                         "array_of_statuses");
  MPI_Wait(&req, MPI_STATUS_IGNORE);
  MPI_Comm_free(&c);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  check_hex();
  check_refused_streams();
  check_stream_comm();
  check_null_stream_comm();
  return mtest_finalize();
}

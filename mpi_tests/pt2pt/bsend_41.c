/* MPI-4.1's buffers for buffered sends. A buffer attached to a communicator serves only the
 * buffered sends on it, one attached to a session those on the communicators derived from the
 * session (a duplicate included), and MPI_Buffer_attach's the rest: each fills up on its own,
 * and a send with none of them attached fails with MPI_ERR_BUFFER. The flush calls wait until
 * the messages in a buffer have gone and leave it attached, and do not wait for messages sent
 * after them; the iflush calls give a request that completes then (not before: the messages
 * are rendezvous ones that wait for receives the peer posts after a barrier). MPI_BUFFER_AUTOMATIC takes any number of messages, and detaching
 * it gives MPI_BUFFER_AUTOMATIC back. Freeing a communicator or finalizing a session with a
 * buffer attached waits for its messages, which arrive whole. Bad arguments name the call. */
#include <stdlib.h>
#include <string.h>

#include "mtest.h"

/* Above every transport's eager limit (ucx: 64K): rendezvous, so they wait for a receive. */
#define SIZE 100000
#define ROOM(n) ((n) * (SIZE + MPI_BSEND_OVERHEAD))

static char out[SIZE], in[SIZE];

static void fill(int salt) {
  for (int i = 0; i < SIZE; i++) out[i] = (char)(i * 7 + salt);
}

static void bsend(int salt, int tag, MPI_Comm comm, int error_class, const char *what) {
  fill(salt);
  int rc = MPI_Bsend(out, SIZE, MPI_CHAR, 1, tag, comm);
  mtest_expect_error(rc, error_class, what, error_class == MPI_SUCCESS ? NULL : "MPI_Bsend");
}

static void receive(int salt, int tag, MPI_Comm comm) {
  MPI_Status st;
  int count = -1, ok = 1;
  memset(in, 0, SIZE);
  MPI_Recv(in, SIZE, MPI_CHAR, 0, tag, comm, &st);
  MPI_Get_count(&st, MPI_CHAR, &count);
  for (int i = 0; i < SIZE && ok; i++) ok = in[i] == (char)(i * 7 + salt);
  MTEST_CHECK(count == SIZE && ok, "message of tag %d: %d bytes, data ok %d", tag, count, ok);
}

/* A request that has not completed yet, then completes once the peer received (after the
 * barrier). */
static void expect_pending_then_done(MPI_Request *req, const char *what) {
  int flag = 1;
  MPI_Test(req, &flag, MPI_STATUS_IGNORE);
  MTEST_CHECK(!flag, "%s completed while its messages waited for their receives", what);
  MPI_Barrier(MPI_COMM_WORLD);
  if (!flag) MPI_Wait(req, MPI_STATUS_IGNORE);
}

static void comm_buffer(int rank) {
  MPI_Comm c;
  MPI_Comm_dup(MPI_COMM_WORLD, &c);
  if (rank == 0) {
    char *buf = malloc(ROOM(2));
    MPI_Comm_attach_buffer(c, buf, ROOM(2));
    bsend(1, 1, c, MPI_SUCCESS, "first message into the communicator's buffer");
    bsend(2, 2, c, MPI_SUCCESS, "second message into the communicator's buffer");
    bsend(3, 3, c, MPI_ERR_BUFFER, "a third message past the communicator's buffer");
    bsend(4, 4, MPI_COMM_WORLD, MPI_ERR_BUFFER, "MPI_COMM_WORLD with no buffer of its own");
    mtest_expect_error(MPI_Comm_attach_buffer(c, buf, 10), MPI_ERR_BUFFER, "attaching twice",
                       "MPI_Comm_detach_buffer");
    MPI_Request req;
    MPI_Comm_iflush_buffer(c, &req);
    expect_pending_then_done(&req, "MPI_Comm_iflush_buffer");
    MPI_Comm_flush_buffer(c); /* nothing left in it */
    bsend(5, 5, c, MPI_SUCCESS, "a message after the flush: the buffer stays attached");
    void *back = NULL;
    int size = 0;
    MPI_Comm_detach_buffer(c, &back, &size);
    MTEST_CHECK(back == buf && size == ROOM(2), "detach gave %p/%d", back, size);
    free(buf);
  } else {
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 1) {
      receive(1, 1, c);
      receive(2, 2, c);
      receive(5, 5, c);
    }
  }
  MPI_Comm_free(&c);
}

/* A flush waits for the messages in the buffer at its call, not for those sent after it: rank 1
 * receives the second message only after a barrier that rank 0 reaches after waiting for the
 * flush. Polled with a deadline, so that a flush that waits for both fails instead of hanging. */
static void flush_ignores_later_sends(int rank) {
  MPI_Comm c;
  MPI_Comm_dup(MPI_COMM_WORLD, &c);
  char *buf = malloc(ROOM(2));
  if (rank == 0) {
    MPI_Comm_attach_buffer(c, buf, ROOM(2));
    bsend(40, 40, c, MPI_SUCCESS, "a message before the flush");
    MPI_Request req;
    MPI_Comm_iflush_buffer(c, &req);
    bsend(41, 41, c, MPI_SUCCESS, "a message after the flush");
    int flag = 0;
    double deadline = MPI_Wtime() + 20;
    while (!flag && MPI_Wtime() < deadline) MPI_Test(&req, &flag, MPI_STATUS_IGNORE);
    MTEST_CHECK(flag, "MPI_Comm_iflush_buffer waited for a message sent after it");
    MPI_Barrier(MPI_COMM_WORLD);
    if (!flag) MPI_Wait(&req, MPI_STATUS_IGNORE);
    MPI_Comm_flush_buffer(c);
    void *back;
    int size;
    MPI_Comm_detach_buffer(c, &back, &size);
  } else {
    if (rank == 1) receive(40, 40, c);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 1) receive(41, 41, c);
  }
  MPI_Comm_free(&c);
  free(buf);
}

/* The process's buffer and a communicator's fill up apart; freeing the communicator waits for
 * its message. */
static void process_and_comm_buffers(int rank) {
  MPI_Comm c;
  MPI_Comm_dup(MPI_COMM_WORLD, &c);
  if (rank == 0) {
    char *pbuf = malloc(ROOM(1)), *cbuf = malloc(ROOM(1));
    MPI_Buffer_attach(pbuf, ROOM(1));
    MPI_Comm_attach_buffer_c(c, cbuf, ROOM(1));
    bsend(10, 10, MPI_COMM_WORLD, MPI_SUCCESS, "a message into the process's buffer");
    bsend(11, 11, c, MPI_SUCCESS, "a message into the communicator's buffer");
    bsend(12, 12, MPI_COMM_WORLD, MPI_ERR_BUFFER, "a second one into the process's buffer");
    bsend(13, 13, c, MPI_ERR_BUFFER, "a second one into the communicator's buffer");
    MPI_Comm_free(&c); /* returns once rank 1 has received tag 11 */
    memset(cbuf, 0, ROOM(1));
    free(cbuf);
    MPI_Buffer_flush();
    void *back = NULL;
    MPI_Count size = 0;
    MPI_Buffer_detach_c(&back, &size);
    MTEST_CHECK(back == pbuf && size == ROOM(1), "process detach gave %p/%lld", back,
                (long long)size);
    free(pbuf);
  } else {
    if (rank == 1) {
      receive(11, 11, c);
      receive(10, 10, MPI_COMM_WORLD);
    }
    MPI_Comm_free(&c);
  }
}

static void automatic_buffer(int rank) {
  enum { kMessages = 8 };
  if (rank == 0) {
    MPI_Buffer_attach(MPI_BUFFER_AUTOMATIC, 0);
    for (int i = 0; i < kMessages; i++)
      bsend(30 + i, 30 + i, MPI_COMM_WORLD, MPI_SUCCESS, "a message into an automatic buffer");
    MPI_Request req;
    MPI_Buffer_iflush(&req);
    expect_pending_then_done(&req, "MPI_Buffer_iflush");
    void *back = NULL;
    int size = -1;
    MPI_Buffer_detach(&back, &size);
    MTEST_CHECK(back == MPI_BUFFER_AUTOMATIC && size == 0, "automatic detach gave %p/%d", back,
                size);
    /* The size is ignored with MPI_BUFFER_AUTOMATIC. */
    mtest_expect_error(MPI_Comm_attach_buffer(MPI_COMM_WORLD, MPI_BUFFER_AUTOMATIC, -5),
                       MPI_SUCCESS, "automatic with a negative size", NULL);
    MPI_Comm_detach_buffer(MPI_COMM_WORLD, &back, &size);
  } else {
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 1) {
      for (int i = 0; i < kMessages; i++) receive(30 + i, 30 + i, MPI_COMM_WORLD);
    }
  }
}

static void session_buffer(int rank) {
  MPI_Session s;
  MPI_Group g;
  MPI_Comm sc, sd;
  MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, &s);
  MPI_Group_from_session_pset(s, "mpi://WORLD", &g);
  MPI_Comm_create_from_group(g, "gpurun.bsend_41", MPI_INFO_NULL, MPI_ERRORS_RETURN, &sc);
  MPI_Group_free(&g);
  MPI_Comm_dup(sc, &sd);
  char *buf = malloc(ROOM(2));
  if (rank == 0) {
    MPI_Session_attach_buffer(s, buf, ROOM(2));
    bsend(20, 20, sc, MPI_SUCCESS, "a message into the session's buffer");
    bsend(21, 21, sd, MPI_SUCCESS, "a message from a duplicate into the session's buffer");
    bsend(22, 22, sd, MPI_ERR_BUFFER, "a third message past the session's buffer");
    bsend(23, 23, MPI_COMM_WORLD, MPI_ERR_BUFFER, "MPI_COMM_WORLD, not from the session");
    mtest_expect_error(MPI_Session_attach_buffer(s, buf, 10), MPI_ERR_BUFFER, "attaching twice",
                       "MPI_Session_detach_buffer");
    MPI_Request req;
    MPI_Session_iflush_buffer(s, &req);
    expect_pending_then_done(&req, "MPI_Session_iflush_buffer");
    MPI_Session_flush_buffer(s);
    void *back = NULL;
    int size = 0;
    MPI_Session_detach_buffer(s, &back, &size);
    MTEST_CHECK(back == buf && size == ROOM(2), "session detach gave %p/%d", back, size);
    MPI_Session_attach_buffer_c(s, buf, ROOM(1));
    bsend(24, 24, sc, MPI_SUCCESS, "a message into the attached-again buffer");
  } else {
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 1) {
      receive(20, 20, sc);
      receive(21, 21, sd);
      receive(24, 24, sc);
    }
  }
  MPI_Comm_free(&sd);
  MPI_Comm_free(&sc);
  MPI_Session_finalize(&s); /* rank 0: waits for tag 24 */
  free(buf);
}

static void bad_arguments(void) {
  char buf[64];
  void *back = &back;
  int size = -1;
  mtest_expect_arg_error(MPI_Comm_attach_buffer(MPI_COMM_NULL, buf, 64), MPI_ERR_COMM,
                         "MPI_Comm_attach_buffer", "comm");
  mtest_expect_arg_error(MPI_Comm_attach_buffer(MPI_COMM_WORLD, buf, -1), MPI_ERR_ARG,
                         "MPI_Comm_attach_buffer", "size");
  mtest_expect_arg_error(MPI_Comm_attach_buffer(MPI_COMM_WORLD, NULL, 64), MPI_ERR_BUFFER,
                         "MPI_Comm_attach_buffer", "buffer");
  mtest_expect_arg_error(MPI_Comm_iflush_buffer(MPI_COMM_WORLD, NULL), MPI_ERR_ARG,
                         "MPI_Comm_iflush_buffer", "request");
  mtest_expect_arg_error(MPI_Buffer_iflush(NULL), MPI_ERR_ARG, "MPI_Buffer_iflush", "request");
  /* Nothing attached: detach gives a null address and size 0, as MPI_Buffer_detach does. */
  int rc = MPI_Comm_detach_buffer(MPI_COMM_WORLD, &back, &size);
  MTEST_CHECK(rc == MPI_SUCCESS && back == NULL && size == 0, "empty detach: %d %p %d", rc, back,
              size);
  MTEST_CHECK(MPI_Comm_flush_buffer(MPI_COMM_WORLD) == MPI_SUCCESS, "empty flush");
}

int main(int argc, char **argv) {
  int rank;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  comm_buffer(rank);
  process_and_comm_buffers(rank);
  flush_ignores_later_sends(rank);
  automatic_buffer(rank);
  session_buffer(rank);
  bad_arguments();
  return mtest_finalize();
}

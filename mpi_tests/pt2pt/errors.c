/* Bad input to the point-to-point calls under MPI_ERRORS_RETURN, on every rank: each call
 * returns the right error class, and its message names the call, the argument and the rank.
 * Request misuse included: waiting on a handle already freed, starting an active or a
 * nonpersistent request, null arrays with a positive count, receiving MPI_MESSAGE_NULL, a count
 * far beyond its array (the bad handle past the array's end is found before any allocation of
 * that size), and MPI_IN_PLACE as the buffer of a send or a receive. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mtest.h"

static int rank, size;

/* Checks that rc has class `want` and its text holds `call`, `arg` and "(rank R)". */
static void expect(int rc, int want, const char *call, const char *arg, int line) {
  int cls = -1, len = 0;
  char text[MPI_MAX_ERROR_STRING] = "", tag[32];
  if (rc != MPI_SUCCESS) {
    MPI_Error_class(rc, &cls);
    MPI_Error_string(rc, text, &len);
  }
  snprintf(tag, sizeof tag, "(rank %d)", rank);
  MTEST_CHECK(cls == want, "line %d: %s returned class %d, want %d (%s)", line, call, cls, want,
              text);
  MTEST_CHECK(strstr(text, call) != NULL && strstr(text, arg) != NULL && strstr(text, tag),
              "line %d: message '%s' does not name %s, %s and %s", line, text, call, arg, tag);
}
#define EXPECT(rc, cls, call, arg) expect(rc, cls, call, arg, __LINE__)

static void messaging(void) {
  int buf[4] = {0}, flag;
  MPI_Request req;
  MPI_Status st;
  EXPECT(MPI_Send(buf, 1, MPI_INT, size, 0, MPI_COMM_WORLD), MPI_ERR_RANK, "MPI_Send", "dest");
  EXPECT(MPI_Send(buf, 1, MPI_INT, -7, 0, MPI_COMM_WORLD), MPI_ERR_RANK, "MPI_Send", "dest");
  EXPECT(MPI_Send(buf, 1, MPI_INT, MPI_ANY_SOURCE, 0, MPI_COMM_WORLD), MPI_ERR_RANK, "MPI_Send",
         "dest");
  EXPECT(MPI_Recv(buf, 1, MPI_INT, size + 3, 0, MPI_COMM_WORLD, &st), MPI_ERR_RANK, "MPI_Recv",
         "source");
  EXPECT(MPI_Isend(buf, -1, MPI_INT, 0, 0, MPI_COMM_WORLD, &req), MPI_ERR_COUNT, "MPI_Isend",
         "count");
  EXPECT(MPI_Irecv_c(buf, -5, MPI_INT, 0, 0, MPI_COMM_WORLD, &req), MPI_ERR_COUNT, "MPI_Irecv_c",
         "count");
  EXPECT(MPI_Send(buf, 1, MPI_INT, 0, -3, MPI_COMM_WORLD), MPI_ERR_TAG, "MPI_Send", "tag");
  EXPECT(MPI_Ssend(buf, 1, MPI_INT, 0, MPI_ANY_TAG, MPI_COMM_WORLD), MPI_ERR_TAG, "MPI_Ssend",
         "tag");
  EXPECT(MPI_Recv(buf, 1, MPI_INT, 0, -9, MPI_COMM_WORLD, &st), MPI_ERR_TAG, "MPI_Recv", "tag");
  EXPECT(MPI_Send(buf, 1, MPI_INT, 0, 0, MPI_COMM_NULL), MPI_ERR_COMM, "MPI_Send", "comm");
  EXPECT(MPI_Irecv(buf, 1, MPI_INT, 0, 0, (MPI_Comm)0x12345, &req), MPI_ERR_COMM, "MPI_Irecv",
         "comm");
  EXPECT(MPI_Send(NULL, 4, MPI_INT, 0, 0, MPI_COMM_WORLD), MPI_ERR_BUFFER, "MPI_Send", "buf");
  EXPECT(MPI_Recv(NULL, 4, MPI_INT, 0, 0, MPI_COMM_WORLD, &st), MPI_ERR_BUFFER, "MPI_Recv", "buf");
  EXPECT(MPI_Send(buf, 1, MPI_DATATYPE_NULL, 0, 0, MPI_COMM_WORLD), MPI_ERR_TYPE, "MPI_Send",
         "datatype");
  EXPECT(MPI_Isend(buf, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, NULL), MPI_ERR_ARG, "MPI_Isend",
         "request");
  EXPECT(MPI_Sendrecv(buf, 1, MPI_INT, 0, 0, buf, -1, MPI_INT, 0, 0, MPI_COMM_WORLD, &st),
         MPI_ERR_COUNT, "MPI_Sendrecv", "recvcount");
  EXPECT(MPI_Sendrecv(buf, 1, MPI_INT, 0, -2, buf, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, &st),
         MPI_ERR_TAG, "MPI_Sendrecv", "sendtag");
  EXPECT(MPI_Sendrecv(NULL, 2, MPI_INT, 0, 0, buf, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, &st),
         MPI_ERR_BUFFER, "MPI_Sendrecv", "sendbuf");
  EXPECT(MPI_Sendrecv_replace(buf, 1, MPI_INT, 0, 0, size, 0, MPI_COMM_WORLD, &st), MPI_ERR_RANK,
         "MPI_Sendrecv_replace", "source");
  EXPECT(MPI_Probe(0, -4, MPI_COMM_WORLD, &st), MPI_ERR_TAG, "MPI_Probe", "tag");
  EXPECT(MPI_Iprobe(0, 0, MPI_COMM_WORLD, NULL, &st), MPI_ERR_ARG, "MPI_Iprobe", "flag");
  EXPECT(MPI_Improbe(size, 0, MPI_COMM_WORLD, &flag, NULL, &st), MPI_ERR_RANK, "MPI_Improbe",
         "source");
  EXPECT(MPI_Send_init(buf, 1, MPI_INT, size, 0, MPI_COMM_WORLD, &req), MPI_ERR_RANK,
         "MPI_Send_init", "dest");
  EXPECT(MPI_Recv_init(buf, -1, MPI_INT, 0, 0, MPI_COMM_WORLD, &req), MPI_ERR_COUNT,
         "MPI_Recv_init", "count");
  EXPECT(MPI_Recv(buf, 1, MPI_INT, rank, 0, MPI_COMM_WORLD, NULL), MPI_ERR_ARG, "MPI_Recv",
         "status");
  EXPECT(MPI_Probe(rank, 0, MPI_COMM_WORLD, NULL), MPI_ERR_ARG, "MPI_Probe", "status");
}

static void requests(void) {
  int buf[4] = {0}, flag, index, outcount;
  MPI_Request req, copy, reqs[2];
  MPI_Status st;
  MPI_Message msg = MPI_MESSAGE_NULL;
  /* A freed handle: Request_free sets the caller's to null; a copy still names the old one. */
  MPI_Irecv(buf, 1, MPI_INT, rank, 77, MPI_COMM_WORLD, &req);
  copy = req;
  MPI_Cancel(&req);
  MPI_Wait(&req, MPI_STATUS_IGNORE);
  EXPECT(MPI_Wait(&copy, &st), MPI_ERR_REQUEST, "MPI_Wait", "request");
  EXPECT(MPI_Test(&copy, &flag, &st), MPI_ERR_REQUEST, "MPI_Test", "request");
  EXPECT(MPI_Request_free(&copy), MPI_ERR_REQUEST, "MPI_Request_free", "request");
  reqs[0] = MPI_REQUEST_NULL;
  reqs[1] = copy;
  EXPECT(MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE), MPI_ERR_REQUEST, "MPI_Waitall",
         "array_of_requests[1]");
  EXPECT(MPI_Waitany(2, reqs, &index, &st), MPI_ERR_REQUEST, "MPI_Waitany", "array_of_requests[1]");
  EXPECT(MPI_Testsome(2, reqs, &outcount, &index, MPI_STATUSES_IGNORE), MPI_ERR_REQUEST,
         "MPI_Testsome", "array_of_requests[1]");
  EXPECT(MPI_Waitall(2, NULL, MPI_STATUSES_IGNORE), MPI_ERR_ARG, "MPI_Waitall",
         "array_of_requests");
  EXPECT(MPI_Startall(1, NULL), MPI_ERR_ARG, "MPI_Startall", "array_of_requests");
  reqs[0] = MPI_REQUEST_NULL;
  EXPECT(MPI_Waitall(1, reqs, NULL), MPI_ERR_ARG, "MPI_Waitall", "array_of_statuses");
  EXPECT(MPI_Waitsome(1, reqs, &outcount, NULL, MPI_STATUSES_IGNORE), MPI_ERR_ARG, "MPI_Waitsome",
         "array_of_indices");
  EXPECT(MPI_Wait(reqs, NULL), MPI_ERR_ARG, "MPI_Wait", "status");
  EXPECT(MPI_Cancel(&copy), MPI_ERR_REQUEST, "MPI_Cancel", "request");
  EXPECT(MPI_Request_get_status(copy, &flag, &st), MPI_ERR_REQUEST, "MPI_Request_get_status",
         "request");
  /* Starting a nonpersistent request, or an active persistent one. */
  MPI_Irecv(buf, 1, MPI_INT, rank, 78, MPI_COMM_WORLD, &req);
  EXPECT(MPI_Start(&req), MPI_ERR_REQUEST, "MPI_Start", "request");
  MPI_Cancel(&req);
  MPI_Wait(&req, MPI_STATUS_IGNORE);
  MPI_Recv_init(buf, 1, MPI_INT, rank, 79, MPI_COMM_WORLD, &req);
  MPI_Start(&req);
  EXPECT(MPI_Start(&req), MPI_ERR_REQUEST, "MPI_Start", "request");
  reqs[0] = req;
  reqs[1] = req;
  MPI_Cancel(&req);
  MPI_Wait(&req, MPI_STATUS_IGNORE);
  /* The same inactive request twice in one MPI_Startall: the second is already active. */
  EXPECT(MPI_Startall(2, reqs), MPI_ERR_REQUEST, "MPI_Startall", "array_of_requests[1]");
  flag = 0;
  MPI_Request_get_status(req, &flag, &st);
  MTEST_CHECK(flag, "a failed MPI_Startall left the request active");
  EXPECT(MPI_Cancel(&req), MPI_ERR_REQUEST, "MPI_Cancel", "request");
  MPI_Request_free(&req);
  /* A count of INT_MAX over an array of 2 whose second handle is bad: the call stops there. */
  reqs[0] = MPI_REQUEST_NULL;
  reqs[1] = (MPI_Request)0x12345678;
  EXPECT(MPI_Waitall(INT_MAX, reqs, MPI_STATUSES_IGNORE), MPI_ERR_REQUEST, "MPI_Waitall",
         "array_of_requests[1]");
  EXPECT(MPI_Testall(INT_MAX, reqs, &flag, MPI_STATUSES_IGNORE), MPI_ERR_REQUEST, "MPI_Testall",
         "array_of_requests[1]");
  EXPECT(MPI_Mrecv(buf, 1, MPI_INT, &msg, &st), MPI_ERR_REQUEST, "MPI_Mrecv", "message");
  msg = (MPI_Message)0x8c0000ff; /* a message handle never given out */
  EXPECT(MPI_Imrecv(buf, 1, MPI_INT, &msg, &req), MPI_ERR_REQUEST, "MPI_Imrecv", "message");
}

static void buffers_and_statuses(void) {
  int buf[4] = {0}, n;
  char attach[256];
  void *back;
  EXPECT(MPI_Bsend(buf, 1, MPI_INT, 0, 0, MPI_COMM_WORLD), MPI_ERR_BUFFER, "MPI_Bsend",
         "MPI_Buffer_attach");
  EXPECT(MPI_Buffer_attach(attach, -1), MPI_ERR_ARG, "MPI_Buffer_attach", "size");
  EXPECT(MPI_Buffer_attach(NULL, 10), MPI_ERR_BUFFER, "MPI_Buffer_attach", "buffer");
  MPI_Buffer_attach(attach, sizeof attach);
  EXPECT(MPI_Buffer_attach(attach, sizeof attach), MPI_ERR_BUFFER, "MPI_Buffer_attach",
         "already attached");
  EXPECT(MPI_Bsend(buf, 200, MPI_INT, 0, 0, MPI_COMM_WORLD), MPI_ERR_BUFFER, "MPI_Bsend",
         "does not fit");
  MPI_Buffer_detach(&back, &n);
  MPI_Request req;
  EXPECT(MPI_Isend(MPI_IN_PLACE, 1, MPI_INT, rank, 5, MPI_COMM_WORLD, &req), MPI_ERR_BUFFER,
         "MPI_Isend", "MPI_IN_PLACE");
  EXPECT(MPI_Send(MPI_IN_PLACE, 1, MPI_INT, rank, 5, MPI_COMM_WORLD), MPI_ERR_BUFFER, "MPI_Send",
         "argument buf");
  EXPECT(MPI_Recv(MPI_IN_PLACE, 1, MPI_INT, rank, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE),
         MPI_ERR_BUFFER, "MPI_Recv", "MPI_IN_PLACE");
  EXPECT(MPI_Sendrecv(buf, 1, MPI_INT, rank, 5, MPI_IN_PLACE, 1, MPI_INT, rank, 5, MPI_COMM_WORLD,
                      MPI_STATUS_IGNORE),
         MPI_ERR_BUFFER, "MPI_Sendrecv", "argument recvbuf");
  EXPECT(MPI_Get_count(MPI_STATUS_IGNORE, MPI_INT, &n), MPI_ERR_ARG, "MPI_Get_count", "status");
  MPI_Status st;
  memset(&st, 0, sizeof st);
  EXPECT(MPI_Get_count(&st, MPI_DATATYPE_NULL, &n), MPI_ERR_TYPE, "MPI_Get_count", "datatype");
  EXPECT(MPI_Get_elements(&st, MPI_INT, NULL), MPI_ERR_ARG, "MPI_Get_elements", "count");
  EXPECT(MPI_Status_set_elements(&st, MPI_INT, -1), MPI_ERR_COUNT, "MPI_Status_set_elements",
         "count");
  EXPECT(MPI_Test_cancelled(&st, NULL), MPI_ERR_ARG, "MPI_Test_cancelled", "flag");
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  messaging();
  requests();
  buffers_and_statuses();
  return mtest_finalize();
}

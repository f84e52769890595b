/* Every large-count (_c) messaging call moves real data: rank 0 sends one message with each
 * send form (blocking, nonblocking, synchronous, ready, buffered, persistent), rank 1 receives
 * them with each receive form (blocking, nonblocking, persistent, matched probe), eager and
 * rendezvous sizes, and checks contents and MPI_Get_count_c. */
#include <stdlib.h>
#include <string.h>

#include "mtest.h"

#define NFORMS 12
static const MPI_Count kSizes[] = {3, 5000}; /* doubles: 24 bytes and 40000 bytes */

static double value(int form, int k, MPI_Count i) { return form * 1000.0 + k * 100.0 + i * 0.5; }

/* Ready sends need the receive posted: rank 1 says so with a zero-byte message. */
static void wait_ready(void) {
  MPI_Recv(NULL, 0, MPI_INT, 1, 99, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
}
static void say_ready(void) { MPI_Send(NULL, 0, MPI_INT, 0, 99, MPI_COMM_WORLD); }
static int is_ready_form(int form) { return form == 2 || form == 5 || form == 8; }
static int is_buffered_form(int form) { return form == 3 || form == 7 || form == 11; }

static void send_form(int form, double *buf, MPI_Count n, int tag) {
  MPI_Request req;
  if (is_ready_form(form)) wait_ready();
  switch (form) {
    case 0:
      MPI_Send_c(buf, n, MPI_DOUBLE, 1, tag, MPI_COMM_WORLD);
      return;
    case 1:
      MPI_Ssend_c(buf, n, MPI_DOUBLE, 1, tag, MPI_COMM_WORLD);
      return;
    case 2:
      MPI_Rsend_c(buf, n, MPI_DOUBLE, 1, tag, MPI_COMM_WORLD);
      return;
    case 3:
      MPI_Bsend_c(buf, n, MPI_DOUBLE, 1, tag, MPI_COMM_WORLD);
      return;
    case 4:
      MPI_Isend_c(buf, n, MPI_DOUBLE, 1, tag, MPI_COMM_WORLD, &req);
      break;
    case 5:
      MPI_Irsend_c(buf, n, MPI_DOUBLE, 1, tag, MPI_COMM_WORLD, &req);
      break;
    case 6:
      MPI_Issend_c(buf, n, MPI_DOUBLE, 1, tag, MPI_COMM_WORLD, &req);
      break;
    case 7:
      MPI_Ibsend_c(buf, n, MPI_DOUBLE, 1, tag, MPI_COMM_WORLD, &req);
      break;
    case 8:
      MPI_Rsend_init_c(buf, n, MPI_DOUBLE, 1, tag, MPI_COMM_WORLD, &req);
      break;
    case 9:
      MPI_Send_init_c(buf, n, MPI_DOUBLE, 1, tag, MPI_COMM_WORLD, &req);
      break;
    case 10:
      MPI_Ssend_init_c(buf, n, MPI_DOUBLE, 1, tag, MPI_COMM_WORLD, &req);
      break;
    default:
      MPI_Bsend_init_c(buf, n, MPI_DOUBLE, 1, tag, MPI_COMM_WORLD, &req);
      break;
  }
  if (form >= 8) MPI_Start(&req);
  MPI_Wait(&req, MPI_STATUS_IGNORE);
  if (form >= 8) MPI_Request_free(&req);
}

/* Receives with form (tag % 4); returns the status. */
static void recv_form(int form, double *buf, MPI_Count n, int tag, MPI_Status *st) {
  MPI_Request req;
  MPI_Message msg;
  int how = tag % 4;
  if (how == 0) {
    if (is_ready_form(form)) {
      MPI_Irecv_c(buf, n, MPI_DOUBLE, 0, tag, MPI_COMM_WORLD, &req);
      say_ready();
      MPI_Wait(&req, st);
    } else {
      MPI_Recv_c(buf, n, MPI_DOUBLE, 0, tag, MPI_COMM_WORLD, st);
    }
  } else if (how == 1) {
    MPI_Irecv_c(buf, n, MPI_DOUBLE, 0, tag, MPI_COMM_WORLD, &req);
    if (is_ready_form(form)) say_ready();
    MPI_Wait(&req, st);
  } else if (how == 2) {
    MPI_Recv_init_c(buf, n, MPI_DOUBLE, 0, tag, MPI_COMM_WORLD, &req);
    MPI_Start(&req);
    if (is_ready_form(form)) say_ready();
    MPI_Wait(&req, st);
    MPI_Request_free(&req);
  } else {
    /* A ready send needs a posted receive: matched probes take the others only. */
    if (is_ready_form(form)) {
      MPI_Irecv_c(buf, n, MPI_DOUBLE, 0, tag, MPI_COMM_WORLD, &req);
      say_ready();
      MPI_Wait(&req, st);
      return;
    }
    MPI_Mprobe(0, tag, MPI_COMM_WORLD, &msg, st);
    if ((tag / 8) % 2 == 0) {
      MPI_Mrecv_c(buf, n, MPI_DOUBLE, &msg, st);
    } else {
      MPI_Imrecv_c(buf, n, MPI_DOUBLE, &msg, &req);
      MPI_Wait(&req, st);
    }
  }
}

int main(int argc, char **argv) {
  int rank;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  double *buf = malloc(5000 * sizeof(double));
  MPI_Count bsize = 5000 * sizeof(double) + MPI_BSEND_OVERHEAD;
  void *bbuf = malloc(bsize);
  if (rank == 0) MPI_Buffer_attach_c(bbuf, bsize);
  for (int form = 0; form < NFORMS; form++) {
    for (int k = 0; k < 2; k++) {
      for (int how = 0; how < 4; how++) {
        MPI_Count n = kSizes[k];
        int tag = form * 16 + k * 8 + how;
        if (rank == 0) {
          for (MPI_Count i = 0; i < n; i++) buf[i] = value(form, k, i);
          send_form(form, buf, n, tag);
          /* A buffered message must have left before the next uses the buffer. */
          if (is_buffered_form(form))
            MPI_Recv(NULL, 0, MPI_INT, 1, 98, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else if (rank == 1) {
          MPI_Status st;
          MPI_Count count = -1;
          memset(buf, 0, n * sizeof(double));
          recv_form(form, buf, n, tag, &st);
          if (is_buffered_form(form)) MPI_Send(NULL, 0, MPI_INT, 0, 98, MPI_COMM_WORLD);
          MPI_Get_count_c(&st, MPI_DOUBLE, &count);
          int bad = count != n || st.MPI_TAG != tag;
          for (MPI_Count i = 0; i < n; i++) bad |= buf[i] != value(form, k, i);
          MTEST_CHECK(!bad, "send form %d, receive form %d, %ld doubles: count %ld", form, how,
                      (long)n, (long)count);
        }
      }
    }
  }
  if (rank == 0) {
    void *back;
    MPI_Count size;
    MPI_Buffer_detach_c(&back, &size);
    MTEST_CHECK(back == bbuf && size == bsize, "MPI_Buffer_detach_c");
  }
  free(bbuf);
  free(buf);
  return mtest_finalize();
}

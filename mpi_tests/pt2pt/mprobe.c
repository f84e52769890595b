/* Matched probes under a race: every other rank sends rank 0 a stream of messages of varying
 * sizes (eager and rendezvous) on one tag; rank 0 takes them with MPI_Mprobe/MPI_Improbe on
 * MPI_ANY_SOURCE and receives each with MPI_Mrecv/MPI_Imrecv into a buffer of exactly the
 * probed size: it must get exactly the probed message (source, size, contents, and each
 * source's messages in order), never another that arrived meanwhile. Also: a probe of
 * MPI_PROC_NULL gives MPI_MESSAGE_NO_PROC, whose receive is empty; MPI_Improbe finds nothing
 * before anything is sent; the _c forms of the receives. */
#include <stdlib.h>
#include <string.h>

#include "mtest.h"

#define NMSG 24
#define TAG 5

static int size_of(int src, int seq) {
  if (seq % 6 == 5) return 20000 + 1000 * src; /* rendezvous */
  return (seq * 37 + src * 11) % 3000;
}
static char pattern(int src, int seq, int i) { return (char)(src * 7 + seq * 3 + i); }

static void send_stream(int rank) {
  char *buf = malloc(40000);
  for (int seq = 0; seq < NMSG; seq++) {
    int n = size_of(rank, seq);
    for (int i = 0; i < n; i++) buf[i] = pattern(rank, seq, i);
    MPI_Send(buf, n, MPI_CHAR, 0, TAG, MPI_COMM_WORLD);
  }
  free(buf);
}

static void check(const char *buf, const MPI_Status *st, int src, int seq, const char *how) {
  int count = -1, n = size_of(src, seq), ok = 1;
  MPI_Get_count(st, MPI_CHAR, &count);
  MTEST_CHECK(st->MPI_SOURCE == src && count == n, "%s: source %d count %d, want %d/%d", how,
              st->MPI_SOURCE, count, src, n);
  for (int i = 0; i < n && ok; i++) ok = buf[i] == pattern(src, seq, i);
  MTEST_CHECK(ok, "%s: contents of message %d from %d", how, seq, src);
}

static void receive_streams(int size) {
  int next[64] = {0};
  for (int n = 0; n < (size - 1) * NMSG; n++) {
    MPI_Message msg = MPI_MESSAGE_NULL;
    MPI_Status st, rst;
    if (n % 2 == 0) {
      MPI_Mprobe(MPI_ANY_SOURCE, TAG, MPI_COMM_WORLD, &msg, &st);
    } else {
      for (int flag = 0; !flag;) MPI_Improbe(MPI_ANY_SOURCE, TAG, MPI_COMM_WORLD, &flag, &msg, &st);
    }
    MTEST_CHECK(msg != MPI_MESSAGE_NULL && msg != MPI_MESSAGE_NO_PROC, "probe gave no message");
    int src = st.MPI_SOURCE, count = -1;
    MPI_Get_count(&st, MPI_CHAR, &count);
    if (src < 1 || src >= size || count < 0) {
      MTEST_CHECK(0, "probed source %d count %d", src, count);
      continue;
    }
    MTEST_CHECK(count == size_of(src, next[src]), "probed %d bytes from %d, want %d", count, src,
                size_of(src, next[src]));
    char *buf = malloc(count + 1);
    if (n % 4 < 2) {
      MPI_Mrecv(buf, count, MPI_CHAR, &msg, &rst);
    } else {
      MPI_Request req;
      MPI_Imrecv_c(buf, count, MPI_CHAR, &msg, &req);
      MPI_Wait(&req, &rst);
    }
    MTEST_CHECK(msg == MPI_MESSAGE_NULL,
                "the message handle is not MPI_MESSAGE_NULL after the receive");
    check(buf, &rst, src, next[src], n % 4 < 2 ? "MPI_Mrecv" : "MPI_Imrecv_c");
    next[src]++;
    free(buf);
  }
  for (int s = 1; s < size; s++) MTEST_CHECK(next[s] == NMSG, "%d messages from %d", next[s], s);
}

static void proc_null_and_nothing(int rank) {
  MPI_Message msg = MPI_MESSAGE_NULL;
  MPI_Status st;
  int flag = 0, count = -1, x = 42;
  MPI_Mprobe(MPI_PROC_NULL, 0, MPI_COMM_WORLD, &msg, &st);
  MTEST_CHECK(msg == MPI_MESSAGE_NO_PROC, "MPI_Mprobe of MPI_PROC_NULL gave 0x%x", msg);
  MTEST_CHECK(st.MPI_SOURCE == MPI_PROC_NULL && st.MPI_TAG == MPI_ANY_TAG, "proc-null status");
  MPI_Mrecv_c(&x, 1, MPI_INT, &msg, &st);
  MPI_Get_count(&st, MPI_INT, &count);
  MTEST_CHECK(msg == MPI_MESSAGE_NULL && count == 0 && x == 42 && st.MPI_SOURCE == MPI_PROC_NULL,
              "MPI_Mrecv of MPI_MESSAGE_NO_PROC: msg 0x%x count %d", msg, count);
  msg = MPI_MESSAGE_NULL;
  MPI_Improbe(MPI_PROC_NULL, 0, MPI_COMM_WORLD, &flag, &msg, &st);
  MTEST_CHECK(flag && msg == MPI_MESSAGE_NO_PROC, "MPI_Improbe of MPI_PROC_NULL");
  MPI_Request req;
  MPI_Imrecv(&x, 1, MPI_INT, &msg, &req);
  MPI_Wait(&req, &st);
  MTEST_CHECK(st.MPI_SOURCE == MPI_PROC_NULL && msg == MPI_MESSAGE_NULL, "MPI_Imrecv of NO_PROC");
  /* Nothing has been sent with tag 99 by anyone. */
  msg = MPI_MESSAGE_NULL;
  flag = 1;
  MPI_Improbe(MPI_ANY_SOURCE, 99, MPI_COMM_WORLD, &flag, &msg, &st);
  MTEST_CHECK(!flag && msg == MPI_MESSAGE_NULL, "MPI_Improbe found a message never sent");
  (void)rank;
}

int main(int argc, char **argv) {
  int rank, size;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  proc_null_and_nothing(rank);
  if (rank == 0) {
    receive_streams(size);
  } else {
    send_stream(rank);
  }
  return mtest_finalize();
}

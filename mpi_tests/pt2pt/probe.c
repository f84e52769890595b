/* MPI_Probe and MPI_Iprobe: nothing is found before the message is sent (the sender sends only
 * after a barrier that the prober reaches after probing); a blocking probe then finds it, with
 * its source, tag and size, for eager and rendezvous sizes, and MPI_ANY_SOURCE/MPI_ANY_TAG;
 * the probe leaves the message for the receive. A rank waiting in MPI_Probe keeps its own
 * queued sends going: rank 0 queues more than the shared-memory ring holds, then probes for a
 * reply that rank 1 sends only after receiving all of them. */
#include <stdlib.h>
#include <string.h>

#include "mtest.h"

static const int kSizes[] = {0, 5, 16384, 16385, 200000};
#define NSIZES ((int)(sizeof kSizes / sizeof kSizes[0]))
#define NQUEUED 64
#define QUEUED_SIZE 16000

static void probe_then_receive(int rank, int size, char *buf) {
  int peer = size - 1; /* rank 0 probes for the last rank's messages */
  for (int k = 0; k < NSIZES; k++) {
    int n = kSizes[k];
    if (rank == 0) {
      int flag = 1;
      MPI_Status st;
      for (int i = 0; i < 10 && flag; i++) {
        flag = 0;
        MPI_Iprobe(peer, k, MPI_COMM_WORLD, &flag, &st);
      }
      MTEST_CHECK(!flag, "MPI_Iprobe found a message that is not sent yet");
      MPI_Barrier(MPI_COMM_WORLD);
      /* Iprobe until found: each call must make progress. */
      for (flag = 0; !flag;) MPI_Iprobe(MPI_ANY_SOURCE, k, MPI_COMM_WORLD, &flag, &st);
      int count = -1;
      MPI_Get_count(&st, MPI_BYTE, &count);
      MTEST_CHECK(st.MPI_SOURCE == peer && st.MPI_TAG == k && count == n,
                  "MPI_Iprobe status %d/%d/%d, want %d/%d/%d", st.MPI_SOURCE, st.MPI_TAG, count,
                  peer, k, n);
      /* A second probe, blocking, sees the same message. */
      MPI_Probe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
      MPI_Get_count(&st, MPI_BYTE, &count);
      MTEST_CHECK(st.MPI_SOURCE == peer && st.MPI_TAG == k && count == n,
                  "MPI_Probe status %d/%d/%d", st.MPI_SOURCE, st.MPI_TAG, count);
      MPI_Recv(buf, count, MPI_BYTE, st.MPI_SOURCE, st.MPI_TAG, MPI_COMM_WORLD, &st);
      int ok = 1;
      for (int i = 0; i < n; i++) ok &= buf[i] == (char)(i + k);
      MTEST_CHECK(ok, "message of %d bytes received after the probe differs", n);
    } else {
      MPI_Barrier(MPI_COMM_WORLD);
      if (rank == peer) {
        for (int i = 0; i < n; i++) buf[i] = (char)(i + k);
        MPI_Send(buf, n, MPI_BYTE, 0, k, MPI_COMM_WORLD);
      }
    }
  }
}

static void probe_progresses_sends(int rank, char *buf) {
  if (rank == 0) {
    MPI_Request reqs[NQUEUED];
    MPI_Status st;
    for (int i = 0; i < NQUEUED; i++)
      MPI_Isend(buf, QUEUED_SIZE, MPI_BYTE, 1, 200, MPI_COMM_WORLD, &reqs[i]);
    MPI_Probe(1, 201, MPI_COMM_WORLD, &st);
    int got = -1;
    MPI_Recv(&got, 1, MPI_INT, 1, 201, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MTEST_CHECK(got == NQUEUED, "rank 1 received %d messages", got);
    MPI_Waitall(NQUEUED, reqs, MPI_STATUSES_IGNORE);
  } else if (rank == 1) {
    char *in = malloc(QUEUED_SIZE);
    int n = 0;
    for (; n < NQUEUED; n++)
      MPI_Recv(in, QUEUED_SIZE, MPI_BYTE, 0, 200, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Send(&n, 1, MPI_INT, 0, 201, MPI_COMM_WORLD);
    free(in);
  }
}

static void probe_self(int rank) {
  int out[3] = {rank, 7, 9}, in[3] = {0, 0, 0}, count = -1, flag = 0;
  MPI_Status st;
  MPI_Request req;
  MPI_Isend(out, 3, MPI_INT, rank, 300, MPI_COMM_WORLD, &req);
  MPI_Probe(rank, 300, MPI_COMM_WORLD, &st);
  MPI_Get_count(&st, MPI_INT, &count);
  MTEST_CHECK(count == 3 && st.MPI_SOURCE == rank, "self probe: count %d source %d", count,
              st.MPI_SOURCE);
  MPI_Iprobe(rank, 300, MPI_COMM_WORLD, &flag, &st);
  MTEST_CHECK(flag, "self iprobe did not find the message that MPI_Probe found");
  MPI_Recv(in, 3, MPI_INT, rank, 300, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  MPI_Wait(&req, MPI_STATUS_IGNORE);
  MTEST_CHECK(in[0] == rank && in[1] == 7 && in[2] == 9, "self message after probe");
  MPI_Iprobe(rank, 300, MPI_COMM_WORLD, &flag, &st);
  MTEST_CHECK(!flag, "the received message is still found by MPI_Iprobe");
}

int main(int argc, char **argv) {
  int rank, size;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  char *buf = calloc(200000, 1);
  probe_then_receive(rank, size, buf);
  probe_progresses_sends(rank, buf);
  probe_self(rank);
  free(buf);
  return mtest_finalize();
}

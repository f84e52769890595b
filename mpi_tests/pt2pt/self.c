/* Messages to self through every kind of call: eager and rendezvous sizes with nonblocking
 * sends and receives posted in either order, synchronous and ready sends, probes, matched
 * probes, buffered and persistent sends. Also a singleton (one rank). */
#include <stdlib.h>
#include <string.h>

#include "mtest.h"

static const int kSizes[] = {0, 10, 16384, 16385, 1 << 20};
#define NSIZES ((int)(sizeof kSizes / sizeof kSizes[0]))

static void fill(char *b, int n, int salt) {
  for (int i = 0; i < n; i++) b[i] = (char)(i ^ salt);
}
static int same(const char *b, int n, int salt) {
  for (int i = 0; i < n; i++)
    if (b[i] != (char)(i ^ salt)) return 0;
  return 1;
}

int main(int argc, char **argv) {
  int rank;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  char *out = malloc((1 << 20) + 1), *in = malloc((1 << 20) + 1);
  for (int k = 0; k < NSIZES; k++) {
    int n = kSizes[k], count = -1;
    MPI_Request rs, rr;
    MPI_Status st;
    /* send first, then receive */
    fill(out, n, k);
    MPI_Isend(out, n, MPI_CHAR, rank, k, MPI_COMM_WORLD, &rs);
    MPI_Recv(in, n, MPI_CHAR, rank, k, MPI_COMM_WORLD, &st);
    MPI_Wait(&rs, MPI_STATUS_IGNORE);
    MPI_Get_count(&st, MPI_CHAR, &count);
    MTEST_CHECK(count == n && same(in, n, k) && st.MPI_SOURCE == rank, "Isend/Recv %d", n);
    /* receive first, synchronous send */
    fill(out, n, k + 1);
    MPI_Irecv(in, n, MPI_CHAR, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &rr);
    MPI_Ssend(out, n, MPI_CHAR, rank, 100 + k, MPI_COMM_WORLD);
    MPI_Wait(&rr, &st);
    MTEST_CHECK(same(in, n, k + 1) && st.MPI_TAG == 100 + k, "Irecv/Ssend %d", n);
    /* ready send: the receive is posted */
    fill(out, n, k + 2);
    MPI_Irecv(in, n, MPI_CHAR, rank, 200, MPI_COMM_WORLD, &rr);
    MPI_Rsend(out, n, MPI_CHAR, rank, 200, MPI_COMM_WORLD);
    MPI_Wait(&rr, MPI_STATUS_IGNORE);
    MTEST_CHECK(same(in, n, k + 2), "Irecv/Rsend %d", n);
    /* matched probe */
    fill(out, n, k + 3);
    MPI_Issend(out, n, MPI_CHAR, rank, 300, MPI_COMM_WORLD, &rs);
    MPI_Message msg;
    MPI_Mprobe(rank, 300, MPI_COMM_WORLD, &msg, &st);
    MPI_Get_count(&st, MPI_CHAR, &count);
    MTEST_CHECK(count == n, "Mprobe count %d want %d", count, n);
    MPI_Imrecv(in, n, MPI_CHAR, &msg, &rr);
    MPI_Wait(&rr, MPI_STATUS_IGNORE);
    MPI_Wait(&rs, MPI_STATUS_IGNORE);
    MTEST_CHECK(same(in, n, k + 3), "Issend/Mprobe/Imrecv %d", n);
    /* buffered */
    int bsize = n + MPI_BSEND_OVERHEAD;
    char *bbuf = malloc(bsize);
    MPI_Buffer_attach(bbuf, bsize);
    fill(out, n, k + 4);
    MPI_Bsend(out, n, MPI_CHAR, rank, 400, MPI_COMM_WORLD);
    memset(out, 0, (unsigned)n);
    MPI_Recv(in, n, MPI_CHAR, rank, 400, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MTEST_CHECK(same(in, n, k + 4), "Bsend/Recv %d", n);
    void *back;
    MPI_Buffer_detach(&back, &bsize);
    free(bbuf);
    /* persistent, three times */
    MPI_Send_init(out, n, MPI_CHAR, rank, 500, MPI_COMM_WORLD, &rs);
    MPI_Recv_init(in, n, MPI_CHAR, rank, 500, MPI_COMM_WORLD, &rr);
    for (int r = 0; r < 3; r++) {
      fill(out, n, k + r);
      MPI_Start(&rr);
      MPI_Start(&rs);
      MPI_Wait(&rs, MPI_STATUS_IGNORE);
      MPI_Wait(&rr, MPI_STATUS_IGNORE);
      MTEST_CHECK(same(in, n, k + r), "persistent %d round %d", n, r);
    }
    MPI_Request_free(&rs);
    MPI_Request_free(&rr);
  }
  free(out);
  free(in);
  return mtest_finalize();
}

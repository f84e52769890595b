/* Ordering per (source, tag): every other rank sends rank 0 many messages of mixed sizes, eager
 * and rendezvous (the shm eager limit is 16K), on two tags. Rank 0 receives them first by
 * explicit source and tag, in an order unlike the sending order (so that messages wait in the
 * unexpected queue), then, in a second round, with MPI_ANY_SOURCE and MPI_ANY_TAG; in both,
 * each (source, tag) stream must arrive in the order sent, with its size and contents. */
#include <stdlib.h>
#include <string.h>

#include "mtest.h"

#define NSEQ 20
#define NTAGS 2
static const int kSizes[] = {0, 1, 7, 1000, 16383, 16384, 16385, 65536, 300001, (4 << 20) + 3};
#define NSIZES ((int)(sizeof kSizes / sizeof kSizes[0]))
#define MAXSIZE ((4 << 20) + 3)

static int size_of(int seq) { return kSizes[(seq * 3) % NSIZES]; }
static unsigned char pattern(int src, int tag, int seq, long i) {
  return (unsigned char)(seq * 31 + i * 7 + src * 13 + tag * 5 + (i >> 12));
}

static void fill(unsigned char *buf, int src, int tag, int seq) {
  for (long i = 0; i < size_of(seq); i++) buf[i] = pattern(src, tag, seq, i);
}

static int check_message(const unsigned char *buf, const MPI_Status *st, int src, int tag,
                         int seq) {
  int count = -1;
  MPI_Get_count(st, MPI_BYTE, &count);
  MTEST_CHECK(st->MPI_SOURCE == src && st->MPI_TAG == tag, "status %d/%d, want %d/%d",
              st->MPI_SOURCE, st->MPI_TAG, src, tag);
  MTEST_CHECK(count == size_of(seq), "from %d tag %d seq %d: %d bytes, want %d", src, tag, seq,
              count, size_of(seq));
  if (count != size_of(seq)) return 0;
  for (long i = 0; i < count; i++) {
    if (buf[i] != pattern(src, tag, seq, i)) {
      MTEST_CHECK(0, "from %d tag %d seq %d: byte %ld is %d, want %d", src, tag, seq, i, buf[i],
                  pattern(src, tag, seq, i));
      return 0;
    }
  }
  return 1;
}

static void send_round(int rank) {
  unsigned char *bufs[NSEQ * NTAGS];
  MPI_Request reqs[NSEQ * NTAGS];
  for (int seq = 0; seq < NSEQ; seq++) {
    for (int t = 0; t < NTAGS; t++) {
      int k = seq * NTAGS + t;
      bufs[k] = malloc(size_of(seq) + 1);
      fill(bufs[k], rank, t + 1, seq);
      MPI_Isend(bufs[k], size_of(seq), MPI_BYTE, 0, t + 1, MPI_COMM_WORLD, &reqs[k]);
    }
  }
  MPI_Waitall(NSEQ * NTAGS, reqs, MPI_STATUSES_IGNORE);
  for (int k = 0; k < NSEQ * NTAGS; k++) free(bufs[k]);
}

/* Round 1: sources from the last, tag 2 before tag 1, by explicit source and tag. */
static void receive_explicit(int size, unsigned char *buf) {
  for (int src = size - 1; src >= 1; src--) {
    for (int t = NTAGS; t >= 1; t--) {
      for (int seq = 0; seq < NSEQ; seq++) {
        MPI_Status st;
        MPI_Recv(buf, MAXSIZE, MPI_BYTE, src, t, MPI_COMM_WORLD, &st);
        check_message(buf, &st, src, t, seq);
      }
    }
  }
}

/* Round 2: whatever comes first; each (source, tag) stream must still be in order. */
static void receive_any(int size, unsigned char *buf) {
  int next[64][NTAGS + 1];
  memset(next, 0, sizeof next);
  for (int n = 0; n < (size - 1) * NSEQ * NTAGS; n++) {
    MPI_Status st;
    MPI_Recv(buf, MAXSIZE, MPI_BYTE, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
    int src = st.MPI_SOURCE, tag = st.MPI_TAG;
    if (src < 1 || src >= size || tag < 1 || tag > NTAGS) {
      MTEST_CHECK(0, "message from %d with tag %d", src, tag);
      continue;
    }
    check_message(buf, &st, src, tag, next[src][tag]);
    next[src][tag]++;
  }
  for (int src = 1; src < size; src++)
    for (int t = 1; t <= NTAGS; t++)
      MTEST_CHECK(next[src][t] == NSEQ, "%d messages from %d tag %d", next[src][t], src, t);
}

int main(int argc, char **argv) {
  int rank, size;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (rank == 0) {
    unsigned char *buf = malloc(MAXSIZE);
    receive_explicit(size, buf);
    receive_any(size, buf);
    free(buf);
  } else {
    send_round(rank);
    send_round(rank);
  }
  return mtest_finalize();
}

/* The completion calls over arrays. Rank 1 sends its messages one at a time, each only when
 * rank 0 asks (a zero-byte "go" message), so rank 0 knows exactly which receives can be
 * complete: MPI_Testany/MPI_Testsome/MPI_Testall find nothing (and free nothing) before the
 * first go; MPI_Waitany returns the index of the one receive that can complete and frees it
 * (its handle becomes MPI_REQUEST_NULL); MPI_Waitsome reports the completed ones by index with
 * their statuses; MPI_REQUEST_NULL entries and inactive persistent requests take no part, and
 * an array of nothing else gives MPI_UNDEFINED (or flag true for MPI_Testall). */
#include <stdlib.h>
#include <string.h>

#include "mtest.h"

#define NREQ 5

static void go(int tag) { MPI_Send(NULL, 0, MPI_INT, 1, 1000 + tag, MPI_COMM_WORLD); }

static void sender(void) {
  /* Answers each go(tag) with one int carrying the tag. */
  for (;;) {
    MPI_Status st;
    MPI_Recv(NULL, 0, MPI_INT, 0, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
    int tag = st.MPI_TAG - 1000;
    if (tag < 0) break;
    MPI_Send(&tag, 1, MPI_INT, 0, tag, MPI_COMM_WORLD);
  }
}

static void post(MPI_Request *reqs, int *vals) {
  /* reqs[1] and reqs[3] are MPI_REQUEST_NULL; the others receive tags 0, 2, 4. */
  for (int i = 0; i < NREQ; i++) {
    vals[i] = -1;
    reqs[i] = MPI_REQUEST_NULL;
    if (i % 2 == 0) MPI_Irecv(&vals[i], 1, MPI_INT, 1, i, MPI_COMM_WORLD, &reqs[i]);
  }
}

static void test_calls_find_nothing(MPI_Request *reqs) {
  int index = 7, flag = 1, outcount = 7, indices[NREQ];
  MPI_Request copy[NREQ];
  memcpy(copy, reqs, sizeof copy);
  MPI_Testany(NREQ, reqs, &index, &flag, MPI_STATUS_IGNORE);
  MTEST_CHECK(!flag && index == MPI_UNDEFINED, "MPI_Testany: flag %d index %d", flag, index);
  MPI_Testsome(NREQ, reqs, &outcount, indices, MPI_STATUSES_IGNORE);
  MTEST_CHECK(outcount == 0, "MPI_Testsome: outcount %d", outcount);
  flag = 1;
  MPI_Testall(NREQ, reqs, &flag, MPI_STATUSES_IGNORE);
  MTEST_CHECK(!flag, "MPI_Testall: flag %d", flag);
  MTEST_CHECK(memcmp(copy, reqs, sizeof copy) == 0,
              "a test call that found nothing freed a request");
}

static void receiver(void) {
  MPI_Request reqs[NREQ];
  int vals[NREQ], index = -1, outcount = -1, indices[NREQ];
  MPI_Status st, sts[NREQ];
  post(reqs, vals);
  test_calls_find_nothing(reqs);
  go(2);
  MPI_Waitany(NREQ, reqs, &index, &st);
  MTEST_CHECK(index == 2 && st.MPI_TAG == 2 && vals[2] == 2 && reqs[2] == MPI_REQUEST_NULL,
              "MPI_Waitany: index %d tag %d", index, st.MPI_TAG);
  go(4);
  MPI_Waitsome(NREQ, reqs, &outcount, indices, sts);
  MTEST_CHECK(outcount == 1 && indices[0] == 4 && sts[0].MPI_TAG == 4 && vals[4] == 4 &&
                  reqs[4] == MPI_REQUEST_NULL,
              "MPI_Waitsome: outcount %d index %d", outcount, indices[0]);
  go(0);
  /* Testany polls: loop until the last one arrives. */
  int flag = 0;
  while (!flag) MPI_Testany(NREQ, reqs, &index, &flag, &st);
  MTEST_CHECK(index == 0 && vals[0] == 0 && st.MPI_SOURCE == 1, "MPI_Testany: index %d", index);
  /* Now only nulls. */
  MPI_Waitany(NREQ, reqs, &index, &st);
  MTEST_CHECK(index == MPI_UNDEFINED && st.MPI_SOURCE == MPI_ANY_SOURCE, "all-null MPI_Waitany");
  MPI_Waitsome(NREQ, reqs, &outcount, indices, sts);
  MTEST_CHECK(outcount == MPI_UNDEFINED, "all-null MPI_Waitsome: %d", outcount);
  MPI_Testsome(NREQ, reqs, &outcount, indices, sts);
  MTEST_CHECK(outcount == MPI_UNDEFINED, "all-null MPI_Testsome: %d", outcount);
  flag = 0;
  MPI_Testall(NREQ, reqs, &flag, sts);
  MTEST_CHECK(flag && sts[1].MPI_SOURCE == MPI_ANY_SOURCE, "all-null MPI_Testall");
  MPI_Waitall(0, NULL, NULL);

  /* Several at once: post all three, let all three arrive, Waitsome until every one. */
  post(reqs, vals);
  go(0);
  go(2);
  go(4);
  int seen = 0;
  while (seen < 3) {
    MPI_Waitsome(NREQ, reqs, &outcount, indices, sts);
    MTEST_CHECK(outcount >= 1 && outcount <= 3 - seen, "MPI_Waitsome outcount %d", outcount);
    for (int i = 0; i < outcount; i++) {
      int k = indices[i];
      MTEST_CHECK(k % 2 == 0 && sts[i].MPI_TAG == k && vals[k] == k,
                  "MPI_Waitsome entry %d: index %d tag %d", i, k, sts[i].MPI_TAG);
    }
    if (outcount < 1) break;
    seen += outcount;
  }

  /* An inactive persistent request takes no part: Waitany skips it. */
  MPI_Request mixed[2];
  int x = -1;
  MPI_Recv_init(&x, 1, MPI_INT, 1, 9, MPI_COMM_WORLD, &mixed[0]);
  MPI_Irecv(&vals[0], 1, MPI_INT, 1, 6, MPI_COMM_WORLD, &mixed[1]);
  go(6);
  MPI_Waitany(2, mixed, &index, &st);
  MTEST_CHECK(index == 1 && vals[0] == 6, "MPI_Waitany with an inactive request: %d", index);
  MPI_Waitany(2, mixed, &index, &st);
  MTEST_CHECK(index == MPI_UNDEFINED && mixed[0] != MPI_REQUEST_NULL, "only the inactive left");
  MPI_Request_free(&mixed[0]);
  go(-1);
}

int main(int argc, char **argv) {
  int rank;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank == 0) receiver();
  if (rank == 1) sender();
  return mtest_finalize();
}

/* MPI_Alltoall, MPI_Alltoallv, MPI_Alltoallw and their nonblocking forms: blocks of 0, 1, 7 and
 * 1024 ints (v and w: rank r sends n + (r + j) % 3 to rank j, with gaps between blocks; w:
 * byte displacements, and pairs of ints as the send type for odd peers), in place and not. */
#include <stdlib.h>

#include "mtest.h"

static int rank, size;

static int ival(int from, int to, int k) { return from * 1000000 + to * 10000 + k + 1; }

/* form 0/1: blocking/nonblocking; kind 0/1/2: alltoall/v/w. */
static int exchange(int form, int kind, const void *s, const int *sc, const int *sd,
                    const MPI_Datatype *st, void *r, const int *rc, const int *rd,
                    const MPI_Datatype *rt) {
  MPI_Comm w = MPI_COMM_WORLD;
  MPI_Request req;
  int err;
  if (form == 0) {
    if (kind == 0) return MPI_Alltoall(s, sc[0], st[0], r, rc[0], rt[0], w);
    if (kind == 1) return MPI_Alltoallv(s, sc, sd, st[0], r, rc, rd, rt[0], w);
    return MPI_Alltoallw(s, sc, sd, st, r, rc, rd, rt, w);
  }
  if (kind == 0)
    err = MPI_Ialltoall(s, sc[0], st[0], r, rc[0], rt[0], w, &req);
  else if (kind == 1)
    err = MPI_Ialltoallv(s, sc, sd, st[0], r, rc, rd, rt[0], w, &req);
  else
    err = MPI_Ialltoallw(s, sc, sd, st, r, rc, rd, rt, w, &req);
  return err != MPI_SUCCESS ? err : MPI_Wait(&req, MPI_STATUS_IGNORE);
}

static void test(int form, int kind, int n, int in_place) {
  int *sc = malloc(sizeof(int) * size), *rc = malloc(sizeof(int) * size);
  int *sd = malloc(sizeof(int) * size), *rd = malloc(sizeof(int) * size);
  int *sdb = malloc(sizeof(int) * size), *rdb = malloc(sizeof(int) * size);
  MPI_Datatype *st = malloc(sizeof(MPI_Datatype) * size), *rt = malloc(sizeof(MPI_Datatype) * size);
  MPI_Datatype pair;
  MPI_Type_contiguous(2, MPI_INT, &pair);
  MPI_Type_commit(&pair);
  int stotal = 0, rtotal = 0;
  for (int j = 0; j < size; ++j) {
    int c = kind == 0 ? n : n + (rank + j) % 3; /* symmetric: in place needs it */
    sc[j] = rc[j] = c;
    sd[j] = stotal;
    rd[j] = rtotal;
    stotal += c + (kind ? 1 : 0);
    rtotal += c + (kind ? 1 : 0);
    st[j] = rt[j] = MPI_INT;
    sdb[j] = sd[j] * (int)sizeof(int);
    rdb[j] = rd[j] * (int)sizeof(int);
  }
  int *s = malloc(sizeof(int) * (stotal + 1)), *r = malloc(sizeof(int) * (rtotal + 1));
  for (int i = 0; i < rtotal; ++i) r[i] = -1;
  for (int j = 0; j < size; ++j)
    for (int k = 0; k < sc[j]; ++k) (in_place ? r + rd[j] : s + sd[j])[k] = ival(rank, j, k);
  if (kind == 2 && !in_place) /* pairs to odd peers with an even count */
    for (int j = 1; j < size; j += 2)
      if (sc[j] % 2 == 0) {
        st[j] = pair;
        sc[j] /= 2;
      }
  int err = exchange(form, kind, in_place ? MPI_IN_PLACE : s, sc, kind == 2 ? sdb : sd, st, r, rc,
                     kind == 2 ? rdb : rd, rt);
  MTEST_CHECK(err == MPI_SUCCESS, "rc %d", err);
  for (int i = 0; i < size; ++i) {
    for (int k = 0; k < rc[i]; ++k) {
      if (r[rd[i] + k] != ival(i, rank, k)) {
        MTEST_CHECK(0, "form %d kind %d n %d in_place %d: from %d [%d] = %d", form, kind, n,
                    in_place, i, k, r[rd[i] + k]);
        break;
      }
    }
    if (kind) MTEST_CHECK(r[rd[i] + rc[i]] == -1, "gap after block %d written", i);
  }
  MPI_Type_free(&pair);
  free(sc), free(rc), free(sd), free(rd), free(sdb), free(rdb), free(st), free(rt), free(s),
      free(r);
}

/* The same MPI_Alltoallv call three times with the same buffers and array pointers, the
 * send displacements changed in place in between (blocks in rank order, reversed, in order
 * again): a call repeated with other array values must send what the new values say. */
static void repeat_with_changed_sdispls(void) {
  int *sc = malloc(sizeof(int) * size), *sd = malloc(sizeof(int) * size);
  int *rc_ = malloc(sizeof(int) * size), *rd = malloc(sizeof(int) * size);
  int *s = malloc(sizeof(int) * size), *r = malloc(sizeof(int) * size);
  for (int round = 0; round < 3; ++round) {
    for (int j = 0; j < size; ++j) {
      sc[j] = rc_[j] = 1;
      rd[j] = j;
      sd[j] = round == 1 ? size - 1 - j : j;
      s[sd[j]] = ival(rank, j, round);
      r[j] = -1;
    }
    int rc = MPI_Alltoallv(s, sc, sd, MPI_INT, r, rc_, rd, MPI_INT, MPI_COMM_WORLD);
    MTEST_CHECK(rc == MPI_SUCCESS, "repeat round %d: rc %d", round, rc);
    for (int j = 0; j < size; ++j)
      if (r[j] != ival(j, rank, round)) {
        MTEST_CHECK(0, "repeat round %d: from %d got %d", round, j, r[j]);
        break;
      }
  }
  free(sc), free(sd), free(rc_), free(rd), free(s), free(r);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int counts[] = {0, 1, 7, 1024};
  for (int form = 0; form < 2; ++form)
    for (int kind = 0; kind < 3; ++kind)
      for (int c = 0; c < 4; ++c) {
        test(form, kind, counts[c], 0);
        test(form, kind, counts[c], 1);
      }
  repeat_with_changed_sdispls();
  return mtest_finalize();
}

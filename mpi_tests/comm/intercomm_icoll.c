/* Nonblocking and persistent collectives on an intercommunicator of the even and the odd ranks
 * of MPI_COMM_WORLD: every collective in both forms, three rounds whose inputs change from
 * round to round (a persistent request reads them again at each MPI_Start), results checked
 * element by element; several nonblocking ones in flight at once beside point-to-point
 * traffic; one in flight across MPI_Intercomm_merge and one across MPI_Comm_free of its
 * intercommunicator; a user op freed before its reductions ran; a bad root refused at once and
 * vectors of two lengths reported by MPI_Wait at both leaders. Blocking calls come first. */
#include <stdlib.h>

#include "mtest.h"

enum { NB, PERS };
#define ROUNDS 3
#define B 2 /* elements per block */
#define MAXP 64

static int rank, size, color, other, lrank, lsize, rsize, form;
static MPI_Comm inter;

static int world_of(int c, int r) { return 2 * r + c; }
static int group_size(int c) { return c == 0 ? (size + 1) / 2 : size / 2; }
static int root_arg(int root_color, int root) {
  if (color != root_color) return root;
  return lrank == root ? MPI_ROOT : MPI_PROC_NULL;
}
/* What world rank w contributes in round k at element i. */
static int v(int w, int k, int i) { return 1000 * w + 10 * k + i; }
static int sum_v(int c, int k, int i) {
  int s = 0;
  for (int r = 0; r < group_size(c); ++r) s += v(world_of(c, r), k, i);
  return s;
}
static const char *form_name(void) { return form == NB ? "nonblocking" : "persistent"; }

/* Begins round k: the nonblocking call, or the persistent request (made in round 0) started. */
#define ISSUE(req, k, icall, initcall) \
  do {                                 \
    if (form == NB) {                  \
      icall;                           \
    } else {                           \
      if ((k) == 0) initcall;          \
      MPI_Start(req);                  \
    }                                  \
  } while (0)

static void done(MPI_Request *req, int k) {
  MPI_Wait(req, MPI_STATUS_IGNORE);
  if (form == PERS && k == ROUNDS - 1) MPI_Request_free(req);
}

static void fill(int *buf, int n, int value) {
  for (int i = 0; i < n; ++i) buf[i] = value;
}

static void barrier_bcast(void) {
  MPI_Request req;
  for (int k = 0; k < ROUNDS; ++k) {
    ISSUE(&req, k, MPI_Ibarrier(inter, &req), MPI_Barrier_init(inter, MPI_INFO_NULL, &req));
    done(&req, k);
  }
  int buf[3 * B], root = root_arg(0, 0);
  for (int k = 0; k < ROUNDS; ++k) {
    for (int i = 0; i < 3 * B; ++i) buf[i] = color == 0 && lrank == 0 ? v(rank, k, i) : -1;
    ISSUE(&req, k, MPI_Ibcast(buf, 3 * B, MPI_INT, root, inter, &req),
          MPI_Bcast_init(buf, 3 * B, MPI_INT, root, inter, MPI_INFO_NULL, &req));
    done(&req, k);
    for (int i = 0; i < 3 * B; ++i) {
      int want = color == 1 ? v(world_of(0, 0), k, i) : lrank == 0 ? v(rank, k, i) : -1;
      MTEST_CHECK(buf[i] == want, "%s bcast round %d: [%d] = %d, want %d", form_name(), k, i,
                  buf[i], want);
    }
  }
}

static void my_max(void *in, void *inout, int *len, MPI_Datatype *type) {
  (void)type;
  for (int i = 0; i < *len; ++i)
    if (((int *)in)[i] > ((int *)inout)[i]) ((int *)inout)[i] = ((int *)in)[i];
}

static void reductions(void) {
  int in[B], out[B];
  MPI_Request req;
  for (int k = 0; k < ROUNDS; ++k) {
    for (int i = 0; i < B; ++i) in[i] = v(rank, k, i), out[i] = -1;
    ISSUE(
        &req, k, MPI_Ireduce(in, out, B, MPI_INT, MPI_SUM, root_arg(1, 0), inter, &req),
        MPI_Reduce_init(in, out, B, MPI_INT, MPI_SUM, root_arg(1, 0), inter, MPI_INFO_NULL, &req));
    done(&req, k);
    if (color == 1 && lrank == 0)
      for (int i = 0; i < B; ++i)
        MTEST_CHECK(out[i] == sum_v(0, k, i), "%s reduce round %d: [%d] = %d, want %d", form_name(),
                    k, i, out[i], sum_v(0, k, i));
  }
  MPI_Op max;
  for (int k = 0; k < ROUNDS; ++k) {
    for (int i = 0; i < B; ++i) in[i] = v(rank, k, i), out[i] = -1;
    if (form == NB || k == 0) MPI_Op_create(my_max, 1, &max);
    ISSUE(&req, k, MPI_Iallreduce(in, out, B, MPI_INT, max, inter, &req),
          MPI_Allreduce_init(in, out, B, MPI_INT, max, inter, MPI_INFO_NULL, &req));
    if (form == NB || k == 0) MPI_Op_free(&max); /* the reduction holds on to it */
    done(&req, k);
    int want0 = v(world_of(other, group_size(other) - 1), k, 0);
    MTEST_CHECK(out[0] == want0 && out[1] == want0 + 1,
                "%s allreduce (user op) round %d: %d %d, want %d %d", form_name(), k, out[0],
                out[1], want0, want0 + 1);
  }
}

static void gathers(void) {
  int in[B], out[MAXP * B], send[MAXP * B];
  MPI_Request req;
  for (int k = 0; k < ROUNDS; ++k) {
    for (int i = 0; i < B; ++i) in[i] = v(rank, k, i);
    fill(out, MAXP * B, -1);
    ISSUE(&req, k, MPI_Igather(in, B, MPI_INT, out, B, MPI_INT, root_arg(0, 0), inter, &req),
          MPI_Gather_init(in, B, MPI_INT, out, B, MPI_INT, root_arg(0, 0), inter, MPI_INFO_NULL,
                          &req));
    done(&req, k);
    if (color == 0 && lrank == 0)
      for (int j = 0; j < rsize * B; ++j)
        MTEST_CHECK(out[j] == v(world_of(1, j / B), k, j % B), "%s gather round %d: [%d] = %d",
                    form_name(), k, j, out[j]);
  }
  for (int k = 0; k < ROUNDS; ++k) {
    for (int i = 0; i < B; ++i) in[i] = v(rank, k, i);
    fill(out, MAXP * B, -1);
    ISSUE(&req, k, MPI_Iallgather(in, B, MPI_INT, out, B, MPI_INT, inter, &req),
          MPI_Allgather_init(in, B, MPI_INT, out, B, MPI_INT, inter, MPI_INFO_NULL, &req));
    done(&req, k);
    for (int j = 0; j < rsize * B; ++j)
      MTEST_CHECK(out[j] == v(world_of(other, j / B), k, j % B), "%s allgather round %d: [%d] = %d",
                  form_name(), k, j, out[j]);
  }
  for (int k = 0; k < ROUNDS; ++k) {
    for (int j = 0; j < MAXP * B; ++j) send[j] = v(rank, k, j);
    fill(out, B, -1);
    ISSUE(&req, k, MPI_Iscatter(send, B, MPI_INT, out, B, MPI_INT, root_arg(1, 0), inter, &req),
          MPI_Scatter_init(send, B, MPI_INT, out, B, MPI_INT, root_arg(1, 0), inter, MPI_INFO_NULL,
                           &req));
    done(&req, k);
    if (color == 0)
      for (int i = 0; i < B; ++i)
        MTEST_CHECK(out[i] == v(world_of(1, 0), k, lrank * B + i), "%s scatter round %d: [%d] = %d",
                    form_name(), k, i, out[i]);
  }
  for (int k = 0; k < ROUNDS; ++k) {
    for (int j = 0; j < MAXP * B; ++j) send[j] = v(rank, k, j);
    fill(out, MAXP * B, -1);
    ISSUE(&req, k, MPI_Ialltoall(send, B, MPI_INT, out, B, MPI_INT, inter, &req),
          MPI_Alltoall_init(send, B, MPI_INT, out, B, MPI_INT, inter, MPI_INFO_NULL, &req));
    done(&req, k);
    for (int j = 0; j < rsize * B; ++j)
      MTEST_CHECK(out[j] == v(world_of(other, j / B), k, lrank * B + j % B),
                  "%s alltoall round %d: [%d] = %d", form_name(), k, j, out[j]);
  }
}

/* Elements that local rank s sends to local rank d of the other group in the v forms. */
static int cnt(int s, int d) { return 1 + (s + d) % 3; }
/* Counts and gapped displacements (one unused element after each block). */
static int layout(int n, const int *counts, int *displs) {
  int at = 0;
  for (int r = 0; r < n; ++r) displs[r] = at, at += counts[r] + 1;
  return at;
}

static void gathers_v(void) {
  int sc[MAXP], sd[MAXP], rc[MAXP], rd[MAXP], send[MAXP * 5], out[MAXP * 5];
  MPI_Request req;
  for (int r = 0; r < rsize; ++r) sc[r] = cnt(lrank, r), rc[r] = cnt(r, 0);
  layout(rsize, sc, sd);
  layout(rsize, rc, rd);
  int root = root_arg(1, 0); /* gatherv to the odds' rank 0 */
  for (int k = 0; k < ROUNDS; ++k) {
    for (int j = 0; j < MAXP * 5; ++j) send[j] = v(rank, k, j);
    fill(out, MAXP * 5, -1);
    ISSUE(&req, k,
          MPI_Igatherv(send, cnt(lrank, 0), MPI_INT, out, rc, rd, MPI_INT, root, inter, &req),
          MPI_Gatherv_init(send, cnt(lrank, 0), MPI_INT, out, rc, rd, MPI_INT, root, inter,
                           MPI_INFO_NULL, &req));
    done(&req, k);
    if (color == 1 && lrank == 0)
      for (int r = 0; r < rsize; ++r)
        for (int i = 0; i <= rc[r]; ++i) {
          int want = i < rc[r] ? v(world_of(0, r), k, i) : -1;
          MTEST_CHECK(out[rd[r] + i] == want, "%s gatherv round %d: block %d [%d] = %d, want %d",
                      form_name(), k, r, i, out[rd[r] + i], want);
        }
  }
  for (int k = 0; k < ROUNDS; ++k) {
    for (int j = 0; j < MAXP * 5; ++j) send[j] = v(rank, k, j);
    fill(out, MAXP * 5, -1);
    ISSUE(&req, k, MPI_Iallgatherv(send, cnt(lrank, 0), MPI_INT, out, rc, rd, MPI_INT, inter, &req),
          MPI_Allgatherv_init(send, cnt(lrank, 0), MPI_INT, out, rc, rd, MPI_INT, inter,
                              MPI_INFO_NULL, &req));
    done(&req, k);
    for (int r = 0; r < rsize; ++r)
      for (int i = 0; i < rc[r]; ++i)
        MTEST_CHECK(out[rd[r] + i] == v(world_of(other, r), k, i),
                    "%s allgatherv round %d: block %d [%d] = %d", form_name(), k, r, i,
                    out[rd[r] + i]);
  }
  root = root_arg(0, 0); /* scatterv from the evens' rank 0 */
  for (int k = 0; k < ROUNDS; ++k) {
    for (int j = 0; j < MAXP * 5; ++j) send[j] = v(rank, k, j);
    fill(out, MAXP * 5, -1);
    ISSUE(&req, k,
          MPI_Iscatterv(send, sc, sd, MPI_INT, out, cnt(0, lrank), MPI_INT, root, inter, &req),
          MPI_Scatterv_init(send, sc, sd, MPI_INT, out, cnt(0, lrank), MPI_INT, root, inter,
                            MPI_INFO_NULL, &req));
    done(&req, k);
    if (color == 1) {
      /* The root's block for local rank d starts at its displacement sd[d] (cnt(0, j) each). */
      int at = 0;
      for (int j = 0; j < lrank; ++j) at += cnt(0, j) + 1;
      for (int i = 0; i < cnt(0, lrank); ++i)
        MTEST_CHECK(out[i] == v(world_of(0, 0), k, at + i), "%s scatterv round %d: [%d] = %d",
                    form_name(), k, i, out[i]);
    }
  }
}

/* alltoallv, or alltoallw with MPI_INT everywhere and displacements in bytes. */
static void alltoall_vw(int w) {
  int sc[MAXP], sd[MAXP], rc[MAXP], rd[MAXP], send[MAXP * 5], out[MAXP * 5];
  MPI_Datatype types[MAXP];
  MPI_Request req;
  for (int r = 0; r < rsize; ++r) sc[r] = cnt(lrank, r), rc[r] = cnt(r, lrank), types[r] = MPI_INT;
  layout(rsize, sc, sd);
  layout(rsize, rc, rd);
  int sdb[MAXP], rdb[MAXP];
  for (int r = 0; r < rsize; ++r)
    sdb[r] = sd[r] * (int)sizeof(int), rdb[r] = rd[r] * (int)sizeof(int);
  for (int k = 0; k < ROUNDS; ++k) {
    for (int r = 0; r < rsize; ++r)
      for (int i = 0; i < sc[r]; ++i) send[sd[r] + i] = v(rank, k, 10 * r + i);
    fill(out, MAXP * 5, -1);
    if (w)
      ISSUE(&req, k, MPI_Ialltoallw(send, sc, sdb, types, out, rc, rdb, types, inter, &req),
            MPI_Alltoallw_init(send, sc, sdb, types, out, rc, rdb, types, inter, MPI_INFO_NULL,
                               &req));
    else
      ISSUE(&req, k, MPI_Ialltoallv(send, sc, sd, MPI_INT, out, rc, rd, MPI_INT, inter, &req),
            MPI_Alltoallv_init(send, sc, sd, MPI_INT, out, rc, rd, MPI_INT, inter, MPI_INFO_NULL,
                               &req));
    done(&req, k);
    for (int r = 0; r < rsize; ++r)
      for (int i = 0; i <= rc[r]; ++i) {
        int want = i < rc[r] ? v(world_of(other, r), k, 10 * lrank + i) : -1;
        MTEST_CHECK(out[rd[r] + i] == want, "%s alltoall%s round %d: block %d [%d] = %d, want %d",
                    form_name(), w ? "w" : "v", k, r, i, out[rd[r] + i], want);
      }
  }
}

static void reduce_scatters(void) {
  /* One vector length for both groups: lsize x rsize x B elements. */
  int total = lsize * rsize * B, per = rsize * B;
  int *send = malloc(sizeof(int) * total), out[MAXP * B + 1], counts[MAXP];
  MPI_Request req;
  for (int k = 0; k < ROUNDS; ++k) {
    for (int j = 0; j < total; ++j) send[j] = v(rank, k, j);
    fill(out, per, -1);
    ISSUE(&req, k, MPI_Ireduce_scatter_block(send, out, per, MPI_INT, MPI_SUM, inter, &req),
          MPI_Reduce_scatter_block_init(send, out, per, MPI_INT, MPI_SUM, inter, MPI_INFO_NULL,
                                        &req));
    done(&req, k);
    for (int i = 0; i < per; ++i)
      MTEST_CHECK(out[i] == sum_v(other, k, lrank * per + i),
                  "%s reduce_scatter_block round %d: [%d] = %d, want %d", form_name(), k, i, out[i],
                  sum_v(other, k, lrank * per + i));
  }
  /* Uneven blocks: the first one longer, the last one shorter. */
  for (int j = 0; j < lsize; ++j) counts[j] = per;
  if (lsize > 1) counts[0] += 1, counts[lsize - 1] -= 1;
  int first = 0;
  for (int j = 0; j < lrank; ++j) first += counts[j];
  for (int k = 0; k < ROUNDS; ++k) {
    for (int j = 0; j < total; ++j) send[j] = v(rank, k, j);
    fill(out, MAXP * B + 1, -1);
    ISSUE(&req, k, MPI_Ireduce_scatter(send, out, counts, MPI_INT, MPI_SUM, inter, &req),
          MPI_Reduce_scatter_init(send, out, counts, MPI_INT, MPI_SUM, inter, MPI_INFO_NULL, &req));
    done(&req, k);
    for (int i = 0; i < counts[lrank]; ++i)
      MTEST_CHECK(out[i] == sum_v(other, k, first + i),
                  "%s reduce_scatter round %d: [%d] = %d, want %d", form_name(), k, i, out[i],
                  sum_v(other, k, first + i));
  }
  free(send);
}

/* Four nonblocking collectives on the intercommunicator and a ring exchange on
 * MPI_COMM_WORLD, all in flight at once. */
static void together(void) {
  MPI_Request reqs[6];
  int sum = -1, b = color == 0 && lrank == 0 ? 77 : -1, ring = -1, all[MAXP];
  int to = (rank + 1) % size, from = (rank + size - 1) % size, mine[MAXP];
  for (int r = 0; r < rsize; ++r) mine[r] = rank * 100 + r, all[r] = -1;
  MPI_Irecv(&ring, 1, MPI_INT, from, 5, MPI_COMM_WORLD, &reqs[0]);
  MPI_Ibarrier(inter, &reqs[1]);
  MPI_Iallreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, inter, &reqs[2]);
  MPI_Ibcast(&b, 1, MPI_INT, root_arg(0, 0), inter, &reqs[3]);
  MPI_Ialltoall(mine, 1, MPI_INT, all, 1, MPI_INT, inter, &reqs[4]);
  MPI_Isend(&rank, 1, MPI_INT, to, 5, MPI_COMM_WORLD, &reqs[5]);
  MPI_Waitall(6, reqs, MPI_STATUSES_IGNORE);
  int want = 0;
  for (int r = 0; r < rsize; ++r) want += world_of(other, r);
  MTEST_CHECK(sum == want, "allreduce in flight with others: %d, want %d", sum, want);
  if (color == 1) MTEST_CHECK(b == 77, "bcast in flight with others: %d", b);
  MTEST_CHECK(ring == from, "the ring message: %d, want %d", ring, from);
  for (int r = 0; r < rsize; ++r)
    MTEST_CHECK(all[r] == world_of(other, r) * 100 + lrank, "alltoall in flight: [%d] = %d", r,
                all[r]);
}

/* A collective in flight while the intercommunicator is merged, and one in flight on an
 * intercommunicator that is freed before it completes. */
static void across_merge_and_free(void) {
  int sum = -1, want = 0, got[MAXP];
  for (int r = 0; r < rsize; ++r) want += world_of(other, r);
  MPI_Request req;
  MPI_Iallreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, inter, &req);
  MPI_Comm merged;
  MPI_Intercomm_merge(inter, color, &merged);
  int msize = -1;
  MPI_Comm_size(merged, &msize);
  MTEST_CHECK(msize == size, "merged size %d", msize);
  MPI_Wait(&req, MPI_STATUS_IGNORE);
  MTEST_CHECK(sum == want, "allreduce across a merge: %d, want %d", sum, want);
  MPI_Comm_free(&merged);

  MPI_Comm dup, world2;
  MPI_Comm_dup(inter, &dup);
  for (int r = 0; r < rsize; ++r) got[r] = -1;
  MPI_Iallgather(&rank, 1, MPI_INT, got, 1, MPI_INT, dup, &req);
  MPI_Comm_free(&dup);
  MPI_Comm_dup(MPI_COMM_WORLD, &world2); /* communicators come and go meanwhile */
  MPI_Wait(&req, MPI_STATUS_IGNORE);
  for (int r = 0; r < rsize; ++r)
    MTEST_CHECK(got[r] == world_of(other, r), "allgather on a freed intercommunicator: [%d] = %d",
                r, got[r]);
  MPI_Comm_free(&world2);
}

static void errors(void) {
  MPI_Comm_set_errhandler(inter, MPI_ERRORS_RETURN);
  int x = 1, y = 0;
  MPI_Request req = MPI_REQUEST_NULL;
  int rc = MPI_Ibcast(&x, 1, MPI_INT, rsize, inter, &req);
  mtest_expect_error(rc, MPI_ERR_ROOT, "MPI_Ibcast with root = remote size", "root");
  MTEST_CHECK(req == MPI_REQUEST_NULL, "a refused MPI_Ibcast set the request");
  rc = MPI_Exscan(&x, &y, 1, MPI_INT, MPI_SUM, inter);
  mtest_expect_error(rc, MPI_ERR_COMM, "MPI_Exscan on an intercommunicator", "intercommunicator");
  /* The groups' vectors differ in length (1 x evens, 3 x odds): each leader's MPI_Wait
   * reports it, and no member waits for a leader that left. */
  int vec[MAXP * 3] = {0}, got[3];
  rc = MPI_Ireduce_scatter_block(vec, got, color == 0 ? 1 : 3, MPI_INT, MPI_SUM, inter, &req);
  MTEST_CHECK(rc == MPI_SUCCESS, "MPI_Ireduce_scatter_block returned %d", rc);
  rc = MPI_Wait(&req, MPI_STATUS_IGNORE);
  if (lrank == 0) {
    MTEST_CHECK(rc != MPI_SUCCESS, "MPI_Wait of vectors of two lengths succeeded");
    mtest_expect_success_or(rc, MPI_ERR_TRUNCATE, MPI_ERR_ARG, "MPI_Wait, vectors of two lengths",
                            "bytes");
  }
  MPI_Comm_set_errhandler(inter, MPI_ERRORS_ARE_FATAL);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (size < 2 || size > MAXP) {
    MTEST_CHECK(0, "needs 2 to %d processes, not %d", MAXP, size);
    return mtest_finalize();
  }
  color = rank % 2;
  other = 1 - color;
  MPI_Comm half;
  MPI_Comm_split(MPI_COMM_WORLD, color, rank, &half);
  MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, other, 3, &inter);
  MPI_Comm_rank(inter, &lrank);
  MPI_Comm_size(inter, &lsize);
  MPI_Comm_remote_size(inter, &rsize);
  /* Blocking calls first (their local phases may use shared memory), then the other forms
   * (theirs keep to point-to-point from the first one on). */
  int sum = -1, want = 0;
  for (int r = 0; r < rsize; ++r) want += world_of(other, r);
  MPI_Barrier(inter);
  MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, inter);
  MTEST_CHECK(sum == want, "blocking allreduce before the others: %d, want %d", sum, want);
  for (form = NB; form <= PERS; ++form) {
    barrier_bcast();
    reductions();
    gathers();
    gathers_v();
    alltoall_vw(0);
    alltoall_vw(1);
    reduce_scatters();
  }
  together();
  across_merge_and_free();
  errors();
  MPI_Barrier(inter);
  MPI_Comm_free(&inter);
  MPI_Comm_free(&half);
  return mtest_finalize();
}

/* Shared-memory windows: MPI_Win_allocate_shared gives each rank a segment of its own size (rank 0
 * none when there are others), and MPI_Win_shared_query answers every rank's size, disp_unit and
 * base, the segments lying one after the other (contiguous by default); MPI_PROC_NULL answers the
 * first non-empty segment, or size 0 when all are empty. Plain loads and stores into the other
 * ranks' segments are seen by them after MPI_Win_fence, and after MPI_Win_sync + MPI_Barrier +
 * MPI_Win_sync inside MPI_Win_lock_all; an MPI_Put lands at the target's base plus the
 * displacement times the target's own disp_unit. With "alloc_shared_noncontig" the segments
 * still reach each other. The window's attributes are its base, size, disp_unit, flavor
 * MPI_WIN_FLAVOR_SHARED and model MPI_WIN_UNIFIED; MPI_Win_free sets the handle to
 * MPI_WIN_NULL. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "mtest.h"

static int rank, size;

/* Ints in rank r's segment: rank 0 has none when there are other ranks. */
static int ints_of(int r) { return size > 1 && r == 0 ? 0 : (r + 1) * 16; }

/* Odd ranks count displacements in bytes, even ones in ints. */
static int unit_of(int r) { return r % 2 ? 1 : (int)sizeof(int); }

static int value(int writer, int owner, int round) { return round * 10000 + writer * 100 + owner; }

typedef struct {
  MPI_Aint size;
  int unit;
  int *base;
} segment;

static segment query(MPI_Win win, int r) {
  segment s = {-1, -1, NULL};
  int rc = MPI_Win_shared_query(win, r, &s.size, &s.unit, &s.base);
  MTEST_CHECK(rc == MPI_SUCCESS, "MPI_Win_shared_query(rank %d) failed (%d)", r, rc);
  return s;
}

/* Every rank's segment as MPI_Win_shared_query gives it, checked against what it asked for. */
static void query_all(MPI_Win win, segment *seg) {
  for (int r = 0; r < size; ++r) {
    seg[r] = query(win, r);
    MTEST_CHECK(seg[r].size == (MPI_Aint)(ints_of(r) * sizeof(int)),
                "rank %d's segment has %ld bytes, want %ld", r, (long)seg[r].size,
                (long)(ints_of(r) * sizeof(int)));
    MTEST_CHECK(seg[r].unit == unit_of(r), "rank %d's disp_unit is %d, want %d", r, seg[r].unit,
                unit_of(r));
  }
}

/* By default segment r starts where the previous non-empty one ends. */
static void check_contiguous(const segment *seg) {
  const char *end = NULL;
  for (int r = 0; r < size; ++r) {
    if (seg[r].size == 0) continue;
    if (end != NULL)
      MTEST_CHECK((const char *)seg[r].base == end,
                  "rank %d's segment starts at %p, not where the one before ends (%p)", r,
                  (void *)seg[r].base, (const void *)end);
    end = (const char *)seg[r].base + seg[r].size;
  }
}

static void check_proc_null(MPI_Win win, const segment *seg) {
  int first = size > 1 ? 1 : 0;
  segment s = query(win, MPI_PROC_NULL);
  MTEST_CHECK(s.size == seg[first].size && s.unit == seg[first].unit && s.base == seg[first].base,
              "MPI_PROC_NULL: size %ld unit %d base %p, want rank %d's (%ld %d %p)", (long)s.size,
              s.unit, (void *)s.base, first, (long)seg[first].size, seg[first].unit,
              (void *)seg[first].base);
}

/* Rank `rank` stores value(rank, r, round) at index `rank` of every non-empty segment r. */
static void store_all(const segment *seg, int round) {
  for (int r = 0; r < size; ++r)
    if (ints_of(r) > 0) seg[r].base[rank] = value(rank, r, round);
}

/* Every non-empty segment holds every rank's value of this round. */
static void load_all(const segment *seg, int round, const char *how) {
  for (int r = 0; r < size; ++r)
    for (int w = 0; w < size && ints_of(r) > 0; ++w) {
      volatile int *p = seg[r].base;
      MTEST_CHECK(p[w] == value(w, r, round), "%s: rank %d's segment has %d from rank %d, want %d",
                  how, r, p[w], w, value(w, r, round));
    }
}

/* The rank after w that has a segment (w itself when no other has one). */
static int put_target(int w) {
  int t = (w + 1) % size;
  return ints_of(t) > 0 ? t : (t + 1) % size;
}

static void fence_round(MPI_Win win, const segment *seg) {
  MPI_Win_fence(MPI_MODE_NOPRECEDE, win);
  store_all(seg, 1);
  MPI_Win_fence(0, win);
  load_all(seg, 1, "after MPI_Win_fence");
  /* MPI_Put to int 8 + rank of the target, the displacement counted in its own disp_unit. */
  int target = put_target(rank), v = value(rank, target, 2);
  MPI_Aint disp = (MPI_Aint)(8 + rank) * (MPI_Aint)sizeof(int) / unit_of(target);
  MPI_Put(&v, 1, MPI_INT, target, disp, 1, MPI_INT, win);
  MPI_Win_fence(MPI_MODE_NOSUCCEED, win);
  for (int w = 0; w < size; ++w)
    if (put_target(w) == rank)
      MTEST_CHECK(seg[rank].base[8 + w] == value(w, rank, 2),
                  "MPI_Put from rank %d left %d at int %d, want %d", w, seg[rank].base[8 + w],
                  8 + w, value(w, rank, 2));
}

/* The standard's pattern for load/store in the unified model. */
static void sync_round(MPI_Win win, const segment *seg) {
  MPI_Win_lock_all(MPI_MODE_NOCHECK, win);
  for (int round = 3; round <= 4; ++round) {
    store_all(seg, round);
    MTEST_CHECK(MPI_Win_sync(win) == MPI_SUCCESS, "MPI_Win_sync failed");
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_sync(win);
    load_all(seg, round, "after MPI_Win_sync + MPI_Barrier + MPI_Win_sync");
    MPI_Barrier(MPI_COMM_WORLD); /* all loads done before the next round's stores */
  }
  MPI_Win_unlock_all(win);
}

static void *attr(MPI_Win win, int key, const char *name) {
  void *v = NULL;
  int flag = 0;
  int rc = MPI_Win_get_attr(win, key, &v, &flag);
  MTEST_CHECK(rc == MPI_SUCCESS && flag, "MPI_Win_get_attr(%s) failed or unset", name);
  return flag ? v : NULL;
}

static void check_attributes(MPI_Win win, void *base) {
  void *b = attr(win, MPI_WIN_BASE, "MPI_WIN_BASE");
  MPI_Aint *s = attr(win, MPI_WIN_SIZE, "MPI_WIN_SIZE");
  int *u = attr(win, MPI_WIN_DISP_UNIT, "MPI_WIN_DISP_UNIT");
  int *f = attr(win, MPI_WIN_CREATE_FLAVOR, "MPI_WIN_CREATE_FLAVOR");
  int *m = attr(win, MPI_WIN_MODEL, "MPI_WIN_MODEL");
  MTEST_CHECK(b == base, "MPI_WIN_BASE %p is not the base MPI_Win_allocate_shared gave (%p)", b,
              base);
  MTEST_CHECK(s && *s == (MPI_Aint)(ints_of(rank) * sizeof(int)), "MPI_WIN_SIZE is %ld",
              s ? (long)*s : -1L);
  MTEST_CHECK(u && *u == unit_of(rank), "MPI_WIN_DISP_UNIT is %d", u ? *u : -1);
  MTEST_CHECK(f && *f == MPI_WIN_FLAVOR_SHARED, "MPI_WIN_CREATE_FLAVOR is %d", f ? *f : -1);
  MTEST_CHECK(m && *m == MPI_WIN_UNIFIED, "MPI_WIN_MODEL is %d", m ? *m : -1);
}

static void contiguous_window(void) {
  int *base = NULL;
  MPI_Win win = MPI_WIN_NULL;
  MPI_Aint bytes = (MPI_Aint)(ints_of(rank) * sizeof(int));
  int rc =
      MPI_Win_allocate_shared(bytes, unit_of(rank), MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
  MTEST_CHECK(rc == MPI_SUCCESS && win != MPI_WIN_NULL, "MPI_Win_allocate_shared failed (%d)", rc);
  if (rc != MPI_SUCCESS) return;
  segment *seg = calloc(size, sizeof *seg);
  query_all(win, seg);
  if (ints_of(rank) > 0)
    MTEST_CHECK(seg[rank].base == base, "my own segment is at %p, MPI_Win_allocate_shared gave %p",
                (void *)seg[rank].base, (void *)base);
  check_contiguous(seg);
  check_proc_null(win, seg);
  check_attributes(win, base);
  fence_round(win, seg);
  sync_round(win, seg);
  free(seg);
  MTEST_CHECK(MPI_Win_free(&win) == MPI_SUCCESS && win == MPI_WIN_NULL,
              "MPI_Win_free failed or left the handle set");
}

/* Non-contiguous segments still reach each other; an all-empty window answers size 0. */
static void other_windows(void) {
  MPI_Info info;
  MPI_Info_create(&info);
  MPI_Info_set(info, "alloc_shared_noncontig", "true");
  int *base = NULL;
  MPI_Win win;
  MPI_Win_allocate_shared(64 * sizeof(int), sizeof(int), info, MPI_COMM_WORLD, &base, &win);
  MPI_Info_free(&info);
  MPI_Win_lock_all(0, win);
  for (int i = 0; i < 64; ++i) base[i] = value(rank, i, 5);
  MPI_Win_sync(win);
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Win_sync(win);
  for (int r = 0; r < size; ++r) {
    segment s = query(win, r);
    MTEST_CHECK(s.size == 64 * sizeof(int) && s.base != NULL, "noncontig: rank %d's segment", r);
    for (int i = 0; i < 64 && s.base; i += 21)
      MTEST_CHECK(s.base[i] == value(r, i, 5), "noncontig: rank %d's int %d is %d, want %d", r, i,
                  s.base[i], value(r, i, 5));
  }
  MPI_Win_unlock_all(win);
  MPI_Win_free(&win);
  MPI_Win_allocate_shared(0, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
  segment s = query(win, MPI_PROC_NULL);
  MTEST_CHECK(s.size == 0, "MPI_PROC_NULL of an all-empty window: size %ld", (long)s.size);
  MPI_Win_free(&win);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  contiguous_window();
  other_windows();
  return mtest_finalize();
}

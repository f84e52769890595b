/* One-sided accumulates on the value-and-index pair types (MPI_2INT, MPI_FLOAT_INT,
 * MPI_DOUBLE_INT, MPI_LONG_INT, MPI_SHORT_INT, MPI_LONG_DOUBLE_INT), whose C structs have
 * padding after or between their fields: MPI_Accumulate with MPI_MAXLOC and MPI_MINLOC from every
 * rank into every other rank's window (ties keep the smaller index), to a target vector (every
 * other element), MPI_Get_accumulate with MPI_MINLOC in rank order (each rank fetches what the
 * ranks before it left), MPI_Fetch_and_op with MPI_MAXLOC and MPI_Accumulate with MPI_REPLACE.
 * The padding bytes of the targets' elements are never written. Across hosts the target applies
 * the op itself (api/win_remote.cc). */
#include <stddef.h>
#include <string.h>

#include "mtest.h"

#define N 6         /* elements per block */
#define PAD 0x5a    /* what the window's padding bytes hold */
#define LOW (-1000) /* the targets' value before MAXLOC */
#define HIGH 1000   /* ... and before MINLOC */

enum { MAX = 0, MIN = N, VEC = 2 * N, REPL = 4 * N, FOP = 5 * N, GACC = 5 * N + 1, ELEMS };

typedef struct {
  MPI_Datatype type;
  const char *name;
  size_t extent, index_at, value_size;
  void (*set)(void *e, int value);
  int (*value)(const void *e);
} kind;

#define PAIR(NAME, V)                                                       \
  typedef struct {                                                          \
    V value;                                                                \
    int index;                                                              \
  } NAME##_t;                                                               \
  static void NAME##_set(void *e, int v) { ((NAME##_t *)e)->value = (V)v; } \
  static int NAME##_value(const void *e) { return (int)((const NAME##_t *)e)->value; }
PAIR(two_int, int)
PAIR(float_int, float)
PAIR(double_int, double)
PAIR(long_int, long)
PAIR(short_int, short)
PAIR(long_double_int, long double)

#define KIND(T, NAME, V) \
  { T, #T, sizeof(NAME##_t), offsetof(NAME##_t, index), sizeof(V), NAME##_set, NAME##_value }
static const kind kinds[] = {KIND(MPI_2INT, two_int, int),
                             KIND(MPI_FLOAT_INT, float_int, float),
                             KIND(MPI_DOUBLE_INT, double_int, double),
                             KIND(MPI_LONG_INT, long_int, long),
                             KIND(MPI_SHORT_INT, short_int, short),
                             KIND(MPI_LONG_DOUBLE_INT, long_double_int, long double)};

static int rank, size;

static void *elem(const kind *k, void *base, int i) { return (char *)base + (size_t)i * k->extent; }

static void set_pair(const kind *k, void *e, int value, int index) {
  k->set(e, value);
  memcpy((char *)e + k->index_at, &index, sizeof index);
}

static int index_of(const kind *k, const void *e) {
  int index;
  memcpy(&index, (const char *)e + k->index_at, sizeof index);
  return index;
}

/* Rank r's value for element i: ranks r and r + 2 tie where i is even. */
static int contribution(int r, int i) { return (i % 2 == 0 ? r / 2 : r) * 10 + i; }

/* The pair every rank's MAXLOC (max) or MINLOC leaves in element i. */
static void expected(int max, int i, int *value, int *index) {
  *value = max ? LOW : HIGH;
  *index = -1;
  for (int r = 0; r < size; ++r) {
    int v = contribution(r, i);
    if (max ? v > *value : v < *value) *value = v, *index = r;
  }
}

static void check(const kind *k, const void *e, int value, int index, const char *what, int i) {
  MTEST_CHECK(k->value(e) == value && index_of(k, e) == index,
              "%s on %s: element %d is (%d, %d), want (%d, %d)", what, k->name, i, k->value(e),
              index_of(k, e), value, index);
}

/* The bytes of e that are neither its value nor its index still hold PAD. */
static void check_padding(const kind *k, const void *e, int i) {
  const unsigned char *b = e;
  int wrong = 0;
  for (size_t at = 0; at < k->extent; ++at) {
    int field = at < k->value_size || (at >= k->index_at && at < k->index_at + sizeof(int));
    if (k->type == MPI_LONG_DOUBLE_INT && at < sizeof(long double)) field = 1;
    wrong += !field && b[at] != PAD;
  }
  MTEST_CHECK(wrong == 0, "%s: %d padding bytes of element %d were written", k->name, wrong, i);
}

static void fill(const kind *k, void *mem) {
  memset(mem, PAD, (size_t)ELEMS * k->extent);
  for (int i = 0; i < N; ++i) {
    set_pair(k, elem(k, mem, MAX + i), LOW, -1);
    set_pair(k, elem(k, mem, MIN + i), HIGH, -1);
    set_pair(k, elem(k, mem, VEC + 2 * i), LOW, -1);
    set_pair(k, elem(k, mem, VEC + 2 * i + 1), -7, -7);
    set_pair(k, elem(k, mem, REPL + i), -7, -7);
  }
  set_pair(k, elem(k, mem, FOP), LOW, -1);
  set_pair(k, elem(k, mem, GACC), HIGH, -1);
}

/* Fence epoch: MAXLOC, MINLOC and the vector from every rank into every rank. */
static void accumulate_all(const kind *k, MPI_Win win, char *mine) {
  MPI_Datatype vec;
  MPI_Type_vector(N, 1, 2, k->type, &vec);
  MPI_Type_commit(&vec);
  for (int i = 0; i < N; ++i) set_pair(k, elem(k, mine, i), contribution(rank, i), rank);
  MPI_Win_fence(0, win);
  for (int t = 0; t < size; ++t) {
    MPI_Accumulate(mine, N, k->type, t, MAX, N, k->type, MPI_MAXLOC, win);
    MPI_Accumulate(mine, N, k->type, t, MIN, N, k->type, MPI_MINLOC, win);
    MPI_Accumulate(mine, N, k->type, t, VEC, 1, vec, MPI_MAXLOC, win);
  }
  set_pair(k, elem(k, mine, 0), 100 + rank, rank);
  MPI_Accumulate(mine, 1, k->type, (rank + 1) % size, REPL + 1, 1, k->type, MPI_REPLACE, win);
  MPI_Win_fence(0, win);
  MPI_Type_free(&vec);
}

/* Passive epochs in rank order: MINLOC through MPI_Get_accumulate on rank 0's GACC, MAXLOC
 * through MPI_Fetch_and_op on its FOP; each rank fetches what the ranks before it left. */
static void fetch_in_turn(const kind *k, MPI_Win win, char *mine, char *got) {
  for (int turn = 0; turn < size; ++turn) {
    if (turn == rank) {
      set_pair(k, mine, 50 - rank, rank);
      MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win);
      MPI_Get_accumulate(mine, 1, k->type, got, 1, k->type, 0, GACC, 1, k->type, MPI_MINLOC, win);
      MPI_Fetch_and_op(mine, elem(k, got, 1), k->type, 0, FOP, MPI_MAXLOC, win);
      MPI_Win_unlock(0, win);
    }
    MPI_Barrier(MPI_COMM_WORLD);
  }
  int want = rank == 0 ? HIGH : 50 - (rank - 1);
  check(k, got, want, rank == 0 ? -1 : rank - 1, "MPI_Get_accumulate(MPI_MINLOC) fetched", 0);
  want = rank == 0 ? LOW : 50;
  check(k, elem(k, got, 1), want, rank == 0 ? -1 : 0, "MPI_Fetch_and_op(MPI_MAXLOC) fetched", 1);
}

static void check_window(const kind *k, char *mem) {
  int value, index;
  for (int i = 0; i < N; ++i) {
    expected(1, i, &value, &index);
    check(k, elem(k, mem, MAX + i), value, index, "MPI_MAXLOC", i);
    check(k, elem(k, mem, VEC + 2 * i), value, index, "MPI_MAXLOC to a vector", 2 * i);
    check(k, elem(k, mem, VEC + 2 * i + 1), -7, -7, "between the vector's elements", 2 * i + 1);
    expected(0, i, &value, &index);
    check(k, elem(k, mem, MIN + i), value, index, "MPI_MINLOC", i);
  }
  int left = (rank + size - 1) % size;
  check(k, elem(k, mem, REPL + 1), 100 + left, left, "MPI_REPLACE", 1);
  check(k, elem(k, mem, REPL), -7, -7, "beside MPI_REPLACE", 0);
  if (rank == 0) {
    check(k, elem(k, mem, GACC), 50 - (size - 1), size - 1, "MPI_Get_accumulate(MPI_MINLOC)", 0);
    check(k, elem(k, mem, FOP), 50, 0, "MPI_Fetch_and_op(MPI_MAXLOC)", 0);
  }
  for (int i = 0; i < ELEMS; ++i) check_padding(k, elem(k, mem, i), i);
}

static void run(const kind *k) {
  char *mem, mine[N * 32], got[2 * 32];
  MPI_Win win;
  MPI_Win_allocate((MPI_Aint)ELEMS * (MPI_Aint)k->extent, (int)k->extent, MPI_INFO_NULL,
                   MPI_COMM_WORLD, &mem, &win);
  MPI_Win_lock(MPI_LOCK_EXCLUSIVE, rank, 0, win);
  fill(k, mem);
  MPI_Win_unlock(rank, win);
  MPI_Barrier(MPI_COMM_WORLD);
  accumulate_all(k, win, mine);
  fetch_in_turn(k, win, mine, got);
  MPI_Win_lock(MPI_LOCK_SHARED, rank, 0, win);
  check_window(k, mem);
  MPI_Win_unlock(rank, win);
  MPI_Win_free(&win);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; ++i) run(&kinds[i]);
  return mtest_finalize();
}

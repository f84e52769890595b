/* Users' ops: MPI_Op_create(_c), MPI_Op_commutative, MPI_Op_free, and what MPI_Reduce_local
 * hands the user function: the elements in operand order (inout = in op inout), their count,
 * and the datatype handle the program passed, predefined or derived, among many other types.
 * The functions call MPI on their datatype argument. The program runs with
 * MPI_THREAD_MULTIPLE, or MPI_THREAD_SINGLE when OP_TEST_THREAD_LEVEL=single (the library
 * finds the datatype handle by two different means in the two modes). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "mtest.h"

static int calls;
static int last_len;
static MPI_Datatype last_type;

/* 2x2 integer matrices, inout = in x inout: not commutative. */
static void matmul(void *invec, void *inoutvec, int *len, MPI_Datatype *datatype) {
  const int *a = invec;
  int *b = inoutvec;
  int size = 0;
  MPI_Type_size(*datatype, &size); /* MPI from inside the user function */
  MTEST_CHECK(size == 4 * (int)sizeof(int), "MPI_Type_size in the user function gave %d", size);
  calls++;
  last_len = *len;
  last_type = *datatype;
  for (int k = 0; k < *len; ++k, a += 4, b += 4) {
    int c[4] = {a[0] * b[0] + a[1] * b[2], a[0] * b[1] + a[1] * b[3], a[2] * b[0] + a[3] * b[2],
                a[2] * b[1] + a[3] * b[3]};
    memcpy(b, c, sizeof c);
  }
}

/* inout = max(|in|, |inout|) on doubles, through the large-count interface. */
static MPI_Count last_count_c;
static void absmax_c(void *invec, void *inoutvec, MPI_Count *len, MPI_Datatype *datatype) {
  const double *a = invec;
  double *b = inoutvec;
  MTEST_CHECK(*datatype == MPI_DOUBLE, "the _c function got datatype 0x%x", (unsigned)*datatype);
  last_count_c = *len;
  for (MPI_Count i = 0; i < *len; ++i) {
    double x = a[i] < 0 ? -a[i] : a[i], y = b[i] < 0 ? -b[i] : b[i];
    b[i] = x > y ? x : y;
  }
}

/* Sums the int of a struct {int; double} and keeps the larger double: user ops take any type. */
struct mixed {
  int n;
  double x;
};
static void mixed_fn(void *invec, void *inoutvec, int *len, MPI_Datatype *datatype) {
  (void)datatype;
  const struct mixed *a = invec;
  struct mixed *b = inoutvec;
  for (int i = 0; i < *len; ++i) {
    b[i].n += a[i].n;
    if (a[i].x > b[i].x) b[i].x = a[i].x;
  }
}

static void operand_order_and_handles(void) {
  MPI_Datatype mat;
  MPI_Type_contiguous(4, MPI_INT, &mat);
  MPI_Type_commit(&mat);
  MPI_Op op;
  MTEST_CHECK(MPI_Op_create(matmul, 0, &op) == MPI_SUCCESS, "MPI_Op_create");
  int commute = -1;
  MPI_Op_commutative(op, &commute);
  MTEST_CHECK(commute == 0, "MPI_Op_commutative gave %d for a non-commutative op", commute);
  int lower[8] = {1, 2, 0, 1, 2, 0, 0, 2}, upper[8] = {1, 0, 3, 1, 1, 0, 0, 1};
  MTEST_CHECK(MPI_Reduce_local(lower, upper, 2, mat, op) == MPI_SUCCESS, "reduce with user op");
  const int want[8] = {7, 2, 3, 1, 2, 0, 0, 2}; /* lower x upper, not upper x lower */
  MTEST_CHECK(memcmp(upper, want, sizeof want) == 0, "matrix product in the wrong order");
  MTEST_CHECK(calls == 1 && last_len == 2, "user function: %d calls, len %d", calls, last_len);
  MTEST_CHECK(last_type == mat, "user function got datatype 0x%x, want 0x%x", (unsigned)last_type,
              (unsigned)mat);
  MPI_Op_free(&op);
  MTEST_CHECK(op == MPI_OP_NULL, "MPI_Op_free did not set MPI_OP_NULL");
  MPI_Type_free(&mat);
}

static void large_count_function(void) {
  MPI_Op op;
  MTEST_CHECK(MPI_Op_create_c(absmax_c, 1, &op) == MPI_SUCCESS, "MPI_Op_create_c");
  int commute = -1;
  MPI_Op_commutative(op, &commute);
  MTEST_CHECK(commute == 1, "MPI_Op_commutative gave %d for a commutative op", commute);
  double in[3] = {-5, 1, 2}, io[3] = {3, -4, 1};
  MTEST_CHECK(MPI_Reduce_local_c(in, io, 3, MPI_DOUBLE, op) == MPI_SUCCESS, "reduce_c");
  MTEST_CHECK(io[0] == 5 && io[1] == 4 && io[2] == 2, "absmax %g %g %g", io[0], io[1], io[2]);
  MTEST_CHECK(last_count_c == 3, "the _c function got count %lld", (long long)last_count_c);
  MPI_Op_free(&op);
}

static void any_type(void) {
  MPI_Datatype t;
  int lengths[2] = {1, 1};
  MPI_Aint disps[2] = {0, sizeof(double)};
  MPI_Datatype types[2] = {MPI_INT, MPI_DOUBLE};
  MPI_Type_create_struct(2, lengths, disps, types, &t);
  MPI_Type_commit(&t);
  MPI_Op op;
  MPI_Op_create(mixed_fn, 1, &op);
  struct mixed in[2] = {{1, 2.5}, {3, -1}}, io[2] = {{10, 1}, {20, 0}};
  MTEST_CHECK(MPI_Reduce_local(in, io, 2, t, op) == MPI_SUCCESS, "user op on a mixed struct");
  MTEST_CHECK(io[0].n == 11 && io[0].x == 2.5 && io[1].n == 23 && io[1].x == 0, "mixed result");
  MPI_Op_free(&op);
  MPI_Type_free(&t);
}

/* Records the handle it gets. */
static void record(void *invec, void *inoutvec, int *len, MPI_Datatype *datatype) {
  (void)invec, (void)inoutvec;
  calls++;
  last_len = *len;
  last_type = *datatype;
}

/* Records each call's length and addresses without touching the data. */
static int piece_lens[4];
static char *piece_in[4], *piece_inout[4];
static void pieces(void *invec, void *inoutvec, int *len, MPI_Datatype *datatype) {
  (void)datatype;
  if (calls < 4) {
    piece_lens[calls] = *len;
    piece_in[calls] = invec;
    piece_inout[calls] = inoutvec;
  }
  calls++;
}

/* More than INT_MAX elements reach an int-length user function in pieces of at most INT_MAX,
 * each at its place (the data is never touched, so small buffers do). */
static void large_count_in_pieces(void) {
  MPI_Op op;
  MPI_Op_create(pieces, 1, &op);
  static char a[4], b[4];
  const MPI_Count count = (MPI_Count)2147483647 + 6;
  calls = 0;
  MTEST_CHECK(MPI_Reduce_local_c(a, b, count, MPI_BYTE, op) == MPI_SUCCESS, "reduce_c");
  MTEST_CHECK(calls == 2, "%d calls, want 2", calls);
  MTEST_CHECK(piece_lens[0] == 2147483647 && piece_lens[1] == 6, "lengths %d %d", piece_lens[0],
              piece_lens[1]);
  MTEST_CHECK(piece_in[0] == a && piece_inout[0] == b, "first piece not at the start");
  MTEST_CHECK((uintptr_t)piece_in[1] == (uintptr_t)a + 2147483647u &&
                  (uintptr_t)piece_inout[1] == (uintptr_t)b + 2147483647u,
              "second piece not after the first");
  MPI_Op_free(&op);
}

/* The handle of a derived type among thousands of others, some freed. */
static void handles_among_many_types(void) {
  enum { TYPES = 3000 };
  static MPI_Datatype types[TYPES];
  for (int i = 0; i < TYPES; ++i) {
    MPI_Type_contiguous(1 + i % 7, MPI_INT, &types[i]);
    MPI_Type_commit(&types[i]);
  }
  for (int i = 0; i < TYPES; ++i)
    if (i % 1000 != 999 && i != 1234) MPI_Type_free(&types[i]);
  MPI_Op op;
  MPI_Op_create(record, 1, &op);
  int a[8] = {0}, b[8] = {0};
  const int kept[] = {999, 1234, 2999, 1999, 1234};
  for (unsigned k = 0; k < sizeof kept / sizeof kept[0]; ++k) {
    calls = 0;
    MPI_Reduce_local(a, b, 1, types[kept[k]], op);
    MTEST_CHECK(calls == 1 && last_type == types[kept[k]],
                "type %d: %d calls, handle 0x%x, want 0x%x", kept[k], calls, (unsigned)last_type,
                (unsigned)types[kept[k]]);
  }
  MPI_Reduce_local(a, b, 2, MPI_SHORT, op);
  MTEST_CHECK(last_type == MPI_SHORT && last_len == 2, "predefined handle 0x%x, len %d",
              (unsigned)last_type, last_len);
  MPI_Op_free(&op);
  for (int i = 999; i < TYPES; i += 1000) MPI_Type_free(&types[i]);
  MPI_Type_free(&types[1234]);
}

static void predefined_commutativity_and_reuse(void) {
  const MPI_Op predefined[] = {MPI_MAX, MPI_MIN, MPI_SUM,  MPI_PROD, MPI_LAND,   MPI_BAND,
                               MPI_LOR, MPI_BOR, MPI_LXOR, MPI_BXOR, MPI_MINLOC, MPI_MAXLOC};
  for (unsigned i = 0; i < sizeof predefined / sizeof predefined[0]; ++i) {
    int commute = -1;
    MTEST_CHECK(MPI_Op_commutative(predefined[i], &commute) == MPI_SUCCESS && commute == 1,
                "predefined op %u: commutative %d", i, commute);
  }
  /* Handles come and go; each one reaches its own function. */
  for (int round = 0; round < 100; ++round) {
    MPI_Op a, b;
    MPI_Op_create(matmul, 0, &a);
    MPI_Op_create_c(absmax_c, 1, &b);
    MTEST_CHECK(a != b, "two live ops share handle 0x%x", (unsigned)a);
    double in = -7, io = 1;
    MPI_Reduce_local(&in, &io, 1, MPI_DOUBLE, b);
    MTEST_CHECK(io == 7, "round %d: %g", round, io);
    MPI_Op_free(&a);
    MPI_Op_free(&b);
  }
}

int main(int argc, char **argv) {
  const char *level = getenv("OP_TEST_THREAD_LEVEL");
  int required = level && strcmp(level, "single") == 0 ? MPI_THREAD_SINGLE : MPI_THREAD_MULTIPLE;
  int provided = -1;
  MPI_Init_thread(&argc, &argv, required, &provided);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  MTEST_CHECK(provided == required, "asked for thread level %d, got %d", required, provided);
  operand_order_and_handles();
  large_count_function();
  any_type();
  handles_among_many_types();
  large_count_in_pieces();
  predefined_commutativity_and_reuse();
  return mtest_finalize();
}

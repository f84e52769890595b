/* Bad arguments to the op calls, under MPI_ERRORS_RETURN: each gives the right error class and
 * a message that names the call, the culprit (argument, op or type) and the rank. */
#include <stdio.h>
#include <string.h>

#include "mtest.h"

static int rank;

static void expect(int rc, int want_class, const char *call, const char *what, const char *more) {
  int cls = -1, len = 0;
  char text[MPI_MAX_ERROR_STRING], rank_text[32];
  MTEST_CHECK(rc != MPI_SUCCESS, "%s (%s) succeeded", call, what);
  if (rc == MPI_SUCCESS) return;
  MPI_Error_class(rc, &cls);
  MTEST_CHECK(cls == want_class, "%s (%s): class %d, want %d", call, what, cls, want_class);
  MPI_Error_string(rc, text, &len);
  snprintf(rank_text, sizeof rank_text, "rank %d", rank);
  MTEST_CHECK(strstr(text, call) && strstr(text, what) && strstr(text, rank_text),
              "message '%s' must name %s, %s and %s", text, call, what, rank_text);
  if (more) MTEST_CHECK(strstr(text, more) != NULL, "message '%s' must say '%s'", text, more);
}

static void noop(void *in, void *inout, int *len, MPI_Datatype *type) {
  (void)in, (void)inout, (void)len, (void)type;
}

static void bad_op_handles(void) {
  int a[4] = {0}, b[4] = {0};
  const char *rl = "MPI_Reduce_local";
  expect(MPI_Reduce_local(a, b, 4, MPI_INT, MPI_OP_NULL), MPI_ERR_OP, rl, "MPI_OP_NULL", NULL);
  expect(MPI_Reduce_local(a, b, 4, MPI_INT, (MPI_Op)0x12345), MPI_ERR_OP, rl, "op", NULL);
  expect(MPI_Reduce_local(a, b, 4, MPI_INT, MPI_REPLACE), MPI_ERR_OP, rl, "MPI_REPLACE",
         "one-sided");
  expect(MPI_Reduce_local(a, b, 4, MPI_INT, MPI_NO_OP), MPI_ERR_OP, rl, "MPI_NO_OP", NULL);
  MPI_Op op, copy;
  MPI_Op_create(noop, 1, &op);
  copy = op;
  MPI_Op_free(&op);
  expect(MPI_Reduce_local(a, b, 4, MPI_INT, copy), MPI_ERR_OP, rl, "freed", NULL);
  expect(MPI_Op_free(&copy), MPI_ERR_OP, "MPI_Op_free", "freed", NULL);
  MPI_Op sum = MPI_SUM;
  expect(MPI_Op_free(&sum), MPI_ERR_OP, "MPI_Op_free", "MPI_SUM", "predefined");
  MTEST_CHECK(sum == MPI_SUM, "a failed MPI_Op_free changed its argument");
  MPI_Op null_op = MPI_OP_NULL;
  expect(MPI_Op_free(&null_op), MPI_ERR_OP, "MPI_Op_free", "MPI_OP_NULL", NULL);
  expect(MPI_Op_free(NULL), MPI_ERR_ARG, "MPI_Op_free", "op", NULL);
  expect(MPI_Op_create(NULL, 1, &op), MPI_ERR_ARG, "MPI_Op_create", "user_fn", NULL);
  expect(MPI_Op_create(noop, 1, NULL), MPI_ERR_ARG, "MPI_Op_create", "op", NULL);
  expect(MPI_Op_create_c(NULL, 0, &op), MPI_ERR_ARG, "MPI_Op_create_c", "user_fn", NULL);
  int commute;
  expect(MPI_Op_commutative(MPI_OP_NULL, &commute), MPI_ERR_OP, "MPI_Op_commutative", "MPI_OP_NULL",
         NULL);
  expect(MPI_Op_commutative(MPI_SUM, NULL), MPI_ERR_ARG, "MPI_Op_commutative", "commute", NULL);
}

/* Pairs the standard forbids: the message names the op and the type. */
static void forbidden_pairs(void) {
  char buf[64] = {0}, io[64] = {0};
  const char *rl = "MPI_Reduce_local";
  expect(MPI_Reduce_local(buf, io, 2, MPI_C_BOOL, MPI_SUM), MPI_ERR_OP, rl, "MPI_SUM",
         "MPI_C_BOOL");
  expect(MPI_Reduce_local(buf, io, 2, MPI_DOUBLE, MPI_BAND), MPI_ERR_OP, rl, "MPI_BAND",
         "MPI_DOUBLE");
  expect(MPI_Reduce_local(buf, io, 2, MPI_FLOAT, MPI_LOR), MPI_ERR_OP, rl, "MPI_LOR", "MPI_FLOAT");
  expect(MPI_Reduce_local(buf, io, 2, MPI_C_DOUBLE_COMPLEX, MPI_MAX), MPI_ERR_OP, rl, "MPI_MAX",
         "MPI_C_DOUBLE_COMPLEX");
  expect(MPI_Reduce_local(buf, io, 2, MPI_INT, MPI_MAXLOC), MPI_ERR_OP, rl, "MPI_MAXLOC",
         "MPI_INT");
  expect(MPI_Reduce_local(buf, io, 2, MPI_2INT, MPI_SUM), MPI_ERR_OP, rl, "MPI_SUM", "MPI_2INT");
  expect(MPI_Reduce_local(buf, io, 2, MPI_BYTE, MPI_MIN), MPI_ERR_OP, rl, "MPI_MIN", "MPI_BYTE");
  expect(MPI_Reduce_local(buf, io, 2, MPI_WCHAR, MPI_MAX), MPI_ERR_OP, rl, "MPI_MAX", "MPI_WCHAR");
  expect(MPI_Reduce_local(buf, io, 2, MPI_INTEGER, MPI_LAND), MPI_ERR_OP, rl, "MPI_LAND",
         "MPI_INTEGER");
  MPI_Datatype mixed;
  int lengths[2] = {1, 1};
  MPI_Aint disps[2] = {0, 8};
  MPI_Datatype types[2] = {MPI_INT, MPI_DOUBLE};
  MPI_Type_create_struct(2, lengths, disps, types, &mixed);
  MPI_Type_commit(&mixed);
  expect(MPI_Reduce_local(buf, io, 2, mixed, MPI_SUM), MPI_ERR_OP, rl, "MPI_SUM",
         "mixing basic types");
  MPI_Type_free(&mixed);
}

static void bad_buffers_counts_types(void) {
  int a[4] = {0}, b[4] = {0};
  const char *rl = "MPI_Reduce_local";
  expect(MPI_Reduce_local(MPI_IN_PLACE, b, 4, MPI_INT, MPI_SUM), MPI_ERR_BUFFER, rl, "inbuf",
         "MPI_IN_PLACE");
  expect(MPI_Reduce_local(a, MPI_IN_PLACE, 4, MPI_INT, MPI_SUM), MPI_ERR_BUFFER, rl, "inoutbuf",
         "MPI_IN_PLACE");
  expect(MPI_Reduce_local(NULL, b, 4, MPI_INT, MPI_SUM), MPI_ERR_BUFFER, rl, "inbuf", "null");
  expect(MPI_Reduce_local(a, NULL, 4, MPI_INT, MPI_SUM), MPI_ERR_BUFFER, rl, "inoutbuf", "null");
  expect(MPI_Reduce_local(a, a, 4, MPI_INT, MPI_SUM), MPI_ERR_BUFFER, rl, "inbuf", "overlap");
  expect(MPI_Reduce_local(a, b, -1, MPI_INT, MPI_SUM), MPI_ERR_COUNT, rl, "count", NULL);
  expect(MPI_Reduce_local_c(a, b, -5, MPI_INT, MPI_SUM), MPI_ERR_COUNT, "MPI_Reduce_local_c",
         "count", NULL);
  expect(MPI_Reduce_local(a, b, 4, MPI_DATATYPE_NULL, MPI_SUM), MPI_ERR_TYPE, rl, "datatype", NULL);
  MPI_Datatype uncommitted;
  MPI_Type_contiguous(2, MPI_INT, &uncommitted);
  expect(MPI_Reduce_local(a, b, 2, uncommitted, MPI_SUM), MPI_ERR_TYPE, rl, "datatype",
         "committed");
  MPI_Type_free(&uncommitted);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  bad_op_handles();
  forbidden_pairs();
  bad_buffers_counts_types();
  return mtest_finalize();
}

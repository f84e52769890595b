/* MPI-4.1's status accessors (MPI_Status_get/set_source, _tag, _error), the tests that leave
 * the requests as they are (MPI_Request_get_status_any, _all, _some: the requests stay valid and
 * a later wait completes them with the same statuses) and MPI_Type_get_value_index's pair
 * types. Bad arguments: errors naming the call, the argument and the rank. */
#include <stddef.h>

#include "mtest.h"

static int rank, size;

static void accessors(void) {
  MPI_Status st;
  int source = -1, tag = -1, error = -1;
  MPI_Status_set_source(&st, 7);
  MPI_Status_set_tag(&st, 8);
  MPI_Status_set_error(&st, MPI_ERR_TAG);
  MPI_Status_get_source(&st, &source);
  MPI_Status_get_tag(&st, &tag);
  MPI_Status_get_error(&st, &error);
  MTEST_CHECK(source == 7 && tag == 8 && error == MPI_ERR_TAG && st.MPI_SOURCE == 7 &&
                  st.MPI_TAG == 8 && st.MPI_ERROR == MPI_ERR_TAG,
              "accessors: source %d tag %d error %d", source, tag, error);
  mtest_expect_arg_error(MPI_Status_get_tag(MPI_STATUS_IGNORE, &tag), MPI_ERR_ARG,
                         "MPI_Status_get_tag", "status");
  mtest_expect_arg_error(MPI_Status_get_source(&st, NULL), MPI_ERR_ARG, "MPI_Status_get_source",
                         "source");
}

static void expect_message(const MPI_Status *st, int tag, const char *what) {
  int count = -1;
  MPI_Get_count(st, MPI_INT, &count);
  MTEST_CHECK(st->MPI_SOURCE == (rank + size - 1) % size && st->MPI_TAG == tag && count == 1,
              "%s: source %d tag %d count %d", what, st->MPI_SOURCE, st->MPI_TAG, count);
}

static void leave_requests(void) {
  int a = 0, b = 0, flag = 1, index = -1, outcount = -1, indices[2], one = 1, two = 2;
  int left = (rank + size - 1) % size, right = (rank + 1) % size;
  MPI_Request reqs[2];
  MPI_Status sts[2];
  MPI_Irecv(&a, 1, MPI_INT, left, 1, MPI_COMM_WORLD, &reqs[0]);
  MPI_Irecv(&b, 1, MPI_INT, left, 2, MPI_COMM_WORLD, &reqs[1]);
  MPI_Request_get_status_all(2, reqs, &flag, sts);
  MTEST_CHECK(!flag, "get_status_all before any send: flag %d", flag);
  MPI_Request_get_status_any(2, reqs, &index, &flag, &sts[0]);
  MTEST_CHECK(!flag && index == MPI_UNDEFINED, "get_status_any before: flag %d index %d", flag,
              index);
  MPI_Barrier(MPI_COMM_WORLD); /* nobody sends before every rank has looked */
  MPI_Send(&two, 1, MPI_INT, right, 2, MPI_COMM_WORLD);
  do {
    MPI_Request_get_status_any(2, reqs, &index, &flag, &sts[0]);
  } while (!flag);
  MTEST_CHECK(index == 1 && reqs[1] != MPI_REQUEST_NULL, "get_status_any: index %d", index);
  expect_message(&sts[0], 2, "get_status_any");
  MPI_Request_get_status_some(2, reqs, &outcount, indices, sts);
  MTEST_CHECK(outcount == 1 && indices[0] == 1, "get_status_some: outcount %d index %d", outcount,
              indices[0]);
  expect_message(&sts[0], 2, "get_status_some");
  MPI_Barrier(MPI_COMM_WORLD); /* the first message stays alone until every rank has looked */
  MPI_Send(&one, 1, MPI_INT, right, 1, MPI_COMM_WORLD);
  do {
    MPI_Request_get_status_all(2, reqs, &flag, sts);
  } while (!flag);
  MTEST_CHECK(reqs[0] != MPI_REQUEST_NULL && reqs[1] != MPI_REQUEST_NULL,
              "get_status_all freed a request");
  expect_message(&sts[0], 1, "get_status_all [0]");
  expect_message(&sts[1], 2, "get_status_all [1]");
  MPI_Waitall(2, reqs, sts);
  MTEST_CHECK(a == 1 && b == 2 && reqs[0] == MPI_REQUEST_NULL, "Waitall after: a %d b %d", a, b);
  expect_message(&sts[1], 2, "Waitall after");

  MPI_Request_get_status_any(2, reqs, &index, &flag, &sts[0]);
  MTEST_CHECK(flag && index == MPI_UNDEFINED, "no active request: any flag %d index %d", flag,
              index);
  MPI_Request_get_status_some(2, reqs, &outcount, indices, sts);
  MTEST_CHECK(outcount == MPI_UNDEFINED, "no active request: some outcount %d", outcount);
  MPI_Request_get_status_all(2, reqs, &flag, sts);
  MTEST_CHECK(flag && sts[0].MPI_SOURCE == MPI_ANY_SOURCE && sts[1].MPI_TAG == MPI_ANY_TAG,
              "no active request: all flag %d, source %d tag %d", flag, sts[0].MPI_SOURCE,
              sts[1].MPI_TAG);
  mtest_expect_arg_error(MPI_Request_get_status_any(2, reqs, NULL, &flag, &sts[0]), MPI_ERR_ARG,
                         "MPI_Request_get_status_any", "index");
  mtest_expect_arg_error(MPI_Request_get_status_some(2, reqs, &outcount, NULL, sts), MPI_ERR_ARG,
                         "MPI_Request_get_status_some", "array_of_indices");
}

static void value_index(void) {
  struct {
    MPI_Datatype value, index, pair;
  } cases[] = {
      {MPI_FLOAT, MPI_INT, MPI_FLOAT_INT},
      {MPI_DOUBLE, MPI_INT, MPI_DOUBLE_INT},
      {MPI_LONG, MPI_INT, MPI_LONG_INT},
      {MPI_INT, MPI_INT, MPI_2INT},
      {MPI_SHORT, MPI_INT, MPI_SHORT_INT},
      {MPI_LONG_DOUBLE, MPI_INT, MPI_LONG_DOUBLE_INT},
      {MPI_REAL, MPI_REAL, MPI_2REAL},
      {MPI_DOUBLE_PRECISION, MPI_DOUBLE_PRECISION, MPI_2DOUBLE_PRECISION},
      {MPI_INTEGER, MPI_INTEGER, MPI_2INTEGER},
      {MPI_DOUBLE, MPI_LONG, MPI_DATATYPE_NULL},
      {MPI_CHAR, MPI_INT, MPI_DATATYPE_NULL},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
    MPI_Datatype pair = MPI_BYTE;
    int rc = MPI_Type_get_value_index(cases[i].value, cases[i].index, &pair);
    MTEST_CHECK(rc == MPI_SUCCESS && pair == cases[i].pair, "case %zu: pair 0x%x, want 0x%x", i,
                (unsigned)pair, (unsigned)cases[i].pair);
  }
  MPI_Datatype pair;
  mtest_expect_arg_error(MPI_Type_get_value_index(MPI_DATATYPE_NULL, MPI_INT, &pair), MPI_ERR_TYPE,
                         "MPI_Type_get_value_index", "value_type");
  mtest_expect_arg_error(MPI_Type_get_value_index(MPI_INT, MPI_INT, NULL), MPI_ERR_ARG,
                         "MPI_Type_get_value_index", "pair_type");
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  accessors();
  leave_requests();
  value_index();
  return mtest_finalize();
}

/* Attributes on windows: a keyval made by MPI_Win_create_keyval carries a value per window that
 * MPI_Win_get_attr finds; setting it again and MPI_Win_delete_attr run the delete callback with
 * the old value; MPI_Win_free runs it for what is left (the standard gives no order); a keyval
 * freed while set stays usable for that value. A communicator keyval is refused on a window and a
 * window keyval on a communicator (MPI_ERR_KEYVAL). */
#include <stddef.h>

#include "mtest.h"

#define MAX_DELETES 16

static int deleted[MAX_DELETES], deletes; /* the values the delete callback saw, in order */

static int note_delete(MPI_Win win, int keyval, void *value, void *extra) {
  (void)win;
  (void)keyval;
  MTEST_CHECK(extra == &deletes, "the delete callback got extra_state %p", extra);
  if (deletes < MAX_DELETES) deleted[deletes] = *(int *)value;
  ++deletes;
  return MPI_SUCCESS;
}

static void expect_value(MPI_Win win, int keyval, const int *want) {
  int *got = NULL, flag = -1;
  MPI_Win_get_attr(win, keyval, &got, &flag);
  if (want == NULL) {
    MTEST_CHECK(flag == 0, "an attribute is set where none should be (flag %d)", flag);
  } else {
    MTEST_CHECK(flag == 1 && got == want, "attribute %p (flag %d), want %p", (void *)got, flag,
                (const void *)want);
  }
}

static void set_get_delete(MPI_Win win, int k1, int k2, int *values) {
  expect_value(win, k1, NULL);
  MPI_Win_set_attr(win, k1, &values[0]);
  MPI_Win_set_attr(win, k2, &values[1]);
  expect_value(win, k1, &values[0]);
  MPI_Win_set_attr(win, k1, &values[2]); /* replaces: deletes values[0] */
  MTEST_CHECK(deletes == 1 && deleted[0] == values[0], "replacing deleted %d values", deletes);
  expect_value(win, k1, &values[2]);
  MPI_Win_delete_attr(win, k2); /* deletes values[1] */
  MTEST_CHECK(deletes == 2 && deleted[1] == values[1], "MPI_Win_delete_attr: %d deletes", deletes);
  expect_value(win, k2, NULL);
  MPI_Win_set_attr(win, k2, &values[3]);
}

static void wrong_kinds(MPI_Win win, int win_keyval) {
  int comm_keyval = MPI_KEYVAL_INVALID, v = 0;
  MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN, &comm_keyval, NULL);
  MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  mtest_expect_error(MPI_Win_set_attr(win, comm_keyval, &v), MPI_ERR_KEYVAL,
                     "MPI_Win_set_attr(comm keyval)", NULL);
  mtest_expect_error(MPI_Comm_set_attr(MPI_COMM_WORLD, win_keyval, &v), MPI_ERR_KEYVAL,
                     "MPI_Comm_set_attr(win keyval)", NULL);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
  MPI_Comm_free_keyval(&comm_keyval);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, *base, k1, k2, values[4];
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  for (int i = 0; i < 4; ++i) values[i] = 100 * rank + i;
  MPI_Win win;
  MPI_Win_allocate(sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
  MPI_Win_create_keyval(MPI_WIN_NULL_COPY_FN, note_delete, &k1, &deletes);
  MPI_Win_create_keyval(MPI_WIN_DUP_FN, note_delete, &k2, &deletes);
  set_get_delete(win, k1, k2, values);
  wrong_kinds(win, k1);
  MPI_Win_free_keyval(&k1); /* the value set with it stays until the window goes */
  MTEST_CHECK(k1 == MPI_KEYVAL_INVALID, "MPI_Win_free_keyval left the handle");
  MPI_Win_free(&win); /* deletes values[2] and values[3] */
  MTEST_CHECK(deletes == 4, "%d delete callbacks in all, want 4", deletes);
  if (deletes == 4) {
    int sum = deleted[2] + deleted[3], want = values[2] + values[3];
    MTEST_CHECK(sum == want && deleted[2] != deleted[3],
                "MPI_Win_free deleted %d and %d, want %d and %d", deleted[2], deleted[3], values[2],
                values[3]);
  }
  MPI_Win_free_keyval(&k2);
  return mtest_finalize();
}

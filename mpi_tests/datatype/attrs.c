/* Attributes on datatypes: a keyval made by MPI_Type_create_keyval carries a value per datatype
 * (derived or predefined) that MPI_Type_get_attr finds; setting it again and
 * MPI_Type_delete_attr run the delete callback with the old value; MPI_Type_dup copies through
 * the copy callback (MPI_TYPE_DUP_FN copies the value, MPI_TYPE_NULL_COPY_FN nothing, a callback
 * that fails fails the dup); MPI_Type_free deletes what is left. A communicator keyval is refused
 * on a datatype, and a datatype keyval on a communicator (MPI_ERR_KEYVAL). */
#include <stddef.h>

#include "mtest.h"

#define MAX_DELETES 16

static int deleted[MAX_DELETES], deletes; /* the values the delete callback saw, in order */

static int note_delete(MPI_Datatype type, int keyval, void *value, void *extra) {
  (void)type;
  (void)keyval;
  MTEST_CHECK(extra == &deletes, "the delete callback got extra_state %p", extra);
  if (deletes < MAX_DELETES) deleted[deletes] = *(int *)value;
  ++deletes;
  return MPI_SUCCESS;
}

static int refuse_copy(MPI_Datatype type, int keyval, void *extra, void *in, void *out, int *flag) {
  (void)type, (void)keyval, (void)extra, (void)in, (void)out;
  *flag = 0;
  return MPI_ERR_OTHER;
}

static void expect_value(MPI_Datatype type, int keyval, const int *want, const char *what) {
  int *got = NULL, flag = -1;
  MPI_Type_get_attr(type, keyval, &got, &flag);
  if (want == NULL) {
    MTEST_CHECK(flag == 0, "%s: an attribute is set where none should be", what);
  } else {
    MTEST_CHECK(flag == 1 && got == want, "%s: attribute %p (flag %d), want %p", what, (void *)got,
                flag, (const void *)want);
  }
}

/* Set, replace, delete on a derived type; values[3] stays set on it with `dup_keyval`. */
static void set_get_delete(MPI_Datatype t, int k1, int dup_keyval, int *values) {
  expect_value(t, k1, NULL, "before set");
  MPI_Type_set_attr(t, k1, &values[0]);
  MPI_Type_set_attr(t, dup_keyval, &values[1]);
  expect_value(t, k1, &values[0], "after set");
  MPI_Type_set_attr(t, k1, &values[2]); /* replaces: deletes values[0] */
  MTEST_CHECK(deletes == 1 && deleted[0] == values[0], "replacing: %d deletes", deletes);
  MPI_Type_delete_attr(t, dup_keyval); /* deletes values[1] */
  MTEST_CHECK(deletes == 2 && deleted[1] == values[1], "MPI_Type_delete_attr: %d deletes", deletes);
  expect_value(t, dup_keyval, NULL, "after delete");
  MPI_Type_set_attr(t, dup_keyval, &values[3]);
}

/* MPI_Type_dup: the MPI_TYPE_DUP_FN keyval's value is copied, k1's (null copy) is not. */
static void duplicate(MPI_Datatype t, int k1, int dup_keyval, int *values) {
  MPI_Datatype copy;
  MPI_Type_dup(t, &copy);
  expect_value(copy, dup_keyval, &values[3], "dup with MPI_TYPE_DUP_FN");
  expect_value(copy, k1, NULL, "dup with MPI_TYPE_NULL_COPY_FN");
  int before = deletes;
  MPI_Type_free(&copy); /* deletes the copy of values[3] */
  MTEST_CHECK(deletes == before + 1 && deleted[before] == values[3], "freeing the dup: %d deletes",
              deletes - before);
}

static void refused(MPI_Datatype t, int *values) {
  int bad, comm_keyval, v = 0;
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  MPI_Type_create_keyval(refuse_copy, MPI_TYPE_NULL_DELETE_FN, &bad, NULL);
  MPI_Type_set_attr(t, bad, &values[0]);
  MPI_Datatype copy = MPI_DATATYPE_NULL;
  MTEST_CHECK(MPI_Type_dup(t, &copy) != MPI_SUCCESS, "a dup whose copy callback failed succeeded");
  MTEST_CHECK(copy == MPI_DATATYPE_NULL, "a failed dup gave a datatype");
  MPI_Type_delete_attr(t, bad);
  MPI_Type_free_keyval(&bad);
  MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN, &comm_keyval, NULL);
  mtest_expect_error(MPI_Type_set_attr(t, comm_keyval, &v), MPI_ERR_KEYVAL,
                     "MPI_Type_set_attr(comm keyval)", NULL);
  MPI_Type_create_keyval(MPI_TYPE_NULL_COPY_FN, MPI_TYPE_NULL_DELETE_FN, &bad, NULL);
  mtest_expect_error(MPI_Comm_set_attr(MPI_COMM_WORLD, bad, &v), MPI_ERR_KEYVAL,
                     "MPI_Comm_set_attr(type keyval)", NULL);
  MPI_Type_free_keyval(&bad);
  MPI_Comm_free_keyval(&comm_keyval);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int k1, k2, values[5] = {10, 11, 12, 13, 14};
  MPI_Datatype t;
  MPI_Type_vector(2, 1, 3, MPI_INT, &t);
  MPI_Type_commit(&t);
  MPI_Type_create_keyval(MPI_TYPE_NULL_COPY_FN, note_delete, &k1, &deletes);
  MPI_Type_create_keyval(MPI_TYPE_DUP_FN, note_delete, &k2, &deletes);
  set_get_delete(t, k1, k2, values);
  duplicate(t, k1, k2, values);
  refused(t, values);
  MPI_Type_set_attr(MPI_INT, k1, &values[4]); /* predefined types carry attributes too */
  expect_value(MPI_INT, k1, &values[4], "on MPI_INT");
  MPI_Type_delete_attr(MPI_INT, k1);
  int before = deletes;
  MPI_Type_free_keyval(&k1); /* values[2] stays on t until it goes */
  MPI_Type_free(&t);         /* deletes values[2] and values[3] */
  MTEST_CHECK(deletes == before + 2, "MPI_Type_free ran %d delete callbacks, want 2",
              deletes - before);
  MPI_Type_free_keyval(&k2);
  return mtest_finalize();
}

/* Attribute callbacks: copies on dup in the order the attributes were set, a copy callback
 * that declines (flag 0) and the predefined MPI_COMM_DUP_FN / MPI_COMM_NULL_COPY_FN; deletes on
 * free in the reverse order, on replace and on delete; a freed keyval lives on while an
 * attribute uses it. */
#include <stdio.h>
#include <string.h>

#include "mtest.h"

static char log_text[512];

static void note(const char *what, int id) {
  char item[32];
  snprintf(item, sizeof item, "%s%d ", what, id);
  strncat(log_text, item, sizeof log_text - strlen(log_text) - 1);
}

static int copy_fn(MPI_Comm comm, int keyval, void *extra, void *in, void *out, int *flag) {
  (void)comm, (void)keyval;
  int id = *(int *)extra;
  note("c", id);
  *(void **)out = in;
  *flag = id != 3; /* keyval 3 declines to be copied */
  return MPI_SUCCESS;
}

static int delete_fn(MPI_Comm comm, int keyval, void *value, void *extra) {
  (void)comm, (void)keyval, (void)value;
  note("d", *(int *)extra);
  return MPI_SUCCESS;
}

static int failing_copy(MPI_Comm comm, int keyval, void *extra, void *in, void *out, int *flag) {
  (void)comm, (void)keyval, (void)extra, (void)in, (void)out, (void)flag;
  return MPI_ERR_OTHER;
}

static void expect_log(const char *want, const char *what) {
  MTEST_CHECK(strcmp(log_text, want) == 0, "%s: callbacks '%s', want '%s'", what, log_text, want);
  log_text[0] = '\0';
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int ids[5] = {0, 1, 2, 3, 4}, keyval[5], values[5] = {10, 11, 12, 13, 14}, flag, *got;
  for (int i = 1; i <= 3; ++i) MPI_Comm_create_keyval(copy_fn, delete_fn, &keyval[i], &ids[i]);
  MPI_Comm_create_keyval(MPI_COMM_DUP_FN, MPI_COMM_NULL_DELETE_FN, &keyval[4], NULL);
  MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, delete_fn, &keyval[0], &ids[0]);
  MPI_Comm parent, child;
  MPI_Comm_dup(MPI_COMM_WORLD, &parent);
  /* Set in the order 2, 1, 3, 0, 4. */
  int order[5] = {2, 1, 3, 0, 4};
  for (int i = 0; i < 5; ++i) MPI_Comm_set_attr(parent, keyval[order[i]], &values[order[i]]);
  expect_log("", "setting");

  MPI_Comm_dup(parent, &child);
  expect_log("c2 c1 c3 ", "dup copies in the order set");
  for (int i = 0; i < 5; ++i) {
    MPI_Comm_get_attr(child, keyval[i], &got, &flag);
    int want = i == 1 || i == 2 || i == 4;
    MTEST_CHECK(flag == want, "keyval %d on the child: flag %d, want %d", i, flag, want);
    if (flag) MTEST_CHECK(got == &values[i], "keyval %d on the child: wrong value", i);
  }
  /* Replacing a value deletes the old one; deleting calls the delete callback. */
  MPI_Comm_set_attr(child, keyval[1], &values[0]);
  expect_log("d1 ", "replace");
  MPI_Comm_get_attr(child, keyval[1], &got, &flag);
  MTEST_CHECK(flag && got == &values[0], "replaced value not returned");
  MPI_Comm_delete_attr(child, keyval[2]);
  expect_log("d2 ", "delete");
  MPI_Comm_get_attr(child, keyval[2], &got, &flag);
  MTEST_CHECK(!flag, "a deleted attribute is still there");
  MPI_Comm_delete_attr(child, keyval[2]);
  expect_log("", "deleting an attribute that is not set");

  /* Freeing a keyval: the attribute stays usable through the communicator. */
  int k1 = keyval[1];
  MPI_Comm_free_keyval(&keyval[1]);
  MTEST_CHECK(keyval[1] == MPI_KEYVAL_INVALID, "freed keyval is %#x", (unsigned)keyval[1]);
  MPI_Comm_free(&child);
  expect_log("d1 ", "free of the child (with a freed keyval)");
  MPI_Comm_free(&parent);
  expect_log("d0 d3 d1 d2 ", "free deletes last set first");
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  int rc = MPI_Comm_set_attr(MPI_COMM_WORLD, k1, &values[1]);
  MTEST_CHECK(rc != MPI_SUCCESS, "a freed keyval could still be used");

  /* A failing copy callback makes the dup fail (and leaves no communicator). */
  int bad;
  MPI_Comm_create_keyval(failing_copy, MPI_COMM_NULL_DELETE_FN, &bad, NULL);
  MPI_Comm_set_attr(MPI_COMM_WORLD, bad, &values[0]);
  MPI_Comm c = MPI_COMM_NULL;
  rc = MPI_Comm_dup(MPI_COMM_WORLD, &c);
  int cls = -1;
  MPI_Error_class(rc, &cls);
  MTEST_CHECK(rc != MPI_SUCCESS && cls == MPI_ERR_OTHER, "dup with a failing copy: rc %d", rc);
  MTEST_CHECK(c == MPI_COMM_NULL, "dup with a failing copy left a communicator");
  MPI_Comm_delete_attr(MPI_COMM_WORLD, bad);
  MPI_Comm_free_keyval(&bad);
  for (int i = 0; i < 5; ++i)
    if (i != 1) MPI_Comm_free_keyval(&keyval[i]);
  return mtest_finalize();
}

/* Bad arguments to the attribute calls, under MPI_ERRORS_RETURN, and the MPI-1 spellings. */
#include <stdio.h>
#include <string.h>

#include "mtest.h"

static void expect(int rc, int want_class, const char *call, const char *text) {
  int cls = -1, len = 0;
  char msg[MPI_MAX_ERROR_STRING];
  MTEST_CHECK(rc != MPI_SUCCESS, "%s succeeded; want class %d", call, want_class);
  if (rc == MPI_SUCCESS) return;
  MPI_Error_class(rc, &cls);
  MTEST_CHECK(cls == want_class, "%s: class %d, want %d", call, cls, want_class);
  MPI_Error_string(rc, msg, &len);
  MTEST_CHECK(strstr(msg, call) && strstr(msg, text), "message '%s' should name %s and '%s'", msg,
              call, text);
}

static int deleted;
static int count_delete(MPI_Comm comm, int keyval, void *value, void *extra) {
  (void)comm, (void)keyval, (void)value, (void)extra;
  deleted++;
  return MPI_SUCCESS;
}
static int refuse_delete(MPI_Comm comm, int keyval, void *value, void *extra) {
  (void)comm, (void)keyval, (void)value, (void)extra;
  return MPI_ERR_OTHER;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  int keyval, flag, value = 3, *got;
  expect(MPI_Comm_set_attr(MPI_COMM_WORLD, MPI_KEYVAL_INVALID, &value), MPI_ERR_KEYVAL,
         "MPI_Comm_set_attr", "MPI_KEYVAL_INVALID");
  expect(MPI_Comm_get_attr(MPI_COMM_WORLD, 0x12345, &got, &flag), MPI_ERR_KEYVAL,
         "MPI_Comm_get_attr", "keyval");
  expect(MPI_Comm_set_attr(MPI_COMM_NULL, MPI_TAG_UB, &value), MPI_ERR_COMM, "MPI_Comm_set_attr",
         "comm");
  expect(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN, NULL, NULL),
         MPI_ERR_ARG, "MPI_Comm_create_keyval", "keyval");
  MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN, &keyval, NULL);
  expect(MPI_Comm_get_attr(MPI_COMM_WORLD, keyval, &got, NULL), MPI_ERR_ARG, "MPI_Comm_get_attr",
         "flag");
  int stale = keyval;
  MPI_Comm_free_keyval(&keyval);
  expect(MPI_Comm_get_attr(MPI_COMM_WORLD, stale, &got, &flag), MPI_ERR_KEYVAL, "MPI_Comm_get_attr",
         "freed");
  expect(MPI_Comm_free_keyval(&stale), MPI_ERR_KEYVAL, "MPI_Comm_free_keyval", "keyval");

  /* A delete callback that refuses: the attribute stays, and the call says why. */
  int stubborn;
  MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, refuse_delete, &stubborn, NULL);
  MPI_Comm_set_attr(MPI_COMM_WORLD, stubborn, &value);
  expect(MPI_Comm_delete_attr(MPI_COMM_WORLD, stubborn), MPI_ERR_OTHER, "MPI_Comm_delete_attr",
         "delete callback");
  MPI_Comm_get_attr(MPI_COMM_WORLD, stubborn, &got, &flag);
  MTEST_CHECK(flag && got == &value, "a refused delete removed the attribute");
  MPI_Comm dup;
  MPI_Comm_dup(MPI_COMM_SELF, &dup);
  MPI_Comm_set_errhandler(dup, MPI_ERRORS_RETURN);
  MPI_Comm_set_attr(dup, stubborn, &value);
  expect(MPI_Comm_free(&dup), MPI_ERR_OTHER, "MPI_Comm_free", "delete callback");
  MTEST_CHECK(dup != MPI_COMM_NULL, "a refused free cleared the handle");

  /* MPI-1 spellings. */
  int old;
  MPI_Keyval_create(MPI_NULL_COPY_FN, count_delete, &old, NULL);
  MPI_Attr_put(MPI_COMM_WORLD, old, &value);
  MPI_Attr_get(MPI_COMM_WORLD, old, &got, &flag);
  MTEST_CHECK(flag && got == &value, "MPI_Attr_get after MPI_Attr_put");
  MPI_Attr_delete(MPI_COMM_WORLD, old);
  MTEST_CHECK(deleted == 1, "MPI_Attr_delete ran %d delete callbacks", deleted);
  MPI_Attr_get(MPI_COMM_WORLD, old, &got, &flag);
  MTEST_CHECK(!flag, "attribute still there after MPI_Attr_delete");
  MPI_Keyval_free(&old);
  MTEST_CHECK(old == MPI_KEYVAL_INVALID, "MPI_Keyval_free left %#x", (unsigned)old);
  return mtest_finalize();
}

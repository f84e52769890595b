/* Bad arguments to the info calls, under MPI_ERRORS_RETURN. */
#include <stdlib.h>
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

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  MPI_Info info;
  int flag, n;
  char value[16], key[MPI_MAX_INFO_KEY + 1];
  MPI_Info_create(&info);
  char long_key[MPI_MAX_INFO_KEY + 2];
  memset(long_key, 'k', sizeof long_key - 1);
  long_key[sizeof long_key - 1] = '\0';
  expect(MPI_Info_set(info, long_key, "v"), MPI_ERR_INFO_KEY, "MPI_Info_set", "MPI_MAX_INFO_KEY");
  expect(MPI_Info_get(info, long_key, 4, value, &flag), MPI_ERR_INFO_KEY, "MPI_Info_get", "key");
  expect(MPI_Info_set(info, "", "v"), MPI_ERR_INFO_KEY, "MPI_Info_set", "empty");
  expect(MPI_Info_set(info, NULL, "v"), MPI_ERR_INFO_KEY, "MPI_Info_set", "key");
  char *long_value = malloc(MPI_MAX_INFO_VAL + 2);
  memset(long_value, 'v', MPI_MAX_INFO_VAL + 1);
  long_value[MPI_MAX_INFO_VAL + 1] = '\0';
  expect(MPI_Info_set(info, "k", long_value), MPI_ERR_INFO_VALUE, "MPI_Info_set",
         "MPI_MAX_INFO_VAL");
  free(long_value);
  expect(MPI_Info_set(info, "k", NULL), MPI_ERR_INFO_VALUE, "MPI_Info_set", "value");
  expect(MPI_Info_delete(info, "absent"), MPI_ERR_INFO_NOKEY, "MPI_Info_delete", "absent");
  expect(MPI_Info_get(info, "k", -1, value, &flag), MPI_ERR_ARG, "MPI_Info_get", "valuelen");
  MPI_Info_set(info, "k", "v");
  expect(MPI_Info_get_nthkey(info, 1, key), MPI_ERR_ARG, "MPI_Info_get_nthkey", "argument n");
  expect(MPI_Info_get_nthkey(info, -1, key), MPI_ERR_ARG, "MPI_Info_get_nthkey", "argument n");
  expect(MPI_Info_get_nkeys(MPI_INFO_NULL, &n), MPI_ERR_INFO, "MPI_Info_get_nkeys",
         "MPI_INFO_NULL");
  expect(MPI_Info_set(MPI_INFO_ENV, "k", "v"), MPI_ERR_INFO, "MPI_Info_set", "MPI_INFO_ENV");
  MPI_Info env = MPI_INFO_ENV;
  expect(MPI_Info_free(&env), MPI_ERR_INFO, "MPI_Info_free", "MPI_INFO_ENV");
  MPI_Info stale = info;
  MPI_Info_free(&info);
  expect(MPI_Info_get_nkeys(stale, &n), MPI_ERR_INFO, "MPI_Info_get_nkeys", "freed");
  expect(MPI_Info_dup(stale, &info), MPI_ERR_INFO, "MPI_Info_dup", "info");
  MPI_Comm c;
  expect(MPI_Comm_dup_with_info(MPI_COMM_WORLD, stale, &c), MPI_ERR_INFO, "MPI_Comm_dup_with_info",
         "info");
  return mtest_finalize();
}

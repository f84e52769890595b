/* MPI_Info round trips: set/get/get_string/get_valuelen/delete/dup/nkeys/nthkey, MPI_INFO_ENV,
 * MPI_Info_create_env, and hints on communicators (set/get_info, dup, dup_with_info). The info
 * calls also work before MPI_Init (MPI-4). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mtest.h"

static void expect_value(MPI_Info info, const char *key, const char *want, const char *what) {
  char value[MPI_MAX_INFO_VAL + 1];
  int flag = 0;
  MPI_Info_get(info, key, MPI_MAX_INFO_VAL, value, &flag);
  if (want == NULL) {
    MTEST_CHECK(!flag, "%s: key '%s' is set", what, key);
  } else {
    MTEST_CHECK(flag && strcmp(value, want) == 0, "%s: key '%s' = '%s', want '%s'", what, key,
                flag ? value : "(unset)", want);
  }
}

int main(int argc, char **argv) {
  /* Before MPI_Init. */
  MPI_Info early;
  MPI_Info_create(&early);
  MPI_Info_set(early, "early", "yes");
  MPI_Init(&argc, &argv);
  expect_value(early, "early", "yes", "an info made before MPI_Init");
  MPI_Info_free(&early);

  MPI_Info info, copy;
  int nkeys, flag, len;
  char key[MPI_MAX_INFO_KEY + 1], value[MPI_MAX_INFO_VAL + 1];
  MPI_Info_create(&info);
  MPI_Info_get_nkeys(info, &nkeys);
  MTEST_CHECK(nkeys == 0, "a new info has %d keys", nkeys);
  MPI_Info_set(info, "zeta", "1");
  MPI_Info_set(info, "alpha", "two");
  MPI_Info_set(info, "mid", "three");
  MPI_Info_set(info, "zeta", "replaced");
  MPI_Info_get_nkeys(info, &nkeys);
  MTEST_CHECK(nkeys == 3, "nkeys %d, want 3", nkeys);
  const char *order[3] = {"zeta", "alpha", "mid"};
  for (int i = 0; i < 3 && i < nkeys; ++i) {
    MPI_Info_get_nthkey(info, i, key);
    MTEST_CHECK(strcmp(key, order[i]) == 0, "key %d is '%s', want '%s'", i, key, order[i]);
  }
  expect_value(info, "zeta", "replaced", "set again");
  MPI_Info_get_valuelen(info, "alpha", &len, &flag);
  MTEST_CHECK(flag && len == 3, "valuelen of alpha: %d", len);
  MPI_Info_get_valuelen(info, "nothing", &len, &flag);
  MTEST_CHECK(!flag, "valuelen of an unset key");
  /* MPI_Info_get truncates to valuelen characters. */
  MPI_Info_get(info, "zeta", 3, value, &flag);
  MTEST_CHECK(flag && strcmp(value, "rep") == 0, "truncated get: '%s'", value);
  /* MPI_Info_get_string: size query, truncation, full value. */
  int buflen = 0;
  MPI_Info_get_string(info, "mid", &buflen, NULL, &flag);
  MTEST_CHECK(flag && buflen == 6, "get_string size query: %d, want 6", buflen);
  buflen = 3;
  MPI_Info_get_string(info, "mid", &buflen, value, &flag);
  MTEST_CHECK(flag && strcmp(value, "th") == 0 && buflen == 6, "get_string into 3: '%s' %d", value,
              buflen);
  buflen = sizeof value;
  MPI_Info_get_string(info, "mid", &buflen, value, &flag);
  MTEST_CHECK(flag && strcmp(value, "three") == 0, "get_string: '%s'", value);

  MPI_Info_dup(info, &copy);
  MPI_Info_delete(info, "alpha");
  expect_value(info, "alpha", NULL, "after delete");
  expect_value(copy, "alpha", "two", "the dup keeps its own keys");
  MPI_Info_get_nkeys(copy, &nkeys);
  MTEST_CHECK(nkeys == 3, "dup has %d keys", nkeys);
  /* Longest key and value allowed. */
  char long_key[MPI_MAX_INFO_KEY + 1], *long_value = malloc(MPI_MAX_INFO_VAL + 1);
  memset(long_key, 'k', MPI_MAX_INFO_KEY);
  long_key[MPI_MAX_INFO_KEY] = '\0';
  memset(long_value, 'v', MPI_MAX_INFO_VAL);
  long_value[MPI_MAX_INFO_VAL] = '\0';
  MPI_Info_set(copy, long_key, long_value);
  MPI_Info_get_valuelen(copy, long_key, &len, &flag);
  MTEST_CHECK(flag && len == MPI_MAX_INFO_VAL, "longest value: %d", len);
  free(long_value);

  /* MPI_INFO_ENV and MPI_Info_create_env. */
  int size;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  char want[32];
  snprintf(want, sizeof want, "%d", size);
  expect_value(MPI_INFO_ENV, "maxprocs", want, "MPI_INFO_ENV");
  MPI_Info_get(MPI_INFO_ENV, "command", sizeof value - 1, value, &flag);
  MTEST_CHECK(flag && strstr(value, "info_basic") != NULL, "MPI_INFO_ENV command: '%s'",
              flag ? value : "(unset)");
  MPI_Info env;
  MPI_Info_create_env(argc, argv, &env);
  expect_value(env, "maxprocs", want, "MPI_Info_create_env");
  MPI_Info_free(&env);

  /* Hints on communicators. */
  MPI_Comm dup, dup2;
  MPI_Info used;
  MPI_Comm_set_info(MPI_COMM_WORLD, info);
  MPI_Comm_get_info(MPI_COMM_WORLD, &used);
  expect_value(used, "zeta", "replaced", "MPI_Comm_get_info");
  expect_value(used, "mid", "three", "MPI_Comm_get_info");
  MPI_Info_free(&used);
  MPI_Comm_dup(MPI_COMM_WORLD, &dup);
  MPI_Comm_get_info(dup, &used);
  expect_value(used, "zeta", "replaced", "hints of a dup");
  MPI_Info_free(&used);
  MPI_Comm_dup_with_info(MPI_COMM_WORLD, copy, &dup2);
  MPI_Comm_get_info(dup2, &used);
  expect_value(used, "alpha", "two", "dup_with_info");
  MPI_Info_free(&used);
  MPI_Comm_free(&dup);
  MPI_Comm_free(&dup2);
  MPI_Info_free(&info);
  MPI_Info_free(&copy);
  MTEST_CHECK(info == MPI_INFO_NULL && copy == MPI_INFO_NULL, "freed infos are not null");
  return mtest_finalize();
}

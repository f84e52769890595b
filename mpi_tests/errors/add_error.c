/* MPI_Add_error_class, MPI_Add_error_code and MPI_Add_error_string: added codes have their
 * class (MPI_Error_class) and string (MPI_Error_string, empty until set), lie above
 * MPI_ERR_LASTCODE, never collide with the codes MPI returns, and MPI_LASTUSEDCODE on
 * MPI_COMM_WORLD follows the largest. Bad arguments give MPI_ERR_ARG naming the call, the
 * argument and the rank. */
#include <string.h>

#include "mtest.h"

static int last_used_code(void) {
  int *value = NULL, flag = 0;
  MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_LASTUSEDCODE, &value, &flag);
  MTEST_CHECK(flag && value != NULL, "MPI_LASTUSEDCODE is not set");
  return flag && value ? *value : -1;
}

static void expect_class(int code, int want, const char *what) {
  int cls = -1;
  int rc = MPI_Error_class(code, &cls);
  MTEST_CHECK(rc == MPI_SUCCESS && cls == want, "%s: class of %d is %d (rc %d), want %d", what,
              code, cls, rc, want);
}

static void expect_string(int code, const char *want, const char *what) {
  char text[MPI_MAX_ERROR_STRING];
  int len = -1;
  int rc = MPI_Error_string(code, text, &len);
  MTEST_CHECK(rc == MPI_SUCCESS && strcmp(text, want) == 0 && len == (int)strlen(want),
              "%s: string of %d is '%s' (length %d, rc %d), want '%s'", what, code, text, len, rc,
              want);
}

static void bad_arguments(int cls, int code, int predefined_code) {
  int out, rc;
  char long_text[MPI_MAX_ERROR_STRING + 20];
  mtest_expect_arg_error(MPI_Add_error_class(NULL), MPI_ERR_ARG, "MPI_Add_error_class",
                         "errorclass");
  mtest_expect_arg_error(MPI_Add_error_code(cls, NULL), MPI_ERR_ARG, "MPI_Add_error_code",
                         "errorcode");
  mtest_expect_arg_error(MPI_Add_error_code(code, &out), MPI_ERR_ARG, "MPI_Add_error_code",
                         "errorclass");
  mtest_expect_arg_error(MPI_Add_error_code(MPI_SUCCESS, &out), MPI_ERR_ARG, "MPI_Add_error_code",
                         "errorclass");
  mtest_expect_arg_error(MPI_Add_error_code(-3, &out), MPI_ERR_ARG, "MPI_Add_error_code",
                         "errorclass");
  mtest_expect_arg_error(MPI_Add_error_code(last_used_code() + 1, &out), MPI_ERR_ARG,
                         "MPI_Add_error_code", "errorclass");
  rc = MPI_Add_error_string(MPI_ERR_ARG, "mine now");
  mtest_expect_arg_error(rc, MPI_ERR_ARG, "MPI_Add_error_string", "errorcode");
  mtest_expect_error(rc, MPI_ERR_ARG, "MPI_Add_error_string(MPI_ERR_ARG)", "predefined");
  mtest_expect_arg_error(MPI_Add_error_string(predefined_code, "mine now"), MPI_ERR_ARG,
                         "MPI_Add_error_string", "errorcode");
  mtest_expect_arg_error(MPI_Add_error_string(last_used_code() + 1, "x"), MPI_ERR_ARG,
                         "MPI_Add_error_string", "errorcode");
  mtest_expect_arg_error(MPI_Add_error_string(code, NULL), MPI_ERR_ARG, "MPI_Add_error_string",
                         "string");
  memset(long_text, 'x', sizeof long_text - 1);
  long_text[sizeof long_text - 1] = '\0';
  mtest_expect_arg_error(MPI_Add_error_string(code, long_text), MPI_ERR_ARG,
                         "MPI_Add_error_string", "string");
  mtest_expect_arg_error(MPI_Error_class(last_used_code() + 1, &out), MPI_ERR_ARG,
                         "MPI_Error_class", "errorcode");
  rc = MPI_Error_string(last_used_code() + 1, long_text, &out);
  mtest_expect_arg_error(rc, MPI_ERR_ARG, "MPI_Error_string", "errorcode");
}

int main(int argc, char **argv) {
  int cls, code, code2, arg_code, value;
  MPI_Init(&argc, &argv);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  MTEST_CHECK(last_used_code() == MPI_ERR_LASTCODE, "MPI_LASTUSEDCODE before any is added: %d",
              last_used_code());

  MPI_Add_error_class(&cls);
  MTEST_CHECK(cls > MPI_ERR_LASTCODE, "added class %d is not above MPI_ERR_LASTCODE", cls);
  MTEST_CHECK(last_used_code() == cls, "MPI_LASTUSEDCODE %d, want %d", last_used_code(), cls);
  expect_class(cls, cls, "added class");
  expect_string(cls, "", "added class");
  MPI_Add_error_code(cls, &code);
  MPI_Add_error_code(cls, &code2);
  MPI_Add_error_code(MPI_ERR_ARG, &arg_code);
  MTEST_CHECK(code != cls && code2 != code && arg_code != code2 && code > MPI_ERR_LASTCODE &&
                  code2 > MPI_ERR_LASTCODE && arg_code > MPI_ERR_LASTCODE,
              "added codes %d %d %d (class %d)", code, code2, arg_code, cls);
  int largest = code > code2 ? code : code2;
  largest = arg_code > largest ? arg_code : largest;
  MTEST_CHECK(last_used_code() == largest, "MPI_LASTUSEDCODE %d, want %d", last_used_code(),
              largest);
  expect_class(code, cls, "added code");
  expect_class(code2, cls, "second added code");
  expect_class(arg_code, MPI_ERR_ARG, "code added to MPI_ERR_ARG");
  expect_string(code, "", "added code without a string");

  MPI_Add_error_string(cls, "the class");
  MPI_Add_error_string(code, "first text");
  MPI_Add_error_string(code, "the code");
  MPI_Add_error_string(arg_code, "an argument of mine");
  expect_string(cls, "the class", "added class");
  expect_string(code, "the code", "added code, string replaced");
  expect_string(code2, "", "second added code");
  expect_string(arg_code, "an argument of mine", "code of MPI_ERR_ARG");
  expect_string(MPI_ERR_ARG, "MPI_ERR_ARG: invalid argument", "MPI_ERR_ARG itself");
  char longest[MPI_MAX_ERROR_STRING];
  memset(longest, 'y', sizeof longest - 1);
  longest[sizeof longest - 1] = '\0';
  MPI_Add_error_string(code2, longest);
  expect_string(code2, longest, "string of MPI_MAX_ERROR_STRING - 1 characters");

  /* The codes that MPI returns never take the added ones' place. */
  int predefined_code = MPI_SUCCESS;
  for (int i = 0; i < 300; ++i) {
    predefined_code = MPI_Comm_size(MPI_COMM_WORLD, NULL);
    MTEST_CHECK(predefined_code != cls && predefined_code != code && predefined_code != code2 &&
                    predefined_code != arg_code && predefined_code <= MPI_ERR_LASTCODE,
                "MPI returned code %d", predefined_code);
    expect_class(predefined_code, MPI_ERR_ARG, "code MPI returned");
  }
  expect_class(code, cls, "added code after many errors");
  expect_string(code, "the code", "added code after many errors");
  MTEST_CHECK(MPI_Comm_size(MPI_COMM_WORLD, &value) == MPI_SUCCESS, "MPI_Comm_size failed");

  bad_arguments(cls, code, predefined_code);
  return mtest_finalize();
}

/* MPI_Remove_error_class, MPI_Remove_error_code and MPI_Remove_error_string (MPI-4.1), and the
 * same under MPICH 4.0's names MPIX_Delete_error_*: a removed code is no error code any more,
 * its number is never given again, MPI_LASTUSEDCODE keeps the largest given, and the codes left
 * keep their class and string. Out of order (a code before its string, a class before its
 * codes), twice, or on MPI's own classes: MPI_ERR_ARG naming the call, the argument and the
 * rank, and nothing is removed. */
#include <string.h>

#include "mtest.h"

static int last_used_code(void) {
  int *value = NULL, flag = 0;
  MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_LASTUSEDCODE, &value, &flag);
  return flag && value ? *value : -1;
}

static void expect_gone(int code, const char *what) {
  int cls = -1;
  mtest_expect_arg_error(MPI_Error_class(code, &cls), MPI_ERR_ARG, "MPI_Error_class",
                         "errorcode");
  MTEST_CHECK(cls == -1, "%s: MPI_Error_class of removed %d wrote class %d", what, code, cls);
}

static void expect_string(int code, const char *want, const char *what) {
  char text[MPI_MAX_ERROR_STRING];
  int len = -1;
  int rc = MPI_Error_string(code, text, &len);
  MTEST_CHECK(rc == MPI_SUCCESS && strcmp(text, want) == 0, "%s: string of %d is '%s' (rc %d)",
              what, code, rc == MPI_SUCCESS ? text : "", rc);
}

/* Removal in the order the standard asks; `mpich_names` takes MPIX_Delete_error_* instead. */
static void remove_in_order(int mpich_names) {
  int cls, code, kept, cls_of_kept = -1;
  int (*remove_string)(int) = mpich_names ? MPIX_Delete_error_string : MPI_Remove_error_string;
  int (*remove_code)(int) = mpich_names ? MPIX_Delete_error_code : MPI_Remove_error_code;
  int (*remove_class)(int) = mpich_names ? MPIX_Delete_error_class : MPI_Remove_error_class;
  const char *call = mpich_names ? "MPIX_Delete_error_class" : "MPI_Remove_error_class";
  MPI_Add_error_class(&cls);
  MPI_Add_error_code(cls, &code);
  MPI_Add_error_code(MPI_ERR_ARG, &kept);
  MPI_Add_error_string(cls, "the class");
  MPI_Add_error_string(code, "the code");
  MPI_Add_error_string(kept, "kept");
  int largest = last_used_code();

  int rc = remove_class(cls);
  mtest_expect_arg_error(rc, MPI_ERR_ARG, call, "errorclass");
  mtest_expect_error(rc, MPI_ERR_ARG, "class with a code left", "still has error code");
  rc = remove_code(code);
  mtest_expect_error(rc, MPI_ERR_ARG, "code with a string left", "still has a string");
  expect_string(code, "the code", "a code whose removal was refused");
  MTEST_CHECK(remove_string(code) == MPI_SUCCESS, "removing the code's string failed");
  expect_string(code, "", "a code whose string was removed");
  mtest_expect_error(remove_string(code), MPI_ERR_ARG, "its string again", "has no string");
  mtest_expect_error(remove_code(cls), MPI_ERR_ARG, "a class as a code", "is an error class");
  mtest_expect_error(remove_class(code), MPI_ERR_ARG, "a code as a class", "not a class");
  MTEST_CHECK(remove_code(code) == MPI_SUCCESS, "removing the code failed");
  expect_gone(code, "removed code");
  mtest_expect_error(remove_code(code), MPI_ERR_ARG, "the code again", "removed already");
  MTEST_CHECK(remove_class(cls) == MPI_SUCCESS, "removing the class (with its string) failed");
  expect_gone(cls, "removed class");
  mtest_expect_error(MPI_Add_error_code(cls, &code), MPI_ERR_ARG, "a code of a removed class",
                     "errorclass");

  MPI_Error_class(kept, &cls_of_kept);
  MTEST_CHECK(cls_of_kept == MPI_ERR_ARG, "kept code's class %d", cls_of_kept);
  expect_string(kept, "kept", "kept code");
  MTEST_CHECK(last_used_code() == largest, "MPI_LASTUSEDCODE %d after removals, want %d",
              last_used_code(), largest);
  int next;
  MPI_Add_error_class(&next);
  MTEST_CHECK(next > largest, "a class added after removals is %d, not above %d", next,
              largest);
}

static void bad_arguments(void) {
  int predefined_code = MPI_Comm_size(MPI_COMM_WORLD, NULL);
  mtest_expect_arg_error(MPI_Remove_error_class(MPI_ERR_ARG), MPI_ERR_ARG,
                         "MPI_Remove_error_class", "errorclass");
  mtest_expect_error(MPI_Remove_error_class(MPI_ERR_ARG), MPI_ERR_ARG, "MPI_ERR_ARG",
                     "MPI's own");
  mtest_expect_arg_error(MPI_Remove_error_code(predefined_code), MPI_ERR_ARG,
                         "MPI_Remove_error_code", "errorcode");
  mtest_expect_arg_error(MPI_Remove_error_string(MPI_ERR_OTHER), MPI_ERR_ARG,
                         "MPI_Remove_error_string", "errorcode");
  mtest_expect_arg_error(MPI_Remove_error_class(-4), MPI_ERR_ARG, "MPI_Remove_error_class",
                         "errorclass");
  mtest_expect_arg_error(MPIX_Delete_error_code(last_used_code() + 1), MPI_ERR_ARG,
                         "MPIX_Delete_error_code", "errorcode");
  mtest_expect_arg_error(MPIX_Delete_error_string(last_used_code() + 7), MPI_ERR_ARG,
                         "MPIX_Delete_error_string", "errorcode");
  int cls = -1;
  MPI_Error_class(MPI_ERR_ARG, &cls);
  MTEST_CHECK(cls == MPI_ERR_ARG, "MPI_ERR_ARG's class after the refusals: %d", cls);
  expect_string(MPI_ERR_OTHER, "MPI_ERR_OTHER: other error", "MPI_ERR_OTHER after refusals");
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  remove_in_order(0);
  remove_in_order(1);
  bad_arguments();
  return mtest_finalize();
}

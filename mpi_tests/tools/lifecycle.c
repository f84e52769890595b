/* MPI_T's life and its edges: it starts before MPI_Init and nests, counts zero events and
 * sources, answers indices past the end and unknown names as invalid, keeps performance-variable
 * sessions until their free or the last MPI_T_finalize, and says when it is not initialized.
 * The variables themselves: cvars.c, pvars.c. */
#include <stddef.h>

#include "mtest.h"

static void expect(int rc, int want, const char *what) {
  MTEST_CHECK(rc == want, "%s returned %d, want %d", what, rc, want);
}

static void counts_and_lookups(void) {
  int n = -1, index = -1, cvars = -1, pvars = -1, categories = -1;
  expect(MPI_T_cvar_get_num(&cvars), MPI_SUCCESS, "cvar_get_num");
  expect(MPI_T_pvar_get_num(&pvars), MPI_SUCCESS, "pvar_get_num");
  expect(MPI_T_category_get_num(&categories), MPI_SUCCESS, "category_get_num");
  MTEST_CHECK(cvars > 0 && pvars > 0 && categories > 0, "counts %d %d %d", cvars, pvars,
              categories);
  n = -1;
  expect(MPI_T_event_get_num(&n), MPI_SUCCESS, "event_get_num");
  MTEST_CHECK(n == 0, "event count %d", n);
  n = -1;
  expect(MPI_T_source_get_num(&n), MPI_SUCCESS, "source_get_num");
  MTEST_CHECK(n == 0, "source count %d", n);
  expect(MPI_T_cvar_get_num(NULL), MPI_T_ERR_INVALID, "cvar_get_num(NULL)");
  char name[64];
  int len = sizeof name;
  expect(MPI_T_cvar_get_info(cvars, name, &len, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
         MPI_T_ERR_INVALID_INDEX, "cvar_get_info(past the end)");
  expect(MPI_T_cvar_get_info(-1, name, &len, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
         MPI_T_ERR_INVALID_INDEX, "cvar_get_info(-1)");
  expect(MPI_T_pvar_get_info(pvars, name, &len, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
                             NULL, NULL),
         MPI_T_ERR_INVALID_INDEX, "pvar_get_info(past the end)");
  expect(MPI_T_cvar_get_index("GPURUN_NO_SUCH_KNOB", &index), MPI_T_ERR_INVALID_NAME,
         "cvar_get_index");
  expect(MPI_T_cvar_get_index(NULL, &index), MPI_T_ERR_INVALID, "cvar_get_index(NULL)");
  expect(MPI_T_pvar_get_index("x", MPI_T_PVAR_CLASS_COUNTER, &index), MPI_T_ERR_INVALID_NAME,
         "pvar_get_index");
  expect(MPI_T_category_get_index("x", &index), MPI_T_ERR_INVALID_NAME, "category_get_index");
  expect(MPI_T_category_get_cvars(categories, 1, &index), MPI_T_ERR_INVALID_INDEX,
         "category_get_cvars(past the end)");
  expect(MPI_T_event_get_index("x", &index), MPI_T_ERR_INVALID_NAME, "event_get_index");
  MPI_T_cvar_handle cvar = MPI_T_CVAR_HANDLE_NULL;
  int count;
  expect(MPI_T_cvar_handle_alloc(cvars, NULL, &cvar, &count), MPI_T_ERR_INVALID_INDEX,
         "cvar_handle_alloc(past the end)");
  expect(MPI_T_cvar_read(cvar, &count), MPI_T_ERR_INVALID_HANDLE, "cvar_read(null handle)");
  expect(MPI_T_enum_get_info(MPI_T_ENUM_NULL, &n, name, &len), MPI_T_ERR_INVALID_HANDLE,
         "enum_get_info");
}

static void sessions(void) {
  MPI_T_pvar_session session = MPI_T_PVAR_SESSION_NULL, other = MPI_T_PVAR_SESSION_NULL;
  expect(MPI_T_pvar_session_create(&session), MPI_SUCCESS, "session_create");
  expect(MPI_T_pvar_session_create(&other), MPI_SUCCESS, "second session_create");
  MTEST_CHECK(session != MPI_T_PVAR_SESSION_NULL && session != other, "sessions not distinct");
  expect(MPI_T_pvar_start(session, MPI_T_PVAR_ALL_HANDLES), MPI_SUCCESS, "start(ALL)");
  expect(MPI_T_pvar_stop(session, MPI_T_PVAR_ALL_HANDLES), MPI_SUCCESS, "stop(ALL)");
  expect(MPI_T_pvar_reset(session, MPI_T_PVAR_ALL_HANDLES), MPI_SUCCESS, "reset(ALL)");
  long long value;
  expect(MPI_T_pvar_read(session, MPI_T_PVAR_ALL_HANDLES, &value), MPI_T_ERR_INVALID_HANDLE,
         "read(ALL)");
  MPI_T_pvar_handle handle = MPI_T_PVAR_HANDLE_NULL;
  int count;
  expect(MPI_T_pvar_handle_alloc(session, -1, NULL, &handle, &count), MPI_T_ERR_INVALID_INDEX,
         "pvar_handle_alloc(-1)");
  expect(MPI_T_pvar_handle_alloc(session, 0, NULL, &handle, &count), MPI_SUCCESS,
         "pvar_handle_alloc(0)");
  expect(MPI_T_pvar_handle_free(other, &handle), MPI_T_ERR_INVALID_HANDLE,
         "free of a handle of another session");
  expect(MPI_T_pvar_session_free(&session), MPI_SUCCESS, "session_free");
  MTEST_CHECK(session == MPI_T_PVAR_SESSION_NULL, "session_free left the handle");
  expect(MPI_T_pvar_start(other, MPI_T_PVAR_ALL_HANDLES), MPI_SUCCESS, "start on the second");
  MPI_T_pvar_session gone = other;
  expect(MPI_T_finalize(), MPI_SUCCESS, "inner finalize");
  expect(MPI_T_pvar_start(other, MPI_T_PVAR_ALL_HANDLES), MPI_SUCCESS, "start after inner");
  expect(MPI_T_finalize(), MPI_SUCCESS, "outer finalize");
  expect(MPI_T_pvar_start(gone, MPI_T_PVAR_ALL_HANDLES), MPI_T_ERR_NOT_INITIALIZED,
         "start after the last finalize");
  int provided;
  expect(MPI_T_init_thread(MPI_THREAD_SINGLE, &provided), MPI_SUCCESS, "init again");
  expect(MPI_T_pvar_start(gone, MPI_T_PVAR_ALL_HANDLES), MPI_T_ERR_INVALID_SESSION,
         "a session of the ended MPI_T");
  expect(MPI_T_pvar_session_free(&gone), MPI_T_ERR_INVALID_SESSION, "free of an ended session");
}

int main(int argc, char **argv) {
  int n, provided = -1;
  expect(MPI_T_cvar_get_num(&n), MPI_T_ERR_NOT_INITIALIZED, "cvar_get_num before init");
  expect(MPI_T_finalize(), MPI_T_ERR_NOT_INITIALIZED, "finalize before init");
  expect(MPI_T_init_thread(MPI_THREAD_MULTIPLE, &provided), MPI_SUCCESS, "init before MPI_Init");
  MTEST_CHECK(provided == MPI_THREAD_MULTIPLE, "provided %d", provided);
  MPI_Init(&argc, &argv);
  expect(MPI_T_init_thread(MPI_THREAD_FUNNELED, &provided), MPI_SUCCESS, "nested init");
  MTEST_CHECK(provided == MPI_THREAD_FUNNELED, "nested provided %d", provided);
  counts_and_lookups();
  sessions();
  expect(MPI_T_finalize(), MPI_SUCCESS, "finalize of the third init");
  expect(MPI_T_finalize(), MPI_T_ERR_NOT_INITIALIZED, "one finalize too many");
  return mtest_finalize();
}

/* Errors of one-sided communication, returned by class once the window's error handler is
 * MPI_ERRORS_RETURN (a new window has MPI_ERRORS_ARE_FATAL): a target rank out of range
 * (MPI_ERR_RANK), a negative count (MPI_ERR_COUNT), MPI_DATATYPE_NULL or a floating type for
 * MPI_Compare_and_swap (MPI_ERR_TYPE), a negative target_disp (MPI_ERR_DISP), MPI_OP_NULL
 * (MPI_ERR_OP), MPI_WIN_NULL (MPI_ERR_WIN), a bad lock type or assert, a negative size
 * (MPI_ERR_SIZE) or a disp_unit under 1 (MPI_ERR_DISP, as MPICH gives) at creation, and
 * synchronization out of place (MPI_ERR_RMA_SYNC): accesses outside any epoch, unlock without
 * lock, complete without start, wait without post, flush without lock, a second lock of a
 * target, lock or fence inside lock_all, a second post, a free while locked. The window works
 * after all of them. MPI_Win_create_errhandler's function is called with the window and the code
 * by MPI_Win_call_errhandler and by failing calls; MPI_Win_set_name/get_name round-trip (the
 * default name is empty); MPI_Win_get_info gives an info to free. Under gpurun, every message
 * also names the call, the argument and the rank ("rank N"); a bad lock type is
 * MPI_ERR_LOCKTYPE and a bad assert MPI_ERR_ASSERT (MPICH says MPI_ERR_ARG); an access past the
 * end of the target's window is MPI_ERR_RMA_RANGE and one to a target outside the epoch's
 * targets MPI_ERR_RMA_SYNC (MPICH checks neither). */
#include <string.h>

#include "mtest.h"

static int rank, size, right;
static int mem[16]; /* the window is the first 4 ints; the rest catches unchecked overruns */

#ifdef GPURUN_MPI_H_INCLUDED
#define BAD_LOCKTYPE MPI_ERR_LOCKTYPE
#define BAD_ASSERT MPI_ERR_ASSERT
#else
#define BAD_LOCKTYPE MPI_ERR_ARG
#define BAD_ASSERT MPI_ERR_ARG
#endif

/* The class must be right; under gpurun the message must also name the call, the argument and
 * the rank. */
static void expect(int rc, int error_class, const char *call, const char *arg) {
#ifdef GPURUN_MPI_H_INCLUDED
  mtest_expect_arg_error(rc, error_class, call, arg);
#else
  (void)arg;
  mtest_expect_error(rc, error_class, call, NULL);
#endif
}

/* Synchronization errors are the window's state: they name "argument win". */
static void expect_sync(int rc, const char *call) {
  expect(rc, MPI_ERR_RMA_SYNC, call, "argument win");
}

/* Bad arguments inside a passive epoch on every rank. */
static void argument_errors(MPI_Win win) {
  int v = 1, r = 0;
  const MPI_Datatype I = MPI_INT;
  expect(MPI_Put(&v, 1, I, size, 0, 1, I, win), MPI_ERR_RANK, "MPI_Put", "argument target_rank");
  expect(MPI_Put(&v, 1, I, -5, 0, 1, I, win), MPI_ERR_RANK, "MPI_Put", "argument target_rank");
  expect(MPI_Get(&v, 1, I, size, 0, 1, I, win), MPI_ERR_RANK, "MPI_Get", "argument target_rank");
  expect(MPI_Accumulate(&v, 1, I, size, 0, 1, I, MPI_SUM, win), MPI_ERR_RANK, "MPI_Accumulate",
         "argument target_rank");
  expect(MPI_Put(&v, -1, I, right, 0, 1, I, win), MPI_ERR_COUNT, "MPI_Put",
         "argument origin_count");
  expect(MPI_Put(&v, 1, I, right, 0, -1, I, win), MPI_ERR_COUNT, "MPI_Put",
         "argument target_count");
  expect(MPI_Get(&v, -1, I, right, 0, 1, I, win), MPI_ERR_COUNT, "MPI_Get",
         "argument origin_count");
  expect(MPI_Put(&v, 1, MPI_DATATYPE_NULL, right, 0, 1, I, win), MPI_ERR_TYPE, "MPI_Put",
         "argument origin_datatype");
  expect(MPI_Put(&v, 1, I, right, 0, 1, MPI_DATATYPE_NULL, win), MPI_ERR_TYPE, "MPI_Put",
         "argument target_datatype");
  expect(MPI_Compare_and_swap(&v, &v, &r, MPI_FLOAT, right, 0, win), MPI_ERR_TYPE,
         "MPI_Compare_and_swap", "argument datatype");
  expect(MPI_Put(&v, 1, I, right, -1, 1, I, win), MPI_ERR_DISP, "MPI_Put", "argument target_disp");
  expect(MPI_Accumulate(&v, 1, I, right, 0, 1, I, MPI_OP_NULL, win), MPI_ERR_OP, "MPI_Accumulate",
         "argument op");
  expect(MPI_Put(&v, 1, I, right, 0, 1, I, MPI_WIN_NULL), MPI_ERR_WIN, "MPI_Put", "argument win");
}

#ifdef GPURUN_MPI_H_INCLUDED
/* Past the end of the 4-int window: MPICH writes there unchecked (into the rest of mem[]). */
static void range_errors(MPI_Win win) {
  int v[4] = {1, 2, 3, 4};
  MPI_Datatype vec;
  MPI_Type_vector(3, 1, 2, MPI_INT, &vec); /* 5 ints from the first to the last */
  MPI_Type_commit(&vec);
  const char *arg = "argument target_"; /* target_disp or target_count */
  mtest_expect_arg_error(MPI_Put(v, 1, MPI_INT, right, 4, 1, MPI_INT, win), MPI_ERR_RMA_RANGE,
                         "MPI_Put", arg);
  mtest_expect_arg_error(MPI_Put(v, 3, MPI_INT, right, 2, 3, MPI_INT, win), MPI_ERR_RMA_RANGE,
                         "MPI_Put", arg);
  mtest_expect_arg_error(MPI_Put(v, 3, MPI_INT, right, 0, 1, vec, win), MPI_ERR_RMA_RANGE,
                         "MPI_Put", arg);
  mtest_expect_arg_error(MPI_Get(v, 2, MPI_INT, right, 3, 2, MPI_INT, win), MPI_ERR_RMA_RANGE,
                         "MPI_Get", arg);
  mtest_expect_arg_error(MPI_Accumulate(v, 1, MPI_INT, right, 4, 1, MPI_INT, MPI_SUM, win),
                         MPI_ERR_RMA_RANGE, "MPI_Accumulate", arg);
  MPI_Type_free(&vec);
}
#endif

/* The window still works: put to the right, flush, read it back. */
static void still_works(MPI_Win win, int round) {
  int v = rank * 10 + round, got = -1;
  MTEST_CHECK(MPI_Put(&v, 1, MPI_INT, right, 1, 1, MPI_INT, win) == 0, "MPI_Put failed");
  MPI_Win_flush(right, win);
  MPI_Get(&got, 1, MPI_INT, right, 1, 1, MPI_INT, win);
  MPI_Win_flush(right, win);
  MTEST_CHECK(got == v, "round %d: after the errors a put/get gave %d, want %d", round, got, v);
}

static void passive_errors(MPI_Win win) {
  MPI_Win_lock_all(0, win);
  argument_errors(win);
#ifdef GPURUN_MPI_H_INCLUDED
  range_errors(win);
#endif
  expect_sync(MPI_Win_fence(0, win), "MPI_Win_fence");
  expect_sync(MPI_Win_lock(MPI_LOCK_SHARED, right, 0, win), "MPI_Win_lock");
  still_works(win, 1);
  MPI_Win_unlock_all(win);
  expect(MPI_Win_lock(12345, right, 0, win), BAD_LOCKTYPE, "MPI_Win_lock", "argument lock_type");
  expect(MPI_Win_lock(MPI_LOCK_SHARED, size, 0, win), MPI_ERR_RANK, "MPI_Win_lock",
         "argument rank");
  expect(MPI_Win_lock(MPI_LOCK_SHARED, right, 0x7, win), BAD_ASSERT, "MPI_Win_lock",
         "argument assert");
  MPI_Win_lock(MPI_LOCK_SHARED, right, 0, win);
  expect_sync(MPI_Win_lock(MPI_LOCK_SHARED, right, 0, win), "MPI_Win_lock");
  expect_sync(MPI_Win_free(&win), "MPI_Win_free");
  MTEST_CHECK(win != MPI_WIN_NULL, "a failed MPI_Win_free set the handle to MPI_WIN_NULL");
#ifdef GPURUN_MPI_H_INCLUDED
  int v = 5; /* MPICH does not check that the target is one the epoch locked */
  if (size > 1) expect_sync(MPI_Put(&v, 1, MPI_INT, rank, 0, 1, MPI_INT, win), "MPI_Put");
#endif
  still_works(win, 2);
  MPI_Win_unlock(right, win);
}

/* The same errors on a window the library allocates, whose parts every rank maps (puts and gets
 * of one block take a shorter path there), and a block that ends at the window's last byte,
 * which must land. */
static void mapped_window(void) {
  int *base = NULL, v[2] = {rank + 7, rank + 8}, got[2] = {0, 0};
  MPI_Win win = MPI_WIN_NULL;
  MPI_Win_allocate(4 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
  MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
  MPI_Win_lock_all(0, win);
  argument_errors(win);
#ifdef GPURUN_MPI_H_INCLUDED
  range_errors(win);
#endif
  MTEST_CHECK(MPI_Put(v, 2, MPI_INT, right, 2, 2, MPI_INT, win) == 0, "a put of the last 2 failed");
  MPI_Win_flush(right, win);
  MTEST_CHECK(MPI_Get(got, 2, MPI_INT, right, 2, 2, MPI_INT, win) == 0,
              "a get of the last 2 failed");
  MPI_Win_flush(right, win);
  MTEST_CHECK(got[0] == v[0] && got[1] == v[1], "the last 2 ints read back %d %d, want %d %d",
              got[0], got[1], v[0], v[1]);
  MPI_Win_unlock_all(win);
  expect_sync(MPI_Put(v, 1, MPI_INT, right, 0, 1, MPI_INT, win), "MPI_Put");
  MPI_Win_free(&win);
}

/* No epoch at all, then the wrong ones. */
static void sync_errors(MPI_Win win) {
  int v = 1;
  MPI_Group world;
  MPI_Comm_group(MPI_COMM_WORLD, &world);
  expect_sync(MPI_Put(&v, 1, MPI_INT, right, 0, 1, MPI_INT, win), "MPI_Put");
  expect_sync(MPI_Get(&v, 1, MPI_INT, right, 0, 1, MPI_INT, win), "MPI_Get");
  expect_sync(MPI_Accumulate(&v, 1, MPI_INT, right, 0, 1, MPI_INT, MPI_SUM, win), "MPI_Accumulate");
  expect_sync(MPI_Fetch_and_op(&v, &v, MPI_INT, right, 0, MPI_SUM, win), "MPI_Fetch_and_op");
  expect_sync(MPI_Win_unlock(right, win), "MPI_Win_unlock");
  expect_sync(MPI_Win_unlock_all(win), "MPI_Win_unlock_all");
  expect_sync(MPI_Win_complete(win), "MPI_Win_complete");
  expect_sync(MPI_Win_wait(win), "MPI_Win_wait");
  expect_sync(MPI_Win_flush(right, win), "MPI_Win_flush");
  expect(MPI_Win_fence(0x3, win), BAD_ASSERT, "MPI_Win_fence", "argument assert");
  MPI_Win_fence(0, win);
  MPI_Win_fence(MPI_MODE_NOSUCCEED, win);
  expect_sync(MPI_Put(&v, 1, MPI_INT, right, 0, 1, MPI_INT, win), "MPI_Put");
  MPI_Win_post(world, 0, win);
  expect_sync(MPI_Win_post(world, 0, win), "MPI_Win_post");
  MPI_Win_start(world, 0, win);
  MPI_Win_complete(win);
  MPI_Win_wait(win);
  MPI_Group_free(&world);
}

static int calls, seen_code;
static MPI_Win seen_win;

static void record(MPI_Win *win, int *code, ...) {
  calls++;
  seen_win = *win;
  seen_code = *code;
}

static void expect_handled(int rc, MPI_Win win, int error_class, const char *what) {
  int cls = -1;
  MTEST_CHECK(calls == 1, "%s: the handler ran %d times, want once", what, calls);
  MTEST_CHECK(seen_win == win, "%s: the handler got another window", what);
  MTEST_CHECK(seen_code == rc, "%s: the handler got %d, the call returned %d", what, seen_code, rc);
  if (rc != MPI_SUCCESS) MPI_Error_class(rc, &cls);
  MTEST_CHECK(cls == error_class, "%s: class %d, want %d", what, cls, error_class);
  calls = 0;
}

static void user_handler(MPI_Win win) {
  MPI_Errhandler eh = MPI_ERRHANDLER_NULL, got = MPI_ERRHANDLER_NULL;
  MTEST_CHECK(MPI_Win_create_errhandler(record, &eh) == 0, "MPI_Win_create_errhandler failed");
  MPI_Win_set_errhandler(win, eh);
  MPI_Win_get_errhandler(win, &got);
  MTEST_CHECK(got == eh, "MPI_Win_get_errhandler gave another handler");
  MPI_Errhandler_free(&got);
  int rc = MPI_Win_call_errhandler(win, MPI_ERR_OTHER);
  MTEST_CHECK(rc == MPI_SUCCESS, "MPI_Win_call_errhandler returned %d", rc);
  expect_handled(MPI_ERR_OTHER, win, MPI_ERR_OTHER, "MPI_Win_call_errhandler");
  int v = 0;
  MPI_Win_lock_all(0, win);
  rc = MPI_Put(&v, -1, MPI_INT, right, 0, 1, MPI_INT, win);
  expect_handled(rc, win, MPI_ERR_COUNT, "MPI_Put(count -1) with the user handler");
  MPI_Win_unlock_all(win);
  MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
  MPI_Errhandler_free(&eh);
}

static void names_and_info(MPI_Win win) {
  char name[MPI_MAX_OBJECT_NAME] = "junk";
  int len = -1, nkeys = -1;
  MPI_Win_get_name(win, name, &len);
  MTEST_CHECK(len == 0 && name[0] == '\0', "default name \"%s\" (%d chars), want \"\"", name, len);
  MTEST_CHECK(MPI_Win_set_name(win, "rma errors window") == 0, "MPI_Win_set_name failed");
  MPI_Win_get_name(win, name, &len);
  MTEST_CHECK(strcmp(name, "rma errors window") == 0 && len == (int)strlen(name),
              "MPI_Win_get_name gave \"%s\" (%d chars)", name, len);
  MPI_Info info = MPI_INFO_NULL;
  MTEST_CHECK(MPI_Win_get_info(win, &info) == 0 && info != MPI_INFO_NULL, "MPI_Win_get_info");
  MTEST_CHECK(MPI_Info_get_nkeys(info, &nkeys) == MPI_SUCCESS && nkeys >= 0, "not a valid info");
  MTEST_CHECK(MPI_Info_free(&info) == MPI_SUCCESS && info == MPI_INFO_NULL, "MPI_Info_free");
}

/* Creation errors are the communicator's. */
static void creation_errors(void) {
  int *base = NULL;
  MPI_Win win = MPI_WIN_NULL, null = MPI_WIN_NULL;
  MPI_Comm w = MPI_COMM_WORLD;
  const MPI_Info I = MPI_INFO_NULL;
  expect(MPI_Win_allocate(-1, 1, I, w, &base, &win), MPI_ERR_SIZE, "MPI_Win_allocate",
         "argument size");
  expect(MPI_Win_allocate(16, -1, I, w, &base, &win), MPI_ERR_DISP, "MPI_Win_allocate",
         "argument disp_unit");
  expect(MPI_Win_allocate(16, 0, I, w, &base, &win), MPI_ERR_DISP, "MPI_Win_allocate",
         "argument disp_unit");
  expect(MPI_Win_create(mem, -1, 1, I, w, &win), MPI_ERR_SIZE, "MPI_Win_create", "argument size");
  expect(MPI_Win_create(mem, 16, -4, I, w, &win), MPI_ERR_DISP, "MPI_Win_create",
         "argument disp_unit");
  expect(MPI_Win_allocate_shared(-8, 1, I, w, &base, &win), MPI_ERR_SIZE, "MPI_Win_allocate_shared",
         "argument size");
  expect(MPI_Win_free(&null), MPI_ERR_WIN, "MPI_Win_free", "argument win");
  expect(MPI_Win_set_name(MPI_WIN_NULL, "x"), MPI_ERR_WIN, "MPI_Win_set_name", "argument win");
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  right = (rank + 1) % size;
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
  MPI_Win win = MPI_WIN_NULL;
  MPI_Win_create(mem, 4 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
  MPI_Errhandler eh = MPI_ERRHANDLER_NULL;
  MPI_Win_get_errhandler(win, &eh);
  MTEST_CHECK(eh == MPI_ERRORS_ARE_FATAL, "a new window's handler is not MPI_ERRORS_ARE_FATAL");
  MPI_Errhandler_free(&eh);
  MTEST_CHECK(MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN) == 0, "MPI_Win_set_errhandler");
  passive_errors(win);
  sync_errors(win);
  user_handler(win);
  names_and_info(win);
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Win_free(&win);
  mapped_window();
  creation_errors();
  return mtest_finalize();
}

/* Every MPI function, called with wrong arguments: made-up handles, handles of another kind,
 * null and freed ones, negative counts and ranks, null pointers, MPI_IN_PLACE where it has no
 * meaning. Each call runs in a child process of its own (fork) with MPI_ERRORS_RETURN on every
 * object, so that one call's damage cannot hide another's. The test fails when a call kills
 * its process (a signal, an exit) or does not return within kHangSeconds, except the calls
 * that block by design when their arguments happen to be valid (kMayBlock).
 *   mpi_garbage [trials per call, default 8] [only this call, or - for all] [chain]
 * With a chain of N, each child makes N more calls after the first, drawn from the list, on the
 * objects the first left behind (a misuse of state: a window freed, then locked). Draws are
 * seeded by the call's place and the trial, so a run repeats exactly; a failure prints the
 * draws ("a<argument>=<value>", "then <call>:") to rerun it alone. */
#define _GNU_SOURCE
#include "garbage.h"

#include <ftw.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

/* Buffers hold 100000 elements of the largest type the calls draw (a vector of extent 40). */
enum {
  kHangSeconds = 10,
  kBlockSeconds = 2, /* for the calls of kMayBlock, whose waits end the trial */
  kBufferBytes = 1 << 23,
  kHandleArrayBytes = 1 << 20,
  kNoteBytes = 4096,
  kPoolMax = 24,
  kNoWrongArg = 1000 /* g_wrong_arg when every argument is valid */
};

/* Calls that wait for a message, a match or a partner that a process alone may never get (an
 * MPI_Win_post or MPI_Win_complete, for the window calls): with valid arguments they block,
 * which is their job. */
/* clang-format off */
static const char *const kMayBlock[] = {
    "MPI_Recv", "MPI_Recv_c", "MPI_Probe", "MPI_Mprobe", "MPI_Mprobe_c", "MPI_Ssend",
    "MPI_Ssend_c", "MPI_Send", "MPI_Send_c", "MPI_Rsend", "MPI_Rsend_c", "MPI_Sendrecv",
    "MPI_Sendrecv_c", "MPI_Sendrecv_replace", "MPI_Sendrecv_replace_c", "MPI_Wait",
    "MPI_Waitall", "MPI_Waitany", "MPI_Waitsome", "MPI_Bsend", "MPI_Bsend_c",
    "MPIX_Stream_send", "MPIX_Stream_send_c", "MPIX_Stream_recv", "MPIX_Stream_recv_c",
    "MPI_Win_start", "MPI_Win_wait", NULL};
/* clang-format on */

static char *g_note;    /* what the child drew, in a page the parent reads after it ends */
static uint64_t g_rng;  /* the child's draws */
static int g_wrong_arg; /* the argument drawn from everything; the others get valid values */
static int g_chain;     /* calls that follow the first in a child */
static int g_calls;     /* entries of garbage_calls */
static char *g_zeros, *g_ones, *g_bytes_ff, *g_long_string;
static int *g_int_ones;
static long *g_long_ones;
static void *g_handle_arrays[kPools]; /* each full of its pool's first handle */
/* Each pool: valid handles first, then null ones and objects that calls may not take. */
static long g_pools[kPools][kPoolMax];
static int g_pool_size[kPools], g_pool_valid[kPools];
static MPI_File g_file = MPI_FILE_NULL;
static MPI_Session g_session = MPI_SESSION_NULL;

static uint64_t draw(uint64_t n) {
  g_rng ^= g_rng << 13;
  g_rng ^= g_rng >> 7;
  g_rng ^= g_rng << 17;
  return g_rng % n;
}

/* How many of the `n` choices argument `arg` may take: all of them for the wrong argument,
 * else the first `valid`. */
static uint64_t choices(int arg, int valid, int n) {
  return g_wrong_arg < 0 || arg == g_wrong_arg ? (uint64_t)n : (uint64_t)valid;
}

static void note(int arg, long value) {
  size_t used = strlen(g_note);
  if (used + 40 < kNoteBytes) snprintf(g_note + used, kNoteBytes - used, " a%d=%#lx", arg, value);
}

static void add(enum pool pool, long handle) { g_pools[pool][g_pool_size[pool]++] = handle; }

long pick_handle(int arg, enum pool pool) {
  /* Made up, or valid handles of another kind. */
  static const long kWrong[] = {0,          -1,         0x12345678,     0x44000007, 0x84000003,
                                0x8c000011, 0x4c000001, MPI_COMM_WORLD, MPI_INT};
  int n = g_pool_size[pool], wrong = (int)(sizeof kWrong / sizeof kWrong[0]);
  int k = (int)draw(choices(arg, g_pool_valid[pool], n + wrong));
  long value = k < n ? g_pools[pool][k] : kWrong[k - n];
  note(arg, value);
  return value;
}

int pick_int(int arg) {
  static const int kInts[] = {
      0, 1, 3, 7, -1, 100000, -100000, MPI_ANY_SOURCE, MPI_ROOT, MPI_UNDEFINED};
  int value = kInts[draw(choices(arg, 4, sizeof kInts / sizeof kInts[0]))];
  note(arg, value);
  return value;
}

long pick_long(int arg) {
  static const long kLongs[] = {0, 1, 7, -1, 100000, -100000};
  long value = kLongs[draw(choices(arg, 3, sizeof kLongs / sizeof kLongs[0]))];
  note(arg, value);
  return value;
}

/* The first two choices of each kind are valid: zeros, and ones of the kind's element (int or
 * 64-bit counts; bytes of value 1 for buffers and other data). */
void *pick_pointer(int arg, enum pointer_kind kind) {
  void *data[] = {g_zeros, g_ones, NULL, g_bytes_ff};
  void *ints[] = {g_zeros, g_int_ones, NULL, g_bytes_ff};
  void *longs[] = {g_zeros, g_long_ones, NULL, g_bytes_ff};
  void *buffers[] = {g_zeros, g_ones, NULL, g_bytes_ff, MPI_IN_PLACE};
  void *statuses[] = {MPI_STATUS_IGNORE, g_zeros, NULL};
  void *strings[] = {"gpurun", "mpi://WORLD", NULL, "", g_long_string};
  void **kinds[] = {data, ints, longs, buffers, statuses, strings};
  int sizes[] = {4, 4, 4, 5, 3, 5};
  size_t k = draw(choices(arg, 2, sizes[kind]));
  note(arg, (long)k);
  return kinds[kind][k];
}

void *pick_handles(int arg, enum pool pool) {
  void *from[] = {g_handle_arrays[pool], NULL, g_zeros, g_bytes_ff};
  size_t k = draw(choices(arg, 1, 4));
  note(arg, (long)k);
  return from[k];
}

static int do_nothing(void) { return MPI_SUCCESS; }

void *pick_function(int arg) {
  int k = (int)draw(choices(arg, 1, 2));
  note(arg, k);
  return k ? NULL : (void *)do_nothing;
}

MPI_File pick_file(int arg) {
  int k = (int)draw(choices(arg, 1, 2));
  note(arg, k);
  return k ? MPI_FILE_NULL : g_file;
}

static void user_op(void *in, void *inout, int *len, MPI_Datatype *type) {
  (void)in, (void)inout, (void)len, (void)type;
}
static void user_errhandler(MPI_Comm *comm, int *code, ...) { (void)comm, (void)code; }

/* Predefined handles and objects of this process; null handles and objects that no call takes
 * after them. */
static void fill_pools(void) {
  long valid[][6] = {[kComm] = {MPI_COMM_WORLD, MPI_COMM_SELF},
                     [kGroup] = {MPI_GROUP_EMPTY},
                     [kType] = {MPI_INT, MPI_DOUBLE, MPI_BYTE},
                     [kOp] = {MPI_SUM, MPI_MAX},
                     [kErrhandler] = {MPI_ERRORS_RETURN},
                     [kRequest] = {MPI_REQUEST_NULL},
                     [kMessage] = {MPI_MESSAGE_NO_PROC},
                     [kInfo] = {MPI_INFO_NULL, MPI_INFO_ENV},
                     [kWin] = {0},
                     [kSession] = {0},
                     [kStream] = {MPIX_STREAM_NULL},
                     [kFint] = {0, 7}};
  int counts[kPools] = {2, 1, 3, 2, 1, 1, 1, 2, 0, 0, 1, 2};
  for (int p = 0; p < kPools; ++p)
    for (int i = 0; i < counts[p]; ++i) add((enum pool)p, valid[p][i]);
}

/* Handles of objects freed already. */
static void add_freed(void) {
  MPI_Comm comm;
  MPI_Comm_dup(MPI_COMM_SELF, &comm);
  add(kComm, comm);
  MPI_Comm_free(&comm);
  MPI_Group group;
  MPI_Comm_group(MPI_COMM_SELF, &group);
  add(kGroup, group);
  MPI_Group_free(&group);
  MPI_Datatype type;
  MPI_Type_contiguous(2, MPI_INT, &type);
  MPI_Type_commit(&type);
  add(kType, type);
  MPI_Type_free(&type);
  MPI_Info info;
  MPI_Info_create(&info);
  add(kInfo, info);
  MPI_Info_free(&info);
  MPI_Request request;
  MPI_Irecv(g_zeros, 1, MPI_INT, 0, 98, MPI_COMM_SELF, &request);
  add(kRequest, request);
  MPI_Cancel(&request);
  MPI_Wait(&request, MPI_STATUS_IGNORE);
  MPI_Win win;
  MPI_Win_create(g_zeros, 64, 1, MPI_INFO_NULL, MPI_COMM_SELF, &win);
  add(kWin, win);
  MPI_Win_free(&win);
  MPI_Session session;
  MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, &session);
  add(kSession, session);
  MPI_Session_finalize(&session);
}

/* The handles no call takes: null ones, freed ones, and the markers and operations of special
 * uses. */
static void add_invalid(void) {
  for (int p = 0; p < kPools; ++p) g_pool_valid[p] = g_pool_size[p];
  add_freed();
  add(kComm, MPI_COMM_NULL);
  add(kGroup, MPI_GROUP_NULL);
  add(kType, MPI_DATATYPE_NULL);
  add(kType, MPI_UB);
  add(kOp, MPI_OP_NULL);
  add(kOp, MPI_REPLACE);
  add(kOp, MPI_NO_OP);
  add(kErrhandler, MPI_ERRHANDLER_NULL);
  add(kMessage, MPI_MESSAGE_NULL);
  add(kWin, MPI_WIN_NULL);
  add(kSession, MPI_SESSION_NULL);
  add(kFint, -1);
  add(kFint, 1L << 30);
}

/* Valid objects of every kind, so that calls get past their handle checks. */
static void make_objects(void) {
  MPI_Comm dup;
  MPI_Comm_dup(MPI_COMM_WORLD, &dup);
  add(kComm, dup);
  MPI_Group group;
  MPI_Comm_group(MPI_COMM_WORLD, &group);
  add(kGroup, group);
  MPI_Datatype vector, contiguous;
  MPI_Type_vector(3, 2, 4, MPI_INT, &vector);
  MPI_Type_commit(&vector);
  MPI_Type_contiguous(5, MPI_DOUBLE, &contiguous); /* never committed: no call takes it */
  add(kType, vector);
  MPI_Op op;
  MPI_Op_create(user_op, 1, &op);
  add(kOp, op);
  MPI_Errhandler errhandler;
  MPI_Comm_create_errhandler(user_errhandler, &errhandler);
  add(kErrhandler, errhandler);
  MPI_Request request;
  MPI_Recv_init(g_zeros, 1, MPI_INT, 0, 99, MPI_COMM_SELF, &request);
  add(kRequest, request);
  MPI_Info info;
  MPI_Info_create(&info);
  MPI_Info_set(info, "gpurun", "garbage");
  add(kInfo, info);
  MPI_Win win;
  MPI_Win_create(g_zeros, 4096, 1, MPI_INFO_NULL, MPI_COMM_SELF, &win);
  MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
  add(kWin, win);
  MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, &g_session);
  add(kSession, g_session);
  MPI_File_open(MPI_COMM_SELF, "garbage.file", MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL,
                &g_file);
  add_invalid();
  add(kType, contiguous);
}

static char *map_buffer(size_t bytes) {
  char *b = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (b == MAP_FAILED) perror("garbage: mmap"), exit(1);
  return b;
}

/* The buffers' patterns, over their first `bytes` (the handle arrays' first `handle_bytes`). */
static void fill_buffers(size_t bytes, size_t handle_bytes) {
  memset(g_zeros, 0, bytes);
  memset(g_ones, 1, bytes);
  memset(g_bytes_ff, 0xff, bytes);
  for (size_t i = 0; i < bytes / sizeof(int); ++i) g_int_ones[i] = 1;
  for (size_t i = 0; i < bytes / sizeof(long); ++i) g_long_ones[i] = 1;
  for (int p = 0; p < kPools; ++p)
    for (size_t i = 0; i < handle_bytes / sizeof(int); ++i)
      ((int *)g_handle_arrays[p])[i] = (int)g_pools[p][0];
}

static void setup(void) {
  g_note = mmap(NULL, kNoteBytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  g_zeros = map_buffer(kBufferBytes);
  g_ones = map_buffer(kBufferBytes);
  g_bytes_ff = map_buffer(kBufferBytes);
  g_int_ones = (int *)map_buffer(kBufferBytes);
  g_long_ones = (long *)map_buffer(kBufferBytes);
  g_long_string = map_buffer(kBufferBytes);
  memset(g_long_string, 'x', 4000);
  for (int p = 0; p < kPools; ++p) g_handle_arrays[p] = map_buffer(kHandleArrayBytes);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
  fill_pools();
  make_objects(); /* the handle arrays hold each pool's first handle, a window's among them */
  fill_buffers(kBufferBytes, kHandleArrayBytes);
}

static int may_block(const char *name) {
  for (const char *const *p = kMayBlock; *p; ++p)
    if (strcmp(*p, name) == 0) return 1;
  return 0;
}

/* What the calls wrote where the next one reads: the start of every buffer, back as it was
 * (counts and handles are read from there; a process alone reads one element per rank). */
static void restore_buffers(void) { fill_buffers(1 << 16, 1 << 16); }

/* The child of a trial: odd trials draw every argument from everything; even ones make one
 * argument wrong (or none, when the call has fewer than 8) and the others valid. With a chain,
 * g_chain calls drawn from the list follow on the objects the first one left, all valid but
 * the last, which gets one wrong argument. */
static _Noreturn void run_child(const struct garbage_call *c, int t) {
  g_wrong_arg = t % 2 ? -1 : (int)draw(8);
  alarm(may_block(c->name) ? kBlockSeconds : kHangSeconds);
  c->call();
  alarm(kHangSeconds);
  for (int k = 0; k < g_chain; ++k) {
    const struct garbage_call *next = &garbage_calls[draw((uint64_t)g_calls)];
    if (may_block(next->name)) continue;
    restore_buffers();
    size_t used = strlen(g_note);
    snprintf(g_note + used, kNoteBytes - used, " then %s:", next->name);
    g_wrong_arg = k == g_chain - 1 ? (int)draw(8) : kNoWrongArg;
    next->call();
  }
  _exit(0);
}

/* Runs one trial of `c` in a child; returns 1 when it failed (and says how). */
static int trial(const struct garbage_call *c, int index, int t) {
  g_note[0] = '\0';
  fflush(stdout);
  fflush(stderr);
  pid_t pid = fork();
  if (pid == 0) {
    g_rng = 0x9e3779b97f4a7c15ull ^ ((uint64_t)index << 24) ^ ((uint64_t)(t + 1) * 2654435761u);
    run_child(c, t);
  }
  int status = 0;
  if (pid < 0 || waitpid(pid, &status, 0) != pid) {
    printf("%s trial %d: could not run it (fork or wait failed)\n", c->name, t);
    return 1;
  }
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0) return 0;
  int hung = WIFSIGNALED(status) && WTERMSIG(status) == SIGALRM;
  if (hung && may_block(c->name)) return 0;
  if (hung)
    printf("%s trial %d: did not return in %d s;%s\n", c->name, t, kHangSeconds, g_note);
  else if (WIFSIGNALED(status))
    printf("%s trial %d: killed by signal %d;%s\n", c->name, t, WTERMSIG(status), g_note);
  else
    printf("%s trial %d: the process exited with %d;%s\n", c->name, t, WEXITSTATUS(status), g_note);
  return 1;
}

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw) {
  (void)st, (void)flag, (void)ftw;
  return remove(path);
}

int main(int argc, char **argv) {
  int trials = argc > 1 ? atoi(argv[1]) : 8;
  const char *only = argc > 2 && strcmp(argv[2], "-") != 0 ? argv[2] : NULL;
  g_chain = argc > 3 ? atoi(argv[3]) : 0;
  while (garbage_calls[g_calls].name) ++g_calls;
  char dir[] = "/tmp/gpurun-garbage-XXXXXX";
  if (mkdtemp(dir) == NULL || chdir(dir) != 0) return perror("garbage: temporary folder"), 1;
  MPI_Init(&argc, &argv);
  setup();
  int failed = 0, calls = 0;
  for (const struct garbage_call *c = garbage_calls; c->name; ++c) {
    if (only && strcmp(only, c->name) != 0) continue;
    ++calls;
    for (int t = 0; t < trials; ++t) failed += trial(c, (int)(c - garbage_calls), t);
  }
  MPI_File_close(&g_file);
  MPI_Session_finalize(&g_session);
  MPI_Finalize();
  if (chdir("/") != 0 || nftw(dir, remove_entry, 8, FTW_DEPTH | FTW_PHYS) != 0)
    printf("garbage: could not remove %s\n", dir), ++failed;
  printf("%d calls, %d trials each: %d failed\n", calls, trials, failed);
  if (calls == 0) printf("garbage: no call is named %s\n", only ? only : "(none)"), ++failed;
  if (failed == 0) printf(" No Errors\n");
  return failed != 0;
}

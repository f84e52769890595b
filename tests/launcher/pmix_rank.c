/* A rank for the launcher tests, written against the PMIx client API the way libmpi's
 * MPI_Init/Finalize/Abort use it (one fence with collected data, PMIx_Abort then exit), so
 * that the launcher is tested as a PMIx server before and beside the MPI library.
 *
 * usage: pmix_rank MODE [args]
 *   hello              init, put, fence(collect), check every peer's key, print, finalize
 *   info               print the job keys: size, jobdir, token, oversubscribed, cores, cpus, copy
 *                      ("-" when absent), the rank's GPU keys (gpus, nic; "-" when absent) and
 *                      CUDA_VISIBLE_DEVICES
 *   abort R CODE       rank R calls PMIx_Abort(CODE) after the fence; others wait
 *   exit R CODE        rank R exits with CODE after the fence, without finalizing
 *   kill R             rank R raises SIGKILL after the fence; others wait
 *   noinit R           rank R exits 0 without finalizing; others wait
 *   wait               init, fence, print "waiting", then wait for a signal
 *   stdin              init; rank 0 echoes its stdin as "got: <line>"; others report EOF
 *   lines N            every rank writes N lines, each in three separate writes
 *   litter             init, leave a segment and a file behind (below), finalize, exit 0
 *   apps               print "rank R appnum A apps K size Z leader L": the rank's PMIX_APPNUM,
 *                      the job's PMIX_JOB_NUM_APPS, and its program's PMIX_APP_SIZE and
 *                      PMIX_APPLDR (asked with PMIX_APP_INFO)
 * Every mode that waits or fails prints "pid <rank> <pid>" first, so tests can check that the
 * ranks die, and leaves litter as a crashing MPI rank would: a shared-memory segment
 * /dev/shm/gpurun-<token>-rank<R> and a file <jobdir>/rank<R>, for gpurun to remove. */
#define _GNU_SOURCE
#include <pmix.h>
#include <fcntl.h>
#include <sched.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static pmix_proc_t me;
static uint32_t size;

#define CHECK(x)                                                                  \
  do {                                                                            \
    pmix_status_t rc_ = (x);                                                      \
    if (rc_ != PMIX_SUCCESS) {                                                    \
      fprintf(stderr, "%s failed: %s\n", #x, PMIx_Error_string(rc_));             \
      exit(3);                                                                    \
    }                                                                             \
  } while (0)

static pmix_value_t* get_job(const char* key) {
  pmix_proc_t wild;
  pmix_value_t* val = NULL;
  PMIX_LOAD_PROCID(&wild, me.nspace, PMIX_RANK_WILDCARD);
  CHECK(PMIx_Get(&wild, key, NULL, 0, &val));
  return val;
}

static void init_and_fence(void) {
  CHECK(PMIx_Init(&me, NULL, 0));
  pmix_value_t* val = get_job(PMIX_JOB_SIZE);
  size = val->data.uint32;
  PMIX_VALUE_RELEASE(val);
  char buf[64];
  snprintf(buf, sizeof buf, "endpoint-of-%u", me.rank);
  pmix_value_t v;
  PMIX_VALUE_LOAD(&v, buf, PMIX_STRING);
  CHECK(PMIx_Put(PMIX_GLOBAL, "test.ep", &v));
  PMIX_VALUE_DESTRUCT(&v);
  CHECK(PMIx_Commit());
  pmix_info_t collect;
  bool yes = true;
  PMIX_INFO_LOAD(&collect, PMIX_COLLECT_DATA, &yes, PMIX_BOOL);
  pmix_proc_t wild;
  PMIX_LOAD_PROCID(&wild, me.nspace, PMIX_RANK_WILDCARD);
  CHECK(PMIx_Fence(&wild, 1, &collect, 1));
}

static int check_peers(void) {
  for (uint32_t r = 0; r < size; ++r) {
    pmix_proc_t peer;
    pmix_value_t* val = NULL;
    char want[64];
    PMIX_LOAD_PROCID(&peer, me.nspace, r);
    CHECK(PMIx_Get(&peer, "test.ep", NULL, 0, &val));
    snprintf(want, sizeof want, "endpoint-of-%u", r);
    int ok = strcmp(val->data.string, want) == 0;
    PMIX_VALUE_RELEASE(val);
    if (!ok) return 0;
  }
  return 1;
}

static void finalize(void) { CHECK(PMIx_Finalize(NULL, 0)); }

static void leave_litter(void) {
  pmix_value_t* dir = get_job("gpurun.jobdir");
  pmix_value_t* token = get_job("gpurun.token");
  char path[4096];
  snprintf(path, sizeof path, "/gpurun-%s-rank%u", token->data.string, me.rank);
  int fd = shm_open(path, O_CREAT | O_RDWR, 0600);
  if (fd < 0 || ftruncate(fd, 4096) != 0) perror("shm_open");
  close(fd);
  snprintf(path, sizeof path, "%s/rank%u", dir->data.string, me.rank);
  fd = open(path, O_CREAT | O_WRONLY, 0600);
  if (fd < 0) perror(path);
  close(fd);
  PMIX_VALUE_RELEASE(dir);
  PMIX_VALUE_RELEASE(token);
}

static void announce(void) {
  leave_litter();
  printf("pid %u %d\n", me.rank, (int)getpid());
  fflush(stdout);
}

static void barrier(void) {
  pmix_proc_t wild;
  PMIX_LOAD_PROCID(&wild, me.nspace, PMIX_RANK_WILDCARD);
  CHECK(PMIx_Fence(&wild, 1, NULL, 0));
}

static void wait_for_signal(void) {
  for (;;) pause();
}

/* The string key `key` of `proc`, or "-" when the launcher gave none (the caller frees). */
static char* get_string(const pmix_proc_t* proc, const char* key) {
  pmix_value_t* val = NULL;
  pmix_info_t optional;
  bool yes = true;
  PMIX_INFO_LOAD(&optional, PMIX_OPTIONAL, &yes, PMIX_BOOL);
  pmix_status_t rc = PMIx_Get(proc, key, &optional, 1, &val);
  PMIX_INFO_DESTRUCT(&optional);
  if (rc != PMIX_SUCCESS || val == NULL || val->type != PMIX_STRING) return strdup("-");
  char* out = strdup(val->data.string);
  PMIX_VALUE_RELEASE(val);
  return out;
}

static char* get_own_string(const char* key) { return get_string(&me, key); }

/* The number `key` of `proc`, asked with `info` (PMIX_UINT32 or PMIX_PROC_RANK). */
static uint32_t get_number(const pmix_proc_t* proc, const char* key, pmix_info_t* info,
                           size_t ninfo) {
  pmix_value_t* val = NULL;
  pmix_status_t rc = PMIx_Get(proc, key, info, ninfo, &val);
  if (rc != PMIX_SUCCESS) {
    fprintf(stderr, "PMIx_Get %s failed: %s\n", key, PMIx_Error_string(rc));
    exit(3);
  }
  uint32_t out = val->type == PMIX_PROC_RANK ? val->data.rank : val->data.uint32;
  PMIX_VALUE_RELEASE(val);
  return out;
}

static int mode_apps(void) {
  pmix_proc_t wild;
  PMIX_LOAD_PROCID(&wild, me.nspace, PMIX_RANK_WILDCARD);
  uint32_t appnum = get_number(&me, PMIX_APPNUM, NULL, 0);
  uint32_t apps = get_number(&wild, PMIX_JOB_NUM_APPS, NULL, 0);
  pmix_info_t app[2];
  bool yes = true;
  PMIX_INFO_LOAD(&app[0], PMIX_APP_INFO, &yes, PMIX_BOOL);
  PMIX_INFO_LOAD(&app[1], PMIX_APPNUM, &appnum, PMIX_UINT32);
  uint32_t app_size = get_number(&wild, PMIX_APP_SIZE, app, 2);
  uint32_t leader = get_number(&wild, PMIX_APPLDR, app, 2);
  PMIX_INFO_DESTRUCT(&app[0]);
  PMIX_INFO_DESTRUCT(&app[1]);
  printf("rank %u appnum %u apps %u size %u leader %u\n", me.rank, appnum, apps, app_size,
         leader);
  finalize();
  return 0;
}

static int mode_info(void) {
  pmix_proc_t wild;
  PMIX_LOAD_PROCID(&wild, me.nspace, PMIX_RANK_WILDCARD);
  pmix_value_t* dir = get_job("gpurun.jobdir");
  pmix_value_t* token = get_job("gpurun.token");
  pmix_value_t* over = get_job("gpurun.oversubscribed");
  pmix_value_t* local = get_job(PMIX_LOCAL_SIZE);
  pmix_value_t* cores = get_job("gpurun.cores");
  cpu_set_t mask;
  sched_getaffinity(0, sizeof mask, &mask);
  struct stat st;
  if (stat(dir->data.string, &st) != 0) perror(dir->data.string);
  char* gpus = get_own_string("gpurun.gpus");
  char* nic = get_own_string("gpurun.nic");
  char* copy = get_string(&wild, "gpurun.copy");
  const char* visible = getenv("CUDA_VISIBLE_DEVICES");
  printf("rank %u size %u local %u jobdir %s mode %o token %s oversubscribed %d cores %u "
         "cpus %d gpus %s nic %s copy %s cuda_visible %s\n",
         me.rank, size, local->data.uint32, dir->data.string, (unsigned)(st.st_mode & 07777),
         token->data.string, over->data.flag ? 1 : 0, cores->data.uint32, CPU_COUNT(&mask), gpus,
         nic, copy, visible ? (*visible ? visible : "(empty)") : "-");
  free(gpus);
  free(nic);
  free(copy);
  PMIX_VALUE_RELEASE(dir);
  PMIX_VALUE_RELEASE(token);
  PMIX_VALUE_RELEASE(over);
  PMIX_VALUE_RELEASE(local);
  PMIX_VALUE_RELEASE(cores);
  finalize();
  return 0;
}

static int mode_stdin(void) {
  char line[4096];
  while (fgets(line, sizeof line, stdin) != NULL) printf("rank %u got: %s", me.rank, line);
  printf("rank %u stdin EOF\n", me.rank);
  finalize();
  return 0;
}

static int mode_lines(int n) {
  char head[64];
  for (int i = 0; i < n; ++i) {
    int len = snprintf(head, sizeof head, "rank %u line %d", me.rank, i);
    write(STDOUT_FILENO, head, (size_t)len);
    write(STDOUT_FILENO, " of a whole", 11);
    write(STDOUT_FILENO, " line\n", 6);
  }
  write(STDERR_FILENO, "to stderr\n", 10);
  finalize();
  return 0;
}

int main(int argc, char** argv) {
  const char* mode = argc > 1 ? argv[1] : "hello";
  int target = argc > 2 ? atoi(argv[2]) : 0;
  int code = argc > 3 ? atoi(argv[3]) : 0;
  setvbuf(stdout, NULL, _IOLBF, 0);
  init_and_fence();
  if (strcmp(mode, "hello") == 0) {
    int ok = check_peers();
    printf("rank %u of %u: %s\n", me.rank, size, ok ? "peers ok" : "PEER KEY MISMATCH");
    finalize();
    return ok ? 0 : 1;
  }
  if (strcmp(mode, "info") == 0) return mode_info();
  if (strcmp(mode, "apps") == 0) return mode_apps();
  if (strcmp(mode, "stdin") == 0) return mode_stdin();
  if (strcmp(mode, "lines") == 0) return mode_lines(target);
  if (strcmp(mode, "litter") == 0) {
    announce();
    finalize();
    return 0;
  }
  /* The failing modes: every rank's pid is printed before any rank fails. */
  announce();
  barrier();
  if (strcmp(mode, "wait") == 0 || (int)me.rank != target) wait_for_signal();
  if (strcmp(mode, "noinit") == 0) return 0;
  if (strcmp(mode, "abort") == 0) {
    PMIx_Abort(code, "test abort", NULL, 0);
    exit(code);
  }
  if (strcmp(mode, "exit") == 0) exit(code);
  if (strcmp(mode, "kill") == 0) raise(SIGKILL);
  fprintf(stderr, "pmix_rank: unknown mode %s\n", mode);
  return 4;
}

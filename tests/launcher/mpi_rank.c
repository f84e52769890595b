/* An MPI program for the launcher tests: the same modes as pmix_rank.c, through libmpi
 * (MPI_Init, MPI_Barrier, MPI_Abort, MPI_Finalize). It reads the job's token and directory
 * with PMIx (a second PMIx_Init in the process is allowed and shares the library's
 * connection), to leave litter as a crashing rank of the library would.
 *
 * usage: mpi_rank MODE [R [CODE]]
 *   hello         print "rank R of N", barrier, finalize
 *   abort R CODE  rank R calls MPI_Abort(CODE) once every rank has printed its pid
 *   exit R CODE   rank R exits with CODE without MPI_Finalize
 *   kill R        rank R raises SIGKILL
 *   noinit R      rank R exits 0 without MPI_Finalize
 *   wait          every rank waits for a signal
 *   litter        leave litter, then finalize and exit 0
 *   stdin         rank 0 echoes its stdin as "got: <line>"; others report EOF
 *   lines N       every rank writes N lines, each in three separate writes
 *   bcast N       an MPI_Bcast of N bytes from rank 0, checked; prints "bcast ok"
 *   app TAG       one program of several (gpurun A : B): prints "rank R of N app A tag TAG
 *                 name P var V cwd D" (P its argv[0], V $MPMD_VAR), then "ranks of app A:
 *                 Z, apps in all: K" (the sizes from MPI_Comm_split by MPI_APPNUM, and the
 *                 largest MPI_APPNUM + 1 over MPI_COMM_WORLD) */
#define _GNU_SOURCE
#include <fcntl.h>
#include <mpi.h>
#include <pmix.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static int rank, size;

static char* job_string(const char* key) {
  pmix_proc_t me, wild;
  pmix_value_t* val = NULL;
  if (PMIx_Init(&me, NULL, 0) != PMIX_SUCCESS) return NULL;
  PMIX_LOAD_PROCID(&wild, me.nspace, PMIX_RANK_WILDCARD);
  char* out = NULL;
  if (PMIx_Get(&wild, key, NULL, 0, &val) == PMIX_SUCCESS && val->type == PMIX_STRING)
    out = strdup(val->data.string);
  if (val != NULL) PMIX_VALUE_RELEASE(val);
  PMIx_Finalize(NULL, 0);
  return out;
}

/* A segment /dev/shm/gpurun-<token>-rank<R> and a file <jobdir>/rank<R>. */
static void leave_litter(void) {
  char* token = job_string("gpurun.token");
  char* dir = job_string("gpurun.jobdir");
  char path[4096];
  if (token == NULL || dir == NULL) {
    fprintf(stderr, "mpi_rank: no gpurun job keys\n");
    exit(3);
  }
  snprintf(path, sizeof path, "/gpurun-%s-rank%d", token, rank);
  int fd = shm_open(path, O_CREAT | O_RDWR, 0600);
  if (fd < 0 || ftruncate(fd, 4096) != 0) perror("shm_open");
  close(fd);
  snprintf(path, sizeof path, "%s/rank%d", dir, rank);
  fd = open(path, O_CREAT | O_WRONLY, 0600);
  if (fd < 0) perror(path);
  close(fd);
  free(token);
  free(dir);
}

static void announce(void) {
  leave_litter();
  printf("pid %d %d\n", rank, (int)getpid());
  fflush(stdout);
}

static int mode_stdin(void) {
  char line[4096];
  while (fgets(line, sizeof line, stdin) != NULL) printf("rank %d got: %s", rank, line);
  printf("rank %d stdin EOF\n", rank);
  MPI_Finalize();
  return 0;
}

static int mode_lines(int n) {
  char head[64];
  for (int i = 0; i < n; ++i) {
    int len = snprintf(head, sizeof head, "rank %d line %d", rank, i);
    if (write(STDOUT_FILENO, head, (size_t)len) < 0 ||
        write(STDOUT_FILENO, " of a whole", 11) < 0 || write(STDOUT_FILENO, " line\n", 6) < 0)
      return 1;
  }
  if (write(STDERR_FILENO, "to stderr\n", 10) < 0) return 1;
  MPI_Finalize();
  return 0;
}

static int mode_bcast(int bytes) {
  unsigned char* buf = malloc(bytes > 0 ? (size_t)bytes : 1);
  for (int i = 0; i < bytes; ++i) buf[i] = rank == 0 ? (unsigned char)(i * 7) : 0;
  MPI_Bcast(buf, bytes, MPI_BYTE, 0, MPI_COMM_WORLD);
  int wrong = 0;
  for (int i = 0; i < bytes; ++i) wrong += buf[i] != (unsigned char)(i * 7);
  free(buf);
  printf(wrong == 0 ? "rank %d: bcast ok\n" : "rank %d: bcast wrong\n", rank);
  MPI_Finalize();
  return wrong == 0 ? 0 : 1;
}

static int mode_app(const char* tag, const char* name) {
  int* appnum = NULL;
  int flag = 0;
  MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_APPNUM, &appnum, &flag);
  int app = flag ? *appnum : -1;
  const char* var = getenv("MPMD_VAR");
  char cwd[4096];
  printf("rank %d of %d app %d tag %s name %s var %s cwd %s\n", rank, size, app, tag, name,
         var ? var : "-", getcwd(cwd, sizeof cwd) ? cwd : "?");
  MPI_Comm mine;
  MPI_Comm_split(MPI_COMM_WORLD, app, rank, &mine);
  int mine_size = 0, apps = 0, top = app + 1;
  MPI_Comm_size(mine, &mine_size);
  MPI_Allreduce(&top, &apps, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  printf("rank %d: ranks of app %d: %d, apps in all: %d\n", rank, app, mine_size, apps);
  MPI_Comm_free(&mine);
  MPI_Finalize();
  return 0;
}

int main(int argc, char** argv) {
  const char* mode = argc > 1 ? argv[1] : "hello";
  int target = argc > 2 ? atoi(argv[2]) : 0;
  int code = argc > 3 ? atoi(argv[3]) : 0;
  setvbuf(stdout, NULL, _IOLBF, 0);
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (strcmp(mode, "hello") == 0) {
    printf("rank %d of %d\n", rank, size);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
  }
  if (strcmp(mode, "stdin") == 0) return mode_stdin();
  if (strcmp(mode, "lines") == 0) return mode_lines(target);
  if (strcmp(mode, "bcast") == 0) return mode_bcast(target);
  if (strcmp(mode, "app") == 0) return mode_app(argc > 2 ? argv[2] : "-", argv[0]);
  announce();
  if (strcmp(mode, "litter") == 0) {
    MPI_Finalize();
    return 0;
  }
  /* The failing modes: every rank's pid is printed before any rank fails. */
  MPI_Barrier(MPI_COMM_WORLD);
  if (strcmp(mode, "wait") == 0 || rank != target)
    for (;;) pause();
  if (strcmp(mode, "noinit") == 0) return 0;
  if (strcmp(mode, "abort") == 0) MPI_Abort(MPI_COMM_WORLD, code);
  if (strcmp(mode, "exit") == 0) exit(code);
  if (strcmp(mode, "kill") == 0) raise(SIGKILL);
  fprintf(stderr, "mpi_rank: unknown mode %s\n", mode);
  return 4;
}

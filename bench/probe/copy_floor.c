/* copy_floor: what the moves of a single-copy collective cost on this host, by themselves.
 *
 * Two processes on two CPUs, each with a send block of N bytes and a receive buffer of 2N,
 * time (medians of per-iteration means over rounds, after a two-process barrier each
 * iteration):
 *   memcpy      each copies its own block into its receive buffer;
 *   cma         each reads the other's block into its receive buffer with process_vm_readv
 *               (the kernel's single copy: gpurun's "cma" algorithms, Open MPI's CMA);
 *   memcpy+cma  both, one after the other: an allgather or alltoall of two ranks can do no
 *               less with one copy a block, so its time is this plus the synchronisation.
 * The blocks are never rewritten, as in the osu_* loops: after the first iteration the reader's
 * cache may hold the other's block already.
 *
 * Usage: copy_floor [-i iterations] [-r rounds] [bytes ...]   (default 4K 64K 1M)
 * Prints a Markdown table in microseconds. Exit 77 when the kernel refuses the CMA read. */
#define _GNU_SOURCE
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

enum { kModes = 3, kMaxSizes = 16, kMaxRounds = 15 };
static const char *const kNames[kModes] = {"memcpy", "cma", "memcpy+cma"};

struct shared {
  _Atomic long arrived[2];
  _Atomic int failed;
  char *send[2];
  pid_t pid[2];
};

static double now_us(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec * 1e6 + (double)t.tv_nsec / 1e3;
}

/* Both processes reach `epoch`. */
static void barrier(struct shared *sh, int me, long epoch) {
  atomic_store(&sh->arrived[me], epoch);
  while (atomic_load(&sh->arrived[1 - me]) < epoch) {
  }
}

/* The CPUs this process may use: the first two, or -1. */
static void two_cpus(int cpu[2]) {
  cpu_set_t set;
  cpu[0] = cpu[1] = -1;
  if (sched_getaffinity(0, sizeof set, &set) != 0) return;
  for (int c = 0, found = 0; c < CPU_SETSIZE && found < 2; ++c)
    if (CPU_ISSET(c, &set)) cpu[found++] = c;
}

static void pin(int cpu) {
  if (cpu < 0) return;
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cpu, &set);
  sched_setaffinity(0, sizeof set, &set);
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* One iteration of `mode` for process `me`, moving `n` bytes a block. */
static int move(struct shared *sh, int me, int mode, char *recv, size_t n) {
  if (mode != 1) memcpy(recv + (size_t)me * n, sh->send[me], n);
  if (mode == 0) return 0;
  struct iovec local = {recv + (size_t)(1 - me) * n, n}, remote = {sh->send[1 - me], n};
  return process_vm_readv(sh->pid[1 - me], &local, 1, &remote, 1, 0) == (ssize_t)n ? 0 : -1;
}

int main(int argc, char **argv) {
  int iters = 2000, rounds = 5, nsizes = 0;
  size_t sizes[kMaxSizes];
  for (int a = 1; a < argc; ++a) {
    if (!strcmp(argv[a], "-i") && a + 1 < argc) iters = atoi(argv[++a]);
    else if (!strcmp(argv[a], "-r") && a + 1 < argc) rounds = atoi(argv[++a]);
    else if (nsizes < kMaxSizes && atol(argv[a]) > 0) sizes[nsizes++] = (size_t)atol(argv[a]);
    else {
      fprintf(stderr, "usage: copy_floor [-i iterations] [-r rounds] [bytes ...]\n");
      return 2;
    }
  }
  if (iters < 1 || rounds < 1 || rounds > kMaxRounds) {
    fprintf(stderr, "copy_floor: -i takes 1 or more, -r 1 to %d\n", kMaxRounds);
    return 2;
  }
  if (nsizes == 0) {
    sizes[0] = 4096, sizes[1] = 65536, sizes[2] = 1048576;
    nsizes = 3;
  }
  size_t largest = 0;
  for (int s = 0; s < nsizes; ++s) largest = sizes[s] > largest ? sizes[s] : largest;

  struct shared *sh =
      mmap(NULL, sizeof *sh, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (sh == MAP_FAILED) return 1;
  /* The child reads the parent's memory too: allowed where Yama restricts ptrace. */
  prctl(PR_SET_PTRACER, PR_SET_PTRACER_ANY, 0, 0, 0);
  int cpu[2];
  two_cpus(cpu);
  pid_t child = fork();
  if (child < 0) return 1;
  int me = child == 0 ? 1 : 0;
  pin(cpu[me]);
  char *send = malloc(largest), *recv = malloc(2 * largest);
  if (send == NULL || recv == NULL) return 1;
  memset(send, me + 1, largest);
  memset(recv, 0, 2 * largest);
  sh->send[me] = send;
  sh->pid[me] = getpid();
  long epoch = 0;
  barrier(sh, me, ++epoch);

  if (me == 0) printf("| bytes | %s | %s | %s |\n|---:|---:|---:|---:|\n", kNames[0], kNames[1],
                      kNames[2]);
  for (int s = 0; s < nsizes; ++s) {
    double median[kModes];
    for (int mode = 0; mode < kModes; ++mode) {
      double per_round[kMaxRounds];
      for (int r = 0; r < rounds; ++r) {
        double total = 0;
        for (int i = 0; i < iters; ++i) {
          barrier(sh, me, ++epoch);
          double t0 = now_us();
          if (move(sh, me, mode, recv, sizes[s]) != 0) atomic_store(&sh->failed, 1);
          total += now_us() - t0;
        }
        per_round[r] = total / iters;
      }
      qsort(per_round, (size_t)rounds, sizeof(double), cmp_double);
      median[mode] = per_round[rounds / 2];
    }
    barrier(sh, me, ++epoch);
    if (atomic_load(&sh->failed)) break;
    if (me == 0)
      printf("| %zu | %.2f | %.2f | %.2f |\n", sizes[s], median[0], median[1], median[2]);
  }
  free(send);  /* the last barrier passed: no process reads it any more */
  free(recv);
  if (me == 1) return 0;
  waitpid(child, NULL, 0);
  if (atomic_load(&sh->failed)) {
    fprintf(stderr, "copy_floor: the kernel refused process_vm_readv between the two processes\n");
    return 77;
  }
  return 0;
}

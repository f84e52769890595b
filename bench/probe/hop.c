/* hop: the time one cache line takes to go from one core to another, right now.
 *
 * Two threads on two different CPUs play ping-pong on two cache lines; the result is half the
 * round trip. On a virtual machine it tells which way the host placed our virtual CPUs at this
 * moment (siblings of one physical core, or cores far apart), which moves every shared-memory
 * latency by the same amount: bench/compare records it around each round of runs.
 *
 * Usage: hop [round trips]     prints {"hop_ns": N, "cpus": [a, b]} */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

struct line {
  _Atomic long value;
  char pad[64 - sizeof(long)];
};

static struct line lines[2] __attribute__((aligned(64)));
static long rounds = 50000;

static void pin(int cpu) {
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cpu, &set);
  pthread_setaffinity_np(pthread_self(), sizeof set, &set);
}

static void *echo(void *arg) {
  pin(*(int *)arg);
  for (long i = 1; i <= rounds; i++) {
    while (atomic_load_explicit(&lines[0].value, memory_order_acquire) != i) {
    }
    atomic_store_explicit(&lines[1].value, i, memory_order_release);
  }
  return NULL;
}

int main(int argc, char **argv) {
  if (argc > 1) rounds = atol(argv[1]);
  cpu_set_t allowed;
  sched_getaffinity(0, sizeof allowed, &allowed);
  int cpus[2] = {-1, -1}, n = 0;
  for (int c = 0; c < CPU_SETSIZE && n < 2; c++)
    if (CPU_ISSET(c, &allowed)) cpus[n++] = c;
  if (n < 2) {
    printf("{\"hop_ns\": null, \"cpus\": [%d]}\n", cpus[0]);
    return 0;
  }
  pthread_t t;
  pthread_create(&t, NULL, echo, &cpus[1]);
  pin(cpus[0]);
  struct timespec a, b;
  clock_gettime(CLOCK_MONOTONIC, &a);
  for (long i = 1; i <= rounds; i++) {
    atomic_store_explicit(&lines[0].value, i, memory_order_release);
    while (atomic_load_explicit(&lines[1].value, memory_order_acquire) != i) {
    }
  }
  clock_gettime(CLOCK_MONOTONIC, &b);
  pthread_join(t, NULL);
  double ns = ((b.tv_sec - a.tv_sec) * 1e9 + (b.tv_nsec - a.tv_nsec)) / rounds / 2;
  printf("{\"hop_ns\": %.1f, \"cpus\": [%d, %d]}\n", ns, cpus[0], cpus[1]);
  return 0;
}

/* A PMIx client for the multi-host tests: where a rank runs and what PMIx tells it about the
 * job, and the key exchange across hosts.
 *
 * usage: host_rank MODE
 *   where     print one line: rank R size N local L/LS node K nodes M host H netns NS peers P
 *             (NS: the network namespace the rank runs in, by its name in /run/netns, "-" for
 *             none, which is how a rank shows the test host it landed on)
 *   exchange  every rank puts a key, fence with data collection, reads every rank's key; then
 *             puts a second key, fence without collection, reads every rank's second key (the
 *             PMIx server fetches other hosts' keys with a direct modex); prints
 *             "rank R exchange ok" or what went wrong, exit 1 on a mismatch */
#define _GNU_SOURCE
#include <dirent.h>
#include <pmix.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static pmix_proc_t me;

#define CHECK(x)                                                      \
  do {                                                                \
    pmix_status_t rc_ = (x);                                          \
    if (rc_ != PMIX_SUCCESS) {                                        \
      fprintf(stderr, "%s failed: %s\n", #x, PMIx_Error_string(rc_)); \
      exit(3);                                                        \
    }                                                                 \
  } while (0)

static pmix_value_t* get(const pmix_proc_t* proc, const char* key) {
  pmix_value_t* val = NULL;
  CHECK(PMIx_Get(proc, key, NULL, 0, &val));
  return val;
}

static uint32_t get_u32(const pmix_proc_t* proc, const char* key) {
  pmix_value_t* val = get(proc, key);
  uint32_t out = val->type == PMIX_UINT16 ? val->data.uint16 : val->data.uint32;
  PMIX_VALUE_RELEASE(val);
  return out;
}

static void netns_name(char* out, size_t size) {
  struct stat self;
  snprintf(out, size, "-");
  if (stat("/proc/self/ns/net", &self) != 0) return;
  DIR* dir = opendir("/run/netns");
  if (dir == NULL) return;
  for (struct dirent* e; (e = readdir(dir)) != NULL;) {
    char path[512];
    struct stat st;
    snprintf(path, sizeof path, "/run/netns/%s", e->d_name);
    if (e->d_name[0] != '.' && stat(path, &st) == 0 && st.st_ino == self.st_ino &&
        st.st_dev == self.st_dev) {
      snprintf(out, size, "%s", e->d_name);
      break;
    }
  }
  closedir(dir);
}

static int mode_where(void) {
  pmix_proc_t wild;
  PMIX_LOAD_PROCID(&wild, me.nspace, PMIX_RANK_WILDCARD);
  pmix_value_t* host = get(&me, PMIX_HOSTNAME);
  pmix_value_t* peers = get(&wild, PMIX_LOCAL_PEERS);
  char ns[256];
  netns_name(ns, sizeof ns);
  printf("rank %u size %u local %u/%u node %u nodes %u host %s netns %s peers %s\n", me.rank,
         get_u32(&wild, PMIX_JOB_SIZE), get_u32(&me, PMIX_LOCAL_RANK),
         get_u32(&wild, PMIX_LOCAL_SIZE), get_u32(&me, PMIX_NODEID), get_u32(&wild, PMIX_NUM_NODES),
         host->data.string, ns, peers->data.string);
  PMIX_VALUE_RELEASE(host);
  PMIX_VALUE_RELEASE(peers);
  return 0;
}

static void put(const char* key, uint32_t rank) {
  char text[64];
  snprintf(text, sizeof text, "%s-of-%u", key, rank);
  pmix_value_t v;
  PMIX_VALUE_LOAD(&v, text, PMIX_STRING);
  CHECK(PMIx_Put(PMIX_GLOBAL, key, &v));
  PMIX_VALUE_DESTRUCT(&v);
  CHECK(PMIx_Commit());
}

static void fence(bool collect) {
  pmix_proc_t wild;
  pmix_info_t info;
  PMIX_LOAD_PROCID(&wild, me.nspace, PMIX_RANK_WILDCARD);
  PMIX_INFO_LOAD(&info, PMIX_COLLECT_DATA, &collect, PMIX_BOOL);
  CHECK(PMIx_Fence(&wild, 1, &info, 1));
  PMIX_INFO_DESTRUCT(&info);
}

/* Reads `key` of every rank; returns the number of wrong values. */
static int read_all(const char* key, uint32_t size) {
  int wrong = 0;
  for (uint32_t r = 0; r < size; ++r) {
    pmix_proc_t peer;
    char want[64];
    PMIX_LOAD_PROCID(&peer, me.nspace, r);
    pmix_value_t* val = get(&peer, key);
    snprintf(want, sizeof want, "%s-of-%u", key, r);
    if (val->type != PMIX_STRING || strcmp(val->data.string, want) != 0) {
      fprintf(stderr, "rank %u: %s of rank %u is wrong\n", me.rank, key, r);
      ++wrong;
    }
    PMIX_VALUE_RELEASE(val);
  }
  return wrong;
}

static int mode_exchange(void) {
  pmix_proc_t wild;
  PMIX_LOAD_PROCID(&wild, me.nspace, PMIX_RANK_WILDCARD);
  uint32_t size = get_u32(&wild, PMIX_JOB_SIZE);
  put("test.collected", me.rank);
  fence(true);
  int wrong = read_all("test.collected", size);
  put("test.direct", me.rank);
  fence(false);
  wrong += read_all("test.direct", size);
  fence(false); /* nobody leaves while a peer may still ask for its keys */
  printf("rank %u exchange %s\n", me.rank, wrong == 0 ? "ok" : "FAILED");
  return wrong == 0 ? 0 : 1;
}

int main(int argc, char** argv) {
  const char* mode = argc > 1 ? argv[1] : "where";
  setvbuf(stdout, NULL, _IOLBF, 0);
  CHECK(PMIx_Init(&me, NULL, 0));
  int code = 4;
  if (strcmp(mode, "where") == 0) code = mode_where();
  if (strcmp(mode, "exchange") == 0) code = mode_exchange();
  if (code == 4) fprintf(stderr, "host_rank: unknown mode %s\n", mode);
  CHECK(PMIx_Finalize(NULL, 0));
  return code;
}

/* An MPI program for the multi-host and two-node Slurm tests: where each rank runs, through
 * libmpi (MPI_Init, MPI_Comm_rank/size, MPI_Finalize: no message crosses a host, so it runs
 * before the network transports exist). Prints "rank R of N netns NS", NS being the network
 * namespace the rank runs in by its name in /run/netns ("-" for none). */
#define _GNU_SOURCE
#include <dirent.h>
#include <mpi.h>
#include <stdio.h>
#include <sys/stat.h>

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

int main(int argc, char** argv) {
  int rank = 0, size = 0;
  char ns[256];
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  netns_name(ns, sizeof ns);
  printf("rank %d of %d netns %s\n", rank, size, ns);
  fflush(stdout);
  MPI_Finalize();
  return 0;
}

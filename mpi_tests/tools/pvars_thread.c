/* A tool reads performance variables from a thread of its own while the program communicates
 * (MPI_THREAD_MULTIPLE), as sampling profilers do: rank 0's tool thread starts a counter of
 * eager sends, sees it never go down while the main thread sends 1000 small messages, and reads
 * exactly 1000 once they are sent. */
#include <pthread.h>
#include <stdatomic.h>

#include "mtest.h"

enum { kMessages = 1000 };

static atomic_int phase; /* 0: tool starting, 1: counting, 2: sends done */

static void *tool(void *arg) {
  (void)arg;
  int provided, index = -1, count;
  MPI_T_pvar_session session;
  MPI_T_pvar_handle handle;
  MTEST_CHECK(MPI_T_init_thread(MPI_THREAD_MULTIPLE, &provided) == MPI_SUCCESS, "T init");
  MPI_T_pvar_get_index("pml_eager_sends", MPI_T_PVAR_CLASS_COUNTER, &index);
  MPI_T_pvar_session_create(&session);
  MPI_T_pvar_handle_alloc(session, index, NULL, &handle, &count);
  MPI_T_pvar_start(session, handle);
  atomic_store(&phase, 1);
  unsigned long long last = 0, now = 0;
  long reads = 0;
  while (atomic_load(&phase) != 2) {
    MPI_T_pvar_read(session, handle, &now);
    MTEST_CHECK(now >= last, "the counter went down from %llu to %llu", last, now);
    last = now;
    ++reads;
  }
  MPI_T_pvar_stop(session, handle);
  MPI_T_pvar_read(session, handle, &now);
  MTEST_CHECK(now == kMessages, "counted %llu eager sends, want %d (%ld reads)", now, kMessages,
              reads);
  MPI_T_pvar_session_free(&session);
  MPI_T_finalize();
  return NULL;
}

int main(int argc, char **argv) {
  int provided, rank, buf = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  MTEST_CHECK(provided == MPI_THREAD_MULTIPLE, "provided %d", provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  pthread_t thread;
  if (rank == 0) {
    pthread_create(&thread, NULL, tool, NULL);
    while (atomic_load(&phase) != 1) {
    }
  }
  for (int i = 0; i < kMessages; ++i) {
    if (rank == 0) MPI_Send(&buf, 1, MPI_INT, 1, 0, MPI_COMM_WORLD);
    if (rank == 1) MPI_Recv(&buf, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  }
  if (rank == 0) {
    atomic_store(&phase, 2);
    pthread_join(thread, NULL);
  }
  return mtest_finalize();
}

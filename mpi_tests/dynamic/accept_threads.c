/* MPI_Comm_accept in one thread while another communicates (MPI_THREAD_MULTIPLE), as a server
 * that accepts clients beside its work does: rank 0's second thread accepts on a port while its
 * main thread runs a ping-pong with rank 1; rank 1 connects only after the ping-pong, so the
 * accept waits through all of it. Both then send over the new intercommunicator and disconnect.
 * An accept that kept the other threads out of the library would hang here. */
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "mtest.h"

#define ROUNDS 200

static char port[MPI_MAX_PORT_NAME];
static MPI_Comm accepted = MPI_COMM_NULL;

static void *accept_client(void *unused) {
  (void)unused;
  MPI_Comm_accept(port, MPI_INFO_NULL, 0, MPI_COMM_SELF, &accepted);
  return NULL;
}

int main(int argc, char **argv) {
  int provided = 0, rank = 0, size = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MTEST_CHECK(provided == MPI_THREAD_MULTIPLE && size == 2, "thread level %d, %d ranks",
              provided, size);
  pthread_t server;
  if (rank == 0) {
    MPI_Open_port(MPI_INFO_NULL, port);
    pthread_create(&server, NULL, accept_client, NULL);
  }
  MPI_Bcast(port, MPI_MAX_PORT_NAME, MPI_CHAR, 0, MPI_COMM_WORLD);
  for (int i = 0; i < ROUNDS; ++i) {
    int value = i;
    if (rank == 0) {
      MPI_Send(&value, 1, MPI_INT, 1, 0, MPI_COMM_WORLD);
      MPI_Recv(&value, 1, MPI_INT, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else {
      MPI_Recv(&value, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      MPI_Send(&value, 1, MPI_INT, 0, 0, MPI_COMM_WORLD);
    }
    MTEST_CHECK(value == i, "round %d brought %d", i, value);
  }
  int word = 0;
  if (rank == 0) {
    pthread_join(server, NULL);
    MPI_Recv(&word, 1, MPI_INT, 0, 5, accepted, MPI_STATUS_IGNORE);
    MTEST_CHECK(word == 42, "the client sent %d", word);
    MPI_Comm_disconnect(&accepted);
    MPI_Close_port(port);
  } else {
    MPI_Comm client;
    MPI_Comm_connect(port, MPI_INFO_NULL, 0, MPI_COMM_SELF, &client);
    word = 42;
    MPI_Send(&word, 1, MPI_INT, 0, 5, client);
    MPI_Comm_disconnect(&client);
  }
  return mtest_finalize();
}

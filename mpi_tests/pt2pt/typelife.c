/* Derived datatypes through the point-to-point calls, and their lifetimes: a type freed
 * (MPI_Type_free) while a nonblocking, persistent or buffered operation uses it stays usable by
 * that operation, which still moves the right data, eager and rendezvous sizes. Also
 * MPI_Sendrecv_replace and MPI_Bsend of noncontiguous types, MPI_Get_elements of a struct type,
 * MPI_Status_set_elements in basic elements, and the errors for an uncommitted or freed type. */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mtest.h"

/* Every other int of 2n: a vector of n blocks of 1 with stride 2. */
static MPI_Datatype strided(int n) {
  MPI_Datatype t;
  MPI_Type_vector(n, 1, 2, MPI_INT, &t);
  MPI_Type_commit(&t);
  return t;
}

/* Types built right after a type in use is freed: were that type destroyed, these would likely
 * take its memory (allocators reuse the last freed block of a size first), and the operation
 * would move data with their different layout. */
#define NDECOYS 4
static void make_decoys(MPI_Datatype *decoys, int n) {
  for (int i = 0; i < NDECOYS; i++) {
    MPI_Type_vector(n / 2 + 1, 2, 5 + i, MPI_INT, &decoys[i]);
    MPI_Type_commit(&decoys[i]);
  }
}
static void free_decoys(MPI_Datatype *decoys) {
  for (int i = 0; i < NDECOYS; i++) MPI_Type_free(&decoys[i]);
}

static int check_strided(const int *buf, int n, int salt, const char *what) {
  for (int i = 0; i < n; i++) {
    if (buf[2 * i] != salt + i || buf[2 * i + 1] != -1) {
      MTEST_CHECK(0, "%s: element %d is %d/%d, want %d/-1", what, i, buf[2 * i], buf[2 * i + 1],
                  salt + i);
      return 0;
    }
  }
  return 1;
}

static void fill_strided(int *buf, int n, int salt) {
  for (int i = 0; i < n; i++) {
    buf[2 * i] = salt + i;
    buf[2 * i + 1] = -1;
  }
}

/* Rank 0 sends with a type it frees at once; rank 1 receives into a type it frees at once,
 * before the data comes (rank 0 sends after a barrier). */
static void freed_while_in_flight(int rank, int n) {
  int *buf = malloc(2 * n * sizeof(int));
  MPI_Datatype t = strided(n), decoys[NDECOYS];
  MPI_Request req;
  if (rank == 0) {
    fill_strided(buf, n, 100);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Isend(buf, 1, t, 1, 1, MPI_COMM_WORLD, &req);
    MPI_Type_free(&t);
    MTEST_CHECK(t == MPI_DATATYPE_NULL, "MPI_Type_free did not null the handle");
    make_decoys(decoys, n);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    free_decoys(decoys);
  } else if (rank == 1) {
    for (int i = 0; i < 2 * n; i++) buf[i] = -1;
    MPI_Irecv(buf, 1, t, 0, 1, MPI_COMM_WORLD, &req);
    MPI_Type_free(&t);
    make_decoys(decoys, n);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Status st;
    int count = -1;
    MPI_Wait(&req, &st);
    MPI_Get_count(&st, MPI_INT, &count);
    MTEST_CHECK(count == n, "%d ints arrived, want %d", count, n);
    check_strided(buf, n, 100, "Irecv with a freed type");
    free_decoys(decoys);
  } else {
    MPI_Type_free(&t);
    MPI_Barrier(MPI_COMM_WORLD);
  }
  free(buf);
}

/* Persistent requests whose type is freed right after the init, started many times; then a
 * receive freed (MPI_Request_free) while in flight, its type freed too, still lands right. */
static void persistent_freed_type(int rank, int n) {
  int *buf = malloc(2 * n * sizeof(int));
  MPI_Datatype t = strided(n), decoys[NDECOYS];
  MPI_Request req;
  if (rank == 0) {
    MPI_Send_init(buf, 1, t, 1, 2, MPI_COMM_WORLD, &req);
    MPI_Type_free(&t);
    make_decoys(decoys, n);
    for (int r = 0; r < 20; r++) {
      fill_strided(buf, n, r * 1000);
      MPI_Start(&req);
      MPI_Wait(&req, MPI_STATUS_IGNORE);
    }
    MPI_Request_free(&req);
    free_decoys(decoys);
    /* Once rank 1 freed its receive: the message for it, then one that can only be received
     * after it landed (a send of rendezvous size completes once the receiver has the data;
     * an eager one arrives before the next on the same ring). */
    MPI_Recv(NULL, 0, MPI_INT, 1, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    for (int i = 0; i < n; i++) buf[i] = 7 + i;
    MPI_Send(buf, n, MPI_INT, 1, 4, MPI_COMM_WORLD);
    MPI_Send(NULL, 0, MPI_INT, 1, 5, MPI_COMM_WORLD);
  } else if (rank == 1) {
    MPI_Recv_init(buf, 1, t, 0, 2, MPI_COMM_WORLD, &req);
    MPI_Type_free(&t);
    make_decoys(decoys, n);
    for (int r = 0; r < 20; r++) {
      for (int i = 0; i < 2 * n; i++) buf[i] = -1;
      MPI_Start(&req);
      MPI_Wait(&req, MPI_STATUS_IGNORE);
      char what[64];
      snprintf(what, sizeof what, "persistent round %d", r);
      if (!check_strided(buf, n, r * 1000, what)) break;
    }
    MPI_Request_free(&req);
    free_decoys(decoys);
    for (int i = 0; i < 2 * n; i++) buf[i] = -1;
    MPI_Datatype u = strided(n);
    MPI_Irecv(buf, 1, u, 0, 4, MPI_COMM_WORLD, &req);
    MPI_Request_free(&req);
    MPI_Type_free(&u);
    make_decoys(decoys, n);
    MPI_Send(NULL, 0, MPI_INT, 0, 3, MPI_COMM_WORLD);
    MPI_Recv(NULL, 0, MPI_INT, 0, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    check_strided(buf, n, 7, "a receive freed in flight");
    free_decoys(decoys);
  } else {
    MPI_Type_free(&t);
  }
  free(buf);
}

static void noncontiguous_calls(int rank, int size, int n) {
  int right = (rank + 1) % size, left = (rank + size - 1) % size;
  int *buf = malloc(2 * n * sizeof(int));
  MPI_Datatype t = strided(n);
  MPI_Status st;
  fill_strided(buf, n, rank * 10);
  MPI_Sendrecv_replace(buf, 1, t, right, 5, left, 5, MPI_COMM_WORLD, &st);
  check_strided(buf, n, left * 10, "MPI_Sendrecv_replace of a vector");
  /* Buffered: the copy is packed; the type is freed before the message goes. */
  int bsize = n * (int)sizeof(int) + MPI_BSEND_OVERHEAD;
  void *bbuf = malloc(bsize);
  MPI_Buffer_attach(bbuf, bsize);
  int *in = malloc(2 * n * sizeof(int));
  MPI_Request req;
  MPI_Irecv(in, n, MPI_INT, left, 6, MPI_COMM_WORLD, &req);
  fill_strided(buf, n, rank * 20);
  MPI_Bsend(buf, 1, t, right, 6, MPI_COMM_WORLD);
  memset(buf, 0, 2 * n * sizeof(int));
  MPI_Type_free(&t);
  MPI_Wait(&req, MPI_STATUS_IGNORE);
  int bad = 0;
  for (int i = 0; i < n; i++) bad |= in[i] != left * 20 + i;
  MTEST_CHECK(!bad, "MPI_Bsend of a vector: contiguous data differs");
  void *back;
  MPI_Buffer_detach(&back, &bsize);
  free(bbuf);
  free(in);
  free(buf);
}

struct pair {
  int i;
  double d;
};

static void elements_and_errors(void) {
  MPI_Datatype pt, raw;
  int lens[2] = {1, 1};
  MPI_Aint disps[2] = {offsetof(struct pair, i), offsetof(struct pair, d)};
  MPI_Datatype types[2] = {MPI_INT, MPI_DOUBLE};
  MPI_Type_create_struct(2, lens, disps, types, &pt);
  MPI_Type_commit(&pt);
  MPI_Status st;
  memset(&st, 0, sizeof st);
  int n = -1;
  MPI_Status_set_elements(&st, pt, 5); /* two pairs and an int */
  MPI_Get_elements(&st, pt, &n);
  MTEST_CHECK(n == 5, "MPI_Get_elements after setting 5: %d", n);
  MPI_Get_count(&st, pt, &n);
  MTEST_CHECK(n == MPI_UNDEFINED, "MPI_Get_count of 2.5 pairs: %d", n);
  MPI_Status_set_elements(&st, pt, 4);
  MPI_Get_count(&st, pt, &n);
  MTEST_CHECK(n == 2, "MPI_Get_count of 4 elements: %d pairs", n);
  /* An uncommitted type, and a freed handle. */
  struct pair p = {1, 2.0};
  MPI_Type_contiguous(2, MPI_INT, &raw);
  int rc = MPI_Send(&p, 1, raw, MPI_PROC_NULL, 0, MPI_COMM_WORLD);
  int cls = -1;
  char text[MPI_MAX_ERROR_STRING];
  MPI_Error_class(rc, &cls);
  MPI_Error_string(rc, text, &n);
  MTEST_CHECK(cls == MPI_ERR_TYPE && strstr(text, "MPI_Send") && strstr(text, "committed"),
              "uncommitted type: class %d '%s'", cls, text);
  MPI_Datatype stale = pt;
  MPI_Type_free(&pt);
  rc = MPI_Isend(&p, 1, stale, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &(MPI_Request){0});
  MPI_Error_class(rc, &cls);
  MPI_Error_string(rc, text, &n);
  MTEST_CHECK(cls == MPI_ERR_TYPE && strstr(text, "MPI_Isend") && strstr(text, "datatype"),
              "freed type: class %d '%s'", cls, text);
  MPI_Type_free(&raw);
}

int main(int argc, char **argv) {
  int rank, size;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  const int sizes[] = {10, 50000}; /* 40 bytes and 200 KB: eager and rendezvous */
  for (int k = 0; k < 2; k++) {
    freed_while_in_flight(rank, sizes[k]);
    persistent_freed_type(rank, sizes[k]);
    noncontiguous_calls(rank, size, sizes[k]);
  }
  elements_and_errors();
  return mtest_finalize();
}

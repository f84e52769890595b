/* MPI_Alloc_mem gives writable memory that MPI_Free_mem takes back and that messages move like
 * any other; bad arguments are errors that name the call and the argument; MPI_Pcontrol
 * accepts every level; MPI_Status_c2f/f2c keep every field of a status. MPI_Free_mem of memory
 * MPI_Alloc_mem did not give (or gave and took back) is MPI_ERR_BASE, and the heap survives it. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "mtest.h"

static void alloc_and_send(int rank, int size) {
  const int n = 1 << 16;
  int *buf = NULL;
  int rc = MPI_Alloc_mem((MPI_Aint)(n * sizeof(int)), MPI_INFO_NULL, &buf);
  MTEST_CHECK(rc == MPI_SUCCESS && buf != NULL, "MPI_Alloc_mem failed (%d)", rc);
  if (buf == NULL) return;
  MTEST_CHECK((uintptr_t)buf % 64 == 0, "block %p is not aligned to a cache line", (void *)buf);
  for (int i = 0; i < n; ++i) buf[i] = rank * n + i;
  int right = (rank + 1) % size, left = (rank + size - 1) % size;
  MPI_Sendrecv_replace(buf, n, MPI_INT, right, 0, left, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  int bad = 0;
  for (int i = 0; i < n; ++i) bad += buf[i] != left * n + i;
  MTEST_CHECK(bad == 0, "%d elements wrong after a ring exchange in MPI_Alloc_mem memory", bad);
  MTEST_CHECK(MPI_Free_mem(buf) == MPI_SUCCESS, "MPI_Free_mem failed");
  void *empty = NULL;
  MTEST_CHECK(MPI_Alloc_mem(0, MPI_INFO_NULL, &empty) == MPI_SUCCESS && empty != NULL,
              "MPI_Alloc_mem of 0 bytes gave no block");
  MPI_Free_mem(empty);
}

static void bad_arguments(void) {
  void *p = NULL;
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  mtest_expect_error(MPI_Alloc_mem(-1, MPI_INFO_NULL, &p), MPI_ERR_SIZE, "Alloc_mem(-1)",
                     "argument size");
  mtest_expect_error(MPI_Alloc_mem(8, (MPI_Info)0x1c00abcd, &p), MPI_ERR_INFO, "Alloc_mem(info)",
                     "argument info");
  mtest_expect_error(MPI_Alloc_mem(8, MPI_INFO_NULL, NULL), MPI_ERR_ARG, "Alloc_mem(NULL)",
                     "MPI_Alloc_mem");
  mtest_expect_error(MPI_Alloc_mem((MPI_Aint)1 << 62, MPI_INFO_NULL, &p), MPI_ERR_NO_MEM,
                     "Alloc_mem(2^62)", "could not be allocated");
  int on_stack = 0;
  mtest_expect_error(MPI_Free_mem(&on_stack), MPI_ERR_BASE, "Free_mem(stack)", "argument base");
  void *from_malloc = malloc(64);
  mtest_expect_error(MPI_Free_mem(from_malloc), MPI_ERR_BASE, "Free_mem(malloc)",
                     "not memory from MPI_Alloc_mem");
  free(from_malloc);
  MTEST_CHECK(MPI_Alloc_mem(100, MPI_INFO_NULL, &p) == MPI_SUCCESS, "MPI_Alloc_mem(100) failed");
  MTEST_CHECK(MPI_Free_mem(p) == MPI_SUCCESS, "MPI_Free_mem of a block failed");
  mtest_expect_error(MPI_Free_mem(p), MPI_ERR_BASE, "Free_mem twice", "freed already");
  MTEST_CHECK(MPI_Free_mem(NULL) == MPI_SUCCESS, "MPI_Free_mem(NULL) is not a success");
  MPI_Fint f[MPI_F_STATUS_SIZE];
  mtest_expect_error(MPI_Status_c2f(MPI_STATUS_IGNORE, f), MPI_ERR_ARG, "Status_c2f(IGNORE)",
                     "argument c_status");
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
}

static void status_conversion(int rank, int size) {
  int value = rank;
  MPI_Status st, back;
  MPI_Sendrecv(&value, 1, MPI_INT, (rank + 1) % size, 7 + rank, &value, 1, MPI_INT, MPI_ANY_SOURCE,
               MPI_ANY_TAG, MPI_COMM_WORLD, &st);
  MPI_Fint f[MPI_F_STATUS_SIZE];
  MTEST_CHECK(MPI_Status_c2f(&st, f) == MPI_SUCCESS, "MPI_Status_c2f failed");
  memset(&back, 0xff, sizeof back);
  MTEST_CHECK(MPI_Status_f2c(f, &back) == MPI_SUCCESS, "MPI_Status_f2c failed");
  int count = -1;
  MPI_Get_count(&back, MPI_INT, &count);
  MTEST_CHECK(back.MPI_SOURCE == st.MPI_SOURCE && back.MPI_TAG == st.MPI_TAG && count == 1,
              "status after c2f/f2c: source %d tag %d count %d, want %d %d 1", back.MPI_SOURCE,
              back.MPI_TAG, count, st.MPI_SOURCE, st.MPI_TAG);
}

int main(int argc, char **argv) {
  MTEST_CHECK(MPI_Pcontrol(0) == MPI_SUCCESS, "MPI_Pcontrol before MPI_Init failed");
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MTEST_CHECK(MPI_Pcontrol(2, "any", 3) == MPI_SUCCESS, "MPI_Pcontrol(2, ...) failed");
  alloc_and_send(rank, size);
  bad_arguments();
  status_conversion(rank, size);
  return mtest_finalize();
}

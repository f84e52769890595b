/* Atomic mode (MPI_File_set_atomicity): accesses through a non-contiguous view are whole. The
 * even ranks write the same strided view over and over, each time all of it with one value of
 * their own; the odd ranks read it at the same time. Every read must find one writer's value
 * everywhere (or the file's first contents), never a mix of two writes; at the end the view
 * holds one value. With one rank it writes and reads in turn. */
#include "iotest.h"

#define N 2000 /* ints in the view: every other int of the file */
#define ROUNDS 40

static int rank, size;
static const char *const tags[] = {"file"};

/* Whether all N ints are equal; their value in *value. */
static int uniform(const int *v, int *value) {
  for (int i = 1; i < N; ++i)
    if (v[i] != v[0]) return 0;
  *value = v[0];
  return 1;
}

static void write_rounds(MPI_File fh, int *buf) {
  for (int r = 0; r < ROUNDS; ++r) {
    for (int i = 0; i < N; ++i) buf[i] = (rank + 1) * 1000 + r;
    int rc = MPI_File_write_at(fh, 0, buf, N, MPI_INT, MPI_STATUS_IGNORE);
    MTEST_CHECK(rc == MPI_SUCCESS, "write_at in atomic mode failed (%d)", rc);
  }
}

static void read_rounds(MPI_File fh, int *buf, int rounds) {
  int mixed = 0, value;
  for (int r = 0; r < rounds; ++r) {
    MPI_File_read_at(fh, 0, buf, N, MPI_INT, MPI_STATUS_IGNORE);
    if (!uniform(buf, &value)) ++mixed;
  }
  MTEST_CHECK(mixed == 0, "%d of %d reads found two writes mixed", mixed, rounds);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  iotest_name_files("atomic");
  MPI_File fh;
  static int buf[N];
  if (iotest_open("file", MPI_MODE_CREATE | MPI_MODE_RDWR, &fh)) {
    MPI_Datatype every_other;
    MPI_Type_vector(N, 1, 2, MPI_INT, &every_other);
    MPI_Type_commit(&every_other);
    MPI_File_set_view(fh, 0, MPI_INT, every_other, "native", MPI_INFO_NULL);
    MPI_File_set_atomicity(fh, 1);
    int flag = 0;
    MPI_File_get_atomicity(fh, &flag);
    MTEST_CHECK(flag == 1, "atomicity is %d after set_atomicity(1)", flag);
    for (int i = 0; i < N; ++i) buf[i] = -1;
    if (rank == 0) MPI_File_write_at(fh, 0, buf, N, MPI_INT, MPI_STATUS_IGNORE);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank % 2 == 0) write_rounds(fh, buf);
    read_rounds(fh, buf, rank % 2 == 0 ? 1 : 4 * ROUNDS);
    MPI_Barrier(MPI_COMM_WORLD);
    int value = 0;
    MPI_File_read_at(fh, 0, buf, N, MPI_INT, MPI_STATUS_IGNORE);
    MTEST_CHECK(uniform(buf, &value) && value % 1000 == ROUNDS - 1,
                "the view holds %d ... after every write, not one last value", buf[0]);
    MPI_File_close(&fh);
    MPI_Type_free(&every_other);
  }
  iotest_remove(tags, sizeof tags / sizeof tags[0]);
  return mtest_finalize();
}

/* Independent writes of short blocks that take turns in one file (each rank's cyclic share, by
 * MPI_File_write_at, one part of the share after another, every rank its part at once after a
 * barrier) leave in the file every rank's blocks and, in the blocks nobody writes, what was
 * there: a write that reads the span of its blocks, puts them in and writes it back (data
 * sieving) must never write back bytes another rank wrote meanwhile (each block is written
 * once, so a lost one stays lost). Then the same through a file opened MPI_MODE_WRONLY (which
 * cannot be read), and a read of the file through the same view gives each rank its blocks. */
#include <stdlib.h>

#include "iotest.h"

#define M 40000 /* ints of each rank */
#define ROUNDS 40 /* parts of it, written one after another */
#define HOLE (-7)

static int rank, size;
static const char *const tags[] = {"rdwr", "wronly"};

static int value(int r, int i) { return r * 100000 + i; }

/* Blocks of 2 ints in turn, each turn followed by one block nobody writes. */
static void set_view(MPI_File fh) {
  MPI_Datatype vec, tile;
  MPI_Type_vector(1, 2, 2 * (size + 1), MPI_INT, &vec);
  MPI_Type_create_resized(vec, 0, (MPI_Aint)2 * (size + 1) * sizeof(int), &tile);
  MPI_Type_commit(&tile);
  MPI_File_set_view(fh, (MPI_Offset)rank * 2 * sizeof(int), MPI_INT, tile, "native",
                    MPI_INFO_NULL);
  MPI_Type_free(&vec);
  MPI_Type_free(&tile);
}

static void check(const char *tag, const char *what) {
  int n = M / 2 * 2 * (size + 1), bad = 0, first = -1, *all = malloc((size_t)n * sizeof(int));
  MPI_File fh;
  if (!iotest_open(tag, MPI_MODE_RDONLY, &fh)) return;
  MPI_File_read_at(fh, 0, all, n, MPI_INT, MPI_STATUS_IGNORE);
  for (int j = 0; j < n; ++j) {
    int turn = j / (2 * (size + 1)), owner = (j % (2 * (size + 1))) / 2;
    int want = owner < size ? value(owner, turn * 2 + j % 2) : HOLE;
    if (all[j] != want && bad++ == 0) first = j;
  }
  MTEST_CHECK(bad == 0, "%s: %d of %d ints wrong (first at %d: %d)", what, bad, n, first,
              first >= 0 ? all[first] : 0);
  free(all);
  MPI_File_close(&fh);
}

static void rounds(const char *tag, int amode, const char *what) {
  int n = M / 2 * 2 * (size + 1), *buf = malloc(M * sizeof(int));
  MPI_File fh;
  if (!iotest_open(tag, MPI_MODE_CREATE | amode, &fh)) return;
  if (rank == 0) {
    int *fill = malloc((size_t)n * sizeof(int));
    for (int j = 0; j < n; ++j) fill[j] = HOLE;
    MPI_File_write_at(fh, 0, fill, n * (int)sizeof(int), MPI_BYTE, MPI_STATUS_IGNORE);
    free(fill);
  }
  iotest_sync_all(fh);
  set_view(fh);
  int failed = 0;
  for (int i = 0; i < M; ++i) buf[i] = value(rank, i);
  for (int part = 0; part < ROUNDS; ++part) {
    int at = part * (M / ROUNDS);
    MPI_Barrier(MPI_COMM_WORLD); /* every rank writes its part at once */
    failed += MPI_File_write_at(fh, at, buf + at, M / ROUNDS, MPI_INT, MPI_STATUS_IGNORE) !=
              MPI_SUCCESS;
  }
  free(buf);
  MTEST_CHECK(failed == 0, "%s: %d writes failed", what, failed);
  iotest_sync_all(fh);
  MPI_File_close(&fh);
  check(tag, what);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  iotest_name_files("sieve");
  rounds("rdwr", MPI_MODE_RDWR, "read-write file");
  rounds("wronly", MPI_MODE_WRONLY, "write-only file");
  /* Reading back through the view: this rank's last round. */
  MPI_File fh;
  if (iotest_open("rdwr", MPI_MODE_RDONLY, &fh)) {
    int *got = malloc(M * sizeof(int)), bad = 0;
    set_view(fh);
    MPI_File_read_at(fh, 0, got, M, MPI_INT, MPI_STATUS_IGNORE);
    for (int i = 0; i < M; ++i) bad += got[i] != value(rank, i);
    MTEST_CHECK(bad == 0, "read through the view: %d of %d ints wrong", bad, M);
    free(got);
    MPI_File_close(&fh);
  }
  iotest_remove(tags, sizeof tags / sizeof tags[0]);
  return mtest_finalize();
}

/* MPI-IO file pointers. The individual pointer: MPI_File_write/read advance it by the data moved,
 * counted in etypes of the view; MPI_File_seek (MPI_SEEK_SET/CUR/END) and get_position work in
 * those units, and get_byte_offset maps them to bytes through the displacement and a
 * non-contiguous filetype. The shared pointer: records written with MPI_File_write_shared by
 * every rank each appear once and whole, MPI_File_read_shared hands each out once,
 * write_ordered/read_ordered go in rank order, and seek_shared/get_position_shared agree. */
#include <stdlib.h>

#include "iotest.h"
#include "mtest.h"

#define REGION 8 /* ints of each rank's region in the individual-pointer file */
#define K 5      /* records each rank writes through the shared pointer */
#define REC 4    /* ints in a record */

static int rank, size;
static const char *const tags[] = {"ind", "shared", "ordered"};

static int value(int r, int i) { return r * 1000 + i + 1; }

static void check_position(MPI_File fh, MPI_Offset want, const char *what) {
  MPI_Offset pos = -1;
  int rc = MPI_File_get_position(fh, &pos);
  MTEST_CHECK(rc == MPI_SUCCESS && pos == want, "%s: position %lld (rc %d), want %lld", what,
              (long long)pos, rc, (long long)want);
}

/* Checks the shared pointer, then waits for every rank to have looked before any moves it. */
static void check_shared(MPI_File fh, MPI_Offset want, const char *what) {
  MPI_Offset pos = -1;
  int rc = MPI_File_get_position_shared(fh, &pos);
  MTEST_CHECK(rc == MPI_SUCCESS && pos == want, "%s: shared position %lld (rc %d), want %lld", what,
              (long long)pos, rc, (long long)want);
  MPI_Barrier(MPI_COMM_WORLD);
}

static void check_count(const MPI_Status *st, int want, const char *what) {
  int count = -1;
  MPI_Get_count(st, MPI_INT, &count);
  MTEST_CHECK(count == want, "%s: MPI_Get_count gives %d ints, want %d", what, count, want);
}

static void check_ints(const int *got, int n, int r, int first, const char *what) {
  for (int i = 0; i < n; ++i)
    MTEST_CHECK(got[i] == value(r, first + i), "%s: int %d is %d, want %d", what, i, got[i],
                value(r, first + i));
}

static void check_byte_offset(MPI_File fh, MPI_Offset offset, MPI_Offset want, const char *what) {
  MPI_Offset disp = -1;
  int rc = MPI_File_get_byte_offset(fh, offset, &disp);
  MTEST_CHECK(rc == MPI_SUCCESS && disp == want, "%s: byte offset of %lld is %lld, want %lld", what,
              (long long)offset, (long long)disp, (long long)want);
}

/* View of ints from this rank's region: write, seek and read move the pointer in ints. */
static void seek_and_read(MPI_File fh, MPI_Offset disp) {
  int buf[REGION], got[REGION];
  MPI_Status st;
  for (int i = 0; i < REGION; ++i) buf[i] = value(rank, i);
  MPI_File_set_view(fh, disp, MPI_INT, MPI_INT, "native", MPI_INFO_NULL);
  check_position(fh, 0, "after set_view");
  MPI_File_write(fh, buf, 5, MPI_INT, &st);
  check_count(&st, 5, "MPI_File_write of 5 ints");
  check_position(fh, 5, "after writing 5 ints");
  MPI_File_write(fh, buf + 5, REGION - 5, MPI_INT, &st);
  check_position(fh, REGION, "after writing the region");
  check_byte_offset(fh, 3, disp + 3 * (MPI_Offset)sizeof(int), "contiguous view");
  iotest_sync_all(fh);
  MPI_File_seek(fh, 2, MPI_SEEK_SET);
  check_position(fh, 2, "after seek(2, MPI_SEEK_SET)");
  MPI_File_read(fh, got, 2, MPI_INT, &st);
  check_count(&st, 2, "MPI_File_read of 2 ints");
  check_ints(got, 2, rank, 2, "read after seek(2, MPI_SEEK_SET)");
  check_position(fh, 4, "after reading 2 ints");
  MPI_File_seek(fh, -1, MPI_SEEK_CUR);
  check_position(fh, 3, "after seek(-1, MPI_SEEK_CUR)");
  MPI_File_read(fh, got, 1, MPI_INT, MPI_STATUS_IGNORE);
  check_ints(got, 1, rank, 3, "read after seek(-1, MPI_SEEK_CUR)");
  /* The end is that of the whole file, in ints of this rank's view. */
  MPI_Offset end = (MPI_Offset)(size - rank) * REGION;
  MPI_File_seek(fh, -2, MPI_SEEK_END);
  check_position(fh, end - 2, "after seek(-2, MPI_SEEK_END)");
  MPI_File_read(fh, got, 2, MPI_INT, &st);
  check_count(&st, 2, "read after seek(-2, MPI_SEEK_END)");
  check_ints(got, 2, size - 1, REGION - 2, "read after seek(-2, MPI_SEEK_END)");
  check_position(fh, end, "after reading to the end");
  MPI_Barrier(MPI_COMM_WORLD); /* every rank found the end before any writes past it */
}

/* An etype of two ints: the pointer counts pairs, whatever the datatype of the access. */
static void pair_etype(MPI_File fh, MPI_Offset disp) {
  MPI_Datatype pair;
  int got[REGION];
  MPI_Type_contiguous(2, MPI_INT, &pair);
  MPI_Type_commit(&pair);
  MPI_File_set_view(fh, disp, pair, pair, "native", MPI_INFO_NULL);
  check_position(fh, 0, "after set_view with a pair etype");
  MPI_File_read(fh, got, 4, MPI_INT, MPI_STATUS_IGNORE);
  check_ints(got, 4, rank, 0, "4 ints through a pair etype");
  check_position(fh, 2, "after reading 4 ints (2 pairs)");
  MPI_File_seek(fh, 3, MPI_SEEK_SET);
  MPI_File_read(fh, got, 1, pair, MPI_STATUS_IGNORE);
  check_ints(got, 2, rank, 6, "pair 3");
  check_position(fh, 4, "after reading pair 3");
  check_byte_offset(fh, 3, disp + 6 * (MPI_Offset)sizeof(int), "pair etype");
  MPI_Type_free(&pair);
}

/* A filetype with holes: two ints of every 2*size belong to this rank. */
static void strided_view(MPI_File fh) {
  MPI_Datatype two, strided;
  MPI_Offset disp = (MPI_Offset)(size * REGION + rank * 2) * sizeof(int); /* past the regions */
  MPI_Offset stride = (MPI_Offset)size * 2 * sizeof(int);
  MPI_Type_contiguous(2, MPI_INT, &two);
  MPI_Type_create_resized(two, 0, stride, &strided);
  MPI_Type_commit(&strided);
  MPI_File_set_view(fh, disp, MPI_INT, strided, "native", MPI_INFO_NULL);
  for (MPI_Offset k = 0; k < 8; ++k)
    check_byte_offset(fh, k, disp + (k / 2) * stride + (k % 2) * (MPI_Offset)sizeof(int),
                      "strided view");
  int buf[3] = {value(rank, 0), value(rank, 1), value(rank, 2)};
  MPI_File_write(fh, buf, 3, MPI_INT, MPI_STATUS_IGNORE);
  check_position(fh, 3, "after writing 3 ints through a strided view");
  MPI_Offset pos = -1;
  MPI_File_get_position(fh, &pos);
  check_byte_offset(fh, pos, disp + stride + (MPI_Offset)sizeof(int), "position 3, strided view");
  MPI_Type_free(&two);
  MPI_Type_free(&strided);
}

static void individual(void) {
  MPI_File fh = MPI_FILE_NULL;
  if (!iotest_open("ind", MPI_MODE_CREATE | MPI_MODE_RDWR, &fh)) return;
  MPI_Offset disp = (MPI_Offset)rank * REGION * sizeof(int);
  check_position(fh, 0, "after open");
  seek_and_read(fh, disp);
  pair_etype(fh, disp);
  strided_view(fh);
  MPI_File_close(&fh);
}

/* Checks records read from the shared pointer and counts them in `seen` (size*K). */
static void note_records(const int *recs, int n, int *seen, const char *what) {
  for (int j = 0; j < n; ++j) {
    const int *rec = recs + j * REC;
    int r = rec[0], k = rec[1];
    int ok = r >= 0 && r < size && k >= 0 && k < K && rec[2] == value(r, k) && rec[3] == -r;
    MTEST_CHECK(ok, "%s: record %d is torn or unknown: %d %d %d %d", what, j, rec[0], rec[1],
                rec[2], rec[3]);
    if (ok) seen[r * K + k]++;
  }
}

static void check_seen_once(const int *seen, const char *what) {
  for (int i = 0; i < size * K; ++i)
    MTEST_CHECK(seen[i] == 1, "%s: record %d of rank %d appears %d times", what, i % K, i / K,
                seen[i]);
}

static void shared_records(void) {
  MPI_File fh = MPI_FILE_NULL;
  if (!iotest_open("shared", MPI_MODE_CREATE | MPI_MODE_RDWR, &fh)) return;
  const MPI_Offset total = (MPI_Offset)size * K * REC * sizeof(int);
  int recs[K * REC], *all = malloc(total), *seen = calloc(size * K, sizeof(int));
  MPI_Status st;
  for (int k = 0; k < K; ++k) {
    int rec[REC] = {rank, k, value(rank, k), -rank};
    MPI_File_write_shared(fh, rec, REC, MPI_INT, &st);
    check_count(&st, REC, "write_shared");
  }
  iotest_sync_all(fh);
  check_shared(fh, total, "after every rank wrote its records");
  MPI_Offset fsize = -1;
  MPI_File_get_size(fh, &fsize);
  MTEST_CHECK(fsize == total, "file size %lld, want %lld", (long long)fsize, (long long)total);
  if (rank == 0) {
    MPI_File_read_at(fh, 0, all, size * K * REC, MPI_INT, MPI_STATUS_IGNORE);
    note_records(all, size * K, seen, "written through the shared pointer");
    check_seen_once(seen, "write_shared");
  }
  MPI_File_seek_shared(fh, 0, MPI_SEEK_SET);
  check_shared(fh, 0, "after seek_shared(0, MPI_SEEK_SET)");
  for (int k = 0; k < size * K; ++k) seen[k] = 0;
  for (int k = 0; k < K; ++k) {
    MPI_File_read_shared(fh, recs + k * REC, REC, MPI_INT, &st);
    check_count(&st, REC, "read_shared");
  }
  note_records(recs, K, seen, "read_shared");
  MPI_Allreduce(MPI_IN_PLACE, seen, size * K, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  check_seen_once(seen, "read_shared");
  check_shared(fh, total, "after every rank read its records");
  MPI_File_close(&fh);
  free(all);
  free(seen);
}

/* Rank r writes r+1 ints in rank order; read_ordered hands them back the same way. */
static void ordered(void) {
  MPI_File fh = MPI_FILE_NULL;
  if (!iotest_open("ordered", MPI_MODE_CREATE | MPI_MODE_RDWR, &fh)) return;
  const int n = size * (size + 1) / 2;
  const MPI_Offset total = n * (MPI_Offset)sizeof(int);
  int *buf = malloc(sizeof(int) * n);
  MPI_Status st;
  for (int i = 0; i <= rank; ++i) buf[i] = value(rank, i);
  MPI_File_write_ordered(fh, buf, rank + 1, MPI_INT, &st);
  check_count(&st, rank + 1, "write_ordered");
  iotest_sync_all(fh);
  check_shared(fh, total, "after write_ordered");
  if (rank == 0) {
    MPI_File_read_at(fh, 0, buf, n, MPI_INT, MPI_STATUS_IGNORE);
    for (int r = 0, at = 0; r < size; at += ++r) check_ints(buf + at, r + 1, r, 0, "ordered file");
  }
  MPI_File_seek_shared(fh, 0, MPI_SEEK_SET);
  MPI_File_read_ordered(fh, buf, rank + 1, MPI_INT, &st);
  check_count(&st, rank + 1, "read_ordered");
  check_ints(buf, rank + 1, rank, 0, "read_ordered");
  check_shared(fh, total, "after read_ordered");
  MPI_File_seek_shared(fh, 4, MPI_SEEK_SET);
  check_shared(fh, 4, "after seek_shared(4, MPI_SEEK_SET)");
  MPI_File_seek_shared(fh, 4, MPI_SEEK_CUR);
  check_shared(fh, 8, "after seek_shared(4, MPI_SEEK_CUR)");
  MPI_File_seek_shared(fh, -4, MPI_SEEK_END);
  check_shared(fh, total - 4, "after seek_shared(-4, MPI_SEEK_END)");
  MPI_File_read_shared(fh, buf, rank == 0, MPI_INT, MPI_STATUS_IGNORE);
  if (rank == 0) check_ints(buf, 1, size - 1, size - 1, "read_shared after seek_shared");
  MPI_File_close(&fh);
  free(buf);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  iotest_name_files("pointers");
  individual();
  shared_records();
  ordered();
  iotest_remove(tags, sizeof tags / sizeof tags[0]);
  return mtest_finalize();
}

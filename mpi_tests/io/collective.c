/* Collective and nonblocking MPI-IO: write_all/read_all, write_at_all/read_at_all, the split
 * collectives (write_all_begin/end, read_at_all_begin/end, write_ordered_begin/end), the
 * nonblocking iwrite_at/iread_at/iwrite/iread/iwrite_all/iread_all/iwrite_at_all/iread_at_all
 * completed by MPI_Wait, MPI_Waitall and MPI_Test loops, and the large-count forms each put
 * every rank's block where it belongs, read back the neighbour's, and report the amount moved in
 * the status (MPI_Get_count, MPI_Get_elements). Zero counts move nothing and leave the size
 * alone; MPI_BYTE counts that are multiples of nothing land byte-exact. */
#include <stdlib.h>

#include "iotest.h"
#include "mtest.h"

#define N 40 /* ints in each rank's block */

static int rank, size, next;
static const char *const tags[] = {"coll", "bytes"};

/* Each test uses its own slot of the file: size blocks of N ints, one per rank. */
static MPI_Offset at(int slot, int r) { return ((MPI_Offset)slot * size + r) * N * sizeof(int); }

static int value(int slot, int r, int i) { return slot * 1000000 + r * 1000 + i; }

static void fill(int *buf, int slot) {
  for (int i = 0; i < N; ++i) buf[i] = value(slot, rank, i);
}

static void check_status(const MPI_Status *st, MPI_Datatype type, int want, const char *what) {
  int count = -1, elements = -1;
  MPI_Get_count(st, type, &count);
  MPI_Get_elements(st, type, &elements);
  MTEST_CHECK(count == want, "%s: MPI_Get_count gives %d, want %d", what, count, want);
  MTEST_CHECK(elements == (type == MPI_INT ? want : want * N),
              "%s: MPI_Get_elements gives %d, want %d", what, elements,
              type == MPI_INT ? want : want * N);
}

/* Checks that `got` holds the next rank's block of `slot`, then spoils it for the next read. */
static void check_next(int *got, int slot, const char *what) {
  int bad = 0;
  for (int i = 0; i < N; ++i) bad += got[i] != value(slot, next, i);
  MTEST_CHECK(bad == 0, "%s: %d of %d ints of rank %d's block wrong (first %d)", what, bad, N, next,
              got[0]);
  for (int i = 0; i < N; ++i) got[i] = -1;
}

static void blocking(MPI_File fh) {
  int buf[N], got[N];
  MPI_Status st;
  fill(buf, 0);
  MPI_File_seek(fh, at(0, rank), MPI_SEEK_SET);
  MTEST_CHECK(MPI_File_write_all(fh, buf, N, MPI_INT, &st) == 0, "write_all failed");
  check_status(&st, MPI_INT, N, "write_all");
  fill(buf, 1);
  MTEST_CHECK(MPI_File_write_at_all(fh, at(1, rank), buf, N, MPI_INT, &st) == 0,
              "write_at_all failed");
  check_status(&st, MPI_INT, N, "write_at_all");
  iotest_sync_all(fh);
  MPI_File_seek(fh, at(0, next), MPI_SEEK_SET);
  MTEST_CHECK(MPI_File_read_all(fh, got, N, MPI_INT, &st) == 0, "read_all failed");
  check_status(&st, MPI_INT, N, "read_all");
  check_next(got, 0, "read_all");
  MTEST_CHECK(MPI_File_read_at_all(fh, at(1, next), got, N, MPI_INT, &st) == 0,
              "read_at_all failed");
  check_status(&st, MPI_INT, N, "read_at_all");
  check_next(got, 1, "read_at_all");
}

static void split(MPI_File fh) {
  int buf[N], got[N];
  MPI_Status st;
  fill(buf, 2);
  MPI_File_seek(fh, at(2, rank), MPI_SEEK_SET);
  MTEST_CHECK(MPI_File_write_all_begin(fh, buf, N, MPI_INT) == 0, "write_all_begin failed");
  MTEST_CHECK(MPI_File_write_all_end(fh, buf, &st) == 0, "write_all_end failed");
  check_status(&st, MPI_INT, N, "write_all_end");
  fill(buf, 3);
  MPI_File_seek_shared(fh, at(3, 0), MPI_SEEK_SET);
  MTEST_CHECK(MPI_File_write_ordered_begin(fh, buf, N, MPI_INT) == 0, "write_ordered_begin");
  MTEST_CHECK(MPI_File_write_ordered_end(fh, buf, &st) == 0, "write_ordered_end failed");
  check_status(&st, MPI_INT, N, "write_ordered_end");
  iotest_sync_all(fh);
  MTEST_CHECK(MPI_File_read_at_all_begin(fh, at(2, next), got, N, MPI_INT) == 0,
              "read_at_all_begin failed");
  MTEST_CHECK(MPI_File_read_at_all_end(fh, got, &st) == 0, "read_at_all_end failed");
  check_status(&st, MPI_INT, N, "read_at_all_end");
  check_next(got, 2, "read_at_all_begin/end");
  MPI_File_read_at_all(fh, at(3, next), got, N, MPI_INT, MPI_STATUS_IGNORE);
  check_next(got, 3, "write_ordered_begin/end");
}

static void wait_for(MPI_Request *req, MPI_Status *st, int use_test) {
  int flag = 0;
  if (!use_test) {
    MTEST_CHECK(MPI_Wait(req, st) == MPI_SUCCESS, "MPI_Wait failed");
    return;
  }
  while (!flag) MTEST_CHECK(MPI_Test(req, &flag, st) == MPI_SUCCESS, "MPI_Test failed");
  MTEST_CHECK(*req == MPI_REQUEST_NULL, "a completed request is not MPI_REQUEST_NULL");
}

/* iwrite_at + Wait, iwrite (two halves, back to back) + Waitall; then the reads. */
static void nonblocking_independent(MPI_File fh, MPI_Datatype block) {
  int buf[N], half[N], got[N];
  MPI_Request req[2];
  MPI_Status st[2];
  fill(buf, 4);
  fill(half, 5);
  MPI_File_iwrite_at(fh, at(4, rank), buf, N, MPI_INT, &req[0]);
  wait_for(&req[0], &st[0], 0);
  check_status(&st[0], MPI_INT, N, "iwrite_at");
  MPI_File_seek(fh, at(5, rank), MPI_SEEK_SET);
  MPI_File_iwrite(fh, half, N / 2, MPI_INT, &req[0]);
  MPI_File_iwrite(fh, half + N / 2, N - N / 2, MPI_INT, &req[1]);
  MTEST_CHECK(MPI_Waitall(2, req, st) == MPI_SUCCESS, "MPI_Waitall failed");
  check_status(&st[0], MPI_INT, N / 2, "first iwrite");
  check_status(&st[1], MPI_INT, N - N / 2, "second iwrite");
  iotest_sync_all(fh);
  MPI_File_iread_at(fh, at(4, next), got, 1, block, &req[0]);
  wait_for(&req[0], &st[0], 1);
  check_status(&st[0], block, 1, "iread_at of a block type");
  check_next(got, 4, "iread_at");
  MPI_File_seek(fh, at(5, next), MPI_SEEK_SET);
  MPI_File_iread(fh, got, N, MPI_INT, &req[0]);
  wait_for(&req[0], &st[0], 0);
  check_status(&st[0], MPI_INT, N, "iread");
  check_next(got, 5, "iread");
}

static void nonblocking_collective(MPI_File fh) {
  int buf[N], other[N], got[N];
  MPI_Request req[2];
  MPI_Status st[2];
  fill(buf, 6);
  fill(other, 7);
  MPI_File_seek(fh, at(6, rank), MPI_SEEK_SET);
  MPI_File_iwrite_all(fh, buf, N, MPI_INT, &req[0]);
  wait_for(&req[0], &st[0], 1);
  check_status(&st[0], MPI_INT, N, "iwrite_all");
  MPI_File_iwrite_at_all(fh, at(7, rank), other, N, MPI_INT, &req[0]);
  MPI_Waitall(1, req, st);
  check_status(&st[0], MPI_INT, N, "iwrite_at_all");
  iotest_sync_all(fh);
  MPI_File_seek(fh, at(6, next), MPI_SEEK_SET);
  MPI_File_iread_all(fh, got, N, MPI_INT, &req[0]);
  wait_for(&req[0], &st[0], 1);
  check_status(&st[0], MPI_INT, N, "iread_all");
  check_next(got, 6, "iread_all");
  MPI_File_iread_at_all(fh, at(7, next), got, N, MPI_INT, &req[0]);
  wait_for(&req[0], &st[0], 0);
  check_status(&st[0], MPI_INT, N, "iread_at_all");
  check_next(got, 7, "iread_at_all");
}

#if MPI_VERSION >= 4
static void large_count(MPI_File fh) {
  int buf[N], got[N];
  MPI_Status st;
  MPI_Request req;
  MPI_Count count = -1;
  fill(buf, 8);
  MPI_File_write_at_c(fh, at(8, rank), buf, (MPI_Count)N, MPI_INT, &st);
  MPI_Get_count_c(&st, MPI_INT, &count);
  MTEST_CHECK(count == N, "write_at_c: count %lld", (long long)count);
  fill(buf, 9);
  MPI_File_seek(fh, at(9, rank), MPI_SEEK_SET);
  MPI_File_iwrite_c(fh, buf, (MPI_Count)N, MPI_INT, &req);
  MPI_Wait(&req, &st);
  MPI_Get_count_c(&st, MPI_INT, &count);
  MTEST_CHECK(count == N, "iwrite_c: count %lld", (long long)count);
  iotest_sync_all(fh);
  MPI_File_read_at_all_c(fh, at(8, next), got, (MPI_Count)N, MPI_INT, &st);
  MPI_Get_elements_c(&st, MPI_INT, &count);
  MTEST_CHECK(count == N, "read_at_all_c: elements %lld", (long long)count);
  check_next(got, 8, "read_at_all_c");
  MPI_File_iread_at_c(fh, at(9, next), got, (MPI_Count)N, MPI_INT, &req);
  MPI_Wait(&req, &st);
  check_status(&st, MPI_INT, N, "iread_at_c");
  check_next(got, 9, "iread_at_c");
}
#endif

/* Counts of zero move nothing: not with one rank, not with all, and not past the end. */
static void zero_counts(MPI_File fh) {
  int buf[N], got[N];
  MPI_Status st;
  MPI_Offset before = -1, after = -1;
  fill(buf, 10);
  iotest_sync_all(fh);
  MPI_File_get_size(fh, &before);
  MPI_File_write_at(fh, before + 4096, buf, 0, MPI_INT, &st);
  check_status(&st, MPI_INT, 0, "write_at of 0 ints");
  MPI_File_write_at_all(fh, at(10, rank), buf, rank % 2 ? 0 : N, MPI_INT, &st);
  check_status(&st, MPI_INT, rank % 2 ? 0 : N, "write_at_all of N or 0 ints");
  MPI_File_read_at_all(fh, 0, got, 0, MPI_INT, &st);
  check_status(&st, MPI_INT, 0, "read_at_all of 0 ints");
  iotest_sync_all(fh);
  MPI_File_get_size(fh, &after);
  MPI_Offset want = at(10, size - 1 - (size - 1) % 2) + N * sizeof(int); /* the last even rank */
  MTEST_CHECK(after == want, "size %lld after the zero-count writes, want %lld", (long long)after,
              (long long)want);
}

static unsigned char byte_at(MPI_Offset i) { return (unsigned char)(i * 7 + 3); }

/* Rank r writes 5 + 3r bytes, all packed one after the other from byte 1. */
static void odd_bytes(void) {
  MPI_File fh = MPI_FILE_NULL;
  if (!iotest_open("bytes", MPI_MODE_CREATE | MPI_MODE_RDWR, &fh)) return;
  int len = 5 + 3 * rank, count = -1;
  MPI_Offset start = 1 + 5 * rank + 3 * rank * (rank - 1) / 2, total = 1;
  for (int r = 0; r < size; ++r) total += 5 + 3 * r;
  unsigned char buf[32], *all = malloc(total);
  for (int i = 0; i < len; ++i) buf[i] = byte_at(start + i);
  MPI_Status st;
  MPI_File_write_at_all(fh, start, buf, len, MPI_BYTE, &st);
  MPI_Get_count(&st, MPI_BYTE, &count);
  MTEST_CHECK(count == len, "write_at_all of %d bytes: count %d", len, count);
  MPI_Get_count(&st, MPI_INT, &count);
  MTEST_CHECK(count == (len % 4 ? MPI_UNDEFINED : len / 4), "%d bytes are %d ints?", len, count);
  iotest_sync_all(fh);
  MPI_Offset fsize = -1;
  MPI_File_get_size(fh, &fsize);
  MTEST_CHECK(fsize == total, "size %lld, want %lld", (long long)fsize, (long long)total);
  MPI_File_read_at(fh, 0, all, (int)total, MPI_BYTE, MPI_STATUS_IGNORE);
  int bad = 0;
  for (MPI_Offset i = 1; i < total; ++i) bad += all[i] != byte_at(i);
  MTEST_CHECK(bad == 0, "%d of %lld bytes wrong", bad, (long long)total - 1);
  MPI_File_close(&fh);
  free(all);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  next = (rank + 1) % size;
  iotest_name_files("collective");
  MPI_File fh = MPI_FILE_NULL;
  if (iotest_open("coll", MPI_MODE_CREATE | MPI_MODE_RDWR, &fh)) {
    MPI_Datatype block;
    MPI_Type_contiguous(N, MPI_INT, &block);
    MPI_Type_commit(&block);
    blocking(fh);
    split(fh);
    nonblocking_independent(fh, block);
    nonblocking_collective(fh);
#if MPI_VERSION >= 4
    large_count(fh);
#endif
    zero_counts(fh);
    MPI_File_close(&fh);
    MPI_Type_free(&block);
  }
  odd_bytes();
  iotest_remove(tags, sizeof tags / sizeof tags[0]);
  return mtest_finalize();
}

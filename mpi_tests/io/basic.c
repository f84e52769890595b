/* MPI-IO basics: MPI_File_open creates a file that write_at/read_at fill and read back per rank
 * (with the count in the status); get_size, set_size (grow and shrink), preallocate, sync,
 * get_amode, get_group, get/set_atomicity, get/set_info and get_type_extent answer what the
 * standard says; a file reopened MPI_MODE_RDONLY reads back everything on every rank;
 * MPI_MODE_DELETE_ON_CLOSE and MPI_File_delete remove the file; MPI_MODE_APPEND starts both file
 * pointers at the end; MPI_MODE_CREATE|MPI_MODE_EXCL refuses an existing file; a file opened on a
 * sub-communicator belongs to that group only; MPI_File_c2f/f2c round-trip the handle. */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "iotest.h"
#include "mtest.h"

#define N 64 /* ints in each rank's block */

static int rank, size;
static const char *const tags[] = {"main", "doc", "del", "app", "sub0", "sub1"};

static int value(int r, int i) { return r * 100000 + i * 7 + 3; }

static MPI_Offset block_offset(int r) { return (MPI_Offset)r * N * (MPI_Offset)sizeof(int); }

/* Sync, barrier, sync: every rank's writes become visible to every rank (non-atomic mode). */
static void sync_all(MPI_File fh, MPI_Comm comm) {
  MTEST_CHECK(iotest_sync_on(fh, comm) == MPI_SUCCESS, "MPI_File_sync failed");
}

static void check_block(const int *got, int r, int n, const char *what) {
  int bad = 0;
  for (int i = 0; i < n; ++i) bad += got[i] != value(r, i);
  MTEST_CHECK(bad == 0, "%s: %d of %d ints of rank %d's block are wrong (first %d)", what, bad, n,
              r, got[0]);
}

static void check_count(const MPI_Status *st, int want, const char *what) {
  int count = -1;
  MPI_Get_count(st, MPI_INT, &count);
  MTEST_CHECK(count == want, "%s: MPI_Get_count gives %d ints, want %d", what, count, want);
}

static void check_size(MPI_File fh, MPI_Offset want, const char *what) {
  MPI_Offset got = -1;
  int rc = MPI_File_get_size(fh, &got);
  MTEST_CHECK(rc == MPI_SUCCESS && got == want, "%s: size %lld (rc %d), want %lld", what,
              (long long)got, rc, (long long)want);
}

/* get_amode, get_group, atomicity, info and get_type_extent of an open file. */
static void properties(MPI_File fh, MPI_Comm comm, int amode) {
  int got = -1, result = -1;
  MTEST_CHECK(MPI_File_get_amode(fh, &got) == MPI_SUCCESS && got == amode,
              "get_amode gives %#x, want %#x", got, amode);
  MPI_Group fgroup = MPI_GROUP_NULL, cgroup;
  MTEST_CHECK(MPI_File_get_group(fh, &fgroup) == MPI_SUCCESS, "MPI_File_get_group failed");
  MPI_Comm_group(comm, &cgroup);
  MPI_Group_compare(fgroup, cgroup, &result);
  MTEST_CHECK(result == MPI_IDENT, "the file's group compares %d to the comm's, want IDENT",
              result);
  MPI_Group_free(&fgroup);
  MPI_Group_free(&cgroup);
  int flag = -1;
  MTEST_CHECK(MPI_File_get_atomicity(fh, &flag) == MPI_SUCCESS && flag == 0,
              "atomicity is %d after open, want 0", flag);
  MPI_File_set_atomicity(fh, 1);
  MTEST_CHECK(MPI_File_get_atomicity(fh, &flag) == MPI_SUCCESS && flag != 0,
              "atomicity is %d after set_atomicity(1)", flag);
  MPI_File_set_atomicity(fh, 0);
  MTEST_CHECK(MPI_File_get_atomicity(fh, &flag) == MPI_SUCCESS && flag == 0,
              "atomicity is %d after set_atomicity(0)", flag);
  MPI_Info info = MPI_INFO_NULL;
  int nkeys = -1;
  MTEST_CHECK(MPI_File_get_info(fh, &info) == MPI_SUCCESS && info != MPI_INFO_NULL,
              "MPI_File_get_info gave no info");
  MTEST_CHECK(MPI_Info_get_nkeys(info, &nkeys) == MPI_SUCCESS && nkeys >= 0,
              "the info of get_info is not valid");
  MTEST_CHECK(MPI_Info_free(&info) == MPI_SUCCESS && info == MPI_INFO_NULL,
              "the info of get_info cannot be freed");
  MPI_Info_create(&info);
  MPI_Info_set(info, "access_style", "read_mostly");
  MTEST_CHECK(MPI_File_set_info(fh, info) == MPI_SUCCESS, "MPI_File_set_info failed");
  MPI_Info_free(&info);
  MPI_Aint extent = -1;
  MPI_Datatype wide;
  MPI_Type_create_resized(MPI_INT, 0, 24, &wide);
  MPI_Type_commit(&wide);
  MTEST_CHECK(
      MPI_File_get_type_extent(fh, MPI_INT, &extent) == MPI_SUCCESS && extent == sizeof(int),
      "get_type_extent(MPI_INT) gives %ld", (long)extent);
  MTEST_CHECK(MPI_File_get_type_extent(fh, wide, &extent) == MPI_SUCCESS && extent == 24,
              "get_type_extent(resized to 24) gives %ld", (long)extent);
  MPI_Type_free(&wide);
}

static void handle_conversion(MPI_File fh) {
  MPI_Fint f = MPI_File_c2f(fh);
  MTEST_CHECK(MPI_File_f2c(f) == fh, "MPI_File_f2c(MPI_File_c2f(fh)) is not fh");
  MTEST_CHECK(MPI_File_f2c(MPI_File_c2f(MPI_FILE_NULL)) == MPI_FILE_NULL,
              "MPI_FILE_NULL does not round-trip through c2f/f2c");
}

/* Each rank writes its block, then reads its neighbour's. */
static void write_blocks(void) {
  MPI_File fh = MPI_FILE_NULL;
  const int amode = MPI_MODE_CREATE | MPI_MODE_RDWR;
  if (!iotest_open("main", amode, &fh)) return;
  int buf[N], got[N], next = (rank + 1) % size;
  MPI_Status st;
  for (int i = 0; i < N; ++i) buf[i] = value(rank, i);
  int rc = MPI_File_write_at(fh, block_offset(rank), buf, N, MPI_INT, &st);
  MTEST_CHECK(rc == MPI_SUCCESS, "write_at failed (%d)", rc);
  check_count(&st, N, "write_at");
  sync_all(fh, MPI_COMM_WORLD);
  rc = MPI_File_read_at(fh, block_offset(next), got, N, MPI_INT, &st);
  MTEST_CHECK(rc == MPI_SUCCESS, "read_at failed (%d)", rc);
  check_count(&st, N, "read_at");
  check_block(got, next, N, "read_at of the next rank's block");
  check_size(fh, block_offset(size), "after every rank wrote");
  properties(fh, MPI_COMM_WORLD, amode);
  handle_conversion(fh);
  MTEST_CHECK(MPI_File_close(&fh) == MPI_SUCCESS && fh == MPI_FILE_NULL,
              "MPI_File_close failed or left the handle set");
}

/* Reopened read-only, every rank reads the whole file; a read at the end reads nothing. */
static void read_back(void) {
  MPI_File fh = MPI_FILE_NULL;
  if (!iotest_open("main", MPI_MODE_RDONLY, &fh)) return;
  int *all = malloc(sizeof(int) * N * size);
  MPI_Status st;
  int rc = MPI_File_read_at(fh, 0, all, N * size, MPI_INT, &st);
  MTEST_CHECK(rc == MPI_SUCCESS, "read_at of the whole file failed (%d)", rc);
  check_count(&st, N * size, "read_at of the whole file");
  for (int r = 0; r < size; ++r) check_block(all + r * N, r, N, "whole file after reopening");
  rc = MPI_File_read_at(fh, block_offset(size), all, N, MPI_INT, &st);
  check_count(&st, 0, "read_at at the end of the file");
  int amode = -1;
  MPI_File_get_amode(fh, &amode);
  MTEST_CHECK(amode == MPI_MODE_RDONLY, "get_amode gives %#x, want MPI_MODE_RDONLY", amode);
  MPI_File_close(&fh);
  free(all);
}

/* set_size grows and shrinks the file; preallocate only ever grows it. */
static void sizes(void) {
  MPI_File fh = MPI_FILE_NULL;
  if (!iotest_open("main", MPI_MODE_RDWR, &fh)) return;
  MPI_Offset total = block_offset(size), cut = total - (N / 2) * (MPI_Offset)sizeof(int);
  MTEST_CHECK(MPI_File_set_size(fh, total + 1000) == MPI_SUCCESS, "set_size (grow) failed");
  check_size(fh, total + 1000, "after set_size to grow");
  MTEST_CHECK(MPI_File_set_size(fh, cut) == MPI_SUCCESS, "set_size (shrink) failed");
  check_size(fh, cut, "after set_size to shrink");
  int *all = malloc(sizeof(int) * N * size);
  MPI_Status st;
  MPI_File_read_at(fh, 0, all, N * size, MPI_INT, &st);
  check_count(&st, (int)(cut / sizeof(int)), "read_at of a shrunk file");
  for (int r = 0; r < size; ++r)
    check_block(all + r * N, r, r < size - 1 ? N : N / 2, "data kept by shrinking");
  free(all);
  MTEST_CHECK(MPI_File_preallocate(fh, total + 4096) == MPI_SUCCESS, "preallocate failed");
  check_size(fh, total + 4096, "after preallocate to grow");
  MTEST_CHECK(MPI_File_preallocate(fh, 100) == MPI_SUCCESS, "preallocate (smaller) failed");
  check_size(fh, total + 4096, "after preallocate of less than the size");
  MPI_File_close(&fh);
}

static void check_gone(const char *tag, const char *what) {
  char p[IOTEST_PATH_LEN];
  iotest_path(tag, p);
  MPI_Barrier(MPI_COMM_WORLD);
  MTEST_CHECK(access(p, F_OK) != 0, "%s: %s still exists", what, p);
}

static void deleting(void) {
  MPI_File fh = MPI_FILE_NULL;
  int buf[N], amode = MPI_MODE_CREATE | MPI_MODE_RDWR | MPI_MODE_DELETE_ON_CLOSE;
  for (int i = 0; i < N; ++i) buf[i] = value(rank, i);
  if (iotest_open("doc", amode, &fh)) {
    MPI_File_write_at(fh, block_offset(rank), buf, N, MPI_INT, MPI_STATUS_IGNORE);
    MPI_File_close(&fh);
    check_gone("doc", "MPI_MODE_DELETE_ON_CLOSE");
  }
  if (iotest_open("del", MPI_MODE_CREATE | MPI_MODE_WRONLY, &fh)) {
    MPI_File_write_at(fh, block_offset(rank), buf, N, MPI_INT, MPI_STATUS_IGNORE);
    MPI_File_close(&fh);
    char p[IOTEST_PATH_LEN];
    iotest_path("del", p);
    if (rank == 0) MTEST_CHECK(MPI_File_delete(p, MPI_INFO_NULL) == 0, "MPI_File_delete failed");
    check_gone("del", "MPI_File_delete");
  }
}

/* MPI_MODE_APPEND: both pointers start at the end; write_ordered appends in rank order. */
static void append(void) {
  MPI_File fh = MPI_FILE_NULL;
  int buf[N];
  for (int i = 0; i < N; ++i) buf[i] = value(0, i);
  if (!iotest_open("app", MPI_MODE_CREATE | MPI_MODE_WRONLY, &fh)) return;
  if (rank == 0) MPI_File_write_at(fh, 0, buf, 10, MPI_INT, MPI_STATUS_IGNORE);
  MPI_File_close(&fh);
  if (!iotest_open("app", MPI_MODE_WRONLY | MPI_MODE_APPEND, &fh)) return;
  MPI_Offset pos = -1, shared = -1, end = 10 * sizeof(int);
  MPI_File_get_position(fh, &pos);
  MPI_File_get_position_shared(fh, &shared);
  MPI_Barrier(MPI_COMM_WORLD); /* every rank looked before any moves the shared pointer */
  MTEST_CHECK(pos == end && shared == end, "MPI_MODE_APPEND: positions %lld and %lld, want %lld",
              (long long)pos, (long long)shared, (long long)end);
  int mine = value(rank, 10);
  MPI_File_write_ordered(fh, &mine, 1, MPI_INT, MPI_STATUS_IGNORE);
  MPI_File_close(&fh);
  if (!iotest_open("app", MPI_MODE_RDONLY, &fh)) return;
  int *got = calloc(10 + size, sizeof(int));
  check_size(fh, end + size * (MPI_Offset)sizeof(int), "after appending");
  MPI_File_read_at(fh, 0, got, 10 + size, MPI_INT, MPI_STATUS_IGNORE);
  check_block(got, 0, 10, "data before the appended part");
  for (int r = 0; r < size; ++r)
    MTEST_CHECK(got[10 + r] == value(r, 10), "appended int %d is %d, want %d", r, got[10 + r],
                value(r, 10));
  MPI_File_close(&fh);
  free(got);
}

static void exclusive(void) {
  char p[IOTEST_PATH_LEN];
  iotest_path("main", p);
  MPI_File fh = MPI_FILE_NULL;
  int rc = MPI_File_open(MPI_COMM_WORLD, p, MPI_MODE_CREATE | MPI_MODE_EXCL | MPI_MODE_RDWR,
                         MPI_INFO_NULL, &fh);
  MTEST_CHECK(rc != MPI_SUCCESS, "MPI_MODE_CREATE|MPI_MODE_EXCL opened an existing file");
  if (rc == MPI_SUCCESS) MPI_File_close(&fh);
}

/* Ranks of each parity share a file of their own, written per sub-rank. */
static void sub_communicator(void) {
  MPI_Comm sub;
  int color = rank % 2, subrank, subsize;
  char tag[8];
  MPI_Comm_split(MPI_COMM_WORLD, color, rank, &sub);
  MPI_Comm_rank(sub, &subrank);
  MPI_Comm_size(sub, &subsize);
  snprintf(tag, sizeof tag, "sub%d", color);
  MPI_File fh = MPI_FILE_NULL;
  if (iotest_open_on(sub, tag, MPI_MODE_CREATE | MPI_MODE_RDWR, &fh)) {
    int buf[N], *all = malloc(sizeof(int) * N * subsize);
    for (int i = 0; i < N; ++i) buf[i] = value(rank, i);
    MPI_File_write_at_all(fh, block_offset(subrank), buf, N, MPI_INT, MPI_STATUS_IGNORE);
    sync_all(fh, sub);
    check_size(fh, block_offset(subsize), "file of a sub-communicator");
    MPI_File_read_at(fh, 0, all, N * subsize, MPI_INT, MPI_STATUS_IGNORE);
    for (int j = 0; j < subsize; ++j) check_block(all + j * N, color + 2 * j, N, "sub-group file");
    properties(fh, sub, MPI_MODE_CREATE | MPI_MODE_RDWR);
    MPI_File_close(&fh);
    free(all);
  }
  MPI_Comm_free(&sub);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  iotest_name_files("basic");
  write_blocks();
  read_back();
  exclusive();
  sizes();
  deleting();
  append();
  sub_communicator();
  iotest_remove(tags, sizeof tags / sizeof tags[0]);
  return mtest_finalize();
}

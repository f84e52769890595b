/* Collective reads and writes whose members' file runs interleave (the case two-phase access
 * is for), checked byte for byte against what each member meant: a cyclic distribution of
 * blocks of 1 and 3 ints through write_at_all and read_at_all, a view that leaves holes (which
 * keep what was there), reads past the end of the file (each member's count stops there), a
 * member with nothing to move, the individual file pointer (write_all, read_all), the
 * nonblocking and split forms, a non-contiguous memory datatype, and a file opened with the
 * peers' hints (cb_nodes, cb_buffer_size, romio_cb_write, romio_cb_read) that force two-phase
 * access on blocks that do not interleave; MPI_File_get_info returns those hints as given, and
 * names them with the values in effect where none was given. The testlist runs it with
 * windows smaller than the data (many rounds), fewer aggregators than members, and two-phase
 * access off. */
#include <stdlib.h>
#include <string.h>

#include "iotest.h"

#define M 1000 /* ints of each member */

static int rank, size;
static const char *const tags[] = {"cyclic", "hints"};

static int value(int round, int r, int i) { return round * 1000000 + r * 10000 + i; }

/* Members' blocks of `blk` ints follow each other in turn, with `gap` unused blocks after each
 * turn of all members: `blk` ints of every (size + gap) * blk, from this member's place. */
static void set_cyclic_view(MPI_File fh, int blk, int gap, MPI_Info info) {
  MPI_Datatype vec, tile;
  MPI_Type_vector(1, blk, blk * (size + gap), MPI_INT, &vec);
  MPI_Type_create_resized(vec, 0, (MPI_Aint)blk * (size + gap) * sizeof(int), &tile);
  MPI_Type_commit(&tile);
  int rc = MPI_File_set_view(fh, (MPI_Offset)rank * blk * sizeof(int), MPI_INT, tile, "native",
                             info);
  MTEST_CHECK(rc == MPI_SUCCESS, "set_view (blocks of %d) failed", blk);
  MPI_Type_free(&vec);
  MPI_Type_free(&tile);
}

static void set_plain_view(MPI_File fh) {
  MPI_File_set_view(fh, 0, MPI_INT, MPI_INT, "native", MPI_INFO_NULL);
}

/* The whole file as ints, read by this member alone through the plain view. */
static int *read_whole(MPI_File fh, int n) {
  int *all = malloc((size_t)n * sizeof(int));
  for (int j = 0; j < n; ++j) all[j] = -1;
  set_plain_view(fh);
  MPI_File_read_at(fh, 0, all, n, MPI_INT, MPI_STATUS_IGNORE);
  return all;
}

/* Checks the file against members' blocks of `blk` ints of `round`, `gap` blocks of `hole`
 * after each turn. */
static void check_file(MPI_File fh, int blk, int gap, int round, int hole, const char *what) {
  int turns = M / blk, n = turns * blk * (size + gap), bad = 0, first = -1;
  iotest_sync_all(fh);
  int *all = read_whole(fh, n);
  for (int j = 0; j < n; ++j) {
    int turn = j / (blk * (size + gap)), place = j % (blk * (size + gap)), owner = place / blk;
    int want = owner < size ? value(round, owner, turn * blk + place % blk) : hole;
    if (all[j] != want && bad++ == 0) first = j;
  }
  MTEST_CHECK(bad == 0, "%s: %d of %d ints of the file wrong (first at %d: %d)", what, bad, n,
              first, first >= 0 ? all[first] : 0);
  free(all);
  MPI_Barrier(MPI_COMM_WORLD);
}

static void check_mine(const int *got, int n, int round, const char *what) {
  int bad = 0;
  for (int i = 0; i < n; ++i) bad += got[i] != value(round, rank, i);
  MTEST_CHECK(bad == 0, "%s: %d of %d ints read back wrong (first %d)", what, bad, n, got[0]);
}

static void check_count(const MPI_Status *st, int want, const char *what) {
  int count = -1;
  MPI_Get_count(st, MPI_INT, &count);
  MTEST_CHECK(count == want, "%s: MPI_Get_count gives %d, want %d", what, count, want);
}

/* write_at_all and read_at_all of a cyclic distribution. */
static void cyclic(MPI_File fh, int blk, int round) {
  int buf[M], got[M];
  MPI_Status st;
  for (int i = 0; i < M; ++i) buf[i] = value(round, rank, i);
  set_cyclic_view(fh, blk, 0, MPI_INFO_NULL);
  MTEST_CHECK(MPI_File_write_at_all(fh, 0, buf, M, MPI_INT, &st) == MPI_SUCCESS,
              "write_at_all (blocks of %d) failed", blk);
  check_count(&st, M, "write_at_all");
  check_file(fh, blk, 0, round, 0, blk == 1 ? "cyclic ints" : "cyclic blocks of 3");
  set_cyclic_view(fh, blk, 0, MPI_INFO_NULL);
  for (int i = 0; i < M; ++i) got[i] = -1;
  MTEST_CHECK(MPI_File_read_at_all(fh, 0, got, M, MPI_INT, &st) == MPI_SUCCESS,
              "read_at_all (blocks of %d) failed", blk);
  check_count(&st, M, "read_at_all");
  check_mine(got, M, round, "read_at_all");
}

/* A view with a hole after each turn: the holes keep what the file had. */
static void holes(MPI_File fh) {
  int turns = M / 2, n = turns * 2 * (size + 1), buf[M];
  set_plain_view(fh);
  if (rank == 0) {
    int *fill = malloc((size_t)n * sizeof(int));
    for (int j = 0; j < n; ++j) fill[j] = -7;
    MPI_File_write_at(fh, 0, fill, n, MPI_INT, MPI_STATUS_IGNORE);
    free(fill);
  }
  iotest_sync_all(fh);
  for (int i = 0; i < M; ++i) buf[i] = value(2, rank, i);
  set_cyclic_view(fh, 2, 1, MPI_INFO_NULL);
  MTEST_CHECK(MPI_File_write_at_all(fh, 0, buf, M, MPI_INT, MPI_STATUS_IGNORE) == MPI_SUCCESS,
              "write_at_all with holes failed");
  check_file(fh, 2, 1, 2, -7, "holes");
}

/* Reads that reach past the end of the file; member 0 reads nothing. */
static void past_end(MPI_File fh) {
  int *got = malloc(2 * M * sizeof(int));
  MPI_Status st;
  MPI_File_set_size(fh, (MPI_Offset)size * M * sizeof(int));
  set_cyclic_view(fh, 1, 0, MPI_INFO_NULL);
  int want = rank == 0 ? 0 : M;
  MTEST_CHECK(MPI_File_read_at_all(fh, 0, got, rank == 0 ? 0 : 2 * M, MPI_INT, &st) ==
                  MPI_SUCCESS,
              "read_at_all past the end failed");
  check_count(&st, want, "read_at_all past the end");
  /* The file holds round 2's holes layout cut at size * M ints: check against it. */
  int bad = 0;
  for (int i = 0; i < want; ++i) {
    int j = i * size + rank, turn = j / (2 * (size + 1)), place = j % (2 * (size + 1));
    int owner = place / 2, expect = owner < size ? value(2, owner, turn * 2 + place % 2) : -7;
    bad += got[i] != expect;
  }
  MTEST_CHECK(bad == 0, "read_at_all past the end: %d of %d ints wrong", bad, want);
  free(got);
}

/* The individual file pointer, the nonblocking and split forms, a strided memory type. */
static void other_forms(MPI_File fh) {
  int buf[M], got[M], strided[2 * M];
  MPI_Status st;
  MPI_Request req;
  for (int i = 0; i < M; ++i) buf[i] = value(3, rank, i);
  set_cyclic_view(fh, 1, 0, MPI_INFO_NULL);
  MTEST_CHECK(MPI_File_write_all(fh, buf, M / 2, MPI_INT, &st) == MPI_SUCCESS, "write_all");
  MTEST_CHECK(MPI_File_iwrite_all(fh, buf + M / 2, M - M / 2, MPI_INT, &req) == MPI_SUCCESS,
              "iwrite_all");
  MPI_Wait(&req, &st);
  check_count(&st, M - M / 2, "iwrite_all");
  MPI_Offset at = -1;
  MPI_File_get_position(fh, &at);
  MTEST_CHECK(at == M, "the file pointer is at %lld after write_all and iwrite_all, want %d",
              (long long)at, M);
  check_file(fh, 1, 0, 3, 0, "write_all + iwrite_all");
  set_cyclic_view(fh, 1, 0, MPI_INFO_NULL);
  MPI_File_read_all_begin(fh, got, M / 2, MPI_INT);
  MPI_File_read_all_end(fh, got, &st);
  check_count(&st, M / 2, "read_all_end");
  MPI_File_iread_at_all(fh, M / 2, got + M / 2, M - M / 2, MPI_INT, &req);
  MPI_Wait(&req, &st);
  check_mine(got, M, 3, "read_all_begin/end + iread_at_all");
  /* Every other int of a buffer of 2 * M, written through a vector type. */
  MPI_Datatype every_other;
  MPI_Type_vector(M, 1, 2, MPI_INT, &every_other);
  MPI_Type_commit(&every_other);
  for (int i = 0; i < 2 * M; ++i) strided[i] = i % 2 ? -3 : value(4, rank, i / 2);
  MPI_File_write_at_all(fh, 0, strided, 1, every_other, &st);
  check_count(&st, M, "write_at_all of a vector type");
  check_file(fh, 1, 0, 4, 0, "vector memory type");
  set_cyclic_view(fh, 1, 0, MPI_INFO_NULL);
  for (int i = 0; i < 2 * M; ++i) strided[i] = -5;
  MPI_File_read_at_all(fh, 0, strided, 1, every_other, &st);
  int bad = 0;
  for (int i = 0; i < 2 * M; ++i) bad += strided[i] != (i % 2 ? -5 : value(4, rank, i / 2));
  MTEST_CHECK(bad == 0, "read_at_all into a vector type: %d ints wrong", bad);
  MPI_Type_free(&every_other);
}

/* Without hints, MPI_File_get_info names the two-phase hints with the values in effect. */
static void defaults(MPI_File fh) {
  MPI_Info used;
  char text[64];
  const char *keys[] = {"cb_nodes", "cb_buffer_size", "romio_cb_write", "romio_cb_read"};
  MPI_File_get_info(fh, &used);
  for (int k = 0; k < 4; ++k) {
    int flag = 0;
    MPI_Info_get(used, keys[k], sizeof text - 1, text, &flag);
    MTEST_CHECK(flag && text[0] != '\0', "get_info names no %s", keys[k]);
    if (flag && k < 2) MTEST_CHECK(atoi(text) > 0, "get_info: %s is \"%s\"", keys[k], text);
  }
  MPI_Info_free(&used);
}

/* Blocks one after another (no interleaving) with the hints that force two-phase access. */
static void hinted(void) {
  char path[IOTEST_PATH_LEN];
  iotest_path("hints", path);
  MPI_Info info;
  MPI_Info_create(&info);
  MPI_Info_set(info, "cb_nodes", "1");
  MPI_Info_set(info, "cb_buffer_size", "1000");
  MPI_Info_set(info, "romio_cb_write", "enable");
  MPI_Info_set(info, "romio_cb_read", "enable");
  MPI_File fh;
  if (MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, info, &fh) != 0) {
    MTEST_CHECK(0, "open with hints failed");
    return;
  }
  /* MPI_File_get_info returns the hints in effect: those given, as given. */
  MPI_Info used;
  char text[64];
  const char *want[][2] = {{"cb_nodes", "1"},
                           {"cb_buffer_size", "1000"},
                           {"romio_cb_write", "enable"},
                           {"romio_cb_read", "enable"}};
  MPI_File_get_info(fh, &used);
  for (int k = 0; k < 4; ++k) {
    int flag = 0;
    MPI_Info_get(used, want[k][0], sizeof text - 1, text, &flag);
    MTEST_CHECK(flag && strcmp(text, want[k][1]) == 0, "get_info: %s is \"%s\", want \"%s\"",
                want[k][0], flag ? text : "(none)", want[k][1]);
  }
  MPI_Info_free(&used);
  int buf[M], got[M];
  for (int i = 0; i < M; ++i) buf[i] = value(5, rank, i);
  MPI_Offset mine = (MPI_Offset)rank * M * sizeof(int);
  MTEST_CHECK(MPI_File_write_at_all(fh, mine, buf, M, MPI_INT, MPI_STATUS_IGNORE) == 0,
              "hinted write_at_all failed");
  iotest_sync_all(fh);
  MTEST_CHECK(MPI_File_read_at_all(fh, mine, got, M, MPI_INT, MPI_STATUS_IGNORE) == 0,
              "hinted read_at_all failed");
  check_mine(got, M, 5, "hinted read_at_all");
  MPI_File_close(&fh);
  MPI_Info_free(&info);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  iotest_name_files("two_phase");
  MPI_File fh;
  if (iotest_open("cyclic", MPI_MODE_CREATE | MPI_MODE_RDWR, &fh)) {
    defaults(fh);
    cyclic(fh, 1, 0);
    cyclic(fh, 3, 1);
    holes(fh);
    past_end(fh);
    other_forms(fh);
    MPI_File_close(&fh);
  }
  hinted();
  iotest_remove(tags, sizeof tags / sizeof tags[0]);
  return mtest_finalize();
}

/* MPI_T performance variables count what the point-to-point layer does: rank 0 sends 10 small
 * and 3 large messages while its counters run, and its handles read exactly 10 eager sends, 3
 * rendezvous sends and their bytes; stopped, they count nothing more; readreset, write and reset
 * set them. Rank 1 holds 5 messages that arrived before their receives (the level reads at
 * least 5, and 5 less once they are received) and posts 4 receives before their messages (the
 * level rises by 4, and falls back once they complete). The levels cannot be started, stopped,
 * written or reset. */
#include <stdlib.h>
#include <string.h>

#include "mtest.h"

enum { kPosted, kUnexpected, kPeak, kEager, kRendezvous, kBytes, kVars };
static const char *const kNames[kVars] = {"pml_posted_receives",          "pml_unexpected_messages",
                                          "pml_unexpected_messages_peak", "pml_eager_sends",
                                          "pml_rendezvous_sends",         "pml_bytes_sent"};
static const int kClasses[kVars] = {MPI_T_PVAR_CLASS_LEVEL,         MPI_T_PVAR_CLASS_LEVEL,
                                    MPI_T_PVAR_CLASS_HIGHWATERMARK, MPI_T_PVAR_CLASS_COUNTER,
                                    MPI_T_PVAR_CLASS_COUNTER,       MPI_T_PVAR_CLASS_COUNTER};
enum { kLarge = 1 << 20, kSmall = 8 };

static MPI_T_pvar_session session;
static MPI_T_pvar_handle handles[kVars];

static void expect(int rc, int want, const char *what) {
  MTEST_CHECK(rc == want, "%s returned %d, want %d", what, rc, want);
}

static unsigned long long value(int var) {
  unsigned long long v = ~0ull;
  expect(MPI_T_pvar_read(session, handles[var], &v), MPI_SUCCESS, kNames[var]);
  return v;
}

static void open_handles(void) {
  expect(MPI_T_pvar_session_create(&session), MPI_SUCCESS, "session_create");
  for (int v = 0; v < kVars; ++v) {
    int index = -1, var_class = -1, readonly = -1, continuous = -1, count = 0;
    MPI_Datatype type;
    expect(MPI_T_pvar_get_index(kNames[v], kClasses[v], &index), MPI_SUCCESS, kNames[v]);
    expect(MPI_T_pvar_get_info(index, NULL, NULL, NULL, &var_class, &type, NULL, NULL, NULL, NULL,
                               &readonly, &continuous, NULL),
           MPI_SUCCESS, "pvar_get_info");
    int counter = kClasses[v] == MPI_T_PVAR_CLASS_COUNTER;
    MTEST_CHECK(var_class == kClasses[v] && type == MPI_UNSIGNED_LONG_LONG &&
                    readonly == !counter && continuous == !counter,
                "%s: class %d readonly %d continuous %d", kNames[v], var_class, readonly,
                continuous);
    expect(MPI_T_pvar_handle_alloc(session, index, NULL, &handles[v], &count), MPI_SUCCESS,
           "pvar_handle_alloc");
    MTEST_CHECK(count == 1, "%s: count %d", kNames[v], count);
  }
  int other = -1;
  expect(MPI_T_pvar_get_index("pml_eager_sends", MPI_T_PVAR_CLASS_LEVEL, &other),
         MPI_T_ERR_INVALID_NAME, "a name with another class");
}

/* Rank 0 sends while its counters run, then once more while they are stopped. */
static void counters(int rank) {
  char *buf = calloc(kLarge, 1);
  expect(MPI_T_pvar_start(session, MPI_T_PVAR_ALL_HANDLES), MPI_SUCCESS, "start(ALL)");
  for (int i = 0; i < 10; ++i) {
    if (rank == 0)
      MPI_Send(buf, kSmall, MPI_CHAR, 1, 1, MPI_COMM_WORLD);
    else
      MPI_Recv(buf, kSmall, MPI_CHAR, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  }
  for (int i = 0; i < 3; ++i) {
    if (rank == 0)
      MPI_Send(buf, kLarge, MPI_CHAR, 1, 2, MPI_COMM_WORLD);
    else
      MPI_Recv(buf, kLarge, MPI_CHAR, 0, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  }
  expect(MPI_T_pvar_stop(session, MPI_T_PVAR_ALL_HANDLES), MPI_SUCCESS, "stop(ALL)");
  if (rank == 0)
    MPI_Send(buf, kSmall, MPI_CHAR, 1, 3, MPI_COMM_WORLD);
  else
    MPI_Recv(buf, kSmall, MPI_CHAR, 0, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  unsigned long long want_eager = rank == 0 ? 10 : 0, want_rendezvous = rank == 0 ? 3 : 0;
  unsigned long long want_bytes = rank == 0 ? 10ull * kSmall + 3ull * kLarge : 0;
  MTEST_CHECK(value(kEager) == want_eager && value(kRendezvous) == want_rendezvous &&
                  value(kBytes) == want_bytes,
              "rank %d counted %llu eager, %llu rendezvous, %llu bytes", rank, value(kEager),
              value(kRendezvous), value(kBytes));
  unsigned long long v = 0, five = 5;
  expect(MPI_T_pvar_readreset(session, handles[kEager], &v), MPI_SUCCESS, "readreset");
  MTEST_CHECK(v == want_eager && value(kEager) == 0, "readreset read %llu, left %llu", v,
              value(kEager));
  expect(MPI_T_pvar_write(session, handles[kBytes], &five), MPI_SUCCESS, "write");
  MTEST_CHECK(value(kBytes) == 5, "write left %llu", value(kBytes));
  expect(MPI_T_pvar_reset(session, MPI_T_PVAR_ALL_HANDLES), MPI_SUCCESS, "reset(ALL)");
  MTEST_CHECK(value(kBytes) == 0 && value(kRendezvous) == 0, "reset(ALL) left %llu, %llu",
              value(kBytes), value(kRendezvous));
  free(buf);
}

/* Rank 1 receives tag 8 last: the five tag-7 messages sent before it are held by then. */
static void unexpected(int rank) {
  char buf[kSmall] = {0};
  if (rank == 0) {
    for (int i = 0; i < 5; ++i) MPI_Send(buf, kSmall, MPI_CHAR, 1, 7, MPI_COMM_WORLD);
    MPI_Send(buf, kSmall, MPI_CHAR, 1, 8, MPI_COMM_WORLD);
    return;
  }
  MPI_Recv(buf, kSmall, MPI_CHAR, 0, 8, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  unsigned long long held = value(kUnexpected);
  MTEST_CHECK(held >= 5 && value(kPeak) >= held, "held %llu (peak %llu), want 5 or more", held,
              value(kPeak));
  for (int i = 0; i < 5; ++i)
    MPI_Recv(buf, kSmall, MPI_CHAR, 0, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  MTEST_CHECK(value(kUnexpected) == held - 5, "held %llu after the receives, want %llu",
              value(kUnexpected), held - 5);
}

/* Rank 1 posts four receives, then lets rank 0 send their messages. */
static void posted(int rank) {
  char buf[4][kSmall];
  MPI_Request requests[4];
  if (rank == 0) {
    MPI_Recv(NULL, 0, MPI_CHAR, 1, 10, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    for (int i = 0; i < 4; ++i) MPI_Send(buf[i], kSmall, MPI_CHAR, 1, 9, MPI_COMM_WORLD);
    return;
  }
  unsigned long long before = value(kPosted); /* the library's own receives */
  for (int i = 0; i < 4; ++i)
    MPI_Irecv(buf[i], kSmall, MPI_CHAR, 0, 9, MPI_COMM_WORLD, &requests[i]);
  MTEST_CHECK(value(kPosted) == before + 4, "%llu receives posted, want %llu", value(kPosted),
              before + 4);
  MPI_Send(NULL, 0, MPI_CHAR, 0, 10, MPI_COMM_WORLD);
  MPI_Waitall(4, requests, MPI_STATUSES_IGNORE);
  MTEST_CHECK(value(kPosted) == before, "%llu receives posted after the wait, want %llu",
              value(kPosted), before);
}

static void levels_are_read_only(void) {
  unsigned long long v = 0;
  expect(MPI_T_pvar_start(session, handles[kUnexpected]), MPI_T_ERR_PVAR_NO_STARTSTOP, "start");
  expect(MPI_T_pvar_stop(session, handles[kPeak]), MPI_T_ERR_PVAR_NO_STARTSTOP, "stop");
  expect(MPI_T_pvar_reset(session, handles[kPosted]), MPI_T_ERR_PVAR_NO_WRITE, "reset");
  expect(MPI_T_pvar_write(session, handles[kPosted], &v), MPI_T_ERR_PVAR_NO_WRITE, "write");
  expect(MPI_T_pvar_readreset(session, handles[kPeak], &v), MPI_T_ERR_PVAR_NO_WRITE, "readreset");
}

int main(int argc, char **argv) {
  int provided, rank, size;
  expect(MPI_T_init_thread(MPI_THREAD_SINGLE, &provided), MPI_SUCCESS, "MPI_T_init_thread");
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  open_handles();
  if (rank < 2 && size >= 2) {
    counters(rank);
    unexpected(rank);
    posted(rank);
  }
  levels_are_read_only();
  MPI_T_pvar_handle h = handles[kEager];
  expect(MPI_T_pvar_handle_free(session, &h), MPI_SUCCESS, "handle_free");
  unsigned long long v = 0;
  expect(MPI_T_pvar_read(session, handles[kEager], &v), MPI_T_ERR_INVALID_HANDLE,
         "read of a freed handle");
  expect(MPI_T_pvar_session_free(&session), MPI_SUCCESS, "session_free");
  expect(MPI_T_finalize(), MPI_SUCCESS, "MPI_T_finalize");
  return mtest_finalize();
}

/* Partitioned communication: MPI_Psend_init and MPI_Precv_init between pairs of ranks (0-1,
 * 2-3, ...), epochs started again and again with new data; partitions marked ready out of order
 * with MPI_Pready, MPI_Pready_range and MPI_Pready_list, seen arriving one by one with
 * MPI_Parrived; sides partitioned differently, a derived datatype on the sender; two requests
 * with one tag matched in the order of their init calls even when started in the other order;
 * many partitions marked ready together, epoch after epoch; small partitions joined in one
 * message (and not, with the knob at 0); partitions of no bytes;
 * MPI_PROC_NULL; and the errors: wildcards, a partition out of range or marked twice, the wrong
 * side's call, an inactive request, and sizes that differ between the sides (both fail). */
#include <stdlib.h>
#include <string.h>

#include "mtest.h"

static int rank, size, peer;

static int class_of(int rc) {
  int error_class = -1;
  MPI_Error_class(rc, &error_class);
  return error_class;
}

/* This rank's side of `parts` partitions of `count` ints with the peer: even ranks send.
 * Returns whether this rank sends. */
static int init_ints(int *buf, int parts, int count, int tag, MPI_Request *req) {
  int sender = rank % 2 == 0;
  if (sender)
    MPI_Psend_init(buf, parts, count, MPI_INT, peer, tag, MPI_COMM_WORLD, MPI_INFO_NULL, req);
  else
    MPI_Precv_init(buf, parts, count, MPI_INT, peer, tag, MPI_COMM_WORLD, MPI_INFO_NULL, req);
  return sender;
}

/* Same partitions on both sides: 8 x 100 ints, 3 epochs, ready in reverse order. */
static void same_partitions(void) {
  enum { P = 8, N = 100 };
  int buf[P * N];
  MPI_Request req;
  int sender = init_ints(buf, P, N, 7, &req);
  for (int epoch = 0; epoch < 3; ++epoch) {
    for (int i = 0; i < P * N; ++i) buf[i] = sender ? epoch * 100000 + i : -1;
    MPI_Start(&req);
    if (sender) {
      for (int p = P - 1; p >= 0; --p) MPI_Pready(p, req);
    } else {
      int arrived = 0, seen[P] = {0};
      while (arrived < P) {
        for (int p = 0; p < P; ++p) {
          int flag = 0;
          if (seen[p]) continue;
          MPI_Parrived(req, p, &flag);
          if (!flag) continue;
          seen[p] = 1;
          ++arrived;
          for (int i = p * N; i < (p + 1) * N; ++i)
            MTEST_CHECK(buf[i] == epoch * 100000 + i, "epoch %d: buf[%d] = %d once partition "
                        "%d arrived", epoch, i, buf[i], p);
        }
      }
    }
    MPI_Status st;
    MPI_Wait(&req, &st);
    if (!sender) {
      int count = -1;
      MPI_Get_count(&st, MPI_INT, &count);
      MTEST_CHECK(count == P * N && st.MPI_SOURCE == peer && st.MPI_TAG == 7,
                  "status: count %d source %d tag %d", count, st.MPI_SOURCE, st.MPI_TAG);
      int flag = 0;
      MPI_Parrived(req, 0, &flag);
      MTEST_CHECK(flag == 1, "MPI_Parrived on the inactive request: %d", flag);
    }
  }
  MPI_Request_free(&req);
  MTEST_CHECK(req == MPI_REQUEST_NULL, "MPI_Request_free left %#x", req);
}

/* 4 x 6 doubles sent, 3 x 8 doubles received; then a strided sender type (every other int)
 * in 4 partitions of 3 elements, received as 6 partitions of 2 ints. */
static void other_partitions(void) {
  double d[24];
  int sender = rank % 2 == 0;
  MPI_Request req;
  for (int i = 0; i < 24; ++i) d[i] = sender ? i * 0.5 : -1;
  if (sender) {
    MPI_Psend_init(d, 4, 6, MPI_DOUBLE, peer, 8, MPI_COMM_WORLD, MPI_INFO_NULL, &req);
    MPI_Start(&req);
    int list[2] = {3, 0};
    MPI_Pready_list(2, list, req);
    MPI_Pready_range(1, 2, req);
  } else {
    MPI_Precv_init(d, 3, 8, MPI_DOUBLE, peer, 8, MPI_COMM_WORLD, MPI_INFO_NULL, &req);
    MPI_Start(&req);
  }
  MPI_Wait(&req, MPI_STATUS_IGNORE);
  MPI_Request_free(&req);
  for (int i = 0; i < 24 && !sender; ++i)
    MTEST_CHECK(d[i] == i * 0.5, "other partitions: d[%d] = %g", i, d[i]);

  int v[24], r[12];
  MPI_Datatype every_other;
  MPI_Type_vector(1, 1, 2, MPI_INT, &every_other);
  MPI_Type_create_resized(every_other, 0, 2 * sizeof(int), &every_other);
  MPI_Type_commit(&every_other);
  for (int i = 0; i < 24; ++i) v[i] = i % 2 == 0 ? i : -5;
  if (sender) {
    MPI_Psend_init(v, 4, 3, every_other, peer, 9, MPI_COMM_WORLD, MPI_INFO_NULL, &req);
    MPI_Type_free(&every_other);
    MPI_Start(&req);
    MPI_Pready_range(0, 3, req);
  } else {
    MPI_Type_free(&every_other);
    memset(r, 0xff, sizeof r);
    MPI_Precv_init(r, 6, 2, MPI_INT, peer, 9, MPI_COMM_WORLD, MPI_INFO_NULL, &req);
    MPI_Start(&req);
  }
  MPI_Wait(&req, MPI_STATUS_IGNORE);
  MPI_Request_free(&req);
  for (int i = 0; i < 12 && !sender; ++i)
    MTEST_CHECK(r[i] == 2 * i, "strided sender: r[%d] = %d", i, r[i]);
}

/* 40 partitions of 250 ints (1000 B), marked ready together (one range; a list out of order;
 * the even ones one by one, then the odd ones as one-partition ranges), epoch after epoch; the
 * receiver checks each partition as MPI_Parrived says it came, and the whole count. */
static void runs(void) {
  enum { RP = 40, RN = 250 };
  static int buf[RP * RN];
  MPI_Request req;
  int sender = init_ints(buf, RP, RN, 10, &req);
  for (int epoch = 0; epoch < 3; ++epoch) {
    for (int i = 0; i < RP * RN; ++i) buf[i] = sender ? epoch * 1000003 + i : -1;
    MPI_Start(&req);
    if (sender && epoch == 0) MPI_Pready_range(0, RP - 1, req);
    if (sender && epoch == 1) {
      int list[RP];
      for (int p = 0; p < RP; ++p) list[p] = (p * 7) % RP; /* 7 and 40 are coprime */
      MPI_Pready_list(RP, list, req);
    }
    if (sender && epoch == 2) {
      for (int p = 0; p < RP; p += 2) MPI_Pready(p, req);
      for (int p = 1; p < RP; p += 2) MPI_Pready_range(p, p, req);
    }
    for (int p = 0, flag = 0; !sender && p < RP; ++p, flag = 0) {
      while (!flag) MPI_Parrived(req, p, &flag);
      for (int i = p * RN; i < (p + 1) * RN; ++i)
        MTEST_CHECK(buf[i] == epoch * 1000003 + i, "runs, epoch %d: buf[%d] = %d once "
                    "partition %d arrived", epoch, i, buf[i], p);
    }
    MPI_Status st;
    MPI_Wait(&req, &st);
    int count = -1;
    MPI_Get_count(&st, MPI_INT, &count);
    MTEST_CHECK(sender || count == RP * RN, "runs, epoch %d: count %d", epoch, count);
  }
  MPI_Request_free(&req);
}

/* Small partitions travel together (GPURUN_PARTITIONED_MESSAGE_SIZE): 30 receive partitions of
 * 10 ints from 4 send partitions of 75 ints and from 12 of 25 strided ints, marked ready one by
 * one, epoch after epoch, each receive partition checked as MPI_Parrived reports it. Then
 * whether a message waits for its other partitions: the sender marks partition 0 of 8 x 16
 * ints ready and sends a note after it; once the note came, partition 0 has not arrived (with
 * GPURUN_PARTITIONED_MESSAGE_SIZE=0 it has: one message per partition). */
static void joined(void) {
  enum { RP = 30, RN = 10 };
  int v[2 * RP * RN], r[RP * RN];
  int sender = rank % 2 == 0;
  MPI_Datatype every_other;
  MPI_Type_vector(1, 1, 2, MPI_INT, &every_other);
  MPI_Type_create_resized(every_other, 0, 2 * sizeof(int), &every_other);
  MPI_Type_commit(&every_other);
  for (int strided = 0; strided < 2; ++strided) {
    MPI_Request req;
    int parts = strided ? 12 : 4, n = RP * RN / parts;
    if (sender)
      MPI_Psend_init(v, parts, n, strided ? every_other : MPI_INT, peer, 12, MPI_COMM_WORLD,
                     MPI_INFO_NULL, &req);
    else
      MPI_Precv_init(r, RP, RN, MPI_INT, peer, 12, MPI_COMM_WORLD, MPI_INFO_NULL, &req);
    for (int epoch = 0; epoch < 3; ++epoch) {
      for (int i = 0; i < RP * RN; ++i) v[strided ? 2 * i : i] = epoch * 1000 + i;
      memset(r, 0xff, sizeof r);
      MPI_Start(&req);
      for (int p = 0; sender && p < parts; ++p) MPI_Pready(p, req);
      for (int p = 0, flag = 0; !sender && p < RP; ++p, flag = 0) {
        while (!flag) MPI_Parrived(req, p, &flag);
        for (int i = p * RN; i < (p + 1) * RN; ++i)
          MTEST_CHECK(r[i] == epoch * 1000 + i, "joined, strided %d epoch %d: r[%d] = %d once "
                      "partition %d arrived", strided, epoch, i, r[i], p);
      }
      MPI_Wait(&req, MPI_STATUS_IGNORE);
    }
    MPI_Request_free(&req);
  }
  MPI_Type_free(&every_other);

  const char *knob = getenv("GPURUN_PARTITIONED_MESSAGE_SIZE");
  int together = knob == NULL || strcmp(knob, "0") != 0, note = 1, flag = 0;
  MPI_Request req;
  init_ints(v, 8, 16, 13, &req);
  MPI_Start(&req);
  if (sender) {
    MPI_Pready(0, req);
    MPI_Send(&note, 1, MPI_INT, peer, 14, MPI_COMM_WORLD);
    MPI_Recv(&note, 1, MPI_INT, peer, 15, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Pready_range(1, 7, req);
  } else {
    MPI_Recv(&note, 1, MPI_INT, peer, 14, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    for (int i = 0; i < 1000 && !flag; ++i) MPI_Parrived(req, 0, &flag);
    while (!together && !flag) MPI_Parrived(req, 0, &flag);
    MTEST_CHECK(flag == !together, "partition 0 of 8 x 64 B %s before the others were ready "
                "(GPURUN_PARTITIONED_MESSAGE_SIZE %s)", flag ? "arrived" : "did not arrive",
                knob ? knob : "unset");
    MPI_Send(&note, 1, MPI_INT, peer, 15, MPI_COMM_WORLD);
  }
  MPI_Wait(&req, MPI_STATUS_IGNORE);
  MPI_Request_free(&req);
}

/* Partitions of no bytes (4 sent, 2 received), and requests of no partitions: each epoch
 * completes on both sides; the receiver's status counts 0. */
static void no_bytes(void) {
  int x = 0, sender = rank % 2 == 0;
  for (int parts = 0; parts <= 4; parts += 4) {
    MPI_Request req;
    if (sender)
      MPI_Psend_init(&x, parts, 0, MPI_INT, peer, 16, MPI_COMM_WORLD, MPI_INFO_NULL, &req);
    else
      MPI_Precv_init(&x, parts / 2, 0, MPI_INT, peer, 16, MPI_COMM_WORLD, MPI_INFO_NULL, &req);
    for (int epoch = 0; epoch < 2; ++epoch) {
      MPI_Status st;
      MPI_Start(&req);
      if (sender && parts > 0) MPI_Pready_range(0, parts - 1, req);
      MPI_Wait(&req, &st);
      int count = -1;
      MPI_Get_count(&st, MPI_INT, &count);
      MTEST_CHECK(sender || count == 0, "no bytes, %d partitions, epoch %d: count %d", parts,
                  epoch, count);
    }
    MPI_Request_free(&req);
  }
}

/* Two requests with one tag: the first init on one side meets the first on the other. */
static void init_order(void) {
  int a[4], b[4];
  MPI_Request ra, rb;
  int sender = rank % 2 == 0;
  for (int i = 0; i < 4; ++i) {
    a[i] = sender ? 10 + i : 0;
    b[i] = sender ? 20 + i : 0;
  }
  if (sender) {
    MPI_Psend_init(a, 2, 2, MPI_INT, peer, 3, MPI_COMM_WORLD, MPI_INFO_NULL, &ra);
    MPI_Psend_init(b, 2, 2, MPI_INT, peer, 3, MPI_COMM_WORLD, MPI_INFO_NULL, &rb);
    MPI_Start(&rb);
    MPI_Pready_range(0, 1, rb);
    MPI_Start(&ra);
    MPI_Pready_range(0, 1, ra);
  } else {
    MPI_Precv_init(a, 2, 2, MPI_INT, peer, 3, MPI_COMM_WORLD, MPI_INFO_NULL, &ra);
    MPI_Precv_init(b, 2, 2, MPI_INT, peer, 3, MPI_COMM_WORLD, MPI_INFO_NULL, &rb);
    MPI_Start(&ra);
    MPI_Start(&rb);
  }
  MPI_Request both[2] = {ra, rb};
  MPI_Waitall(2, both, MPI_STATUSES_IGNORE);
  MPI_Request_free(&ra);
  MPI_Request_free(&rb);
  MTEST_CHECK(a[3] == 13 && b[0] == 20, "init order: a[3] %d, b[0] %d", a[3], b[0]);
}

static void proc_null(void) {
  int x[4];
  MPI_Request req;
  MPI_Psend_init(x, 2, 2, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, MPI_INFO_NULL, &req);
  MPI_Start(&req);
  MPI_Pready(1, req);
  MPI_Pready(0, req);
  MPI_Wait(&req, MPI_STATUS_IGNORE);
  MPI_Request_free(&req);
}

static void errors(void) {
  int x[8];
  MPI_Request req, rreq;
  int rc = MPI_Precv_init(x, 2, 4, MPI_INT, MPI_ANY_SOURCE, 0, MPI_COMM_WORLD, MPI_INFO_NULL,
                          &req);
  MTEST_CHECK(class_of(rc) == MPI_ERR_RANK, "MPI_ANY_SOURCE: rc %d", rc);
  rc = MPI_Precv_init(x, 2, 4, MPI_INT, 0, MPI_ANY_TAG, MPI_COMM_WORLD, MPI_INFO_NULL, &req);
  MTEST_CHECK(class_of(rc) == MPI_ERR_TAG, "MPI_ANY_TAG: rc %d", rc);
  rc = MPI_Psend_init(x, -1, 4, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_INFO_NULL, &req);
  MTEST_CHECK(class_of(rc) == MPI_ERR_COUNT, "partitions -1: rc %d", rc);

  MPI_Psend_init(x, 2, 4, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, MPI_INFO_NULL, &req);
  rc = MPI_Pready(0, req);
  MTEST_CHECK(class_of(rc) == MPI_ERR_REQUEST, "MPI_Pready before MPI_Start: rc %d", rc);
  MPI_Start(&req);
  rc = MPI_Pready(2, req);
  MTEST_CHECK(class_of(rc) == MPI_ERR_ARG, "partition 2 of 2: rc %d", rc);
  MPI_Pready(1, req);
  rc = MPI_Pready(1, req);
  MTEST_CHECK(class_of(rc) == MPI_ERR_ARG, "partition ready twice: rc %d", rc);
  rc = MPI_Pready_range(1, 0, req);
  MTEST_CHECK(class_of(rc) == MPI_ERR_ARG, "an empty range: rc %d", rc);
  int flag;
  rc = MPI_Parrived(req, 0, &flag);
  MTEST_CHECK(class_of(rc) == MPI_ERR_REQUEST, "MPI_Parrived on a send: rc %d", rc);
  MPI_Pready(0, req);
  MPI_Wait(&req, MPI_STATUS_IGNORE);
  MPI_Request_free(&req);

  MPI_Precv_init(x, 2, 4, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, MPI_INFO_NULL, &rreq);
  MPI_Start(&rreq);
  rc = MPI_Pready(0, rreq);
  MTEST_CHECK(class_of(rc) == MPI_ERR_REQUEST, "MPI_Pready on a receive: rc %d", rc);
  MPI_Wait(&rreq, MPI_STATUS_IGNORE);
  MPI_Request_free(&rreq);

  /* 8 ints sent, 6 received: the sender's epoch fails naming both sizes. */
  if (rank % 2 == 0) {
    MPI_Psend_init(x, 2, 4, MPI_INT, peer, 11, MPI_COMM_WORLD, MPI_INFO_NULL, &req);
    MPI_Start(&req);
    MPI_Pready_range(0, 1, req);
    rc = MPI_Wait(&req, MPI_STATUS_IGNORE);
    char text[MPI_MAX_ERROR_STRING];
    int len = 0;
    MPI_Error_string(rc, text, &len);
    MTEST_CHECK(class_of(rc) == MPI_ERR_TRUNCATE && strstr(text, "24 bytes") != NULL,
                "sizes that differ: rc %d \"%s\"", rc, text);
    MPI_Request_free(&req);
  } else {
    MPI_Precv_init(x, 2, 3, MPI_INT, peer, 11, MPI_COMM_WORLD, MPI_INFO_NULL, &rreq);
    MPI_Start(&rreq);
    rc = MPI_Wait(&rreq, MPI_STATUS_IGNORE);
    char text[MPI_MAX_ERROR_STRING];
    int len = 0;
    MPI_Error_string(rc, text, &len);
    MTEST_CHECK(class_of(rc) == MPI_ERR_TRUNCATE && strstr(text, "24 bytes") != NULL,
                "sizes that differ, receiver: rc %d \"%s\"", rc, text);
    MPI_Request_free(&rreq);
  }
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  peer = rank ^ 1;
  if (peer < size) {
    same_partitions();
    other_partitions();
    runs();
    joined();
    no_bytes();
    init_order();
  }
  proc_null();
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  if (peer < size) errors();
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
  MPI_Barrier(MPI_COMM_WORLD);
  return mtest_finalize();
}

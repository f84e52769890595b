/* Kernel-triggered partitioned communication (MPIX_Prequest_create, gpurun/device.cuh), driven
 * by host threads: the device calls compile for the host too, so a thread that makes no MPI
 * call plays the kernel. Between pairs of ranks (0-1, 2-3, ...), 16 partitions, several epochs:
 * the sender's thread marks partitions ready with MPIX_Pready in reverse order, the receiver's
 * thread polls MPIX_Parrived and checks each partition's data as it arrives. In some epochs
 * both main threads stay outside MPI until their thread ended (only the progress helper moves
 * the data), in others they wait in MPI_Wait meanwhile. Then MPI_PROC_NULL, the host calls'
 * errors, and misuse of the device calls: each ends its epoch with MPI_ERR_ARG and a message
 * naming the call and partition, the peer does not hang, and the next epoch works. */
#include <pthread.h>
#include <string.h>

#include <gpurun/device.cuh>

#include "mtest.h"

enum { P = 16, N = 64 };

static int rank, size, peer;

struct marker {
  MPIX_Prequest preq;
  int *buf;
  int epoch;
  int arrived; /* receiver: partitions seen arrived */
};

static int value(int epoch, int i) { return epoch * 1000003 + i; }

static void *mark_ready(void *arg) {
  struct marker *m = arg;
  for (int p = P - 1; p >= 0; --p) {
    for (int i = p * N; i < (p + 1) * N; ++i) m->buf[i] = value(m->epoch, i);
    int rc = MPIX_Pready(p, m->preq);
    MTEST_CHECK(rc == MPI_SUCCESS, "epoch %d: MPIX_Pready(%d) = %d", m->epoch, p, rc);
  }
  return NULL;
}

static void *watch_arrivals(void *arg) {
  struct marker *m = arg;
  int seen[P] = {0};
  while (m->arrived < P) {
    for (int p = 0; p < P; ++p) {
      int flag = 0;
      if (seen[p]) continue;
      int rc = MPIX_Parrived(m->preq, p, &flag);
      MTEST_CHECK(rc == MPI_SUCCESS, "epoch %d: MPIX_Parrived(%d) = %d", m->epoch, p, rc);
      if (rc != MPI_SUCCESS) return NULL;
      if (!flag) continue;
      seen[p] = 1;
      ++m->arrived;
      for (int i = p * N; i < (p + 1) * N; ++i)
        MTEST_CHECK(m->buf[i] == value(m->epoch, i),
                    "epoch %d: buf[%d] = %d once partition %d arrived", m->epoch, i, m->buf[i], p);
    }
  }
  return NULL;
}

/* One epoch driven by a thread; `outside` keeps the main thread out of MPI until it ended. */
static void run_epoch(MPI_Request *req, struct marker *m, int sender, int outside) {
  pthread_t thread;
  if (!sender)
    for (int i = 0; i < P * N; ++i) m->buf[i] = -1;
  m->arrived = 0;
  MPI_Start(req);
  /* Outside: the sender marks only once the receiver has started, so its data arrives while
   * the receiver's main thread is out of MPI. */
  if (outside && sender) MPI_Recv(NULL, 0, MPI_INT, peer, 6, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  if (outside && !sender) MPI_Send(NULL, 0, MPI_INT, peer, 6, MPI_COMM_WORLD);
  pthread_create(&thread, NULL, sender ? mark_ready : watch_arrivals, m);
  if (outside) pthread_join(thread, NULL);
  MPI_Status st;
  int rc = MPI_Wait(req, &st);
  MTEST_CHECK(rc == MPI_SUCCESS, "epoch %d: MPI_Wait = %d", m->epoch, rc);
  if (!outside) pthread_join(thread, NULL);
  if (!sender)
    MTEST_CHECK(m->arrived == P, "epoch %d: %d partitions arrived", m->epoch, m->arrived);
}

/* This rank's side of a pair's partitioned request over `buf`, with its prequest in m->preq. */
static void pair_request(int *buf, int tag, int sender, MPI_Request *req, struct marker *m) {
  if (sender)
    MPI_Psend_init(buf, P, N, MPI_INT, peer, tag, MPI_COMM_WORLD, MPI_INFO_NULL, req);
  else
    MPI_Precv_init(buf, P, N, MPI_INT, peer, tag, MPI_COMM_WORLD, MPI_INFO_NULL, req);
  int rc = MPIX_Prequest_create(*req, &m->preq);
  MTEST_CHECK(rc == MPI_SUCCESS && m->preq != MPIX_PREQUEST_NULL, "MPIX_Prequest_create = %d", rc);
}

static void epochs(void) {
  static int buf[P * N];
  MPI_Request req;
  struct marker m = {MPIX_PREQUEST_NULL, buf, 0, 0};
  int sender = rank % 2 == 0;
  pair_request(buf, 3, sender, &req, &m);
  for (m.epoch = 1; m.epoch <= 6; ++m.epoch) run_epoch(&req, &m, sender, m.epoch % 2 == 0);
  int rc = MPIX_Prequest_free(&m.preq);
  MTEST_CHECK(rc == MPI_SUCCESS && m.preq == MPIX_PREQUEST_NULL, "MPIX_Prequest_free = %d", rc);
  MPI_Request_free(&req);
}

static void proc_null(void) {
  int buf[4];
  MPI_Request req[2];
  MPIX_Prequest preq[2];
  MPI_Psend_init(buf, 2, 2, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, MPI_INFO_NULL, &req[0]);
  MPI_Precv_init(buf, 2, 2, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, MPI_INFO_NULL, &req[1]);
  MPIX_Prequest_create(req[0], &preq[0]);
  MPIX_Prequest_create(req[1], &preq[1]);
  int flag = 0;
  int rc = MPIX_Parrived(preq[1], 0, &flag);
  MTEST_CHECK(rc == MPI_SUCCESS && flag == 1, "MPIX_Parrived before MPI_Start = %d, flag %d", rc,
              flag);
  MPI_Startall(2, req);
  flag = 0;
  rc = MPIX_Pready(1, preq[0]);
  MTEST_CHECK(rc == MPI_SUCCESS, "MPIX_Pready to MPI_PROC_NULL = %d", rc);
  rc = MPIX_Parrived(preq[1], 1, &flag);
  MTEST_CHECK(rc == MPI_SUCCESS && flag == 1, "MPIX_Parrived from MPI_PROC_NULL = %d, flag %d", rc,
              flag);
  MPI_Waitall(2, req, MPI_STATUSES_IGNORE);
  for (int i = 0; i < 2; ++i) {
    MPI_Request_free(&req[i]); /* the prequest outlives its request */
    rc = MPIX_Prequest_free(&preq[i]);
    MTEST_CHECK(rc == MPI_SUCCESS, "MPIX_Prequest_free after MPI_Request_free = %d", rc);
  }
}

/* The host calls' errors (MPI_ERRORS_RETURN on MPI_COMM_WORLD). */
static void host_errors(void) {
  int buf[2];
  MPI_Request plain, part;
  MPIX_Prequest preq = MPIX_PREQUEST_NULL, other;
  MPI_Send_init(buf, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &plain);
  int rc = MPIX_Prequest_create(plain, &preq);
  mtest_expect_error(rc, MPI_ERR_REQUEST, "MPIX_Prequest_create of MPI_Send_init's request",
                     "not a partitioned request");
  MPI_Request_free(&plain);
  MPI_Psend_init(buf, 2, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, MPI_INFO_NULL, &part);
  rc = MPIX_Prequest_create(part, NULL);
  mtest_expect_arg_error(rc, MPI_ERR_ARG, "MPIX_Prequest_create", "prequest");
  MPIX_Prequest_create(part, &preq);
  rc = MPIX_Prequest_create(part, &other);
  mtest_expect_error(rc, MPI_ERR_REQUEST, "a second MPIX_Prequest_create", "prequest already");
  MPI_Start(&part);
  rc = MPIX_Prequest_free(&preq);
  mtest_expect_error(rc, MPI_ERR_REQUEST, "MPIX_Prequest_free while active", "is active");
  MTEST_CHECK(preq != MPIX_PREQUEST_NULL, "a refused MPIX_Prequest_free cleared the handle");
  MPI_Pready_range(0, 1, part);
  MPI_Wait(&part, MPI_STATUS_IGNORE);
  rc = MPIX_Prequest_free(&preq);
  MTEST_CHECK(rc == MPI_SUCCESS, "MPIX_Prequest_free = %d", rc);
  rc = MPIX_Prequest_free(&preq);
  mtest_expect_error(rc, MPI_ERR_REQUEST, "MPIX_Prequest_free twice", "not a prequest");
  MPI_Request_free(&part);
}

/* A misused epoch: `misuse` runs after MPI_Start, before the partitions are marked ready. */
static void misused_epoch(MPI_Request *req, struct marker *m, int sender, int bad_side,
                          void (*misuse)(struct marker *), int error_class, const char *needle) {
  int rc;
  m->epoch++;
  if (!sender)
    for (int i = 0; i < P * N; ++i) m->buf[i] = -1;
  MPI_Start(req);
  if (sender == bad_side && misuse != NULL) misuse(m);
  /* A misuse counts in the epoch the host sees it in: the receiver's comes before its data. */
  if (sender && !bad_side) MPI_Recv(NULL, 0, MPI_INT, peer, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  if (!sender && !bad_side) MPI_Send(NULL, 0, MPI_INT, peer, 5, MPI_COMM_WORLD);
  if (sender) mark_ready(m);
  rc = MPI_Wait(req, MPI_STATUS_IGNORE);
  if (sender == bad_side) {
    mtest_expect_error(rc, error_class, "MPI_Wait after a misuse", needle);
  } else if (sender) {
    mtest_expect_error(rc, MPI_SUCCESS, "MPI_Wait of the sender (its receiver misused)", NULL);
  } else {
    /* The sender's epoch failed: what it had not sent comes too long. */
    mtest_expect_success_or(rc, MPI_ERR_TRUNCATE, MPI_ERR_TRUNCATE,
                            "MPI_Wait of the receiver (its sender misused)", "");
  }
}

static void ready_out_of_range(struct marker *m) {
  MTEST_CHECK(MPIX_Pready(P, m->preq) == MPI_ERR_ARG, "MPIX_Pready(%d) did not fail", P);
}
static void parrived_on_send(struct marker *m) {
  int flag;
  MTEST_CHECK(MPIX_Parrived(m->preq, 0, &flag) == MPI_ERR_ARG, "MPIX_Parrived on a send");
}
static void parrived_out_of_range(struct marker *m) {
  int flag;
  MTEST_CHECK(MPIX_Parrived(m->preq, -1, &flag) == MPI_ERR_ARG, "MPIX_Parrived(-1) did not fail");
}

static void device_misuse(void) {
  static int buf[P * N];
  MPI_Request req;
  struct marker m = {MPIX_PREQUEST_NULL, buf, 100, 0};
  int sender = rank % 2 == 0;
  pair_request(buf, 4, sender, &req, &m);
  if (sender) {
    int rc = MPIX_Pready(0, m.preq);
    MTEST_CHECK(rc == MPI_ERR_REQUEST, "MPIX_Pready before MPI_Start = %d", rc);
  }
  misused_epoch(&req, &m, sender, 1, NULL, MPI_ERR_ARG, "before the request's first MPI_Start");
  misused_epoch(&req, &m, sender, 1, ready_out_of_range, MPI_ERR_ARG,
                "MPIX_Pready(partition 16) through the request's prequest: not a partition of "
                "the request (0..15)");
  misused_epoch(&req, &m, sender, 1, parrived_on_send, MPI_ERR_ARG,
                "MPIX_Parrived(partition 0) through the request's prequest: the prequest is of "
                "a send request");
  misused_epoch(&req, &m, sender, 0, parrived_out_of_range, MPI_ERR_ARG,
                "MPIX_Parrived(partition -1) through the request's prequest: not a partition");
  /* After all that, an epoch as it should be. */
  m.epoch++;
  run_epoch(&req, &m, sender, 0);
  MPIX_Prequest_free(&m.preq);
  MPI_Request_free(&req);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  peer = rank ^ 1;
  if (peer < size) epochs();
  proc_null();
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  host_errors();
  if (peer < size) device_misuse();
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
  /* A request and its prequest left for MPI_Finalize to free. */
  static int left[2];
  MPI_Request left_req;
  MPIX_Prequest left_preq;
  MPI_Precv_init(left, 2, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, MPI_INFO_NULL, &left_req);
  MPIX_Prequest_create(left_req, &left_preq);
  MPI_Barrier(MPI_COMM_WORLD);
  return mtest_finalize();
}

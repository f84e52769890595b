/* MPICH's extended generalized requests: MPIX_Grequest_start with a poll function and a wait
 * function, and MPIX_Grequest_class_create / MPIX_Grequest_class_allocate. Each request wraps a
 * receive from the next rank (a send to itself on one rank) that only its poll or wait function
 * looks at, so a wait returns only if the library calls them: the poll function from every test
 * and wait (MPI_Test, MPI_Wait, MPI_Waitall, MPI_Waitany, MPI_Testsome,
 * MPI_Request_get_status), the wait function once from MPI_Wait and MPI_Waitall as
 * wait_fn(1, &extra_state, 0, status), without the library's lock: another thread completes
 * the request while the wait function blocks for it. A poll function's error is the wait's,
 * after the query and free functions ran; a class that MPIX_Grequest_class_create never gave is
 * MPI_ERR_ARG. */
#include <pthread.h>
#include <string.h>
#include <unistd.h>

#include "mtest.h"

struct op {
  MPI_Request inner; /* the receive the poll or wait function looks at */
  MPI_Request req;   /* the generalized request */
  int value, polls, waits, queries, frees, poll_rc;
  int wait_count, wait_state_ok; /* what the wait function was given */
  double wait_timeout;
};

static int rank, size;

static int query_fn(void *extra, MPI_Status *status) {
  struct op *o = extra;
  o->queries++;
  MPI_Status_set_elements(status, MPI_INT, 1);
  status->MPI_TAG = o->value;
  return MPI_SUCCESS;
}

static int free_fn(void *extra) {
  ((struct op *)extra)->frees++;
  return MPI_SUCCESS;
}

static int poll_fn(void *extra, MPI_Status *status) {
  struct op *o = extra;
  int done = 0;
  (void)status;
  o->polls++;
  if (o->poll_rc != MPI_SUCCESS) return o->poll_rc;
  MPI_Test(&o->inner, &done, MPI_STATUS_IGNORE);
  if (done) MPI_Grequest_complete(o->req);
  return MPI_SUCCESS;
}

static int wait_fn(int count, void **states, double timeout, MPI_Status *status) {
  struct op *o = states[0];
  (void)status;
  o->waits++;
  o->wait_count = count;
  o->wait_timeout = timeout;
  o->wait_state_ok = o->inner != MPI_REQUEST_NULL;
  MPI_Wait(&o->inner, MPI_STATUS_IGNORE);
  MPI_Grequest_complete(o->req);
  return MPI_SUCCESS;
}

/* Posts the receive the request wraps; the value arrives with send(). */
static void post(struct op *o) {
  memset(o, 0, sizeof *o);
  MPI_Irecv(&o->value, 1, MPI_INT, (rank + size - 1) % size, 5, MPI_COMM_WORLD, &o->inner);
}

static void send(int value) { MPI_Send(&value, 1, MPI_INT, (rank + 1) % size, 5, MPI_COMM_WORLD); }

static void expect_done(const struct op *o, int value, const MPI_Status *st, const char *what) {
  MTEST_CHECK(o->value == value && o->queries == 1 && o->frees == 1,
              "%s: value %d (want %d), %d queries, %d frees", what, o->value, value, o->queries,
              o->frees);
  if (st != NULL)
    MTEST_CHECK(st->MPI_TAG == value, "%s: status tag %d, want %d", what, st->MPI_TAG, value);
}

/* MPI_Test says false until the receive is there, then true: only the poll function sees it. */
static void poll_through_test_and_wait(void) {
  struct op o;
  int flag = 1;
  MPI_Status st;
  post(&o);
  MPIX_Grequest_start(query_fn, free_fn, NULL, poll_fn, NULL, &o, &o.req);
  MPI_Test(&o.req, &flag, &st);
  MTEST_CHECK(!flag && o.polls == 1, "MPI_Test before the send: flag %d, %d polls", flag, o.polls);
  MPI_Request_get_status(o.req, &flag, &st);
  MTEST_CHECK(!flag && o.polls == 2, "MPI_Request_get_status: flag %d, %d polls", flag, o.polls);
  MPI_Barrier(MPI_COMM_WORLD); /* nobody sends before every rank has looked */
  send(11);
  MPI_Wait(&o.req, &st);
  MTEST_CHECK(o.req == MPI_REQUEST_NULL && o.polls >= 3, "MPI_Wait: %d polls", o.polls);
  expect_done(&o, 11, &st, "polled by MPI_Wait");
}

/* MPI_Wait calls the wait function once, which completes the request. */
static void wait_function(void) {
  struct op o;
  MPI_Status st;
  post(&o);
  MPIX_Grequest_start(query_fn, free_fn, NULL, NULL, wait_fn, &o, &o.req);
  send(12);
  MPI_Wait(&o.req, &st);
  MTEST_CHECK(o.waits == 1 && o.wait_count == 1 && o.wait_state_ok && o.wait_timeout == 0.0,
              "wait function: %d calls, count %d, state ok %d, timeout %g", o.waits, o.wait_count,
              o.wait_state_ok, o.wait_timeout);
  expect_done(&o, 12, &st, "completed by the wait function");
}

/* A class: two requests of it and a plain receive in one MPI_Waitall, then MPI_Waitany and
 * MPI_Testsome on requests of the class. */
static void class_requests(void) {
  MPIX_Grequest_class cls;
  struct op a, b, c;
  int plain = -1, index = -1, outcount = 0, indices[1];
  MPI_Request reqs[3];
  MPI_Status sts[3];
  MTEST_CHECK(
      MPIX_Grequest_class_create(query_fn, free_fn, NULL, poll_fn, wait_fn, &cls) == MPI_SUCCESS,
      "MPIX_Grequest_class_create failed");
  post(&a);
  post(&b);
  MPIX_Grequest_class_allocate(cls, &a, &a.req);
  MPIX_Grequest_class_allocate(cls, &b, &b.req);
  reqs[0] = a.req;
  reqs[1] = b.req;
  MPI_Irecv(&plain, 1, MPI_INT, (rank + size - 1) % size, 6, MPI_COMM_WORLD, &reqs[2]);
  send(21);
  send(22);
  int v = 23;
  MPI_Send(&v, 1, MPI_INT, (rank + 1) % size, 6, MPI_COMM_WORLD);
  MPI_Waitall(3, reqs, sts);
  MTEST_CHECK(a.waits == 1 && b.waits == 1 && plain == 23, "Waitall: waits %d %d, plain %d",
              a.waits, b.waits, plain);
  expect_done(&a, 21, &sts[0], "class request a");
  expect_done(&b, 22, &sts[1], "class request b");

  post(&c);
  MPIX_Grequest_class_allocate(cls, &c, &c.req);
  MPI_Testsome(1, &c.req, &outcount, indices, MPI_STATUSES_IGNORE);
  MTEST_CHECK(outcount == 0 && c.polls == 1, "Testsome: outcount %d, %d polls", outcount, c.polls);
  MPI_Barrier(MPI_COMM_WORLD);
  send(24);
  MPI_Waitany(1, &c.req, &index, &sts[0]);
  MTEST_CHECK(index == 0 && c.waits == 0 && c.polls >= 2, "Waitany: index %d, %d waits", index,
              c.waits);
  expect_done(&c, 24, &sts[0], "class request through Waitany");
}

/* MPI_THREAD_MULTIPLE: the wait function blocks until another thread, which calls MPI, has
 * completed the request. */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t completed = PTHREAD_COND_INITIALIZER;
static int done_by_thread;

static void *complete_later(void *arg) {
  usleep(20000);
  MPI_Grequest_complete(*(MPI_Request *)arg);
  pthread_mutex_lock(&lock);
  done_by_thread = 1;
  pthread_cond_signal(&completed);
  pthread_mutex_unlock(&lock);
  return NULL;
}

static int wait_for_thread(int count, void **states, double timeout, MPI_Status *status) {
  (void)count, (void)states, (void)timeout, (void)status;
  pthread_mutex_lock(&lock);
  while (!done_by_thread) pthread_cond_wait(&completed, &lock);
  pthread_mutex_unlock(&lock);
  return MPI_SUCCESS;
}

static void wait_function_unlocked(void) {
  MPI_Request req;
  pthread_t t;
  MPIX_Grequest_start(NULL, NULL, NULL, NULL, wait_for_thread, NULL, &req);
  MPI_Request copy = req;
  pthread_create(&t, NULL, complete_later, &copy);
  int rc = MPI_Wait(&req, MPI_STATUS_IGNORE);
  pthread_join(t, NULL);
  MTEST_CHECK(rc == MPI_SUCCESS && done_by_thread && req == MPI_REQUEST_NULL,
              "wait function with another thread: rc %d, done %d", rc, done_by_thread);
}

/* A poll function that fails: the wait reports it, and the program's state is released. */
static void failing_poll(void) {
  struct op o;
  int err_class = -1;
  post(&o);
  o.poll_rc = MPI_ERR_IO;
  MPIX_Grequest_start(query_fn, free_fn, NULL, poll_fn, NULL, &o, &o.req);
  int rc = MPI_Wait(&o.req, MPI_STATUS_IGNORE);
  MPI_Error_class(rc, &err_class);
  mtest_expect_error(rc, MPI_ERR_IO, "poll function failing", "poll function");
  MTEST_CHECK(o.req == MPI_REQUEST_NULL && o.polls == 1 && o.queries == 1 && o.frees == 1,
              "after the failure: %d polls, %d queries, %d frees", o.polls, o.queries, o.frees);
  send(31);
  MPI_Wait(&o.inner, MPI_STATUS_IGNORE);
}

static void bad_arguments(void) {
  MPI_Request req;
  mtest_expect_arg_error(MPIX_Grequest_class_allocate(12345, NULL, &req), MPI_ERR_ARG,
                         "MPIX_Grequest_class_allocate", "greq_class");
  mtest_expect_arg_error(MPIX_Grequest_class_create(NULL, NULL, NULL, NULL, NULL, NULL),
                         MPI_ERR_ARG, "MPIX_Grequest_class_create", "greq_class");
  mtest_expect_arg_error(MPIX_Grequest_start(NULL, NULL, NULL, NULL, NULL, NULL, NULL), MPI_ERR_ARG,
                         "MPIX_Grequest_start", "request");
}

int main(int argc, char **argv) {
  int provided;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  poll_through_test_and_wait();
  wait_function();
  class_requests();
  if (provided == MPI_THREAD_MULTIPLE) wait_function_unlocked();
  failing_poll();
  bad_arguments();
  return mtest_finalize();
}

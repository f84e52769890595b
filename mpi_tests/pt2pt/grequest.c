/* Generalized requests: a request the program completes itself (MPI_Grequest_start,
 * MPI_Grequest_complete), here from a thread of its own while the main thread waits. The wait
 * gives the status the query function wrote, then the free function runs once; MPI_Test says
 * false until the program completes it; MPI_Request_get_status runs only the query function;
 * MPI_Cancel passes whether the request completed; MPI_Request_free before completion frees it
 * at MPI_Grequest_complete; Waitall mixes it with a receive; a query function's error is the
 * wait's error (MPI_ERR_IN_STATUS in Waitall); MPI_Grequest_complete twice, or on a request
 * that is not generalized, is MPI_ERR_REQUEST. */
#include <pthread.h>
#include <string.h>
#include <unistd.h>

#include "mtest.h"

struct op {
  int queries, frees, cancels, last_complete_flag;
  int query_rc, free_rc;
  MPI_Request req;
  int delay_us;
};

static int query_fn(void *extra, MPI_Status *status) {
  struct op *o = extra;
  o->queries++;
  MPI_Status_set_elements(status, MPI_INT, 5);
  MPI_Status_set_cancelled(status, 0);
  status->MPI_SOURCE = 3;
  status->MPI_TAG = 77;
  return o->query_rc;
}

static int free_fn(void *extra) {
  struct op *o = extra;
  o->frees++;
  return o->free_rc;
}

static int cancel_fn(void *extra, int complete) {
  struct op *o = extra;
  o->cancels++;
  o->last_complete_flag = complete;
  return MPI_SUCCESS;
}

static int class_of(int rc) {
  int error_class = -1;
  MPI_Error_class(rc, &error_class);
  return error_class;
}

static void *completer(void *arg) {
  struct op *o = arg;
  usleep(o->delay_us);
  MPI_Grequest_complete(o->req);
  return NULL;
}

static void start(struct op *o) {
  memset(o, 0, sizeof *o);
  int rc = MPI_Grequest_start(query_fn, free_fn, cancel_fn, o, &o->req);
  MTEST_CHECK(rc == MPI_SUCCESS && o->req != MPI_REQUEST_NULL, "MPI_Grequest_start rc %d", rc);
}

static void completed_by_a_thread(void) {
  struct op o;
  start(&o);
  int flag = -1;
  MPI_Status st;
  MPI_Test(&o.req, &flag, &st);
  MTEST_CHECK(flag == 0 && o.queries == 0, "MPI_Test before completion: flag %d", flag);
  o.delay_us = 20000;
  pthread_t t;
  pthread_create(&t, NULL, completer, &o);
  MPI_Request saved = o.req;
  int rc = MPI_Wait(&o.req, &st);
  pthread_join(t, NULL);
  int count = -1;
  MPI_Get_count(&st, MPI_INT, &count);
  MTEST_CHECK(rc == MPI_SUCCESS, "MPI_Wait rc %d", rc);
  MTEST_CHECK(o.req == MPI_REQUEST_NULL, "the handle stays %#x after the wait", o.req);
  MTEST_CHECK(st.MPI_SOURCE == 3 && st.MPI_TAG == 77 && count == 5,
              "status: source %d tag %d count %d", st.MPI_SOURCE, st.MPI_TAG, count);
  MTEST_CHECK(o.queries == 1 && o.frees == 1, "query ran %d times, free %d", o.queries, o.frees);
  rc = MPI_Grequest_complete(saved);
  MTEST_CHECK(class_of(rc) == MPI_ERR_REQUEST, "MPI_Grequest_complete on a freed request: rc %d", rc);
}

static void get_status_and_cancel(void) {
  struct op o;
  start(&o);
  int flag = -1;
  MPI_Status st;
  MPI_Request_get_status(o.req, &flag, &st);
  MTEST_CHECK(flag == 0 && o.queries == 0, "get_status before completion: flag %d", flag);
  MPI_Cancel(&o.req);
  MTEST_CHECK(o.cancels == 1 && o.last_complete_flag == 0, "cancel: %d calls, complete %d",
              o.cancels, o.last_complete_flag);
  MPI_Grequest_complete(o.req);
  int rc = MPI_Grequest_complete(o.req);
  MTEST_CHECK(class_of(rc) == MPI_ERR_REQUEST, "MPI_Grequest_complete twice: rc %d", rc);
  MPI_Cancel(&o.req);
  MTEST_CHECK(o.cancels == 2 && o.last_complete_flag == 1, "cancel after completion: complete %d",
              o.last_complete_flag);
  MPI_Request_get_status(o.req, &flag, &st);
  MTEST_CHECK(flag == 1 && o.queries == 1 && o.frees == 0 && st.MPI_TAG == 77,
              "get_status: flag %d, %d queries, %d frees, tag %d", flag, o.queries, o.frees,
              st.MPI_TAG);
  MPI_Test(&o.req, &flag, MPI_STATUS_IGNORE);
  MTEST_CHECK(flag == 1 && o.req == MPI_REQUEST_NULL && o.queries == 2 && o.frees == 1,
              "MPI_Test: flag %d, %d queries, %d frees", flag, o.queries, o.frees);
}

static void freed_before_completion(void) {
  struct op o;
  start(&o);
  MPI_Request saved = o.req;
  MPI_Request_free(&o.req);
  MTEST_CHECK(o.req == MPI_REQUEST_NULL && o.frees == 0, "free before completion: %d frees",
              o.frees);
  MPI_Grequest_complete(saved);
  MTEST_CHECK(o.frees == 1 && o.queries == 0, "after completion: %d frees, %d queries", o.frees,
              o.queries);
  start(&o);
  MPI_Grequest_complete(o.req);
  MPI_Request_free(&o.req);
  MTEST_CHECK(o.frees == 1 && o.queries == 0, "free after completion: %d frees", o.frees);
}

static void mixed_with_a_receive(int rank, int size) {
  int peer = rank ^ 1, in = -1, out = rank;
  if (peer >= size) return;
  struct op o;
  start(&o);
  MPI_Request reqs[2];
  MPI_Irecv(&in, 1, MPI_INT, peer, 5, MPI_COMM_WORLD, &reqs[0]);
  reqs[1] = o.req;
  o.delay_us = 5000;
  pthread_t t;
  pthread_create(&t, NULL, completer, &o);
  MPI_Send(&out, 1, MPI_INT, peer, 5, MPI_COMM_WORLD);
  MPI_Status sts[2];
  int rc = MPI_Waitall(2, reqs, sts);
  pthread_join(t, NULL);
  MTEST_CHECK(rc == MPI_SUCCESS && in == peer, "Waitall rc %d, received %d", rc, in);
  MTEST_CHECK(sts[0].MPI_SOURCE == peer && sts[1].MPI_TAG == 77, "statuses: %d, %d",
              sts[0].MPI_SOURCE, sts[1].MPI_TAG);
  MTEST_CHECK(reqs[0] == MPI_REQUEST_NULL && reqs[1] == MPI_REQUEST_NULL, "handles not nulled");
}

static void errors(void) {
  struct op o;
  start(&o);
  o.query_rc = MPI_ERR_OTHER;
  MPI_Grequest_complete(o.req);
  int rc = MPI_Wait(&o.req, MPI_STATUS_IGNORE);
  char text[MPI_MAX_ERROR_STRING];
  int len = 0;
  MPI_Error_string(rc, text, &len);
  MTEST_CHECK(class_of(rc) == MPI_ERR_OTHER && strstr(text, "query function") != NULL,
              "a failing query function: class %d, \"%s\"", class_of(rc), text);
  MTEST_CHECK(o.frees == 1 && o.req == MPI_REQUEST_NULL, "the failed request was not freed");

  start(&o);
  o.free_rc = MPI_ERR_ARG;
  MPI_Request reqs[2] = {MPI_REQUEST_NULL, o.req};
  MPI_Status sts[2];
  MPI_Grequest_complete(o.req);
  rc = MPI_Waitall(2, reqs, sts);
  MTEST_CHECK(class_of(rc) == MPI_ERR_IN_STATUS && sts[1].MPI_ERROR == MPI_ERR_ARG,
              "a failing free function in Waitall: rc %d, MPI_ERROR %d", rc, sts[1].MPI_ERROR);

  MPI_Request send;
  int x = 0;
  MPI_Isend(&x, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &send);
  rc = MPI_Grequest_complete(send);
  MTEST_CHECK(class_of(rc) == MPI_ERR_REQUEST, "MPI_Grequest_complete on a send request: rc %d", rc);
  MPI_Wait(&send, MPI_STATUS_IGNORE);
  rc = MPI_Grequest_start(query_fn, free_fn, cancel_fn, &o, NULL);
  MTEST_CHECK(class_of(rc) == MPI_ERR_ARG, "MPI_Grequest_start with a null request: rc %d", rc);
}

int main(int argc, char **argv) {
  int provided, rank, size;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  MTEST_CHECK(provided == MPI_THREAD_MULTIPLE, "provided %d", provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  completed_by_a_thread();
  get_status_and_cancel();
  freed_before_completion();
  mixed_with_a_receive(rank, size);
  errors();
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
  return mtest_finalize();
}

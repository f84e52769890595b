// Partitioned communication (MPI-4): MPI_Psend_init, MPI_Precv_init, MPI_Pready(_range,
// _list) and MPI_Parrived; MPI_Start(all), the completion calls and MPI_Request_free take the
// requests as they take other persistent ones.
//
// Matching: MPI_Precv_init sends its sender a setup message (the pml's kPartitionSetup
// channel, the program's tag): the first of a block of data tags reserved for it, its
// partition count and the bytes of one partition. MPI_Psend_init posts the receive for it.
// The pml keeps messages of one (source, tag) in order, so the n-th MPI_Psend_init to a rank
// with a tag meets that rank's n-th MPI_Precv_init from it with that tag, as MPI requires.
// Data: each of the receiver's partitions travels as one message (kPartitionData channel, tag
// = first tag + partition), sent as soon as every sender partition it takes bytes from is
// ready and the setup message has arrived; the receiver posts one receive per partition at
// MPI_Start, straight into the partition, and MPI_Parrived looks at that receive. Where the two
// sides' partitions hold the same bytes, a partition moves from the sender's buffer as it is;
// otherwise from a contiguous buffer directly, or packed first.
#include "api/partitioned.h"

#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "api/checks.h"
#include "api/datatypes.h"
#include "api/pt2pt.h"
#include "api/requests.h"

namespace gpurun::api {
namespace {

// What the receiver tells its sender.
struct Setup {
  std::int32_t first_tag = 0;
  std::int32_t partitions = 0;
  std::int64_t partition_bytes = 0;
};

// Data tags handed out so far by this process's MPI_Precv_init calls.
std::int64_t g_data_tags = 0;

struct Partitioned {
  core::Request* request = nullptr;  // the program's
  bool send = false;
  int partitions = 0;
  std::int64_t count = 0;  // elements of `type` per partition
  std::int64_t partition_bytes = 0;
  Setup setup;  // the receiver's: sent (receiver) or received (sender)
  bool setup_known = false;
  ErrorCode setup_error = ErrorCode::kOk;  // the setup failed or does not fit: every epoch fails
  core::Request* setup_request = nullptr;  // the setup's sub-request while the pml holds it
  std::vector<std::uint8_t> done;          // per partition of this epoch: ready (send) or arrived
  std::vector<std::uint8_t> sent;          // sender: per receiver partition, handed to the pml
  std::vector<std::unique_ptr<std::byte[]>> packed;  // sender: receiver partitions packed
  std::vector<std::byte> too_long;  // sender: a partition's bytes and one, for a mismatch
  int pending = 0;                  // receiver partitions of this epoch not yet moved
  int in_flight = 0;                // sub-requests the pml holds
  bool freed = false;               // MPI_Request_free came; goes when in_flight is 0
  ErrorCode error = ErrorCode::kOk;

  core::Request& r() const { return *request; }
  std::byte* base() const { return static_cast<std::byte*>(request->buffer); }
};

Partitioned* partitioned_of(const core::Request* r) { return static_cast<Partitioned*>(r->owner); }

void maybe_delete(Partitioned* p) {
  if (p->freed && p->in_flight == 0) delete p;
}

// A sub-request for the pml: goes back to the pool by itself when it completes.
core::Request* sub_request(Partitioned* p, void (*done)(core::Request*)) {
  core::Request* s = the_pml().requests().allocate();
  s->owner = p;
  s->on_complete = done;
  s->orphan = true;
  ++p->in_flight;
  return s;
}

// A sub-request whose completion only ends the pml's hold.
void released(core::Request* s) {
  auto* p = static_cast<Partitioned*>(s->owner);
  --p->in_flight;
  maybe_delete(p);
}

void epoch_done(Partitioned* p) {
  core::Request& r = p->r();
  r.status = core::MessageStatus{
      p->send ? -1 : r.peer, p->send ? -1 : r.tag, p->error,
      p->send ? 0 : static_cast<std::uint64_t>(p->partition_bytes * p->partitions), false};
  r.set_complete();
}

void moved(Partitioned* p, ErrorCode error) {
  if (error != ErrorCode::kOk && p->error == ErrorCode::kOk) p->error = error;
  if (--p->pending == 0 && p->request != nullptr && p->r().active) epoch_done(p);
}

void partition_sent(core::Request* s) {
  auto* p = static_cast<Partitioned*>(s->owner);
  --p->in_flight;
  if (!p->freed) moved(p, s->status.error);
  maybe_delete(p);
}

void partition_arrived(core::Request* s) {
  auto* p = static_cast<Partitioned*>(s->owner);
  --p->in_flight;
  if (!p->freed) {
    auto j = static_cast<std::size_t>(s->status.tag - p->setup.first_tag);
    if (s->status.error == ErrorCode::kOk && j < p->done.size()) p->done[j] = 1;
    if (s->status.error == ErrorCode::kTruncated && p->error == ErrorCode::kOk) {
      note_failure(p->request, "the matching MPI_Psend_init does not send the " +
                                   std::to_string(p->partition_bytes * p->partitions) +
                                   " bytes this MPI_Precv_init receives");
    }
    moved(p, s->status.error);
  }
  maybe_delete(p);
}

// Sender: whether every sender partition that receiver partition j takes bytes from is ready.
bool covered(const Partitioned& p, int j) {
  std::int64_t rb = p.setup.partition_bytes, sb = p.partition_bytes;
  if (sb == 0) return true;
  std::int64_t first = j * rb / sb, last = ((j + 1) * rb - 1) / sb;
  for (std::int64_t i = first; i <= last && i < p.partitions; ++i)
    if (!p.done[static_cast<std::size_t>(i)]) return false;
  return true;
}

// Sender: hands receiver partition j to the pml.
void send_partition(Partitioned* p, int j) {
  core::Request& r = p->r();
  std::int64_t bytes = p->setup.partition_bytes;
  pml::SendArgs a{r.comm,
                  nullptr,
                  0,
                  r.datatype,
                  r.peer,
                  p->setup.first_tag + j,
                  pml::SendMode::kStandard,
                  pml::Channel::kPartitionData,
                  r.memory};
  if (bytes == p->partition_bytes) {
    a.buf = p->base() + j * p->count * r.datatype->extent();
    a.count = p->count;
  } else if (r.datatype->contiguous()) {
    a.buf = p->base() + r.datatype->true_lb() + j * bytes;
    a.type = find_datatype(MPI_BYTE);
    a.count = bytes;
  } else {
    auto& copy = p->packed[static_cast<std::size_t>(j)];
    if (!copy) copy = std::make_unique<std::byte[]>(static_cast<std::size_t>(bytes));
    r.datatype->pack(p->base(), p->count * p->partitions, static_cast<std::size_t>(j * bytes),
                     copy.get(), static_cast<std::size_t>(bytes));
    a.buf = copy.get();
    a.type = find_datatype(MPI_BYTE);
    a.count = bytes;
  }
  p->sent[static_cast<std::size_t>(j)] = 1;
  core::Request* s = sub_request(p, partition_sent);
  if (Status st = the_pml().isend(a, s); !st.ok()) {
    --p->in_flight;
    the_pml().requests().release(s);
    moved(p, st.code());
  }
}

// Sender: sends every receiver partition whose bytes are all ready and not sent yet.
void send_ready(Partitioned* p) {
  if (!p->setup_known || !p->r().active) return;
  for (int j = 0; j < p->setup.partitions; ++j)
    if (!p->sent[static_cast<std::size_t>(j)] && covered(*p, j)) send_partition(p, j);
}

// An epoch that cannot move: it completes at once with the setup's error.
// Sender whose receiver takes another number of bytes: each receiver partition gets one byte
// too many, so that the receiver's epoch fails too (MPI_ERR_TRUNCATE) instead of waiting.
void send_too_long(Partitioned* p) {
  core::Request& r = p->r();
  p->too_long.resize(static_cast<std::size_t>(p->setup.partition_bytes + 1));
  for (int j = 0; j < p->setup.partitions; ++j) {
    pml::SendArgs a{r.comm,
                    p->too_long.data(),
                    static_cast<std::int64_t>(p->too_long.size()),
                    find_datatype(MPI_BYTE),
                    r.peer,
                    p->setup.first_tag + j,
                    pml::SendMode::kStandard,
                    pml::Channel::kPartitionData};
    core::Request* s = sub_request(p, released);
    if (!the_pml().isend(a, s).ok()) {
      --p->in_flight;
      the_pml().requests().release(s);
    }
  }
}

void fail_epoch(Partitioned* p) {
  p->error = p->setup_error;
  if (p->send && p->setup_error == ErrorCode::kTruncated) {
    note_failure(p->request, "the matching MPI_Precv_init receives " +
                                 std::to_string(p->setup.partition_bytes * p->setup.partitions) +
                                 " bytes, this MPI_Psend_init sends " +
                                 std::to_string(p->partition_bytes * p->partitions));
    send_too_long(p);
  }
  epoch_done(p);
}

void start_send_epoch(Partitioned* p) {
  p->sent.assign(static_cast<std::size_t>(p->setup.partitions), 0);
  p->packed.resize(static_cast<std::size_t>(p->setup.partitions));
  p->pending = p->setup.partitions;
  if (p->pending == 0) epoch_done(p);
}

// Sender: the setup (or its failure) is known; an epoch already started goes on.
void setup_arrived(core::Request* s) {
  auto* p = static_cast<Partitioned*>(s->owner);
  --p->in_flight;
  p->setup_request = nullptr;
  if (!p->freed) {
    std::int64_t theirs = p->setup.partition_bytes * p->setup.partitions;
    std::int64_t ours = p->partition_bytes * p->partitions;
    p->setup_error = s->status.error;
    if (p->setup_error == ErrorCode::kOk && theirs != ours) p->setup_error = ErrorCode::kTruncated;
    p->setup_known = p->setup_error == ErrorCode::kOk;
    if (p->r().active && p->setup_known) {
      start_send_epoch(p);
      send_ready(p);
    } else if (p->r().active) {
      fail_epoch(p);
    }
  }
  maybe_delete(p);
}

void setup_sent(core::Request* s) {
  auto* p = static_cast<Partitioned*>(s->owner);
  --p->in_flight;
  p->setup_request = nullptr;
  if (!p->freed && s->status.error != ErrorCode::kOk) p->setup_error = s->status.error;
  maybe_delete(p);
}

Status post_setup(Partitioned* p) {
  core::Request& r = p->r();
  pml::Pml& pml = the_pml();
  const core::Datatype* bytes = find_datatype(MPI_BYTE);
  core::Request* s = sub_request(p, p->send ? setup_arrived : setup_sent);
  Status st =
      p->send ? pml.irecv(pml::RecvArgs{r.comm, &p->setup, sizeof(Setup), bytes, r.peer, r.tag,
                                        pml::Channel::kPartitionSetup},
                          s)
              : pml.isend(pml::SendArgs{r.comm, &p->setup, sizeof(Setup), bytes, r.peer, r.tag,
                                        pml::SendMode::kStandard, pml::Channel::kPartitionSetup},
                          s);
  if (!st.ok()) {
    --p->in_flight;
    pml.requests().release(s);
  } else if (!s->complete()) {
    p->setup_request = s;
  }
  return st;
}

}  // namespace

// MPI_Start of a partitioned request (api/persistent.cc): a new epoch.
int start_partitioned(const Call& call, core::Request* r) {
  Partitioned* p = partitioned_of(r);
  r->active = true;
  r->reset_complete();
  p->error = ErrorCode::kOk;
  p->done.assign(static_cast<std::size_t>(p->partitions), 0);
  if (r->peer == MPI_PROC_NULL) {
    r->status = proc_null_status();
    r->set_complete();
    return MPI_SUCCESS;
  }
  if (p->setup_error != ErrorCode::kOk) {
    fail_epoch(p);
    return MPI_SUCCESS;
  }
  if (p->send) {
    if (p->setup_known) start_send_epoch(p);
    return MPI_SUCCESS;
  }
  p->pending = p->partitions;
  if (p->pending == 0) epoch_done(p);
  for (int j = 0; j < p->partitions; ++j) {
    core::Request* s = sub_request(p, partition_arrived);
    pml::RecvArgs a{r->comm,
                    p->base() + j * p->count * r->datatype->extent(),
                    p->count,
                    r->datatype,
                    r->peer,
                    p->setup.first_tag + j,
                    pml::Channel::kPartitionData,
                    r->memory};
    if (Status st = the_pml().irecv(a, s); !st.ok()) {
      --p->in_flight;
      the_pml().requests().release(s);
      return raise_status(call, comm_handle_of(r), st);  // an internal failure: not recovered
    }
  }
  return MPI_SUCCESS;
}

int free_partitioned(core::Request* r) {
  Partitioned* p = partitioned_of(r);
  p->freed = true;
  // A sender's setup receive whose receiver never came would stay posted.
  if (p->send && p->setup_request != nullptr) (void)the_pml().cancel(p->setup_request);
  p->request = nullptr;
  r->owner = nullptr;
  release_request(r);
  maybe_delete(p);
  return MPI_SUCCESS;
}

namespace {

int make_partitioned(const Call& call, bool send, void* buf, int partitions, MPI_Count count,
                     MPI_Datatype datatype, int peer, int tag, MPI_Comm comm,
                     MPI_Request* request) {
  GPURUN_CHECK_NOT_NULL(comm, request);
  if (partitions < 0)
    return raise(call, comm, MPI_ERR_COUNT, "argument partitions %d is negative", partitions);
  GPURUN_CHECK_COUNT(comm, count);
  MPI_Count total = count * partitions;
  Resolved res;
  int rc =
      send ? check_send(call,
                        send_call(buf, total, datatype, peer, tag, comm, pml::SendMode::kStandard),
                        &res)
           : check_recv(call, recv_call(buf, total, datatype, peer, tag, comm), &res);
  if (rc != MPI_SUCCESS) return rc;
  if (res.memory != accel::MemoryKind::kHost && !res.type->contiguous())
    return raise_status(call, comm, pml::device_type_error(*res.type));
  if (peer == MPI_ANY_SOURCE || tag == MPI_ANY_TAG) {
    return raise(call, comm, peer == MPI_ANY_SOURCE ? MPI_ERR_RANK : MPI_ERR_TAG,
                 "argument %s is a wildcard, which partitioned receives do not take",
                 peer == MPI_ANY_SOURCE ? "source (MPI_ANY_SOURCE)" : "tag (MPI_ANY_TAG)");
  }
  auto* p = new Partitioned;
  p->send = send;
  p->partitions = partitions;
  p->count = count;
  p->partition_bytes = count * res.type->size();
  if (!send) {
    if (g_data_tags + partitions > kTagUpperBound) {
      delete p;
      return raise(call, comm, MPI_ERR_INTERN,
                   "this process has used up the tags of partitioned receives (%lld)",
                   static_cast<long long>(g_data_tags));
    }
    p->setup = Setup{static_cast<std::int32_t>(g_data_tags), partitions, p->partition_bytes};
    g_data_tags += partitions;
  }
  core::Request* r = the_pml().requests().allocate();
  r->persistent = true;
  r->kind = core::RequestKind::kPartitioned;
  r->comm = res.entry->comm.get();
  r->buffer = buf;
  r->memory = res.memory;
  r->count = total;
  r->datatype = res.type;
  r->peer = peer;
  r->tag = tag;
  r->owner = p;
  p->request = r;
  hold_datatype(r);
  if (peer != MPI_PROC_NULL) {
    if (Status st = post_setup(p); !st.ok()) {
      free_partitioned(r);
      return raise_status(call, comm, st);
    }
  }
  *request = handle_of(r);
  return MPI_SUCCESS;
}

// The active partitioned request of `handle` on the side `send`; otherwise reports why.
int active_partitioned(const Call& call, MPI_Request handle, bool send, Partitioned** out) {
  core::Request* r = find_request(handle);
  if (r == nullptr) return bad_request(call, "request", handle);
  if (r->kind != core::RequestKind::kPartitioned || partitioned_of(r)->send != send) {
    return raise(call, comm_handle_of(r), MPI_ERR_REQUEST,
                 "argument request (0x%x) is not a partitioned %s request (%s)",
                 static_cast<unsigned>(handle), send ? "send" : "receive",
                 send ? "MPI_Psend_init" : "MPI_Precv_init");
  }
  if (!r->active) {
    return raise(call, comm_handle_of(r), MPI_ERR_REQUEST,
                 "argument request (0x%x) is not active: start it with MPI_Start first",
                 static_cast<unsigned>(handle));
  }
  *out = partitioned_of(r);
  return MPI_SUCCESS;
}

int check_partition(const Call& call, const Partitioned& p, const char* arg, int partition) {
  if (partition >= 0 && partition < p.partitions) return MPI_SUCCESS;
  return raise(call, comm_handle_of(p.request), MPI_ERR_ARG,
               "argument %s %d is not a partition of the request (0..%d)", arg, partition,
               p.partitions - 1);
}

int mark_ready(const Call& call, Partitioned* p, int partition) {
  auto& ready = p->done[static_cast<std::size_t>(partition)];
  if (ready) {
    return raise(call, comm_handle_of(p->request), MPI_ERR_ARG,
                 "partition %d was already marked ready in this epoch", partition);
  }
  ready = 1;
  return MPI_SUCCESS;
}

// MPI_Pready, _range and _list: partitions first..first+n-1, or those of `list`.
int pready(const Call& call, MPI_Request request, int n, int first, const int* list) {
  Partitioned* p = nullptr;
  if (int rc = active_partitioned(call, request, true, &p); rc != MPI_SUCCESS) return rc;
  if (n < 0)
    return raise(call, comm_handle_of(p->request), MPI_ERR_ARG, "argument length %d is negative",
                 n);
  char arg[48];
  for (int i = 0; i < n; ++i) {
    int partition = list != nullptr ? list[i] : first + i;
    std::snprintf(arg, sizeof arg, list != nullptr ? "array_of_partitions[%d]" : "partition", i);
    if (int rc = check_partition(call, *p, arg, partition); rc != MPI_SUCCESS) return rc;
    if (int rc = mark_ready(call, p, partition); rc != MPI_SUCCESS) return rc;
  }
  if (p->r().peer != MPI_PROC_NULL) send_ready(p);
  return MPI_SUCCESS;
}

int parrived(const Call& call, MPI_Request request, int partition, int* flag) {
  GPURUN_CHECK_NOT_NULL(MPI_COMM_NULL, flag);
  if (core::Request* r = find_request(request);
      r != nullptr && !r->active && r->kind == core::RequestKind::kPartitioned) {
    *flag = 1;  // an inactive request has nothing on its way
    return MPI_SUCCESS;
  }
  Partitioned* p = nullptr;
  if (int rc = active_partitioned(call, request, false, &p); rc != MPI_SUCCESS) return rc;
  if (int rc = check_partition(call, *p, "partition", partition); rc != MPI_SUCCESS) return rc;
  auto j = static_cast<std::size_t>(partition);
  if (!p->done[j] && p->r().peer != MPI_PROC_NULL) progress::engine().poll();
  *flag = p->done[j] || p->r().peer == MPI_PROC_NULL;
  return MPI_SUCCESS;
}

}  // namespace
}  // namespace gpurun::api

using namespace gpurun::api;  // NOLINT(google-build-using-namespace): the C API's own layer

extern "C" int PMPI_Psend_init(const void* buf, int partitions, MPI_Count count,
                               MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
                               MPI_Info /*info*/, MPI_Request* request) {
  GPURUN_API_ENTER("MPI_Psend_init");
  return make_partitioned(call, true, const_cast<void*>(buf), partitions, count, datatype, dest,
                          tag, comm, request);
}

extern "C" int PMPI_Precv_init(void* buf, int partitions, MPI_Count count, MPI_Datatype datatype,
                               int source, int tag, MPI_Comm comm, MPI_Info /*info*/,
                               MPI_Request* request) {
  GPURUN_API_ENTER("MPI_Precv_init");
  return make_partitioned(call, false, buf, partitions, count, datatype, source, tag, comm,
                          request);
}

extern "C" int PMPI_Pready(int partition, MPI_Request request) {
  GPURUN_API_ENTER("MPI_Pready");
  return pready(call, request, 1, partition, nullptr);
}

extern "C" int PMPI_Pready_range(int partition_low, int partition_high, MPI_Request request) {
  GPURUN_API_ENTER("MPI_Pready_range");
  if (partition_high < partition_low) {
    return raise(call, MPI_COMM_NULL, MPI_ERR_ARG,
                 "argument partition_high %d is below partition_low %d", partition_high,
                 partition_low);
  }
  return pready(call, request, partition_high - partition_low + 1, partition_low, nullptr);
}

extern "C" int PMPI_Pready_list(int length, int array_of_partitions[], MPI_Request request) {
  GPURUN_API_ENTER("MPI_Pready_list");
  if (length > 0 && array_of_partitions == nullptr) {
    return raise(call, MPI_COMM_NULL, MPI_ERR_ARG,
                 "argument array_of_partitions is a null pointer with length %d", length);
  }
  return pready(call, request, length, 0, length > 0 ? array_of_partitions : nullptr);
}

extern "C" int PMPI_Parrived(MPI_Request request, int partition, int* flag) {
  GPURUN_API_ENTER("MPI_Parrived");
  return parrived(call, request, partition, flag);
}

GPURUN_MPI_ALIAS(MPI_Psend_init)
GPURUN_MPI_ALIAS(MPI_Precv_init)
GPURUN_MPI_ALIAS(MPI_Pready)
GPURUN_MPI_ALIAS(MPI_Pready_range)
GPURUN_MPI_ALIAS(MPI_Pready_list)
GPURUN_MPI_ALIAS(MPI_Parrived)

// The MPI calls of partitioned communication (api/partitioned.cc has how the data moves):
// MPI_Psend_init and MPI_Precv_init make the request, MPI_Pready(_range, _list) mark send
// partitions ready, MPI_Parrived looks at receive partitions.
#include <cstdio>
#include <string>

#include "api/checks.h"
#include "api/datatypes.h"
#include "api/partitioned.h"
#include "api/partitioned_state.h"
#include "api/pt2pt.h"
#include "api/requests.h"

namespace gpurun::api {
namespace {

// Data tags handed out so far by this process's MPI_Precv_init calls.
std::int64_t g_data_tags = 0;

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
    // One data tag per message (a message joins small partitions).
    p->setup =
        receiver_setup(static_cast<std::int32_t>(g_data_tags), partitions, p->partition_bytes);
    if (g_data_tags + p->setup.messages() > kTagUpperBound) {
      delete p;
      return raise(call, comm, MPI_ERR_INTERN,
                   "this process has used up the tags of partitioned receives (%lld)",
                   static_cast<long long>(g_data_tags));
    }
    g_data_tags += p->setup.messages();
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

// Why `handle` names no active partitioned request on the side `send` (active_partitioned's
// cold path).
int not_active_partitioned(const Call& call, MPI_Request handle, bool send) {
  core::Request* r = find_request(handle);
  if (r == nullptr) return bad_request(call, "request", handle);
  if (r->kind != core::RequestKind::kPartitioned || partitioned_of(r)->send != send) {
    return raise(call, comm_handle_of(r), MPI_ERR_REQUEST,
                 "argument request (0x%x) is not a partitioned %s request (%s)",
                 static_cast<unsigned>(handle), send ? "send" : "receive",
                 send ? "MPI_Psend_init" : "MPI_Precv_init");
  }
  return raise(call, comm_handle_of(r), MPI_ERR_REQUEST,
               "argument request (0x%x) is not active: start it with MPI_Start first",
               static_cast<unsigned>(handle));
}

// The active partitioned request of `handle` on the side `send`; otherwise reports why.
inline int active_partitioned(const Call& call, MPI_Request handle, bool send, Partitioned** out) {
  core::Request* r = find_request(handle);
  if (r == nullptr || r->kind != core::RequestKind::kPartitioned ||
      partitioned_of(r)->send != send || !r->active) [[unlikely]]
    return not_active_partitioned(call, handle, send);
  *out = partitioned_of(r);
  return MPI_SUCCESS;
}

// `index`: the position of `partition` in array_of_partitions, or -1 (argument partition).
int check_partition(const Call& call, const Partitioned& p, int index, int partition) {
  if (partition >= 0 && partition < p.partitions) return MPI_SUCCESS;
  char arg[48] = "partition";
  if (index >= 0) std::snprintf(arg, sizeof arg, "array_of_partitions[%d]", index);
  return raise(call, comm_handle_of(p.request), MPI_ERR_ARG,
               "argument %s %d is not a partition of the request (0..%d)", arg, partition,
               p.partitions - 1);
}

int already_ready(const Call& call, const Partitioned& p, int partition) {
  return raise(call, comm_handle_of(p.request), MPI_ERR_ARG,
               "partition %d was already marked ready in this epoch", partition);
}

// Marks send partition `partition` (array_of_partitions[index], or -1) ready and sends the
// messages it completes.
inline int mark_ready(const Call& call, Partitioned* p, int index, int partition) {
  if (partition < 0 || partition >= p->partitions) [[unlikely]]
    return check_partition(call, *p, index, partition);
  auto& ready = p->done[static_cast<std::size_t>(partition)];
  if (ready) [[unlikely]]
    return already_ready(call, *p, partition);
  ready = 1;
  if (p->r().peer != MPI_PROC_NULL) partition_ready(p, partition);
  return MPI_SUCCESS;
}

// MPI_Pready, _range and _list: partitions first..first+n-1, or those of `list`.
int pready(const Call& call, MPI_Request request, int n, int first, const int* list) {
  Partitioned* p = nullptr;
  if (int rc = active_partitioned(call, request, true, &p); rc != MPI_SUCCESS) return rc;
  if (n < 0)
    return raise(call, comm_handle_of(p->request), MPI_ERR_ARG, "argument length %d is negative",
                 n);
  for (int i = 0; i < n; ++i) {
    int rc = list != nullptr ? mark_ready(call, p, i, list[i]) : mark_ready(call, p, -1, first + i);
    if (rc != MPI_SUCCESS) return rc;
  }
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
  if (int rc = check_partition(call, *p, -1, partition); rc != MPI_SUCCESS) return rc;
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

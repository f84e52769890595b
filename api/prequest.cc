// Prequests: MPIX_Prequest_create and MPIX_Prequest_free, and the progress poller that turns
// what kernels write into a prequest (include/gpurun/device.cuh) into partitions ready to send.
//
// A prequest is a block of pinned host memory that devices reach with the host's pointer
// (Accelerator::allocate_host; ordinary host memory without CUDA): the header the device calls
// read, then one word per partition. While an epoch of its request is active the prequest is
// "active": the poller (one for all prequests, polled only while some are active) reads its
// send words and misuse word. Where the progress helper may run (api/progress_helper.h: a
// spare CPU, or GPURUN_PROGRESS_HELPER=on) it polls while the program is outside MPI, since a
// kernel that marks partitions ready rings no doorbell and the host may sit in
// cudaStreamSynchronize meanwhile. Where ranks fill every core it does not: a helper thread
// spinning beside them cost each epoch 100 times more (16 partitions of 64 B, -np 2 on 2 cores:
// 176 us against 3.9 with MPI_Pready), and the program must then call MPI (MPI_Wait, MPI_Test)
// while a kernel waits for partitions. Receive words are written as partitions arrive
// (trigger_arrived), by whatever polls.
#include "api/prequest.h"

#include <mpi.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <gpurun/device.cuh>
#include <string>
#include <vector>

#include "api/checks.h"
#include "api/partitioned.h"
#include "api/progress_helper.h"
#include "api/requests.h"
#include "runtime/accel/accelerator.h"
#include "runtime/progress/progress.h"

namespace gpurun::api {

struct DeviceTrigger {
  MPIX_Prequest shared = nullptr;    // what the device reads and writes
  bool pinned = false;               // from Accelerator::allocate_host (else std::aligned_alloc)
  core::Request* request = nullptr;  // nullptr once the request was freed
  bool active = false;               // an epoch runs: counted in g_active
  bool helped = false;               // and the progress helper polls for it
  std::vector<std::uint8_t> seen;    // send: partitions of this epoch already handed over
  int unseen = 0;                    // send: partitions of this epoch not seen ready yet
  std::vector<int> fresh;            // scratch of poll_one
};

namespace {

std::vector<DeviceTrigger*>& triggers() {
  static auto* list = new std::vector<DeviceTrigger*>();
  return *list;
}
progress::PendingWord g_active{0};  // the poller's pending word

void deactivate(DeviceTrigger* t) {
  if (!t->active) return;
  t->active = false;
  progress::add_pending(g_active, -1);
  if (t->helped) helper::helped_end();
}

volatile std::uint32_t* words(const DeviceTrigger& t) { return gpurun_prequest_words(t.shared); }

std::string misuse_message(const MPIX_Prequest_s& p, std::uint32_t misuse) {
  std::uint32_t what = misuse >> 28;
  int partition = static_cast<int>(misuse << 4) >> 4;  // the 28 bits, sign extended
  bool by_send_call = (what == GPURUN_MISUSE_SIDE) != (p.send != 0);
  std::string call = by_send_call ? "MPIX_Pready" : "MPIX_Parrived";
  std::string head =
      call + "(partition " + std::to_string(partition) + ") through the request's prequest";
  if (what == GPURUN_MISUSE_PARTITION)
    return head + ": not a partition of the request (0.." + std::to_string(p.partitions - 1) + ")";
  if (what == GPURUN_MISUSE_SIDE) {
    return head + ": the prequest is of a " +
           (p.send ? "send request (MPI_Psend_init)" : "receive request (MPI_Precv_init)");
  }
  return head + " came before the request's first MPI_Start";
}

// The misuse recorded in the prequest (0: none), which is cleared.
std::uint32_t take_misuse(const DeviceTrigger& t) {
  return __atomic_exchange_n(&t.shared->misuse, 0u, __ATOMIC_ACQ_REL);
}

// Reads what the device wrote into an active prequest; the work done.
int poll_one(DeviceTrigger& t) {
  if (std::uint32_t m = take_misuse(t); m != 0) [[unlikely]] {
    trigger_failed(t.request, misuse_message(*t.shared, m));
    return 1;
  }
  if (!t.shared->send || t.unseen == 0) return 0;
  std::uint32_t epoch = t.shared->epoch;  // written by MPI_Start, under the same lock
  volatile std::uint32_t* w = words(t);
  t.fresh.clear();
  for (std::size_t i = 0; i < t.seen.size(); ++i) {
    if (t.seen[i] == 0 && gpurun_prequest_load(w + i) == epoch) {
      t.seen[i] = 1;
      t.fresh.push_back(static_cast<int>(i));
    }
  }
  if (t.fresh.empty()) return 0;
  t.unseen -= static_cast<int>(t.fresh.size());
  trigger_ready(t.request, t.fresh);
  return static_cast<int>(t.fresh.size());
}

int poll_triggers(void* /*context*/) {
  int work = 0;
  // trigger_ready may end an epoch (trigger_ended) but never adds or removes a prequest.
  for (DeviceTrigger* t : triggers())
    if (t->active) work += poll_one(*t);
  return work;
}

void release_memory(DeviceTrigger& t) {
  t.shared->magic = 0;
  if (t.pinned)
    accel::current().free_host(t.shared);
  else
    std::free(t.shared);
  t.shared = nullptr;
}

// A prequest's memory for `partitions` words, zeroed; nullptr when none is left.
MPIX_Prequest allocate_shared(int partitions, bool* pinned) {
  std::size_t bytes = sizeof(MPIX_Prequest_s) + 4 * static_cast<std::size_t>(partitions);
  bytes = (bytes + 63) / 64 * 64;
  void* memory = accel::current().allocate_host(bytes);
  *pinned = memory != nullptr;
  if (memory == nullptr) memory = std::aligned_alloc(64, bytes);
  if (memory != nullptr) std::memset(memory, 0, bytes);
  return static_cast<MPIX_Prequest>(memory);
}

int create(const Call& call, MPI_Request request, MPIX_Prequest* prequest) {
  GPURUN_CHECK_NOT_NULL(MPI_COMM_NULL, prequest);
  core::Request* r = find_request(request);
  if (r == nullptr) return bad_request(call, "request", request);
  PartitionedShape shape;
  const char* refusal = !partitioned_shape(r, &shape)
                            ? "is not a partitioned request (MPI_Psend_init, MPI_Precv_init)"
                        : shape.trigger != nullptr ? "has a prequest already"
                        : shape.active             ? "is active: make its prequest before MPI_Start"
                                                   : nullptr;
  if (refusal != nullptr) {
    return raise(call, comm_handle_of(r), MPI_ERR_REQUEST, "argument request (0x%x) %s",
                 static_cast<unsigned>(request), refusal);
  }
  auto* t = new DeviceTrigger;
  t->shared = allocate_shared(shape.partitions, &t->pinned);
  if (t->shared == nullptr) {
    delete t;
    return raise(call, comm_handle_of(r), MPI_ERR_NO_MEM,
                 "no memory for the prequest of %d partitions", shape.partitions);
  }
  t->shared->partitions = shape.partitions;
  t->shared->send = shape.send ? 1 : 0;
  t->shared->magic = GPURUN_PREQUEST_MAGIC;
  t->request = r;
  attach_trigger(r, t);
  static const bool polled = [] {
    progress::engine().add(poll_triggers, nullptr, "prequests", &g_active);
    return true;
  }();
  (void)polled;
  triggers().push_back(t);
  *prequest = t->shared;
  return MPI_SUCCESS;
}

int free_one(const Call& call, MPIX_Prequest* prequest) {
  GPURUN_CHECK_NOT_NULL(MPI_COMM_NULL, prequest);
  auto& list = triggers();
  auto it = *prequest == nullptr
                ? list.end()
                : std::find_if(list.begin(), list.end(),
                               [&](const DeviceTrigger* t) { return t->shared == *prequest; });
  if (it == list.end()) {
    return raise(call, MPI_COMM_NULL, MPI_ERR_REQUEST,
                 "argument prequest (%p) is not a prequest of MPIX_Prequest_create",
                 static_cast<void*>(*prequest));
  }
  DeviceTrigger* t = *it;
  if (t->request != nullptr && t->request->active) {
    return raise(call, comm_handle_of(t->request), MPI_ERR_REQUEST,
                 "argument prequest: its request is active (wait for the epoch to end first)");
  }
  if (t->request != nullptr) attach_trigger(t->request, nullptr);
  list.erase(it);
  release_memory(*t);
  delete t;
  *prequest = MPIX_PREQUEST_NULL;
  return MPI_SUCCESS;
}

}  // namespace

void trigger_started(DeviceTrigger* t, bool nothing_moves) {
  deactivate(t);  // defensive: every epoch ends before the next starts
  MPIX_Prequest_s& p = *t->shared;
  std::uint32_t epoch = p.epoch + 1;
  volatile std::uint32_t* w = words(*t);
  if (epoch == 0) {  // after 2^32 - 1 epochs: words from the first ones would match again
    epoch = 1;
    for (int i = 0; i < p.partitions; ++i) gpurun_prequest_store(w + i, 0);
  }
  gpurun_prequest_store(&p.epoch, epoch);
  if (nothing_moves) {
    if (p.send == 0)
      for (int i = 0; i < p.partitions; ++i) gpurun_prequest_store(w + i, epoch);
    return;
  }
  t->seen.assign(static_cast<std::size_t>(p.partitions), 0);
  t->unseen = p.partitions;
  t->active = true;
  progress::add_pending(g_active, 1);
  t->helped = helper::available();
  if (t->helped) helper::helped_begin();
}

void trigger_arrived(DeviceTrigger* t, int partition) {
  gpurun_prequest_store(words(*t) + partition, t->shared->epoch);  // after the data
}

void trigger_ended(DeviceTrigger* t) {
  // A misuse the poller has not seen yet still belongs to this epoch.
  if (t->active && t->request != nullptr) {
    if (std::uint32_t m = take_misuse(*t); m != 0)
      trigger_misused(t->request, misuse_message(*t->shared, m));
  }
  deactivate(t);
}

void trigger_detached(DeviceTrigger* t) {
  deactivate(t);
  t->request = nullptr;
}

void free_prequests() {
  for (DeviceTrigger* t : triggers()) {
    deactivate(t);
    if (t->request != nullptr) attach_trigger(t->request, nullptr);
    release_memory(*t);
    delete t;
  }
  triggers().clear();
}

}  // namespace gpurun::api

using namespace gpurun::api;  // NOLINT(google-build-using-namespace): the C API's own layer

extern "C" int PMPIX_Prequest_create(MPI_Request request, MPIX_Prequest* prequest) {
  GPURUN_API_ENTER("MPIX_Prequest_create");
  return create(call, request, prequest);
}

extern "C" int PMPIX_Prequest_free(MPIX_Prequest* prequest) {
  GPURUN_API_ENTER("MPIX_Prequest_free");
  return free_one(call, prequest);
}

GPURUN_MPI_ALIAS(MPIX_Prequest_create)
GPURUN_MPI_ALIAS(MPIX_Prequest_free)

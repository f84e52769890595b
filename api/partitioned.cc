// Partitioned communication (MPI-4): MPI_Psend_init, MPI_Precv_init, MPI_Pready(_range,
// _list) and MPI_Parrived; MPI_Start(all), the completion calls and MPI_Request_free take the
// requests as they take other persistent ones.
//
// Matching: MPI_Precv_init sends its sender a setup message (the pml's kPartitionSetup
// channel, the program's tag): the first of a block of data tags reserved for it, its
// partition count and the bytes of one partition. MPI_Psend_init posts the receive for it.
// The pml keeps messages of one (source, tag) in order, so the n-th MPI_Psend_init to a rank
// with a tag meets that rank's n-th MPI_Precv_init from it with that tag, as MPI requires.
// Data: the receiver's partitions travel in messages (kPartitionData channel, tag = first tag +
// message), each of one partition or, where partitions are small, of as many consecutive ones
// as fit in GPURUN_PARTITIONED_MESSAGE_SIZE (the receiver decides and tells the sender in the
// setup). A message leaves as soon as every sender partition it takes bytes from is ready and
// the setup message has arrived (a count per message of the sender partitions still missing);
// the receiver posts one receive per message at MPI_Start, straight into its partitions, and
// MPI_Parrived looks at the partitions that receive completed. Where a message holds whole
// sender partitions it moves from the sender's buffer as it is; otherwise from a contiguous
// buffer directly, or packed first. Messages per epoch are fixed, so the pml's per-tag order
// keeps the epochs apart.
//
// This file moves the data; api/partitioned_calls.cc has the calls, api/prequest.cc the
// prequests through which kernels mark partitions ready and see them arrive.
#include "api/partitioned.h"

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "api/datatypes.h"
#include "api/partitioned_state.h"
#include "api/pt2pt.h"
#include "api/requests.h"
#include "runtime/base/param.h"

namespace gpurun::api {
namespace {

param::Param<param::Size> g_message_size(
    "GPURUN_PARTITIONED_MESSAGE_SIZE", param::Size{4096},
    "Partitioned communication: receive partitions smaller than this travel together, as many "
    "consecutive ones in one message as fit in this many bytes, sent once all of them are "
    "ready (MPI_Parrived sees them arrive together); 0: one message per partition.");

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
  p->ended = true;
  if (p->trigger != nullptr) trigger_ended(p->trigger);  // may report a misuse (p->error)
  r.status = core::MessageStatus{
      p->send ? -1 : r.peer, p->send ? -1 : r.tag, p->error,
      p->send ? 0 : static_cast<std::uint64_t>(p->partition_bytes * p->partitions), false};
  r.set_complete();
}

void moved(Partitioned* p, ErrorCode error) {
  if (error != ErrorCode::kOk && p->error == ErrorCode::kOk) p->error = error;
  if (--p->pending == 0 && p->request != nullptr && p->r().active && !p->ended) epoch_done(p);
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
    int m = s->status.tag - p->setup.first_tag;
    if (s->status.error == ErrorCode::kOk && m >= 0 && m < p->setup.messages()) {
      int first = p->setup.first_partition(m);
      for (int j = first; j < first + p->setup.partitions_in(m); ++j) {
        p->done[static_cast<std::size_t>(j)] = 1;
        if (p->trigger != nullptr) trigger_arrived(p->trigger, j);
      }
    }
    if (s->status.error == ErrorCode::kTruncated && p->error == ErrorCode::kOk) {
      note_failure(p->request, "the matching MPI_Psend_init does not send the " +
                                   std::to_string(p->partition_bytes * p->partitions) +
                                   " bytes this MPI_Precv_init receives");
    }
    moved(p, s->status.error);
  }
  maybe_delete(p);
}

// Sender: the first and last of its partitions that message m takes bytes from (none: last <
// first).
std::pair<int, int> sources_of(const Partitioned& p, int m) {
  std::int64_t sb = p.partition_bytes, off = p.setup.offset(m), n = p.setup.bytes(m);
  if (sb == 0) return {0, p.partitions - 1};  // no bytes: it waits for all of them
  if (n == 0) return {0, -1};
  return {static_cast<int>(off / sb),
          static_cast<int>(std::min<std::int64_t>((off + n - 1) / sb, p.partitions - 1))};
}

// Sender: the first and last message that take bytes from its partition i.
std::pair<int, int> messages_of(const Partitioned& p, int i) {
  std::int64_t sb = p.partition_bytes, mb = p.setup.per_message * p.setup.partition_bytes;
  std::int64_t last = p.setup.messages() - 1;
  if (sb == 0) return {0, static_cast<int>(last)};  // as sources_of
  if (mb == 0) return {0, -1};
  return {static_cast<int>(std::min<std::int64_t>(i * sb / mb, last)),
          static_cast<int>(std::min<std::int64_t>(((i + 1) * sb - 1) / mb, last))};
}

// Sender: points `a` at the bytes of message m, packed first where they are not whole
// partitions of a non-contiguous type.
void message_data(Partitioned* p, int m, pml::SendArgs* a) {
  core::Request& r = p->r();
  std::int64_t off = p->setup.offset(m), bytes = p->setup.bytes(m), sb = p->partition_bytes;
  if (sb == 0 || (off % sb == 0 && bytes % sb == 0)) {  // whole partitions: as they are
    a->buf = p->base() + (sb == 0 ? 0 : off / sb * p->count * r.datatype->extent());
    a->count = sb == 0 ? 0 : bytes / sb * p->count;
    return;
  }
  a->type = find_datatype(MPI_BYTE);
  a->count = bytes;
  if (r.datatype->contiguous()) {
    a->buf = p->base() + r.datatype->true_lb() + off;
    return;
  }
  auto& copy = p->packed[static_cast<std::size_t>(m)];
  if (!copy) copy = std::make_unique<std::byte[]>(static_cast<std::size_t>(bytes));
  r.datatype->pack(p->base(), p->count * p->partitions, static_cast<std::size_t>(off), copy.get(),
                   static_cast<std::size_t>(bytes));
  a->buf = copy.get();
}

// Sender whose receiver takes another number of bytes, or whose epoch failed: each message
// not sent yet gets one byte too many, so that the receiver's epoch fails too
// (MPI_ERR_TRUNCATE) instead of waiting. `counted`: in the epoch that failed, whose end waits
// for these sends as for the others (a later epoch then never sees their completions).
void send_too_long(Partitioned* p, bool counted = false) {
  core::Request& r = p->r();
  p->too_long.resize(static_cast<std::size_t>(p->setup.bytes(0) + 1));
  for (int j = 0; j < p->setup.messages(); ++j) {
    if (static_cast<std::size_t>(j) < p->sent.size() && p->sent[static_cast<std::size_t>(j)])
      continue;
    pml::SendArgs a{
        r.comm, p->too_long.data(),     p->setup.bytes(j) + 1,    find_datatype(MPI_BYTE),
        r.peer, p->setup.first_tag + j, pml::SendMode::kStandard, pml::Channel::kPartitionData};
    if (counted) p->sent[static_cast<std::size_t>(j)] = 1;
    core::Request* s = sub_request(p, counted ? partition_sent : released);
    if (Status st = the_pml().isend(a, s); !st.ok()) {
      --p->in_flight;
      the_pml().requests().release(s);
      if (counted) moved(p, st.code());
    }
  }
}

// An epoch that cannot move: it completes at once with the setup's error.
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

// Sender, once the setup is known: which messages each of its partitions goes into, and how
// many of its partitions each message waits for.
void plan_messages(Partitioned* p) {
  auto n = static_cast<std::size_t>(p->setup.messages());
  p->packed.resize(n);
  p->sources.assign(n, 0);
  for (std::size_t m = 0; m < n; ++m) {
    auto [first, last] = sources_of(*p, static_cast<int>(m));
    p->sources[m] = std::max(last - first + 1, 0);
  }
  p->targets.resize(static_cast<std::size_t>(p->partitions));
  for (int i = 0; i < p->partitions; ++i)
    p->targets[static_cast<std::size_t>(i)] = messages_of(*p, i);
}

void start_send_epoch(Partitioned* p) {
  auto n = static_cast<std::size_t>(p->setup.messages());
  p->sent.assign(n, 0);
  p->missing = p->sources;
  for (std::size_t i = 0; i < p->done.size(); ++i) {  // marked before the setup came
    if (!p->done[i]) continue;
    for (int m = p->targets[i].first; m <= p->targets[i].second; ++m)
      --p->missing[static_cast<std::size_t>(m)];
  }
  p->pending = static_cast<int>(n);
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
    if (p->setup_known) plan_messages(p);
    for (; p->setup_known && p->owed_epochs > 0; --p->owed_epochs) {  // see trigger_failed
      p->sent.clear();
      send_too_long(p);
    }
    if (p->r().active && !p->ended && p->setup_known) {
      start_send_epoch(p);
      send_ready(p);
    } else if (p->r().active && !p->ended) {
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

}  // namespace

void send_message(Partitioned* p, int m) {
  core::Request& r = p->r();
  pml::SendArgs a{r.comm,
                  nullptr,
                  0,
                  r.datatype,
                  r.peer,
                  p->setup.first_tag + m,
                  pml::SendMode::kStandard,
                  pml::Channel::kPartitionData,
                  r.memory};
  message_data(p, m, &a);
  p->sent[static_cast<std::size_t>(m)] = 1;
  core::Request* s = sub_request(p, partition_sent);
  if (Status st = the_pml().isend(a, s); !st.ok()) {
    --p->in_flight;
    the_pml().requests().release(s);
    moved(p, st.code());
  }
}

Setup receiver_setup(std::int32_t first_tag, int partitions, std::int64_t partition_bytes) {
  auto limit = static_cast<std::int64_t>(g_message_size.get().bytes);
  std::int64_t per = 1;
  if (partition_bytes == 0)
    per = partitions;
  else if (partition_bytes < limit)
    per = limit / partition_bytes;
  per = std::clamp<std::int64_t>(per, 1, std::max(partitions, 1));
  return Setup{first_tag, partitions, partition_bytes, static_cast<std::int32_t>(per)};
}

void send_ready(Partitioned* p) {
  if (!p->setup_known || !p->r().active) return;
  for (int m = 0; m < p->setup.messages(); ++m) {
    auto k = static_cast<std::size_t>(m);
    if (!p->sent[k] && p->missing[k] == 0) send_message(p, m);
  }
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

// MPI_Start of a partitioned request (api/persistent.cc): a new epoch.
int start_partitioned(const Call& call, core::Request* r) {
  Partitioned* p = partitioned_of(r);
  r->active = true;
  r->reset_complete();
  p->error = ErrorCode::kOk;
  p->ended = false;
  p->done.assign(static_cast<std::size_t>(p->partitions), 0);
  if (p->trigger != nullptr) trigger_started(p->trigger, r->peer == MPI_PROC_NULL);
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
    if (p->setup_known) {
      start_send_epoch(p);
      send_ready(p);  // messages that take bytes from no partition of ours
    }
    return MPI_SUCCESS;
  }
  const Setup& setup = p->setup;
  p->pending = setup.messages();
  if (p->pending == 0) epoch_done(p);
  for (int m = 0; m < setup.messages(); ++m) {
    core::Request* s = sub_request(p, partition_arrived);
    pml::RecvArgs a{r->comm,
                    p->base() + setup.first_partition(m) * p->count * r->datatype->extent(),
                    p->count * setup.partitions_in(m),
                    r->datatype,
                    r->peer,
                    setup.first_tag + m,
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
  if (p->trigger != nullptr) trigger_detached(p->trigger);
  p->trigger = nullptr;
  p->request = nullptr;
  r->owner = nullptr;
  release_request(r);
  maybe_delete(p);
  return MPI_SUCCESS;
}

bool partitioned_shape(const core::Request* r, PartitionedShape* out) {
  if (r == nullptr || r->kind != core::RequestKind::kPartitioned) return false;
  const Partitioned* p = partitioned_of(r);
  *out = PartitionedShape{p->send, p->partitions, r->active, p->trigger};
  return true;
}

void attach_trigger(core::Request* r, DeviceTrigger* t) { partitioned_of(r)->trigger = t; }

void trigger_ready(core::Request* r, std::span<const int> partitions) {
  Partitioned* p = partitioned_of(r);
  if (!r->active || p->ended) return;
  for (int i : partitions) {
    p->done[static_cast<std::size_t>(i)] = 1;
    if (r->peer != MPI_PROC_NULL) partition_ready(p, i);
  }
}

void trigger_misused(core::Request* r, const std::string& message) {
  Partitioned* p = partitioned_of(r);
  if (p->error != ErrorCode::kOk) return;
  p->error = ErrorCode::kInvalidArgument;
  note_failure(r, message);
}

void trigger_failed(core::Request* r, const std::string& message) {
  Partitioned* p = partitioned_of(r);
  if (!r->active || p->ended) return;
  trigger_misused(r, message);
  if (!p->send) return;                  // the data still comes: the epoch ends with it, failed
  if (r->peer == MPI_PROC_NULL) return;  // its epoch completed at MPI_Start
  if (p->setup_known) {
    send_too_long(p, /*counted=*/true);  // the epoch ends once every partition went
  } else {
    ++p->owed_epochs;  // nothing went yet: the setup's arrival sends them (too long)
    epoch_done(p);
  }
}

}  // namespace gpurun::api

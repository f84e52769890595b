// MPIX_Stream_create and _free, the stream communicators and MPIX_Comm_get_stream
// (api/stream.h). The stream calls that move messages are in api/stream_pt2pt.cc, the
// enqueued operations in api/enqueue.cc.
#include "api/stream.h"

#include <algorithm>
#include <cstring>
#include <string>

#include "api/checks.h"
#include "api/comm_build.h"
#include "api/enqueue.h"
#include "api/info.h"
#include "api/requests.h"
#include "runtime/accel/accelerator.h"
#include "runtime/base/log.h"

namespace gpurun::api {

StreamEntry::StreamEntry() = default;
StreamEntry::~StreamEntry() = default;

namespace {

ObjectTable<StreamEntry>& streams() {
  static auto* table = new ObjectTable<StreamEntry>();  // never destroyed, like every table
  return *table;
}

MPIX_Stream stream_handle(std::uint32_t index) {
  return make_handle(HandleKind::kIndirect, ObjectType::kStream, index);
}

int raise_bad_stream(const Call& call, MPI_Comm comm, const char* arg, MPIX_Stream handle) {
  return raise(call, comm, MPI_ERR_ARG,
               handle == MPIX_STREAM_NULL ? "argument %s is MPIX_STREAM_NULL"
                                          : "argument %s (0x%x) is not a stream, or was freed",
               arg, static_cast<unsigned>(handle));
}

// A CUDA stream from the info's "value" (a cudaStream_t in hexadecimal).
int make_cuda_stream(const Call& call, const core::Info& info, StreamEntry* entry) {
  const std::string* value = info.get("value");
  if (value == nullptr) {
    return raise(call, MPI_COMM_NULL, MPI_ERR_INFO_NOKEY,
                 "info key \"type\" is \"cudaStream_t\" but key \"value\" is not set (set it "
                 "with MPIX_Info_set_hex(info, \"value\", &stream, sizeof(stream)))");
  }
  std::uintptr_t handle = 0;  // the cudaStream_t
  if (!core::decode_hex(*value, &handle, sizeof handle)) {
    return raise(call, MPI_COMM_NULL, MPI_ERR_INFO_VALUE,
                 "info key \"value\" (\"%.40s\") is not a cudaStream_t in hexadecimal: %zu "
                 "hexadecimal digits expected (MPIX_Info_set_hex)",
                 value->c_str(), 2 * sizeof handle);
  }
  Result<std::unique_ptr<accel::Stream>> device = accel::current().wrap_stream(handle);
  if (!device.ok()) {
    bool unsupported = device.status().code() == ErrorCode::kUnsupported;
    return raise(call, MPI_COMM_NULL, unsupported ? MPI_ERR_UNSUPPORTED_OPERATION : MPI_ERR_ARG,
                 "cannot use CUDA stream 0x%llx: %.*s", static_cast<unsigned long long>(handle),
                 static_cast<int>(device.status().message().size()),
                 device.status().message().data());
  }
  entry->device = std::move(*device);
  GPURUN_LOG(info, cuda, "stream for enqueued operations: %s", entry->device->describe().c_str());
  return MPI_SUCCESS;
}

int create(const Call& call, MPI_Info info, MPIX_Stream* stream) {
  GPURUN_CHECK_NOT_NULL(MPI_COMM_NULL, stream);
  const core::Info* object = nullptr;
  if (info != MPI_INFO_NULL && (object = find_info(info)) == nullptr) {
    return raise(call, MPI_COMM_NULL, MPI_ERR_INFO, "argument info (0x%x) is not an info object",
                 static_cast<unsigned>(info));
  }
  auto entry = std::make_unique<StreamEntry>();
  const std::string* type = object != nullptr ? object->get("type") : nullptr;
  if (type != nullptr && *type == "cudaStream_t") {
    if (int rc = make_cuda_stream(call, *object, entry.get()); rc != MPI_SUCCESS) return rc;
  } else if (type != nullptr) {
    return raise(call, MPI_COMM_NULL, MPI_ERR_UNSUPPORTED_OPERATION,
                 "info key \"type\" is \"%.64s\": gpurun makes streams of type \"cudaStream_t\" "
                 "and host streams (no \"type\")",
                 type->c_str());
  }
  std::uint32_t index = streams().insert(std::move(entry));
  if (index == ObjectTable<StreamEntry>::kFull)
    return raise(call, MPI_COMM_NULL, MPI_ERR_NO_MEM, "too many streams; free some");
  *stream = stream_handle(index);
  return MPI_SUCCESS;
}

int free_stream(const Call& call, MPIX_Stream* stream) {
  GPURUN_CHECK_NOT_NULL(MPI_COMM_NULL, stream);
  StreamEntry* entry = find_stream(*stream);
  if (entry == nullptr) return raise_bad_stream(call, MPI_COMM_NULL, "stream", *stream);
  if (entry->uses > 0) {
    return raise(call, MPI_COMM_NULL, MPI_ERR_OTHER,
                 "stream 0x%x is still used by %d communicator(s): free them first",
                 static_cast<unsigned>(*stream), entry->uses);
  }
  if (entry->enqueued && !entry->enqueued->idle()) {
    return raise(call, MPI_COMM_NULL, MPI_ERR_OTHER,
                 "operations enqueued on stream 0x%x have not finished: synchronize the CUDA "
                 "stream first",
                 static_cast<unsigned>(*stream));
  }
  if (entry->enqueued) drop_queue(std::move(entry->enqueued));
  streams().release(handle_index(*stream));
  *stream = MPIX_STREAM_NULL;
  return MPI_SUCCESS;
}

// The streams of an array argument: valid or MPIX_STREAM_NULL.
int check_streams(const Call& call, MPI_Comm comm, const MPIX_Stream* list, int count) {
  for (int i = 0; i < count; ++i) {
    if (list[i] != MPIX_STREAM_NULL && find_stream(list[i]) == nullptr) {
      std::string arg = "array_of_streams[" + std::to_string(i) + "]";
      return raise_bad_stream(call, comm, arg.c_str(), list[i]);
    }
  }
  return MPI_SUCCESS;
}

// How many streams each rank of `entry` attaches (an allgather over the parent).
int gather_counts(const Call& call, MPI_Comm comm, CommEntry& entry, int mine,
                  std::vector<int>* counts) {
  counts->assign(static_cast<std::size_t>(entry.comm->size()), 0);
  coll::Team team = whole_team(entry);
  team.call_kind = static_cast<int>(coll::BasicKind::kAllgather);
  team.call_bytes = sizeof mine;
  auto gather = coll::allgather(the_pml(), team, &mine, sizeof mine, counts->data());
  if (Status st = wait_collective(*gather); !st.ok()) return raise_status(call, comm, st);
  return MPI_SUCCESS;
}

// How many streams the widest rank attached (binding->width), or the error when it is more
// than gpurun multiplexes: every rank sees the same counts, so all fail alike.
int check_width(const Call& call, MPI_Comm comm, StreamBinding* binding) {
  constexpr int kMaxWidth = 8;  // 64 channels, each a communicator (a context id)
  auto widest = std::max_element(binding->counts.begin(), binding->counts.end());
  binding->width = *widest;
  if (binding->width > kMaxWidth) {
    return raise(call, comm, MPI_ERR_ARG,
                 "argument count: rank %d of comm attaches %d streams; gpurun multiplexes at most "
                 "%d per rank",
                 static_cast<int>(widest - binding->counts.begin()), binding->width, kMaxWidth);
  }
  return MPI_SUCCESS;
}

// The channels of a multiplex communicator: one duplicate of the parent per pair of indices.
int make_channels(const Call& call, MPI_Comm comm, CommEntry& entry, StreamBinding* binding) {
  if (binding->width == 1) return MPI_SUCCESS;
  const auto n = static_cast<std::size_t>(binding->width * binding->width);
  for (std::size_t i = 0; i < n; ++i) {
    MPI_Comm channel = MPI_COMM_NULL;
    if (int rc = duplicate(call, comm, entry, nullptr, &channel); rc != MPI_SUCCESS) return rc;
    binding->channels.push_back(channel);
  }
  return MPI_SUCCESS;
}

// MPIX_Stream_comm_create (multiplex false, one stream) and _multiplex.
int bind(const Call& call, MPI_Comm comm, std::vector<MPIX_Stream> local, bool multiplex,
         MPI_Comm* newcomm) {
  GPURUN_CHECK_NOT_INTER(entry, comm, MPI_ERR_COMM, "stream communicators are intracommunicators");
  GPURUN_CHECK_NOT_NULL(comm, newcomm);
  if (local.empty()) local.push_back(MPIX_STREAM_NULL);
  auto binding = std::make_shared<StreamBinding>();
  binding->multiplex = multiplex;
  if (multiplex) {
    int rc = gather_counts(call, comm, *entry, static_cast<int>(local.size()), &binding->counts);
    if (rc == MPI_SUCCESS) rc = check_width(call, comm, binding.get());
    if (rc != MPI_SUCCESS) return rc;
  }
  MPI_Comm made = MPI_COMM_NULL;
  if (int rc = duplicate(call, comm, *entry, nullptr, &made); rc != MPI_SUCCESS) return rc;
  if (multiplex) {
    if (int rc = make_channels(call, comm, *entry, binding.get()); rc != MPI_SUCCESS) {
      for (MPI_Comm channel : binding->channels) PMPI_Comm_free(&channel);
      PMPI_Comm_free(&made);
      return rc;
    }
  }
  for (MPIX_Stream s : local)
    if (StreamEntry* stream = find_stream(s)) ++stream->uses;
  binding->local = std::move(local);
  find_comm(made)->streams = std::move(binding);
  *newcomm = made;
  return MPI_SUCCESS;
}

int get_stream(const Call& call, MPI_Comm comm, int idx, MPIX_Stream* stream) {
  GPURUN_CHECK_COMM(entry, comm);
  GPURUN_CHECK_NOT_NULL(comm, stream);
  const StreamBinding* binding = entry->streams.get();
  int count = binding != nullptr ? static_cast<int>(binding->local.size()) : 1;
  if (idx < 0 || idx >= count) {
    return raise(call, comm, MPI_ERR_ARG,
                 "argument idx %d is not the index of one of this rank's %d stream(s) on comm", idx,
                 count);
  }
  *stream = binding != nullptr ? binding->local[static_cast<std::size_t>(idx)] : MPIX_STREAM_NULL;
  return MPI_SUCCESS;
}

}  // namespace

StreamEntry* find_stream(MPIX_Stream handle) {
  if (handle_kind(handle) != HandleKind::kIndirect || handle_type(handle) != ObjectType::kStream)
    return nullptr;
  return streams().find(handle_index(handle));
}

void unbind_streams(CommEntry& entry) {
  if (!entry.streams) return;
  std::shared_ptr<StreamBinding> binding = std::move(entry.streams);
  for (MPIX_Stream s : binding->local)
    if (StreamEntry* stream = find_stream(s)) --stream->uses;
  for (MPI_Comm channel : binding->channels) PMPI_Comm_free(&channel);
}

StreamEntry* local_stream(const CommEntry& entry) {
  if (!entry.streams) return nullptr;
  return find_stream(entry.streams->local.front());
}

}  // namespace gpurun::api

using namespace gpurun::api;  // NOLINT(google-build-using-namespace): the C API's own layer

extern "C" int PMPIX_Stream_create(MPI_Info info, MPIX_Stream* stream) {
  GPURUN_API_ENTER("MPIX_Stream_create");
  return create(call, info, stream);
}

extern "C" int PMPIX_Stream_free(MPIX_Stream* stream) {
  GPURUN_API_ENTER("MPIX_Stream_free");
  return free_stream(call, stream);
}

extern "C" int PMPIX_Stream_comm_create(MPI_Comm comm, MPIX_Stream stream, MPI_Comm* newcomm) {
  GPURUN_API_ENTER("MPIX_Stream_comm_create");
  if (stream != MPIX_STREAM_NULL && find_stream(stream) == nullptr)
    return raise_bad_stream(call, comm, "stream", stream);
  return bind(call, comm, {stream}, false, newcomm);
}

extern "C" int PMPIX_Stream_comm_create_multiplex(MPI_Comm comm, int count,
                                                  MPIX_Stream array_of_streams[],
                                                  MPI_Comm* newcomm) {
  GPURUN_API_ENTER("MPIX_Stream_comm_create_multiplex");
  if (count < 0) return raise(call, comm, MPI_ERR_COUNT, "argument count %d is negative", count);
  if (count > 0) GPURUN_CHECK_NOT_NULL(comm, array_of_streams);
  if (int rc = check_streams(call, comm, array_of_streams, count); rc != MPI_SUCCESS) return rc;
  std::vector<MPIX_Stream> local(array_of_streams, array_of_streams + count);
  return bind(call, comm, std::move(local), true, newcomm);
}

extern "C" int PMPIX_Comm_get_stream(MPI_Comm comm, int idx, MPIX_Stream* stream) {
  GPURUN_API_ENTER("MPIX_Comm_get_stream");
  return get_stream(call, comm, idx, stream);
}

GPURUN_MPI_ALIAS(MPIX_Stream_create)
GPURUN_MPI_ALIAS(MPIX_Stream_free)
GPURUN_MPI_ALIAS(MPIX_Stream_comm_create)
GPURUN_MPI_ALIAS(MPIX_Stream_comm_create_multiplex)
GPURUN_MPI_ALIAS(MPIX_Comm_get_stream)

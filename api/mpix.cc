// The MPIX calls of include/mpix.h: whether CUDA is usable, and how each MPI call treats device
// buffers. They may be called at any time (before MPI_Init too, as programs ask before they
// choose where to put their buffers), touch no MPI state, and take no lock.
//
// Per call: point-to-point, MPI_Pack/MPI_Unpack and MPI_Reduce_local answer what was declared
// for them at MPI_Init (cuda/support.h, api/wiring.cc); a collective answers "native" when it
// runs device buffers itself on every communicator (coll::device_native: allreduce's
// device_ring, and the neighbourhood collectives, whose algorithms are all schedules that run
// on the device; for ops the device reduces on contiguous types, other calls of them are
// staged), else "staged": some of its calls are staged (coll/staging.h), on
// one host those of the shared-memory algorithms, while its pml algorithms (between hosts)
// run on the device. MPI_Pack_external and MPI_Unpack_external convert on the host only
// (api/datatype_external.cc): "refused". Every call is "refused" when CUDA is unusable.
// MPIX_Comm_query_cuda_path answers for calls on one communicator: there a device-only
// communicator (api/memory_kinds.h) makes every collective with a schedule "native"; it needs
// MPI initialized and takes the lock, as every call with a communicator does.
#include <mpix.h>

#include <algorithm>
#include <cctype>
#include <optional>
#include <string>
#include <string_view>

#include "api/call.h"
#include "api/checks.h"
#include "api/state.h"
#include "coll/engine.h"
#include "cuda/accelerator.h"
#include "cuda/support.h"

namespace gpurun::api {
namespace {

using cuda::support::Family;

struct Name {
  std::string_view name;  // lower case, without "mpi_", a leading "i" or a "_init"/"_c" suffix
  Family family;
};

// The calls that take message buffers, by family. Nonblocking (I...), persistent (..._init)
// and large-count (..._c) forms are found by their base name.
constexpr Name kNames[] = {
    {"send", Family::kPointToPoint},         {"recv", Family::kPointToPoint},
    {"ssend", Family::kPointToPoint},        {"rsend", Family::kPointToPoint},
    {"bsend", Family::kPointToPoint},        {"sendrecv", Family::kPointToPoint},
    {"sendrecv_replace", Family::kPointToPoint}, {"mrecv", Family::kPointToPoint},
    {"psend", Family::kPointToPoint},        {"precv", Family::kPointToPoint},
    {"bcast", Family::kCollective},          {"gather", Family::kCollective},
    {"gatherv", Family::kCollective},        {"scatter", Family::kCollective},
    {"scatterv", Family::kCollective},       {"allgather", Family::kCollective},
    {"allgatherv", Family::kCollective},     {"alltoall", Family::kCollective},
    {"alltoallv", Family::kCollective},      {"alltoallw", Family::kCollective},
    {"neighbor_allgather", Family::kCollective}, {"neighbor_allgatherv", Family::kCollective},
    {"neighbor_alltoall", Family::kCollective},  {"neighbor_alltoallv", Family::kCollective},
    {"neighbor_alltoallw", Family::kCollective}, {"reduce", Family::kReduction},
    {"allreduce", Family::kReduction},       {"reduce_scatter", Family::kReduction},
    {"reduce_scatter_block", Family::kReduction}, {"scan", Family::kReduction},
    {"exscan", Family::kReduction},          {"reduce_local", Family::kReduceLocal},
    {"pack", Family::kPack},                 {"unpack", Family::kPack},
    {"pack_external", Family::kPack},        {"unpack_external", Family::kPack},
};

std::optional<Family> lookup(std::string_view base) {
  for (const Name& n : kNames)
    if (n.name == base) return n.family;
  return std::nullopt;
}

bool strip_suffix(std::string& s, std::string_view suffix) {
  if (s.size() <= suffix.size() || !s.ends_with(suffix)) return false;
  s.resize(s.size() - suffix.size());
  return true;
}

struct Lookup {
  Family family;
  std::string base;  // "allreduce" for MPI_Iallreduce_init
};

std::optional<Lookup> found(std::string_view base) {
  if (auto family = lookup(base)) return Lookup{*family, std::string(base)};
  return std::nullopt;
}

// The stream forms of MPI calls ("send_enqueue", "stream_isend", without "mpix_" or "_c"):
// their operations take the paths of the MPI call's (api/enqueue.h), so the base name stays.
bool strip_stream_form(std::string& name) {
  if (strip_suffix(name, "_enqueue")) return true;
  if (!name.starts_with("stream_")) return false;
  name.erase(0, 7);
  return true;
}

// The family and base name of an MPI call's name ("MPI_Isend_c", "mpi_allreduce_init",
// "MPIX_Send_enqueue", "MPIX_Stream_isend"), if it takes buffers.
std::optional<Lookup> family_of(const char* call) {
  std::string name(call);
  std::transform(name.begin(), name.end(), name.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  if (name.starts_with("pmpi")) name.erase(0, 1);
  bool mpix = name.starts_with("mpix_");
  if (!mpix && !name.starts_with("mpi_")) return std::nullopt;
  name.erase(0, mpix ? 5 : 4);
  strip_suffix(name, "_c");
  if (mpix && !strip_stream_form(name)) return std::nullopt;
  bool persistent = strip_suffix(name, "_init");
  if (auto l = found(name)) return l;
  // MPI_Isend, MPI_Imrecv, MPI_Iallreduce: the nonblocking forms have no persistent twin.
  if (!persistent && name.size() > 1 && name[0] == 'i') return found(name.substr(1));
  return std::nullopt;
}

// `device_only`: the call is on a device-only communicator (api/memory_kinds.h).
cuda::support::Path path_of(const Lookup& l, bool device_only = false) {
  if (l.base == "pack_external" || l.base == "unpack_external")
    return cuda::support::Path::kRefused;
  bool collective = l.family == Family::kCollective || l.family == Family::kReduction;
  if (!collective || !cuda::usable()) return cuda::support::path(l.family).path;
  std::optional<coll::Collective> c = coll::collective_of(l.base);
  return c && coll::device_native(*c, device_only) ? cuda::support::Path::kNative
                                                   : cuda::support::Path::kStaged;
}

// The lookup of `call_name` for `call`, or the MPI_ERR_ARG it raises (through `comm`'s handler).
int look_up(const Call& call, MPI_Comm comm, const char* call_name, int* path,
            std::optional<Lookup>* found) {
  if (call_name == nullptr)
    return raise(call, comm, MPI_ERR_ARG, "argument call is a null pointer");
  GPURUN_CHECK_NOT_NULL(comm, path);
  *found = family_of(call_name);
  if (!*found)
    return raise(call, comm, MPI_ERR_ARG,
                 "argument call \"%.64s\" names no MPI call that takes a message buffer "
                 "(MPI_Send, MPI_Iallreduce, MPI_Pack_c, ...)",
                 call_name);
  return MPI_SUCCESS;
}

int to_mpix(cuda::support::Path path) {
  switch (path) {
    case cuda::support::Path::kNative:
      return MPIX_CUDA_PATH_NATIVE;
    case cuda::support::Path::kStaged:
      return MPIX_CUDA_PATH_STAGED;
    case cuda::support::Path::kRefused:
      break;
  }
  return MPIX_CUDA_PATH_REFUSED;
}

}  // namespace
}  // namespace gpurun::api

using gpurun::api::Call;
using gpurun::api::raise;

extern "C" int PMPIX_Query_cuda_support(void) { return gpurun::cuda::usable() ? 1 : 0; }
GPURUN_MPI_ALIAS(MPIX_Query_cuda_support)

extern "C" int PMPIX_GPU_query_support(int gpu_type, int* is_supported) {
  const Call call{"MPIX_GPU_query_support"};
  GPURUN_CHECK_NOT_NULL(MPI_COMM_WORLD, is_supported);
  switch (gpu_type) {
    case MPIX_GPU_SUPPORT_CUDA:
      *is_supported = gpurun::cuda::usable() ? 1 : 0;
      return MPI_SUCCESS;
    case MPIX_GPU_SUPPORT_ZE:
    case MPIX_GPU_SUPPORT_HIP:
      *is_supported = 0;
      return MPI_SUCCESS;
    default:
      return raise(call, MPI_COMM_WORLD, MPI_ERR_ARG,
                   "argument gpu_type %d is none of MPIX_GPU_SUPPORT_CUDA (0), "
                   "MPIX_GPU_SUPPORT_ZE (1), MPIX_GPU_SUPPORT_HIP (2)",
                   gpu_type);
  }
}
GPURUN_MPI_ALIAS(MPIX_GPU_query_support)

extern "C" int PMPIX_Query_hip_support(void) { return 0; }
GPURUN_MPI_ALIAS(MPIX_Query_hip_support)

extern "C" int PMPIX_Query_ze_support(void) { return 0; }
GPURUN_MPI_ALIAS(MPIX_Query_ze_support)

extern "C" int PMPIX_Query_cuda_path(const char* call_name, int* path) {
  const Call call{"MPIX_Query_cuda_path"};
  std::optional<gpurun::api::Lookup> found;
  if (int rc = gpurun::api::look_up(call, MPI_COMM_WORLD, call_name, path, &found);
      rc != MPI_SUCCESS)
    return rc;
  *path = gpurun::api::to_mpix(gpurun::api::path_of(*found));
  return MPI_SUCCESS;
}
GPURUN_MPI_ALIAS(MPIX_Query_cuda_path)

extern "C" int PMPIX_Comm_query_cuda_path(MPI_Comm comm, const char* call_name, int* path) {
  GPURUN_API_ENTER("MPIX_Comm_query_cuda_path");
  GPURUN_CHECK_COMM(entry, comm);
  std::optional<gpurun::api::Lookup> found;
  if (int rc = gpurun::api::look_up(call, comm, call_name, path, &found); rc != MPI_SUCCESS)
    return rc;
  *path = gpurun::api::to_mpix(gpurun::api::path_of(*found, entry->device_only));
  return MPI_SUCCESS;
}
GPURUN_MPI_ALIAS(MPIX_Comm_query_cuda_path)

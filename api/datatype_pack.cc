// Packing typed data into user buffers: MPI_Pack, MPI_Unpack, MPI_Pack_size (and their _c
// forms), and addresses: MPI_Get_address, MPI_Aint_add, MPI_Aint_diff, the deprecated
// MPI_Address. The packed form is the native one that the pml sends (count x size bytes, no
// header), so MPI_PACKED data can travel between any two ranks of one host. MPI_Pack and
// MPI_Unpack take device and managed memory on either side (api/device_local.h: the device's
// pack kernels when the accelerator has them, else staged through host memory).
#include <climits>
#include <cstdint>

#include "api/checks.h"
#include "api/datatype_args.h"
#include "api/device_local.h"
#include "api/memory.h"

namespace gpurun::api {
namespace {

// The packed bytes of `count` elements of `t` into `*bytes`, or an error on overflow.
int packed_size(const Call& call, MPI_Comm comm, std::int64_t count, const core::Datatype& t,
                std::int64_t* bytes) {
  if (!__builtin_mul_overflow(count, t.size(), bytes)) [[likely]]
    return MPI_SUCCESS;
  return raise(call, comm, MPI_ERR_COUNT, "argument count %lld of %s is too large to pack",
               static_cast<long long>(count), t.name().c_str());
}

struct PackCall {
  const void* inbuf;
  std::int64_t count;
  MPI_Datatype datatype;
  void* outbuf;
  std::int64_t outsize;
  MPI_Comm comm;
};

// Checks shared by MPI_Pack and MPI_Unpack: the communicator, the count, the type, and a
// position inside the packed buffer of a.outsize bytes. a.inbuf is the user's typed buffer,
// argument `typed_arg`; a.outbuf the packed one, `packed_arg`. Neither may be MPI_IN_PLACE.
int check_move(const Call& call, const PackCall& a, const char* typed_arg, const char* packed_arg,
               std::int64_t position, const core::Datatype** type, std::int64_t* bytes) {
  GPURUN_CHECK_COMM(entry, a.comm);
  GPURUN_CHECK_COUNT(a.comm, a.count);
  if (a.inbuf == MPI_IN_PLACE || a.outbuf == MPI_IN_PLACE) {
    return raise(call, a.comm, MPI_ERR_BUFFER,
                 "argument %s is MPI_IN_PLACE, which %s does not take",
                 a.inbuf == MPI_IN_PLACE ? typed_arg : packed_arg, call.name);
  }
  if (int rc = lookup_committed(call, a.comm, a.datatype, "datatype", type)) return rc;
  const core::Datatype* t = *type;
  // A null buffer is an error unless the type's displacements are absolute (MPI_BOTTOM).
  if (a.inbuf == nullptr && a.count > 0 && t->size() > 0 && t->true_lb() == 0)
    return raise(call, a.comm, MPI_ERR_BUFFER, "argument %s is a null pointer with count %lld",
                 typed_arg, static_cast<long long>(a.count));
  if (position < 0 || position > a.outsize)
    return raise(call, a.comm, MPI_ERR_ARG,
                 "argument position %lld is outside the buffer (0..%lld)",
                 static_cast<long long>(position), static_cast<long long>(a.outsize));
  return packed_size(call, a.comm, a.count, *t, bytes);
}

// Moves `bytes` between the typed buffer of `a` and `packed` (the packed buffer at the
// position), in the direction of MPI_Pack when `to_packed`.
int move(const Call& call, const PackCall& a, const core::Datatype& t, std::byte* packed,
         std::int64_t bytes, bool to_packed) {
  void* typed = const_cast<void*>(a.inbuf);
  if (!g_device_memory) [[likely]] {
    if (to_packed)
      t.pack(typed, a.count, 0, packed, static_cast<std::size_t>(bytes));
    else
      t.unpack(typed, a.count, 0, packed, static_cast<std::size_t>(bytes));
    return MPI_SUCCESS;
  }
  local::Move m{.type = &t, .typed = typed, .count = a.count, .packed = packed};
  Result<local::Path> r =
      to_packed ? local::pack(accel::current(), m) : local::unpack(accel::current(), m);
  if (r.ok()) return MPI_SUCCESS;
  return raise_status(call, a.comm, r.status());
}

// Whether `count` elements of contiguous type `t` at `typed` share a byte with [packed, packed +
// bytes): the copies assume they do not (the standard makes such calls erroneous; they came out
// garbled). Types with gaps are left alone: a buffer in their gaps is no overlap.
bool overlaps(const void* typed, std::int64_t count, const core::Datatype& t,
              const std::byte* packed, std::int64_t bytes) {
  if (count <= 0 || bytes <= 0 || !t.contiguous()) return false;
  auto first = reinterpret_cast<std::intptr_t>(typed) + t.true_lb();
  auto p = reinterpret_cast<std::intptr_t>(packed);
  return first < p + bytes && p < first + bytes;
}

int refuse_overlap(const Call& call, const PackCall& a) {
  return raise(call, a.comm, MPI_ERR_BUFFER,
               "arguments inbuf and outbuf overlap: the packed bytes would overwrite the data");
}

template <class Count>
int pack(const Call& call, const PackCall& a, Count* position) {
  if (int rc = check_pointer(call, a.comm, position, "position")) return rc;
  const core::Datatype* t;
  std::int64_t bytes;
  if (int rc = check_move(call, a, "inbuf", "outbuf", *position, &t, &bytes)) return rc;
  if (bytes > a.outsize - *position)
    return raise(call, a.comm, MPI_ERR_TRUNCATE,
                 "argument outsize %lld leaves %lld bytes after position, the data take %lld",
                 static_cast<long long>(a.outsize), static_cast<long long>(a.outsize - *position),
                 static_cast<long long>(bytes));
  if (bytes > 0 && a.outbuf == nullptr)
    return raise(call, a.comm, MPI_ERR_BUFFER, "argument outbuf is a null pointer");
  std::byte* packed = static_cast<std::byte*>(a.outbuf) + *position;
  if (overlaps(a.inbuf, a.count, *t, packed, bytes)) return refuse_overlap(call, a);
  if (int rc = move(call, a, *t, packed, bytes, true)) return rc;
  *position += static_cast<Count>(bytes);
  return MPI_SUCCESS;
}

// `a` describes the unpack as a pack the other way: inbuf is the typed output buffer, outbuf
// the packed input, outsize its size.
template <class Count>
int unpack(const Call& call, const PackCall& a, Count* position) {
  if (int rc = check_pointer(call, a.comm, position, "position")) return rc;
  const core::Datatype* t;
  std::int64_t bytes;
  if (int rc = check_move(call, a, "outbuf", "inbuf", *position, &t, &bytes)) return rc;
  if (bytes > a.outsize - *position)
    return raise(call, a.comm, MPI_ERR_TRUNCATE,
                 "argument insize %lld leaves %lld bytes after position, the data take %lld",
                 static_cast<long long>(a.outsize), static_cast<long long>(a.outsize - *position),
                 static_cast<long long>(bytes));
  if (bytes > 0 && a.outbuf == nullptr)
    return raise(call, a.comm, MPI_ERR_BUFFER, "argument inbuf is a null pointer");
  std::byte* packed = static_cast<std::byte*>(a.outbuf) + *position;
  if (overlaps(a.inbuf, a.count, *t, packed, bytes)) return refuse_overlap(call, a);
  if (int rc = move(call, a, *t, packed, bytes, false)) return rc;
  *position += static_cast<Count>(bytes);
  return MPI_SUCCESS;
}

int pack_size(const Call& call, std::int64_t count, MPI_Datatype datatype, MPI_Comm comm,
              MPI_Count* size) {
  GPURUN_CHECK_COMM(entry, comm);
  GPURUN_CHECK_COUNT(comm, count);
  const core::Datatype* t;
  if (int rc = lookup_committed(call, comm, datatype, "datatype", &t)) return rc;
  if (int rc = check_pointer(call, comm, size, "size")) return rc;
  std::int64_t bytes;
  if (int rc = packed_size(call, comm, count, *t, &bytes)) return rc;
  *size = bytes;
  return MPI_SUCCESS;
}

}  // namespace
}  // namespace gpurun::api

using gpurun::api::Call;
using gpurun::api::PackCall;

extern "C" int PMPI_Pack(const void* inbuf, int incount, MPI_Datatype datatype, void* outbuf,
                         int outsize, int* position, MPI_Comm comm) {
  GPURUN_API_ENTER("MPI_Pack");
  return gpurun::api::pack(call, PackCall{inbuf, incount, datatype, outbuf, outsize, comm},
                           position);
}
GPURUN_MPI_ALIAS(MPI_Pack)

extern "C" int PMPI_Pack_c(const void* inbuf, MPI_Count incount, MPI_Datatype datatype,
                           void* outbuf, MPI_Count outsize, MPI_Count* position, MPI_Comm comm) {
  GPURUN_API_ENTER("MPI_Pack_c");
  return gpurun::api::pack(call, PackCall{inbuf, incount, datatype, outbuf, outsize, comm},
                           position);
}
GPURUN_MPI_ALIAS(MPI_Pack_c)

extern "C" int PMPI_Unpack(const void* inbuf, int insize, int* position, void* outbuf, int outcount,
                           MPI_Datatype datatype, MPI_Comm comm) {
  GPURUN_API_ENTER("MPI_Unpack");
  return gpurun::api::unpack(
      call, PackCall{outbuf, outcount, datatype, const_cast<void*>(inbuf), insize, comm}, position);
}
GPURUN_MPI_ALIAS(MPI_Unpack)

extern "C" int PMPI_Unpack_c(const void* inbuf, MPI_Count insize, MPI_Count* position, void* outbuf,
                             MPI_Count outcount, MPI_Datatype datatype, MPI_Comm comm) {
  GPURUN_API_ENTER("MPI_Unpack_c");
  return gpurun::api::unpack(
      call, PackCall{outbuf, outcount, datatype, const_cast<void*>(inbuf), insize, comm}, position);
}
GPURUN_MPI_ALIAS(MPI_Unpack_c)

extern "C" int PMPI_Pack_size(int incount, MPI_Datatype datatype, MPI_Comm comm, int* size) {
  GPURUN_API_ENTER("MPI_Pack_size");
  MPI_Count bytes = 0;
  if (int rc =
          gpurun::api::pack_size(call, incount, datatype, comm, size == nullptr ? nullptr : &bytes))
    return rc;
  if (bytes > INT_MAX)
    return gpurun::api::raise(call, comm, MPI_ERR_VALUE_TOO_LARGE,
                              "the packed size %lld does not fit in argument size (use "
                              "MPI_Pack_size_c)",
                              static_cast<long long>(bytes));
  *size = static_cast<int>(bytes);
  return MPI_SUCCESS;
}
GPURUN_MPI_ALIAS(MPI_Pack_size)

extern "C" int PMPI_Pack_size_c(MPI_Count incount, MPI_Datatype datatype, MPI_Comm comm,
                                MPI_Count* size) {
  GPURUN_API_ENTER("MPI_Pack_size_c");
  return gpurun::api::pack_size(call, incount, datatype, comm, size);
}
GPURUN_MPI_ALIAS(MPI_Pack_size_c)

extern "C" int PMPI_Get_address(const void* location, MPI_Aint* address) {
  GPURUN_API_ENTER("MPI_Get_address");
  if (int rc = gpurun::api::check_pointer(call, MPI_COMM_NULL, address, "address")) return rc;
  *address = static_cast<MPI_Aint>(reinterpret_cast<std::uintptr_t>(location));
  return MPI_SUCCESS;
}
GPURUN_MPI_ALIAS(MPI_Get_address)

extern "C" int PMPI_Address(void* location, MPI_Aint* address) {
  GPURUN_API_ENTER("MPI_Address");
  if (int rc = gpurun::api::check_pointer(call, MPI_COMM_NULL, address, "address")) return rc;
  *address = static_cast<MPI_Aint>(reinterpret_cast<std::uintptr_t>(location));
  return MPI_SUCCESS;
}
GPURUN_MPI_ALIAS(MPI_Address)

// Address arithmetic on absolute addresses: plain integer arithmetic on this platform (flat
// address space). No error can happen, and no MPI state is touched.
extern "C" MPI_Aint PMPI_Aint_add(MPI_Aint base, MPI_Aint disp) {
  return static_cast<MPI_Aint>(static_cast<std::uintptr_t>(base) +
                               static_cast<std::uintptr_t>(disp));
}
GPURUN_MPI_ALIAS(MPI_Aint_add)

extern "C" MPI_Aint PMPI_Aint_diff(MPI_Aint addr1, MPI_Aint addr2) {
  return static_cast<MPI_Aint>(static_cast<std::uintptr_t>(addr1) -
                               static_cast<std::uintptr_t>(addr2));
}
GPURUN_MPI_ALIAS(MPI_Aint_diff)

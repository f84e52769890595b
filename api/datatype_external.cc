// The portable "external32" representation: MPI_Pack_external, MPI_Unpack_external,
// MPI_Pack_external_size and their _c forms. The data are packed natively, then converted
// (runtime/core/datatype_external.h): in place when the external32 size is the native one,
// through a scratch buffer otherwise (types with C long or wchar_t).
#include "runtime/core/datatype_external.h"

#include <cstring>
#include <vector>

#include "api/datatype_args.h"
#include "api/memory.h"

namespace gpurun::api {
namespace {

int check_datarep(const Call& call, const char* datarep) {
  if (int rc = check_pointer(call, MPI_COMM_NULL, datarep, "datarep")) return rc;
  if (std::strcmp(datarep, "external32") == 0) return MPI_SUCCESS;
  return raise(call, MPI_COMM_NULL, MPI_ERR_ARG,
               "argument datarep \"%.64s\" is not a representation gpurun knows (\"external32\")",
               datarep);
}

struct ExternalCall {
  const char* datarep;
  std::int64_t count;
  MPI_Datatype datatype;
  std::int64_t size;  // of the external32 buffer
};

// Checks the arguments; `*bytes` = the external32 bytes of the data.
int check_external(const Call& call, const ExternalCall& a, const void* typed,
                   const char* typed_arg, std::int64_t position, const core::Datatype** t,
                   std::int64_t* bytes) {
  if (int rc = check_datarep(call, a.datarep)) return rc;
  if (int rc = check_non_negative(call, a.count, MPI_ERR_COUNT, "count")) return rc;
  if (int rc = lookup_committed(call, MPI_COMM_NULL, a.datatype, "datatype", t)) return rc;
  if (typed == nullptr && a.count > 0 && (*t)->size() > 0 && (*t)->true_lb() == 0)
    return raise(call, MPI_COMM_NULL, MPI_ERR_BUFFER, "argument %s is a null pointer", typed_arg);
  if (__builtin_mul_overflow(a.count, (*t)->external32_size(), bytes))
    return raise(call, MPI_COMM_NULL, MPI_ERR_COUNT, "argument count is too large to pack");
  if (position < 0 || position > a.size || *bytes > a.size - position)
    return raise(call, MPI_COMM_NULL, MPI_ERR_TRUNCATE,
                 "the data take %lld bytes, more than the buffer of %lld has after position %lld",
                 static_cast<long long>(*bytes), static_cast<long long>(a.size),
                 static_cast<long long>(position));
  return MPI_SUCCESS;
}

// external32 is converted on the host: device and managed buffers are refused (MPI_Pack and
// MPI_Unpack take them; MPIX_Query_cuda_path says "refused" for these calls).
int refuse_device(const Call& call, const void* buffer, const char* name) {
  if (accel::is_host(memory_of(buffer))) [[likely]]
    return MPI_SUCCESS;
  return raise(call, MPI_COMM_NULL, MPI_ERR_UNSUPPORTED_OPERATION,
               "argument %s is device memory, which the external32 conversion does not take "
               "(MPI_Pack/MPI_Unpack take it)",
               name);
}

template <class Count>
int pack_external(const Call& call, const ExternalCall& a, const void* inbuf, void* outbuf,
                  Count* position) {
  if (int rc = check_pointer(call, MPI_COMM_NULL, position, "position")) return rc;
  const core::Datatype* t;
  std::int64_t bytes = 0;  // set by check_external when it succeeds
  if (int rc = check_external(call, a, inbuf, "inbuf", *position, &t, &bytes)) return rc;
  if (bytes == 0) return MPI_SUCCESS;
  if (int rc = check_pointer(call, MPI_COMM_NULL, outbuf, "outbuf")) return rc;
  if (int rc = refuse_device(call, inbuf, "inbuf")) return rc;
  if (int rc = refuse_device(call, outbuf, "outbuf")) return rc;
  auto* out = static_cast<std::byte*>(outbuf) + *position;
  auto native_bytes = static_cast<std::size_t>(a.count * t->size());
  if (t->external32_size() == t->size()) {
    t->pack(inbuf, a.count, 0, out, native_bytes);
    core::to_external32(*t, a.count, out, out);
  } else {
    std::vector<std::byte> native(native_bytes);
    t->pack(inbuf, a.count, 0, native.data(), native_bytes);
    core::to_external32(*t, a.count, native.data(), out);
  }
  *position += static_cast<Count>(bytes);
  return MPI_SUCCESS;
}

template <class Count>
int unpack_external(const Call& call, const ExternalCall& a, const void* inbuf, void* outbuf,
                    Count* position) {
  if (int rc = check_pointer(call, MPI_COMM_NULL, position, "position")) return rc;
  const core::Datatype* t;
  std::int64_t bytes = 0;  // set by check_external when it succeeds
  if (int rc = check_external(call, a, outbuf, "outbuf", *position, &t, &bytes)) return rc;
  if (bytes == 0) return MPI_SUCCESS;
  if (int rc = check_pointer(call, MPI_COMM_NULL, inbuf, "inbuf")) return rc;
  if (int rc = refuse_device(call, inbuf, "inbuf")) return rc;
  if (int rc = refuse_device(call, outbuf, "outbuf")) return rc;
  // The input is the caller's and read-only: convert a copy.
  const auto* in = static_cast<const std::byte*>(inbuf) + *position;
  std::vector<std::byte> native(static_cast<std::size_t>(a.count * t->size()));
  core::from_external32(*t, a.count, in, native.data());
  t->unpack(outbuf, a.count, 0, native.data(), native.size());
  *position += static_cast<Count>(bytes);
  return MPI_SUCCESS;
}

int external_size(const Call& call, const char* datarep, std::int64_t count, MPI_Datatype datatype,
                  MPI_Count* size) {
  if (int rc = check_datarep(call, datarep)) return rc;
  if (int rc = check_non_negative(call, count, MPI_ERR_COUNT, "incount")) return rc;
  const core::Datatype* t;
  if (int rc = lookup_committed(call, MPI_COMM_NULL, datatype, "datatype", &t)) return rc;
  if (int rc = check_pointer(call, MPI_COMM_NULL, size, "size")) return rc;
  if (__builtin_mul_overflow(count, t->external32_size(), size))
    return raise(call, MPI_COMM_NULL, MPI_ERR_COUNT, "argument incount is too large to pack");
  return MPI_SUCCESS;
}

}  // namespace
}  // namespace gpurun::api

using gpurun::api::Call;
using gpurun::api::ExternalCall;

extern "C" int PMPI_Pack_external(const char* datarep, const void* inbuf, int incount,
                                  MPI_Datatype datatype, void* outbuf, MPI_Aint outsize,
                                  MPI_Aint* position) {
  GPURUN_API_ENTER("MPI_Pack_external");
  return gpurun::api::pack_external(call, ExternalCall{datarep, incount, datatype, outsize}, inbuf,
                                    outbuf, position);
}
GPURUN_MPI_ALIAS(MPI_Pack_external)

extern "C" int PMPI_Pack_external_c(const char* datarep, const void* inbuf, MPI_Count incount,
                                    MPI_Datatype datatype, void* outbuf, MPI_Count outsize,
                                    MPI_Count* position) {
  GPURUN_API_ENTER("MPI_Pack_external_c");
  return gpurun::api::pack_external(call, ExternalCall{datarep, incount, datatype, outsize}, inbuf,
                                    outbuf, position);
}
GPURUN_MPI_ALIAS(MPI_Pack_external_c)

extern "C" int PMPI_Unpack_external(const char datarep[], const void* inbuf, MPI_Aint insize,
                                    MPI_Aint* position, void* outbuf, int outcount,
                                    MPI_Datatype datatype) {
  GPURUN_API_ENTER("MPI_Unpack_external");
  return gpurun::api::unpack_external(call, ExternalCall{datarep, outcount, datatype, insize},
                                      inbuf, outbuf, position);
}
GPURUN_MPI_ALIAS(MPI_Unpack_external)

extern "C" int PMPI_Unpack_external_c(const char datarep[], const void* inbuf, MPI_Count insize,
                                      MPI_Count* position, void* outbuf, MPI_Count outcount,
                                      MPI_Datatype datatype) {
  GPURUN_API_ENTER("MPI_Unpack_external_c");
  return gpurun::api::unpack_external(call, ExternalCall{datarep, outcount, datatype, insize},
                                      inbuf, outbuf, position);
}
GPURUN_MPI_ALIAS(MPI_Unpack_external_c)

extern "C" int PMPI_Pack_external_size(const char* datarep, int incount, MPI_Datatype datatype,
                                       MPI_Aint* size) {
  GPURUN_API_ENTER("MPI_Pack_external_size");
  MPI_Count bytes = 0;
  if (int rc = gpurun::api::external_size(call, datarep, incount, datatype,
                                          size == nullptr ? nullptr : &bytes))
    return rc;
  *size = bytes;
  return MPI_SUCCESS;
}
GPURUN_MPI_ALIAS(MPI_Pack_external_size)

extern "C" int PMPI_Pack_external_size_c(const char* datarep, MPI_Count incount,
                                         MPI_Datatype datatype, MPI_Count* size) {
  GPURUN_API_ENTER("MPI_Pack_external_size_c");
  return gpurun::api::external_size(call, datarep, incount, datatype, size);
}
GPURUN_MPI_ALIAS(MPI_Pack_external_size_c)

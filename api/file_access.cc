// MPI-IO's data access: one function serves every read and write call (api/file_calls_rw.cc
// has their entry points). The memory side is the datatype's packed stream (the buffer itself
// when the type is contiguous in host memory), the file side the view (runtime/io).
#include "api/file_access.h"

#include <cstring>
#include <vector>

#include "api/memory.h"
#include "api/requests.h"
#include "runtime/accel/accelerator.h"
#include "runtime/core/datatype_external.h"

namespace gpurun::api {
namespace {

int check_mode(const Call& call, MPI_File fh, const File& f, const Access& a) {
  if (a.write && (f.amode & MPI_MODE_RDONLY))
    return raise_file(call, fh, MPI_ERR_READ_ONLY,
                      "argument fh: the file was opened with MPI_MODE_RDONLY");
  if (!a.write && (f.amode & MPI_MODE_WRONLY))
    return raise_file(call, fh, MPI_ERR_ACCESS,
                      "argument fh: the file was opened with MPI_MODE_WRONLY");
  if ((f.amode & MPI_MODE_SEQUENTIAL) &&
      (a.position == Position::kAt || a.position == Position::kIndividual)) {
    return raise_file(call, fh, MPI_ERR_UNSUPPORTED_OPERATION,
                      "argument fh: the file was opened with MPI_MODE_SEQUENTIAL: only the "
                      "shared file pointer may be used");
  }
  return MPI_SUCCESS;
}

// Looks up `datatype` into *out (MPI_ERR_TYPE when it is none or not committed).
int check_type(const Call& call, MPI_File fh, MPI_Datatype datatype, const core::Datatype** out) {
  GPURUN_CHECK_FILE_TYPE(fh, "datatype", type, datatype);
  *out = type;
  return MPI_SUCCESS;
}

int check_args(const Call& call, MPI_File fh, const File& f, const Access& a, MPI_Offset offset,
               const void* buf, MPI_Count count, const core::Datatype& type, MPI_Status* status) {
  if (int rc = check_mode(call, fh, f, a); rc != MPI_SUCCESS) return rc;
  if (a.position == Position::kAt && offset < 0)
    return raise_file(call, fh, MPI_ERR_ARG, "argument offset %lld is negative", (long long)offset);
  if (count < 0)
    return raise_file(call, fh, MPI_ERR_COUNT, "argument count %lld is negative", (long long)count);
  if (buf == nullptr && count > 0 && type.size() > 0 && type.true_lb() == 0)
    return raise_file(call, fh, MPI_ERR_BUFFER, "argument buf is a null pointer");
  if (buf == MPI_IN_PLACE)
    return raise_file(call, fh, MPI_ERR_BUFFER,
                      "argument buf is MPI_IN_PLACE, which only collective communication takes");
  if (status == nullptr)
    return raise_file(call, fh, MPI_ERR_ARG, "argument status is a null pointer");
  if ((count * type.size()) % f.view.etype->size() != 0) {
    return raise_file(call, fh, MPI_ERR_TYPE,
                      "argument datatype: %lld bytes are not a whole number of the view's etype "
                      "(%lld bytes)",
                      (long long)(count * type.size()), (long long)f.view.etype->size());
  }
  return check_representation(call, fh, f.datarep, type, "datatype");
}

// Where the access starts, in etypes; moves the shared pointer past it (kShared, kOrdered).
Result<std::int64_t> start_of(File& f, const Access& a, MPI_Offset offset, std::int64_t etypes) {
  switch (a.position) {
    case Position::kAt:
      return std::int64_t{offset};
    case Position::kIndividual:
      return f.pointer;
    case Position::kShared:
      if (!f.shared.usable()) return shared_position(f).status();
      return f.shared.fetch_add(etypes);
    case Position::kOrdered:
      break;
  }
  long long mine = etypes, before = 0, total = 0, base = 0;
  int rank = 0;
  PMPI_Comm_rank(f.comm, &rank);
  PMPI_Exscan(&mine, &before, 1, MPI_LONG_LONG, MPI_SUM, f.comm);
  PMPI_Allreduce(&mine, &total, 1, MPI_LONG_LONG, MPI_SUM, f.comm);
  long long failed = 0;
  Status st;
  if (rank == 0) {
    before = 0;
    auto got = f.shared.usable() ? f.shared.fetch_add(total) : shared_position(f);
    if (got.ok()) base = got.value();
    failed = got.ok() ? 0 : 1;
    st = got.ok() ? Status() : got.status();
  }
  long long sent[2] = {base, failed};
  PMPI_Bcast(sent, 2, MPI_LONG_LONG, 0, f.comm);
  if (sent[1] != 0) return st.ok() ? Status(ErrorCode::kIo, "the shared file pointer failed") : st;
  return std::int64_t{sent[0] + before};
}

// The transfer itself, between the user's buffer and the file; returns the bytes moved.
Result<std::int64_t> transfer(File& f, const Access& a, MPI_Offset offset, const void* buf,
                              MPI_Count count, MPI_Datatype datatype, const core::Datatype& type) {
  std::int64_t bytes = count * type.size(), unit = f.view.etype->size();
  GPURUN_ASSIGN_OR_RETURN(std::int64_t start, start_of(f, a, offset, bytes / unit));
  PackedStream stream;
  GPURUN_TRY(stream.pack(buf, count, type, a.write, conversion_of(f, datatype)));
  std::vector<io::Extent> runs = io::view_extents(f.view, start * unit, bytes);
  GPURUN_ASSIGN_OR_RETURN(std::int64_t done, move_own(f, a.write, runs, stream.data()));
  if (!a.write) GPURUN_TRY(stream.unpack(const_cast<void*>(buf), count, type, done));
  if (a.position == Position::kIndividual) f.pointer = start + done / unit;
  return done;
}

}  // namespace

Status PackedStream::pack(const void* buf, MPI_Count count, const core::Datatype& type,
                          bool write, const Conversion& conversion) {
  auto bytes = static_cast<std::size_t>(count * type.size());
  auto* user = const_cast<std::byte*>(static_cast<const std::byte*>(buf));
  bool host = memory_of(buf) == accel::MemoryKind::kHost;
  if (!host && !type.contiguous()) return device_refused();
  const Datarep* rep = conversion.user;
  if (rep != nullptr && !host) {
    return Status(ErrorCode::kUnsupported,
                  "device memory through data representation \"" + rep->name +
                      "\" (its conversion functions take host memory)");
  }
  conversion_ = conversion;
  data_ = user + type.true_lb();
  bool convert = conversion.external32 || (rep != nullptr && rep->converts(write));
  if (host && type.contiguous() && !convert) return ok_status();
  staged_.resize(bytes);
  data_ = staged_.data();
  if (!write) return ok_status();
  if (rep != nullptr && rep->converts(true))
    return api::convert(*rep, true, user, conversion.handle, count, data_);
  if (host) type.pack(buf, count, 0, data_, bytes);
  if (!host) {
    GPURUN_TRY(accel::current().copy(data_, user + type.true_lb(),
                                     static_cast<std::int64_t>(bytes)));
  }
  if (conversion.external32) core::to_external32(type, count, data_, data_);
  return ok_status();
}

Status PackedStream::unpack(void* buf, MPI_Count count, const core::Datatype& type,
                            std::int64_t done) {
  if (data_ != staged_.data() || staged_.empty()) return ok_status();
  const Datarep* rep = conversion_.user;
  if (rep != nullptr && rep->converts(false) && type.size() > 0)
    return api::convert(*rep, false, buf, conversion_.handle, done / type.size(), data_);
  if (conversion_.external32) from_external32_in_place(type, done);
  auto* user = static_cast<std::byte*>(buf);
  if (memory_of(buf) == accel::MemoryKind::kHost) {
    type.unpack(user, count, 0, data_, static_cast<std::size_t>(done));
    return ok_status();
  }
  return accel::current().copy(user + type.true_lb(), data_, done);
}

// The whole elements of `type` in the first `done` bytes, then what a last, cut one holds
// (converted as a whole in a copy, its missing bytes zero).
void PackedStream::from_external32_in_place(const core::Datatype& type, std::int64_t done) {
  if (type.size() <= 0) return;
  std::int64_t whole = done / type.size(), rest = done % type.size();
  core::from_external32(type, whole, data_, data_);
  if (rest == 0) return;
  std::vector<std::byte> last(static_cast<std::size_t>(type.size()));
  std::byte* at = data_ + whole * type.size();
  std::memcpy(last.data(), at, static_cast<std::size_t>(rest));
  core::from_external32(type, 1, last.data(), last.data());
  std::memcpy(at, last.data(), static_cast<std::size_t>(rest));
}

Status PackedStream::device_refused() {
  return Status(ErrorCode::kUnsupported,
                "a non-contiguous datatype in device memory (MPI-IO stages device data "
                "through host memory, contiguous types only)");
}

Result<std::int64_t> move_own(const File& f, bool write, std::span<const io::Extent> runs,
                              std::byte* data) {
  if (!write) return io::read_extents(f.file, runs, data, f.atomic);
  GPURUN_TRY(io::write_extents(f.file, runs, data, f.atomic));
  std::int64_t bytes = 0;
  for (const io::Extent& e : runs) bytes += e.bytes;
  return bytes;
}

void set_access_status(MPI_Status* status, std::int64_t done) {
  if (status == MPI_STATUS_IGNORE) return;
  write_empty_status(status);
  set_status_bytes(status, static_cast<std::uint64_t>(done));
}

int file_access(const Call& call, MPI_File fh, const Access& access, MPI_Offset offset,
                const void* buf, MPI_Count count, MPI_Datatype datatype, MPI_Status* status) {
  GPURUN_CHECK_FILE(f, fh);
  const core::Datatype* type = nullptr;
  int rc = check_type(call, fh, datatype, &type);
  if (rc == MPI_SUCCESS) rc = check_args(call, fh, *f, access, offset, buf, count, *type, status);
  if (access.collective && access.position != Position::kOrdered)
    return collective_access(call, fh, *f, access, offset, buf, count, datatype, type, status,
                             rc);
  if (rc != MPI_SUCCESS) return access_refused(call, fh, access, rc);
  auto done = transfer(*f, access, offset, buf, count, datatype, *type);
  if (!done.ok()) return raise_file_status(call, fh, done.status());
  set_access_status(status, done.value());
  return MPI_SUCCESS;
}

int check_external32(const Call& call, MPI_File fh, const core::Datatype& type, const char* arg) {
  if (type.external32_size() == type.size()) return MPI_SUCCESS;
  return raise_file(call, fh, MPI_ERR_UNSUPPORTED_DATAREP,
                    "argument %s holds C long, unsigned long or wchar_t elements, whose "
                    "\"external32\" size differs from the native one: gpurun's \"external32\" "
                    "views take types whose elements keep their size",
                    arg);
}

int check_representation(const Call& call, MPI_File fh, const std::string& datarep,
                         const core::Datatype& type, const char* arg) {
  if (datarep == "external32") return check_external32(call, fh, type, arg);
  const Datarep* rep = find_datarep(datarep);
  return rep != nullptr ? check_datarep_extents(call, fh, *rep, type, arg) : MPI_SUCCESS;
}

Conversion conversion_of(const File& f, MPI_Datatype handle) {
  return Conversion{f.external32(), find_datarep(f.datarep), handle};
}

int access_refused(const Call& call, MPI_File fh, const Access& access, int rc) {
  File* f = find_file(fh);
  if (f == nullptr || !access.collective) return rc;
  if (access.position == Position::kOrdered) {
    // The others wait for this member's share of the shared pointer.
    (void)start_of(*f, access, 0, 0);
    return rc;
  }
  return collective_access(call, fh, *f, access, 0, nullptr, 0, MPI_DATATYPE_NULL, nullptr,
                           MPI_STATUS_IGNORE, rc);
}

int refused_by_another(const Call& call, MPI_File fh) {
  return raise_file(call, fh, MPI_ERR_ARG, "%s", kRefusedByAnother);
}

Result<std::int64_t> shared_position(const File& f) {
  if (!f.shared.usable()) {
    return Status(ErrorCode::kUnsupported, "the file has no shared file pointer: " + f.no_shared);
  }
  return f.shared.get();
}

int reset_shared(const Call& call, MPI_File fh, File& f, std::int64_t etypes) {
  int rank = 0;
  PMPI_Comm_rank(f.comm, &rank);
  Status st;
  if (rank == 0 && f.shared.usable()) st = f.shared.set(etypes);
  PMPI_Barrier(f.comm);
  return st.ok() ? MPI_SUCCESS : raise_file_status(call, fh, st);
}

}  // namespace gpurun::api

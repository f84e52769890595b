// MPI-IO: the calls on a whole open file: its size, sync, atomicity, group, hints and access
// mode.
#include "api/file.h"
#include "api/file_access.h"
#include "api/info.h"

namespace gpurun::api {
namespace {

int rank_in(const File& f) {
  int rank = 0;
  PMPI_Comm_rank(f.comm, &rank);
  return rank;
}

// set_size and preallocate: checked, done by the first member, then everyone waits for it.
int resize(const Call& call, MPI_File fh, File& f, MPI_Offset size, bool allocate) {
  int rc = MPI_SUCCESS;
  if (size < 0) {
    rc = raise_file(call, fh, MPI_ERR_ARG, "argument size %lld is negative", (long long)size);
  } else if ((f.amode & MPI_MODE_SEQUENTIAL) != 0) {
    rc = raise_file(call, fh, MPI_ERR_UNSUPPORTED_OPERATION,
                    "argument fh: the file was opened with MPI_MODE_SEQUENTIAL");
  }
  bool same = same_everywhere(f.comm, size);
  if (rc != MPI_SUCCESS) return rc;
  if (!same) {
    return raise_file(call, fh, MPI_ERR_ARG,
                      "argument size %lld differs between the members of the file's group",
                      (long long)size);
  }
  Status st;
  if (rank_in(f) == 0) st = allocate ? f.file.allocate(size) : f.file.truncate(size);
  int failed = st.ok() ? 0 : 1, any = 0;
  PMPI_Allreduce(&failed, &any, 1, MPI_INT, MPI_MAX, f.comm);
  if (!st.ok()) return raise_file_status(call, fh, st);
  if (any != 0) return raise_file(call, fh, MPI_ERR_IO, "the first member could not resize it");
  return MPI_SUCCESS;
}

}  // namespace
}  // namespace gpurun::api

using namespace gpurun::api;  // NOLINT(google-build-using-namespace): the C API's own layer

#define GPURUN_CHECK_OUT(fh, arg) \
  if ((arg) == nullptr)           \
  return raise_file(call, fh, MPI_ERR_ARG, "argument " #arg " is a null pointer")

extern "C" int PMPI_File_get_amode(MPI_File fh, int* amode) {
  GPURUN_API_ENTER("MPI_File_get_amode");
  GPURUN_CHECK_FILE(f, fh);
  GPURUN_CHECK_OUT(fh, amode);
  *amode = f->amode;
  return MPI_SUCCESS;
}

extern "C" int PMPI_File_get_group(MPI_File fh, MPI_Group* group) {
  GPURUN_API_ENTER("MPI_File_get_group");
  GPURUN_CHECK_FILE(f, fh);
  GPURUN_CHECK_OUT(fh, group);
  return PMPI_Comm_group(f->comm, group);
}

extern "C" int PMPI_File_get_info(MPI_File fh, MPI_Info* info_used) {
  GPURUN_API_ENTER("MPI_File_get_info");
  GPURUN_CHECK_FILE(f, fh);
  GPURUN_CHECK_OUT(fh, info_used);
  auto used = std::make_unique<gpurun::core::Info>(*f->info);
  add_hints_in_effect(*f, *used);
  *info_used = new_info_handle(std::move(used));
  return MPI_SUCCESS;
}

extern "C" int PMPI_File_set_info(MPI_File fh, MPI_Info info) {
  GPURUN_API_ENTER("MPI_File_set_info");
  GPURUN_CHECK_FILE(f, fh);
  if (info == MPI_INFO_NULL) return MPI_SUCCESS;
  const gpurun::core::Info* given = find_info(info);
  if (given == nullptr) {
    return raise_file(call, fh, MPI_ERR_INFO, "argument info (0x%x) is not an info",
                      static_cast<unsigned>(info));
  }
  for (int i = 0; i < given->size(); ++i) f->info->set(given->key(i), given->value(i));
  return MPI_SUCCESS;
}

extern "C" int PMPI_File_set_size(MPI_File fh, MPI_Offset size) {
  GPURUN_API_ENTER("MPI_File_set_size");
  GPURUN_CHECK_FILE(f, fh);
  return resize(call, fh, *f, size, false);
}

extern "C" int PMPI_File_preallocate(MPI_File fh, MPI_Offset size) {
  GPURUN_API_ENTER("MPI_File_preallocate");
  GPURUN_CHECK_FILE(f, fh);
  return resize(call, fh, *f, size, true);
}

extern "C" int PMPI_File_get_size(MPI_File fh, MPI_Offset* size) {
  GPURUN_API_ENTER("MPI_File_get_size");
  GPURUN_CHECK_FILE(f, fh);
  GPURUN_CHECK_OUT(fh, size);
  auto now = f->file.size();
  if (!now.ok()) return raise_file_status(call, fh, now.status());
  *size = now.value();
  return MPI_SUCCESS;
}

extern "C" int PMPI_File_sync(MPI_File fh) {
  GPURUN_API_ENTER("MPI_File_sync");
  GPURUN_CHECK_FILE(f, fh);
  gpurun::Status st = f->file.sync();
  PMPI_Barrier(f->comm);
  return st.ok() ? MPI_SUCCESS : raise_file_status(call, fh, st);
}

extern "C" int PMPI_File_set_atomicity(MPI_File fh, int flag) {
  GPURUN_API_ENTER("MPI_File_set_atomicity");
  GPURUN_CHECK_FILE(f, fh);
  if (!same_everywhere(f->comm, flag != 0)) {
    return raise_file(call, fh, MPI_ERR_ARG,
                      "argument flag differs between the members of the file's group");
  }
  f->atomic = flag != 0;
  return MPI_SUCCESS;
}

extern "C" int PMPI_File_get_atomicity(MPI_File fh, int* flag) {
  GPURUN_API_ENTER("MPI_File_get_atomicity");
  GPURUN_CHECK_FILE(f, fh);
  GPURUN_CHECK_OUT(fh, flag);
  *flag = f->atomic ? 1 : 0;
  return MPI_SUCCESS;
}

GPURUN_MPI_ALIAS(MPI_File_get_amode)
GPURUN_MPI_ALIAS(MPI_File_get_group)
GPURUN_MPI_ALIAS(MPI_File_get_info)
GPURUN_MPI_ALIAS(MPI_File_set_info)
GPURUN_MPI_ALIAS(MPI_File_set_size)
GPURUN_MPI_ALIAS(MPI_File_preallocate)
GPURUN_MPI_ALIAS(MPI_File_get_size)
GPURUN_MPI_ALIAS(MPI_File_sync)
GPURUN_MPI_ALIAS(MPI_File_set_atomicity)
GPURUN_MPI_ALIAS(MPI_File_get_atomicity)

// MPI-IO: views and file pointers (MPI_File_set_view/get_view, MPI_File_seek(_shared),
// MPI_File_get_position(_shared), MPI_File_get_byte_offset, MPI_File_get_type_extent).
#include <cstring>
#include <string>

#include "api/datatypes.h"
#include "api/file.h"
#include "api/file_access.h"

namespace gpurun::api {
namespace {

// Why `datarep` cannot be used, or nullptr for "native", "internal" (which the standard leaves
// to the implementation: here the bytes of "native", as every process of a job runs on one
// architecture), "external32" and those the program registered.
const char* datarep_problem(const char* datarep) {
  for (const char* known : {"native", "internal", "external32"})
    if (std::strcmp(datarep, known) == 0) return nullptr;
  if (find_datarep(datarep) != nullptr) return nullptr;
  return "is not a data representation (\"native\", \"internal\", \"external32\", or one "
         "registered with MPI_Register_datarep)";
}

// Checks the types of a view; returns the error code or MPI_SUCCESS.
int check_view_types(const Call& call, MPI_File fh, const core::Datatype& etype,
                     const core::Datatype& filetype) {
  if (etype.size() <= 0) return raise_file(call, fh, MPI_ERR_TYPE, "argument etype holds no data");
  if (filetype.size() <= 0 || filetype.size() % etype.size() != 0) {
    return raise_file(call, fh, MPI_ERR_TYPE,
                      "argument filetype holds %lld bytes, not a positive multiple of etype's %lld",
                      (long long)filetype.size(), (long long)etype.size());
  }
  return MPI_SUCCESS;
}

// The view that set_view's arguments describe, into `view`; the error code when they are bad.
int make_view(const Call& call, MPI_File fh, const File& f, MPI_Offset disp, MPI_Datatype etype,
              MPI_Datatype filetype, const char* datarep, io::FileView& view) {
  if (disp < 0 && !(disp == MPI_DISPLACEMENT_CURRENT && (f.amode & MPI_MODE_SEQUENTIAL))) {
    return raise_file(call, fh, MPI_ERR_ARG, "argument disp %lld is negative%s", (long long)disp,
                      disp == MPI_DISPLACEMENT_CURRENT ? " (MPI_DISPLACEMENT_CURRENT needs a file "
                                                         "opened with MPI_MODE_SEQUENTIAL)"
                                                       : "");
  }
  GPURUN_CHECK_FILE_TYPE(fh, "etype", et, etype);
  GPURUN_CHECK_FILE_TYPE(fh, "filetype", ft, filetype);
  if (int rc = check_view_types(call, fh, *et, *ft); rc != MPI_SUCCESS) return rc;
  if (datarep == nullptr)
    return raise_file(call, fh, MPI_ERR_ARG, "argument datarep is a null pointer");
  if (const char* problem = datarep_problem(datarep))
    return raise_file(call, fh, MPI_ERR_UNSUPPORTED_DATAREP, "argument datarep \"%s\" %s", datarep,
                      problem);
  if (int rc = check_representation(call, fh, datarep, *et, "etype"); rc != MPI_SUCCESS) return rc;
  if (int rc = check_representation(call, fh, datarep, *ft, "filetype"); rc != MPI_SUCCESS)
    return rc;
  view = io::FileView{disp, core::DatatypeRef(et), core::DatatypeRef(ft)};
  if (disp == MPI_DISPLACEMENT_CURRENT) {
    auto at = shared_position(f);
    if (!at.ok()) return raise_file_status(call, fh, at.status());
    view.disp = at.value() * f.view.etype->size();
  }
  if (!io::view_monotonic(view)) {
    return raise_file(call, fh, MPI_ERR_TYPE,
                      "argument filetype has negative or decreasing displacements, which a view "
                      "may not have");
  }
  return MPI_SUCCESS;
}

// Collective: the agreement also tells that every member is done with the old view's shared
// pointer, which the first member then resets.
int set_view(const Call& call, MPI_File fh, File& f, MPI_Offset disp, MPI_Datatype etype,
             MPI_Datatype filetype, const char* datarep) {
  io::FileView view;
  int rc = make_view(call, fh, f, disp, etype, filetype, datarep, view);
  if (!all_agree(f.comm, rc == MPI_SUCCESS))
    return rc != MPI_SUCCESS ? rc : refused_by_another(call, fh);
  f.view = std::move(view);
  f.datarep = datarep;
  f.pointer = 0;
  return reset_shared(call, fh, f, 0);
}

// The position `offset` from `whence` for MPI_File_seek(_shared), in etypes, or -1 with the
// error in *rc.
std::int64_t seek_target(const Call& call, MPI_File fh, const File& f, MPI_Offset offset,
                         int whence, std::int64_t current, int* rc) {
  std::int64_t base;
  if (whence == MPI_SEEK_SET) {
    base = 0;
  } else if (whence == MPI_SEEK_CUR) {
    base = current;
  } else if (whence == MPI_SEEK_END) {
    auto size = f.file.size();
    if (!size.ok()) {
      *rc = raise_file_status(call, fh, size.status());
      return -1;
    }
    std::int64_t bytes = io::view_position(f.view, size.value()), unit = f.view.etype->size();
    base = (bytes + unit - 1) / unit;
  } else {
    *rc = raise_file(call, fh, MPI_ERR_ARG,
                     "argument whence %d is none of MPI_SEEK_SET, MPI_SEEK_CUR, MPI_SEEK_END",
                     whence);
    return -1;
  }
  if (base + offset < 0) {
    *rc = raise_file(call, fh, MPI_ERR_ARG,
                     "argument offset %lld moves the file pointer before the start of the view",
                     (long long)offset);
    return -1;
  }
  return base + offset;
}

int get_view(const Call& call, MPI_File fh, const File& f, MPI_Offset* disp, MPI_Datatype* etype,
             MPI_Datatype* filetype, char* datarep) {
  if (disp == nullptr || etype == nullptr || filetype == nullptr || datarep == nullptr) {
    return raise_file(call, fh, MPI_ERR_ARG, "argument %s is a null pointer",
                      !disp       ? "disp"
                      : !etype    ? "etype"
                      : !filetype ? "filetype"
                                  : "datarep");
  }
  auto handle_of = [](const core::DatatypeRef& type) {
    MPI_Datatype h = predefined_handle(type.get());
    return h != MPI_DATATYPE_NULL ? h : insert_datatype(type);
  };
  *disp = f.view.disp;
  *etype = handle_of(f.view.etype);
  *filetype = handle_of(f.view.filetype);
  std::strcpy(datarep, f.datarep.c_str());
  return MPI_SUCCESS;
}

// MPI_File_get_type_extent(_c): the extent in memory (every representation gpurun writes
// keeps the native sizes and layout).
template <class Extent>
int type_extent(const Call& call, MPI_File fh, MPI_Datatype datatype, Extent* extent) {
  GPURUN_CHECK_FILE(f, fh);
  GPURUN_CHECK_FILE_TYPE(fh, "datatype", type, datatype);
  if (extent == nullptr)
    return raise_file(call, fh, MPI_ERR_ARG, "argument extent is a null pointer");
  if (int rc = check_representation(call, fh, f->datarep, *type, "datatype"); rc != MPI_SUCCESS)
    return rc;
  *extent = type->extent();
  return MPI_SUCCESS;
}

}  // namespace
}  // namespace gpurun::api

using namespace gpurun::api;  // NOLINT(google-build-using-namespace): the C API's own layer

extern "C" int PMPI_File_set_view(MPI_File fh, MPI_Offset disp, MPI_Datatype etype,
                                  MPI_Datatype filetype, const char* datarep, MPI_Info info) {
  GPURUN_API_ENTER("MPI_File_set_view");
  GPURUN_CHECK_FILE(f, fh);
  if (info != MPI_INFO_NULL && PMPI_File_set_info(fh, info) != MPI_SUCCESS)
    return raise_file(call, fh, MPI_ERR_INFO, "argument info is not an info");
  return set_view(call, fh, *f, disp, etype, filetype, datarep);
}

extern "C" int PMPI_File_get_view(MPI_File fh, MPI_Offset* disp, MPI_Datatype* etype,
                                  MPI_Datatype* filetype, char* datarep) {
  GPURUN_API_ENTER("MPI_File_get_view");
  GPURUN_CHECK_FILE(f, fh);
  return get_view(call, fh, *f, disp, etype, filetype, datarep);
}

extern "C" int PMPI_File_get_type_extent(MPI_File fh, MPI_Datatype datatype, MPI_Aint* extent) {
  GPURUN_API_ENTER("MPI_File_get_type_extent");
  return type_extent(call, fh, datatype, extent);
}

extern "C" int PMPI_File_get_type_extent_c(MPI_File fh, MPI_Datatype datatype, MPI_Count* extent) {
  GPURUN_API_ENTER("MPI_File_get_type_extent_c");
  return type_extent(call, fh, datatype, extent);
}

extern "C" int PMPI_File_seek(MPI_File fh, MPI_Offset offset, int whence) {
  GPURUN_API_ENTER("MPI_File_seek");
  GPURUN_CHECK_FILE(f, fh);
  if (f->amode & MPI_MODE_SEQUENTIAL) {
    return raise_file(call, fh, MPI_ERR_UNSUPPORTED_OPERATION,
                      "argument fh: the file was opened with MPI_MODE_SEQUENTIAL, which has no "
                      "individual file pointer");
  }
  int rc = MPI_SUCCESS;
  std::int64_t to = seek_target(call, fh, *f, offset, whence, f->pointer, &rc);
  if (to < 0) return rc;
  f->pointer = to;
  return MPI_SUCCESS;
}

extern "C" int PMPI_File_get_position(MPI_File fh, MPI_Offset* offset) {
  GPURUN_API_ENTER("MPI_File_get_position");
  GPURUN_CHECK_FILE(f, fh);
  if (offset == nullptr)
    return raise_file(call, fh, MPI_ERR_ARG, "argument offset is a null pointer");
  *offset = f->pointer;
  return MPI_SUCCESS;
}

extern "C" int PMPI_File_get_byte_offset(MPI_File fh, MPI_Offset offset, MPI_Offset* disp) {
  GPURUN_API_ENTER("MPI_File_get_byte_offset");
  GPURUN_CHECK_FILE(f, fh);
  if (offset < 0)
    return raise_file(call, fh, MPI_ERR_ARG, "argument offset %lld is negative", (long long)offset);
  if (disp == nullptr) return raise_file(call, fh, MPI_ERR_ARG, "argument disp is a null pointer");
  *disp = gpurun::io::view_offset(f->view, offset * f->view.etype->size());
  return MPI_SUCCESS;
}

// Collective: every member passes the same offset and whence; the first one moves the pointer.
extern "C" int PMPI_File_seek_shared(MPI_File fh, MPI_Offset offset, int whence) {
  GPURUN_API_ENTER("MPI_File_seek_shared");
  GPURUN_CHECK_FILE(f, fh);
  auto now = shared_position(*f);
  int rc = now.ok() ? MPI_SUCCESS : raise_file_status(call, fh, now.status());
  std::int64_t to = now.ok() ? seek_target(call, fh, *f, offset, whence, now.value(), &rc) : -1;
  // The agreement also tells that everyone has read the pointer.
  if (!all_agree(f->comm, to >= 0)) return to < 0 ? rc : refused_by_another(call, fh);
  return reset_shared(call, fh, *f, to);
}

extern "C" int PMPI_File_get_position_shared(MPI_File fh, MPI_Offset* offset) {
  GPURUN_API_ENTER("MPI_File_get_position_shared");
  GPURUN_CHECK_FILE(f, fh);
  if (offset == nullptr)
    return raise_file(call, fh, MPI_ERR_ARG, "argument offset is a null pointer");
  auto now = shared_position(*f);
  if (!now.ok()) return raise_file_status(call, fh, now.status());
  *offset = now.value();
  return MPI_SUCCESS;
}

GPURUN_MPI_ALIAS(MPI_File_set_view)
GPURUN_MPI_ALIAS(MPI_File_get_view)
GPURUN_MPI_ALIAS(MPI_File_get_type_extent)
GPURUN_MPI_ALIAS(MPI_File_get_type_extent_c)
GPURUN_MPI_ALIAS(MPI_File_seek)
GPURUN_MPI_ALIAS(MPI_File_get_position)
GPURUN_MPI_ALIAS(MPI_File_get_byte_offset)
GPURUN_MPI_ALIAS(MPI_File_seek_shared)
GPURUN_MPI_ALIAS(MPI_File_get_position_shared)

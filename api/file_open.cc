// MPI-IO: opening, closing and deleting files, and the calls on a whole file (size, sync,
// atomicity, group, info, access mode).
#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <vector>

#include "api/datatypes.h"
#include "api/file.h"
#include "api/file_access.h"
#include "api/info.h"
#include "api/state.h"

namespace gpurun::api {
namespace {

// What is wrong with access mode `amode`, or nullptr.
const char* amode_problem(int amode) {
  int access = amode & (MPI_MODE_RDONLY | MPI_MODE_WRONLY | MPI_MODE_RDWR);
  if (access != MPI_MODE_RDONLY && access != MPI_MODE_WRONLY && access != MPI_MODE_RDWR)
    return "needs exactly one of MPI_MODE_RDONLY, MPI_MODE_WRONLY and MPI_MODE_RDWR";
  if (access == MPI_MODE_RDONLY && (amode & (MPI_MODE_CREATE | MPI_MODE_EXCL)) != 0)
    return "MPI_MODE_RDONLY does not go with MPI_MODE_CREATE or MPI_MODE_EXCL";
  if (access == MPI_MODE_RDWR && (amode & MPI_MODE_SEQUENTIAL) != 0)
    return "MPI_MODE_RDWR does not go with MPI_MODE_SEQUENTIAL";
  constexpr int kKnown = MPI_MODE_CREATE | MPI_MODE_RDONLY | MPI_MODE_WRONLY | MPI_MODE_RDWR |
                         MPI_MODE_DELETE_ON_CLOSE | MPI_MODE_UNIQUE_OPEN | MPI_MODE_EXCL |
                         MPI_MODE_APPEND | MPI_MODE_SEQUENTIAL;
  if ((amode & ~kKnown) != 0) return "holds bits that are no MPI_MODE_ constant";
  return nullptr;
}

int open_flags(int amode) {
  int flags = (amode & MPI_MODE_RDONLY) ? O_RDONLY : (amode & MPI_MODE_WRONLY) ? O_WRONLY : O_RDWR;
  return flags;  // never O_APPEND: pwrite would ignore its offset
}

// The largest error class that a member of `comm` met (0: none did).
int max_over(MPI_Comm comm, int failed) {
  int out = failed;
  PMPI_Allreduce(&failed, &out, 1, MPI_INT, MPI_MAX, comm);
  return out;
}

// Opens the file on every member: the first member creates it (when asked), then the others
// open it. Returns the error class every member reports (MPI_SUCCESS when all opened it); a
// member's own failure goes into `why`.
int open_everywhere(File& f, std::string& why) {
  int rank = 0;
  PMPI_Comm_rank(f.comm, &rank);
  int create = (f.amode & MPI_MODE_CREATE) ? O_CREAT | ((f.amode & MPI_MODE_EXCL) ? O_EXCL : 0) : 0;
  int failed = 0;
  if (rank == 0) {
    auto opened = io::PosixFile::open(f.path, open_flags(f.amode) | create);
    if (opened.ok()) {
      f.file = std::move(opened.value());
    } else {
      failed = io_error_class(opened.status().sys_errno());
      why = opened.status().to_string();
    }
  }
  PMPI_Bcast(&failed, 1, MPI_INT, 0, f.comm);
  if (failed != 0) {
    if (rank != 0) why = "the communicator's first member could not open it";
    return failed;
  }
  if (rank != 0) {
    auto opened = io::PosixFile::open(f.path, open_flags(f.amode));
    if (opened.ok()) {
      f.file = std::move(opened.value());
    } else {
      failed = io_error_class(opened.status().sys_errno());
      why = opened.status().to_string();
    }
  }
  int any = max_over(f.comm, failed);
  if (any != 0 && failed == 0) why = "another member of the communicator could not open it";
  return any;
}

// The shared file pointer: the first member makes its side file, the others open it, and the
// name goes once all have it.
void share_pointer(File& f) {
  int rank = 0;
  PMPI_Comm_rank(f.comm, &rank);
  std::string name;
  std::vector<char> text(4096, '\0');
  if (rank == 0) {
    auto made = io::SharedPointer::create(f.path, name);
    if (made.ok()) {
      f.shared = std::move(made.value());
      std::strncpy(text.data(), name.c_str(), text.size() - 1);
    } else {
      f.no_shared = made.status().to_string();
    }
  }
  PMPI_Bcast(text.data(), static_cast<int>(text.size()), MPI_CHAR, 0, f.comm);
  if (rank != 0 && text[0] != '\0') {
    auto opened = io::SharedPointer::attach(text.data());
    if (opened.ok()) {
      f.shared = std::move(opened.value());
    } else {
      f.no_shared = opened.status().to_string();
    }
  }
  if (rank != 0 && text[0] == '\0') f.no_shared = "the first member could not create its file";
  PMPI_Barrier(f.comm);
  if (rank == 0 && !name.empty()) (void)io::SharedPointer::unlink(name);
}

// Everything after the checks: the file's own communicator, the file on every member, its
// view and pointers. Returns the error code, or MPI_SUCCESS with *fh set.
int open_file(const Call& call, MPI_Comm comm, const char* filename, int amode, MPI_Info info,
              MPI_File* fh) {
  auto f = std::make_unique<File>();
  f->path = filename;
  f->amode = amode;
  f->errhandler = default_file_errhandler();
  const core::Info* hints = info == MPI_INFO_NULL ? nullptr : find_info(info);
  f->info = hints ? std::make_unique<core::Info>(*hints) : std::make_unique<core::Info>();
  f->view.etype = core::DatatypeRef(find_datatype(MPI_BYTE));
  f->view.filetype = f->view.etype;
  PMPI_Comm_dup(comm, &f->comm);
  PMPI_Comm_set_errhandler(f->comm, MPI_ERRORS_RETURN);
  bool same_mode = same_everywhere(f->comm, amode);
  std::string why;
  int failed = same_mode ? open_everywhere(*f, why) : MPI_ERR_AMODE;
  if (failed != MPI_SUCCESS) {
    PMPI_Comm_free(&f->comm);
    if (!same_mode)
      return raise_file(call, MPI_FILE_NULL, MPI_ERR_AMODE,
                        "argument amode %d differs between the members of comm", amode);
    return raise_file(call, MPI_FILE_NULL, failed, "argument filename \"%s\": %s", filename,
                      why.c_str());
  }
  share_pointer(*f);
  if (amode & MPI_MODE_APPEND) {
    auto size = f->file.size();
    f->pointer = size.ok() ? size.value() : 0;
    if (f->shared.usable()) (void)f->shared.set(f->pointer);
  }
  MPI_Comm own = f->comm;
  *fh = insert_file(std::move(f));
  if (*fh == MPI_FILE_NULL) {
    PMPI_Comm_free(&own);
    return raise_file(call, MPI_FILE_NULL, MPI_ERR_NO_MEM, "too many open files");
  }
  return MPI_SUCCESS;
}

// The arguments of MPI_File_open but the communicator.
int check_open(const Call& call, const char* filename, int amode, MPI_Info info, MPI_File* fh) {
  if (filename == nullptr)
    return raise_file(call, MPI_FILE_NULL, MPI_ERR_ARG, "argument filename is a null pointer");
  if (fh == nullptr)
    return raise_file(call, MPI_FILE_NULL, MPI_ERR_ARG, "argument fh is a null pointer");
  if (const char* problem = amode_problem(amode))
    return raise_file(call, MPI_FILE_NULL, MPI_ERR_AMODE, "argument amode %d %s", amode, problem);
  if (info != MPI_INFO_NULL && find_info(info) == nullptr) {
    return raise_file(call, MPI_FILE_NULL, MPI_ERR_INFO, "argument info (0x%x) is not an info",
                      static_cast<unsigned>(info));
  }
  return MPI_SUCCESS;
}

}  // namespace
}  // namespace gpurun::api

using namespace gpurun::api;  // NOLINT(google-build-using-namespace): the C API's own layer

extern "C" int PMPI_File_open(MPI_Comm comm, const char* filename, int amode, MPI_Info info,
                              MPI_File* fh) {
  GPURUN_API_ENTER("MPI_File_open");
  int inter = 0;
  if (find_comm(comm) == nullptr) {
    return raise_file(call, MPI_FILE_NULL, MPI_ERR_COMM,
                      comm == MPI_COMM_NULL ? "argument comm is MPI_COMM_NULL"
                                            : "argument comm (0x%x) is not a communicator",
                      static_cast<unsigned>(comm));
  }
  PMPI_Comm_test_inter(comm, &inter);
  if (inter)
    return raise_file(call, MPI_FILE_NULL, MPI_ERR_COMM, "argument comm is an intercommunicator");
  int rc = check_open(call, filename, amode, info, fh);
  if (!all_agree(comm, rc == MPI_SUCCESS))
    return rc != MPI_SUCCESS ? rc : refused_by_another(call, MPI_FILE_NULL);
  return open_file(call, comm, filename, amode, info, fh);
}

extern "C" int PMPI_File_close(MPI_File* fh) {
  GPURUN_API_ENTER("MPI_File_close");
  if (fh == nullptr)
    return raise_file(call, MPI_FILE_NULL, MPI_ERR_ARG, "argument fh is a null pointer");
  GPURUN_CHECK_FILE(f, *fh);
  f->file.close();
  int rank = 0;
  PMPI_Comm_rank(f->comm, &rank);
  PMPI_Barrier(f->comm);
  int rc = MPI_SUCCESS;
  if ((f->amode & MPI_MODE_DELETE_ON_CLOSE) && rank == 0 && ::unlink(f->path.c_str()) != 0) {
    rc = raise_file(call, *fh, io_error_class(errno), "deleting \"%s\" at close: %s",
                    f->path.c_str(), std::strerror(errno));
  }
  PMPI_Comm_free(&f->comm);
  erase_file(*fh);
  *fh = MPI_FILE_NULL;
  return rc;
}

extern "C" int PMPI_File_delete(const char* filename, MPI_Info info) {
  GPURUN_API_ENTER("MPI_File_delete");
  if (filename == nullptr)
    return raise_file(call, MPI_FILE_NULL, MPI_ERR_ARG, "argument filename is a null pointer");
  if (info != MPI_INFO_NULL && find_info(info) == nullptr) {
    return raise_file(call, MPI_FILE_NULL, MPI_ERR_INFO, "argument info (0x%x) is not an info",
                      static_cast<unsigned>(info));
  }
  if (::unlink(filename) != 0) {
    return raise_file(call, MPI_FILE_NULL, io_error_class(errno), "argument filename \"%s\": %s",
                      filename, std::strerror(errno));
  }
  return MPI_SUCCESS;
}

GPURUN_MPI_ALIAS(MPI_File_open)
GPURUN_MPI_ALIAS(MPI_File_close)
GPURUN_MPI_ALIAS(MPI_File_delete)

// MPI-IO's handles and errors: the table of open files, the files' error handlers
// (MPI_File_create/set/get/call_errhandler) and MPI_File_c2f/f2c.
#include <cerrno>
#include <cstdarg>
#include <cstdio>

#include "api/error_codes.h"
#include "api/file.h"
#include "api/state.h"

namespace gpurun::api {
namespace {

constexpr std::uintptr_t kFileBits = 0x7c000000;
constexpr std::uintptr_t kFileIndexMask = 0x03ffffff;

ObjectTable<File>& files() {
  static auto* table = new ObjectTable<File>();
  return *table;
}

void run_file_errhandler(MPI_File file, int code, const std::string& message) {
  File* f = find_file(file);
  MPI_Errhandler handler = f ? f->errhandler.handle() : default_file_errhandler().handle();
  if (handler == MPI_ERRORS_RETURN) return;
  if (MPI_File_errhandler_function* function = file_errhandler_function(handler)) {
    MPI_File file_arg = f ? file : MPI_FILE_NULL;
    int code_arg = code;
    function(&file_arg, &code_arg);
    return;
  }
  end_job(class_of_code(code), message);
}

}  // namespace

File* find_file(MPI_File handle) {
  auto bits = reinterpret_cast<std::uintptr_t>(handle);
  if ((bits & ~kFileIndexMask) != kFileBits) return nullptr;
  return files().find(static_cast<std::uint32_t>(bits & kFileIndexMask));
}

MPI_File insert_file(std::unique_ptr<File> file) {
  File* f = file.get();
  std::uint32_t index = files().insert(std::move(file));
  if (index == ObjectTable<File>::kFull) return MPI_FILE_NULL;
  f->handle = reinterpret_cast<MPI_File>(kFileBits | index);
  return f->handle;
}

std::unique_ptr<File> erase_file(MPI_File handle) {
  if (find_file(handle) == nullptr) return nullptr;
  return files().release(
      static_cast<std::uint32_t>(reinterpret_cast<std::uintptr_t>(handle) & kFileIndexMask));
}

ErrhandlerRef& default_file_errhandler() {
  static auto* handler = new ErrhandlerRef(MPI_ERRORS_RETURN);
  return *handler;
}

int raise_file(const Call& call, MPI_File file, int error_class, const char* fmt, ...) {
  va_list args;
  va_start(args, fmt);
  std::string message;
  int code = error_code_v(call, error_class, &message, fmt, args);
  va_end(args);
  run_file_errhandler(file, code, message);
  return code;
}

int io_error_class(int sys_errno) {
  switch (sys_errno) {
    case ENOENT:
      return MPI_ERR_NO_SUCH_FILE;
    case EEXIST:
      return MPI_ERR_FILE_EXISTS;
    case EACCES:
    case EPERM:
      return MPI_ERR_ACCESS;
    case EROFS:
      return MPI_ERR_READ_ONLY;
    case ENOSPC:
    case EFBIG:
      return MPI_ERR_NO_SPACE;
    case EDQUOT:
      return MPI_ERR_QUOTA;
    case ENAMETOOLONG:
    case ENOTDIR:
    case EISDIR:
    case ELOOP:
      return MPI_ERR_BAD_FILE;
    case EBUSY:
    case ETXTBSY:
      return MPI_ERR_FILE_IN_USE;
    case ENOMEM:
      return MPI_ERR_NO_MEM;
    default:
      return MPI_ERR_IO;
  }
}

int raise_file_status(const Call& call, MPI_File file, const Status& status) {
  int error_class =
      status.sys_errno() != 0 ? io_error_class(status.sys_errno()) : error_class_of(status.code());
  if (status.code() == ErrorCode::kIo && status.sys_errno() == 0) error_class = MPI_ERR_IO;
  return raise_file(call, file, error_class, "%s", status.to_string().c_str());
}

}  // namespace gpurun::api

using namespace gpurun::api;  // NOLINT(google-build-using-namespace): the C API's own layer

extern "C" int PMPI_File_create_errhandler(MPI_File_errhandler_function* file_errhandler_fn,
                                           MPI_Errhandler* errhandler) {
  GPURUN_API_ENTER("MPI_File_create_errhandler");
  return create_errhandler(call, "file_errhandler_fn", {.file = file_errhandler_fn}, errhandler);
}

// MPI_FILE_NULL's handler is the one MPI_File_open and MPI_File_delete use, and that new
// files start with.
extern "C" int PMPI_File_set_errhandler(MPI_File file, MPI_Errhandler errhandler) {
  GPURUN_API_ENTER("MPI_File_set_errhandler");
  File* f = find_file(file);
  if (f == nullptr && file != MPI_FILE_NULL) {
    return raise_file(call, MPI_FILE_NULL, MPI_ERR_FILE,
                      "argument file (%p) is not an open file (closed?)", static_cast<void*>(file));
  }
  std::string problem = errhandler_problem(errhandler, ErrhandlerFor::kFile);
  if (!problem.empty()) return raise_file(call, file, MPI_ERR_ARG, "%s", problem.c_str());
  (f ? f->errhandler : default_file_errhandler()) = ErrhandlerRef(errhandler);
  return MPI_SUCCESS;
}

extern "C" int PMPI_File_get_errhandler(MPI_File file, MPI_Errhandler* errhandler) {
  GPURUN_API_ENTER("MPI_File_get_errhandler");
  File* f = find_file(file);
  if (f == nullptr && file != MPI_FILE_NULL) {
    return raise_file(call, MPI_FILE_NULL, MPI_ERR_FILE,
                      "argument file (%p) is not an open file (closed?)", static_cast<void*>(file));
  }
  if (errhandler == nullptr)
    return raise_file(call, file, MPI_ERR_ARG, "argument errhandler is a null pointer");
  MPI_Errhandler handle = (f ? f->errhandler : default_file_errhandler()).handle();
  add_errhandler_handle(handle);
  *errhandler = handle;
  return MPI_SUCCESS;
}

extern "C" int PMPI_File_call_errhandler(MPI_File fh, int errorcode) {
  GPURUN_API_ENTER("MPI_File_call_errhandler");
  if (find_file(fh) == nullptr && fh != MPI_FILE_NULL) {
    return raise_file(call, MPI_FILE_NULL, MPI_ERR_FILE,
                      "argument fh (%p) is not an open file (closed?)", static_cast<void*>(fh));
  }
  if (class_of_code(errorcode) < 0) {
    return raise_file(call, fh, MPI_ERR_ARG, "argument errorcode %d is not an error code",
                      errorcode);
  }
  char text[MPI_MAX_ERROR_STRING];
  error_text(errorcode, text);
  run_file_errhandler(fh, errorcode, std::string("MPI_File_call_errhandler: ") + text);
  return MPI_SUCCESS;
}

// Fortran handles: the low bits of the C handle (0 for MPI_FILE_NULL).
extern "C" MPI_Fint PMPI_File_c2f(MPI_File file) {
  if (find_file(file) == nullptr) return 0;
  return static_cast<MPI_Fint>(reinterpret_cast<std::uintptr_t>(file));
}

extern "C" MPI_File PMPI_File_f2c(MPI_Fint file) {
  auto handle = reinterpret_cast<MPI_File>(static_cast<std::uintptr_t>(file));
  return find_file(handle) ? handle : MPI_FILE_NULL;
}

GPURUN_MPI_ALIAS(MPI_File_create_errhandler)
GPURUN_MPI_ALIAS(MPI_File_set_errhandler)
GPURUN_MPI_ALIAS(MPI_File_get_errhandler)
GPURUN_MPI_ALIAS(MPI_File_call_errhandler)
GPURUN_MPI_ALIAS(MPI_File_c2f)
GPURUN_MPI_ALIAS(MPI_File_f2c)

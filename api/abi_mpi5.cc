// MPI-5.0's calls about the ABI and handles as integers, in a library with MPICH's ABI:
//   MPI_Abi_get_version: -1 and -1, the standard's answer for a library without the standard ABI
//     (whose version 1.0 came with MPI-5.0); callable at any time, as MPI_Get_version.
//   MPI_Abi_get_info: a new info with the sizes of MPI_Aint, MPI_Count and MPI_Offset in bytes
//     (keys mpi_aint_size, mpi_count_size, mpi_offset_size).
//   MPI_<Handle>_toint and _fromint for communicators, error handlers, files, groups, infos,
//     messages, ops, requests, sessions, datatypes and windows: the integers are the Fortran
//     handles (what MPI_Comm_c2f gives), so that a handle passes through an integer and back. In
//     MPICH's ABI every handle but MPI_File is an int already; a file's integer is MPI_File_c2f's
//     (0 for MPI_FILE_NULL or a file that is not open). Like c2f and f2c, they check nothing else.
#include <mpi.h>

#include <memory>
#include <string>

#include "api/call.h"
#include "api/checks.h"
#include "api/info.h"

extern "C" int PMPI_Abi_get_version(int* abi_major, int* abi_minor) {
  const gpurun::api::Call call{"MPI_Abi_get_version"};
  GPURUN_CHECK_NOT_NULL(MPI_COMM_NULL, abi_major);
  GPURUN_CHECK_NOT_NULL(MPI_COMM_NULL, abi_minor);
  *abi_major = -1;
  *abi_minor = -1;
  return MPI_SUCCESS;
}

extern "C" int PMPI_Abi_get_info(MPI_Info* info) {
  GPURUN_API_ENTER("MPI_Abi_get_info");
  GPURUN_CHECK_NOT_NULL(MPI_COMM_NULL, info);
  auto sizes = std::make_unique<gpurun::core::Info>();
  sizes->set("mpi_aint_size", std::to_string(sizeof(MPI_Aint)));
  sizes->set("mpi_count_size", std::to_string(sizeof(MPI_Count)));
  sizes->set("mpi_offset_size", std::to_string(sizeof(MPI_Offset)));
  MPI_Info h = gpurun::api::new_info_handle(std::move(sizes));
  if (h == MPI_INFO_NULL)
    return gpurun::api::raise(call, MPI_COMM_NULL, MPI_ERR_NO_MEM,
                              "too many info objects; free some");
  *info = h;
  return MPI_SUCCESS;
}

#define GPURUN_HANDLE_INT(Kind, Type)                                                  \
  extern "C" int PMPI_##Kind##_toint(Type handle) { return static_cast<int>(handle); } \
  extern "C" Type PMPI_##Kind##_fromint(int i) { return static_cast<Type>(i); }        \
  GPURUN_MPI_ALIAS(MPI_##Kind##_toint)                                                 \
  GPURUN_MPI_ALIAS(MPI_##Kind##_fromint)

GPURUN_HANDLE_INT(Comm, MPI_Comm)
GPURUN_HANDLE_INT(Errhandler, MPI_Errhandler)
GPURUN_HANDLE_INT(Group, MPI_Group)
GPURUN_HANDLE_INT(Info, MPI_Info)
GPURUN_HANDLE_INT(Message, MPI_Message)
GPURUN_HANDLE_INT(Op, MPI_Op)
GPURUN_HANDLE_INT(Request, MPI_Request)
GPURUN_HANDLE_INT(Session, MPI_Session)
GPURUN_HANDLE_INT(Type, MPI_Datatype)
GPURUN_HANDLE_INT(Win, MPI_Win)

extern "C" int PMPI_File_toint(MPI_File file) { return PMPI_File_c2f(file); }
extern "C" MPI_File PMPI_File_fromint(int i) { return PMPI_File_f2c(i); }

GPURUN_MPI_ALIAS(MPI_Abi_get_version)
GPURUN_MPI_ALIAS(MPI_Abi_get_info)
GPURUN_MPI_ALIAS(MPI_File_toint)
GPURUN_MPI_ALIAS(MPI_File_fromint)

/* gpurun: MPI C interface (MPICH ABI). Minimal placeholder, replaced by the full header. */
#ifndef GPURUN_MPI_H_INCLUDED
#define GPURUN_MPI_H_INCLUDED

#if defined(__cplusplus)
extern "C" {
#endif

#define GPURUN_API __attribute__((visibility("default")))

typedef int MPI_Comm;
typedef int MPI_Errhandler;
typedef int MPI_Datatype;
typedef long MPI_Aint;
typedef long MPI_Count;
typedef long MPI_Offset;
typedef int MPI_Fint;

typedef struct MPI_Status {
  int count_lo;
  int count_hi_and_cancelled;
  int MPI_SOURCE;
  int MPI_TAG;
  int MPI_ERROR;
} MPI_Status;

#define MPI_VERSION 4
#define MPI_SUBVERSION 0

#define MPI_COMM_NULL ((MPI_Comm)0x04000000)
#define MPI_COMM_WORLD ((MPI_Comm)0x44000000)
#define MPI_COMM_SELF ((MPI_Comm)0x44000001)
#define MPI_ERRHANDLER_NULL ((MPI_Errhandler)0x14000000)
#define MPI_ERRORS_ARE_FATAL ((MPI_Errhandler)0x54000000)
#define MPI_ERRORS_RETURN ((MPI_Errhandler)0x54000001)
#define MPI_ERRORS_ABORT ((MPI_Errhandler)0x54000003)

#define MPI_MAX_PROCESSOR_NAME 128
#define MPI_MAX_LIBRARY_VERSION_STRING 8192
#define MPI_MAX_ERROR_STRING 512

#define MPI_THREAD_SINGLE 0
#define MPI_THREAD_FUNNELED 1
#define MPI_THREAD_SERIALIZED 2
#define MPI_THREAD_MULTIPLE 3

#define MPI_SUCCESS 0
#define MPI_ERR_COMM 5
#define MPI_ERR_ARG 12
#define MPI_ERR_UNKNOWN 13
#define MPI_ERR_OTHER 15
#define MPI_ERR_INTERN 16
#define MPI_ERR_UNSUPPORTED_OPERATION 44
#define MPI_ERR_LASTCODE 0x3fffffff

#if defined(__cplusplus)
}
#endif

#include "mpi_proto.h"

#endif

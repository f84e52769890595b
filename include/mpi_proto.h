/* gpurun: MPI C function prototypes. Each MPI_ function has its PMPI_ twin (profiling
 * interface). This header declares exactly the functions that libmpi implements. */
#ifndef GPURUN_MPI_PROTO_H_INCLUDED
#define GPURUN_MPI_PROTO_H_INCLUDED

#if defined(__cplusplus)
extern "C" {
#endif

/* Environment */
int MPI_Init(int *argc, char ***argv) GPURUN_API;
int MPI_Init_thread(int *argc, char ***argv, int required, int *provided) GPURUN_API;
int MPI_Finalize(void) GPURUN_API;
int MPI_Initialized(int *flag) GPURUN_API;
int MPI_Finalized(int *flag) GPURUN_API;
int MPI_Query_thread(int *provided) GPURUN_API;
int MPI_Is_thread_main(int *flag) GPURUN_API;
int MPI_Abort(MPI_Comm comm, int errorcode) GPURUN_API;
double MPI_Wtime(void) GPURUN_API;
double MPI_Wtick(void) GPURUN_API;
int MPI_Get_processor_name(char *name, int *resultlen) GPURUN_API;
int MPI_Get_version(int *version, int *subversion) GPURUN_API;
int MPI_Get_library_version(char *version, int *resultlen) GPURUN_API;

/* Errors */
int MPI_Error_string(int errorcode, char *string, int *resultlen) GPURUN_API;
int MPI_Error_class(int errorcode, int *errorclass) GPURUN_API;
int MPI_Comm_set_errhandler(MPI_Comm comm, MPI_Errhandler errhandler) GPURUN_API;
int MPI_Comm_get_errhandler(MPI_Comm comm, MPI_Errhandler *errhandler) GPURUN_API;

/* Communicators */
int MPI_Comm_rank(MPI_Comm comm, int *rank) GPURUN_API;
int MPI_Comm_size(MPI_Comm comm, int *size) GPURUN_API;
int MPI_Barrier(MPI_Comm comm) GPURUN_API;

/* Profiling interface */
int PMPI_Init(int *argc, char ***argv) GPURUN_API;
int PMPI_Init_thread(int *argc, char ***argv, int required, int *provided) GPURUN_API;
int PMPI_Finalize(void) GPURUN_API;
int PMPI_Initialized(int *flag) GPURUN_API;
int PMPI_Finalized(int *flag) GPURUN_API;
int PMPI_Query_thread(int *provided) GPURUN_API;
int PMPI_Is_thread_main(int *flag) GPURUN_API;
int PMPI_Abort(MPI_Comm comm, int errorcode) GPURUN_API;
double PMPI_Wtime(void) GPURUN_API;
double PMPI_Wtick(void) GPURUN_API;
int PMPI_Get_processor_name(char *name, int *resultlen) GPURUN_API;
int PMPI_Get_version(int *version, int *subversion) GPURUN_API;
int PMPI_Get_library_version(char *version, int *resultlen) GPURUN_API;
int PMPI_Error_string(int errorcode, char *string, int *resultlen) GPURUN_API;
int PMPI_Error_class(int errorcode, int *errorclass) GPURUN_API;
int PMPI_Comm_set_errhandler(MPI_Comm comm, MPI_Errhandler errhandler) GPURUN_API;
int PMPI_Comm_get_errhandler(MPI_Comm comm, MPI_Errhandler *errhandler) GPURUN_API;
int PMPI_Comm_rank(MPI_Comm comm, int *rank) GPURUN_API;
int PMPI_Comm_size(MPI_Comm comm, int *size) GPURUN_API;
int PMPI_Barrier(MPI_Comm comm) GPURUN_API;

#if defined(__cplusplus)
}
#endif

#endif

/* gpurun: prototypes of the MPI calls whose features gpurun does not implement: dynamic
 * processes, partitioned communication, sessions, user-defined data representations,
 * generalized requests and the Fortran 90 parameterized types. The library exports each
 * (binaries built against MPICH name them), and each returns MPI_ERR_UNSUPPORTED_OPERATION with
 * a message that names the call (api/unsupported.h). Each MPI_ function has its PMPI_ twin.
 * Edit the MPI section only; scripts/update_proto.py writes the PMPI section from it. */
#ifndef GPURUN_MPI_PROTO_UNSUPPORTED_H_INCLUDED
#define GPURUN_MPI_PROTO_UNSUPPORTED_H_INCLUDED

#if defined(__cplusplus)
extern "C" {
#endif

/* BEGIN MPI */

/* Dynamic processes (not supported) */
int MPI_Close_port(const char *port_name) GPURUN_API;
int MPI_Comm_accept(const char *port_name, MPI_Info info, int root, MPI_Comm comm, MPI_Comm *newcomm) GPURUN_API;
int MPI_Comm_connect(const char *port_name, MPI_Info info, int root, MPI_Comm comm, MPI_Comm *newcomm) GPURUN_API;
int MPI_Comm_disconnect(MPI_Comm *comm) GPURUN_API;
int MPI_Comm_join(int fd, MPI_Comm *intercomm) GPURUN_API;
int MPI_Comm_spawn(const char *command, char *argv[], int maxprocs, MPI_Info info, int root, MPI_Comm comm, MPI_Comm *intercomm, int array_of_errcodes[]) GPURUN_API;
int MPI_Comm_spawn_multiple(int count, char *array_of_commands[], char **array_of_argv[], const int array_of_maxprocs[], const MPI_Info array_of_info[], int root, MPI_Comm comm, MPI_Comm *intercomm, int array_of_errcodes[]) GPURUN_API;
int MPI_Lookup_name(const char *service_name, MPI_Info info, char *port_name) GPURUN_API;
int MPI_Open_port(MPI_Info info, char *port_name) GPURUN_API;
int MPI_Publish_name(const char *service_name, MPI_Info info, const char *port_name) GPURUN_API;
int MPI_Unpublish_name(const char *service_name, MPI_Info info, const char *port_name) GPURUN_API;

/* Partitioned communication (not supported) */
int MPI_Parrived(MPI_Request request, int partition, int *flag) GPURUN_API;
int MPI_Pready(int partition, MPI_Request request) GPURUN_API;
int MPI_Pready_list(int length, int array_of_partitions[], MPI_Request request) GPURUN_API;
int MPI_Pready_range(int partition_low, int partition_high, MPI_Request request) GPURUN_API;
int MPI_Precv_init(void *buf, int partitions, MPI_Count count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm, MPI_Info info, MPI_Request *request) GPURUN_API;
int MPI_Psend_init(const void *buf, int partitions, MPI_Count count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm, MPI_Info info, MPI_Request *request) GPURUN_API;

/* Sessions (not supported) */
int MPI_Comm_create_from_group(MPI_Group group, const char *stringtag, MPI_Info info, MPI_Errhandler errhandler, MPI_Comm *newcomm) GPURUN_API;
int MPI_Group_from_session_pset(MPI_Session session, const char *pset_name, MPI_Group *newgroup) GPURUN_API;
int MPI_Intercomm_create_from_groups(MPI_Group local_group, int local_leader, MPI_Group remote_group, int remote_leader, const char *stringtag, MPI_Info info, MPI_Errhandler errhandler, MPI_Comm *newintercomm) GPURUN_API;
int MPI_Session_call_errhandler(MPI_Session session, int errorcode) GPURUN_API;
int MPI_Session_create_errhandler(MPI_Session_errhandler_function *session_errhandler_fn, MPI_Errhandler *errhandler) GPURUN_API;
int MPI_Session_finalize(MPI_Session *session) GPURUN_API;
int MPI_Session_get_errhandler(MPI_Session session, MPI_Errhandler *errhandler) GPURUN_API;
int MPI_Session_get_info(MPI_Session session, MPI_Info *info_used) GPURUN_API;
int MPI_Session_get_nth_pset(MPI_Session session, MPI_Info info, int n, int *pset_len, char *pset_name) GPURUN_API;
int MPI_Session_get_num_psets(MPI_Session session, MPI_Info info, int *npset_names) GPURUN_API;
int MPI_Session_get_pset_info(MPI_Session session, const char *pset_name, MPI_Info *info) GPURUN_API;
int MPI_Session_init(MPI_Info info, MPI_Errhandler errhandler, MPI_Session *session) GPURUN_API;
int MPI_Session_set_errhandler(MPI_Session session, MPI_Errhandler errhandler) GPURUN_API;

/* User-defined data representations (not supported: MPI-IO reads and writes "native" only) */
int MPI_Register_datarep(const char *datarep, MPI_Datarep_conversion_function *read_conversion_fn, MPI_Datarep_conversion_function *write_conversion_fn, MPI_Datarep_extent_function *dtype_file_extent_fn, void *extra_state) GPURUN_API;
int MPI_Register_datarep_c(const char *datarep, MPI_Datarep_conversion_function_c *read_conversion_fn, MPI_Datarep_conversion_function_c *write_conversion_fn, MPI_Datarep_extent_function *dtype_file_extent_fn, void *extra_state) GPURUN_API;

/* Generalized requests, Fortran 90 parameterized types (not supported) */
int MPI_Grequest_complete(MPI_Request request) GPURUN_API;
int MPI_Grequest_start(MPI_Grequest_query_function *query_fn, MPI_Grequest_free_function *free_fn, MPI_Grequest_cancel_function *cancel_fn, void *extra_state, MPI_Request *request) GPURUN_API;
int MPI_Type_create_f90_complex(int p, int r, MPI_Datatype *newtype) GPURUN_API;
int MPI_Type_create_f90_integer(int r, MPI_Datatype *newtype) GPURUN_API;
int MPI_Type_create_f90_real(int p, int r, MPI_Datatype *newtype) GPURUN_API;
/* END MPI */

/* BEGIN PMPI (generated by scripts/update_proto.py) */
int PMPI_Close_port(const char *port_name) GPURUN_API;
int PMPI_Comm_accept(const char *port_name, MPI_Info info, int root, MPI_Comm comm, MPI_Comm *newcomm) GPURUN_API;
int PMPI_Comm_connect(const char *port_name, MPI_Info info, int root, MPI_Comm comm, MPI_Comm *newcomm) GPURUN_API;
int PMPI_Comm_disconnect(MPI_Comm *comm) GPURUN_API;
int PMPI_Comm_join(int fd, MPI_Comm *intercomm) GPURUN_API;
int PMPI_Comm_spawn(const char *command, char *argv[], int maxprocs, MPI_Info info, int root, MPI_Comm comm, MPI_Comm *intercomm, int array_of_errcodes[]) GPURUN_API;
int PMPI_Comm_spawn_multiple(int count, char *array_of_commands[], char **array_of_argv[], const int array_of_maxprocs[], const MPI_Info array_of_info[], int root, MPI_Comm comm, MPI_Comm *intercomm, int array_of_errcodes[]) GPURUN_API;
int PMPI_Lookup_name(const char *service_name, MPI_Info info, char *port_name) GPURUN_API;
int PMPI_Open_port(MPI_Info info, char *port_name) GPURUN_API;
int PMPI_Publish_name(const char *service_name, MPI_Info info, const char *port_name) GPURUN_API;
int PMPI_Unpublish_name(const char *service_name, MPI_Info info, const char *port_name) GPURUN_API;
int PMPI_Parrived(MPI_Request request, int partition, int *flag) GPURUN_API;
int PMPI_Pready(int partition, MPI_Request request) GPURUN_API;
int PMPI_Pready_list(int length, int array_of_partitions[], MPI_Request request) GPURUN_API;
int PMPI_Pready_range(int partition_low, int partition_high, MPI_Request request) GPURUN_API;
int PMPI_Precv_init(void *buf, int partitions, MPI_Count count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm, MPI_Info info, MPI_Request *request) GPURUN_API;
int PMPI_Psend_init(const void *buf, int partitions, MPI_Count count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm, MPI_Info info, MPI_Request *request) GPURUN_API;
int PMPI_Comm_create_from_group(MPI_Group group, const char *stringtag, MPI_Info info, MPI_Errhandler errhandler, MPI_Comm *newcomm) GPURUN_API;
int PMPI_Group_from_session_pset(MPI_Session session, const char *pset_name, MPI_Group *newgroup) GPURUN_API;
int PMPI_Intercomm_create_from_groups(MPI_Group local_group, int local_leader, MPI_Group remote_group, int remote_leader, const char *stringtag, MPI_Info info, MPI_Errhandler errhandler, MPI_Comm *newintercomm) GPURUN_API;
int PMPI_Session_call_errhandler(MPI_Session session, int errorcode) GPURUN_API;
int PMPI_Session_create_errhandler(MPI_Session_errhandler_function *session_errhandler_fn, MPI_Errhandler *errhandler) GPURUN_API;
int PMPI_Session_finalize(MPI_Session *session) GPURUN_API;
int PMPI_Session_get_errhandler(MPI_Session session, MPI_Errhandler *errhandler) GPURUN_API;
int PMPI_Session_get_info(MPI_Session session, MPI_Info *info_used) GPURUN_API;
int PMPI_Session_get_nth_pset(MPI_Session session, MPI_Info info, int n, int *pset_len, char *pset_name) GPURUN_API;
int PMPI_Session_get_num_psets(MPI_Session session, MPI_Info info, int *npset_names) GPURUN_API;
int PMPI_Session_get_pset_info(MPI_Session session, const char *pset_name, MPI_Info *info) GPURUN_API;
int PMPI_Session_init(MPI_Info info, MPI_Errhandler errhandler, MPI_Session *session) GPURUN_API;
int PMPI_Session_set_errhandler(MPI_Session session, MPI_Errhandler errhandler) GPURUN_API;
int PMPI_Register_datarep(const char *datarep, MPI_Datarep_conversion_function *read_conversion_fn, MPI_Datarep_conversion_function *write_conversion_fn, MPI_Datarep_extent_function *dtype_file_extent_fn, void *extra_state) GPURUN_API;
int PMPI_Register_datarep_c(const char *datarep, MPI_Datarep_conversion_function_c *read_conversion_fn, MPI_Datarep_conversion_function_c *write_conversion_fn, MPI_Datarep_extent_function *dtype_file_extent_fn, void *extra_state) GPURUN_API;
int PMPI_Grequest_complete(MPI_Request request) GPURUN_API;
int PMPI_Grequest_start(MPI_Grequest_query_function *query_fn, MPI_Grequest_free_function *free_fn, MPI_Grequest_cancel_function *cancel_fn, void *extra_state, MPI_Request *request) GPURUN_API;
int PMPI_Type_create_f90_complex(int p, int r, MPI_Datatype *newtype) GPURUN_API;
int PMPI_Type_create_f90_integer(int r, MPI_Datatype *newtype) GPURUN_API;
int PMPI_Type_create_f90_real(int p, int r, MPI_Datatype *newtype) GPURUN_API;
/* END PMPI */

#if defined(__cplusplus)
}
#endif

#endif

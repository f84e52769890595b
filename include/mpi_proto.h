/* gpurun: MPI C function prototypes. Each MPI_ function has its PMPI_ twin (profiling
 * interface). This header declares exactly the functions that libmpi implements.
 * Edit the MPI section only; scripts/update_proto.py writes the PMPI section from it. */
#ifndef GPURUN_MPI_PROTO_H_INCLUDED
#define GPURUN_MPI_PROTO_H_INCLUDED

#if defined(__cplusplus)
extern "C" {
#endif

/* BEGIN MPI */
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

/* Datatypes */
int MPI_Type_contiguous(int count, MPI_Datatype oldtype, MPI_Datatype *newtype) GPURUN_API;
int MPI_Type_contiguous_c(MPI_Count count, MPI_Datatype oldtype, MPI_Datatype *newtype) GPURUN_API;
int MPI_Type_vector(int count, int blocklength, int stride, MPI_Datatype oldtype, MPI_Datatype *newtype) GPURUN_API;
int MPI_Type_vector_c(MPI_Count count, MPI_Count blocklength, MPI_Count stride, MPI_Datatype oldtype, MPI_Datatype *newtype) GPURUN_API;
int MPI_Type_create_hvector(int count, int blocklength, MPI_Aint stride, MPI_Datatype oldtype, MPI_Datatype *newtype) GPURUN_API;
int MPI_Type_create_hvector_c(MPI_Count count, MPI_Count blocklength, MPI_Count stride, MPI_Datatype oldtype, MPI_Datatype *newtype) GPURUN_API;
int MPI_Type_indexed(int count, const int array_of_blocklengths[], const int array_of_displacements[], MPI_Datatype oldtype, MPI_Datatype *newtype) GPURUN_API;
int MPI_Type_indexed_c(MPI_Count count, const MPI_Count array_of_blocklengths[], const MPI_Count array_of_displacements[], MPI_Datatype oldtype, MPI_Datatype *newtype) GPURUN_API;
int MPI_Type_create_hindexed(int count, const int array_of_blocklengths[], const MPI_Aint array_of_displacements[], MPI_Datatype oldtype, MPI_Datatype *newtype) GPURUN_API;
int MPI_Type_create_hindexed_c(MPI_Count count, const MPI_Count array_of_blocklengths[], const MPI_Count array_of_displacements[], MPI_Datatype oldtype, MPI_Datatype *newtype) GPURUN_API;
int MPI_Type_create_indexed_block(int count, int blocklength, const int array_of_displacements[], MPI_Datatype oldtype, MPI_Datatype *newtype) GPURUN_API;
int MPI_Type_create_indexed_block_c(MPI_Count count, MPI_Count blocklength, const MPI_Count array_of_displacements[], MPI_Datatype oldtype, MPI_Datatype *newtype) GPURUN_API;
int MPI_Type_create_hindexed_block(int count, int blocklength, const MPI_Aint array_of_displacements[], MPI_Datatype oldtype, MPI_Datatype *newtype) GPURUN_API;
int MPI_Type_create_hindexed_block_c(MPI_Count count, MPI_Count blocklength, const MPI_Count array_of_displacements[], MPI_Datatype oldtype, MPI_Datatype *newtype) GPURUN_API;
int MPI_Type_create_struct(int count, const int array_of_blocklengths[], const MPI_Aint array_of_displacements[], const MPI_Datatype array_of_types[], MPI_Datatype *newtype) GPURUN_API;
int MPI_Type_create_struct_c(MPI_Count count, const MPI_Count array_of_blocklengths[], const MPI_Count array_of_displacements[], const MPI_Datatype array_of_types[], MPI_Datatype *newtype) GPURUN_API;
int MPI_Type_create_subarray(int ndims, const int array_of_sizes[], const int array_of_subsizes[], const int array_of_starts[], int order, MPI_Datatype oldtype, MPI_Datatype *newtype) GPURUN_API;
int MPI_Type_create_subarray_c(int ndims, const MPI_Count array_of_sizes[], const MPI_Count array_of_subsizes[], const MPI_Count array_of_starts[], int order, MPI_Datatype oldtype, MPI_Datatype *newtype) GPURUN_API;
int MPI_Type_create_darray(int size, int rank, int ndims, const int array_of_gsizes[], const int array_of_distribs[], const int array_of_dargs[], const int array_of_psizes[], int order, MPI_Datatype oldtype, MPI_Datatype *newtype) GPURUN_API;
int MPI_Type_create_darray_c(int size, int rank, int ndims, const MPI_Count array_of_gsizes[], const int array_of_distribs[], const int array_of_dargs[], const int array_of_psizes[], int order, MPI_Datatype oldtype, MPI_Datatype *newtype) GPURUN_API;
int MPI_Type_create_resized(MPI_Datatype oldtype, MPI_Aint lb, MPI_Aint extent, MPI_Datatype *newtype) GPURUN_API;
int MPI_Type_create_resized_c(MPI_Datatype oldtype, MPI_Count lb, MPI_Count extent, MPI_Datatype *newtype) GPURUN_API;
int MPI_Type_dup(MPI_Datatype oldtype, MPI_Datatype *newtype) GPURUN_API;
int MPI_Type_commit(MPI_Datatype *datatype) GPURUN_API;
int MPI_Type_free(MPI_Datatype *datatype) GPURUN_API;
int MPI_Type_get_extent(MPI_Datatype datatype, MPI_Aint *lb, MPI_Aint *extent) GPURUN_API;
int MPI_Type_get_extent_x(MPI_Datatype datatype, MPI_Count *lb, MPI_Count *extent) GPURUN_API;
int MPI_Type_get_extent_c(MPI_Datatype datatype, MPI_Count *lb, MPI_Count *extent) GPURUN_API;
int MPI_Type_get_true_extent(MPI_Datatype datatype, MPI_Aint *true_lb, MPI_Aint *true_extent) GPURUN_API;
int MPI_Type_get_true_extent_x(MPI_Datatype datatype, MPI_Count *true_lb, MPI_Count *true_extent) GPURUN_API;
int MPI_Type_get_true_extent_c(MPI_Datatype datatype, MPI_Count *true_lb, MPI_Count *true_extent) GPURUN_API;
int MPI_Type_size(MPI_Datatype datatype, int *size) GPURUN_API;
int MPI_Type_size_x(MPI_Datatype datatype, MPI_Count *size) GPURUN_API;
int MPI_Type_size_c(MPI_Datatype datatype, MPI_Count *size) GPURUN_API;
int MPI_Type_get_envelope(MPI_Datatype datatype, int *num_integers, int *num_addresses, int *num_datatypes, int *combiner) GPURUN_API;
int MPI_Type_get_envelope_c(MPI_Datatype datatype, MPI_Count *num_integers, MPI_Count *num_addresses, MPI_Count *num_large_counts, MPI_Count *num_datatypes, int *combiner) GPURUN_API;
int MPI_Type_get_contents(MPI_Datatype datatype, int max_integers, int max_addresses, int max_datatypes, int array_of_integers[], MPI_Aint array_of_addresses[], MPI_Datatype array_of_datatypes[]) GPURUN_API;
int MPI_Type_get_contents_c(MPI_Datatype datatype, MPI_Count max_integers, MPI_Count max_addresses, MPI_Count max_large_counts, MPI_Count max_datatypes, int array_of_integers[], MPI_Aint array_of_addresses[], MPI_Count array_of_large_counts[], MPI_Datatype array_of_datatypes[]) GPURUN_API;
int MPI_Type_set_name(MPI_Datatype datatype, const char *type_name) GPURUN_API;
int MPI_Type_get_name(MPI_Datatype datatype, char *type_name, int *resultlen) GPURUN_API;
int MPI_Type_match_size(int typeclass, int size, MPI_Datatype *datatype) GPURUN_API;
int MPI_Pack(const void *inbuf, int incount, MPI_Datatype datatype, void *outbuf, int outsize, int *position, MPI_Comm comm) GPURUN_API;
int MPI_Pack_c(const void *inbuf, MPI_Count incount, MPI_Datatype datatype, void *outbuf, MPI_Count outsize, MPI_Count *position, MPI_Comm comm) GPURUN_API;
int MPI_Unpack(const void *inbuf, int insize, int *position, void *outbuf, int outcount, MPI_Datatype datatype, MPI_Comm comm) GPURUN_API;
int MPI_Unpack_c(const void *inbuf, MPI_Count insize, MPI_Count *position, void *outbuf, MPI_Count outcount, MPI_Datatype datatype, MPI_Comm comm) GPURUN_API;
int MPI_Pack_size(int incount, MPI_Datatype datatype, MPI_Comm comm, int *size) GPURUN_API;
int MPI_Pack_size_c(MPI_Count incount, MPI_Datatype datatype, MPI_Comm comm, MPI_Count *size) GPURUN_API;
int MPI_Pack_external(const char *datarep, const void *inbuf, int incount, MPI_Datatype datatype, void *outbuf, MPI_Aint outsize, MPI_Aint *position) GPURUN_API;
int MPI_Pack_external_c(const char *datarep, const void *inbuf, MPI_Count incount, MPI_Datatype datatype, void *outbuf, MPI_Count outsize, MPI_Count *position) GPURUN_API;
int MPI_Unpack_external(const char datarep[], const void *inbuf, MPI_Aint insize, MPI_Aint *position, void *outbuf, int outcount, MPI_Datatype datatype) GPURUN_API;
int MPI_Unpack_external_c(const char datarep[], const void *inbuf, MPI_Count insize, MPI_Count *position, void *outbuf, MPI_Count outcount, MPI_Datatype datatype) GPURUN_API;
int MPI_Pack_external_size(const char *datarep, int incount, MPI_Datatype datatype, MPI_Aint *size) GPURUN_API;
int MPI_Pack_external_size_c(const char *datarep, MPI_Count incount, MPI_Datatype datatype, MPI_Count *size) GPURUN_API;
int MPI_Get_address(const void *location, MPI_Aint *address) GPURUN_API;
MPI_Aint MPI_Aint_add(MPI_Aint base, MPI_Aint disp) GPURUN_API;
MPI_Aint MPI_Aint_diff(MPI_Aint addr1, MPI_Aint addr2) GPURUN_API;
/* Datatypes: MPI-1 forms removed from MPI-3, kept for old programs (MPICH has them too) */
int MPI_Address(void *location, MPI_Aint *address) GPURUN_API;
int MPI_Type_hvector(int count, int blocklength, MPI_Aint stride, MPI_Datatype oldtype, MPI_Datatype *newtype) GPURUN_API;
int MPI_Type_hindexed(int count, int array_of_blocklengths[], MPI_Aint array_of_displacements[], MPI_Datatype oldtype, MPI_Datatype *newtype) GPURUN_API;
int MPI_Type_struct(int count, int array_of_blocklengths[], MPI_Aint array_of_displacements[], MPI_Datatype array_of_types[], MPI_Datatype *newtype) GPURUN_API;
int MPI_Type_extent(MPI_Datatype datatype, MPI_Aint *extent) GPURUN_API;
int MPI_Type_lb(MPI_Datatype datatype, MPI_Aint *displacement) GPURUN_API;
int MPI_Type_ub(MPI_Datatype datatype, MPI_Aint *displacement) GPURUN_API;

/* Errors */
int MPI_Error_string(int errorcode, char *string, int *resultlen) GPURUN_API;
int MPI_Error_class(int errorcode, int *errorclass) GPURUN_API;
int MPI_Comm_set_errhandler(MPI_Comm comm, MPI_Errhandler errhandler) GPURUN_API;
int MPI_Comm_get_errhandler(MPI_Comm comm, MPI_Errhandler *errhandler) GPURUN_API;

/* Communicators */
int MPI_Comm_rank(MPI_Comm comm, int *rank) GPURUN_API;
int MPI_Comm_size(MPI_Comm comm, int *size) GPURUN_API;
int MPI_Barrier(MPI_Comm comm) GPURUN_API;

/* Point-to-point */
int MPI_Send(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm) GPURUN_API;
int MPI_Send_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm) GPURUN_API;
int MPI_Ssend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm) GPURUN_API;
int MPI_Ssend_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm) GPURUN_API;
int MPI_Rsend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm) GPURUN_API;
int MPI_Rsend_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm) GPURUN_API;
int MPI_Isend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm, MPI_Request *request) GPURUN_API;
int MPI_Isend_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm, MPI_Request *request) GPURUN_API;
int MPI_Issend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm, MPI_Request *request) GPURUN_API;
int MPI_Issend_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm, MPI_Request *request) GPURUN_API;
int MPI_Irsend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm, MPI_Request *request) GPURUN_API;
int MPI_Irsend_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm, MPI_Request *request) GPURUN_API;
int MPI_Recv(void *buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm, MPI_Status *status) GPURUN_API;
int MPI_Recv_c(void *buf, MPI_Count count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm, MPI_Status *status) GPURUN_API;
int MPI_Irecv(void *buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm, MPI_Request *request) GPURUN_API;
int MPI_Irecv_c(void *buf, MPI_Count count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm, MPI_Request *request) GPURUN_API;
int MPI_Bsend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm) GPURUN_API;
int MPI_Bsend_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm) GPURUN_API;
int MPI_Ibsend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm, MPI_Request *request) GPURUN_API;
int MPI_Ibsend_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm, MPI_Request *request) GPURUN_API;
int MPI_Buffer_attach(void *buffer, int size) GPURUN_API;
int MPI_Buffer_attach_c(void *buffer, MPI_Count size) GPURUN_API;
int MPI_Buffer_detach(void *buffer_addr, int *size) GPURUN_API;
int MPI_Buffer_detach_c(void *buffer_addr, MPI_Count *size) GPURUN_API;
int MPI_Sendrecv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, int dest, int sendtag, void *recvbuf, int recvcount, MPI_Datatype recvtype, int source, int recvtag, MPI_Comm comm, MPI_Status *status) GPURUN_API;
int MPI_Sendrecv_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, int dest, int sendtag, void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int source, int recvtag, MPI_Comm comm, MPI_Status *status) GPURUN_API;
int MPI_Sendrecv_replace(void *buf, int count, MPI_Datatype datatype, int dest, int sendtag, int source, int recvtag, MPI_Comm comm, MPI_Status *status) GPURUN_API;
int MPI_Sendrecv_replace_c(void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int sendtag, int source, int recvtag, MPI_Comm comm, MPI_Status *status) GPURUN_API;
int MPI_Probe(int source, int tag, MPI_Comm comm, MPI_Status *status) GPURUN_API;
int MPI_Iprobe(int source, int tag, MPI_Comm comm, int *flag, MPI_Status *status) GPURUN_API;
int MPI_Mprobe(int source, int tag, MPI_Comm comm, MPI_Message *message, MPI_Status *status) GPURUN_API;
int MPI_Improbe(int source, int tag, MPI_Comm comm, int *flag, MPI_Message *message, MPI_Status *status) GPURUN_API;
int MPI_Mrecv(void *buf, int count, MPI_Datatype datatype, MPI_Message *message, MPI_Status *status) GPURUN_API;
int MPI_Mrecv_c(void *buf, MPI_Count count, MPI_Datatype datatype, MPI_Message *message, MPI_Status *status) GPURUN_API;
int MPI_Imrecv(void *buf, int count, MPI_Datatype datatype, MPI_Message *message, MPI_Request *request) GPURUN_API;
int MPI_Imrecv_c(void *buf, MPI_Count count, MPI_Datatype datatype, MPI_Message *message, MPI_Request *request) GPURUN_API;
int MPI_Send_init(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm, MPI_Request *request) GPURUN_API;
int MPI_Send_init_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm, MPI_Request *request) GPURUN_API;
int MPI_Ssend_init(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm, MPI_Request *request) GPURUN_API;
int MPI_Ssend_init_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm, MPI_Request *request) GPURUN_API;
int MPI_Bsend_init(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm, MPI_Request *request) GPURUN_API;
int MPI_Bsend_init_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm, MPI_Request *request) GPURUN_API;
int MPI_Rsend_init(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm, MPI_Request *request) GPURUN_API;
int MPI_Rsend_init_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm, MPI_Request *request) GPURUN_API;
int MPI_Recv_init(void *buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm, MPI_Request *request) GPURUN_API;
int MPI_Recv_init_c(void *buf, MPI_Count count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm, MPI_Request *request) GPURUN_API;
int MPI_Start(MPI_Request *request) GPURUN_API;
int MPI_Startall(int count, MPI_Request array_of_requests[]) GPURUN_API;

/* Completion */
int MPI_Wait(MPI_Request *request, MPI_Status *status) GPURUN_API;
int MPI_Test(MPI_Request *request, int *flag, MPI_Status *status) GPURUN_API;
int MPI_Waitall(int count, MPI_Request array_of_requests[], MPI_Status array_of_statuses[]) GPURUN_API;
int MPI_Testall(int count, MPI_Request array_of_requests[], int *flag, MPI_Status array_of_statuses[]) GPURUN_API;
int MPI_Waitany(int count, MPI_Request array_of_requests[], int *index, MPI_Status *status) GPURUN_API;
int MPI_Testany(int count, MPI_Request array_of_requests[], int *index, int *flag, MPI_Status *status) GPURUN_API;
int MPI_Waitsome(int incount, MPI_Request array_of_requests[], int *outcount, int array_of_indices[], MPI_Status array_of_statuses[]) GPURUN_API;
int MPI_Testsome(int incount, MPI_Request array_of_requests[], int *outcount, int array_of_indices[], MPI_Status array_of_statuses[]) GPURUN_API;
int MPI_Request_free(MPI_Request *request) GPURUN_API;
int MPI_Request_get_status(MPI_Request request, int *flag, MPI_Status *status) GPURUN_API;
int MPI_Cancel(MPI_Request *request) GPURUN_API;
int MPI_Test_cancelled(const MPI_Status *status, int *flag) GPURUN_API;
int MPI_Status_set_cancelled(MPI_Status *status, int flag) GPURUN_API;
int MPI_Get_count(const MPI_Status *status, MPI_Datatype datatype, int *count) GPURUN_API;
int MPI_Get_count_c(const MPI_Status *status, MPI_Datatype datatype, MPI_Count *count) GPURUN_API;
int MPI_Get_elements(const MPI_Status *status, MPI_Datatype datatype, int *count) GPURUN_API;
int MPI_Get_elements_x(const MPI_Status *status, MPI_Datatype datatype, MPI_Count *count) GPURUN_API;
int MPI_Get_elements_c(const MPI_Status *status, MPI_Datatype datatype, MPI_Count *count) GPURUN_API;
int MPI_Status_set_elements(MPI_Status *status, MPI_Datatype datatype, int count) GPURUN_API;
int MPI_Status_set_elements_x(MPI_Status *status, MPI_Datatype datatype, MPI_Count count) GPURUN_API;
/* END MPI */

/* BEGIN PMPI (generated by scripts/update_proto.py) */
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
int PMPI_Type_contiguous(int count, MPI_Datatype oldtype, MPI_Datatype *newtype) GPURUN_API;
int PMPI_Type_contiguous_c(MPI_Count count, MPI_Datatype oldtype, MPI_Datatype *newtype) GPURUN_API;
int PMPI_Type_vector(int count, int blocklength, int stride, MPI_Datatype oldtype, MPI_Datatype *newtype) GPURUN_API;
int PMPI_Type_vector_c(MPI_Count count, MPI_Count blocklength, MPI_Count stride, MPI_Datatype oldtype, MPI_Datatype *newtype) GPURUN_API;
int PMPI_Type_create_hvector(int count, int blocklength, MPI_Aint stride, MPI_Datatype oldtype, MPI_Datatype *newtype) GPURUN_API;
int PMPI_Type_create_hvector_c(MPI_Count count, MPI_Count blocklength, MPI_Count stride, MPI_Datatype oldtype, MPI_Datatype *newtype) GPURUN_API;
int PMPI_Type_indexed(int count, const int array_of_blocklengths[], const int array_of_displacements[], MPI_Datatype oldtype, MPI_Datatype *newtype) GPURUN_API;
int PMPI_Type_indexed_c(MPI_Count count, const MPI_Count array_of_blocklengths[], const MPI_Count array_of_displacements[], MPI_Datatype oldtype, MPI_Datatype *newtype) GPURUN_API;
int PMPI_Type_create_hindexed(int count, const int array_of_blocklengths[], const MPI_Aint array_of_displacements[], MPI_Datatype oldtype, MPI_Datatype *newtype) GPURUN_API;
int PMPI_Type_create_hindexed_c(MPI_Count count, const MPI_Count array_of_blocklengths[], const MPI_Count array_of_displacements[], MPI_Datatype oldtype, MPI_Datatype *newtype) GPURUN_API;
int PMPI_Type_create_indexed_block(int count, int blocklength, const int array_of_displacements[], MPI_Datatype oldtype, MPI_Datatype *newtype) GPURUN_API;
int PMPI_Type_create_indexed_block_c(MPI_Count count, MPI_Count blocklength, const MPI_Count array_of_displacements[], MPI_Datatype oldtype, MPI_Datatype *newtype) GPURUN_API;
int PMPI_Type_create_hindexed_block(int count, int blocklength, const MPI_Aint array_of_displacements[], MPI_Datatype oldtype, MPI_Datatype *newtype) GPURUN_API;
int PMPI_Type_create_hindexed_block_c(MPI_Count count, MPI_Count blocklength, const MPI_Count array_of_displacements[], MPI_Datatype oldtype, MPI_Datatype *newtype) GPURUN_API;
int PMPI_Type_create_struct(int count, const int array_of_blocklengths[], const MPI_Aint array_of_displacements[], const MPI_Datatype array_of_types[], MPI_Datatype *newtype) GPURUN_API;
int PMPI_Type_create_struct_c(MPI_Count count, const MPI_Count array_of_blocklengths[], const MPI_Count array_of_displacements[], const MPI_Datatype array_of_types[], MPI_Datatype *newtype) GPURUN_API;
int PMPI_Type_create_subarray(int ndims, const int array_of_sizes[], const int array_of_subsizes[], const int array_of_starts[], int order, MPI_Datatype oldtype, MPI_Datatype *newtype) GPURUN_API;
int PMPI_Type_create_subarray_c(int ndims, const MPI_Count array_of_sizes[], const MPI_Count array_of_subsizes[], const MPI_Count array_of_starts[], int order, MPI_Datatype oldtype, MPI_Datatype *newtype) GPURUN_API;
int PMPI_Type_create_darray(int size, int rank, int ndims, const int array_of_gsizes[], const int array_of_distribs[], const int array_of_dargs[], const int array_of_psizes[], int order, MPI_Datatype oldtype, MPI_Datatype *newtype) GPURUN_API;
int PMPI_Type_create_darray_c(int size, int rank, int ndims, const MPI_Count array_of_gsizes[], const int array_of_distribs[], const int array_of_dargs[], const int array_of_psizes[], int order, MPI_Datatype oldtype, MPI_Datatype *newtype) GPURUN_API;
int PMPI_Type_create_resized(MPI_Datatype oldtype, MPI_Aint lb, MPI_Aint extent, MPI_Datatype *newtype) GPURUN_API;
int PMPI_Type_create_resized_c(MPI_Datatype oldtype, MPI_Count lb, MPI_Count extent, MPI_Datatype *newtype) GPURUN_API;
int PMPI_Type_dup(MPI_Datatype oldtype, MPI_Datatype *newtype) GPURUN_API;
int PMPI_Type_commit(MPI_Datatype *datatype) GPURUN_API;
int PMPI_Type_free(MPI_Datatype *datatype) GPURUN_API;
int PMPI_Type_get_extent(MPI_Datatype datatype, MPI_Aint *lb, MPI_Aint *extent) GPURUN_API;
int PMPI_Type_get_extent_x(MPI_Datatype datatype, MPI_Count *lb, MPI_Count *extent) GPURUN_API;
int PMPI_Type_get_extent_c(MPI_Datatype datatype, MPI_Count *lb, MPI_Count *extent) GPURUN_API;
int PMPI_Type_get_true_extent(MPI_Datatype datatype, MPI_Aint *true_lb, MPI_Aint *true_extent) GPURUN_API;
int PMPI_Type_get_true_extent_x(MPI_Datatype datatype, MPI_Count *true_lb, MPI_Count *true_extent) GPURUN_API;
int PMPI_Type_get_true_extent_c(MPI_Datatype datatype, MPI_Count *true_lb, MPI_Count *true_extent) GPURUN_API;
int PMPI_Type_size(MPI_Datatype datatype, int *size) GPURUN_API;
int PMPI_Type_size_x(MPI_Datatype datatype, MPI_Count *size) GPURUN_API;
int PMPI_Type_size_c(MPI_Datatype datatype, MPI_Count *size) GPURUN_API;
int PMPI_Type_get_envelope(MPI_Datatype datatype, int *num_integers, int *num_addresses, int *num_datatypes, int *combiner) GPURUN_API;
int PMPI_Type_get_envelope_c(MPI_Datatype datatype, MPI_Count *num_integers, MPI_Count *num_addresses, MPI_Count *num_large_counts, MPI_Count *num_datatypes, int *combiner) GPURUN_API;
int PMPI_Type_get_contents(MPI_Datatype datatype, int max_integers, int max_addresses, int max_datatypes, int array_of_integers[], MPI_Aint array_of_addresses[], MPI_Datatype array_of_datatypes[]) GPURUN_API;
int PMPI_Type_get_contents_c(MPI_Datatype datatype, MPI_Count max_integers, MPI_Count max_addresses, MPI_Count max_large_counts, MPI_Count max_datatypes, int array_of_integers[], MPI_Aint array_of_addresses[], MPI_Count array_of_large_counts[], MPI_Datatype array_of_datatypes[]) GPURUN_API;
int PMPI_Type_set_name(MPI_Datatype datatype, const char *type_name) GPURUN_API;
int PMPI_Type_get_name(MPI_Datatype datatype, char *type_name, int *resultlen) GPURUN_API;
int PMPI_Type_match_size(int typeclass, int size, MPI_Datatype *datatype) GPURUN_API;
int PMPI_Pack(const void *inbuf, int incount, MPI_Datatype datatype, void *outbuf, int outsize, int *position, MPI_Comm comm) GPURUN_API;
int PMPI_Pack_c(const void *inbuf, MPI_Count incount, MPI_Datatype datatype, void *outbuf, MPI_Count outsize, MPI_Count *position, MPI_Comm comm) GPURUN_API;
int PMPI_Unpack(const void *inbuf, int insize, int *position, void *outbuf, int outcount, MPI_Datatype datatype, MPI_Comm comm) GPURUN_API;
int PMPI_Unpack_c(const void *inbuf, MPI_Count insize, MPI_Count *position, void *outbuf, MPI_Count outcount, MPI_Datatype datatype, MPI_Comm comm) GPURUN_API;
int PMPI_Pack_size(int incount, MPI_Datatype datatype, MPI_Comm comm, int *size) GPURUN_API;
int PMPI_Pack_size_c(MPI_Count incount, MPI_Datatype datatype, MPI_Comm comm, MPI_Count *size) GPURUN_API;
int PMPI_Pack_external(const char *datarep, const void *inbuf, int incount, MPI_Datatype datatype, void *outbuf, MPI_Aint outsize, MPI_Aint *position) GPURUN_API;
int PMPI_Pack_external_c(const char *datarep, const void *inbuf, MPI_Count incount, MPI_Datatype datatype, void *outbuf, MPI_Count outsize, MPI_Count *position) GPURUN_API;
int PMPI_Unpack_external(const char datarep[], const void *inbuf, MPI_Aint insize, MPI_Aint *position, void *outbuf, int outcount, MPI_Datatype datatype) GPURUN_API;
int PMPI_Unpack_external_c(const char datarep[], const void *inbuf, MPI_Count insize, MPI_Count *position, void *outbuf, MPI_Count outcount, MPI_Datatype datatype) GPURUN_API;
int PMPI_Pack_external_size(const char *datarep, int incount, MPI_Datatype datatype, MPI_Aint *size) GPURUN_API;
int PMPI_Pack_external_size_c(const char *datarep, MPI_Count incount, MPI_Datatype datatype, MPI_Count *size) GPURUN_API;
int PMPI_Get_address(const void *location, MPI_Aint *address) GPURUN_API;
MPI_Aint PMPI_Aint_add(MPI_Aint base, MPI_Aint disp) GPURUN_API;
MPI_Aint PMPI_Aint_diff(MPI_Aint addr1, MPI_Aint addr2) GPURUN_API;
int PMPI_Address(void *location, MPI_Aint *address) GPURUN_API;
int PMPI_Type_hvector(int count, int blocklength, MPI_Aint stride, MPI_Datatype oldtype, MPI_Datatype *newtype) GPURUN_API;
int PMPI_Type_hindexed(int count, int array_of_blocklengths[], MPI_Aint array_of_displacements[], MPI_Datatype oldtype, MPI_Datatype *newtype) GPURUN_API;
int PMPI_Type_struct(int count, int array_of_blocklengths[], MPI_Aint array_of_displacements[], MPI_Datatype array_of_types[], MPI_Datatype *newtype) GPURUN_API;
int PMPI_Type_extent(MPI_Datatype datatype, MPI_Aint *extent) GPURUN_API;
int PMPI_Type_lb(MPI_Datatype datatype, MPI_Aint *displacement) GPURUN_API;
int PMPI_Type_ub(MPI_Datatype datatype, MPI_Aint *displacement) GPURUN_API;
int PMPI_Error_string(int errorcode, char *string, int *resultlen) GPURUN_API;
int PMPI_Error_class(int errorcode, int *errorclass) GPURUN_API;
int PMPI_Comm_set_errhandler(MPI_Comm comm, MPI_Errhandler errhandler) GPURUN_API;
int PMPI_Comm_get_errhandler(MPI_Comm comm, MPI_Errhandler *errhandler) GPURUN_API;
int PMPI_Comm_rank(MPI_Comm comm, int *rank) GPURUN_API;
int PMPI_Comm_size(MPI_Comm comm, int *size) GPURUN_API;
int PMPI_Barrier(MPI_Comm comm) GPURUN_API;
int PMPI_Send(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm) GPURUN_API;
int PMPI_Send_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm) GPURUN_API;
int PMPI_Ssend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm) GPURUN_API;
int PMPI_Ssend_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm) GPURUN_API;
int PMPI_Rsend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm) GPURUN_API;
int PMPI_Rsend_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm) GPURUN_API;
int PMPI_Isend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm, MPI_Request *request) GPURUN_API;
int PMPI_Isend_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm, MPI_Request *request) GPURUN_API;
int PMPI_Issend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm, MPI_Request *request) GPURUN_API;
int PMPI_Issend_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm, MPI_Request *request) GPURUN_API;
int PMPI_Irsend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm, MPI_Request *request) GPURUN_API;
int PMPI_Irsend_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm, MPI_Request *request) GPURUN_API;
int PMPI_Recv(void *buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm, MPI_Status *status) GPURUN_API;
int PMPI_Recv_c(void *buf, MPI_Count count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm, MPI_Status *status) GPURUN_API;
int PMPI_Irecv(void *buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm, MPI_Request *request) GPURUN_API;
int PMPI_Irecv_c(void *buf, MPI_Count count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm, MPI_Request *request) GPURUN_API;
int PMPI_Bsend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm) GPURUN_API;
int PMPI_Bsend_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm) GPURUN_API;
int PMPI_Ibsend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm, MPI_Request *request) GPURUN_API;
int PMPI_Ibsend_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm, MPI_Request *request) GPURUN_API;
int PMPI_Buffer_attach(void *buffer, int size) GPURUN_API;
int PMPI_Buffer_attach_c(void *buffer, MPI_Count size) GPURUN_API;
int PMPI_Buffer_detach(void *buffer_addr, int *size) GPURUN_API;
int PMPI_Buffer_detach_c(void *buffer_addr, MPI_Count *size) GPURUN_API;
int PMPI_Sendrecv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, int dest, int sendtag, void *recvbuf, int recvcount, MPI_Datatype recvtype, int source, int recvtag, MPI_Comm comm, MPI_Status *status) GPURUN_API;
int PMPI_Sendrecv_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, int dest, int sendtag, void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int source, int recvtag, MPI_Comm comm, MPI_Status *status) GPURUN_API;
int PMPI_Sendrecv_replace(void *buf, int count, MPI_Datatype datatype, int dest, int sendtag, int source, int recvtag, MPI_Comm comm, MPI_Status *status) GPURUN_API;
int PMPI_Sendrecv_replace_c(void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int sendtag, int source, int recvtag, MPI_Comm comm, MPI_Status *status) GPURUN_API;
int PMPI_Probe(int source, int tag, MPI_Comm comm, MPI_Status *status) GPURUN_API;
int PMPI_Iprobe(int source, int tag, MPI_Comm comm, int *flag, MPI_Status *status) GPURUN_API;
int PMPI_Mprobe(int source, int tag, MPI_Comm comm, MPI_Message *message, MPI_Status *status) GPURUN_API;
int PMPI_Improbe(int source, int tag, MPI_Comm comm, int *flag, MPI_Message *message, MPI_Status *status) GPURUN_API;
int PMPI_Mrecv(void *buf, int count, MPI_Datatype datatype, MPI_Message *message, MPI_Status *status) GPURUN_API;
int PMPI_Mrecv_c(void *buf, MPI_Count count, MPI_Datatype datatype, MPI_Message *message, MPI_Status *status) GPURUN_API;
int PMPI_Imrecv(void *buf, int count, MPI_Datatype datatype, MPI_Message *message, MPI_Request *request) GPURUN_API;
int PMPI_Imrecv_c(void *buf, MPI_Count count, MPI_Datatype datatype, MPI_Message *message, MPI_Request *request) GPURUN_API;
int PMPI_Send_init(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm, MPI_Request *request) GPURUN_API;
int PMPI_Send_init_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm, MPI_Request *request) GPURUN_API;
int PMPI_Ssend_init(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm, MPI_Request *request) GPURUN_API;
int PMPI_Ssend_init_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm, MPI_Request *request) GPURUN_API;
int PMPI_Bsend_init(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm, MPI_Request *request) GPURUN_API;
int PMPI_Bsend_init_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm, MPI_Request *request) GPURUN_API;
int PMPI_Rsend_init(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm, MPI_Request *request) GPURUN_API;
int PMPI_Rsend_init_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm, MPI_Request *request) GPURUN_API;
int PMPI_Recv_init(void *buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm, MPI_Request *request) GPURUN_API;
int PMPI_Recv_init_c(void *buf, MPI_Count count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm, MPI_Request *request) GPURUN_API;
int PMPI_Start(MPI_Request *request) GPURUN_API;
int PMPI_Startall(int count, MPI_Request array_of_requests[]) GPURUN_API;
int PMPI_Wait(MPI_Request *request, MPI_Status *status) GPURUN_API;
int PMPI_Test(MPI_Request *request, int *flag, MPI_Status *status) GPURUN_API;
int PMPI_Waitall(int count, MPI_Request array_of_requests[], MPI_Status array_of_statuses[]) GPURUN_API;
int PMPI_Testall(int count, MPI_Request array_of_requests[], int *flag, MPI_Status array_of_statuses[]) GPURUN_API;
int PMPI_Waitany(int count, MPI_Request array_of_requests[], int *index, MPI_Status *status) GPURUN_API;
int PMPI_Testany(int count, MPI_Request array_of_requests[], int *index, int *flag, MPI_Status *status) GPURUN_API;
int PMPI_Waitsome(int incount, MPI_Request array_of_requests[], int *outcount, int array_of_indices[], MPI_Status array_of_statuses[]) GPURUN_API;
int PMPI_Testsome(int incount, MPI_Request array_of_requests[], int *outcount, int array_of_indices[], MPI_Status array_of_statuses[]) GPURUN_API;
int PMPI_Request_free(MPI_Request *request) GPURUN_API;
int PMPI_Request_get_status(MPI_Request request, int *flag, MPI_Status *status) GPURUN_API;
int PMPI_Cancel(MPI_Request *request) GPURUN_API;
int PMPI_Test_cancelled(const MPI_Status *status, int *flag) GPURUN_API;
int PMPI_Status_set_cancelled(MPI_Status *status, int flag) GPURUN_API;
int PMPI_Get_count(const MPI_Status *status, MPI_Datatype datatype, int *count) GPURUN_API;
int PMPI_Get_count_c(const MPI_Status *status, MPI_Datatype datatype, MPI_Count *count) GPURUN_API;
int PMPI_Get_elements(const MPI_Status *status, MPI_Datatype datatype, int *count) GPURUN_API;
int PMPI_Get_elements_x(const MPI_Status *status, MPI_Datatype datatype, MPI_Count *count) GPURUN_API;
int PMPI_Get_elements_c(const MPI_Status *status, MPI_Datatype datatype, MPI_Count *count) GPURUN_API;
int PMPI_Status_set_elements(MPI_Status *status, MPI_Datatype datatype, int count) GPURUN_API;
int PMPI_Status_set_elements_x(MPI_Status *status, MPI_Datatype datatype, MPI_Count count) GPURUN_API;
/* END PMPI */

#if defined(__cplusplus)
}
#endif

#endif

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

/* Ops */
int MPI_Op_create(MPI_User_function *user_fn, int commute, MPI_Op *op) GPURUN_API;
int MPI_Op_create_c(MPI_User_function_c *user_fn, int commute, MPI_Op *op) GPURUN_API;
int MPI_Op_free(MPI_Op *op) GPURUN_API;
int MPI_Op_commutative(MPI_Op op, int *commute) GPURUN_API;
int MPI_Reduce_local(const void *inbuf, void *inoutbuf, int count, MPI_Datatype datatype, MPI_Op op) GPURUN_API;
int MPI_Reduce_local_c(const void *inbuf, void *inoutbuf, MPI_Count count, MPI_Datatype datatype, MPI_Op op) GPURUN_API;

/* Errors */
int MPI_Error_string(int errorcode, char *string, int *resultlen) GPURUN_API;
int MPI_Error_class(int errorcode, int *errorclass) GPURUN_API;
int MPI_Comm_set_errhandler(MPI_Comm comm, MPI_Errhandler errhandler) GPURUN_API;
int MPI_Comm_get_errhandler(MPI_Comm comm, MPI_Errhandler *errhandler) GPURUN_API;

/* Communicators */
int MPI_Comm_rank(MPI_Comm comm, int *rank) GPURUN_API;
int MPI_Comm_size(MPI_Comm comm, int *size) GPURUN_API;
int MPI_Barrier(MPI_Comm comm) GPURUN_API;

/* Communicators, groups, attributes, info */
int MPI_Comm_dup(MPI_Comm comm, MPI_Comm *newcomm) GPURUN_API;
int MPI_Comm_dup_with_info(MPI_Comm comm, MPI_Info info, MPI_Comm *newcomm) GPURUN_API;
int MPI_Comm_idup(MPI_Comm comm, MPI_Comm *newcomm, MPI_Request *request) GPURUN_API;
int MPI_Comm_idup_with_info(MPI_Comm comm, MPI_Info info, MPI_Comm *newcomm, MPI_Request *request) GPURUN_API;
int MPI_Comm_split(MPI_Comm comm, int color, int key, MPI_Comm *newcomm) GPURUN_API;
int MPI_Comm_split_type(MPI_Comm comm, int split_type, int key, MPI_Info info, MPI_Comm *newcomm) GPURUN_API;
int MPI_Comm_create(MPI_Comm comm, MPI_Group group, MPI_Comm *newcomm) GPURUN_API;
int MPI_Comm_create_group(MPI_Comm comm, MPI_Group group, int tag, MPI_Comm *newcomm) GPURUN_API;
int MPI_Comm_free(MPI_Comm *comm) GPURUN_API;
int MPI_Comm_compare(MPI_Comm comm1, MPI_Comm comm2, int *result) GPURUN_API;
int MPI_Comm_group(MPI_Comm comm, MPI_Group *group) GPURUN_API;
int MPI_Comm_set_name(MPI_Comm comm, const char *comm_name) GPURUN_API;
int MPI_Comm_get_name(MPI_Comm comm, char *comm_name, int *resultlen) GPURUN_API;
int MPI_Comm_set_info(MPI_Comm comm, MPI_Info info) GPURUN_API;
int MPI_Comm_get_info(MPI_Comm comm, MPI_Info *info_used) GPURUN_API;
int MPI_Comm_test_inter(MPI_Comm comm, int *flag) GPURUN_API;
int MPI_Comm_remote_size(MPI_Comm comm, int *size) GPURUN_API;
int MPI_Comm_remote_group(MPI_Comm comm, MPI_Group *group) GPURUN_API;
int MPI_Intercomm_create(MPI_Comm local_comm, int local_leader, MPI_Comm peer_comm, int remote_leader, int tag, MPI_Comm *newintercomm) GPURUN_API;
int MPI_Intercomm_merge(MPI_Comm intercomm, int high, MPI_Comm *newintracomm) GPURUN_API;
int MPI_Group_size(MPI_Group group, int *size) GPURUN_API;
int MPI_Group_rank(MPI_Group group, int *rank) GPURUN_API;
int MPI_Group_free(MPI_Group *group) GPURUN_API;
int MPI_Group_compare(MPI_Group group1, MPI_Group group2, int *result) GPURUN_API;
int MPI_Group_translate_ranks(MPI_Group group1, int n, const int ranks1[], MPI_Group group2, int ranks2[]) GPURUN_API;
int MPI_Group_incl(MPI_Group group, int n, const int ranks[], MPI_Group *newgroup) GPURUN_API;
int MPI_Group_excl(MPI_Group group, int n, const int ranks[], MPI_Group *newgroup) GPURUN_API;
int MPI_Group_range_incl(MPI_Group group, int n, int ranges[][3], MPI_Group *newgroup) GPURUN_API;
int MPI_Group_range_excl(MPI_Group group, int n, int ranges[][3], MPI_Group *newgroup) GPURUN_API;
int MPI_Group_union(MPI_Group group1, MPI_Group group2, MPI_Group *newgroup) GPURUN_API;
int MPI_Group_intersection(MPI_Group group1, MPI_Group group2, MPI_Group *newgroup) GPURUN_API;
int MPI_Group_difference(MPI_Group group1, MPI_Group group2, MPI_Group *newgroup) GPURUN_API;
int MPI_Comm_create_keyval(MPI_Comm_copy_attr_function *comm_copy_attr_fn, MPI_Comm_delete_attr_function *comm_delete_attr_fn, int *comm_keyval, void *extra_state) GPURUN_API;
int MPI_Comm_free_keyval(int *comm_keyval) GPURUN_API;
int MPI_Comm_set_attr(MPI_Comm comm, int comm_keyval, void *attribute_val) GPURUN_API;
int MPI_Comm_get_attr(MPI_Comm comm, int comm_keyval, void *attribute_val, int *flag) GPURUN_API;
int MPI_Comm_delete_attr(MPI_Comm comm, int comm_keyval) GPURUN_API;
int MPI_Keyval_create(MPI_Copy_function *copy_fn, MPI_Delete_function *delete_fn, int *keyval, void *extra_state) GPURUN_API;
int MPI_Keyval_free(int *keyval) GPURUN_API;
int MPI_Attr_put(MPI_Comm comm, int keyval, void *attribute_val) GPURUN_API;
int MPI_Attr_get(MPI_Comm comm, int keyval, void *attribute_val, int *flag) GPURUN_API;
int MPI_Attr_delete(MPI_Comm comm, int keyval) GPURUN_API;
int MPI_Info_create(MPI_Info *info) GPURUN_API;
int MPI_Info_create_env(int argc, char *argv[], MPI_Info *info) GPURUN_API;
int MPI_Info_set(MPI_Info info, const char *key, const char *value) GPURUN_API;
int MPI_Info_get(MPI_Info info, const char *key, int valuelen, char *value, int *flag) GPURUN_API;
int MPI_Info_get_string(MPI_Info info, const char *key, int *buflen, char *value, int *flag) GPURUN_API;
int MPI_Info_get_valuelen(MPI_Info info, const char *key, int *valuelen, int *flag) GPURUN_API;
int MPI_Info_delete(MPI_Info info, const char *key) GPURUN_API;
int MPI_Info_dup(MPI_Info info, MPI_Info *newinfo) GPURUN_API;
int MPI_Info_free(MPI_Info *info) GPURUN_API;
int MPI_Info_get_nkeys(MPI_Info info, int *nkeys) GPURUN_API;
int MPI_Info_get_nthkey(MPI_Info info, int n, char *key) GPURUN_API;

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
int PMPI_Op_create(MPI_User_function *user_fn, int commute, MPI_Op *op) GPURUN_API;
int PMPI_Op_create_c(MPI_User_function_c *user_fn, int commute, MPI_Op *op) GPURUN_API;
int PMPI_Op_free(MPI_Op *op) GPURUN_API;
int PMPI_Op_commutative(MPI_Op op, int *commute) GPURUN_API;
int PMPI_Reduce_local(const void *inbuf, void *inoutbuf, int count, MPI_Datatype datatype, MPI_Op op) GPURUN_API;
int PMPI_Reduce_local_c(const void *inbuf, void *inoutbuf, MPI_Count count, MPI_Datatype datatype, MPI_Op op) GPURUN_API;
int PMPI_Error_string(int errorcode, char *string, int *resultlen) GPURUN_API;
int PMPI_Error_class(int errorcode, int *errorclass) GPURUN_API;
int PMPI_Comm_set_errhandler(MPI_Comm comm, MPI_Errhandler errhandler) GPURUN_API;
int PMPI_Comm_get_errhandler(MPI_Comm comm, MPI_Errhandler *errhandler) GPURUN_API;
int PMPI_Comm_rank(MPI_Comm comm, int *rank) GPURUN_API;
int PMPI_Comm_size(MPI_Comm comm, int *size) GPURUN_API;
int PMPI_Barrier(MPI_Comm comm) GPURUN_API;
int PMPI_Comm_dup(MPI_Comm comm, MPI_Comm *newcomm) GPURUN_API;
int PMPI_Comm_dup_with_info(MPI_Comm comm, MPI_Info info, MPI_Comm *newcomm) GPURUN_API;
int PMPI_Comm_idup(MPI_Comm comm, MPI_Comm *newcomm, MPI_Request *request) GPURUN_API;
int PMPI_Comm_idup_with_info(MPI_Comm comm, MPI_Info info, MPI_Comm *newcomm, MPI_Request *request) GPURUN_API;
int PMPI_Comm_split(MPI_Comm comm, int color, int key, MPI_Comm *newcomm) GPURUN_API;
int PMPI_Comm_split_type(MPI_Comm comm, int split_type, int key, MPI_Info info, MPI_Comm *newcomm) GPURUN_API;
int PMPI_Comm_create(MPI_Comm comm, MPI_Group group, MPI_Comm *newcomm) GPURUN_API;
int PMPI_Comm_create_group(MPI_Comm comm, MPI_Group group, int tag, MPI_Comm *newcomm) GPURUN_API;
int PMPI_Comm_free(MPI_Comm *comm) GPURUN_API;
int PMPI_Comm_compare(MPI_Comm comm1, MPI_Comm comm2, int *result) GPURUN_API;
int PMPI_Comm_group(MPI_Comm comm, MPI_Group *group) GPURUN_API;
int PMPI_Comm_set_name(MPI_Comm comm, const char *comm_name) GPURUN_API;
int PMPI_Comm_get_name(MPI_Comm comm, char *comm_name, int *resultlen) GPURUN_API;
int PMPI_Comm_set_info(MPI_Comm comm, MPI_Info info) GPURUN_API;
int PMPI_Comm_get_info(MPI_Comm comm, MPI_Info *info_used) GPURUN_API;
int PMPI_Comm_test_inter(MPI_Comm comm, int *flag) GPURUN_API;
int PMPI_Comm_remote_size(MPI_Comm comm, int *size) GPURUN_API;
int PMPI_Comm_remote_group(MPI_Comm comm, MPI_Group *group) GPURUN_API;
int PMPI_Intercomm_create(MPI_Comm local_comm, int local_leader, MPI_Comm peer_comm, int remote_leader, int tag, MPI_Comm *newintercomm) GPURUN_API;
int PMPI_Intercomm_merge(MPI_Comm intercomm, int high, MPI_Comm *newintracomm) GPURUN_API;
int PMPI_Group_size(MPI_Group group, int *size) GPURUN_API;
int PMPI_Group_rank(MPI_Group group, int *rank) GPURUN_API;
int PMPI_Group_free(MPI_Group *group) GPURUN_API;
int PMPI_Group_compare(MPI_Group group1, MPI_Group group2, int *result) GPURUN_API;
int PMPI_Group_translate_ranks(MPI_Group group1, int n, const int ranks1[], MPI_Group group2, int ranks2[]) GPURUN_API;
int PMPI_Group_incl(MPI_Group group, int n, const int ranks[], MPI_Group *newgroup) GPURUN_API;
int PMPI_Group_excl(MPI_Group group, int n, const int ranks[], MPI_Group *newgroup) GPURUN_API;
int PMPI_Group_range_incl(MPI_Group group, int n, int ranges[][3], MPI_Group *newgroup) GPURUN_API;
int PMPI_Group_range_excl(MPI_Group group, int n, int ranges[][3], MPI_Group *newgroup) GPURUN_API;
int PMPI_Group_union(MPI_Group group1, MPI_Group group2, MPI_Group *newgroup) GPURUN_API;
int PMPI_Group_intersection(MPI_Group group1, MPI_Group group2, MPI_Group *newgroup) GPURUN_API;
int PMPI_Group_difference(MPI_Group group1, MPI_Group group2, MPI_Group *newgroup) GPURUN_API;
int PMPI_Comm_create_keyval(MPI_Comm_copy_attr_function *comm_copy_attr_fn, MPI_Comm_delete_attr_function *comm_delete_attr_fn, int *comm_keyval, void *extra_state) GPURUN_API;
int PMPI_Comm_free_keyval(int *comm_keyval) GPURUN_API;
int PMPI_Comm_set_attr(MPI_Comm comm, int comm_keyval, void *attribute_val) GPURUN_API;
int PMPI_Comm_get_attr(MPI_Comm comm, int comm_keyval, void *attribute_val, int *flag) GPURUN_API;
int PMPI_Comm_delete_attr(MPI_Comm comm, int comm_keyval) GPURUN_API;
int PMPI_Keyval_create(MPI_Copy_function *copy_fn, MPI_Delete_function *delete_fn, int *keyval, void *extra_state) GPURUN_API;
int PMPI_Keyval_free(int *keyval) GPURUN_API;
int PMPI_Attr_put(MPI_Comm comm, int keyval, void *attribute_val) GPURUN_API;
int PMPI_Attr_get(MPI_Comm comm, int keyval, void *attribute_val, int *flag) GPURUN_API;
int PMPI_Attr_delete(MPI_Comm comm, int keyval) GPURUN_API;
int PMPI_Info_create(MPI_Info *info) GPURUN_API;
int PMPI_Info_create_env(int argc, char *argv[], MPI_Info *info) GPURUN_API;
int PMPI_Info_set(MPI_Info info, const char *key, const char *value) GPURUN_API;
int PMPI_Info_get(MPI_Info info, const char *key, int valuelen, char *value, int *flag) GPURUN_API;
int PMPI_Info_get_string(MPI_Info info, const char *key, int *buflen, char *value, int *flag) GPURUN_API;
int PMPI_Info_get_valuelen(MPI_Info info, const char *key, int *valuelen, int *flag) GPURUN_API;
int PMPI_Info_delete(MPI_Info info, const char *key) GPURUN_API;
int PMPI_Info_dup(MPI_Info info, MPI_Info *newinfo) GPURUN_API;
int PMPI_Info_free(MPI_Info *info) GPURUN_API;
int PMPI_Info_get_nkeys(MPI_Info info, int *nkeys) GPURUN_API;
int PMPI_Info_get_nthkey(MPI_Info info, int n, char *key) GPURUN_API;
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
int PMPI_Wait(MPI_Request *request, MPI_Status *status) GPURUN_API;
int PMPI_Test(MPI_Request *request, int *flag, MPI_Status *status) GPURUN_API;
int PMPI_Waitall(int count, MPI_Request array_of_requests[], MPI_Status array_of_statuses[]) GPURUN_API;
int PMPI_Testall(int count, MPI_Request array_of_requests[], int *flag, MPI_Status array_of_statuses[]) GPURUN_API;
int PMPI_Waitany(int count, MPI_Request array_of_requests[], int *index, MPI_Status *status) GPURUN_API;
int PMPI_Testany(int count, MPI_Request array_of_requests[], int *index, int *flag, MPI_Status *status) GPURUN_API;
int PMPI_Waitsome(int incount, MPI_Request array_of_requests[], int *outcount, int array_of_indices[], MPI_Status array_of_statuses[]) GPURUN_API;
int PMPI_Testsome(int incount, MPI_Request array_of_requests[], int *outcount, int array_of_indices[], MPI_Status array_of_statuses[]) GPURUN_API;
int PMPI_Request_free(MPI_Request *request) GPURUN_API;
/* END PMPI */

#if defined(__cplusplus)
}
#endif

#endif

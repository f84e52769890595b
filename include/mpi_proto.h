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

/* gpurun: prototypes of one-sided communication (MPI_Win_*, MPI_Put, MPI_Get, MPI_Accumulate
 * ...), for windows whose members share a host (api/win_*.cc). Each MPI_ function has its PMPI_
 * twin. Edit the MPI section only; scripts/update_proto.py writes the PMPI section from it. */
#ifndef GPURUN_MPI_PROTO_RMA_H_INCLUDED
#define GPURUN_MPI_PROTO_RMA_H_INCLUDED

#if defined(__cplusplus)
extern "C" {
#endif

/* BEGIN MPI */
int MPI_Accumulate(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank, MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Op op, MPI_Win win) GPURUN_API;
int MPI_Accumulate_c(const void *origin_addr, MPI_Count origin_count, MPI_Datatype origin_datatype, int target_rank, MPI_Aint target_disp, MPI_Count target_count, MPI_Datatype target_datatype, MPI_Op op, MPI_Win win) GPURUN_API;
int MPI_Compare_and_swap(const void *origin_addr, const void *compare_addr, void *result_addr, MPI_Datatype datatype, int target_rank, MPI_Aint target_disp, MPI_Win win) GPURUN_API;
int MPI_Fetch_and_op(const void *origin_addr, void *result_addr, MPI_Datatype datatype, int target_rank, MPI_Aint target_disp, MPI_Op op, MPI_Win win) GPURUN_API;
int MPI_Get(void *origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank, MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Win win) GPURUN_API;
int MPI_Get_accumulate(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype, void *result_addr, int result_count, MPI_Datatype result_datatype, int target_rank, MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Op op, MPI_Win win) GPURUN_API;
int MPI_Get_accumulate_c(const void *origin_addr, MPI_Count origin_count, MPI_Datatype origin_datatype, void *result_addr, MPI_Count result_count, MPI_Datatype result_datatype, int target_rank, MPI_Aint target_disp, MPI_Count target_count, MPI_Datatype target_datatype, MPI_Op op, MPI_Win win) GPURUN_API;
int MPI_Get_c(void *origin_addr, MPI_Count origin_count, MPI_Datatype origin_datatype, int target_rank, MPI_Aint target_disp, MPI_Count target_count, MPI_Datatype target_datatype, MPI_Win win) GPURUN_API;
int MPI_Put(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank, MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Win win) GPURUN_API;
int MPI_Put_c(const void *origin_addr, MPI_Count origin_count, MPI_Datatype origin_datatype, int target_rank, MPI_Aint target_disp, MPI_Count target_count, MPI_Datatype target_datatype, MPI_Win win) GPURUN_API;
int MPI_Raccumulate(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank, MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Op op, MPI_Win win, MPI_Request *request) GPURUN_API;
int MPI_Raccumulate_c(const void *origin_addr, MPI_Count origin_count, MPI_Datatype origin_datatype, int target_rank, MPI_Aint target_disp, MPI_Count target_count, MPI_Datatype target_datatype, MPI_Op op, MPI_Win win, MPI_Request *request) GPURUN_API;
int MPI_Rget(void *origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank, MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Win win, MPI_Request *request) GPURUN_API;
int MPI_Rget_accumulate(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype, void *result_addr, int result_count, MPI_Datatype result_datatype, int target_rank, MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Op op, MPI_Win win, MPI_Request *request) GPURUN_API;
int MPI_Rget_accumulate_c(const void *origin_addr, MPI_Count origin_count, MPI_Datatype origin_datatype, void *result_addr, MPI_Count result_count, MPI_Datatype result_datatype, int target_rank, MPI_Aint target_disp, MPI_Count target_count, MPI_Datatype target_datatype, MPI_Op op, MPI_Win win, MPI_Request *request) GPURUN_API;
int MPI_Rget_c(void *origin_addr, MPI_Count origin_count, MPI_Datatype origin_datatype, int target_rank, MPI_Aint target_disp, MPI_Count target_count, MPI_Datatype target_datatype, MPI_Win win, MPI_Request *request) GPURUN_API;
int MPI_Rput(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank, MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Win win, MPI_Request *request) GPURUN_API;
int MPI_Rput_c(const void *origin_addr, MPI_Count origin_count, MPI_Datatype origin_datatype, int target_rank, MPI_Aint target_disp, MPI_Count target_count, MPI_Datatype target_datatype, MPI_Win win, MPI_Request *request) GPURUN_API;
int MPI_Win_allocate(MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm, void *baseptr, MPI_Win *win) GPURUN_API;
int MPI_Win_allocate_c(MPI_Aint size, MPI_Aint disp_unit, MPI_Info info, MPI_Comm comm, void *baseptr, MPI_Win *win) GPURUN_API;
int MPI_Win_allocate_shared(MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm, void *baseptr, MPI_Win *win) GPURUN_API;
int MPI_Win_allocate_shared_c(MPI_Aint size, MPI_Aint disp_unit, MPI_Info info, MPI_Comm comm, void *baseptr, MPI_Win *win) GPURUN_API;
int MPI_Win_attach(MPI_Win win, void *base, MPI_Aint size) GPURUN_API;
int MPI_Win_call_errhandler(MPI_Win win, int errorcode) GPURUN_API;
int MPI_Win_complete(MPI_Win win) GPURUN_API;
int MPI_Win_create(void *base, MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm, MPI_Win *win) GPURUN_API;
int MPI_Win_create_c(void *base, MPI_Aint size, MPI_Aint disp_unit, MPI_Info info, MPI_Comm comm, MPI_Win *win) GPURUN_API;
int MPI_Win_create_dynamic(MPI_Info info, MPI_Comm comm, MPI_Win *win) GPURUN_API;
int MPI_Win_create_errhandler(MPI_Win_errhandler_function *win_errhandler_fn, MPI_Errhandler *errhandler) GPURUN_API;
int MPI_Win_detach(MPI_Win win, const void *base) GPURUN_API;
int MPI_Win_fence(int assert, MPI_Win win) GPURUN_API;
int MPI_Win_flush(int rank, MPI_Win win) GPURUN_API;
int MPI_Win_flush_all(MPI_Win win) GPURUN_API;
int MPI_Win_flush_local(int rank, MPI_Win win) GPURUN_API;
int MPI_Win_flush_local_all(MPI_Win win) GPURUN_API;
int MPI_Win_free(MPI_Win *win) GPURUN_API;
int MPI_Win_get_attr(MPI_Win win, int win_keyval, void *attribute_val, int *flag) GPURUN_API;
int MPI_Win_get_errhandler(MPI_Win win, MPI_Errhandler *errhandler) GPURUN_API;
int MPI_Win_get_group(MPI_Win win, MPI_Group *group) GPURUN_API;
int MPI_Win_get_info(MPI_Win win, MPI_Info *info_used) GPURUN_API;
int MPI_Win_get_name(MPI_Win win, char *win_name, int *resultlen) GPURUN_API;
int MPI_Win_lock(int lock_type, int rank, int assert, MPI_Win win) GPURUN_API;
int MPI_Win_lock_all(int assert, MPI_Win win) GPURUN_API;
int MPI_Win_post(MPI_Group group, int assert, MPI_Win win) GPURUN_API;
int MPI_Win_set_errhandler(MPI_Win win, MPI_Errhandler errhandler) GPURUN_API;
int MPI_Win_set_info(MPI_Win win, MPI_Info info) GPURUN_API;
int MPI_Win_set_name(MPI_Win win, const char *win_name) GPURUN_API;
int MPI_Win_shared_query(MPI_Win win, int rank, MPI_Aint *size, int *disp_unit, void *baseptr) GPURUN_API;
int MPI_Win_shared_query_c(MPI_Win win, int rank, MPI_Aint *size, MPI_Aint *disp_unit, void *baseptr) GPURUN_API;
int MPI_Win_start(MPI_Group group, int assert, MPI_Win win) GPURUN_API;
int MPI_Win_sync(MPI_Win win) GPURUN_API;
int MPI_Win_test(MPI_Win win, int *flag) GPURUN_API;
int MPI_Win_unlock(int rank, MPI_Win win) GPURUN_API;
int MPI_Win_unlock_all(MPI_Win win) GPURUN_API;
int MPI_Win_wait(MPI_Win win) GPURUN_API;
int MPI_Win_create_keyval(MPI_Win_copy_attr_function *win_copy_attr_fn, MPI_Win_delete_attr_function *win_delete_attr_fn, int *win_keyval, void *extra_state) GPURUN_API;
int MPI_Win_delete_attr(MPI_Win win, int win_keyval) GPURUN_API;
int MPI_Win_free_keyval(int *win_keyval) GPURUN_API;
int MPI_Win_set_attr(MPI_Win win, int win_keyval, void *attribute_val) GPURUN_API;
/* END MPI */

/* BEGIN PMPI (generated by scripts/update_proto.py) */
int PMPI_Accumulate(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank, MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Op op, MPI_Win win) GPURUN_API;
int PMPI_Accumulate_c(const void *origin_addr, MPI_Count origin_count, MPI_Datatype origin_datatype, int target_rank, MPI_Aint target_disp, MPI_Count target_count, MPI_Datatype target_datatype, MPI_Op op, MPI_Win win) GPURUN_API;
int PMPI_Compare_and_swap(const void *origin_addr, const void *compare_addr, void *result_addr, MPI_Datatype datatype, int target_rank, MPI_Aint target_disp, MPI_Win win) GPURUN_API;
int PMPI_Fetch_and_op(const void *origin_addr, void *result_addr, MPI_Datatype datatype, int target_rank, MPI_Aint target_disp, MPI_Op op, MPI_Win win) GPURUN_API;
int PMPI_Get(void *origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank, MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Win win) GPURUN_API;
int PMPI_Get_accumulate(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype, void *result_addr, int result_count, MPI_Datatype result_datatype, int target_rank, MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Op op, MPI_Win win) GPURUN_API;
int PMPI_Get_accumulate_c(const void *origin_addr, MPI_Count origin_count, MPI_Datatype origin_datatype, void *result_addr, MPI_Count result_count, MPI_Datatype result_datatype, int target_rank, MPI_Aint target_disp, MPI_Count target_count, MPI_Datatype target_datatype, MPI_Op op, MPI_Win win) GPURUN_API;
int PMPI_Get_c(void *origin_addr, MPI_Count origin_count, MPI_Datatype origin_datatype, int target_rank, MPI_Aint target_disp, MPI_Count target_count, MPI_Datatype target_datatype, MPI_Win win) GPURUN_API;
int PMPI_Put(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank, MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Win win) GPURUN_API;
int PMPI_Put_c(const void *origin_addr, MPI_Count origin_count, MPI_Datatype origin_datatype, int target_rank, MPI_Aint target_disp, MPI_Count target_count, MPI_Datatype target_datatype, MPI_Win win) GPURUN_API;
int PMPI_Raccumulate(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank, MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Op op, MPI_Win win, MPI_Request *request) GPURUN_API;
int PMPI_Raccumulate_c(const void *origin_addr, MPI_Count origin_count, MPI_Datatype origin_datatype, int target_rank, MPI_Aint target_disp, MPI_Count target_count, MPI_Datatype target_datatype, MPI_Op op, MPI_Win win, MPI_Request *request) GPURUN_API;
int PMPI_Rget(void *origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank, MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Win win, MPI_Request *request) GPURUN_API;
int PMPI_Rget_accumulate(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype, void *result_addr, int result_count, MPI_Datatype result_datatype, int target_rank, MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Op op, MPI_Win win, MPI_Request *request) GPURUN_API;
int PMPI_Rget_accumulate_c(const void *origin_addr, MPI_Count origin_count, MPI_Datatype origin_datatype, void *result_addr, MPI_Count result_count, MPI_Datatype result_datatype, int target_rank, MPI_Aint target_disp, MPI_Count target_count, MPI_Datatype target_datatype, MPI_Op op, MPI_Win win, MPI_Request *request) GPURUN_API;
int PMPI_Rget_c(void *origin_addr, MPI_Count origin_count, MPI_Datatype origin_datatype, int target_rank, MPI_Aint target_disp, MPI_Count target_count, MPI_Datatype target_datatype, MPI_Win win, MPI_Request *request) GPURUN_API;
int PMPI_Rput(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank, MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Win win, MPI_Request *request) GPURUN_API;
int PMPI_Rput_c(const void *origin_addr, MPI_Count origin_count, MPI_Datatype origin_datatype, int target_rank, MPI_Aint target_disp, MPI_Count target_count, MPI_Datatype target_datatype, MPI_Win win, MPI_Request *request) GPURUN_API;
int PMPI_Win_allocate(MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm, void *baseptr, MPI_Win *win) GPURUN_API;
int PMPI_Win_allocate_c(MPI_Aint size, MPI_Aint disp_unit, MPI_Info info, MPI_Comm comm, void *baseptr, MPI_Win *win) GPURUN_API;
int PMPI_Win_allocate_shared(MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm, void *baseptr, MPI_Win *win) GPURUN_API;
int PMPI_Win_allocate_shared_c(MPI_Aint size, MPI_Aint disp_unit, MPI_Info info, MPI_Comm comm, void *baseptr, MPI_Win *win) GPURUN_API;
int PMPI_Win_attach(MPI_Win win, void *base, MPI_Aint size) GPURUN_API;
int PMPI_Win_call_errhandler(MPI_Win win, int errorcode) GPURUN_API;
int PMPI_Win_complete(MPI_Win win) GPURUN_API;
int PMPI_Win_create(void *base, MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm, MPI_Win *win) GPURUN_API;
int PMPI_Win_create_c(void *base, MPI_Aint size, MPI_Aint disp_unit, MPI_Info info, MPI_Comm comm, MPI_Win *win) GPURUN_API;
int PMPI_Win_create_dynamic(MPI_Info info, MPI_Comm comm, MPI_Win *win) GPURUN_API;
int PMPI_Win_create_errhandler(MPI_Win_errhandler_function *win_errhandler_fn, MPI_Errhandler *errhandler) GPURUN_API;
int PMPI_Win_detach(MPI_Win win, const void *base) GPURUN_API;
int PMPI_Win_fence(int assert, MPI_Win win) GPURUN_API;
int PMPI_Win_flush(int rank, MPI_Win win) GPURUN_API;
int PMPI_Win_flush_all(MPI_Win win) GPURUN_API;
int PMPI_Win_flush_local(int rank, MPI_Win win) GPURUN_API;
int PMPI_Win_flush_local_all(MPI_Win win) GPURUN_API;
int PMPI_Win_free(MPI_Win *win) GPURUN_API;
int PMPI_Win_get_attr(MPI_Win win, int win_keyval, void *attribute_val, int *flag) GPURUN_API;
int PMPI_Win_get_errhandler(MPI_Win win, MPI_Errhandler *errhandler) GPURUN_API;
int PMPI_Win_get_group(MPI_Win win, MPI_Group *group) GPURUN_API;
int PMPI_Win_get_info(MPI_Win win, MPI_Info *info_used) GPURUN_API;
int PMPI_Win_get_name(MPI_Win win, char *win_name, int *resultlen) GPURUN_API;
int PMPI_Win_lock(int lock_type, int rank, int assert, MPI_Win win) GPURUN_API;
int PMPI_Win_lock_all(int assert, MPI_Win win) GPURUN_API;
int PMPI_Win_post(MPI_Group group, int assert, MPI_Win win) GPURUN_API;
int PMPI_Win_set_errhandler(MPI_Win win, MPI_Errhandler errhandler) GPURUN_API;
int PMPI_Win_set_info(MPI_Win win, MPI_Info info) GPURUN_API;
int PMPI_Win_set_name(MPI_Win win, const char *win_name) GPURUN_API;
int PMPI_Win_shared_query(MPI_Win win, int rank, MPI_Aint *size, int *disp_unit, void *baseptr) GPURUN_API;
int PMPI_Win_shared_query_c(MPI_Win win, int rank, MPI_Aint *size, MPI_Aint *disp_unit, void *baseptr) GPURUN_API;
int PMPI_Win_start(MPI_Group group, int assert, MPI_Win win) GPURUN_API;
int PMPI_Win_sync(MPI_Win win) GPURUN_API;
int PMPI_Win_test(MPI_Win win, int *flag) GPURUN_API;
int PMPI_Win_unlock(int rank, MPI_Win win) GPURUN_API;
int PMPI_Win_unlock_all(MPI_Win win) GPURUN_API;
int PMPI_Win_wait(MPI_Win win) GPURUN_API;
int PMPI_Win_create_keyval(MPI_Win_copy_attr_function *win_copy_attr_fn, MPI_Win_delete_attr_function *win_delete_attr_fn, int *win_keyval, void *extra_state) GPURUN_API;
int PMPI_Win_delete_attr(MPI_Win win, int win_keyval) GPURUN_API;
int PMPI_Win_free_keyval(int *win_keyval) GPURUN_API;
int PMPI_Win_set_attr(MPI_Win win, int win_keyval, void *attribute_val) GPURUN_API;
/* END PMPI */

#if defined(__cplusplus)
}
#endif

#endif /* GPURUN_MPI_PROTO_RMA_H_INCLUDED */

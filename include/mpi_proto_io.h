/* gpurun: prototypes of MPI-IO (MPI_File_*), implemented on the local file system (api/file_*.cc).
 * Each MPI_ function has its PMPI_ twin. Edit the MPI section only; scripts/update_proto.py writes
 * the PMPI section from it. */
#ifndef GPURUN_MPI_PROTO_IO_H_INCLUDED
#define GPURUN_MPI_PROTO_IO_H_INCLUDED

#if defined(__cplusplus)
extern "C" {
#endif

/* BEGIN MPI */
MPI_Fint MPI_File_c2f(MPI_File file) GPURUN_API;
int MPI_File_call_errhandler(MPI_File fh, int errorcode) GPURUN_API;
int MPI_File_close(MPI_File *fh) GPURUN_API;
int MPI_File_create_errhandler(MPI_File_errhandler_function *file_errhandler_fn, MPI_Errhandler *errhandler) GPURUN_API;
int MPI_File_delete(const char *filename, MPI_Info info) GPURUN_API;
MPI_File MPI_File_f2c(MPI_Fint file) GPURUN_API;
int MPI_File_get_amode(MPI_File fh, int *amode) GPURUN_API;
int MPI_File_get_atomicity(MPI_File fh, int *flag) GPURUN_API;
int MPI_File_get_byte_offset(MPI_File fh, MPI_Offset offset, MPI_Offset *disp) GPURUN_API;
int MPI_File_get_errhandler(MPI_File file, MPI_Errhandler *errhandler) GPURUN_API;
int MPI_File_get_group(MPI_File fh, MPI_Group *group) GPURUN_API;
int MPI_File_get_info(MPI_File fh, MPI_Info *info_used) GPURUN_API;
int MPI_File_get_position(MPI_File fh, MPI_Offset *offset) GPURUN_API;
int MPI_File_get_position_shared(MPI_File fh, MPI_Offset *offset) GPURUN_API;
int MPI_File_get_size(MPI_File fh, MPI_Offset *size) GPURUN_API;
int MPI_File_get_type_extent(MPI_File fh, MPI_Datatype datatype, MPI_Aint *extent) GPURUN_API;
int MPI_File_get_type_extent_c(MPI_File fh, MPI_Datatype datatype, MPI_Count *extent) GPURUN_API;
int MPI_File_get_view(MPI_File fh, MPI_Offset *disp, MPI_Datatype *etype, MPI_Datatype *filetype, char *datarep) GPURUN_API;
int MPI_File_iread(MPI_File fh, void *buf, int count, MPI_Datatype datatype, MPI_Request *request) GPURUN_API;
int MPI_File_iread_all(MPI_File fh, void *buf, int count, MPI_Datatype datatype, MPI_Request *request) GPURUN_API;
int MPI_File_iread_all_c(MPI_File fh, void *buf, MPI_Count count, MPI_Datatype datatype, MPI_Request *request) GPURUN_API;
int MPI_File_iread_at(MPI_File fh, MPI_Offset offset, void *buf, int count, MPI_Datatype datatype, MPI_Request *request) GPURUN_API;
int MPI_File_iread_at_all(MPI_File fh, MPI_Offset offset, void *buf, int count, MPI_Datatype datatype, MPI_Request *request) GPURUN_API;
int MPI_File_iread_at_all_c(MPI_File fh, MPI_Offset offset, void *buf, MPI_Count count, MPI_Datatype datatype, MPI_Request *request) GPURUN_API;
int MPI_File_iread_at_c(MPI_File fh, MPI_Offset offset, void *buf, MPI_Count count, MPI_Datatype datatype, MPI_Request *request) GPURUN_API;
int MPI_File_iread_c(MPI_File fh, void *buf, MPI_Count count, MPI_Datatype datatype, MPI_Request *request) GPURUN_API;
int MPI_File_iread_shared(MPI_File fh, void *buf, int count, MPI_Datatype datatype, MPI_Request *request) GPURUN_API;
int MPI_File_iread_shared_c(MPI_File fh, void *buf, MPI_Count count, MPI_Datatype datatype, MPI_Request *request) GPURUN_API;
int MPI_File_iwrite(MPI_File fh, const void *buf, int count, MPI_Datatype datatype, MPI_Request *request) GPURUN_API;
int MPI_File_iwrite_all(MPI_File fh, const void *buf, int count, MPI_Datatype datatype, MPI_Request *request) GPURUN_API;
int MPI_File_iwrite_all_c(MPI_File fh, const void *buf, MPI_Count count, MPI_Datatype datatype, MPI_Request *request) GPURUN_API;
int MPI_File_iwrite_at(MPI_File fh, MPI_Offset offset, const void *buf, int count, MPI_Datatype datatype, MPI_Request *request) GPURUN_API;
int MPI_File_iwrite_at_all(MPI_File fh, MPI_Offset offset, const void *buf, int count, MPI_Datatype datatype, MPI_Request *request) GPURUN_API;
int MPI_File_iwrite_at_all_c(MPI_File fh, MPI_Offset offset, const void *buf, MPI_Count count, MPI_Datatype datatype, MPI_Request *request) GPURUN_API;
int MPI_File_iwrite_at_c(MPI_File fh, MPI_Offset offset, const void *buf, MPI_Count count, MPI_Datatype datatype, MPI_Request *request) GPURUN_API;
int MPI_File_iwrite_c(MPI_File fh, const void *buf, MPI_Count count, MPI_Datatype datatype, MPI_Request *request) GPURUN_API;
int MPI_File_iwrite_shared(MPI_File fh, const void *buf, int count, MPI_Datatype datatype, MPI_Request *request) GPURUN_API;
int MPI_File_iwrite_shared_c(MPI_File fh, const void *buf, MPI_Count count, MPI_Datatype datatype, MPI_Request *request) GPURUN_API;
int MPI_File_open(MPI_Comm comm, const char *filename, int amode, MPI_Info info, MPI_File *fh) GPURUN_API;
int MPI_File_preallocate(MPI_File fh, MPI_Offset size) GPURUN_API;
int MPI_File_read(MPI_File fh, void *buf, int count, MPI_Datatype datatype, MPI_Status *status) GPURUN_API;
int MPI_File_read_all(MPI_File fh, void *buf, int count, MPI_Datatype datatype, MPI_Status *status) GPURUN_API;
int MPI_File_read_all_begin(MPI_File fh, void *buf, int count, MPI_Datatype datatype) GPURUN_API;
int MPI_File_read_all_begin_c(MPI_File fh, void *buf, MPI_Count count, MPI_Datatype datatype) GPURUN_API;
int MPI_File_read_all_c(MPI_File fh, void *buf, MPI_Count count, MPI_Datatype datatype, MPI_Status *status) GPURUN_API;
int MPI_File_read_all_end(MPI_File fh, void *buf, MPI_Status *status) GPURUN_API;
int MPI_File_read_at(MPI_File fh, MPI_Offset offset, void *buf, int count, MPI_Datatype datatype, MPI_Status *status) GPURUN_API;
int MPI_File_read_at_all(MPI_File fh, MPI_Offset offset, void * buf, int count, MPI_Datatype datatype, MPI_Status *status) GPURUN_API;
int MPI_File_read_at_all_begin(MPI_File fh, MPI_Offset offset, void *buf, int count, MPI_Datatype datatype) GPURUN_API;
int MPI_File_read_at_all_begin_c(MPI_File fh, MPI_Offset offset, void *buf, MPI_Count count, MPI_Datatype datatype) GPURUN_API;
int MPI_File_read_at_all_c(MPI_File fh, MPI_Offset offset, void * buf, MPI_Count count, MPI_Datatype datatype, MPI_Status *status) GPURUN_API;
int MPI_File_read_at_all_end(MPI_File fh, void *buf, MPI_Status *status) GPURUN_API;
int MPI_File_read_at_c(MPI_File fh, MPI_Offset offset, void *buf, MPI_Count count, MPI_Datatype datatype, MPI_Status *status) GPURUN_API;
int MPI_File_read_c(MPI_File fh, void *buf, MPI_Count count, MPI_Datatype datatype, MPI_Status *status) GPURUN_API;
int MPI_File_read_ordered(MPI_File fh, void *buf, int count, MPI_Datatype datatype, MPI_Status *status) GPURUN_API;
int MPI_File_read_ordered_begin(MPI_File fh, void *buf, int count, MPI_Datatype datatype) GPURUN_API;
int MPI_File_read_ordered_begin_c(MPI_File fh, void *buf, MPI_Count count, MPI_Datatype datatype) GPURUN_API;
int MPI_File_read_ordered_c(MPI_File fh, void *buf, MPI_Count count, MPI_Datatype datatype, MPI_Status *status) GPURUN_API;
int MPI_File_read_ordered_end(MPI_File fh, void *buf, MPI_Status *status) GPURUN_API;
int MPI_File_read_shared(MPI_File fh, void *buf, int count, MPI_Datatype datatype, MPI_Status *status) GPURUN_API;
int MPI_File_read_shared_c(MPI_File fh, void *buf, MPI_Count count, MPI_Datatype datatype, MPI_Status *status) GPURUN_API;
int MPI_File_seek(MPI_File fh, MPI_Offset offset, int whence) GPURUN_API;
int MPI_File_seek_shared(MPI_File fh, MPI_Offset offset, int whence) GPURUN_API;
int MPI_File_set_atomicity(MPI_File fh, int flag) GPURUN_API;
int MPI_File_set_errhandler(MPI_File file, MPI_Errhandler errhandler) GPURUN_API;
int MPI_File_set_info(MPI_File fh, MPI_Info info) GPURUN_API;
int MPI_File_set_size(MPI_File fh, MPI_Offset size) GPURUN_API;
int MPI_File_set_view(MPI_File fh, MPI_Offset disp, MPI_Datatype etype, MPI_Datatype filetype, const char *datarep, MPI_Info info) GPURUN_API;
int MPI_File_sync(MPI_File fh) GPURUN_API;
int MPI_File_write(MPI_File fh, const void *buf, int count, MPI_Datatype datatype, MPI_Status *status) GPURUN_API;
int MPI_File_write_all(MPI_File fh, const void *buf, int count, MPI_Datatype datatype, MPI_Status *status) GPURUN_API;
int MPI_File_write_all_begin(MPI_File fh, const void *buf, int count, MPI_Datatype datatype) GPURUN_API;
int MPI_File_write_all_begin_c(MPI_File fh, const void *buf, MPI_Count count, MPI_Datatype datatype) GPURUN_API;
int MPI_File_write_all_c(MPI_File fh, const void *buf, MPI_Count count, MPI_Datatype datatype, MPI_Status *status) GPURUN_API;
int MPI_File_write_all_end(MPI_File fh, const void *buf, MPI_Status *status) GPURUN_API;
int MPI_File_write_at(MPI_File fh, MPI_Offset offset, const void * buf, int count, MPI_Datatype datatype, MPI_Status *status) GPURUN_API;
int MPI_File_write_at_all(MPI_File fh, MPI_Offset offset, const void *buf, int count, MPI_Datatype datatype, MPI_Status *status) GPURUN_API;
int MPI_File_write_at_all_begin(MPI_File fh, MPI_Offset offset, const void *buf, int count, MPI_Datatype datatype) GPURUN_API;
int MPI_File_write_at_all_begin_c(MPI_File fh, MPI_Offset offset, const void *buf, MPI_Count count, MPI_Datatype datatype) GPURUN_API;
int MPI_File_write_at_all_c(MPI_File fh, MPI_Offset offset, const void *buf, MPI_Count count, MPI_Datatype datatype, MPI_Status *status) GPURUN_API;
int MPI_File_write_at_all_end(MPI_File fh, const void *buf, MPI_Status *status) GPURUN_API;
int MPI_File_write_at_c(MPI_File fh, MPI_Offset offset, const void * buf, MPI_Count count, MPI_Datatype datatype, MPI_Status *status) GPURUN_API;
int MPI_File_write_c(MPI_File fh, const void *buf, MPI_Count count, MPI_Datatype datatype, MPI_Status *status) GPURUN_API;
int MPI_File_write_ordered(MPI_File fh, const void *buf, int count, MPI_Datatype datatype, MPI_Status *status) GPURUN_API;
int MPI_File_write_ordered_begin(MPI_File fh, const void *buf, int count, MPI_Datatype datatype) GPURUN_API;
int MPI_File_write_ordered_begin_c(MPI_File fh, const void *buf, MPI_Count count, MPI_Datatype datatype) GPURUN_API;
int MPI_File_write_ordered_c(MPI_File fh, const void *buf, MPI_Count count, MPI_Datatype datatype, MPI_Status *status) GPURUN_API;
int MPI_File_write_ordered_end(MPI_File fh, const void *buf, MPI_Status *status) GPURUN_API;
int MPI_File_write_shared(MPI_File fh, const void *buf, int count, MPI_Datatype datatype, MPI_Status *status) GPURUN_API;
int MPI_File_write_shared_c(MPI_File fh, const void *buf, MPI_Count count, MPI_Datatype datatype, MPI_Status *status) GPURUN_API;
int MPI_Register_datarep(const char *datarep, MPI_Datarep_conversion_function *read_conversion_fn, MPI_Datarep_conversion_function *write_conversion_fn, MPI_Datarep_extent_function *dtype_file_extent_fn, void *extra_state) GPURUN_API;
int MPI_Register_datarep_c(const char *datarep, MPI_Datarep_conversion_function_c *read_conversion_fn, MPI_Datarep_conversion_function_c *write_conversion_fn, MPI_Datarep_extent_function *dtype_file_extent_fn, void *extra_state) GPURUN_API;
/* END MPI */

/* BEGIN PMPI (generated by scripts/update_proto.py) */
MPI_Fint PMPI_File_c2f(MPI_File file) GPURUN_API;
int PMPI_File_call_errhandler(MPI_File fh, int errorcode) GPURUN_API;
int PMPI_File_close(MPI_File *fh) GPURUN_API;
int PMPI_File_create_errhandler(MPI_File_errhandler_function *file_errhandler_fn, MPI_Errhandler *errhandler) GPURUN_API;
int PMPI_File_delete(const char *filename, MPI_Info info) GPURUN_API;
MPI_File PMPI_File_f2c(MPI_Fint file) GPURUN_API;
int PMPI_File_get_amode(MPI_File fh, int *amode) GPURUN_API;
int PMPI_File_get_atomicity(MPI_File fh, int *flag) GPURUN_API;
int PMPI_File_get_byte_offset(MPI_File fh, MPI_Offset offset, MPI_Offset *disp) GPURUN_API;
int PMPI_File_get_errhandler(MPI_File file, MPI_Errhandler *errhandler) GPURUN_API;
int PMPI_File_get_group(MPI_File fh, MPI_Group *group) GPURUN_API;
int PMPI_File_get_info(MPI_File fh, MPI_Info *info_used) GPURUN_API;
int PMPI_File_get_position(MPI_File fh, MPI_Offset *offset) GPURUN_API;
int PMPI_File_get_position_shared(MPI_File fh, MPI_Offset *offset) GPURUN_API;
int PMPI_File_get_size(MPI_File fh, MPI_Offset *size) GPURUN_API;
int PMPI_File_get_type_extent(MPI_File fh, MPI_Datatype datatype, MPI_Aint *extent) GPURUN_API;
int PMPI_File_get_type_extent_c(MPI_File fh, MPI_Datatype datatype, MPI_Count *extent) GPURUN_API;
int PMPI_File_get_view(MPI_File fh, MPI_Offset *disp, MPI_Datatype *etype, MPI_Datatype *filetype, char *datarep) GPURUN_API;
int PMPI_File_iread(MPI_File fh, void *buf, int count, MPI_Datatype datatype, MPI_Request *request) GPURUN_API;
int PMPI_File_iread_all(MPI_File fh, void *buf, int count, MPI_Datatype datatype, MPI_Request *request) GPURUN_API;
int PMPI_File_iread_all_c(MPI_File fh, void *buf, MPI_Count count, MPI_Datatype datatype, MPI_Request *request) GPURUN_API;
int PMPI_File_iread_at(MPI_File fh, MPI_Offset offset, void *buf, int count, MPI_Datatype datatype, MPI_Request *request) GPURUN_API;
int PMPI_File_iread_at_all(MPI_File fh, MPI_Offset offset, void *buf, int count, MPI_Datatype datatype, MPI_Request *request) GPURUN_API;
int PMPI_File_iread_at_all_c(MPI_File fh, MPI_Offset offset, void *buf, MPI_Count count, MPI_Datatype datatype, MPI_Request *request) GPURUN_API;
int PMPI_File_iread_at_c(MPI_File fh, MPI_Offset offset, void *buf, MPI_Count count, MPI_Datatype datatype, MPI_Request *request) GPURUN_API;
int PMPI_File_iread_c(MPI_File fh, void *buf, MPI_Count count, MPI_Datatype datatype, MPI_Request *request) GPURUN_API;
int PMPI_File_iread_shared(MPI_File fh, void *buf, int count, MPI_Datatype datatype, MPI_Request *request) GPURUN_API;
int PMPI_File_iread_shared_c(MPI_File fh, void *buf, MPI_Count count, MPI_Datatype datatype, MPI_Request *request) GPURUN_API;
int PMPI_File_iwrite(MPI_File fh, const void *buf, int count, MPI_Datatype datatype, MPI_Request *request) GPURUN_API;
int PMPI_File_iwrite_all(MPI_File fh, const void *buf, int count, MPI_Datatype datatype, MPI_Request *request) GPURUN_API;
int PMPI_File_iwrite_all_c(MPI_File fh, const void *buf, MPI_Count count, MPI_Datatype datatype, MPI_Request *request) GPURUN_API;
int PMPI_File_iwrite_at(MPI_File fh, MPI_Offset offset, const void *buf, int count, MPI_Datatype datatype, MPI_Request *request) GPURUN_API;
int PMPI_File_iwrite_at_all(MPI_File fh, MPI_Offset offset, const void *buf, int count, MPI_Datatype datatype, MPI_Request *request) GPURUN_API;
int PMPI_File_iwrite_at_all_c(MPI_File fh, MPI_Offset offset, const void *buf, MPI_Count count, MPI_Datatype datatype, MPI_Request *request) GPURUN_API;
int PMPI_File_iwrite_at_c(MPI_File fh, MPI_Offset offset, const void *buf, MPI_Count count, MPI_Datatype datatype, MPI_Request *request) GPURUN_API;
int PMPI_File_iwrite_c(MPI_File fh, const void *buf, MPI_Count count, MPI_Datatype datatype, MPI_Request *request) GPURUN_API;
int PMPI_File_iwrite_shared(MPI_File fh, const void *buf, int count, MPI_Datatype datatype, MPI_Request *request) GPURUN_API;
int PMPI_File_iwrite_shared_c(MPI_File fh, const void *buf, MPI_Count count, MPI_Datatype datatype, MPI_Request *request) GPURUN_API;
int PMPI_File_open(MPI_Comm comm, const char *filename, int amode, MPI_Info info, MPI_File *fh) GPURUN_API;
int PMPI_File_preallocate(MPI_File fh, MPI_Offset size) GPURUN_API;
int PMPI_File_read(MPI_File fh, void *buf, int count, MPI_Datatype datatype, MPI_Status *status) GPURUN_API;
int PMPI_File_read_all(MPI_File fh, void *buf, int count, MPI_Datatype datatype, MPI_Status *status) GPURUN_API;
int PMPI_File_read_all_begin(MPI_File fh, void *buf, int count, MPI_Datatype datatype) GPURUN_API;
int PMPI_File_read_all_begin_c(MPI_File fh, void *buf, MPI_Count count, MPI_Datatype datatype) GPURUN_API;
int PMPI_File_read_all_c(MPI_File fh, void *buf, MPI_Count count, MPI_Datatype datatype, MPI_Status *status) GPURUN_API;
int PMPI_File_read_all_end(MPI_File fh, void *buf, MPI_Status *status) GPURUN_API;
int PMPI_File_read_at(MPI_File fh, MPI_Offset offset, void *buf, int count, MPI_Datatype datatype, MPI_Status *status) GPURUN_API;
int PMPI_File_read_at_all(MPI_File fh, MPI_Offset offset, void * buf, int count, MPI_Datatype datatype, MPI_Status *status) GPURUN_API;
int PMPI_File_read_at_all_begin(MPI_File fh, MPI_Offset offset, void *buf, int count, MPI_Datatype datatype) GPURUN_API;
int PMPI_File_read_at_all_begin_c(MPI_File fh, MPI_Offset offset, void *buf, MPI_Count count, MPI_Datatype datatype) GPURUN_API;
int PMPI_File_read_at_all_c(MPI_File fh, MPI_Offset offset, void * buf, MPI_Count count, MPI_Datatype datatype, MPI_Status *status) GPURUN_API;
int PMPI_File_read_at_all_end(MPI_File fh, void *buf, MPI_Status *status) GPURUN_API;
int PMPI_File_read_at_c(MPI_File fh, MPI_Offset offset, void *buf, MPI_Count count, MPI_Datatype datatype, MPI_Status *status) GPURUN_API;
int PMPI_File_read_c(MPI_File fh, void *buf, MPI_Count count, MPI_Datatype datatype, MPI_Status *status) GPURUN_API;
int PMPI_File_read_ordered(MPI_File fh, void *buf, int count, MPI_Datatype datatype, MPI_Status *status) GPURUN_API;
int PMPI_File_read_ordered_begin(MPI_File fh, void *buf, int count, MPI_Datatype datatype) GPURUN_API;
int PMPI_File_read_ordered_begin_c(MPI_File fh, void *buf, MPI_Count count, MPI_Datatype datatype) GPURUN_API;
int PMPI_File_read_ordered_c(MPI_File fh, void *buf, MPI_Count count, MPI_Datatype datatype, MPI_Status *status) GPURUN_API;
int PMPI_File_read_ordered_end(MPI_File fh, void *buf, MPI_Status *status) GPURUN_API;
int PMPI_File_read_shared(MPI_File fh, void *buf, int count, MPI_Datatype datatype, MPI_Status *status) GPURUN_API;
int PMPI_File_read_shared_c(MPI_File fh, void *buf, MPI_Count count, MPI_Datatype datatype, MPI_Status *status) GPURUN_API;
int PMPI_File_seek(MPI_File fh, MPI_Offset offset, int whence) GPURUN_API;
int PMPI_File_seek_shared(MPI_File fh, MPI_Offset offset, int whence) GPURUN_API;
int PMPI_File_set_atomicity(MPI_File fh, int flag) GPURUN_API;
int PMPI_File_set_errhandler(MPI_File file, MPI_Errhandler errhandler) GPURUN_API;
int PMPI_File_set_info(MPI_File fh, MPI_Info info) GPURUN_API;
int PMPI_File_set_size(MPI_File fh, MPI_Offset size) GPURUN_API;
int PMPI_File_set_view(MPI_File fh, MPI_Offset disp, MPI_Datatype etype, MPI_Datatype filetype, const char *datarep, MPI_Info info) GPURUN_API;
int PMPI_File_sync(MPI_File fh) GPURUN_API;
int PMPI_File_write(MPI_File fh, const void *buf, int count, MPI_Datatype datatype, MPI_Status *status) GPURUN_API;
int PMPI_File_write_all(MPI_File fh, const void *buf, int count, MPI_Datatype datatype, MPI_Status *status) GPURUN_API;
int PMPI_File_write_all_begin(MPI_File fh, const void *buf, int count, MPI_Datatype datatype) GPURUN_API;
int PMPI_File_write_all_begin_c(MPI_File fh, const void *buf, MPI_Count count, MPI_Datatype datatype) GPURUN_API;
int PMPI_File_write_all_c(MPI_File fh, const void *buf, MPI_Count count, MPI_Datatype datatype, MPI_Status *status) GPURUN_API;
int PMPI_File_write_all_end(MPI_File fh, const void *buf, MPI_Status *status) GPURUN_API;
int PMPI_File_write_at(MPI_File fh, MPI_Offset offset, const void * buf, int count, MPI_Datatype datatype, MPI_Status *status) GPURUN_API;
int PMPI_File_write_at_all(MPI_File fh, MPI_Offset offset, const void *buf, int count, MPI_Datatype datatype, MPI_Status *status) GPURUN_API;
int PMPI_File_write_at_all_begin(MPI_File fh, MPI_Offset offset, const void *buf, int count, MPI_Datatype datatype) GPURUN_API;
int PMPI_File_write_at_all_begin_c(MPI_File fh, MPI_Offset offset, const void *buf, MPI_Count count, MPI_Datatype datatype) GPURUN_API;
int PMPI_File_write_at_all_c(MPI_File fh, MPI_Offset offset, const void *buf, MPI_Count count, MPI_Datatype datatype, MPI_Status *status) GPURUN_API;
int PMPI_File_write_at_all_end(MPI_File fh, const void *buf, MPI_Status *status) GPURUN_API;
int PMPI_File_write_at_c(MPI_File fh, MPI_Offset offset, const void * buf, MPI_Count count, MPI_Datatype datatype, MPI_Status *status) GPURUN_API;
int PMPI_File_write_c(MPI_File fh, const void *buf, MPI_Count count, MPI_Datatype datatype, MPI_Status *status) GPURUN_API;
int PMPI_File_write_ordered(MPI_File fh, const void *buf, int count, MPI_Datatype datatype, MPI_Status *status) GPURUN_API;
int PMPI_File_write_ordered_begin(MPI_File fh, const void *buf, int count, MPI_Datatype datatype) GPURUN_API;
int PMPI_File_write_ordered_begin_c(MPI_File fh, const void *buf, MPI_Count count, MPI_Datatype datatype) GPURUN_API;
int PMPI_File_write_ordered_c(MPI_File fh, const void *buf, MPI_Count count, MPI_Datatype datatype, MPI_Status *status) GPURUN_API;
int PMPI_File_write_ordered_end(MPI_File fh, const void *buf, MPI_Status *status) GPURUN_API;
int PMPI_File_write_shared(MPI_File fh, const void *buf, int count, MPI_Datatype datatype, MPI_Status *status) GPURUN_API;
int PMPI_File_write_shared_c(MPI_File fh, const void *buf, MPI_Count count, MPI_Datatype datatype, MPI_Status *status) GPURUN_API;
int PMPI_Register_datarep(const char *datarep, MPI_Datarep_conversion_function *read_conversion_fn, MPI_Datarep_conversion_function *write_conversion_fn, MPI_Datarep_extent_function *dtype_file_extent_fn, void *extra_state) GPURUN_API;
int PMPI_Register_datarep_c(const char *datarep, MPI_Datarep_conversion_function_c *read_conversion_fn, MPI_Datarep_conversion_function_c *write_conversion_fn, MPI_Datarep_extent_function *dtype_file_extent_fn, void *extra_state) GPURUN_API;
/* END PMPI */

#if defined(__cplusplus)
}
#endif

#endif /* GPURUN_MPI_PROTO_IO_H_INCLUDED */

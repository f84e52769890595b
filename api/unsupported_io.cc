// The calls of MPI-IO, which gpurun does not implement (api/unsupported.h): each returns
// MPI_ERR_UNSUPPORTED_OPERATION, as the files' default handler (MPI_ERRORS_RETURN) wants, and
// the first call of each name writes a warning. No file is ever opened, so MPI_FILE_NULL is the
// only file handle: MPI_File_c2f and MPI_File_f2c map it to and from 0.
#include "api/unsupported.h"

using gpurun::api::Feature;

extern "C" MPI_Fint PMPI_File_c2f(MPI_File) { return 0; }

extern "C" MPI_File PMPI_File_f2c(MPI_Fint) { return MPI_FILE_NULL; }

GPURUN_MPI_ALIAS(MPI_File_c2f)
GPURUN_MPI_ALIAS(MPI_File_f2c)

GPURUN_UNSUPPORTED(MPI_File_call_errhandler, Feature::kFileIo, MPI_COMM_NULL, MPI_File, int)
GPURUN_UNSUPPORTED(MPI_File_close, Feature::kFileIo, MPI_COMM_NULL, MPI_File*)
GPURUN_UNSUPPORTED(MPI_File_create_errhandler, Feature::kFileIo, MPI_COMM_NULL,
                   MPI_File_errhandler_function*, MPI_Errhandler*)
GPURUN_UNSUPPORTED(MPI_File_delete, Feature::kFileIo, MPI_COMM_NULL, const char*, MPI_Info)
GPURUN_UNSUPPORTED(MPI_File_get_amode, Feature::kFileIo, MPI_COMM_NULL, MPI_File, int*)
GPURUN_UNSUPPORTED(MPI_File_get_atomicity, Feature::kFileIo, MPI_COMM_NULL, MPI_File, int*)
GPURUN_UNSUPPORTED(MPI_File_get_byte_offset, Feature::kFileIo, MPI_COMM_NULL, MPI_File, MPI_Offset,
                   MPI_Offset*)
GPURUN_UNSUPPORTED(MPI_File_get_errhandler, Feature::kFileIo, MPI_COMM_NULL, MPI_File,
                   MPI_Errhandler*)
GPURUN_UNSUPPORTED(MPI_File_get_group, Feature::kFileIo, MPI_COMM_NULL, MPI_File, MPI_Group*)
GPURUN_UNSUPPORTED(MPI_File_get_info, Feature::kFileIo, MPI_COMM_NULL, MPI_File, MPI_Info*)
GPURUN_UNSUPPORTED(MPI_File_get_position, Feature::kFileIo, MPI_COMM_NULL, MPI_File, MPI_Offset*)
GPURUN_UNSUPPORTED(MPI_File_get_position_shared, Feature::kFileIo, MPI_COMM_NULL, MPI_File,
                   MPI_Offset*)
GPURUN_UNSUPPORTED(MPI_File_get_size, Feature::kFileIo, MPI_COMM_NULL, MPI_File, MPI_Offset*)
GPURUN_UNSUPPORTED(MPI_File_get_type_extent, Feature::kFileIo, MPI_COMM_NULL, MPI_File,
                   MPI_Datatype, MPI_Aint*)
GPURUN_UNSUPPORTED(MPI_File_get_type_extent_c, Feature::kFileIo, MPI_COMM_NULL, MPI_File,
                   MPI_Datatype, MPI_Count*)
GPURUN_UNSUPPORTED(MPI_File_get_view, Feature::kFileIo, MPI_COMM_NULL, MPI_File, MPI_Offset*,
                   MPI_Datatype*, MPI_Datatype*, char*)
GPURUN_UNSUPPORTED(MPI_File_iread, Feature::kFileIo, MPI_COMM_NULL, MPI_File, void*, int,
                   MPI_Datatype, MPI_Request*)
GPURUN_UNSUPPORTED(MPI_File_iread_all, Feature::kFileIo, MPI_COMM_NULL, MPI_File, void*, int,
                   MPI_Datatype, MPI_Request*)
GPURUN_UNSUPPORTED(MPI_File_iread_all_c, Feature::kFileIo, MPI_COMM_NULL, MPI_File, void*,
                   MPI_Count, MPI_Datatype, MPI_Request*)
GPURUN_UNSUPPORTED(MPI_File_iread_at, Feature::kFileIo, MPI_COMM_NULL, MPI_File, MPI_Offset, void*,
                   int, MPI_Datatype, MPI_Request*)
GPURUN_UNSUPPORTED(MPI_File_iread_at_all, Feature::kFileIo, MPI_COMM_NULL, MPI_File, MPI_Offset,
                   void*, int, MPI_Datatype, MPI_Request*)
GPURUN_UNSUPPORTED(MPI_File_iread_at_all_c, Feature::kFileIo, MPI_COMM_NULL, MPI_File, MPI_Offset,
                   void*, MPI_Count, MPI_Datatype, MPI_Request*)
GPURUN_UNSUPPORTED(MPI_File_iread_at_c, Feature::kFileIo, MPI_COMM_NULL, MPI_File, MPI_Offset,
                   void*, MPI_Count, MPI_Datatype, MPI_Request*)
GPURUN_UNSUPPORTED(MPI_File_iread_c, Feature::kFileIo, MPI_COMM_NULL, MPI_File, void*, MPI_Count,
                   MPI_Datatype, MPI_Request*)
GPURUN_UNSUPPORTED(MPI_File_iread_shared, Feature::kFileIo, MPI_COMM_NULL, MPI_File, void*, int,
                   MPI_Datatype, MPI_Request*)
GPURUN_UNSUPPORTED(MPI_File_iread_shared_c, Feature::kFileIo, MPI_COMM_NULL, MPI_File, void*,
                   MPI_Count, MPI_Datatype, MPI_Request*)
GPURUN_UNSUPPORTED(MPI_File_iwrite, Feature::kFileIo, MPI_COMM_NULL, MPI_File, const void*, int,
                   MPI_Datatype, MPI_Request*)
GPURUN_UNSUPPORTED(MPI_File_iwrite_all, Feature::kFileIo, MPI_COMM_NULL, MPI_File, const void*, int,
                   MPI_Datatype, MPI_Request*)
GPURUN_UNSUPPORTED(MPI_File_iwrite_all_c, Feature::kFileIo, MPI_COMM_NULL, MPI_File, const void*,
                   MPI_Count, MPI_Datatype, MPI_Request*)
GPURUN_UNSUPPORTED(MPI_File_iwrite_at, Feature::kFileIo, MPI_COMM_NULL, MPI_File, MPI_Offset,
                   const void*, int, MPI_Datatype, MPI_Request*)
GPURUN_UNSUPPORTED(MPI_File_iwrite_at_all, Feature::kFileIo, MPI_COMM_NULL, MPI_File, MPI_Offset,
                   const void*, int, MPI_Datatype, MPI_Request*)
GPURUN_UNSUPPORTED(MPI_File_iwrite_at_all_c, Feature::kFileIo, MPI_COMM_NULL, MPI_File, MPI_Offset,
                   const void*, MPI_Count, MPI_Datatype, MPI_Request*)
GPURUN_UNSUPPORTED(MPI_File_iwrite_at_c, Feature::kFileIo, MPI_COMM_NULL, MPI_File, MPI_Offset,
                   const void*, MPI_Count, MPI_Datatype, MPI_Request*)
GPURUN_UNSUPPORTED(MPI_File_iwrite_c, Feature::kFileIo, MPI_COMM_NULL, MPI_File, const void*,
                   MPI_Count, MPI_Datatype, MPI_Request*)
GPURUN_UNSUPPORTED(MPI_File_iwrite_shared, Feature::kFileIo, MPI_COMM_NULL, MPI_File, const void*,
                   int, MPI_Datatype, MPI_Request*)
GPURUN_UNSUPPORTED(MPI_File_iwrite_shared_c, Feature::kFileIo, MPI_COMM_NULL, MPI_File, const void*,
                   MPI_Count, MPI_Datatype, MPI_Request*)
GPURUN_UNSUPPORTED(MPI_File_open, Feature::kFileIo, comm, MPI_Comm comm, const char*, int, MPI_Info,
                   MPI_File*)
GPURUN_UNSUPPORTED(MPI_File_preallocate, Feature::kFileIo, MPI_COMM_NULL, MPI_File, MPI_Offset)
GPURUN_UNSUPPORTED(MPI_File_read, Feature::kFileIo, MPI_COMM_NULL, MPI_File, void*, int,
                   MPI_Datatype, MPI_Status*)
GPURUN_UNSUPPORTED(MPI_File_read_all, Feature::kFileIo, MPI_COMM_NULL, MPI_File, void*, int,
                   MPI_Datatype, MPI_Status*)
GPURUN_UNSUPPORTED(MPI_File_read_all_begin, Feature::kFileIo, MPI_COMM_NULL, MPI_File, void*, int,
                   MPI_Datatype)
GPURUN_UNSUPPORTED(MPI_File_read_all_begin_c, Feature::kFileIo, MPI_COMM_NULL, MPI_File, void*,
                   MPI_Count, MPI_Datatype)
GPURUN_UNSUPPORTED(MPI_File_read_all_c, Feature::kFileIo, MPI_COMM_NULL, MPI_File, void*, MPI_Count,
                   MPI_Datatype, MPI_Status*)
GPURUN_UNSUPPORTED(MPI_File_read_all_end, Feature::kFileIo, MPI_COMM_NULL, MPI_File, void*,
                   MPI_Status*)
GPURUN_UNSUPPORTED(MPI_File_read_at, Feature::kFileIo, MPI_COMM_NULL, MPI_File, MPI_Offset, void*,
                   int, MPI_Datatype, MPI_Status*)
GPURUN_UNSUPPORTED(MPI_File_read_at_all, Feature::kFileIo, MPI_COMM_NULL, MPI_File, MPI_Offset,
                   void*, int, MPI_Datatype, MPI_Status*)
GPURUN_UNSUPPORTED(MPI_File_read_at_all_begin, Feature::kFileIo, MPI_COMM_NULL, MPI_File,
                   MPI_Offset, void*, int, MPI_Datatype)
GPURUN_UNSUPPORTED(MPI_File_read_at_all_begin_c, Feature::kFileIo, MPI_COMM_NULL, MPI_File,
                   MPI_Offset, void*, MPI_Count, MPI_Datatype)
GPURUN_UNSUPPORTED(MPI_File_read_at_all_c, Feature::kFileIo, MPI_COMM_NULL, MPI_File, MPI_Offset,
                   void*, MPI_Count, MPI_Datatype, MPI_Status*)
GPURUN_UNSUPPORTED(MPI_File_read_at_all_end, Feature::kFileIo, MPI_COMM_NULL, MPI_File, void*,
                   MPI_Status*)
GPURUN_UNSUPPORTED(MPI_File_read_at_c, Feature::kFileIo, MPI_COMM_NULL, MPI_File, MPI_Offset, void*,
                   MPI_Count, MPI_Datatype, MPI_Status*)
GPURUN_UNSUPPORTED(MPI_File_read_c, Feature::kFileIo, MPI_COMM_NULL, MPI_File, void*, MPI_Count,
                   MPI_Datatype, MPI_Status*)
GPURUN_UNSUPPORTED(MPI_File_read_ordered, Feature::kFileIo, MPI_COMM_NULL, MPI_File, void*, int,
                   MPI_Datatype, MPI_Status*)
GPURUN_UNSUPPORTED(MPI_File_read_ordered_begin, Feature::kFileIo, MPI_COMM_NULL, MPI_File, void*,
                   int, MPI_Datatype)
GPURUN_UNSUPPORTED(MPI_File_read_ordered_begin_c, Feature::kFileIo, MPI_COMM_NULL, MPI_File, void*,
                   MPI_Count, MPI_Datatype)
GPURUN_UNSUPPORTED(MPI_File_read_ordered_c, Feature::kFileIo, MPI_COMM_NULL, MPI_File, void*,
                   MPI_Count, MPI_Datatype, MPI_Status*)
GPURUN_UNSUPPORTED(MPI_File_read_ordered_end, Feature::kFileIo, MPI_COMM_NULL, MPI_File, void*,
                   MPI_Status*)
GPURUN_UNSUPPORTED(MPI_File_read_shared, Feature::kFileIo, MPI_COMM_NULL, MPI_File, void*, int,
                   MPI_Datatype, MPI_Status*)
GPURUN_UNSUPPORTED(MPI_File_read_shared_c, Feature::kFileIo, MPI_COMM_NULL, MPI_File, void*,
                   MPI_Count, MPI_Datatype, MPI_Status*)
GPURUN_UNSUPPORTED(MPI_File_seek, Feature::kFileIo, MPI_COMM_NULL, MPI_File, MPI_Offset, int)
GPURUN_UNSUPPORTED(MPI_File_seek_shared, Feature::kFileIo, MPI_COMM_NULL, MPI_File, MPI_Offset, int)
GPURUN_UNSUPPORTED(MPI_File_set_atomicity, Feature::kFileIo, MPI_COMM_NULL, MPI_File, int)
GPURUN_UNSUPPORTED(MPI_File_set_errhandler, Feature::kFileIo, MPI_COMM_NULL, MPI_File,
                   MPI_Errhandler)
GPURUN_UNSUPPORTED(MPI_File_set_info, Feature::kFileIo, MPI_COMM_NULL, MPI_File, MPI_Info)
GPURUN_UNSUPPORTED(MPI_File_set_size, Feature::kFileIo, MPI_COMM_NULL, MPI_File, MPI_Offset)
GPURUN_UNSUPPORTED(MPI_File_set_view, Feature::kFileIo, MPI_COMM_NULL, MPI_File, MPI_Offset,
                   MPI_Datatype, MPI_Datatype, const char*, MPI_Info)
GPURUN_UNSUPPORTED(MPI_File_sync, Feature::kFileIo, MPI_COMM_NULL, MPI_File)
GPURUN_UNSUPPORTED(MPI_File_write, Feature::kFileIo, MPI_COMM_NULL, MPI_File, const void*, int,
                   MPI_Datatype, MPI_Status*)
GPURUN_UNSUPPORTED(MPI_File_write_all, Feature::kFileIo, MPI_COMM_NULL, MPI_File, const void*, int,
                   MPI_Datatype, MPI_Status*)
GPURUN_UNSUPPORTED(MPI_File_write_all_begin, Feature::kFileIo, MPI_COMM_NULL, MPI_File, const void*,
                   int, MPI_Datatype)
GPURUN_UNSUPPORTED(MPI_File_write_all_begin_c, Feature::kFileIo, MPI_COMM_NULL, MPI_File,
                   const void*, MPI_Count, MPI_Datatype)
GPURUN_UNSUPPORTED(MPI_File_write_all_c, Feature::kFileIo, MPI_COMM_NULL, MPI_File, const void*,
                   MPI_Count, MPI_Datatype, MPI_Status*)
GPURUN_UNSUPPORTED(MPI_File_write_all_end, Feature::kFileIo, MPI_COMM_NULL, MPI_File, const void*,
                   MPI_Status*)
GPURUN_UNSUPPORTED(MPI_File_write_at, Feature::kFileIo, MPI_COMM_NULL, MPI_File, MPI_Offset,
                   const void*, int, MPI_Datatype, MPI_Status*)
GPURUN_UNSUPPORTED(MPI_File_write_at_all, Feature::kFileIo, MPI_COMM_NULL, MPI_File, MPI_Offset,
                   const void*, int, MPI_Datatype, MPI_Status*)
GPURUN_UNSUPPORTED(MPI_File_write_at_all_begin, Feature::kFileIo, MPI_COMM_NULL, MPI_File,
                   MPI_Offset, const void*, int, MPI_Datatype)
GPURUN_UNSUPPORTED(MPI_File_write_at_all_begin_c, Feature::kFileIo, MPI_COMM_NULL, MPI_File,
                   MPI_Offset, const void*, MPI_Count, MPI_Datatype)
GPURUN_UNSUPPORTED(MPI_File_write_at_all_c, Feature::kFileIo, MPI_COMM_NULL, MPI_File, MPI_Offset,
                   const void*, MPI_Count, MPI_Datatype, MPI_Status*)
GPURUN_UNSUPPORTED(MPI_File_write_at_all_end, Feature::kFileIo, MPI_COMM_NULL, MPI_File,
                   const void*, MPI_Status*)
GPURUN_UNSUPPORTED(MPI_File_write_at_c, Feature::kFileIo, MPI_COMM_NULL, MPI_File, MPI_Offset,
                   const void*, MPI_Count, MPI_Datatype, MPI_Status*)
GPURUN_UNSUPPORTED(MPI_File_write_c, Feature::kFileIo, MPI_COMM_NULL, MPI_File, const void*,
                   MPI_Count, MPI_Datatype, MPI_Status*)
GPURUN_UNSUPPORTED(MPI_File_write_ordered, Feature::kFileIo, MPI_COMM_NULL, MPI_File, const void*,
                   int, MPI_Datatype, MPI_Status*)
GPURUN_UNSUPPORTED(MPI_File_write_ordered_begin, Feature::kFileIo, MPI_COMM_NULL, MPI_File,
                   const void*, int, MPI_Datatype)
GPURUN_UNSUPPORTED(MPI_File_write_ordered_begin_c, Feature::kFileIo, MPI_COMM_NULL, MPI_File,
                   const void*, MPI_Count, MPI_Datatype)
GPURUN_UNSUPPORTED(MPI_File_write_ordered_c, Feature::kFileIo, MPI_COMM_NULL, MPI_File, const void*,
                   MPI_Count, MPI_Datatype, MPI_Status*)
GPURUN_UNSUPPORTED(MPI_File_write_ordered_end, Feature::kFileIo, MPI_COMM_NULL, MPI_File,
                   const void*, MPI_Status*)
GPURUN_UNSUPPORTED(MPI_File_write_shared, Feature::kFileIo, MPI_COMM_NULL, MPI_File, const void*,
                   int, MPI_Datatype, MPI_Status*)
GPURUN_UNSUPPORTED(MPI_File_write_shared_c, Feature::kFileIo, MPI_COMM_NULL, MPI_File, const void*,
                   MPI_Count, MPI_Datatype, MPI_Status*)
GPURUN_UNSUPPORTED(MPI_Register_datarep, Feature::kFileIo, MPI_COMM_NULL, const char*,
                   MPI_Datarep_conversion_function*, MPI_Datarep_conversion_function*,
                   MPI_Datarep_extent_function*, void*)
GPURUN_UNSUPPORTED(MPI_Register_datarep_c, Feature::kFileIo, MPI_COMM_NULL, const char*,
                   MPI_Datarep_conversion_function_c*, MPI_Datarep_conversion_function_c*,
                   MPI_Datarep_extent_function*, void*)

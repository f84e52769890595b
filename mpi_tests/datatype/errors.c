/* Bad arguments to the datatype calls, under MPI_ERRORS_RETURN: each gives the right error
 * class, and a message that names the call, the argument and the rank. A count far larger than
 * its arrays (2^62 blocks) is MPI_ERR_NO_MEM, not the end of the process; MPI_IN_PLACE is no
 * buffer of MPI_Pack or MPI_Unpack, and neither is one that overlaps the other. */
#include <stdio.h>
#include <string.h>

#include "mtest.h"

static int rank;

static void expect(int rc, int want_class, const char *call, const char *arg) {
  int cls = -1, len = 0;
  char text[MPI_MAX_ERROR_STRING], rank_text[32];
  MTEST_CHECK(rc != MPI_SUCCESS, "%s(%s) succeeded", call, arg);
  if (rc == MPI_SUCCESS) return;
  MPI_Error_class(rc, &cls);
  MTEST_CHECK(cls == want_class, "%s(%s): class %d, want %d", call, arg, cls, want_class);
  MPI_Error_string(rc, text, &len);
  snprintf(rank_text, sizeof rank_text, "rank %d", rank);
  MTEST_CHECK(strstr(text, call) && strstr(text, arg) && strstr(text, rank_text),
              "message '%s' must name %s, %s and %s", text, call, arg, rank_text);
}

static void constructors(void) {
  MPI_Datatype t;
  expect(MPI_Type_contiguous(-1, MPI_INT, &t), MPI_ERR_COUNT, "MPI_Type_contiguous", "count");
  expect(MPI_Type_contiguous(2, MPI_DATATYPE_NULL, &t), MPI_ERR_TYPE, "MPI_Type_contiguous",
         "oldtype");
  expect(MPI_Type_contiguous(2, (MPI_Datatype)0x1234, &t), MPI_ERR_TYPE, "MPI_Type_contiguous",
         "oldtype");
  expect(MPI_Type_contiguous(1, MPI_INT, NULL), MPI_ERR_ARG, "MPI_Type_contiguous", "newtype");
  expect(MPI_Type_vector(2, -1, 1, MPI_INT, &t), MPI_ERR_ARG, "MPI_Type_vector", "blocklength");
  expect(MPI_Type_vector_c(-3, 1, 1, MPI_INT, &t), MPI_ERR_COUNT, "MPI_Type_vector_c", "count");
  expect(MPI_Type_indexed(2, (int[]){1, -1}, (int[]){0, 1}, MPI_INT, &t), MPI_ERR_ARG,
         "MPI_Type_indexed", "array_of_blocklengths[1]");
  expect(MPI_Type_indexed(2, NULL, (int[]){0, 1}, MPI_INT, &t), MPI_ERR_ARG, "MPI_Type_indexed",
         "array_of_blocklengths");
  expect(MPI_Type_create_hindexed_block(1, 1, NULL, MPI_INT, &t), MPI_ERR_ARG,
         "MPI_Type_create_hindexed_block", "array_of_displacements");
  expect(MPI_Type_create_struct(2, (int[]){1, 1}, (MPI_Aint[]){0, 8},
                                (MPI_Datatype[]){MPI_INT, MPI_DATATYPE_NULL}, &t),
         MPI_ERR_TYPE, "MPI_Type_create_struct", "array_of_types[1]");
  expect(MPI_Type_create_subarray(1, (int[]){4}, (int[]){5}, (int[]){0}, MPI_ORDER_C, MPI_INT, &t),
         MPI_ERR_ARG, "MPI_Type_create_subarray", "array_of_subsizes[0]");
  expect(MPI_Type_create_subarray(1, (int[]){4}, (int[]){2}, (int[]){3}, MPI_ORDER_C, MPI_INT, &t),
         MPI_ERR_ARG, "MPI_Type_create_subarray", "array_of_starts[0]");
  expect(MPI_Type_create_subarray(1, (int[]){4}, (int[]){2}, (int[]){0}, 7, MPI_INT, &t),
         MPI_ERR_ARG, "MPI_Type_create_subarray", "order");
  expect(MPI_Type_create_darray(4, 0, 1, (int[]){8}, (int[]){MPI_DISTRIBUTE_BLOCK},
                                (int[]){MPI_DISTRIBUTE_DFLT_DARG}, (int[]){3}, MPI_ORDER_C, MPI_INT,
                                &t),
         MPI_ERR_ARG, "MPI_Type_create_darray", "array_of_psizes");
  expect(MPI_Type_create_darray(2, 0, 1, (int[]){8}, (int[]){MPI_DISTRIBUTE_BLOCK}, (int[]){3},
                                (int[]){2}, MPI_ORDER_C, MPI_INT, &t),
         MPI_ERR_ARG, "MPI_Type_create_darray", "array_of_dargs[0]");
  expect(MPI_Type_create_darray(2, 2, 1, (int[]){8}, (int[]){MPI_DISTRIBUTE_CYCLIC}, (int[]){1},
                                (int[]){2}, MPI_ORDER_C, MPI_INT, &t),
         MPI_ERR_ARG, "MPI_Type_create_darray", "rank");
  /* A type too large to describe in 64 bits. */
  expect(MPI_Type_vector_c((MPI_Count)1 << 40, (MPI_Count)1 << 30, 1, MPI_DOUBLE, &t), MPI_ERR_ARG,
         "MPI_Type_vector_c", "64 bits");
}

static void lifecycle(void) {
  MPI_Datatype t, copy, predefined = MPI_INT;
  int size;
  MPI_Aint lb, extent;
  expect(MPI_Type_commit(NULL), MPI_ERR_ARG, "MPI_Type_commit", "datatype");
  expect(MPI_Type_free(&predefined), MPI_ERR_TYPE, "MPI_Type_free", "MPI_INT");
  MTEST_CHECK(predefined == MPI_INT, "a failed free changed the handle");
  expect(MPI_Type_size(MPI_DATATYPE_NULL, &size), MPI_ERR_TYPE, "MPI_Type_size", "datatype");
  expect(MPI_Type_get_extent(MPI_DATATYPE_NULL, &lb, &extent), MPI_ERR_TYPE, "MPI_Type_get_extent",
         "datatype");
  MPI_Type_vector(2, 1, 2, MPI_INT, &t);
  expect(MPI_Type_get_extent(t, NULL, &extent), MPI_ERR_ARG, "MPI_Type_get_extent", "lb");
  expect(MPI_Type_set_name(t, NULL), MPI_ERR_ARG, "MPI_Type_set_name", "type_name");
  copy = t;
  MPI_Type_free(&t);
  expect(MPI_Type_free(&copy), MPI_ERR_TYPE, "MPI_Type_free", "datatype");
  expect(MPI_Type_size(copy, &size), MPI_ERR_TYPE, "MPI_Type_size", "freed");
  int ints[4];
  MPI_Aint addrs[4];
  MPI_Datatype types[2];
  expect(MPI_Type_get_contents(MPI_INT, 0, 0, 0, ints, addrs, types), MPI_ERR_TYPE,
         "MPI_Type_get_contents", "datatype");
  MPI_Type_vector(2, 1, 2, MPI_INT, &t);
  expect(MPI_Type_get_contents(t, 2, 0, 1, ints, addrs, types), MPI_ERR_ARG,
         "MPI_Type_get_contents", "max_integers");
  expect(MPI_Type_get_contents(t, 3, 0, 0, ints, addrs, types), MPI_ERR_ARG,
         "MPI_Type_get_contents", "max_datatypes");
  MPI_Type_free(&t);
}

/* Communication and packing need committed, live types and room for the data. */
static void uses(void) {
  MPI_Datatype t;
  int buf[16] = {0}, packed[16], position = 0, size;
  MPI_Type_vector(2, 1, 2, MPI_INT, &t);
  expect(MPI_Send(buf, 1, t, rank, 0, MPI_COMM_WORLD), MPI_ERR_TYPE, "MPI_Send", "committed");
  expect(MPI_Pack(buf, 1, t, packed, sizeof packed, &position, MPI_COMM_WORLD), MPI_ERR_TYPE,
         "MPI_Pack", "committed");
  MPI_Type_commit(&t);
  expect(MPI_Pack(buf, 1, t, packed, 4, &position, MPI_COMM_WORLD), MPI_ERR_TRUNCATE, "MPI_Pack",
         "outsize");
  expect(MPI_Pack(buf, 1, t, packed, sizeof packed, &position, MPI_COMM_NULL), MPI_ERR_COMM,
         "MPI_Pack", "comm");
  expect(MPI_Pack(buf, -1, t, packed, sizeof packed, &position, MPI_COMM_WORLD), MPI_ERR_COUNT,
         "MPI_Pack", "count");
  expect(MPI_Pack(NULL, 1, t, packed, sizeof packed, &position, MPI_COMM_WORLD), MPI_ERR_BUFFER,
         "MPI_Pack", "inbuf");
  position = 0;
  expect(MPI_Unpack(packed, 4, &position, buf, 1, t, MPI_COMM_WORLD), MPI_ERR_TRUNCATE,
         "MPI_Unpack", "insize");
  expect(MPI_Unpack(packed, 8, NULL, buf, 1, t, MPI_COMM_WORLD), MPI_ERR_ARG, "MPI_Unpack",
         "position");
  expect(MPI_Pack_size(-2, t, MPI_COMM_WORLD, &size), MPI_ERR_COUNT, "MPI_Pack_size", "count");
  position = 0;
  expect(MPI_Pack(MPI_IN_PLACE, 1, t, packed, sizeof packed, &position, MPI_COMM_WORLD),
         MPI_ERR_BUFFER, "MPI_Pack", "inbuf");
  expect(MPI_Pack(buf, 1, t, MPI_IN_PLACE, sizeof packed, &position, MPI_COMM_WORLD),
         MPI_ERR_BUFFER, "MPI_Pack", "outbuf");
  expect(MPI_Unpack(packed, 8, &position, MPI_IN_PLACE, 1, t, MPI_COMM_WORLD), MPI_ERR_BUFFER,
         "MPI_Unpack", "outbuf");
  /* Packed bytes over the data they come from (or go to): refused; right beside it: fine. */
  position = 0;
  expect(MPI_Pack(buf, 4, MPI_INT, buf + 2, 32, &position, MPI_COMM_WORLD), MPI_ERR_BUFFER,
         "MPI_Pack", "overlap");
  position = 4;
  expect(MPI_Unpack(buf, 32, &position, buf + 2, 2, MPI_INT, MPI_COMM_WORLD), MPI_ERR_BUFFER,
         "MPI_Unpack", "overlap");
  position = 0;
  MTEST_CHECK(MPI_Pack(buf, 4, MPI_INT, buf + 4, 16, &position, MPI_COMM_WORLD) == MPI_SUCCESS,
              "MPI_Pack beside its data failed");
  MPI_Datatype gone = t;
  MPI_Type_free(&t);
  expect(MPI_Send(buf, 1, gone, rank, 0, MPI_COMM_WORLD), MPI_ERR_TYPE, "MPI_Send", "datatype");
  expect(MPI_Pack_size(1, gone, MPI_COMM_WORLD, &size), MPI_ERR_TYPE, "MPI_Pack_size", "datatype");
}

/* Sizes beyond an int: the int outputs say so, the _c ones give the value. */
static void large(void) {
  MPI_Datatype t;
  MPI_Count csize = 0;
  int size = 0;
  MPI_Type_contiguous_c((MPI_Count)3 << 30, MPI_BYTE, &t);
  MPI_Type_commit(&t);
  MPI_Type_size(t, &size);
  MTEST_CHECK(size == MPI_UNDEFINED, "MPI_Type_size of 3 GiB is %d", size);
  MPI_Type_size_c(t, &csize);
  MTEST_CHECK(csize == (MPI_Count)3 << 30, "MPI_Type_size_c is %ld", (long)csize);
  expect(MPI_Pack_size(1, t, MPI_COMM_WORLD, &size), MPI_ERR_VALUE_TOO_LARGE, "MPI_Pack_size",
         "size");
  MPI_Pack_size_c(2, t, MPI_COMM_WORLD, &csize);
  MTEST_CHECK(csize == (MPI_Count)6 << 30, "MPI_Pack_size_c is %ld", (long)csize);
  MPI_Type_free(&t);
  MPI_Count lengths[2] = {1, 1}, displs[2] = {0, 8};
  MPI_Aint bytes[2] = {0, 8};
  MPI_Datatype types[2] = {MPI_INT, MPI_INT};
  const MPI_Count huge = (MPI_Count)1 << 62;
  expect(MPI_Type_indexed_c(huge, lengths, displs, MPI_INT, &t), MPI_ERR_NO_MEM,
         "MPI_Type_indexed_c", "argument count");
  expect(MPI_Type_create_hindexed_block_c(huge, 1, bytes, MPI_INT, &t), MPI_ERR_NO_MEM,
         "MPI_Type_create_hindexed_block_c", "argument count");
  expect(MPI_Type_create_struct_c(huge, lengths, bytes, types, &t), MPI_ERR_NO_MEM,
         "MPI_Type_create_struct_c", "argument count");
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  constructors();
  lifecycle();
  uses();
  large();
  return mtest_finalize();
}

/* Parallel HDF5 through MPI-IO: built against Debian's HDF5 for MPICH (libhdf5_mpich, whose
 * MPI-IO driver calls MPI_File_open, set_view, the collective writes and reads ...) and run
 * unchanged under gpurun. Each rank writes a block of rows of one dataset collectively and a
 * block of columns of another independently (a non-contiguous file view each), rank 0 writes
 * an attribute; the file is reopened read-only and every rank checks every element.
 * Usage: hdf5_parallel DIR (the file is made there and removed). Prints "No Errors". */
#include <hdf5.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define ROWS_PER_RANK 6
#define COLS 40

static int errors = 0;

#define CHECK(cond, ...)                         \
  do {                                           \
    if (!(cond)) {                               \
      ++errors;                                  \
      fprintf(stderr, "check failed: " __VA_ARGS__); \
      fputc('\n', stderr);                       \
    }                                            \
  } while (0)

static int value(int dataset, hsize_t i, hsize_t j) {
  return dataset * 1000000 + (int)i * 1000 + (int)j;
}

/* Rows [rank * ROWS_PER_RANK, ...) of dataset 0 (collective), or the same block transposed as
 * columns of dataset 1 (independent). */
static void write_block(hid_t file, int dataset, int rank, int size) {
  hsize_t dims[2] = {(hsize_t)ROWS_PER_RANK * size, COLS};
  if (dataset == 1) dims[0] = COLS, dims[1] = (hsize_t)ROWS_PER_RANK * size;
  hid_t space = H5Screate_simple(2, dims, NULL);
  hid_t set = H5Dcreate2(file, dataset == 0 ? "rows" : "columns", H5T_NATIVE_INT, space,
                         H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  hsize_t start[2] = {(hsize_t)rank * ROWS_PER_RANK, 0}, count[2] = {ROWS_PER_RANK, COLS};
  if (dataset == 1) start[0] = 0, start[1] = (hsize_t)rank * ROWS_PER_RANK, count[0] = COLS,
                    count[1] = ROWS_PER_RANK;
  H5Sselect_hyperslab(space, H5S_SELECT_SET, start, NULL, count, NULL);
  int *data = malloc(sizeof(int) * ROWS_PER_RANK * COLS);
  for (hsize_t i = 0; i < count[0]; ++i)
    for (hsize_t j = 0; j < count[1]; ++j)
      data[i * count[1] + j] = value(dataset, start[0] + i, start[1] + j);
  hid_t memspace = H5Screate_simple(2, count, NULL);
  hid_t dxpl = H5Pcreate(H5P_DATASET_XFER);
  H5Pset_dxpl_mpio(dxpl, dataset == 0 ? H5FD_MPIO_COLLECTIVE : H5FD_MPIO_INDEPENDENT);
  herr_t rc = H5Dwrite(set, H5T_NATIVE_INT, memspace, space, dxpl, data);
  CHECK(rc >= 0, "rank %d: H5Dwrite of dataset %d failed", rank, dataset);
  H5Pclose(dxpl);
  H5Sclose(memspace);
  H5Sclose(space);
  H5Dclose(set);
  free(data);
}

static void check_dataset(hid_t file, int dataset, int rank) {
  hid_t set = H5Dopen2(file, dataset == 0 ? "rows" : "columns", H5P_DEFAULT);
  CHECK(set >= 0, "rank %d: H5Dopen2 of dataset %d failed", rank, dataset);
  if (set < 0) return;
  hid_t space = H5Dget_space(set);
  hsize_t dims[2] = {0, 0};
  H5Sget_simple_extent_dims(space, dims, NULL);
  int *data = malloc(sizeof(int) * dims[0] * dims[1]);
  hid_t dxpl = H5Pcreate(H5P_DATASET_XFER);
  H5Pset_dxpl_mpio(dxpl, H5FD_MPIO_COLLECTIVE);
  herr_t rc = H5Dread(set, H5T_NATIVE_INT, H5S_ALL, H5S_ALL, dxpl, data);
  CHECK(rc >= 0, "rank %d: H5Dread of dataset %d failed", rank, dataset);
  int bad = 0;
  for (hsize_t i = 0; i < dims[0]; ++i)
    for (hsize_t j = 0; j < dims[1]; ++j) bad += data[i * dims[1] + j] != value(dataset, i, j);
  CHECK(bad == 0, "rank %d: %d of %llu elements of dataset %d wrong", rank, bad,
        (unsigned long long)(dims[0] * dims[1]), dataset);
  H5Pclose(dxpl);
  H5Sclose(space);
  H5Dclose(set);
  free(data);
}

static void write_attribute(hid_t file, int size) {
  hid_t space = H5Screate(H5S_SCALAR);
  hid_t attr = H5Acreate2(file, "ranks", H5T_NATIVE_INT, space, H5P_DEFAULT, H5P_DEFAULT);
  CHECK(H5Awrite(attr, H5T_NATIVE_INT, &size) >= 0, "H5Awrite failed");
  H5Aclose(attr);
  H5Sclose(space);
}

static void check_attribute(hid_t file, int rank, int size) {
  int ranks = -1;
  hid_t attr = H5Aopen(file, "ranks", H5P_DEFAULT);
  H5Aread(attr, H5T_NATIVE_INT, &ranks);
  CHECK(ranks == size, "rank %d: attribute ranks is %d, want %d", rank, ranks, size);
  H5Aclose(attr);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  char name[4096];
  snprintf(name, sizeof name, "%s/hdf5_parallel.h5", argc > 1 ? argv[1] : ".");
  hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
  H5Pset_fapl_mpio(fapl, MPI_COMM_WORLD, MPI_INFO_NULL);
  hid_t file = H5Fcreate(name, H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
  CHECK(file >= 0, "rank %d: H5Fcreate through MPI-IO failed", rank);
  if (file >= 0) {
    write_block(file, 0, rank, size);
    write_block(file, 1, rank, size);
    write_attribute(file, size);
    CHECK(H5Fclose(file) >= 0, "rank %d: H5Fclose failed", rank);
    file = H5Fopen(name, H5F_ACC_RDONLY, fapl);
    CHECK(file >= 0, "rank %d: H5Fopen read-only failed", rank);
  }
  if (file >= 0) {
    check_dataset(file, 0, rank);
    check_dataset(file, 1, rank);
    check_attribute(file, rank, size);
    H5Fclose(file);
  }
  H5Pclose(fapl);
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) remove(name);
  int total = 0;
  MPI_Reduce(&errors, &total, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
  if (rank == 0) printf(total == 0 ? "No Errors\n" : " Found %d errors\n", total);
  MPI_Finalize();
  return total != 0;
}

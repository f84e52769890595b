/* MPI_Type_create_f90_real, _complex and _integer: the kind that precision and range select
 * (MPI_UNDEFINED: no demand), one handle per (p, r), decoded as MPI_COMBINER_F90_* with its
 * arguments, usable in communication, and not freeable; a demand no kind meets is MPI_ERR_ARG. */
#include "mtest.h"

static int class_of(int rc) {
  int c = -1;
  MPI_Error_class(rc, &c);
  return c;
}

static void expect(MPI_Datatype t, int size, int combiner, int ni, int i0, int i1) {
  int s = -1, n_int = -1, n_addr = -1, n_type = -1, comb = -1, ints[2] = {-9, -9};
  MPI_Aint addrs[1];
  MPI_Datatype types[1];
  MPI_Type_size(t, &s);
  MPI_Type_get_envelope(t, &n_int, &n_addr, &n_type, &comb);
  MTEST_CHECK(s == size && comb == combiner && n_int == ni && n_addr == 0 && n_type == 0,
              "size %d (want %d), combiner %d (want %d), %d ints", s, size, comb, combiner, n_int);
  MPI_Type_get_contents(t, 2, 0, 0, ints, addrs, types);
  MTEST_CHECK(ints[0] == i0 && (ni < 2 || ints[1] == i1), "contents %d %d, want %d %d", ints[0],
              ints[1], i0, i1);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Datatype r4, r8, r16, again, c16, i1, i4, i8;
  MPI_Type_create_f90_real(6, 30, &r4);
  MPI_Type_create_f90_real(15, MPI_UNDEFINED, &r8);
  MPI_Type_create_f90_real(MPI_UNDEFINED, 1000, &r16);
  MPI_Type_create_f90_real(6, 30, &again);
  MPI_Type_create_f90_complex(15, 300, &c16);
  MPI_Type_create_f90_integer(2, &i1);
  MPI_Type_create_f90_integer(5, &i4);
  MPI_Type_create_f90_integer(18, &i8);
  expect(r4, 4, MPI_COMBINER_F90_REAL, 2, 6, 30);
  expect(r8, 8, MPI_COMBINER_F90_REAL, 2, 15, MPI_UNDEFINED);
  expect(r16, 16, MPI_COMBINER_F90_REAL, 2, MPI_UNDEFINED, 1000);
  expect(c16, 16, MPI_COMBINER_F90_COMPLEX, 2, 15, 300);
  expect(i1, 1, MPI_COMBINER_F90_INTEGER, 1, 2, 0);
  expect(i4, 4, MPI_COMBINER_F90_INTEGER, 1, 5, 0);
  expect(i8, 8, MPI_COMBINER_F90_INTEGER, 1, 18, 0);
  MTEST_CHECK(again == r4, "the same (p, r) gave another handle");

  /* A message of the REAL(8) kind, matched by MPI_DOUBLE's signature. */
  double v[3] = {rank + 0.5, rank + 1.5, rank + 2.5}, w[3] = {0, 0, 0};
  int to = (rank + 1) % size, from = (rank + size - 1) % size;
  MPI_Sendrecv(v, 3, r8, to, 0, w, 3, MPI_DOUBLE, from, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  MTEST_CHECK(w[0] == from + 0.5 && w[2] == from + 2.5, "received %g %g", w[0], w[2]);
  double sum = 0;
  MPI_Allreduce(&v[0], &sum, 1, r8, MPI_SUM, MPI_COMM_WORLD);
  MTEST_CHECK(sum == size * (size - 1) / 2.0 + 0.5 * size, "allreduce %g", sum);

  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  MPI_Datatype none = MPI_DATATYPE_NULL;
  int rc = MPI_Type_create_f90_real(40, 10, &none);
  MTEST_CHECK(class_of(rc) == MPI_ERR_ARG && none == MPI_DATATYPE_NULL, "precision 40: %d", rc);
  rc = MPI_Type_create_f90_integer(19, &none);
  MTEST_CHECK(class_of(rc) == MPI_ERR_ARG, "integer range 19: %d", rc);
  rc = MPI_Type_create_f90_complex(-3, 10, &none);
  MTEST_CHECK(class_of(rc) == MPI_ERR_ARG, "precision -3: %d", rc);
  MPI_Datatype copy = r4;
  rc = MPI_Type_free(&copy);
  MTEST_CHECK(class_of(rc) == MPI_ERR_TYPE && copy == r4, "MPI_Type_free of an f90 type: %d", rc);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
  return mtest_finalize();
}

/* Derived datatypes on the wire: rank 0 sends one layout, rank 1 receives another (the
 * packed streams match), for small (eager) and large (pipelined) messages, and MPI_PACKED
 * data packed on one rank and unpacked on the other. */
#include <stddef.h>
#include <stdlib.h>

#include "mtest.h"

enum { ROWS = 6, COLS = 8 };

/* The interior of a ROWS x COLS matrix travels as a subarray and arrives as a plain array,
 * then comes back into a column-major layout. */
static void matrix(int rank) {
  double m[ROWS][COLS], flat[(ROWS - 2) * (COLS - 2)];
  MPI_Datatype interior, transposed;
  MPI_Type_create_subarray(2, (int[]){ROWS, COLS}, (int[]){ROWS - 2, COLS - 2}, (int[]){1, 1},
                           MPI_ORDER_C, MPI_DOUBLE, &interior);
  MPI_Type_commit(&interior);
  /* column-major 4 x 6 into a 6 x 4 row-major array: element (r, c) at c * 4 + r */
  MPI_Datatype column;
  MPI_Type_vector(COLS - 2, 1, ROWS - 2, MPI_DOUBLE, &column);
  MPI_Type_create_resized(column, 0, sizeof(double), &transposed);
  MPI_Type_commit(&transposed);
  MPI_Type_free(&column);
  if (rank == 0) {
    for (int r = 0; r < ROWS; r++)
      for (int c = 0; c < COLS; c++) m[r][c] = 100 * r + c;
    MPI_Send(m, 1, interior, 1, 1, MPI_COMM_WORLD);
    MPI_Send(m, 1, interior, 1, 2, MPI_COMM_WORLD);
  } else {
    MPI_Recv(flat, (ROWS - 2) * (COLS - 2), MPI_DOUBLE, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    for (int i = 0; i < (ROWS - 2) * (COLS - 2); i++) {
      double want = 100 * (1 + i / (COLS - 2)) + 1 + i % (COLS - 2);
      MTEST_CHECK(flat[i] == want, "interior element %d is %g, want %g", i, flat[i], want);
    }
    double t[(COLS - 2) * (ROWS - 2)];
    MPI_Recv(t, ROWS - 2, transposed, 0, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    for (int r = 0; r < ROWS - 2; r++)
      for (int c = 0; c < COLS - 2; c++)
        MTEST_CHECK(t[c * (ROWS - 2) + r] == 100 * (r + 1) + c + 1, "transposed (%d, %d) is %g", r,
                    c, t[c * (ROWS - 2) + r]);
  }
  MPI_Type_free(&interior);
  MPI_Type_free(&transposed);
}

struct particle {
  int id;
  double x[3];
  char tag;
};

static MPI_Datatype particle_type(void) {
  MPI_Datatype raw, t;
  MPI_Type_create_struct(3, (int[]){1, 3, 1},
                         (MPI_Aint[]){offsetof(struct particle, id), offsetof(struct particle, x),
                                      offsetof(struct particle, tag)},
                         (MPI_Datatype[]){MPI_INT, MPI_DOUBLE, MPI_CHAR}, &raw);
  MPI_Type_create_resized(raw, 0, sizeof(struct particle), &t);
  MPI_Type_free(&raw);
  return t;
}

/* Every other particle of an array, sent as a vector of structs of `n` particles, arrives
 * packed together. */
static void particles(int rank, int n) {
  MPI_Datatype p = particle_type(), every_other;
  MPI_Type_vector(n, 1, 2, p, &every_other);
  MPI_Type_commit(&every_other);
  MPI_Type_commit(&p);
  struct particle *a = calloc(2 * (size_t)n, sizeof *a);
  if (rank == 0) {
    for (int i = 0; i < 2 * n; i++) {
      a[i].id = i;
      a[i].x[0] = i * 0.5;
      a[i].x[1] = -i;
      a[i].x[2] = i * 3.0;
      a[i].tag = (char)('a' + i % 26);
    }
    MPI_Send(a, 1, every_other, 1, 3, MPI_COMM_WORLD);
  } else {
    MPI_Status status;
    MPI_Recv(a, n, p, 0, 3, MPI_COMM_WORLD, &status);
    int bad = 0;
    for (int i = 0; i < n; i++) {
      int k = 2 * i;
      bad += a[i].id != k || a[i].x[0] != k * 0.5 || a[i].x[1] != -k || a[i].x[2] != k * 3.0 ||
             a[i].tag != (char)('a' + k % 26);
    }
    MTEST_CHECK(bad == 0, "%d of %d particles arrived wrong", bad, n);
  }
  free(a);
  MPI_Type_free(&every_other);
  MPI_Type_free(&p);
}

/* A strided vector of many doubles (megabytes: a pipelined transfer) received as another
 * stride. */
static void large_strided(int rank) {
  const int n = 1 << 20;
  double *buf = malloc(3 * (size_t)n * sizeof(double));
  MPI_Datatype send_type, recv_type;
  MPI_Type_vector(n, 1, 2, MPI_DOUBLE, &send_type);
  MPI_Type_vector(n, 1, 3, MPI_DOUBLE, &recv_type);
  MPI_Type_commit(&send_type);
  MPI_Type_commit(&recv_type);
  if (rank == 0) {
    for (int i = 0; i < 2 * n; i++) buf[i] = i;
    MPI_Send(buf, 1, send_type, 1, 4, MPI_COMM_WORLD);
  } else {
    for (int i = 0; i < 3 * n; i++) buf[i] = -1;
    MPI_Recv(buf, 1, recv_type, 0, 4, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    int bad = 0;
    for (int i = 0; i < 3 * n; i++) bad += buf[i] != (i % 3 == 0 ? 2.0 * (i / 3) : -1);
    MTEST_CHECK(bad == 0, "%d of %d doubles wrong after the strided transfer", bad, 3 * n);
  }
  free(buf);
  MPI_Type_free(&send_type);
  MPI_Type_free(&recv_type);
}

/* MPI_Pack on one rank, MPI_PACKED on the wire, MPI_Unpack on the other; the _c forms for
 * the doubles. */
static void packed(int rank) {
  char buf[256];
  int position = 0, count = 5, ints[5] = {0};
  MPI_Count cposition;
  double values[10] = {0};
  MPI_Datatype evens;
  MPI_Type_vector(5, 1, 2, MPI_DOUBLE, &evens);
  MPI_Type_commit(&evens);
  if (rank == 0) {
    for (int i = 0; i < 5; i++) ints[i] = 10 * i;
    for (int i = 0; i < 10; i++) values[i] = i + 0.25;
    MPI_Pack(&count, 1, MPI_INT, buf, sizeof buf, &position, MPI_COMM_WORLD);
    MPI_Pack(ints, count, MPI_INT, buf, sizeof buf, &position, MPI_COMM_WORLD);
    cposition = position;
    MPI_Pack_c(values, 1, evens, buf, sizeof buf, &cposition, MPI_COMM_WORLD);
    MPI_Send(buf, (int)cposition, MPI_PACKED, 1, 5, MPI_COMM_WORLD);
  } else {
    MPI_Recv(buf, sizeof buf, MPI_PACKED, 0, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    int n = 0;
    MPI_Unpack(buf, sizeof buf, &position, &n, 1, MPI_INT, MPI_COMM_WORLD);
    MTEST_CHECK(n == 5, "unpacked count %d", n);
    MPI_Unpack(buf, sizeof buf, &position, ints, n, MPI_INT, MPI_COMM_WORLD);
    cposition = position;
    MPI_Unpack_c(buf, sizeof buf, &cposition, values, 5, MPI_DOUBLE, MPI_COMM_WORLD);
    MTEST_CHECK(cposition == 4 + 20 + 40, "position %ld after unpacking", (long)cposition);
    for (int i = 0; i < 5; i++) {
      MTEST_CHECK(ints[i] == 10 * i, "int %d is %d", i, ints[i]);
      MTEST_CHECK(values[i] == 2 * i + 0.25, "double %d is %g", i, values[i]);
    }
  }
  MPI_Type_free(&evens);
}

int main(int argc, char **argv) {
  int rank;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  matrix(rank);
  particles(rank, 10);    /* eager */
  particles(rank, 20000); /* pipelined */
  large_strided(rank);
  packed(rank);
  return mtest_finalize();
}

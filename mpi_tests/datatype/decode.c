/* MPI_Type_get_envelope and MPI_Type_get_contents (and their _c forms) give back the
 * arguments of every constructor; derived types among them come back as new handles that
 * work and are freed by the caller. Names of derived types. */
#include <string.h>

#include "mtest.h"

struct want {
  int combiner;
  int ni, na, nd;
  const int *ints;
  const MPI_Aint *addrs;
};

static void check_decode(const char *what, MPI_Datatype t, struct want w, MPI_Datatype child) {
  int ni = -1, na = -1, nd = -1, combiner = -1;
  MPI_Type_get_envelope(t, &ni, &na, &nd, &combiner);
  MTEST_CHECK(combiner == w.combiner && ni == w.ni && na == w.na && nd == w.nd,
              "%s: envelope %d %d %d combiner %d, want %d %d %d %d", what, ni, na, nd, combiner,
              w.ni, w.na, w.nd, w.combiner);
  if (ni != w.ni || na != w.na || nd != w.nd) return;
  int ints[32];
  MPI_Aint addrs[32];
  MPI_Datatype types[8];
  MPI_Type_get_contents(t, ni, na, nd, ints, addrs, types);
  for (int i = 0; i < ni; i++)
    MTEST_CHECK(ints[i] == w.ints[i], "%s: integer %d is %d, want %d", what, i, ints[i], w.ints[i]);
  for (int i = 0; i < na; i++)
    MTEST_CHECK(addrs[i] == w.addrs[i], "%s: address %d is %ld, want %ld", what, i, (long)addrs[i],
                (long)w.addrs[i]);
  for (int i = 0; i < nd; i++) {
    int c, a, b, k;
    MPI_Type_get_envelope(types[i], &a, &b, &c, &k);
    if (k == MPI_COMBINER_NAMED) {
      MTEST_CHECK(types[i] == child, "%s: type %d is %#x, want %#x", what, i, types[i], child);
    } else {
      MPI_Aint lb1, e1, lb2, e2;
      MPI_Type_get_extent(types[i], &lb1, &e1);
      MPI_Type_get_extent(child, &lb2, &e2);
      MTEST_CHECK(types[i] != child && lb1 == lb2 && e1 == e2,
                  "%s: derived type %d must be a new handle to an equal type", what, i);
      MTEST_CHECK(MPI_Type_free(&types[i]) == MPI_SUCCESS, "%s: free returned type", what);
    }
  }
  MPI_Type_free(&t);
}

/* The _c forms: a type made by a large-count constructor reports its counts as large counts,
 * and the non-_c decoders refuse it. */
static void check_large(const char *what, MPI_Datatype t, int combiner, int nc,
                        const MPI_Count *counts) {
  MPI_Count ni = -1, na = -1, nl = -1, nd = -1;
  int k = -1, i1, i2, i3;
  MPI_Type_get_envelope_c(t, &ni, &na, &nl, &nd, &k);
  MTEST_CHECK(k == combiner && ni == 0 && na == 0 && nl == nc && nd == 1,
              "%s: envelope_c %ld %ld %ld %ld combiner %d", what, (long)ni, (long)na, (long)nl,
              (long)nd, k);
  MPI_Count large[16];
  MPI_Datatype types[1];
  MPI_Type_get_contents_c(t, 0, 0, 16, 1, NULL, NULL, large, types);
  for (int i = 0; i < nc && i < nl; i++)
    MTEST_CHECK(large[i] == counts[i], "%s: large count %d is %ld, want %ld", what, i,
                (long)large[i], (long)counts[i]);
  MTEST_CHECK(types[0] == MPI_INT, "%s: type %#x", what, types[0]);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  int rc = MPI_Type_get_envelope(t, &i1, &i2, &i3, &k), cls = -1;
  MPI_Error_class(rc, &cls);
  MTEST_CHECK(cls == MPI_ERR_TYPE, "%s: MPI_Type_get_envelope gives class %d", what, cls);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
  MPI_Type_free(&t);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Datatype t, v;
  MPI_Type_vector(2, 3, 4, MPI_INT, &v);
  MPI_Type_dup(v, &t);
  check_decode("dup", t, (struct want){MPI_COMBINER_DUP, 0, 0, 1, NULL, NULL}, v);
  MPI_Type_contiguous(7, v, &t);
  check_decode("contiguous", t, (struct want){MPI_COMBINER_CONTIGUOUS, 1, 0, 1, (int[]){7}, NULL},
               v);
  MPI_Type_vector(2, 3, -4, MPI_INT, &t);
  check_decode("vector", t, (struct want){MPI_COMBINER_VECTOR, 3, 0, 1, (int[]){2, 3, -4}, NULL},
               MPI_INT);
  MPI_Type_create_hvector(5, 1, 40, v, &t);
  check_decode("hvector", t,
               (struct want){MPI_COMBINER_HVECTOR, 2, 1, 1, (int[]){5, 1}, (MPI_Aint[]){40}}, v);
  MPI_Type_indexed(2, (int[]){1, 2}, (int[]){9, 3}, MPI_INT, &t);
  check_decode("indexed", t,
               (struct want){MPI_COMBINER_INDEXED, 5, 0, 1, (int[]){2, 1, 2, 9, 3}, NULL}, MPI_INT);
  MPI_Type_create_hindexed(2, (int[]){1, 2}, (MPI_Aint[]){-8, 24}, v, &t);
  check_decode(
      "hindexed", t,
      (struct want){MPI_COMBINER_HINDEXED, 3, 2, 1, (int[]){2, 1, 2}, (MPI_Aint[]){-8, 24}}, v);
  MPI_Type_create_indexed_block(3, 2, (int[]){0, 4, 8}, MPI_INT, &t);
  check_decode("indexed_block", t,
               (struct want){MPI_COMBINER_INDEXED_BLOCK, 5, 0, 1, (int[]){3, 2, 0, 4, 8}, NULL},
               MPI_INT);
  MPI_Type_create_hindexed_block(2, 4, (MPI_Aint[]){100, 0}, MPI_INT, &t);
  check_decode(
      "hindexed_block", t,
      (struct want){MPI_COMBINER_HINDEXED_BLOCK, 2, 2, 1, (int[]){2, 4}, (MPI_Aint[]){100, 0}},
      MPI_INT);
  MPI_Type_create_struct(1, (int[]){3}, (MPI_Aint[]){16}, (MPI_Datatype[]){v}, &t);
  check_decode("struct", t,
               (struct want){MPI_COMBINER_STRUCT, 2, 1, 1, (int[]){1, 3}, (MPI_Aint[]){16}}, v);
  MPI_Type_create_subarray(2, (int[]){4, 6}, (int[]){2, 3}, (int[]){1, 2}, MPI_ORDER_FORTRAN,
                           MPI_INT, &t);
  check_decode("subarray", t,
               (struct want){MPI_COMBINER_SUBARRAY, 8, 0, 1,
                             (int[]){2, 4, 6, 2, 3, 1, 2, MPI_ORDER_FORTRAN}, NULL},
               MPI_INT);
  MPI_Type_create_darray(
      4, 3, 2, (int[]){8, 8}, (int[]){MPI_DISTRIBUTE_BLOCK, MPI_DISTRIBUTE_CYCLIC},
      (int[]){MPI_DISTRIBUTE_DFLT_DARG, 2}, (int[]){2, 2}, MPI_ORDER_C, MPI_INT, &t);
  check_decode("darray", t,
               (struct want){MPI_COMBINER_DARRAY, 12, 0, 1,
                             (int[]){4, 3, 2, 8, 8, MPI_DISTRIBUTE_BLOCK, MPI_DISTRIBUTE_CYCLIC,
                                     MPI_DISTRIBUTE_DFLT_DARG, 2, 2, 2, MPI_ORDER_C},
                             NULL},
               MPI_INT);
  MPI_Type_create_resized(v, -4, 64, &t);
  check_decode("resized", t,
               (struct want){MPI_COMBINER_RESIZED, 0, 2, 1, NULL, (MPI_Aint[]){-4, 64}}, v);

  MPI_Type_vector_c(2, 3, 5, MPI_INT, &t);
  check_large("vector_c", t, MPI_COMBINER_VECTOR, 3, (MPI_Count[]){2, 3, 5});
  MPI_Type_create_hindexed_c(2, (MPI_Count[]){1, 4}, (MPI_Count[]){8, 0}, MPI_INT, &t);
  check_large("hindexed_c", t, MPI_COMBINER_HINDEXED, 5, (MPI_Count[]){2, 1, 4, 8, 0});
  MPI_Type_create_resized_c(MPI_INT, 0, 12, &t);
  check_large("resized_c", t, MPI_COMBINER_RESIZED, 2, (MPI_Count[]){0, 12});

  /* Derived types have no name until given one. */
  char name[MPI_MAX_OBJECT_NAME];
  int len = -1;
  MPI_Type_get_name(v, name, &len);
  MTEST_CHECK(len == 0 && name[0] == '\0', "unnamed type: '%s' (%d)", name, len);
  MPI_Type_set_name(v, "halo columns");
  MPI_Type_get_name(v, name, &len);
  MTEST_CHECK(strcmp(name, "halo columns") == 0 && len == 12, "named type: '%s'", name);
  char longname[300];
  memset(longname, 'x', sizeof longname - 1);
  longname[sizeof longname - 1] = '\0';
  MPI_Type_set_name(v, longname);
  MPI_Type_get_name(v, name, &len);
  MTEST_CHECK(len == MPI_MAX_OBJECT_NAME - 1, "a long name is cut to %d, got %d",
              MPI_MAX_OBJECT_NAME - 1, len);
  MPI_Type_free(&v);
  return mtest_finalize();
}

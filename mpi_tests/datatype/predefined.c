/* Every predefined datatype: size, extent, lower bound, true extent, name, and its envelope
 * (MPI_COMBINER_NAMED, no contents). The value-and-index pairs are laid out as C structs. */
#include <complex.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <wchar.h>

#include "mtest.h"

struct named {
  MPI_Datatype type;
  const char *name;
  MPI_Aint size;
};

#define T(type, size) \
  { type, #type, size }
static const struct named basics[] = {
    T(MPI_CHAR, sizeof(char)),
    T(MPI_SIGNED_CHAR, 1),
    T(MPI_UNSIGNED_CHAR, 1),
    T(MPI_WCHAR, sizeof(wchar_t)),
    T(MPI_SHORT, sizeof(short)),
    T(MPI_UNSIGNED_SHORT, 2),
    T(MPI_INT, sizeof(int)),
    T(MPI_UNSIGNED, 4),
    T(MPI_LONG, sizeof(long)),
    T(MPI_UNSIGNED_LONG, 8),
    T(MPI_LONG_LONG_INT, sizeof(long long)),
    T(MPI_UNSIGNED_LONG_LONG, 8),
    T(MPI_FLOAT, sizeof(float)),
    T(MPI_DOUBLE, sizeof(double)),
    T(MPI_LONG_DOUBLE, sizeof(long double)),
    T(MPI_BYTE, 1),
    T(MPI_PACKED, 1),
    T(MPI_INT8_T, 1),
    T(MPI_INT16_T, 2),
    T(MPI_INT32_T, 4),
    T(MPI_INT64_T, 8),
    T(MPI_UINT8_T, 1),
    T(MPI_UINT16_T, 2),
    T(MPI_UINT32_T, 4),
    T(MPI_UINT64_T, 8),
    T(MPI_C_BOOL, sizeof(_Bool)),
    T(MPI_C_FLOAT_COMPLEX, sizeof(float _Complex)),
    T(MPI_C_DOUBLE_COMPLEX, sizeof(double _Complex)),
    T(MPI_C_LONG_DOUBLE_COMPLEX, sizeof(long double _Complex)),
    T(MPIX_C_FLOAT16, 2),
    T(MPI_AINT, sizeof(MPI_Aint)),
    T(MPI_OFFSET, sizeof(MPI_Offset)),
    T(MPI_COUNT, sizeof(MPI_Count)),
    T(MPI_CXX_BOOL, 1),
    T(MPI_CXX_FLOAT_COMPLEX, 8),
    T(MPI_CXX_DOUBLE_COMPLEX, 16),
    T(MPI_CXX_LONG_DOUBLE_COMPLEX, 32),
    T(MPI_CHARACTER, 1),
    T(MPI_LOGICAL, 4),
    T(MPI_INTEGER, 4),
    T(MPI_REAL, 4),
    T(MPI_DOUBLE_PRECISION, 8),
    T(MPI_COMPLEX, 8),
    T(MPI_DOUBLE_COMPLEX, 16),
    T(MPI_INTEGER1, 1),
    T(MPI_INTEGER2, 2),
    T(MPI_INTEGER4, 4),
    T(MPI_INTEGER8, 8),
    T(MPI_REAL4, 4),
    T(MPI_REAL8, 8),
    T(MPI_REAL16, 16),
    T(MPI_COMPLEX8, 8),
    T(MPI_COMPLEX16, 16),
    T(MPI_COMPLEX32, 32),
};

struct pair {
  MPI_Datatype type;
  const char *name;
  MPI_Aint size, extent, true_extent;
};

struct float_int {
  float v;
  int i;
};
struct double_int {
  double v;
  int i;
};
struct long_int {
  long v;
  int i;
};
struct short_int {
  short v;
  int i;
};
struct long_double_int {
  long double v;
  int i;
};

#define P(type, ctype, value_size) \
  { type, #type, value_size + sizeof(int), sizeof(ctype), offsetof(ctype, i) + sizeof(int) }
static const struct pair pairs[] = {
    P(MPI_FLOAT_INT, struct float_int, sizeof(float)),
    P(MPI_DOUBLE_INT, struct double_int, sizeof(double)),
    P(MPI_LONG_INT, struct long_int, sizeof(long)),
    P(MPI_SHORT_INT, struct short_int, sizeof(short)),
    P(MPI_LONG_DOUBLE_INT, struct long_double_int, 10 + 6), /* 80-bit value in 16 bytes */
    {MPI_2INT, "MPI_2INT", 8, 8, 8},
    {MPI_2INTEGER, "MPI_2INTEGER", 8, 8, 8},
    {MPI_2REAL, "MPI_2REAL", 8, 8, 8},
    {MPI_2DOUBLE_PRECISION, "MPI_2DOUBLE_PRECISION", 16, 16, 16},
};

static void check_type(MPI_Datatype t, const char *name, MPI_Aint size, MPI_Aint extent,
                       MPI_Aint true_extent) {
  MPI_Aint lb = -1, ext = -1, tlb = -1, text = -1;
  MPI_Count csize = -1, clb = -1, cext = -1;
  int isize = -1, len = -1, ni = -1, na = -1, nd = -1, combiner = -1;
  char got[MPI_MAX_OBJECT_NAME];
  MPI_Type_size(t, &isize);
  MPI_Type_size_c(t, &csize);
  MPI_Type_get_extent(t, &lb, &ext);
  MPI_Type_get_extent_x(t, &clb, &cext);
  MPI_Type_get_true_extent(t, &tlb, &text);
  MTEST_CHECK(isize == size && csize == size, "%s: size %d/%ld, want %ld", name, isize, (long)csize,
              (long)size);
  MTEST_CHECK(lb == 0 && ext == extent && clb == 0 && cext == extent,
              "%s: lb %ld extent %ld, want 0 and %ld", name, (long)lb, (long)ext, (long)extent);
  MTEST_CHECK(tlb == 0 && text == true_extent, "%s: true extent %ld, want %ld", name, (long)text,
              (long)true_extent);
  MPI_Type_get_name(t, got, &len);
  MTEST_CHECK(strcmp(got, name) == 0 && len == (int)strlen(name), "name '%s', want '%s'", got,
              name);
  MPI_Type_get_envelope(t, &ni, &na, &nd, &combiner);
  MTEST_CHECK(combiner == MPI_COMBINER_NAMED && ni == 0 && na == 0 && nd == 0,
              "%s: envelope %d %d %d combiner %d", name, ni, na, nd, combiner);
  /* Committing a predefined type is allowed and changes nothing. */
  MTEST_CHECK(MPI_Type_commit(&t) == MPI_SUCCESS, "%s: commit", name);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  for (size_t i = 0; i < sizeof basics / sizeof basics[0]; i++)
    check_type(basics[i].type, basics[i].name, basics[i].size, basics[i].size, basics[i].size);
  for (size_t i = 0; i < sizeof pairs / sizeof pairs[0]; i++)
    check_type(pairs[i].type, pairs[i].name, pairs[i].size, pairs[i].extent, pairs[i].true_extent);
  MTEST_CHECK(MPI_LONG_LONG == MPI_LONG_LONG_INT && MPI_C_COMPLEX == MPI_C_FLOAT_COMPLEX,
              "aliases are the same handles");

  /* MPI_Type_match_size gives the Fortran types of explicit size (as MPICH does). */
  MPI_Datatype m = MPI_DATATYPE_NULL;
  MPI_Type_match_size(MPI_TYPECLASS_REAL, 8, &m);
  MTEST_CHECK(m == MPI_REAL8, "match real 8: %#x", m);
  MPI_Type_match_size(MPI_TYPECLASS_INTEGER, 4, &m);
  MTEST_CHECK(m == MPI_INTEGER4, "match integer 4: %#x", m);
  MPI_Type_match_size(MPI_TYPECLASS_COMPLEX, 16, &m);
  MTEST_CHECK(m == MPI_COMPLEX16, "match complex 16: %#x", m);

  /* A name can be given to a predefined type too. */
  int len;
  char name[MPI_MAX_OBJECT_NAME];
  MPI_Type_set_name(MPI_BYTE, "octet");
  MPI_Type_get_name(MPI_BYTE, name, &len);
  MTEST_CHECK(strcmp(name, "octet") == 0, "renamed MPI_BYTE is '%s'", name);
  MPI_Type_set_name(MPI_BYTE, "MPI_BYTE");
  return mtest_finalize();
}

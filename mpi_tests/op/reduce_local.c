/* MPI_Reduce_local with every predefined op on every predefined type: the pairs the standard
 * defines give the result of a plain C reference, the others fail with MPI_ERR_OP and leave
 * inoutbuf alone. Then derived types made of one basic type, and the _c form. */
#include <complex.h>
#include <stdint.h>
#include <string.h>
#include <wchar.h>

#include "mtest.h"

enum { N = 11 };
enum { MAX, MIN, SUM, PROD, LAND, BAND, LOR, BOR, LXOR, BXOR, MINLOC, MAXLOC, NOPS };
static const MPI_Op ops[NOPS] = {MPI_MAX, MPI_MIN, MPI_SUM,  MPI_PROD, MPI_LAND,   MPI_BAND,
                                 MPI_LOR, MPI_BOR, MPI_LXOR, MPI_BXOR, MPI_MINLOC, MPI_MAXLOC};
static const char *names[NOPS] = {"MPI_MAX",  "MPI_MIN",  "MPI_SUM",    "MPI_PROD",
                                  "MPI_LAND", "MPI_BAND", "MPI_LOR",    "MPI_BOR",
                                  "MPI_LXOR", "MPI_BXOR", "MPI_MINLOC", "MPI_MAXLOC"};

typedef _Complex float __attribute__((mode(TC))) complex128;

/* Runs op `o` on N elements of `type`. Returns 1 when the caller should compare the result
 * (the op is defined and succeeded); checks refusals itself. */
static int run(MPI_Datatype type, const char *tname, int o, const void *in, void *io, size_t bytes,
               int defined) {
  unsigned char before[N * 64];
  memcpy(before, io, bytes);
  int rc = MPI_Reduce_local(in, io, N, type, ops[o]);
  if (defined) {
    MTEST_CHECK(rc == MPI_SUCCESS, "%s on %s failed (%d)", names[o], tname, rc);
    return rc == MPI_SUCCESS;
  }
  int cls = -1;
  MPI_Error_class(rc, &cls);
  MTEST_CHECK(cls == MPI_ERR_OP, "%s on %s: class %d, want MPI_ERR_OP", names[o], tname, cls);
  MTEST_CHECK(memcmp(before, io, bytes) == 0, "%s on %s changed inoutbuf", names[o], tname);
  return 0;
}

static int logical(int o) { return o == LAND || o == LOR || o == LXOR; }

/* Integers: every op but MINLOC/MAXLOC (Fortran INTEGER: not the logical ops); arithmetic
 * wraps around. */
#define INT_TEST(T, type, fortran)                                              \
  do {                                                                          \
    T in[N], io[N], orig[N];                                                    \
    for (int i = 0; i < N; ++i) {                                               \
      in[i] = (T)(i * 73 - 300);                                                \
      orig[i] = (T)(i % 4 == 0 ? 0 : 1000 - i * 211);                           \
    }                                                                           \
    in[1] = 0;                                                                  \
    for (int o = 0; o < NOPS; ++o) {                                            \
      memcpy(io, orig, sizeof io);                                              \
      int defined = o <= BXOR && !((fortran) && logical(o));                    \
      if (!run(type, #type, o, in, io, sizeof io, defined)) continue;           \
      for (int i = 0; i < N; ++i) {                                             \
        T a = in[i], b = orig[i], want = 0;                                     \
        switch (o) {                                                            \
          case MAX:                                                             \
            want = a > b ? a : b;                                               \
            break;                                                              \
          case MIN:                                                             \
            want = a < b ? a : b;                                               \
            break;                                                              \
          case SUM:                                                             \
            want = (T)((unsigned long long)a + (unsigned long long)b);          \
            break;                                                              \
          case PROD:                                                            \
            want = (T)((unsigned long long)a * (unsigned long long)b);          \
            break;                                                              \
          case LAND:                                                            \
            want = (T)(a && b);                                                 \
            break;                                                              \
          case BAND:                                                            \
            want = (T)(a & b);                                                  \
            break;                                                              \
          case LOR:                                                             \
            want = (T)(a || b);                                                 \
            break;                                                              \
          case BOR:                                                             \
            want = (T)(a | b);                                                  \
            break;                                                              \
          case LXOR:                                                            \
            want = (T)(!a != !b);                                               \
            break;                                                              \
          case BXOR:                                                            \
            want = (T)(a ^ b);                                                  \
            break;                                                              \
        }                                                                       \
        MTEST_CHECK(io[i] == want, "%s on %s, element %d", names[o], #type, i); \
      }                                                                         \
    }                                                                           \
  } while (0)

/* Floating point: MAX, MIN, SUM, PROD, on values exact in every precision. */
#define FLOAT_TEST(T, type)                                                     \
  do {                                                                          \
    T in[N], io[N], orig[N];                                                    \
    for (int i = 0; i < N; ++i) {                                               \
      in[i] = (T)((i - 5) * 0.75);                                              \
      orig[i] = (T)((3 - i) * 1.5);                                             \
    }                                                                           \
    for (int o = 0; o < NOPS; ++o) {                                            \
      memcpy(io, orig, sizeof io);                                              \
      if (!run(type, #type, o, in, io, sizeof io, o <= PROD)) continue;         \
      for (int i = 0; i < N; ++i) {                                             \
        T a = in[i], b = orig[i];                                               \
        T want = o == MAX   ? (a > b ? a : b)                                   \
                 : o == MIN ? (a < b ? a : b)                                   \
                 : o == SUM ? (T)(a + b)                                        \
                            : (T)(a * b);                                       \
        MTEST_CHECK(io[i] == want, "%s on %s, element %d", names[o], #type, i); \
      }                                                                         \
    }                                                                           \
  } while (0)

/* Complex: SUM and PROD. */
#define COMPLEX_TEST(T, type)                                                       \
  do {                                                                              \
    T in[N], io[N], orig[N];                                                        \
    for (int i = 0; i < N; ++i) {                                                   \
      in[i] = (T)((i - 5) + 2.0 * I * (i % 3));                                     \
      orig[i] = (T)((3 - i) * 0.5 - 1.0 * I * (i - 4));                             \
    }                                                                               \
    for (int o = 0; o < NOPS; ++o) {                                                \
      memcpy(io, orig, sizeof io);                                                  \
      if (!run(type, #type, o, in, io, sizeof io, o == SUM || o == PROD)) continue; \
      for (int i = 0; i < N; ++i) {                                                 \
        T want = o == SUM ? in[i] + orig[i] : in[i] * orig[i];                      \
        MTEST_CHECK(io[i] == want, "%s on %s, element %d", names[o], #type, i);     \
      }                                                                             \
    }                                                                               \
  } while (0)

/* Logical types: LAND, LOR, LXOR; any non-zero value is true (MPI_LOGICAL). */
#define LOGICAL_TEST(T, type, t1, t2)                                              \
  do {                                                                             \
    T in[N], io[N], orig[N];                                                       \
    for (int i = 0; i < N; ++i) {                                                  \
      in[i] = (T)(i % 2 ? t1 : 0);                                                 \
      orig[i] = (T)(i % 3 ? t2 : 0);                                               \
    }                                                                              \
    for (int o = 0; o < NOPS; ++o) {                                               \
      memcpy(io, orig, sizeof io);                                                 \
      if (!run(type, #type, o, in, io, sizeof io, logical(o))) continue;           \
      for (int i = 0; i < N; ++i) {                                                \
        int a = in[i] != 0, b = orig[i] != 0;                                      \
        int want = o == LAND ? (a && b) : o == LOR ? (a || b) : (a != b);          \
        MTEST_CHECK(io[i] == (T)want, "%s on %s, element %d", names[o], #type, i); \
      }                                                                            \
    }                                                                              \
  } while (0)

/* Value-and-index pairs: MINLOC, MAXLOC; equal values keep the smaller index. */
#define PAIR_TEST(V, J, type)                                                                 \
  do {                                                                                        \
    struct {                                                                                  \
      V v;                                                                                    \
      J k;                                                                                    \
    } in[N], io[N], orig[N];                                                                  \
    memset(in, 0, sizeof in);                                                                 \
    memset(orig, 0, sizeof orig);                                                             \
    for (int i = 0; i < N; ++i) {                                                             \
      in[i].v = (V)(i % 3);                                                                   \
      in[i].k = (J)(i * 7 % 5);                                                               \
      orig[i].v = (V)(2 - i % 4);                                                             \
      orig[i].k = (J)(i * 3 % 4);                                                             \
    }                                                                                         \
    for (int o = 0; o < NOPS; ++o) {                                                          \
      memcpy(io, orig, sizeof io);                                                            \
      if (!run(type, #type, o, in, io, sizeof io, o == MINLOC || o == MAXLOC)) continue;      \
      for (int i = 0; i < N; ++i) {                                                           \
        V a = in[i].v, b = orig[i].v;                                                         \
        int in_wins = o == MAXLOC ? a > b : a < b;                                            \
        V want_v = in_wins ? a : b;                                                           \
        J want_k = a == b    ? (in[i].k < orig[i].k ? in[i].k : orig[i].k)                    \
                   : in_wins ? in[i].k                                                        \
                             : orig[i].k;                                                     \
        MTEST_CHECK(io[i].v == want_v && io[i].k == want_k, "%s on %s, element %d", names[o], \
                    #type, i);                                                                \
      }                                                                                       \
    }                                                                                         \
  } while (0)

/* Types no reduction op takes. */
#define NONE_TEST(T, type)                                                    \
  do {                                                                        \
    T in[N], io[N];                                                           \
    memset(in, 1, sizeof in);                                                 \
    memset(io, 2, sizeof io);                                                 \
    for (int o = 0; o < NOPS; ++o) run(type, #type, o, in, io, sizeof io, 0); \
  } while (0)

static void predefined_types(void) {
  INT_TEST(char, MPI_CHAR, 0); /* a small integer, as in Open MPI and MPICH */
  INT_TEST(signed char, MPI_SIGNED_CHAR, 0);
  INT_TEST(unsigned char, MPI_UNSIGNED_CHAR, 0);
  INT_TEST(short, MPI_SHORT, 0);
  INT_TEST(unsigned short, MPI_UNSIGNED_SHORT, 0);
  INT_TEST(int, MPI_INT, 0);
  INT_TEST(unsigned, MPI_UNSIGNED, 0);
  INT_TEST(long, MPI_LONG, 0);
  INT_TEST(unsigned long, MPI_UNSIGNED_LONG, 0);
  INT_TEST(long long, MPI_LONG_LONG, 0);
  INT_TEST(unsigned long long, MPI_UNSIGNED_LONG_LONG, 0);
  INT_TEST(int8_t, MPI_INT8_T, 0);
  INT_TEST(int16_t, MPI_INT16_T, 0);
  INT_TEST(int32_t, MPI_INT32_T, 0);
  INT_TEST(int64_t, MPI_INT64_T, 0);
  INT_TEST(uint8_t, MPI_UINT8_T, 0);
  INT_TEST(uint16_t, MPI_UINT16_T, 0);
  INT_TEST(uint32_t, MPI_UINT32_T, 0);
  INT_TEST(uint64_t, MPI_UINT64_T, 0);
  INT_TEST(MPI_Aint, MPI_AINT, 0);
  INT_TEST(MPI_Offset, MPI_OFFSET, 0);
  INT_TEST(MPI_Count, MPI_COUNT, 0);
  INT_TEST(int, MPI_INTEGER, 1);
  INT_TEST(int8_t, MPI_INTEGER1, 1);
  INT_TEST(int16_t, MPI_INTEGER2, 1);
  INT_TEST(int32_t, MPI_INTEGER4, 1);
  INT_TEST(int64_t, MPI_INTEGER8, 1);
  FLOAT_TEST(float, MPI_FLOAT);
  FLOAT_TEST(double, MPI_DOUBLE);
  FLOAT_TEST(long double, MPI_LONG_DOUBLE);
  FLOAT_TEST(float, MPI_REAL);
  FLOAT_TEST(double, MPI_DOUBLE_PRECISION);
  FLOAT_TEST(float, MPI_REAL4);
  FLOAT_TEST(double, MPI_REAL8);
  FLOAT_TEST(__float128, MPI_REAL16);
#if defined(__FLT16_MAX__) && !(defined(__clang__) && __clang_major__ < 15)
  FLOAT_TEST(_Float16, MPIX_C_FLOAT16);
#endif
  COMPLEX_TEST(float _Complex, MPI_C_FLOAT_COMPLEX);
  COMPLEX_TEST(double _Complex, MPI_C_DOUBLE_COMPLEX);
  COMPLEX_TEST(long double _Complex, MPI_C_LONG_DOUBLE_COMPLEX);
  COMPLEX_TEST(float _Complex, MPI_CXX_FLOAT_COMPLEX);
  COMPLEX_TEST(double _Complex, MPI_CXX_DOUBLE_COMPLEX);
  COMPLEX_TEST(long double _Complex, MPI_CXX_LONG_DOUBLE_COMPLEX);
  COMPLEX_TEST(float _Complex, MPI_COMPLEX);
  COMPLEX_TEST(double _Complex, MPI_DOUBLE_COMPLEX);
  COMPLEX_TEST(float _Complex, MPI_COMPLEX8);
  COMPLEX_TEST(double _Complex, MPI_COMPLEX16);
  COMPLEX_TEST(complex128, MPI_COMPLEX32);
  LOGICAL_TEST(_Bool, MPI_C_BOOL, 1, 1);
  LOGICAL_TEST(_Bool, MPI_CXX_BOOL, 1, 1);
  LOGICAL_TEST(int, MPI_LOGICAL, 2, -1);
  NONE_TEST(wchar_t, MPI_WCHAR);
  NONE_TEST(char, MPI_PACKED);
  PAIR_TEST(float, int, MPI_FLOAT_INT);
  PAIR_TEST(double, int, MPI_DOUBLE_INT);
  PAIR_TEST(long, int, MPI_LONG_INT);
  PAIR_TEST(short, int, MPI_SHORT_INT);
  PAIR_TEST(long double, int, MPI_LONG_DOUBLE_INT);
  PAIR_TEST(int, int, MPI_2INT);
  PAIR_TEST(int, int, MPI_2INTEGER);
  PAIR_TEST(float, float, MPI_2REAL);
  PAIR_TEST(double, double, MPI_2DOUBLE_PRECISION);
  /* MPI_BYTE: the bitwise ops only. */
  unsigned char in[N], io[N], orig[N];
  for (int i = 0; i < N; ++i) in[i] = (unsigned char)(i * 29), orig[i] = (unsigned char)(200 - i);
  for (int o = 0; o < NOPS; ++o) {
    memcpy(io, orig, sizeof io);
    if (!run(MPI_BYTE, "MPI_BYTE", o, in, io, sizeof io, o == BAND || o == BOR || o == BXOR))
      continue;
    for (int i = 0; i < N; ++i) {
      unsigned char want = o == BAND  ? in[i] & orig[i]
                           : o == BOR ? in[i] | orig[i]
                                      : in[i] ^ orig[i];
      MTEST_CHECK(io[i] == want, "%s on MPI_BYTE, element %d", names[o], i);
    }
  }
}

/* Derived types made of one basic type reduce element by element; the gaps stay. */
static void derived_types(void) {
  MPI_Datatype vec, pairs;
  MPI_Type_vector(3, 2, 3, MPI_INT, &vec); /* elements 0 1 . 3 4 . 6 7, extent 8 ints */
  MPI_Type_commit(&vec);
  int in[16], io[16];
  for (int i = 0; i < 16; ++i) in[i] = 100 * i, io[i] = i;
  MTEST_CHECK(MPI_Reduce_local(in, io, 2, vec, MPI_SUM) == MPI_SUCCESS, "vector sum");
  for (int i = 0; i < 16; ++i) {
    int gap = i % 8 == 2 || i % 8 == 5;
    MTEST_CHECK(io[i] == (gap ? i : 101 * i), "vector sum element %d: %d", i, io[i]);
  }
  MPI_Type_contiguous(3, MPI_DOUBLE_INT, &pairs); /* padded pairs, packed through scratch */
  MPI_Type_commit(&pairs);
  struct {
    double v;
    int k;
  } a[6] = {{1, 4}, {5, 1}, {2, 2}, {7, 0}, {3, 3}, {3, 9}},
    b[6] = {{1, 2}, {4, 0}, {9, 1}, {7, 5}, {0, 0}, {3, 8}};
  MTEST_CHECK(MPI_Reduce_local(a, b, 2, pairs, MPI_MAXLOC) == MPI_SUCCESS, "pair maxloc");
  const double want_v[6] = {1, 5, 9, 7, 3, 3};
  const int want_k[6] = {2, 1, 1, 0, 3, 8};
  for (int i = 0; i < 6; ++i)
    MTEST_CHECK(b[i].v == want_v[i] && b[i].k == want_k[i], "pair %d: %g %d", i, b[i].v, b[i].k);
  MPI_Type_free(&vec);
  MPI_Type_free(&pairs);
}

static void large_count_form(void) {
  double in[5] = {1, 2, 3, 4, 5}, io[5] = {10, 10, 10, 10, 10};
  MTEST_CHECK(MPI_Reduce_local_c(in, io, (MPI_Count)5, MPI_DOUBLE, MPI_PROD) == MPI_SUCCESS,
              "MPI_Reduce_local_c");
  for (int i = 0; i < 5; ++i) MTEST_CHECK(io[i] == 10.0 * (i + 1), "element %d", i);
  MTEST_CHECK(MPI_Reduce_local(NULL, NULL, 0, MPI_INT, MPI_SUM) == MPI_SUCCESS,
              "count 0 with null buffers");
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  predefined_types();
  derived_types();
  large_count_form();
  return mtest_finalize();
}

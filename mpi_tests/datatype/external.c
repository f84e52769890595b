/* MPI_Pack_external / MPI_Unpack_external / MPI_Pack_external_size ("external32"): the bytes
 * are big-endian with the standard's sizes (long takes 4), and unpack restores the values. */
#include <string.h>

#include "mtest.h"

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int ints[2] = {0x01020304, -2};
  unsigned char out[64];
  MPI_Aint position = 0, size = 0;
  MPI_Pack_external_size("external32", 2, MPI_INT, &size);
  MTEST_CHECK(size == 8, "external32 size of 2 ints is %ld", (long)size);
  MPI_Pack_external("external32", ints, 2, MPI_INT, out, sizeof out, &position);
  static const unsigned char want_ints[8] = {1, 2, 3, 4, 0xff, 0xff, 0xff, 0xfe};
  MTEST_CHECK(position == 8 && memcmp(out, want_ints, 8) == 0, "ints packed to external32");

  /* A vector of longs: each long takes 4 bytes. */
  long longs[6] = {-3, 99, 5, 99, 1L << 20, 99};
  MPI_Datatype every_other;
  MPI_Type_vector(3, 1, 2, MPI_LONG, &every_other);
  MPI_Type_commit(&every_other);
  MPI_Pack_external_size("external32", 1, every_other, &size);
  MTEST_CHECK(size == 12, "external32 size of 3 longs is %ld", (long)size);
  MPI_Pack_external("external32", longs, 1, every_other, out, sizeof out, &position);
  static const unsigned char want_longs[12] = {0xff, 0xff, 0xff, 0xfd, 0, 0, 0, 5, 0, 0x10, 0, 0};
  MTEST_CHECK(position == 20 && memcmp(out + 8, want_longs, 12) == 0, "longs packed");

  /* Unpack both back, into fresh buffers. */
  int ints_back[2] = {0, 0};
  long longs_back[6] = {0};
  MPI_Aint in = 0;
  MPI_Unpack_external("external32", out, position, &in, ints_back, 2, MPI_INT);
  MPI_Unpack_external("external32", out, position, &in, longs_back, 1, every_other);
  MTEST_CHECK(in == 20, "unpack position %ld", (long)in);
  MTEST_CHECK(ints_back[0] == ints[0] && ints_back[1] == ints[1], "ints back");
  MTEST_CHECK(
      longs_back[0] == -3 && longs_back[2] == 5 && longs_back[4] == 1L << 20 && longs_back[1] == 0,
      "longs back: %ld %ld %ld", longs_back[0], longs_back[2], longs_back[4]);

  /* The _c forms, with a double. */
  double d = 1.0, d_back = 0;
  MPI_Count cpos = 0, csize = 0, cin = 0;
  MPI_Pack_external_size_c("external32", 1, MPI_DOUBLE, &csize);
  MPI_Pack_external_c("external32", &d, 1, MPI_DOUBLE, out, sizeof out, &cpos);
  MTEST_CHECK(csize == 8 && cpos == 8 && out[0] == 0x3f && out[1] == 0xf0 && out[7] == 0,
              "double 1.0 is 3f f0 00 ...");
  MPI_Unpack_external_c("external32", out, cpos, &cin, &d_back, 1, MPI_DOUBLE);
  MTEST_CHECK(d_back == 1.0, "double back %g", d_back);

  /* Errors: unknown representation, no room. */
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  int cls = -1;
  position = 0;
  MPI_Error_class(MPI_Pack_external("native", ints, 2, MPI_INT, out, sizeof out, &position), &cls);
  MTEST_CHECK(cls == MPI_ERR_ARG, "datarep \"native\": class %d", cls);
  MPI_Error_class(MPI_Pack_external("external32", ints, 2, MPI_INT, out, 6, &position), &cls);
  MTEST_CHECK(cls == MPI_ERR_TRUNCATE, "6 bytes for 8: class %d", cls);
  in = 0;
  MPI_Error_class(MPI_Unpack_external("external32", out, 4, &in, ints_back, 2, MPI_INT), &cls);
  MTEST_CHECK(cls == MPI_ERR_TRUNCATE, "unpack 8 from 4: class %d", cls);
  MPI_Type_free(&every_other);
  return mtest_finalize();
}

// The external32 representation: big-endian bytes of known values, the narrowed integer
// types, long double as binary128, and round trips of mixed structs.
#include "runtime/core/datatype_external.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

#include "runtime/core/datatype_build.h"

namespace gpurun::core {
namespace {

std::vector<std::uint8_t> external(const Datatype& t, std::int64_t count, const void* native) {
  std::vector<std::uint8_t> out(static_cast<std::size_t>(count * t.external32_size()));
  to_external32(t, count, static_cast<const std::byte*>(native),
                reinterpret_cast<std::byte*>(out.data()));
  return out;
}

template <class T>
T back(const Datatype& t, const std::vector<std::uint8_t>& ext) {
  T value{};
  from_external32(t, 1, reinterpret_cast<const std::byte*>(ext.data()),
                  reinterpret_cast<std::byte*>(&value));
  return value;
}

using Bytes = std::vector<std::uint8_t>;

TEST(DatatypeExternal, ScalarsAreBigEndian) {
  DatatypeRef i = Datatype::predefined(BasicType::kInt32, 4, "int");
  DatatypeRef d = Datatype::predefined(BasicType::kDouble, 8, "double");
  DatatypeRef s = Datatype::predefined(BasicType::kInt16, 2, "short");
  std::int32_t iv = 0x01020304;
  double dv = -0.1;
  std::int16_t sv = -2;
  EXPECT_EQ(external(*i, 1, &iv), (Bytes{1, 2, 3, 4}));
  EXPECT_EQ(external(*d, 1, &dv), (Bytes{0xbf, 0xb9, 0x99, 0x99, 0x99, 0x99, 0x99, 0x9a}));
  EXPECT_EQ(external(*s, 1, &sv), (Bytes{0xff, 0xfe}));
  EXPECT_EQ(back<double>(*d, external(*d, 1, &dv)), dv);
}

// C long and wchar_t are narrower in external32: 4 and 2 bytes.
TEST(DatatypeExternal, LongIsFourBytes) {
  DatatypeRef l = Datatype::predefined(BasicType::kInt64, 8, "long", 4);
  DatatypeRef ul = Datatype::predefined(BasicType::kUint64, 8, "unsigned long", 4);
  long values[2] = {-3, 0x7fffffff};
  EXPECT_EQ(external(*l, 2, values), (Bytes{0xff, 0xff, 0xff, 0xfd, 0x7f, 0xff, 0xff, 0xff}));
  EXPECT_EQ(back<long>(*l, Bytes{0xff, 0xff, 0xff, 0xfd}), -3) << "sign-extended";
  EXPECT_EQ(back<unsigned long>(*ul, Bytes{0xff, 0xff, 0xff, 0xfd}), 0xfffffffdul)
      << "zero-extended";
}

TEST(DatatypeExternal, LongDoubleIsBinary128) {
  DatatypeRef ld = Datatype::predefined(BasicType::kLongDouble, 16, "long double");
  long double v = 3.25L;
  Bytes want(16, 0);
  want[0] = 0x40;
  want[2] = 0xa0;
  EXPECT_EQ(external(*ld, 1, &v), want);
  const long double specials[] = {0.0L,
                                  -0.0L,
                                  1.0L / 3,
                                  -1e300L,
                                  std::numeric_limits<long double>::infinity(),
                                  std::numeric_limits<long double>::denorm_min(),
                                  std::numeric_limits<long double>::max()};
  for (long double x : specials) {
    long double y = back<long double>(*ld, external(*ld, 1, &x));
    EXPECT_EQ(std::memcmp(&x, &y, 10), 0) << "value " << static_cast<double>(x);
  }
  long double nan = std::numeric_limits<long double>::quiet_NaN();
  EXPECT_TRUE(std::isnan(back<long double>(*ld, external(*ld, 1, &nan))));
}

TEST(DatatypeExternal, MixedStructRoundTrips) {
  DatatypeRef c = Datatype::predefined(BasicType::kChar, 1, "char");
  DatatypeRef l = Datatype::predefined(BasicType::kInt64, 8, "long", 4);
  DatatypeRef z = Datatype::predefined(BasicType::kDoubleComplex, 16, "double complex");
  struct S {
    char c;
    long l[2];
    double z[2];
  };
  const std::int64_t lengths[] = {1, 2, 1};
  const std::int64_t disps[] = {offsetof(S, c), offsetof(S, l), offsetof(S, z)};
  const Datatype* types[] = {c.get(), l.get(), z.get()};
  DatatypeRef st = std::move(make_struct(lengths, disps, types).value());
  DatatypeRef v = std::move(make_contiguous(3, *st).value());
  v->commit();
  EXPECT_EQ(v->external32_size(), 3 * (1 + 8 + 16));
  S in[3] = {{'x', {-1, 5}, {1.5, -2.0}}, {'y', {7, -8}, {0.25, 4.0}}, {'z', {0, 1}, {-0.5, 8}}};
  std::vector<std::byte> native(static_cast<std::size_t>(v->size()));
  v->pack(in, 1, 0, native.data(), native.size());
  Bytes ext = external(*v, 1, native.data());
  EXPECT_EQ(ext[0], 'x');
  EXPECT_EQ((Bytes{ext[1], ext[2], ext[3], ext[4]}), (Bytes{0xff, 0xff, 0xff, 0xff}));
  EXPECT_EQ(ext[9], 0x3f);  // 1.5, big-endian: 3f f8 ...
  EXPECT_EQ(ext[10], 0xf8);
  std::vector<std::byte> again(native.size());
  from_external32(*v, 1, reinterpret_cast<const std::byte*>(ext.data()), again.data());
  S out[3] = {};
  v->unpack(out, 1, 0, again.data(), again.size());
  for (int k = 0; k < 3; ++k) {
    EXPECT_EQ(out[k].c, in[k].c);
    EXPECT_EQ(out[k].l[0], in[k].l[0]);
    EXPECT_EQ(out[k].l[1], in[k].l[1]);
    EXPECT_EQ(out[k].z[0], in[k].z[0]);
    EXPECT_EQ(out[k].z[1], in[k].z[1]);
  }
}

}  // namespace
}  // namespace gpurun::core

#include "api/datatypes.h"

#include <array>

#include "api/coll_repeat.h"
#include "api/handle.h"
#include "runtime/base/status.h"
#include "runtime/core/datatype_build.h"

namespace gpurun::api {
namespace {

using core::BasicType;

struct Basic {
  MPI_Datatype handle;
  BasicType basic;
  const char* name;
  std::int64_t external32_size = 0;  // 0: the native size
};

// Every predefined type of one basic element. The size is in the handle (bits 8-15); the
// external32 size differs for three types (the standard fixes C long at 4 bytes, wchar_t at 2).
constexpr Basic kBasics[] = {
    {MPI_CHAR, BasicType::kChar, "MPI_CHAR"},
    {MPI_SIGNED_CHAR, BasicType::kInt8, "MPI_SIGNED_CHAR"},
    {MPI_UNSIGNED_CHAR, BasicType::kUint8, "MPI_UNSIGNED_CHAR"},
    {MPI_WCHAR, BasicType::kWchar, "MPI_WCHAR", 2},
    {MPI_SHORT, BasicType::kInt16, "MPI_SHORT"},
    {MPI_UNSIGNED_SHORT, BasicType::kUint16, "MPI_UNSIGNED_SHORT"},
    {MPI_INT, BasicType::kInt32, "MPI_INT"},
    {MPI_UNSIGNED, BasicType::kUint32, "MPI_UNSIGNED"},
    {MPI_LONG, BasicType::kInt64, "MPI_LONG", 4},
    {MPI_UNSIGNED_LONG, BasicType::kUint64, "MPI_UNSIGNED_LONG", 4},
    {MPI_LONG_LONG_INT, BasicType::kInt64, "MPI_LONG_LONG_INT"},
    {MPI_UNSIGNED_LONG_LONG, BasicType::kUint64, "MPI_UNSIGNED_LONG_LONG"},
    {MPI_FLOAT, BasicType::kFloat, "MPI_FLOAT"},
    {MPI_DOUBLE, BasicType::kDouble, "MPI_DOUBLE"},
    {MPI_LONG_DOUBLE, BasicType::kLongDouble, "MPI_LONG_DOUBLE"},
    {MPI_BYTE, BasicType::kByte, "MPI_BYTE"},
    {MPI_PACKED, BasicType::kPacked, "MPI_PACKED"},
    {MPI_INT8_T, BasicType::kInt8, "MPI_INT8_T"},
    {MPI_INT16_T, BasicType::kInt16, "MPI_INT16_T"},
    {MPI_INT32_T, BasicType::kInt32, "MPI_INT32_T"},
    {MPI_INT64_T, BasicType::kInt64, "MPI_INT64_T"},
    {MPI_UINT8_T, BasicType::kUint8, "MPI_UINT8_T"},
    {MPI_UINT16_T, BasicType::kUint16, "MPI_UINT16_T"},
    {MPI_UINT32_T, BasicType::kUint32, "MPI_UINT32_T"},
    {MPI_UINT64_T, BasicType::kUint64, "MPI_UINT64_T"},
    {MPI_C_BOOL, BasicType::kBool, "MPI_C_BOOL"},
    {MPI_C_FLOAT_COMPLEX, BasicType::kFloatComplex, "MPI_C_FLOAT_COMPLEX"},
    {MPI_C_DOUBLE_COMPLEX, BasicType::kDoubleComplex, "MPI_C_DOUBLE_COMPLEX"},
    {MPI_C_LONG_DOUBLE_COMPLEX, BasicType::kLongDoubleComplex, "MPI_C_LONG_DOUBLE_COMPLEX"},
    {MPIX_C_FLOAT16, BasicType::kFloat16, "MPIX_C_FLOAT16"},
    {MPIX_BFLOAT16, BasicType::kBfloat16, "MPIX_BFLOAT16"},
    {MPI_AINT, BasicType::kInt64, "MPI_AINT"},
    {MPI_OFFSET, BasicType::kInt64, "MPI_OFFSET"},
    {MPI_COUNT, BasicType::kInt64, "MPI_COUNT"},
    {MPI_CXX_BOOL, BasicType::kBool, "MPI_CXX_BOOL"},
    {MPI_CXX_FLOAT_COMPLEX, BasicType::kFloatComplex, "MPI_CXX_FLOAT_COMPLEX"},
    {MPI_CXX_DOUBLE_COMPLEX, BasicType::kDoubleComplex, "MPI_CXX_DOUBLE_COMPLEX"},
    {MPI_CXX_LONG_DOUBLE_COMPLEX, BasicType::kLongDoubleComplex, "MPI_CXX_LONG_DOUBLE_COMPLEX"},
    {MPI_CHARACTER, BasicType::kChar, "MPI_CHARACTER"},
    {MPI_LOGICAL, BasicType::kLogical, "MPI_LOGICAL"},
    {MPI_INTEGER, BasicType::kInt32, "MPI_INTEGER"},
    {MPI_REAL, BasicType::kFloat, "MPI_REAL"},
    {MPI_DOUBLE_PRECISION, BasicType::kDouble, "MPI_DOUBLE_PRECISION"},
    {MPI_COMPLEX, BasicType::kFloatComplex, "MPI_COMPLEX"},
    {MPI_DOUBLE_COMPLEX, BasicType::kDoubleComplex, "MPI_DOUBLE_COMPLEX"},
    {MPI_INTEGER1, BasicType::kInt8, "MPI_INTEGER1"},
    {MPI_INTEGER2, BasicType::kInt16, "MPI_INTEGER2"},
    {MPI_INTEGER4, BasicType::kInt32, "MPI_INTEGER4"},
    {MPI_INTEGER8, BasicType::kInt64, "MPI_INTEGER8"},
    {MPI_REAL4, BasicType::kFloat, "MPI_REAL4"},
    {MPI_REAL8, BasicType::kDouble, "MPI_REAL8"},
    {MPI_REAL16, BasicType::kFloat128, "MPI_REAL16"},
    {MPI_COMPLEX8, BasicType::kFloatComplex, "MPI_COMPLEX8"},
    {MPI_COMPLEX16, BasicType::kDoubleComplex, "MPI_COMPLEX16"},
    {MPI_COMPLEX32, BasicType::kFloat128Complex, "MPI_COMPLEX32"},
};

// The value-and-index pairs: a value at 0 and an index (or second value) after it, laid out
// as C lays out the struct.
struct Pair {
  MPI_Datatype handle;
  BasicType basic;
  const char* name;
  MPI_Datatype first;
  MPI_Datatype second;
  std::int64_t second_disp;
};

constexpr Pair kPairs[] = {
    {MPI_FLOAT_INT, BasicType::kFloatInt, "MPI_FLOAT_INT", MPI_FLOAT, MPI_INT, 4},
    {MPI_DOUBLE_INT, BasicType::kDoubleInt, "MPI_DOUBLE_INT", MPI_DOUBLE, MPI_INT, 8},
    {MPI_LONG_INT, BasicType::kLongInt, "MPI_LONG_INT", MPI_LONG, MPI_INT, 8},
    {MPI_SHORT_INT, BasicType::kShortInt, "MPI_SHORT_INT", MPI_SHORT, MPI_INT, 4},
    {MPI_LONG_DOUBLE_INT, BasicType::kLongDoubleInt, "MPI_LONG_DOUBLE_INT", MPI_LONG_DOUBLE,
     MPI_INT, 16},
    {MPI_2INT, BasicType::kTwoInt, "MPI_2INT", MPI_INT, MPI_INT, 4},
    {MPI_2INTEGER, BasicType::kTwoInt, "MPI_2INTEGER", MPI_INTEGER, MPI_INTEGER, 4},
    {MPI_2REAL, BasicType::kTwoFloat, "MPI_2REAL", MPI_REAL, MPI_REAL, 4},
    {MPI_2DOUBLE_PRECISION, BasicType::kTwoDouble, "MPI_2DOUBLE_PRECISION", MPI_DOUBLE_PRECISION,
     MPI_DOUBLE_PRECISION, 8},
};

using detail::kBuiltinBits;
constexpr std::uint32_t kDirectBits = 0x8c000000u >> 26;    // kind direct, type datatype
constexpr std::uint32_t kIndirectBits = 0xcc000000u >> 26;  // kind indirect, type datatype
constexpr std::size_t kDirectCount = 8;

// The predefined types: builtin handles by their low byte (unique among them), direct ones by
// index. Built once, never destroyed.
struct Predefined {
  detail::BuiltinTypes builtin;
  std::array<const core::Datatype*, kDirectCount> direct{};

  void add(MPI_Datatype handle, core::DatatypeRef type) {
    auto h = static_cast<std::uint32_t>(handle);
    const core::Datatype* t = type.get();
    t->retain();  // held for the life of the process
    if ((h >> 26) == kDirectBits) {
      direct[h & kIndexMask] = t;
    } else {
      GPURUN_ASSERT(builtin.type[h & 0xff] == nullptr);  // the low bytes of mpi.h are unique
      builtin.type[h & 0xff] = t;
      builtin.handle[h & 0xff] = handle;
    }
  }
  const core::Datatype* find(MPI_Datatype handle) const {
    auto h = static_cast<std::uint32_t>(handle);
    if ((h >> 26) == kBuiltinBits)
      return builtin.handle[h & 0xff] == handle ? builtin.type[h & 0xff] : nullptr;
    if ((h >> 26) == kDirectBits && (h & kIndexMask) < kDirectCount) return direct[h & kIndexMask];
    return nullptr;
  }
};

core::DatatypeRef make_pair(const Predefined& p, const Pair& pair) {
  const std::int64_t lengths[] = {1, 1};
  const std::int64_t disps[] = {0, pair.second_disp};
  const core::Datatype* types[] = {p.find(pair.first), p.find(pair.second)};
  core::DatatypeRef t = std::move(core::make_struct(lengths, disps, types).value());
  t->mark_predefined(pair.basic, pair.name);
  return t;
}

const Predefined& predefined() {
  static const Predefined* table = [] {
    auto* p = new Predefined();
    for (const Basic& b : kBasics) {
      std::int64_t size = (static_cast<std::uint32_t>(b.handle) >> 8) & 0xff;
      p->add(b.handle, core::Datatype::predefined(b.basic, size, b.name, b.external32_size));
    }
    for (const Pair& pair : kPairs) p->add(pair.handle, make_pair(*p, pair));
    p->add(MPI_LB, core::make_bound_marker(false, "MPI_LB"));
    p->add(MPI_UB, core::make_bound_marker(true, "MPI_UB"));
    detail::g_builtin_types.store(&p->builtin, std::memory_order_release);
    return p;
  }();
  return *table;
}

struct UserType {
  core::DatatypeRef type;
};

HandleTable<UserType>& user_types() {
  static auto* table = new HandleTable<UserType>();
  return *table;
}

}  // namespace

namespace detail {
std::atomic<const BuiltinTypes*> g_builtin_types{nullptr};

const core::Datatype* find_datatype_slow(MPI_Datatype handle) {
  auto h = static_cast<std::uint32_t>(handle);
  if ((h >> 26) == kIndirectBits) {
    const UserType* u = user_types().find(h & kIndexMask);
    return u ? u->type.get() : nullptr;
  }
  return predefined().find(handle);
}
}  // namespace detail

core::Datatype* find_mutable_datatype(MPI_Datatype handle) {
  return const_cast<core::Datatype*>(find_datatype(handle));
}

bool is_predefined_datatype(MPI_Datatype handle) { return predefined().find(handle) != nullptr; }

const core::Datatype* basic_datatype(core::BasicType basic) {
  for (const Basic& b : kBasics)
    if (b.basic == basic) return find_datatype(b.handle);
  for (const Pair& p : kPairs)
    if (p.basic == basic) return find_datatype(p.handle);
  return nullptr;
}

MPI_Datatype predefined_handle(const core::Datatype* type) {
  if (type == nullptr || !type->predefined()) return MPI_DATATYPE_NULL;
  const Predefined& p = predefined();
  for (std::size_t i = 0; i < p.builtin.type.size(); ++i)
    if (p.builtin.type[i] == type) return p.builtin.handle[i];
  for (std::size_t i = 0; i < kDirectCount; ++i)
    if (p.direct[i] == type) return make_handle(HandleKind::kDirect, ObjectType::kDatatype, i);
  return MPI_DATATYPE_NULL;
}

MPI_Datatype insert_datatype(core::DatatypeRef type) {
  std::uint32_t index = user_types().insert(std::make_unique<UserType>(UserType{std::move(type)}));
  return make_handle(HandleKind::kIndirect, ObjectType::kDatatype, index);
}

bool erase_datatype(MPI_Datatype handle) {
  auto h = static_cast<std::uint32_t>(handle);
  if ((h >> 26) != kIndirectBits || user_types().find(h & kIndexMask) == nullptr) return false;
  user_types().release(h & kIndexMask);
  forget_repeats();
  return true;
}

}  // namespace gpurun::api

// Datatypes: the layout of typed data in memory, and packing it to and from a byte stream.
//
// A committed datatype is compiled into a compact form (runs of contiguous blocks and nested
// loops, runtime/core/datatype_layout.h) so that pack/unpack move whole blocks, never an
// element at a time. pack/unpack work on any byte range of the packed stream, so that a large
// message can be moved in pipelined fragments.
//
// THIS FILE IS THE CONTRACT WITH THE PML (what it calls). The datatype engine behind it may add
// members but keeps these: size, extent, lb, true_lb, true_extent, contiguous, committed,
// predefined, basic, name, pack, unpack, count_elements, retain, release.
//
// Lifetime: a Datatype is reference counted (retain/release, atomic). Whoever holds a pointer
// across calls holds a reference: the API handle holds one, a type built from others holds one
// on each of them, and an operation in flight should hold one on the type it moves. The last
// release destroys the type. Predefined types are never destroyed.
//
// Thread-safety: the const members (pack, unpack, count_elements and the queries) may run
// concurrently on one committed type. The mutating members (commit, set_name, set_envelope)
// run under the API lock, never on a type that an operation is using.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace gpurun::core {

// The element representation of a predefined type: what reductions and MPI_Get_elements need
// to know. Several MPI types share one (MPI_INT, MPI_INT32_T and MPI_INTEGER are all kInt32).
enum class BasicType : std::uint8_t {
  kNone,  // not one basic type (derived types mixing several, the MPI_LB/MPI_UB markers)
  kInt8,
  kUint8,
  kInt16,
  kUint16,
  kInt32,
  kUint32,
  kInt64,
  kUint64,
  kFloat,
  kDouble,
  kLongDouble,  // x87 80-bit extended in 16 bytes
  kByte,
  kChar,      // C char, Fortran CHARACTER: characters, not numbers
  kWchar,     // wchar_t (4 bytes)
  kPacked,    // MPI_PACKED
  kBool,      // C _Bool, C++ bool (1 byte)
  kLogical,   // Fortran LOGICAL (4 bytes, 0 is false)
  kFloat16,   // IEEE binary16
  kBfloat16,  // bfloat16 (MPIX_BFLOAT16): binary32's upper half
  kFloat128,  // IEEE binary128 (Fortran REAL*16)
  kFloatComplex,
  kDoubleComplex,
  kLongDoubleComplex,
  kFloat128Complex,
  // Value-and-index pairs (MINLOC/MAXLOC): two basic elements each, with their C layout.
  kFloatInt,
  kDoubleInt,
  kLongInt,
  kShortInt,
  kLongDoubleInt,
  kTwoInt,     // MPI_2INT, MPI_2INTEGER
  kTwoFloat,   // MPI_2REAL
  kTwoDouble,  // MPI_2DOUBLE_PRECISION
};

// Bytes of one element of `basic` (0 for kNone).
std::int64_t basic_size(BasicType basic);
// True for the value-and-index pair types.
bool is_pair(BasicType basic);

// The constructor that made a type (MPI_Type_get_envelope's combiner).
enum class Combiner : std::uint8_t {
  kNamed,  // predefined
  kDup,
  kContiguous,
  kVector,
  kHvector,
  kIndexed,
  kHindexed,
  kIndexedBlock,
  kHindexedBlock,
  kStruct,
  kSubarray,
  kDarray,
  kResized,
  kF90Real,  // MPI_Type_create_f90_real and its kin: a predefined type chosen by precision/range
  kF90Complex,
  kF90Integer,
};

class Datatype;

// A counted reference to a Datatype (retain on copy, release on destruction).
class DatatypeRef {
 public:
  DatatypeRef() = default;
  // Adopts a reference the caller already holds (a new type starts with one).
  static DatatypeRef adopt(Datatype* type) {
    DatatypeRef r;
    r.type_ = type;
    return r;
  }
  // Takes a new reference to `type`.
  explicit DatatypeRef(const Datatype* type);
  DatatypeRef(const DatatypeRef& other) : DatatypeRef(other.type_) {}
  DatatypeRef(DatatypeRef&& other) noexcept : type_(std::exchange(other.type_, nullptr)) {}
  DatatypeRef& operator=(DatatypeRef other) noexcept {
    std::swap(type_, other.type_);
    return *this;
  }
  ~DatatypeRef();

  Datatype* get() const { return type_; }
  Datatype* operator->() const { return type_; }
  Datatype& operator*() const { return *type_; }
  explicit operator bool() const { return type_ != nullptr; }

 private:
  Datatype* type_ = nullptr;
};

// The arguments of the constructor call, as MPI_Type_get_contents returns them. `counts` holds
// the large-count (MPI_Count) arguments of the _c constructors.
struct Envelope {
  Combiner combiner = Combiner::kNamed;
  std::vector<std::int64_t> ints;
  std::vector<std::int64_t> addresses;
  std::vector<std::int64_t> counts;
  std::vector<DatatypeRef> types;
};

// `outer` x `inner` copies of a child type: the copy (o, i) starts at
// disp + o * outer_stride + i * inner_stride. A type's parts, in order, give its type map.
struct Part {
  std::int64_t disp = 0;
  std::int64_t outer = 1;
  std::int64_t outer_stride = 0;
  std::int64_t inner = 1;
  std::int64_t inner_stride = 0;
  std::uint32_t child = 0;  // index into the type's children
  std::int64_t copies() const { return outer * inner; }
};

struct Layout;

class Datatype {
 public:
  // A predefined type of `size` bytes made of one `basic` element (MPI_INT, ...), which takes
  // `external32_size` bytes in the external32 representation (0: `size`).
  static DatatypeRef predefined(BasicType basic, std::int64_t size, std::string name,
                                std::int64_t external32_size = 0);

  Datatype() { live_.fetch_add(1, std::memory_order_relaxed); }
  Datatype(const Datatype&) = delete;
  Datatype& operator=(const Datatype&) = delete;
  ~Datatype();

  std::int64_t size() const { return size_; }      // packed bytes of one element
  std::int64_t extent() const { return extent_; }  // stride between consecutive elements
  std::int64_t lb() const { return lb_; }
  std::int64_t ub() const { return lb_ + extent_; }
  std::int64_t true_lb() const { return true_lb_; }
  std::int64_t true_extent() const { return true_extent_; }
  // `count` elements at `buf` are one block of count * size() bytes starting at buf + true_lb().
  bool contiguous() const { return contiguous_; }
  bool committed() const { return committed_; }
  bool predefined() const { return predefined_; }
  // The basic type when the type is made of one predefined type only (kNone otherwise).
  BasicType basic() const { return basic_; }
  const std::string& name() const { return name_; }

  // Packs bytes [offset, offset + length) of the packed stream of `count` elements at `buf`
  // into `dst`. Returns the bytes packed (less than length only at the end of the stream).
  // The type must be committed. A call that starts where the previous one on this thread
  // ended (the pml's consecutive fragments) finds its place in O(1); any other offset costs
  // O(depth x log blocks). Safe to call concurrently on one type.
  std::size_t pack(const void* buf, std::int64_t count, std::size_t offset, void* dst,
                   std::size_t length) const;
  // Unpacks `length` bytes of the packed stream, starting at `offset`, into `count` elements
  // at `buf`. Returns the bytes unpacked.
  std::size_t unpack(void* buf, std::int64_t count, std::size_t offset, const void* src,
                     std::size_t length) const;
  // Basic elements in the first `bytes` bytes of the packed stream (MPI_Get_elements), or -1
  // when those bytes end inside a basic element. A pair type counts as two elements.
  std::int64_t count_elements(std::uint64_t bytes) const;
  // Packed bytes of the first `elements` basic elements of the stream (MPI_Status_set_elements):
  // the inverse of count_elements. `elements` >= 0; the stream is as long as needed.
  std::int64_t bytes_of_elements(std::int64_t elements) const;

  void retain() const { refs_.fetch_add(1, std::memory_order_relaxed); }
  // Drops a reference; the last one destroys the type.
  void release() const;
  // Datatype objects alive in the process (predefined ones included), for leak tests.
  static std::int64_t live() { return live_.load(std::memory_order_relaxed); }

  // ---- engine details (not used by the pml) ----
  // Basic elements in one element.
  std::int64_t elements() const { return elements_; }
  // Bytes of one element in the external32 representation (MPI_Pack_external).
  std::int64_t external32_size() const { return external32_size_; }
  // Alignment of the most aligned basic element (pads struct extents).
  std::int64_t alignment() const { return alignment_; }
  // Whether lb/ub come from explicit markers (MPI_Type_create_resized, MPI_LB, MPI_UB), which
  // override the bounds of the data in types built from this one.
  bool explicit_lb() const { return explicit_lb_; }
  bool explicit_ub() const { return explicit_ub_; }
  // Whether the type map holds any data (basic elements).
  bool has_data() const { return elements_ > 0; }
  // Contiguous blocks in one element of the compiled form (0 before commit, 1 when the data
  // form one block).
  std::int64_t block_count() const;
  const Layout* layout() const { return layout_.get(); }
  const std::shared_ptr<const Layout>& shared_layout() const { return layout_; }
  const std::vector<Part>& parts() const { return parts_; }
  const std::vector<DatatypeRef>& children() const { return children_; }
  const Envelope& envelope() const { return envelope_; }

  // Compiles the layout (idempotent).
  void commit();
  void set_name(std::string name) { name_ = std::move(name); }
  void set_envelope(Envelope envelope) { envelope_ = std::move(envelope); }
  // Makes this a predefined type named `name` whose element representation is `basic`.
  void mark_predefined(BasicType basic, std::string name);

 private:
  friend class TypeBuilder;
  std::int64_t prefix_elements(std::int64_t bytes) const;
  std::int64_t prefix_bytes(std::int64_t elements) const;

  std::int64_t size_ = 0;
  std::int64_t extent_ = 0;
  std::int64_t lb_ = 0;
  std::int64_t true_lb_ = 0;
  std::int64_t true_extent_ = 0;
  std::int64_t elements_ = 0;
  std::int64_t external32_size_ = 0;
  std::int64_t alignment_ = 1;
  bool contiguous_ = true;
  bool committed_ = false;
  bool predefined_ = false;
  bool elementary_ = false;  // one basic element (no parts)
  bool explicit_lb_ = false;
  bool explicit_ub_ = false;
  BasicType basic_ = BasicType::kNone;
  std::string name_;
  std::vector<Part> parts_;
  std::vector<DatatypeRef> children_;
  std::shared_ptr<const Layout> layout_;
  Envelope envelope_;
  mutable std::atomic<std::int64_t> refs_{1};
  static inline std::atomic<std::int64_t> live_{0};
};

}  // namespace gpurun::core

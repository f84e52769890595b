#include "runtime/core/datatype.h"

#include <algorithm>
#include <cstring>
#include <unordered_map>

#include "runtime/core/datatype_layout.h"

namespace gpurun::core {
namespace {

struct BasicInfo {
  std::int64_t size;
  std::int64_t alignment;  // x86-64 System V
};

BasicInfo info_of(BasicType basic) {
  switch (basic) {
    case BasicType::kNone:
      return {0, 1};
    case BasicType::kInt8:
    case BasicType::kUint8:
    case BasicType::kByte:
    case BasicType::kChar:
    case BasicType::kPacked:
    case BasicType::kBool:
      return {1, 1};
    case BasicType::kInt16:
    case BasicType::kUint16:
    case BasicType::kFloat16:
    case BasicType::kBfloat16:
      return {2, 2};
    case BasicType::kInt32:
    case BasicType::kUint32:
    case BasicType::kFloat:
    case BasicType::kWchar:
    case BasicType::kLogical:
      return {4, 4};
    case BasicType::kInt64:
    case BasicType::kUint64:
    case BasicType::kDouble:
      return {8, 8};
    case BasicType::kLongDouble:
    case BasicType::kFloat128:
      return {16, 16};
    case BasicType::kFloatComplex:
    case BasicType::kFloatInt:
    case BasicType::kTwoInt:
    case BasicType::kTwoFloat:
      return {8, 4};
    case BasicType::kDoubleComplex:
    case BasicType::kTwoDouble:
      return {16, 8};
    case BasicType::kLongDoubleComplex:
    case BasicType::kFloat128Complex:
      return {32, 16};
    // Pairs: packed bytes (the value, then an int) and the alignment of the value.
    case BasicType::kDoubleInt:
    case BasicType::kLongInt:
      return {12, 8};
    case BasicType::kShortInt:
      return {6, 4};
    case BasicType::kLongDoubleInt:
      return {20, 16};
  }
  return {0, 1};
}

using Compiled = std::unordered_map<const Datatype*, LayoutPtr>;

// Whether the parts are an indexed list: one child, one copy stride, one copy per outer loop.
bool one_child_list(const Datatype& type) {
  const std::vector<Part>& parts = type.parts();
  if (parts.size() < 3) return false;
  for (const Part& p : parts)
    if (p.child != parts[0].child || p.outer != 1 || p.inner_stride != parts[0].inner_stride)
      return false;
  return true;
}

LayoutPtr compile(const Datatype& type, Compiled& compiled);

LayoutPtr compile_child(const Datatype& type, const Part& part, Compiled& compiled) {
  return compile(*type.children()[part.child], compiled);
}

// Compiles `type`: each part is `outer` repeats of `inner` repeats of the child's layout.
// Committed children lend their layouts; an uncommitted child is compiled once per commit.
LayoutPtr compile(const Datatype& type, Compiled& compiled) {
  if (type.committed()) return type.shared_layout();
  auto it = compiled.find(&type);
  if (it != compiled.end()) return it->second;
  LayoutPtr result;
  if (one_child_list(type)) {
    const std::vector<Part>& parts = type.parts();
    std::vector<Segment> segments;
    segments.reserve(parts.size());
    for (const Part& p : parts) segments.push_back({p.disp, 0, p.inner});
    result = layout::indexed(compile_child(type, parts[0], compiled), parts[0].inner_stride,
                             std::move(segments));
  } else {
    std::vector<LayoutPtr> nodes;
    nodes.reserve(type.parts().size());
    for (const Part& part : type.parts()) {
      if (part.copies() == 0) continue;
      LayoutPtr inner =
          layout::repeat(part.inner, part.inner_stride, compile_child(type, part, compiled));
      nodes.push_back(
          layout::shifted(layout::repeat(part.outer, part.outer_stride, inner), part.disp));
    }
    result = layout::sequence(nodes);
  }
  compiled.emplace(&type, result);
  return result;
}

}  // namespace

std::int64_t basic_size(BasicType basic) { return info_of(basic).size; }

bool is_pair(BasicType basic) { return basic >= BasicType::kFloatInt; }

DatatypeRef::DatatypeRef(const Datatype* type) : type_(const_cast<Datatype*>(type)) {
  if (type_ != nullptr) type_->retain();
}

DatatypeRef::~DatatypeRef() {
  if (type_ != nullptr) type_->release();
}

DatatypeRef Datatype::predefined(BasicType basic, std::int64_t size, std::string name,
                                 std::int64_t external32_size) {
  DatatypeRef t = DatatypeRef::adopt(new Datatype());
  t->size_ = t->extent_ = t->true_extent_ = size;
  t->external32_size_ = external32_size > 0 ? external32_size : size;
  t->elements_ = 1;
  t->alignment_ = info_of(basic).alignment;
  t->elementary_ = true;
  t->layout_ = layout::leaf(0, size);
  t->committed_ = true;
  t->mark_predefined(basic, std::move(name));
  return t;
}

Datatype::~Datatype() { live_.fetch_sub(1, std::memory_order_relaxed); }

void Datatype::release() const {
  if (refs_.fetch_sub(1, std::memory_order_acq_rel) == 1) delete this;
}

void Datatype::mark_predefined(BasicType basic, std::string name) {
  predefined_ = true;
  basic_ = basic;
  name_ = std::move(name);
  commit();
}

std::int64_t Datatype::block_count() const { return layout_ ? layout_->blocks : 0; }

void Datatype::commit() {
  if (committed_) return;
  if (!elementary_) {
    Compiled compiled;
    layout_ = compile(*this, compiled);
  }
  // One block per element that follows on from the previous element's block.
  contiguous_ = !layout_ || (layout_->kind == Layout::Kind::kLeaf && extent_ == size_);
  committed_ = true;
}

std::size_t Datatype::pack(const void* buf, std::int64_t count, std::size_t offset, void* dst,
                           std::size_t length) const {
  auto total = static_cast<std::size_t>(count * size_);
  if (offset >= total || length == 0 || !committed_) return 0;
  std::size_t n = std::min(length, total - offset);
  auto origin = reinterpret_cast<std::uintptr_t>(buf);
  if (contiguous_) {
    std::memcpy(dst, reinterpret_cast<const void*>(origin + true_lb_ + offset), n);
  } else {
    layout::pack(*layout_, count, extent_, origin, static_cast<std::int64_t>(offset),
                 static_cast<std::byte*>(dst), static_cast<std::int64_t>(n));
  }
  return n;
}

std::size_t Datatype::unpack(void* buf, std::int64_t count, std::size_t offset, const void* src,
                             std::size_t length) const {
  auto total = static_cast<std::size_t>(count * size_);
  if (offset >= total || length == 0 || !committed_) return 0;
  std::size_t n = std::min(length, total - offset);
  auto origin = reinterpret_cast<std::uintptr_t>(buf);
  if (contiguous_) {
    std::memcpy(reinterpret_cast<void*>(origin + true_lb_ + offset), src, n);
  } else {
    layout::unpack(*layout_, count, extent_, origin, static_cast<std::int64_t>(offset),
                   static_cast<const std::byte*>(src), static_cast<std::int64_t>(n));
  }
  return n;
}

std::int64_t Datatype::count_elements(std::uint64_t bytes) const {
  if (size_ == 0) return 0;
  auto size = static_cast<std::uint64_t>(size_);
  std::int64_t tail = prefix_elements(static_cast<std::int64_t>(bytes % size));
  if (tail < 0) return -1;
  return static_cast<std::int64_t>(bytes / size) * elements_ + tail;
}

// Basic elements in the first `bytes` (< size) bytes of one element, or -1 when they end
// inside a basic element. Walks the parts, so it costs O(parts x depth).
std::int64_t Datatype::prefix_elements(std::int64_t bytes) const {
  if (bytes == 0) return 0;
  if (elementary_) return -1;
  std::int64_t elements = 0;
  for (const Part& part : parts_) {
    const Datatype& child = *children_[part.child];
    if (child.size_ == 0) continue;
    std::int64_t chunk = part.copies() * child.size_;
    if (bytes >= chunk) {
      elements += part.copies() * child.elements_;
      bytes -= chunk;
      if (bytes == 0) return elements;
      continue;
    }
    std::int64_t tail = child.prefix_elements(bytes % child.size_);
    if (tail < 0) return -1;
    return elements + (bytes / child.size_) * child.elements_ + tail;
  }
  return -1;
}

std::int64_t Datatype::bytes_of_elements(std::int64_t elements) const {
  if (elements_ == 0) return 0;
  return (elements / elements_) * size_ + prefix_bytes(elements % elements_);
}

// Packed bytes of the first `elements` (< elements()) basic elements of one element.
std::int64_t Datatype::prefix_bytes(std::int64_t elements) const {
  std::int64_t bytes = 0;
  for (const Part& part : parts_) {
    if (elements == 0) break;
    const Datatype& child = *children_[part.child];
    if (child.elements_ == 0) continue;
    std::int64_t chunk = part.copies() * child.elements_;
    if (elements >= chunk) {
      bytes += part.copies() * child.size_;
      elements -= chunk;
      continue;
    }
    return bytes + (elements / child.elements_) * child.size_ +
           child.prefix_bytes(elements % child.elements_);
  }
  return bytes;
}

}  // namespace gpurun::core

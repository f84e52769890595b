// Derived datatypes from their parts: size, bounds, basic type; compiled at commit.
//
// Bounds follow the MPI standard's type-map rules. The lower bound is the smallest explicit lb
// marker when the type map has one (from MPI_Type_create_resized or MPI_LB, in any child, at
// any depth), else the smallest displacement of the data; the upper bound likewise. A struct
// without explicit markers pads its extent to the alignment of its most aligned member.
#include "runtime/core/datatype_build.h"

#include <algorithm>
#include <optional>
#include <string>
#include <unordered_map>

namespace gpurun::core {
namespace {

// Arithmetic that records overflow instead of wrapping.
struct Checked {
  bool overflow = false;
  std::int64_t mul(std::int64_t a, std::int64_t b) {
    std::int64_t r = 0;
    overflow |= __builtin_mul_overflow(a, b, &r);
    return r;
  }
  std::int64_t add(std::int64_t a, std::int64_t b) {
    std::int64_t r = 0;
    overflow |= __builtin_add_overflow(a, b, &r);
    return r;
  }
};

struct Extremes {
  bool set = false;
  std::int64_t lo = 0;
  std::int64_t hi = 0;
  void add(std::int64_t low, std::int64_t high) {
    lo = set ? std::min(lo, low) : low;
    hi = set ? std::max(hi, high) : high;
    set = true;
  }
};

Status invalid(std::string what) { return Status(ErrorCode::kInvalidArgument, std::move(what)); }

Status too_large() { return invalid("the datatype's size or displacements do not fit in 64 bits"); }

}  // namespace

// Accumulates a type's parts and computes what they imply.
class TypeBuilder {
 public:
  TypeBuilder() : type_(DatatypeRef::adopt(new Datatype())) {}

  Status add(const Datatype& child, Part part) {
    if (part.outer < 0 || part.inner < 0) return invalid("negative count or blocklength");
    part.child = child_index(child);
    type_->parts_.push_back(part);
    std::int64_t copies = math_.mul(part.outer, part.inner);
    size_ = math_.add(size_, math_.mul(copies, child.size()));
    elements_ = math_.add(elements_, math_.mul(copies, child.elements()));
    external32_size_ = math_.add(external32_size_, math_.mul(copies, child.external32_size()));
    if (copies == 0) return math_.overflow ? too_large() : ok_status();
    std::int64_t o = math_.mul(part.outer - 1, part.outer_stride);
    std::int64_t i = math_.mul(part.inner - 1, part.inner_stride);
    // The copies' origins lie in [low, high].
    std::int64_t low =
        math_.add(part.disp, math_.add(std::min<std::int64_t>(0, o), std::min<std::int64_t>(0, i)));
    std::int64_t high =
        math_.add(part.disp, math_.add(std::max<std::int64_t>(0, o), std::max<std::int64_t>(0, i)));
    if (child.explicit_lb()) {
      std::int64_t marker = math_.add(low, child.lb());
      lb_markers_.add(marker, marker);
    }
    if (child.explicit_ub()) {
      std::int64_t marker = math_.add(high, child.ub());
      ub_markers_.add(marker, marker);
    }
    if (child.has_data()) {
      data_.add(math_.add(low, child.lb()), math_.add(high, child.ub()));
      true_.add(math_.add(low, child.true_lb()),
                math_.add(high, child.true_lb() + child.true_extent()));
      alignment_ = std::max(alignment_, child.alignment());
      note_basic(child.basic());
    }
    return math_.overflow ? too_large() : ok_status();
  }

  // The type, its extent padded to its alignment when `pad` and no bound is explicit.
  DatatypeRef finish(bool pad) {
    Datatype& t = *type_;
    t.size_ = size_;
    t.elements_ = elements_;
    t.external32_size_ = external32_size_;
    t.alignment_ = alignment_;
    t.explicit_lb_ = lb_markers_.set;
    t.explicit_ub_ = ub_markers_.set;
    std::int64_t lb = lb_markers_.set ? lb_markers_.lo : (data_.set ? data_.lo : 0);
    std::int64_t ub = ub_markers_.set ? ub_markers_.hi : (data_.set ? data_.hi : 0);
    if (pad && !lb_markers_.set && !ub_markers_.set && data_.set) {
      std::int64_t rem = ((ub - lb) % alignment_ + alignment_) % alignment_;
      if (rem != 0) ub += alignment_ - rem;
    }
    t.lb_ = lb;
    t.extent_ = ub - lb;
    t.true_lb_ = true_.set ? true_.lo : 0;
    t.true_extent_ = true_.set ? true_.hi - true_.lo : 0;
    t.basic_ = mixed_ || !basic_ ? BasicType::kNone : *basic_;
    if (!data_.set && !t.parts_.empty()) t.basic_ = t.children_[0]->basic();
    return type_;
  }

  // A type without data whose only content is an explicit lower (or upper) bound at 0.
  DatatypeRef finish_marker(bool upper) {
    finish(false);
    type_->explicit_lb_ = !upper;
    type_->explicit_ub_ = upper;
    return type_;
  }

  // The type with explicit bounds [lb, lb + extent).
  DatatypeRef finish_resized(std::int64_t lb, std::int64_t extent) {
    finish(false);
    type_->lb_ = lb;
    type_->extent_ = extent;
    type_->explicit_lb_ = type_->explicit_ub_ = true;
    return type_;
  }

 private:
  std::uint32_t child_index(const Datatype& child) {
    auto [it, added] = index_.try_emplace(&child, static_cast<std::uint32_t>(index_.size()));
    if (added) type_->children_.emplace_back(&child);
    return it->second;
  }
  void note_basic(BasicType basic) {
    if (basic_ && *basic_ != basic) mixed_ = true;
    if (basic == BasicType::kNone) mixed_ = true;
    basic_ = basic;
  }

  DatatypeRef type_;
  std::unordered_map<const Datatype*, std::uint32_t> index_;
  Checked math_;
  std::int64_t size_ = 0;
  std::int64_t elements_ = 0;
  std::int64_t external32_size_ = 0;
  std::int64_t alignment_ = 1;
  Extremes data_;
  Extremes true_;
  Extremes lb_markers_;
  Extremes ub_markers_;
  std::optional<BasicType> basic_;
  bool mixed_ = false;
};

Result<DatatypeRef> make_contiguous(std::int64_t count, const Datatype& old) {
  return make_hvector(1, count, 0, old);
}

Result<DatatypeRef> make_vector(std::int64_t count, std::int64_t blocklength, std::int64_t stride,
                                const Datatype& old) {
  Checked math;
  std::int64_t bytes = math.mul(stride, old.extent());
  if (math.overflow) return too_large();
  return make_hvector(count, blocklength, bytes, old);
}

Result<DatatypeRef> make_hvector(std::int64_t count, std::int64_t blocklength, std::int64_t stride,
                                 const Datatype& old) {
  TypeBuilder b;
  GPURUN_TRY(b.add(old, Part{0, count, stride, blocklength, old.extent()}));
  return b.finish(false);
}

Result<DatatypeRef> make_hindexed(std::span<const std::int64_t> blocklengths,
                                  std::span<const std::int64_t> displacements,
                                  const Datatype& old) {
  if (blocklengths.size() != displacements.size())
    return invalid("blocklengths and displacements differ in length");
  TypeBuilder b;
  for (std::size_t i = 0; i < blocklengths.size(); ++i)
    GPURUN_TRY(b.add(old, Part{displacements[i], 1, 0, blocklengths[i], old.extent()}));
  return b.finish(false);
}

Result<DatatypeRef> make_indexed(std::span<const std::int64_t> blocklengths,
                                 std::span<const std::int64_t> displacements, const Datatype& old) {
  Checked math;
  std::vector<std::int64_t> bytes(displacements.size());
  for (std::size_t i = 0; i < bytes.size(); ++i)
    bytes[i] = math.mul(displacements[i], old.extent());
  if (math.overflow) return too_large();
  return make_hindexed(blocklengths, bytes, old);
}

Result<DatatypeRef> make_hindexed_block(std::int64_t blocklength,
                                        std::span<const std::int64_t> displacements,
                                        const Datatype& old) {
  TypeBuilder b;
  for (std::int64_t disp : displacements)
    GPURUN_TRY(b.add(old, Part{disp, 1, 0, blocklength, old.extent()}));
  return b.finish(false);
}

Result<DatatypeRef> make_indexed_block(std::int64_t blocklength,
                                       std::span<const std::int64_t> displacements,
                                       const Datatype& old) {
  Checked math;
  std::vector<std::int64_t> bytes(displacements.size());
  for (std::size_t i = 0; i < bytes.size(); ++i)
    bytes[i] = math.mul(displacements[i], old.extent());
  if (math.overflow) return too_large();
  return make_hindexed_block(blocklength, bytes, old);
}

Result<DatatypeRef> make_struct(std::span<const std::int64_t> blocklengths,
                                std::span<const std::int64_t> displacements,
                                std::span<const Datatype* const> types) {
  if (blocklengths.size() != displacements.size() || blocklengths.size() != types.size())
    return invalid("blocklengths, displacements and types differ in length");
  TypeBuilder b;
  for (std::size_t i = 0; i < types.size(); ++i)
    GPURUN_TRY(b.add(*types[i], Part{displacements[i], 1, 0, blocklengths[i], types[i]->extent()}));
  return b.finish(true);
}

Result<DatatypeRef> make_resized(const Datatype& old, std::int64_t lb, std::int64_t extent) {
  TypeBuilder b;
  GPURUN_TRY(b.add(old, Part{0, 1, 0, 1, old.extent()}));
  Checked math;
  math.add(lb, extent);
  if (math.overflow) return too_large();
  return b.finish_resized(lb, extent);
}

Result<DatatypeRef> make_dup(const Datatype& old) {
  TypeBuilder b;
  GPURUN_TRY(b.add(old, Part{0, 1, 0, 1, old.extent()}));
  DatatypeRef t = b.finish(false);
  if (old.committed()) t->commit();
  return t;
}

DatatypeRef make_bound_marker(bool upper, std::string name) {
  DatatypeRef t = TypeBuilder().finish_marker(upper);
  t->mark_predefined(BasicType::kNone, std::move(name));
  return t;
}

}  // namespace gpurun::core

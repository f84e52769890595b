// A reference implementation of MPI type maps for the datatype engine's tests: every type is
// its full list of basic elements (displacement, size), built from the MPI definitions of the
// constructors one copy at a time, with the standard's bounds rules written out plainly. It
// shares nothing with the engine (no parts, no layouts), so the two can check each other.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <utility>
#include <vector>

namespace gpurun::core::reference {

struct Elem {
  std::int64_t disp;
  std::int64_t size;
};

struct Ref {
  std::vector<Elem> map;
  std::int64_t lb = 0;
  std::int64_t ub = 0;
  bool explicit_lb = false;
  bool explicit_ub = false;
  std::int64_t align = 1;
  std::int64_t extent() const { return ub - lb; }
  std::int64_t size() const {
    std::int64_t s = 0;
    for (const Elem& e : map) s += e.size;
    return s;
  }
  std::int64_t true_lb() const {
    std::int64_t lo = map.empty() ? 0 : map[0].disp;
    for (const Elem& e : map) lo = std::min(lo, e.disp);
    return lo;
  }
  std::int64_t true_ub() const {
    std::int64_t hi = map.empty() ? 0 : map[0].disp + map[0].size;
    for (const Elem& e : map) hi = std::max(hi, e.disp + e.size);
    return hi;
  }
};

inline Ref basic(std::int64_t size, std::int64_t align) {
  Ref r;
  r.map = {{0, size}};
  r.ub = size;
  r.align = align;
  return r;
}

// The type whose map is the maps of `copies` (each a child at a displacement) in order.
inline Ref combine(const std::vector<std::pair<std::int64_t, const Ref*>>& copies, bool pad) {
  Ref r;
  bool data = false;
  std::int64_t lo = 0, hi = 0, elo = 0, ehi = 0;
  for (const auto& [d, c] : copies) {
    for (const Elem& e : c->map) r.map.push_back({d + e.disp, e.size});
    if (c->explicit_lb) elo = r.explicit_lb ? std::min(elo, d + c->lb) : d + c->lb;
    if (c->explicit_ub) ehi = r.explicit_ub ? std::max(ehi, d + c->ub) : d + c->ub;
    r.explicit_lb |= c->explicit_lb;
    r.explicit_ub |= c->explicit_ub;
    if (c->map.empty()) continue;
    lo = data ? std::min(lo, d + c->lb) : d + c->lb;
    hi = data ? std::max(hi, d + c->ub) : d + c->ub;
    data = true;
    r.align = std::max(r.align, c->align);
  }
  r.lb = r.explicit_lb ? elo : (data ? lo : 0);
  r.ub = r.explicit_ub ? ehi : (data ? hi : 0);
  if (pad && data && !r.explicit_lb && !r.explicit_ub) {
    while ((r.ub - r.lb) % r.align != 0) ++r.ub;
  }
  return r;
}

inline Ref hvector(std::int64_t count, std::int64_t bl, std::int64_t stride, const Ref& old) {
  std::vector<std::pair<std::int64_t, const Ref*>> copies;
  for (std::int64_t c = 0; c < count; ++c)
    for (std::int64_t b = 0; b < bl; ++b) copies.push_back({c * stride + b * old.extent(), &old});
  return combine(copies, false);
}
inline Ref contiguous(std::int64_t count, const Ref& old) { return hvector(1, count, 0, old); }
inline Ref vector(std::int64_t count, std::int64_t bl, std::int64_t stride, const Ref& old) {
  return hvector(count, bl, stride * old.extent(), old);
}

inline Ref hindexed(const std::vector<std::int64_t>& bls, const std::vector<std::int64_t>& disps,
                    const Ref& old) {
  std::vector<std::pair<std::int64_t, const Ref*>> copies;
  for (std::size_t i = 0; i < bls.size(); ++i)
    for (std::int64_t b = 0; b < bls[i]; ++b) copies.push_back({disps[i] + b * old.extent(), &old});
  return combine(copies, false);
}

inline Ref structure(const std::vector<std::int64_t>& bls, const std::vector<std::int64_t>& disps,
                     const std::vector<const Ref*>& types) {
  std::vector<std::pair<std::int64_t, const Ref*>> copies;
  for (std::size_t i = 0; i < bls.size(); ++i)
    for (std::int64_t b = 0; b < bls[i]; ++b)
      copies.push_back({disps[i] + b * types[i]->extent(), types[i]});
  return combine(copies, true);
}

inline Ref resized(const Ref& old, std::int64_t lb, std::int64_t extent) {
  Ref r = old;
  r.lb = lb;
  r.ub = lb + extent;
  r.explicit_lb = r.explicit_ub = true;
  return r;
}

// Elements of a C-order array of `sizes` (`sizes.size()` dimensions) for which `take` holds,
// in memory order; the type spans the whole array.
template <class Take>
Ref array_of(const std::vector<std::int64_t>& sizes, const Ref& old, bool fortran, Take take) {
  std::int64_t total = 1;
  for (std::int64_t s : sizes) total *= s;
  std::vector<std::int64_t> idx(sizes.size());
  std::vector<std::pair<std::int64_t, const Ref*>> copies;
  for (std::int64_t linear = 0; linear < total; ++linear) {
    std::int64_t rest = linear;
    for (std::size_t k = 0; k < sizes.size(); ++k) {  // fastest dimension first
      std::size_t d = fortran ? k : sizes.size() - 1 - k;
      idx[d] = rest % sizes[d];
      rest /= sizes[d];
    }
    if (take(idx)) copies.push_back({linear * old.extent(), &old});
  }
  Ref r = combine(copies, false);
  return resized(r, 0, total * old.extent());
}

// Packs `count` elements of `t` at `origin` element by element.
inline std::vector<std::uint8_t> pack(const Ref& t, std::int64_t count,
                                      const std::uint8_t* origin) {
  std::vector<std::uint8_t> out;
  for (std::int64_t k = 0; k < count; ++k)
    for (const Elem& e : t.map) {
      const std::uint8_t* p = origin + k * t.extent() + e.disp;
      out.insert(out.end(), p, p + e.size);
    }
  return out;
}

// Unpacks `packed` into `count` elements of `t` at `origin`, element by element.
inline void unpack(const Ref& t, std::int64_t count, std::uint8_t* origin,
                   const std::vector<std::uint8_t>& packed) {
  std::size_t at = 0;
  for (std::int64_t k = 0; k < count; ++k)
    for (const Elem& e : t.map) {
      std::memcpy(origin + k * t.extent() + e.disp, packed.data() + at, e.size);
      at += e.size;
    }
}

// Basic elements in the first `bytes` of the packed stream, -1 when they end inside one.
inline std::int64_t count_elements(const Ref& t, std::int64_t bytes) {
  if (t.map.empty()) return 0;
  std::int64_t n = 0;
  for (std::int64_t k = 0; bytes > 0; ++k)
    for (const Elem& e : t.map) {
      if (bytes == 0) return n;
      if (bytes < e.size) return -1;
      bytes -= e.size;
      ++n;
    }
  return n;
}

}  // namespace gpurun::core::reference

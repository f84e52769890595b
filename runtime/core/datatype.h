// Datatypes: the layout of typed data in memory, and packing it to and from a byte stream.
//
// A committed datatype is compiled into a compact form (runs of contiguous blocks and nested
// loops) so that pack/unpack move whole blocks, never an element at a time. pack/unpack work
// on any byte range of the packed stream, so that a large message can be moved in pipelined
// fragments.
//
// THIS FILE IS THE CONTRACT WITH THE PML (what it calls). The datatype engine behind it is
// owned by the datatype work; it may add members but keeps these.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

namespace gpurun::core {

// Element types that reductions and MPI_Get_elements understand.
enum class BasicType : std::uint8_t {
  kNone,  // not one basic type (derived types mixing several)
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
  kLongDouble,
  kByte,
};

class Datatype {
 public:
  // A predefined type of `size` bytes made of one `basic` element.
  static std::shared_ptr<Datatype> predefined(BasicType basic, std::int64_t size,
                                              std::string name);

  std::int64_t size() const { return size_; }      // packed bytes of one element
  std::int64_t extent() const { return extent_; }  // stride between consecutive elements
  std::int64_t lb() const { return lb_; }
  std::int64_t true_lb() const { return true_lb_; }
  std::int64_t true_extent() const { return true_extent_; }
  // `count` elements at `buf` are one block of count * size() bytes starting at buf + true_lb().
  bool contiguous() const { return contiguous_; }
  bool committed() const { return committed_; }
  bool predefined() const { return predefined_; }
  BasicType basic() const { return basic_; }
  const std::string& name() const { return name_; }

  // Packs bytes [offset, offset + length) of the packed stream of `count` elements at `buf`
  // into `dst`. Returns the bytes packed (less than length only at the end of the stream).
  std::size_t pack(const void* buf, std::int64_t count, std::size_t offset, void* dst,
                   std::size_t length) const;
  // Unpacks `length` bytes of the packed stream, starting at `offset`, into `count` elements
  // at `buf`. Returns the bytes unpacked.
  std::size_t unpack(void* buf, std::int64_t count, std::size_t offset, const void* src,
                     std::size_t length) const;
  // Basic elements in the first `bytes` bytes of the packed stream (MPI_Get_elements), or -1
  // when those bytes end inside a basic element.
  std::int64_t count_elements(std::uint64_t bytes) const;

 private:
  std::int64_t size_ = 0;
  std::int64_t extent_ = 0;
  std::int64_t lb_ = 0;
  std::int64_t true_lb_ = 0;
  std::int64_t true_extent_ = 0;
  bool contiguous_ = true;
  bool committed_ = true;
  bool predefined_ = true;
  BasicType basic_ = BasicType::kNone;
  std::string name_;
};

}  // namespace gpurun::core

// runtime/io: a view maps the data stream onto the file as the filetype's type map says;
// reads and writes through it touch exactly the view's bytes (holes kept, data sieving or not,
// the end of the file respected); the shared file pointer hands out disjoint ranges.
#include "runtime/io/file_view.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <numeric>
#include <string>
#include <vector>

#include "runtime/core/datatype_build.h"
#include "runtime/io/shared_pointer.h"

namespace gpurun::io {
namespace {

core::DatatypeRef committed(Result<core::DatatypeRef> r) {
  EXPECT_TRUE(r.ok()) << r.status().to_string();
  core::DatatypeRef t = std::move(r).value();
  t->commit();
  return t;
}

core::DatatypeRef int32() {
  core::DatatypeRef t = core::Datatype::predefined(core::BasicType::kInt32, 4, "int");
  t->commit();
  return t;
}

// 2 ints of every 6, starting at int `first` of each 6 (a resized vector: rank r's share when
// three processes interleave pairs).
FileView pairs_view(std::int64_t disp, std::int64_t first) {
  core::DatatypeRef i = int32();
  auto pair = committed(core::make_contiguous(2, *i));
  auto tile = committed(core::make_resized(*pair, 0, 24));
  return FileView{disp + first * 4, i, tile};
}

// A scratch file, removed with the test.
class ScratchFile {
 public:
  ScratchFile() {
    const char* dir = std::getenv("TMPDIR");
    path_ = std::string(dir ? dir : "/tmp") + "/gpurun-io-test-XXXXXX";
    int fd = mkstemp(path_.data());
    EXPECT_GE(fd, 0);
    close(fd);
    auto opened = PosixFile::open(path_, O_RDWR);
    EXPECT_TRUE(opened.ok());
    file_ = std::move(opened.value());
  }
  ~ScratchFile() { unlink(path_.c_str()); }
  const PosixFile& file() const { return file_; }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
  PosixFile file_;
};

TEST(FileView, ExtentsFollowTheFiletypeAndMergeAdjacentRuns) {
  FileView v = pairs_view(100, 2);
  std::vector<Extent> runs = view_extents(v, 4, 16);  // from the second int of the first pair
  ASSERT_EQ(runs.size(), 3u);
  EXPECT_EQ(runs[0].offset, 112);
  EXPECT_EQ(runs[0].bytes, 4);
  EXPECT_EQ(runs[1].offset, 132);
  EXPECT_EQ(runs[1].bytes, 8);
  EXPECT_EQ(runs[2].offset, 156);
  EXPECT_EQ(runs[2].bytes, 4);
  FileView bytes{7, int32(), int32()};  // contiguous: one run
  runs = view_extents(bytes, 8, 40);
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(runs[0].offset, 15);
  EXPECT_EQ(runs[0].bytes, 40);
}

TEST(FileView, OffsetsAndPositionsInvertEachOther) {
  FileView v = pairs_view(0, 4);
  EXPECT_EQ(view_offset(v, 0), 16);
  EXPECT_EQ(view_offset(v, 8), 40);
  EXPECT_EQ(view_offset(v, 12), 44);
  EXPECT_EQ(view_position(v, 0), 0);
  EXPECT_EQ(view_position(v, 16), 0);
  EXPECT_EQ(view_position(v, 20), 4);
  EXPECT_EQ(view_position(v, 24), 8);
  EXPECT_EQ(view_position(v, 44), 12);
  EXPECT_EQ(view_position(v, 48), 16);
  EXPECT_TRUE(view_monotonic(v));
}

TEST(FileView, DecreasingDisplacementsAreFound) {
  core::DatatypeRef i = int32();
  std::vector<std::int64_t> lengths{1, 1}, disps{8, 0};
  FileView v{0, i, committed(core::make_indexed(lengths, disps, *i))};
  EXPECT_FALSE(view_monotonic(v));
}

TEST(FileView, InterleavedWritesKeepTheHolesAndReadBack) {
  ScratchFile scratch;
  std::vector<std::int32_t> fill(60, -1);
  ASSERT_TRUE(scratch.file().write_at(0, fill.data(), 240).ok());
  for (int writer = 0; writer < 2; ++writer) {  // the third share stays a hole
    FileView v = pairs_view(0, 2 * writer);
    std::vector<std::int32_t> mine(20);
    std::iota(mine.begin(), mine.end(), 100 * writer);
    ASSERT_TRUE(
        write_view(scratch.file(), v, 0, reinterpret_cast<std::byte*>(mine.data()), 80, writer == 1)
            .ok());
  }
  std::vector<std::int32_t> all(60);
  ASSERT_EQ(scratch.file().read_at(0, all.data(), 240).value(), 240);
  for (int k = 0; k < 60; ++k) {
    int tile = k / 6, slot = k % 6;
    int want = slot < 2 ? 2 * tile + slot : slot < 4 ? 100 + 2 * tile + slot - 2 : -1;
    EXPECT_EQ(all[k], want) << "int " << k;
  }
  for (bool atomic : {false, true}) {
    FileView v = pairs_view(0, 2);
    std::vector<std::int32_t> back(20, 0);
    auto got =
        read_view(scratch.file(), v, 0, reinterpret_cast<std::byte*>(back.data()), 80, atomic);
    ASSERT_TRUE(got.ok());
    EXPECT_EQ(got.value(), 80);
    for (int k = 0; k < 20; ++k) EXPECT_EQ(back[k], 100 + k);
  }
}

TEST(FileView, SievedWritesBeyondTheEndLeaveZerosBetween) {
  ScratchFile scratch;  // empty: the sieve reads nothing and writes the span back
  FileView v = pairs_view(0, 2);
  std::vector<std::int32_t> mine(6, 9);
  ASSERT_TRUE(
      write_view(scratch.file(), v, 0, reinterpret_cast<std::byte*>(mine.data()), 24, false).ok());
  EXPECT_EQ(scratch.file().size().value(), 64);  // up to the end of the third pair
  std::vector<std::int32_t> all(16, -1);
  ASSERT_EQ(scratch.file().read_at(0, all.data(), 64).value(), 64);
  for (int k = 0; k < 16; ++k) EXPECT_EQ(all[k], k % 6 == 2 || k % 6 == 3 ? 9 : 0) << "int " << k;
}

TEST(FileView, ReadsStopAtTheEndOfTheFile) {
  ScratchFile scratch;
  std::vector<std::int32_t> data(10);
  std::iota(data.begin(), data.end(), 0);
  ASSERT_TRUE(scratch.file().write_at(0, data.data(), 40).ok());  // ints 0..9
  FileView v = pairs_view(0, 0);                                  // ints 0,1, 6,7, 12,13 ...
  std::vector<std::int32_t> back(8, -5);
  auto got = read_view(scratch.file(), v, 0, reinterpret_cast<std::byte*>(back.data()), 32, false);
  ASSERT_TRUE(got.ok());
  EXPECT_EQ(got.value(), 16);  // 0,1 and 6,7; the next pair lies beyond the end
  EXPECT_EQ(back[2], 6);
  EXPECT_EQ(back[3], 7);
  EXPECT_EQ(back[4], -5);
}

TEST(FileView, SparseReadsGoRunByRun) {
  ScratchFile scratch;
  core::DatatypeRef i = int32();
  auto tile = committed(core::make_resized(*i, 0, 2 * kSieveBytes));  // one int per 8 MiB
  FileView v{0, i, tile};
  std::int32_t values[3] = {11, 22, 33};
  ASSERT_TRUE(
      write_view(scratch.file(), v, 0, reinterpret_cast<std::byte*>(values), 12, false).ok());
  EXPECT_EQ(scratch.file().size().value(), 4 * kSieveBytes + 4);
  std::int32_t back[3] = {0, 0, 0};
  ASSERT_EQ(read_view(scratch.file(), v, 0, reinterpret_cast<std::byte*>(back), 12, false).value(),
            12);
  EXPECT_EQ(back[2], 33);
}

TEST(SharedPointer, MembersTakeDisjointRangesAndTheNameGoes) {
  ScratchFile scratch;
  std::string name;
  auto first = SharedPointer::create(scratch.path(), name);
  ASSERT_TRUE(first.ok()) << first.status().to_string();
  auto second = SharedPointer::attach(name);
  ASSERT_TRUE(second.ok());
  ASSERT_TRUE(SharedPointer::unlink(name).ok());
  EXPECT_NE(access(name.c_str(), F_OK), 0);
  EXPECT_EQ(first.value().fetch_add(5).value(), 0);
  EXPECT_EQ(second.value().fetch_add(3).value(), 5);
  EXPECT_EQ(first.value().get().value(), 8);
  ASSERT_TRUE(second.value().set(2).ok());
  EXPECT_EQ(first.value().fetch_add(1).value(), 2);
}

}  // namespace
}  // namespace gpurun::io

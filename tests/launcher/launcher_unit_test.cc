// Unit tests of the launcher's pure parts: placement, inherited-variable scrubbing, the library
// path, output line forwarding, the libraries a program needs.
#include <gtest/gtest.h>
#include <signal.h>
#include <stdlib.h>
#include <unistd.h>

#include <cctype>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <vector>

#include "launcher/environment.h"
#include "launcher/output.h"
#include "launcher/placement.h"
#include "launcher/program_check.h"
#include "launcher/signals.h"

namespace gpurun::launcher {
namespace {

std::vector<topo::Core> synthetic_cores(const char* description) {
  auto topology = topo::Topology::load_synthetic(description);
  EXPECT_TRUE(topology.ok());
  return topology->cores_within(topology->all_pus());
}

TEST(Placement, OneCorePerRankWhileTheyFit) {
  auto cores = synthetic_cores("pack:2 core:2 pu:2");
  Placement p = place_on(cores, 3, BindTo::kAuto);
  EXPECT_FALSE(p.oversubscribed);
  ASSERT_TRUE(p.binding(2).has_value());
  EXPECT_EQ(p.binding(0)->to_string(), "0-1");
  EXPECT_EQ(p.binding(2)->to_string(), "4-5");
}

TEST(Placement, MoreRanksThanCoresShareThemConsecutively) {
  auto cores = synthetic_cores("pack:1 core:2 pu:2");
  for (BindTo bind : {BindTo::kAuto, BindTo::kCore}) {
    Placement p = place_on(cores, 5, bind);
    EXPECT_TRUE(p.oversubscribed);
    ASSERT_TRUE(p.binding(4).has_value());
    EXPECT_EQ(p.binding(0)->to_string(), "0-1");
    EXPECT_EQ(p.binding(1)->to_string(), "0-1");
    EXPECT_EQ(p.binding(2)->to_string(), "0-1");
    EXPECT_EQ(p.binding(3)->to_string(), "2-3");
    EXPECT_EQ(p.binding(4)->to_string(), "2-3");
  }
  Placement four = place_on(cores, 4, BindTo::kCore);
  EXPECT_EQ(four.binding(1)->to_string(), "0-1");
  EXPECT_EQ(four.binding(2)->to_string(), "2-3");
  Placement none = place_on(cores, 5, BindTo::kNone);
  EXPECT_TRUE(none.oversubscribed);
  EXPECT_FALSE(none.binding(0).has_value());
  EXPECT_FALSE(place_on(cores, 2, BindTo::kNone).binding(0).has_value());
}

TEST(Placement, ByNumaDealsRanksOverTheNodes) {
  auto topology = topo::Topology::load_synthetic("pack:2 numa:1 core:2 pu:1");
  ASSERT_TRUE(topology.ok());
  auto cores = topology->cores_within(topology->all_pus());
  Placement p = place_on(*topology, cores, {.np = 3, .map_by = MapBy::kNuma});
  EXPECT_FALSE(p.oversubscribed);
  EXPECT_EQ(p.binding(0)->to_string(), "0-1");
  EXPECT_EQ(p.binding(1)->to_string(), "2-3");
  EXPECT_EQ(p.binding(2)->to_string(), "0-1");
  Placement cored =
      place_on(*topology, cores, {.np = 3, .bind = BindTo::kCore, .map_by = MapBy::kNuma});
  EXPECT_EQ(cored.binding(0)->to_string(), "0");
  EXPECT_EQ(cored.binding(1)->to_string(), "2");
  EXPECT_EQ(cored.binding(2)->to_string(), "1");
  // Three ranks on a node of two cores: oversubscribed.
  EXPECT_TRUE(place_on(*topology, cores, {.np = 5, .map_by = MapBy::kNuma}).oversubscribed);
  EXPECT_FALSE(place_on(*topology, cores, {.np = 2, .bind = BindTo::kNone, .map_by = MapBy::kNuma})
                   .binding(0)
                   .has_value());
}

TEST(Placement, BySocketOrL3DealsRanksOverThem) {
  auto topology = topo::Topology::load_synthetic("pack:2 l3:2 core:2 pu:1");
  ASSERT_TRUE(topology.ok());
  auto cores = topology->cores_within(topology->all_pus());
  EXPECT_EQ(domains_for(*topology, MapBy::kPackage), 2);
  EXPECT_EQ(domains_for(*topology, MapBy::kL3), 4);
  Placement sockets = place_on(*topology, cores, {.np = 3, .map_by = MapBy::kPackage});
  EXPECT_EQ(sockets.binding(0)->to_string(), "0-3");
  EXPECT_EQ(sockets.binding(1)->to_string(), "4-7");
  EXPECT_EQ(sockets.binding(2)->to_string(), "0-3");
  Placement l3 = place_on(*topology, cores, {.np = 5, .map_by = MapBy::kL3});
  EXPECT_EQ(l3.binding(1)->to_string(), "2-3");
  EXPECT_EQ(l3.binding(3)->to_string(), "6-7");
  EXPECT_EQ(l3.binding(4)->to_string(), "0-1");
  EXPECT_FALSE(l3.oversubscribed);
}

// ppr:2:socket: two ranks to a socket in turn, not dealt one by one; with --bind-to core each
// takes the next core of its socket.
TEST(Placement, RanksPerDomainFillEachInTurn) {
  auto topology = topo::Topology::load_synthetic("pack:2 l3:2 core:2 pu:1");
  ASSERT_TRUE(topology.ok());
  auto cores = topology->cores_within(topology->all_pus());
  PlacementRequest request{.np = 4, .map_by = MapBy::kPackage, .ranks_per_domain = 2};
  Placement p = place_on(*topology, cores, request);
  EXPECT_EQ(p.binding(0)->to_string(), "0-3");
  EXPECT_EQ(p.binding(1)->to_string(), "0-3");
  EXPECT_EQ(p.binding(2)->to_string(), "4-7");
  EXPECT_EQ(p.binding(3)->to_string(), "4-7");
  request.bind = BindTo::kCore;
  Placement cored = place_on(*topology, cores, request);
  EXPECT_EQ(cored.binding(0)->to_string(), "0");
  EXPECT_EQ(cored.binding(1)->to_string(), "1");
  EXPECT_EQ(cored.binding(2)->to_string(), "4");
  EXPECT_EQ(cored.binding(3)->to_string(), "5");
  request = {.np = 4, .map_by = MapBy::kNuma, .ranks_per_domain = 4};  // one NUMA node here
  EXPECT_EQ(place_on(*topology, cores, request).binding(3)->to_string(), "0-7");
}

TEST(Environment, OuterLauncherVariablesAreRecognised) {
  for (const char* name :
       {"PMIX_NAMESPACE", "PMIX_SERVER_URI41", "PMI_FD", "SLURM_STEP_ID", "SLURM_PROCID",
        "OMPI_COMM_WORLD_RANK", "OMPI_MCA_orte_hnp_uri", "HYDRA_CONTROL_FD", "MPI_LOCALNRANKS"})
    EXPECT_TRUE(is_inherited_launcher_variable(name)) << name;
  for (const char* name : {"PMIX_MCA_gds", "SLURM_JOB_ID", "SLURM_CONF", "OMPI_MCA_btl",
                           "OMPI_ALLOW_RUN_AS_ROOT", "PATH", "GPURUN_LOG_LEVEL"})
    EXPECT_FALSE(is_inherited_launcher_variable(name)) << name;
}

TEST(Environment, LibraryDirectoryGoesLastAndOnce) {
  EXPECT_EQ(library_path_with("", "/opt/g/lib"), "/opt/g/lib");
  EXPECT_EQ(library_path_with("/mine", "/opt/g/lib"), "/mine:/opt/g/lib");
  EXPECT_EQ(library_path_with("/a:/opt/g/lib:/b", "/opt/g/lib"), "/a:/opt/g/lib:/b");
  EXPECT_EQ(library_path_with("/opt/g/lib", "/opt/g/lib"), "/opt/g/lib");
  EXPECT_EQ(library_path_with("/opt/g/lib2:/x", "/opt/g/lib"), "/opt/g/lib2:/x:/opt/g/lib");
}

TEST(ProgramCheck, ReadsTheLibrariesAProgramNeeds) {
  auto needed = needed_libraries("/proc/self/exe");
  ASSERT_TRUE(needed.has_value());
  bool libc = false;
  for (const std::string& lib : *needed) libc |= lib == "libc.so.6";
  EXPECT_TRUE(libc) << "this test program needs libc.so.6";
  EXPECT_FALSE(needed_libraries("/etc/hostname").has_value());  // not ELF
  EXPECT_FALSE(needed_libraries("/no/such/file").has_value());
}

TEST(ProgramCheck, TellsOpenMpiFromMpich) {
  using V = std::vector<std::string>;
  EXPECT_EQ(foreign_mpi_library(V{"libc.so.6", "libmpi.so.40"}), "libmpi.so.40");
  EXPECT_EQ(foreign_mpi_library(V{"libmpi_mpifh.so.40", "libc.so.6"}), "libmpi_mpifh.so.40");
  EXPECT_EQ(foreign_mpi_library(V{"libmpi.so.20"}), "libmpi.so.20");
  EXPECT_EQ(foreign_mpi_library(V{"libmpich.so.12", "libmpi.so.12", "libc.so.6"}), "");
  EXPECT_EQ(foreign_mpi_library(V{}), "");
}

TEST(Signals, NamesIncludeRealTimeOnes) {
  EXPECT_EQ(signal_name(SIGTERM), "SIGTERM");
  EXPECT_EQ(signal_name(SIGRTMIN + 6), "SIGRTMIN+6");
}

// Feeds `chunks` through a LineForwarder writing to a pipe and returns what came out.
std::string forward(const std::vector<std::string>& chunks, const std::string& prefix,
                    std::size_t line_max = 1024) {
  int fds[2];
  EXPECT_EQ(pipe(fds), 0);
  {
    LineForwarder forwarder(fds[1], prefix, line_max);
    for (const std::string& chunk : chunks) forwarder.feed(chunk.data(), chunk.size());
    forwarder.finish();
  }
  close(fds[1]);
  std::string out;
  char buf[4096];
  ssize_t n;
  while ((n = read(fds[0], buf, sizeof buf)) > 0) out.append(buf, static_cast<std::size_t>(n));
  close(fds[0]);
  return out;
}

TEST(LineForwarder, JoinsPiecesIntoWholePrefixedLines) {
  EXPECT_EQ(forward({"he", "llo\nwor", "ld\n"}, "[3] "), "[3] hello\n[3] world\n");
  EXPECT_EQ(forward({"a\nb\nc\n"}, "[0] "), "[0] a\n[0] b\n[0] c\n");
}

TEST(LineForwarder, FlushesThePartialLastLine) {
  EXPECT_EQ(forward({"no newline"}, ""), "no newline");
  EXPECT_EQ(forward({"no newline"}, "[1] "), "[1] no newline\n");
}

TEST(LineForwarder, SplitsLinesLongerThanTheLimit) {
  EXPECT_EQ(forward({"abcdefgh"}, "[0] ", 4), "[0] abcd\n[0] efgh\n");
}

// What a pipe's read end holds once its write end is closed.
std::string drain(int fd) {
  std::string out;
  char buf[4096];
  ssize_t n;
  while ((n = read(fd, buf, sizeof buf)) > 0) out.append(buf, static_cast<std::size_t>(n));
  close(fd);
  return out;
}

// --output-filename: the file gets the stream's bytes in whole lines, without the terminal's
// prefix or the newlines it adds; without a terminal (:nocopy) only the file gets anything.
TEST(LineForwarder, FileGetsTheBytesAsTheyCame) {
  for (bool copy : {true, false}) {
    int term[2], file[2];
    ASSERT_EQ(pipe(term), 0);
    ASSERT_EQ(pipe(file), 0);
    {
      LineForwarder forwarder(copy ? term[1] : -1, "[2] ", 4, file[1]);
      for (std::string chunk : {"ab", "c\nlonger", " open"})
        forwarder.feed(chunk.data(), chunk.size());
      forwarder.finish();
    }
    close(term[1]);
    close(file[1]);
    EXPECT_EQ(drain(term[0]), copy ? "[2] abc\n[2] long\n[2] er o\n[2] pen\n" : "");
    EXPECT_EQ(drain(file[0]), "abc\nlonger open");
  }
}

TEST(LineForwarder, TimestampsEachLine) {
  int fds[2];
  ASSERT_EQ(pipe(fds), 0);
  {
    LineForwarder forwarder(fds[1], "[1] ", 1024, -1, true);
    std::string chunk = "one\ntwo\nthr";
    forwarder.feed(chunk.data(), chunk.size());
    forwarder.finish();
  }
  close(fds[1]);
  std::string out = drain(fds[0]);
  // Each line: "YYYY-MM-DD HH:MM:SS.uuuuuu [1] word", digits where the pattern has a 9.
  const std::string shape = "9999-99-99 99:99:99.999999 [1] ";
  std::vector<std::string> words;
  for (std::size_t at = 0; at < out.size();) {
    std::size_t end = out.find('\n', at);
    ASSERT_NE(end, std::string::npos) << out;
    std::string line = out.substr(at, end - at);
    at = end + 1;
    ASSERT_GT(line.size(), shape.size()) << line;
    for (std::size_t i = 0; i < shape.size(); ++i)
      EXPECT_TRUE(shape[i] == '9' ? std::isdigit(static_cast<unsigned char>(line[i])) != 0
                                  : line[i] == shape[i])
          << line;
    words.push_back(line.substr(shape.size()));
  }
  EXPECT_EQ(words, (std::vector<std::string>{"one", "two", "thr"})) << out;
}

// Open MPI's layout: DIR/1/rank.N/stdout and stderr, N as wide as the rank count.
TEST(OutputFiles, LaysOutOneDirectoryPerRank) {
  char dir_template[] = "/tmp/gpurun-output-XXXXXX";
  ASSERT_NE(mkdtemp(dir_template), nullptr);
  std::filesystem::path top = dir_template;
  {
    OutputFiles files(OutputSpec{.dir = top.string()}, 10);
    EXPECT_GE(files.fd(9, true), 0);
    EXPECT_EQ(files.fd(10, false), -1);
    OutputFiles merged(OutputSpec{.merge_stderr = true, .dir = top / "m", .job_level = false}, 2);
    EXPECT_GE(merged.fd(1, false), 0);
    EXPECT_EQ(merged.fd(1, true), -1);
  }
  EXPECT_TRUE(std::filesystem::exists(top / "1" / "rank.00" / "stdout"));
  EXPECT_TRUE(std::filesystem::exists(top / "1" / "rank.09" / "stderr"));
  EXPECT_TRUE(std::filesystem::exists(top / "m" / "rank.1" / "stdout"));
  EXPECT_FALSE(std::filesystem::exists(top / "m" / "rank.1" / "stderr"));
  EXPECT_THROW(OutputFiles(OutputSpec{.dir = (top / "1" / "rank.00" / "stdout").string()}, 1),
               std::runtime_error);
  std::filesystem::remove_all(top);
}

// MPICH's -outfile-pattern: a file per distinct expansion, shared by the ranks that name it.
TEST(OutputFiles, PatternsNameEachRanksFile) {
  char dir_template[] = "/tmp/gpurun-output-XXXXXX";
  ASSERT_NE(mkdtemp(dir_template), nullptr);
  std::filesystem::path top = dir_template;
  std::vector<RankHost> hosts = {{"a", 0}, {"a", 0}, {"b", 1}};
  {
    OutputFiles files(OutputSpec{.out_pattern = (top / "o.%h.%p.%r%%").string(),
                                 .err_pattern = (top / "e.%h").string()},
                      3, hosts);
    EXPECT_NE(files.fd(0, false), files.fd(1, false));
    EXPECT_EQ(files.fd(0, true), files.fd(1, true));  // both "e.a"
    EXPECT_NE(files.fd(1, true), files.fd(2, true));
    OutputFiles out_only(OutputSpec{.out_pattern = (top / "all").string()}, 2);
    EXPECT_EQ(out_only.fd(0, false), out_only.fd(1, false));
    EXPECT_EQ(out_only.fd(0, true), -1);
  }
  for (const char* name : {"o.a.0.0%", "o.a.0.1%", "o.b.1.2%", "e.a", "e.b", "all"})
    EXPECT_TRUE(std::filesystem::exists(top / name)) << name;
  EXPECT_EQ(OutputSpec{.out_pattern = "x"}.copies(false), false);
  EXPECT_EQ(OutputSpec{.out_pattern = "x"}.copies(true), true);
  EXPECT_THROW(check_pattern("x.%", "-outfile-pattern"), UsageError);
  std::filesystem::remove_all(top);
}

}  // namespace
}  // namespace gpurun::launcher

// Selection: the tuning table's format and checks, rules by size, ranks and spread, forced
// algorithms, and the fallbacks with their warnings. Test algorithms are registered for
// neighbor_alltoallw, after its one real algorithm ("direct", host memory only, which the
// built-in table names); the tests give it tables of their own.
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <string>

#include "coll/engine.h"
#include "coll/params.h"
#include "coll/selector.h"
#include "coll/tuning.h"
#include "runtime/base/param.h"

namespace gpurun::coll {
namespace {

constexpr Collective kTest = Collective::kNeighborAlltoallw;

bool even_ranks(const Args& a) { return a.comm->size() % 2 == 0; }
bool never(const Args&) { return false; }
Result<std::unique_ptr<Operation>> no_create(const Args&) {
  return Status(ErrorCode::kUnsupported, "test algorithm");
}

}  // namespace
}  // namespace gpurun::coll

GPURUN_REGISTER_ALGORITHM(test_any, .name = "any", .collective = gpurun::coll::kTest,
                          .usable = nullptr, .create = gpurun::coll::no_create,
                          .summary = "test: runs anything")
GPURUN_REGISTER_ALGORITHM(test_even, .name = "even", .collective = gpurun::coll::kTest,
                          .usable = gpurun::coll::even_ranks, .create = gpurun::coll::no_create,
                          .summary = "test: even rank counts only")
GPURUN_REGISTER_ALGORITHM(test_never, .name = "never", .collective = gpurun::coll::kTest,
                          .usable = gpurun::coll::never, .create = gpurun::coll::no_create,
                          .summary = "test: runs nothing")

namespace gpurun::coll {
namespace {

const char* kTable = R"({
  "version": 1,
  "comment": "a test table",
  "collectives": {
    "neighbor_alltoallw": [
      {"algorithm": "never", "max_bytes": 100},
      {"algorithm": "even", "max_bytes": "1K", "comment": "small on even counts"},
      {"algorithm": "any", "min_ranks": 2, "max_ranks": 4, "one_host": true},
      {"algorithm": "even", "min_bytes": 4096}
    ]
  }
})";

TuningTable table_of(const char* json) {
  auto t = TuningTable::parse(json, "test");
  EXPECT_TRUE(t.ok()) << t.status().to_string();
  return t.ok() ? std::move(t).value() : TuningTable{};
}

// A table with `list` as neighbor_alltoallw's rules.
std::string rules(const std::string& list) {
  return R"({"version": 1, "collectives": {"neighbor_alltoallw": [)" + list + "]}}";
}

std::string rejection(const std::string& json) {
  auto t = TuningTable::parse(json, "test.json");
  EXPECT_FALSE(t.ok()) << json;
  return t.ok() ? "" : t.status().to_string();
}

std::string forced_none(Collective) { return "auto"; }
std::string g_forced;
std::string forced_test(Collective c) { return c == kTest ? g_forced : "auto"; }

struct Call {
  core::Communicator comm;
  core::DatatypeRef int32 = core::Datatype::predefined(core::BasicType::kInt32, 4, "MPI_INT");
  Args args;
  explicit Call(int ranks) : comm(core::Group::identity(ranks), 0, 7) {
    args.collective = kTest;
    args.comm = &comm;
  }
  // `collective` of `count` ints with MPI_SUM on `ranks` ranks of one host.
  Call(int ranks, Collective collective, std::int64_t count) : Call(ranks) {
    args.collective = collective;
    args.type = int32.get();
    args.count = count;
    args.op = &core::Op::predefined(core::OpKind::kSum);
  }
  // The name of the algorithm select() gives, or its error.
  std::string selected() const {
    auto a = select(args);
    return a.ok() ? std::string(a.value()->name) : a.status().to_string();
  }
};

std::string picked(Selector& s, int ranks, std::int64_t bytes, bool one_host = true) {
  Call call(ranks);
  call.args.one_host = one_host;
  auto candidates = s.candidates(kTest, CommShape{.ranks = ranks, .one_host = one_host});
  auto a = s.pick(candidates, call.args, bytes);
  return a.ok() ? std::string(a.value()->name) : "error: " + a.status().to_string();
}

TEST(TuningTable, RulesAreReadInOrderWithTheirRanges) {
  TuningTable t = table_of(kTable);
  auto rules = t.rules(kTest);
  ASSERT_EQ(rules.size(), 4u);
  EXPECT_EQ(rules[0].algorithm->name, "never");
  EXPECT_EQ(rules[0].max_bytes, 100);
  EXPECT_EQ(rules[1].max_bytes, 1024);
  EXPECT_EQ(rules[2].min_ranks, 2);
  EXPECT_EQ(rules[2].max_ranks, 4);
  EXPECT_EQ(rules[2].one_host, std::optional<bool>(true));
  EXPECT_EQ(rules[3].min_bytes, 4096);
  EXPECT_TRUE(t.rules(Collective::kAllreduce).empty());
}

TEST(TuningTable, BadTablesAreRejectedWithTheirPlace) {
  EXPECT_NE(rejection(R"({"version": 1, "collectives": {"allreduce": [}})").find("syntax"),
            std::string::npos);
  EXPECT_NE(rejection(R"({"version": 1, "collectives": {"allreduce": [}})").find("test.json"),
            std::string::npos);
  EXPECT_NE(rejection(R"({"collectives": {}})").find("version"), std::string::npos);
  EXPECT_NE(rejection(R"({"version": 1, "collectives": {"allreduse": []}})").find("allreduse"),
            std::string::npos);
  std::string unknown_algo = rejection(rules(R"({"algorithm": "ringg"})"));
  EXPECT_NE(unknown_algo.find("ringg"), std::string::npos);
  EXPECT_NE(unknown_algo.find("registered: any, even, never"), std::string::npos) << unknown_algo;
  std::string typo = rejection(rules(R"({"algorithm": "any", "max_byte": 3})"));
  EXPECT_NE(typo.find("collectives.neighbor_alltoallw[0].max_byte"), std::string::npos) << typo;
  EXPECT_NE(rejection(rules(R"({"algorithm": "any", "max_bytes": "lots"})")).find("size"),
            std::string::npos);
  EXPECT_NE(rejection(rules(R"({"algorithm": "any", "min_ranks": 0})")).find("ranks"),
            std::string::npos);
  EXPECT_NE(rejection(rules(R"({"algorithm": "any", "min_bytes": 9, "max_bytes": 8})"))
                .find("min_bytes is above max_bytes"),
            std::string::npos);
  EXPECT_NE(rejection(rules(R"({"max_bytes": 8})")).find("names no \"algorithm\""),
            std::string::npos);
  EXPECT_NE(rejection(rules(R"({"algorithm": "any", "one_host": 1})")).find("true or false"),
            std::string::npos);
  EXPECT_NE(rejection(rules(R"({"algorithm": "any", "min_nodes": 3, "max_nodes": 2})"))
                .find("min_nodes is above max_nodes"),
            std::string::npos);
  EXPECT_NE(rejection(rules(R"({"algorithm": "any", "min_ranks_per_node": 0})")).find("ranks"),
            std::string::npos);
}

// Rules for communicators across hosts choose by the hosts spanned and the most ranks on one.
TEST(Selector, NodeCountAndRanksPerNodeConditions) {
  TuningTable t = table_of(rules(R"({"algorithm": "never", "min_nodes": 2, "max_nodes": 2},
      {"algorithm": "even", "min_ranks_per_node": 2, "one_host": false},
      {"algorithm": "any"})")
                               .c_str());
  EXPECT_EQ(t.rules(kTest)[0].max_nodes, 2);
  EXPECT_EQ(t.rules(kTest)[1].min_ranks_per_node, 2);
  Selector s(&t, forced_none);
  auto names = [&](CommShape shape) {
    std::string out;
    for (const Candidate& c : s.candidates(kTest, shape))
      out += std::string(c.algorithm->name) + " ";
    return out;
  };
  EXPECT_EQ(names({.ranks = 4, .one_host = false, .nodes = 2, .ranks_per_node = 2}),
            "never even any ");
  EXPECT_EQ(names({.ranks = 3, .one_host = false, .nodes = 3, .ranks_per_node = 1}), "any ");
  EXPECT_EQ(names({.ranks = 6, .one_host = false, .nodes = 3, .ranks_per_node = 2}), "even any ");
  EXPECT_EQ(names({.ranks = 4, .one_host = true, .nodes = 1, .ranks_per_node = 4}), "any ");
}

// Rules for the copy a host measured (runtime/topo/copy_probe.h) match only communicators on a
// host whose probe gave that answer; a host that measured nothing matches neither.
TEST(Selector, CopyRulesApplyOnlyToHostsThatMeasuredThatCopy) {
  TuningTable t = table_of(rules(R"({"algorithm": "even", "copy": "cma"},
      {"algorithm": "never", "copy": "pipeline"}, {"algorithm": "any"})")
                               .c_str());
  EXPECT_EQ(t.rules(kTest)[0].copy, topo::HostCopy::kCma);
  EXPECT_EQ(t.rules(kTest)[2].copy, std::nullopt);
  Selector s(&t, forced_none);
  auto names = [&](std::optional<topo::HostCopy> copy) {
    std::string out;
    for (const Candidate& c : s.candidates(kTest, {.ranks = 2, .copy = copy}))
      out += std::string(c.algorithm->name) + " ";
    return out;
  };
  EXPECT_EQ(names(topo::HostCopy::kCma), "even any ");
  EXPECT_EQ(names(topo::HostCopy::kPipeline), "never any ");
  EXPECT_EQ(names(std::nullopt), "any ");
  std::string bad = rejection(rules(R"({"algorithm": "any", "copy": "fast"})"));
  EXPECT_NE(bad.find("neighbor_alltoallw[0].copy"), std::string::npos) << bad;
  EXPECT_NE(bad.find("\"pipeline\" or \"cma\""), std::string::npos) << bad;
}

TEST(TuningTable, TheBuiltInTableLoadsAndCoversEveryCollectiveWithAlgorithms) {
  auto t = TuningTable::built_in();
  ASSERT_TRUE(t.ok()) << t.status().to_string();
  for (int i = 0; i < static_cast<int>(Collective::kCount); ++i) {
    auto c = static_cast<Collective>(i);
    if (Registry::of(c).empty() || c == kTest) continue;
    EXPECT_FALSE(t.value().rules(c).empty()) << collective_name(c);
  }
}

TEST(TuningTable, MissingFileSaysWhatToDo) {
  auto t = TuningTable::load("/nonexistent/tuning.json");
  ASSERT_FALSE(t.ok());
  EXPECT_NE(t.status().to_string().find("GPURUN_COLL_TUNING_FILE"), std::string::npos);
}

TEST(Selector, FirstUsableMatchingRuleWins) {
  TuningTable t = table_of(kTable);
  Selector s(&t, forced_none);
  EXPECT_EQ(picked(s, 4, 50), "even");    // "never" matches but cannot run
  EXPECT_EQ(picked(s, 3, 50), "any");     // "even" cannot run on 3 ranks
  EXPECT_EQ(picked(s, 4, 2000), "any");   // above the small rules
  EXPECT_EQ(picked(s, 6, 5000), "even");  // beyond "any"'s rank range
}

TEST(Selector, OneHostRulesApplyOnlyToTheirSpread) {
  TuningTable t = table_of(kTable);
  Selector s(&t, forced_none);
  ::testing::internal::CaptureStderr();
  EXPECT_EQ(picked(s, 4, 2000, true), "any");  // the one_host rule
  EXPECT_EQ(::testing::internal::GetCapturedStderr(), "");
  ::testing::internal::CaptureStderr();
  EXPECT_EQ(picked(s, 4, 2000, false), "any");  // no rule: the registry's fallback
  EXPECT_NE(::testing::internal::GetCapturedStderr().find("has no algorithm"), std::string::npos);
}

TEST(Selector, NoUsableRuleFallsBackToAnyRegisteredAlgorithmWithAWarning) {
  TuningTable t = table_of(kTable);
  Selector s(&t, forced_none);
  ::testing::internal::CaptureStderr();
  EXPECT_EQ(picked(s, 5, 2000), "any");  // no rule for 5 ranks at 2000 bytes
  EXPECT_EQ(picked(s, 5, 2000), "any");
  std::string err = ::testing::internal::GetCapturedStderr();
  EXPECT_NE(err.find("no algorithm that can run neighbor_alltoallw"), std::string::npos) << err;
  EXPECT_EQ(err.find("neighbor_alltoallw", err.find("neighbor_alltoallw") + 1), std::string::npos)
      << "warned twice: " << err;
}

TEST(Selector, ForcedAlgorithmWinsWhenItCanRun) {
  TuningTable t = table_of(kTable);
  Selector s(&t, forced_test);
  g_forced = "EVEN";  // knob values are case-insensitive
  EXPECT_EQ(picked(s, 4, 2000), "even");
  EXPECT_EQ(picked(s, 8, 1 << 20), "even");
}

TEST(Selector, ImpossibleForcedAlgorithmFallsBackWithOneWarning) {
  TuningTable t = table_of(kTable);
  Selector s(&t, forced_test);
  g_forced = "even";
  ::testing::internal::CaptureStderr();
  EXPECT_EQ(picked(s, 3, 50), "any");
  EXPECT_EQ(picked(s, 5, 50), "any");
  std::string err = ::testing::internal::GetCapturedStderr();
  EXPECT_NE(err.find("even (forced by knob) cannot run this call"), std::string::npos) << err;
  EXPECT_EQ(err.find("forced", err.find("forced") + 1), std::string::npos) << "warned twice";
}

TEST(Selector, UnknownForcedNameWarnsAndUsesTheTable) {
  TuningTable t = table_of(kTable);
  Selector s(&t, forced_test);
  g_forced = "rign";
  ::testing::internal::CaptureStderr();
  EXPECT_EQ(picked(s, 4, 50), "even");
  std::string err = ::testing::internal::GetCapturedStderr();
  EXPECT_NE(err.find("GPURUN_COLL_NEIGHBOR_ALLTOALLW_ALGO"), std::string::npos) << err;
  EXPECT_NE(err.find("rign"), std::string::npos) << err;
}

// A shared-memory collective whose segment fails to set up falls back to what selection gives
// without it (Selector::pick's instead_of), which the members that already know select: the
// table's next rule, not the registry's first algorithm, and without a warning of its own.
TEST(Selector, AFallbackTakesTheTablesNextChoiceWithoutWarning) {
  TuningTable t =
      table_of(rules(R"({"algorithm": "even", "max_bytes": "1K"}, {"algorithm": "any"})").c_str());
  Selector s(&t, forced_test);
  g_forced = "even";
  const Algorithm* even = Registry::find(kTest, "even");
  ASSERT_NE(even, nullptr);
  Call call(4);
  auto candidates = s.candidates(kTest, CommShape{.ranks = 4, .one_host = true});
  ::testing::internal::CaptureStderr();
  auto fallback = s.pick(candidates, call.args, 50, even);
  std::string err = ::testing::internal::GetCapturedStderr();
  ASSERT_TRUE(fallback.ok()) << fallback.status().to_string();
  EXPECT_EQ(fallback.value()->name, "any");
  EXPECT_EQ(err, "");
  auto chosen = s.pick(candidates, call.args, 50);
  ASSERT_TRUE(chosen.ok());
  EXPECT_EQ(chosen.value(), even);  // without instead_of, the forced algorithm as before
  g_forced = "auto";
}

TEST(Selector, NothingUsableIsAnError) {
  TuningTable t = table_of(rules(R"({"algorithm": "never"})").c_str());
  Selector s(&t, forced_none);
  Call call(3);
  auto candidates = s.candidates(kTest, CommShape{.ranks = 3});
  // "any" takes everything: only a collective with no usable algorithm at all fails.
  EXPECT_TRUE(s.pick(candidates, call.args, 10).ok());
  // Its algorithms run device memory only where the accelerator knows the buffers as such
  // (coll/device_steps.h), which the host-only accelerator never does.
  auto int32 = core::Datatype::predefined(core::BasicType::kInt32, 4, "MPI_INT");
  int buffer[3] = {};
  call.args.collective = Collective::kAllgather;
  call.args.memory = accel::MemoryKind::kCudaDevice;
  call.args.sendbuf = call.args.recvbuf = buffer;
  call.args.count = call.args.recvcount = 1;
  call.args.type = call.args.recvtype = int32.get();
  auto none = s.pick({}, call.args, 10);
  ASSERT_FALSE(none.ok());
  EXPECT_EQ(none.status().code(), ErrorCode::kUnsupported);
}

TEST(Engine, KnobForcesTheAlgorithmAndATuningFileReplacesTheTable) {
  Call call(4);
  auto& knob = const_cast<param::Param<std::string>&>(params::forced_algorithm(kTest));
  ASSERT_TRUE(knob.set_from_string("never").ok());
  reset_engine();
  ::testing::internal::CaptureStderr();
  auto a = select(call.args);  // "never" cannot run it: the built-in table's rule
  ::testing::internal::GetCapturedStderr();
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(a.value()->name, "direct");
  ASSERT_TRUE(knob.set_from_string("even").ok());
  reset_engine();
  a = select(call.args);
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(a.value()->name, "even");
  ASSERT_TRUE(knob.set_from_string("auto").ok());

  auto& file = const_cast<param::Param<std::string>&>(params::tuning_file());
  ASSERT_TRUE(file.set_from_string("/nonexistent/table.json").ok());
  reset_engine();
  ::testing::internal::CaptureStderr();
  a = select(call.args);
  ::testing::internal::GetCapturedStderr();
  EXPECT_FALSE(a.ok());
  EXPECT_NE(a.status().to_string().find("/nonexistent/table.json"), std::string::npos);
  ASSERT_TRUE(file.set_from_string("").ok());
  reset_engine();
}

TEST(Engine, ATuningFileChoosesTheAlgorithms) {
  std::string path = ::testing::TempDir() + "/coll_tuning_test.json";
  {
    std::ofstream out(path);
    out << R"({"version": 1, "collectives": {"neighbor_alltoallw": [)"
        << R"({"algorithm": "even", "max_ranks": 4}, {"algorithm": "never"}]}})";
  }
  auto& file = const_cast<param::Param<std::string>&>(params::tuning_file());
  ASSERT_TRUE(file.set_from_string(path).ok());
  reset_engine();
  Call four(4), six(6);
  auto a = select(four.args);
  ASSERT_TRUE(a.ok()) << a.status().to_string();
  EXPECT_EQ(a.value()->name, "even");  // the built-in table has no rule: it would say "any"
  ::testing::internal::CaptureStderr();
  a = select(six.args);  // "never" cannot: the registry's first usable one, with a warning
  EXPECT_NE(::testing::internal::GetCapturedStderr().find("has no algorithm"), std::string::npos);
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(a.value()->name, "any");
  ASSERT_TRUE(file.set_from_string("").ok());
  reset_engine();
  std::remove(path.c_str());
}

TEST(Engine, TheShippedTableFileIsTheBuiltInOne) {
  auto file = TuningTable::load(GPURUN_COLL_TUNING_PATH);
  auto built_in = TuningTable::built_in();
  ASSERT_TRUE(file.ok()) << file.status().to_string();
  ASSERT_TRUE(built_in.ok());
  for (int i = 0; i < static_cast<int>(Collective::kCount); ++i) {
    auto c = static_cast<Collective>(i);
    ASSERT_EQ(file.value().rules(c).size(), built_in.value().rules(c).size());
    for (std::size_t k = 0; k < file.value().rules(c).size(); ++k)
      EXPECT_EQ(file.value().rules(c)[k].algorithm, built_in.value().rules(c)[k].algorithm);
  }
}

TEST(Engine, InfoListsEveryAlgorithmWithItsSummary) {
  std::string text = describe_algorithms();
  for (int i = 0; i < static_cast<int>(Collective::kCount); ++i) {
    for (const Algorithm* a : Registry::of(static_cast<Collective>(i))) {
      std::string line = std::string(collective_name(a->collective));
      EXPECT_NE(text.find(std::string(a->summary)), std::string::npos) << a->name;
      EXPECT_NE(text.find(line), std::string::npos);
    }
  }
  EXPECT_NE(text.find("recursive_doubling"), std::string::npos);
}

TEST(Engine, DeviceBuffersNoAlgorithmCanRunAreStaged) {
  // Without an accelerator that reduces on the device, no allreduce registered here can run
  // on device buffers itself: the call is staged through host memory (coll/staging.h) rather
  // than given to a host algorithm that would touch the device buffer.
  Call call(4, Collective::kAllreduce, 4);
  call.args.memory = accel::MemoryKind::kCudaDevice;
  reset_engine();
  EXPECT_EQ(call.selected(), "staged");
  call.args.memory = accel::MemoryKind::kHost;  // host buffers: a host algorithm
  auto host = select(call.args);
  ASSERT_TRUE(host.ok());
  EXPECT_NE(host.value()->name, "staged");
  reset_engine();
}

// On a device-only communicator (every member asserted device memory only) the selection
// leaves out the algorithms that cannot move device memory, for host buffers too, so that
// every member picks the same one whatever it passes; barrier, which has no buffers, keeps
// its shared-memory algorithm.
TEST(Engine, DeviceOnlyCommunicatorsLeaveTheSharedMemoryAlgorithmsOut) {
  Call call(4, Collective::kReduce, 2);
  reset_engine();
  auto name = [&call](bool device_only) {
    call.args.device_only = device_only;
    return call.selected();
  };
  EXPECT_EQ(name(false), "shm");
  EXPECT_EQ(name(true), "binomial");
  EXPECT_EQ(name(false), "shm");  // the communicator's state follows the flag
  call.args.collective = Collective::kBarrier;
  EXPECT_EQ(name(true), "shm");
  call.args.collective = Collective::kAllgather;
  call.args.recvcount = 2;
  call.args.recvtype = call.int32.get();
  EXPECT_EQ(name(true), "bruck");

  auto& knob =
      const_cast<param::Param<std::string>&>(params::forced_algorithm(Collective::kAllgather));
  ASSERT_TRUE(knob.set_from_string("shm").ok());
  reset_engine();
  ::testing::internal::CaptureStderr();
  std::string forced = name(true);
  std::string warning = ::testing::internal::GetCapturedStderr();
  EXPECT_EQ(forced, "bruck");
  EXPECT_NE(warning.find("(forced by knob) cannot run this call"), std::string::npos) << warning;
  ASSERT_TRUE(knob.set_from_string("auto").ok());
  reset_engine();
}

// The built-in table: a 64K bcast of two ranks on one host goes by binomial's one message where
// CMA beats the copy pipeline, and through the shared segment where it does not or where
// nobody measured; the host's answer reaches the communicators made after it is set.
TEST(Engine, TwoRanksMoveMediumBcastsByCmaWhereTheHostSaysItWins) {
  Call call(2, Collective::kBcast, 16384);
  auto name = [&call](std::optional<topo::HostCopy> copy) {
    set_host_copy(copy);
    reset_engine();
    return call.selected();
  };
  EXPECT_EQ(name(topo::HostCopy::kCma), "cma");  // 64K: read and written by CMA, in halves
  EXPECT_EQ(name(topo::HostCopy::kPipeline), "shm");
  EXPECT_EQ(name(std::nullopt), "shm");
  call.args.count = 4096;  // 16K: the root's buffer read by CMA, or shm's slot
  EXPECT_EQ(name(topo::HostCopy::kCma), "cma");
  EXPECT_EQ(name(topo::HostCopy::kPipeline), "shm");
  call.args.count = 1 << 18;  // 1M: binomial's one message, copied by CMA from both sides
  EXPECT_EQ(name(topo::HostCopy::kCma), "binomial");
  set_host_copy(std::nullopt);
  reset_engine();
}

TEST(Engine, SelectionBytesAreTheSameOnEveryRank) {
  core::Communicator comm(core::Group::identity(3), 1, 5);
  auto int32 = core::Datatype::predefined(core::BasicType::kInt32, 4, "MPI_INT");
  Args a;
  a.comm = &comm;
  a.collective = Collective::kAllreduce;
  a.count = 10;
  a.type = int32.get();
  EXPECT_EQ(selection_bytes(a), 40);
  a.collective = Collective::kReduceScatterBlock;
  EXPECT_EQ(selection_bytes(a), 120);
  // A gather's root (recvtype set, perhaps MPI_IN_PLACE) and a non-root (send side) agree.
  a.collective = Collective::kGather;
  Args root = a;
  root.recvcount = 10;
  root.recvtype = int32.get();
  root.count = 0;
  root.type = nullptr;
  EXPECT_EQ(selection_bytes(root), selection_bytes(a));
  a.collective = Collective::kAlltoallv;
  EXPECT_EQ(selection_bytes(a), 0);
  std::int64_t counts[3] = {1, 2, 6};
  a.collective = Collective::kAllgatherv;
  a.recvcounts = counts;
  a.recvtype = int32.get();
  EXPECT_EQ(selection_bytes(a), 12);
}

}  // namespace
}  // namespace gpurun::coll

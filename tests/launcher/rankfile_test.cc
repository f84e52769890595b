// Open MPI's --rankfile: parsing, each rank's host, and the CPUs its SLOTS name.
#include "launcher/rankfile.h"

#include <gtest/gtest.h>

#include "launcher/cli.h"
#include "tests/topo/fixtures.h"

namespace gpurun::launcher {
namespace {

std::string usage_error(std::string_view text) {
  try {
    parse_rankfile_text(text, "rf");
  } catch (const UsageError& e) {
    return e.what();
  }
  return "";
}

TEST(Rankfile, ParsesRanksHostsAndSlots) {
  Rankfile rf = parse_rankfile_text(
      "# placement\n"
      "rank 1=bb slot=0:0,1\n"
      "\n"
      "rank 0 = aa   slot = 1:0-2  # socket 1\n"
      "rank 2=+n0 slot=1-2\n",
      "rf");
  ASSERT_EQ(rf.entries.size(), 3u);
  EXPECT_EQ(rf.entries[0].host, "aa");
  EXPECT_EQ(rf.entries[0].slots, "1:0-2");
  EXPECT_EQ(rf.entries[0].line, 4);
  EXPECT_EQ(rf.entries[1].slots, "0:0,1");
  EXPECT_EQ(rf.entries[2].host, "+n0");
}

TEST(Rankfile, ErrorsNameTheLine) {
  EXPECT_EQ(usage_error("rank 0=a slot=0\nrank 0=b slot=1\n"),
            "rf:2: rank 0 again (line 1 placed it)");
  EXPECT_EQ(usage_error("rank 0=a slot=0\nrank 2=b slot=1\n"),
            "rf: rank 1 is missing (ranks are numbered from 0)");
  EXPECT_EQ(usage_error("rank 0=a\n"), "rf:1: 'rank 0=a' is not 'rank N=HOST slot=SLOTS'");
  EXPECT_EQ(usage_error("rank x=a slot=0\n"), "rf:1: 'x=a' is not N=HOST with a rank N");
  EXPECT_EQ(usage_error("rank 0=a slots=0\n"),
            "rf:1: 'slots=0' is not slot=SLOTS (cores: 0-3, socket:cores: 1:0-2)");
  EXPECT_EQ(usage_error("# nothing\n"), "rf: places no rank");
}

TEST(Rankfile, MapsEachRankOnItsHost) {
  Rankfile rf = parse_rankfile_text(
      "rank 0=+n1 slot=0\nrank 1=other slot=0\nrank 2=+n0 slot=0\nrank 3=b slot=1\n", "rf");
  std::vector<HostSpec> hosts = {{.name = "a", .slots = 4}, {.name = "b", .slots = 4}};
  JobMap map = map_rankfile(rf, hosts, 0);
  ASSERT_EQ(map.size(), 4);
  std::vector<std::string> host_of;
  for (int node : map.node_of) host_of.push_back(map.nodes[static_cast<std::size_t>(node)].name);
  EXPECT_EQ(host_of, (std::vector<std::string>{"b", "other", "a", "b"}));
  EXPECT_EQ(map.nodes[0].name, "a");  // the job's hosts first, in their order
  EXPECT_EQ(map_rankfile(rf, hosts, 2).size(), 2);
  EXPECT_THROW(map_rankfile(rf, hosts, 5), UsageError);
  EXPECT_THROW(map_rankfile(rf, {hosts[0]}, 0), UsageError);  // +n1 of one host
}

TEST(Rankfile, SlotsNameLogicalCoresOrCoresOfASocket) {
  topo::Topology dgx = topo::load_fixture(topo::kDgx);  // 2 sockets of 56 cores of 2 PUs
  EXPECT_EQ(slot_cpus(dgx, "1-2").to_string(), "2-5");
  EXPECT_EQ(slot_cpus(dgx, "1:0-2").to_string(), "112-117");
  EXPECT_EQ(slot_cpus(dgx, "0:0,1;1:55").to_string(), "0-3,222-223");
  EXPECT_EQ(slot_cpus(dgx, "*").to_string(), "0-223");
  EXPECT_EQ(slot_cpus(dgx, "1:*").to_string(), "112-223");
  EXPECT_THROW(slot_cpus(dgx, "2:0"), UsageError);   // no socket 2
  EXPECT_THROW(slot_cpus(dgx, "0:56"), UsageError);  // socket 0 has 56 cores
  EXPECT_THROW(slot_cpus(dgx, "112"), UsageError);   // 112 cores
  EXPECT_THROW(slot_cpus(dgx, "3-1"), UsageError);   // not a range
  EXPECT_THROW(slot_cpus(dgx, "0:a"), UsageError);
}

}  // namespace
}  // namespace gpurun::launcher

// Jobs across hosts, the pure parts: host lists and hostfiles, mapping ranks to hosts, launch
// agent command lines, fences gathered across hosts, the wire format and the authentication.
#include "launcher/hosts.h"

#include <gtest/gtest.h>
#include <sys/socket.h>
#include <unistd.h>

#include <functional>
#include <string>

#include "launcher/agent.h"
#include "launcher/auth.h"
#include "launcher/cli.h"
#include "launcher/fence.h"
#include "launcher/job_spec.h"
#include "launcher/machine.h"
#include "launcher/mapping.h"
#include "launcher/slurm.h"
#include "launcher/stdin_fan.h"
#include "launcher/wire.h"
#include "launcher/words.h"

namespace gpurun::launcher {
namespace {

std::string usage_error(const std::function<void()>& f) {
  try {
    f();
  } catch (const UsageError& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(HostList, NamesAndSlots) {
  auto hosts = parse_host_list("a:4,b,node-3.example_x:2");
  ASSERT_EQ(hosts.size(), 3u);
  EXPECT_EQ(hosts[0].name, "a");
  EXPECT_EQ(hosts[0].slots, 4);
  EXPECT_EQ(hosts[1].slots, 1);
  EXPECT_EQ(hosts[2].name, "node-3.example_x");
  EXPECT_EQ(hosts[2].slots, 2);
}

TEST(HostList, ErrorsNameTheEntry) {
  EXPECT_NE(usage_error([] { parse_host_list("a:0"); }).find("'a:0'"), std::string::npos);
  EXPECT_NE(usage_error([] { parse_host_list("a:x"); }).find("positive"), std::string::npos);
  EXPECT_NE(usage_error([] { parse_host_list("a,,b"); }).find("not a host name"),
            std::string::npos);
  EXPECT_NE(usage_error([] { parse_host_list("a;rm -rf"); }).find("'a;rm -rf'"), std::string::npos);
}

TEST(Hostfile, CommentsBlankLinesAndBothSyntaxes) {
  auto hosts = parse_hostfile_text(
      "# the cluster\n\nn1 slots=4   # big one\n  n2\t slots=2\nn3:3\nn4\n", "hf");
  ASSERT_EQ(hosts.size(), 4u);
  EXPECT_EQ(hosts[0].name, "n1");
  EXPECT_EQ(hosts[0].slots, 4);
  EXPECT_EQ(hosts[1].slots, 2);
  EXPECT_EQ(hosts[2].slots, 3);
  EXPECT_EQ(hosts[3].slots, 1);
}

TEST(Hostfile, ErrorsNameFileAndLine) {
  EXPECT_EQ(usage_error([] { parse_hostfile_text("n1\n\nn2 slots=two\n", "hf"); }),
            "hf:3: 'slots=two': slots must be a positive number");
  EXPECT_EQ(usage_error([] { parse_hostfile_text("n1 cpus=4\n", "hf"); }),
            "hf:1: unknown field 'cpus=4' (a line is: host slots=N [max_slots=M])");
  EXPECT_EQ(usage_error([] { parse_hostfile_text("n1 slots=4 max_slots=2\n", "hf"); }),
            "hf:1: max_slots=2 is below slots=4");
  EXPECT_EQ(usage_error([] { parse_hostfile_text("n1 max_slots=2 max_slots=3\n", "hf"); }),
            "hf:1: the max_slots of n1 are given twice");
  EXPECT_EQ(usage_error([] { parse_hostfile_text("n1:2 slots=3\n", "hf"); }),
            "hf:1: the slots of n1 are given twice");
  EXPECT_EQ(usage_error([] { parse_hostfile_text("# nothing\n\n", "hf"); }), "hf: names no host");
  EXPECT_EQ(usage_error([] { parse_hostfile_text("ok\nb@d slots=1\n", "hf"); }),
            "hf:2: 'b@d' is not a host name (letters, digits, '.', '-', '_')");
}

TEST(Hosts, ThisHostIsLocalByAnyName) {
  char own[256] = {};
  gethostname(own, sizeof own - 1);
  EXPECT_TRUE(is_local_host("localhost"));
  EXPECT_TRUE(is_local_host("127.0.0.1"));
  EXPECT_TRUE(is_local_host(own));
  EXPECT_FALSE(is_local_host("gpurun-no-such-host"));
  auto merged = merge_hosts({{"localhost", 2}, {"far", 1}, {own, 3}, {"far", 2}});
  ASSERT_EQ(merged.size(), 2u);
  EXPECT_TRUE(merged[0].local);
  EXPECT_EQ(merged[0].slots, 5);
  EXPECT_FALSE(merged[1].local);
  EXPECT_EQ(merged[1].slots, 3);
}

std::vector<HostSpec> two_hosts(int a, int b) {
  return {{.name = "a", .slots = a}, {.name = "b", .slots = b}};
}

TEST(Mapping, BySlotFillsEachHostInTurn) {
  JobMap map = map_ranks(two_hosts(2, 2), {.np = 3});
  EXPECT_EQ(map.node_of, (std::vector<int>{0, 0, 1}));
  EXPECT_EQ(map.nodes[1].ranks, std::vector<int>{2});
  EXPECT_TRUE(map.spans_hosts());
  EXPECT_EQ(map.local_node(), -1);
  // Without -np: one rank per slot.
  EXPECT_EQ(map_ranks(two_hosts(2, 3), {}).size(), 5);
}

TEST(Mapping, ByNodeDealsRoundRobin) {
  JobMap map = map_ranks(two_hosts(3, 1), {.np = 4, .by_node = true});
  EXPECT_EQ(map.node_of, (std::vector<int>{0, 1, 0, 0}));
  EXPECT_EQ(map.nodes[0].ranks, (std::vector<int>{0, 2, 3}));
}

// Open MPI's --rank-by: the hosts get as many ranks as the mapping gives them; the numbering
// alone changes.
TEST(Mapping, RankByNumbersTheRanksMappedOtherwise) {
  JobMap slot = map_ranks(two_hosts(3, 3), {.np = 5, .by_node = true, .rank_by = RankBy::kSlot});
  EXPECT_EQ(slot.node_of, (std::vector<int>{0, 0, 0, 1, 1}));
  JobMap node = map_ranks(two_hosts(3, 1), {.np = 4, .rank_by = RankBy::kNode});
  EXPECT_EQ(node.node_of, (std::vector<int>{0, 1, 0, 0}));
  EXPECT_EQ(map_ranks(two_hosts(2, 2), {.np = 4, .rank_by = RankBy::kNode}).node_of,
            (std::vector<int>{0, 1, 0, 1}));
}

TEST(Mapping, NpernodeReplacesTheSlots) {
  JobMap map = map_ranks(two_hosts(1, 1), {.npernode = 2});
  EXPECT_EQ(map.node_of, (std::vector<int>{0, 0, 1, 1}));
  EXPECT_NE(usage_error([] {
              map_ranks(two_hosts(8, 8), {.np = 5, .npernode = 2});
            }).find("5 ranks do not fit the 4 slots of a:8,b:8 with --npernode 2"),
            std::string::npos);
}

TEST(Mapping, ProgramsTakeTheSlotsTheirHostsHaveLeft) {
  // a:2,b:2; program 1 (3 ranks, the job's hosts) fills a and one slot of b; program 2 (2 ranks
  // on b and on c, which the job does not name) gets b's last slot and c's.
  std::vector<ProgramHosts> programs = {
      {.np = 3}, {.np = 2, .hosts = {{.name = "b", .slots = 5}, {.name = "c", .slots = 1}}}};
  JobMap map = map_programs(two_hosts(2, 2), programs, {});
  ASSERT_EQ(map.nodes.size(), 3u);
  EXPECT_EQ(map.nodes[2].name, "c");
  EXPECT_EQ(map.node_of, (std::vector<int>{0, 0, 1, 1, 2}));
  // By node, each program is dealt over its own hosts.
  map = map_programs(two_hosts(2, 2), {{.np = 1}, {.np = 3, .hosts = {{.name = "b", .slots = 1}}}},
                     {.by_node = true, .oversubscribe = true});
  EXPECT_EQ(map.node_of, (std::vector<int>{0, 1, 1, 1}));
  EXPECT_EQ(map.nodes[1].ranks, (std::vector<int>{1, 2, 3}));
  // A program whose hosts have too few slots left is named.
  EXPECT_NE(usage_error([] {
              map_programs(two_hosts(1, 1),
                           {{.np = 2}, {.np = 1, .hosts = {{.name = "a"}}, .name = "program 2"}},
                           {});
            }).find("program 2: 1 ranks do not fit the 0 slots left on a:1"),
            std::string::npos);
}

TEST(Mapping, HostsWithoutRanksAreLeftOut) {
  JobMap map = map_ranks(two_hosts(2, 2), {.np = 2});
  ASSERT_EQ(map.nodes.size(), 1u);
  EXPECT_EQ(map.nodes[0].name, "a");
}

// Open MPI's max_slots: never more ranks on the host, oversubscribed or not.
TEST(Mapping, MaxSlotsCapsOversubscription) {
  auto hosts = parse_hostfile_text("a slots=2 max_slots=3\nb max_slots=2 slots=1\nc\n", "hf");
  ASSERT_EQ(hosts.size(), 3u);
  EXPECT_EQ(hosts[0].max_slots, 3);
  EXPECT_EQ(hosts[1].slots, 1);
  EXPECT_EQ(hosts[1].max_slots, 2);
  EXPECT_EQ(hosts[2].max_slots, 0);
  auto sizes = [](const JobMap& map) {
    std::vector<std::size_t> out;
    for (const NodeRanks& node : map.nodes) out.push_back(node.ranks.size());
    return out;
  };
  // Slots first (2 + 1 + 1), then one a host in turn while each may take one more.
  EXPECT_EQ(sizes(map_ranks(hosts, {.np = 9, .oversubscribe = true})),
            (std::vector<std::size_t>{3, 2, 4}));
  EXPECT_EQ(sizes(map_ranks(hosts, {.np = 8, .by_node = true, .oversubscribe = true})),
            (std::vector<std::size_t>{3, 2, 3}));
  hosts.pop_back();  // only capped hosts: 5 ranks at most
  EXPECT_EQ(usage_error([&] { map_ranks(hosts, {.np = 6, .oversubscribe = true}); }),
            "6 ranks exceed the 5 that the hosts' max_slots allow on a:2,b:1");
  EXPECT_EQ(sizes(map_ranks(hosts, {.np = 5, .oversubscribe = true})),
            (std::vector<std::size_t>{3, 2}));
}

TEST(Mapping, OversubscriptionIsAnErrorUnlessAllowed) {
  EXPECT_NE(usage_error([] { map_ranks(two_hosts(1, 1), {.np = 3}); }).find("--oversubscribe"),
            std::string::npos);
  JobMap map = map_ranks(two_hosts(1, 1), {.np = 5, .oversubscribe = true});
  EXPECT_EQ(map.nodes[0].ranks.size(), 3u);
  EXPECT_EQ(map.nodes[1].ranks.size(), 2u);
}

TEST(Agent, HostPlaceholderOrAppended) {
  EXPECT_EQ(agent_argv("ip netns exec {host}", "h2", {"/bin/gpurun", "--daemon"}),
            (std::vector<std::string>{"ip", "netns", "exec", "h2", "/bin/gpurun", "--daemon"}));
  EXPECT_EQ(agent_argv("'my agent' -o \"x={host}.y\"", "h2", {"g"}),
            (std::vector<std::string>{"my agent", "-o", "x=h2.y", "g"}));
  EXPECT_EQ(agent_argv("rsh", "h3", {"g"}), (std::vector<std::string>{"rsh", "h3", "g"}));
}

TEST(Agent, RemoteShellWordsAreQuoted) {
  // ssh hands the command to the remote shell: words with spaces or quotes are quoted.
  EXPECT_EQ(agent_argv("/usr/bin/ssh -x", "n1", {"/opt/my dir/gpurun", "it's", "a:1,b:2"}),
            (std::vector<std::string>{"/usr/bin/ssh", "-x", "n1", "'/opt/my dir/gpurun'",
                                      "'it'\\''s'", "a:1,b:2"}));
  // Other agents exec the command themselves: no quoting.
  EXPECT_EQ(agent_argv("nsenter --net=/run/netns/{host}", "n1", {"/opt/my dir/g"}).back(),
            "/opt/my dir/g");
  EXPECT_NE(usage_error([] { agent_argv("ssh 'oops", "n", {}); }).find("unbalanced"),
            std::string::npos);
}

TEST(Fence, CompletesWhenEveryParticipatingHostContributed) {
  FenceCoordinator fences({0, 0, 1, 1, 2}, 3);
  EXPECT_FALSE(fences.contribute(1, {-1}, 0, "B").has_value());
  EXPECT_FALSE(fences.contribute(1, {-1}, 0, "X").has_value());  // a second one is ignored
  EXPECT_FALSE(fences.contribute(2, {-1}, 0, "C").has_value());
  auto done = fences.contribute(0, {-1}, 0, "A");
  ASSERT_TRUE(done.has_value());
  EXPECT_EQ(done->data, "ABC");  // node order, whoever came first
  EXPECT_EQ(done->nodes, (std::vector<int>{0, 1, 2}));
  EXPECT_EQ(fences.pending(), 0u);
}

TEST(Fence, SubsetsAndSequencesAreSeparateFences) {
  FenceCoordinator fences({0, 0, 1, 1, 2}, 3);
  EXPECT_EQ(fences.nodes_of({1, 4}), (std::vector<int>{0, 2}));
  EXPECT_FALSE(fences.contribute(1, {1, 4}, 0, "no").has_value());  // node 1 is not in it
  EXPECT_FALSE(fences.contribute(0, {1, 4}, 0, "a0").has_value());
  EXPECT_FALSE(fences.contribute(0, {1, 4}, 1, "a1").has_value());
  auto second = fences.contribute(2, {1, 4}, 1, "c1");
  ASSERT_TRUE(second.has_value());
  EXPECT_EQ(second->data, "a1c1");
  EXPECT_EQ(fences.pending(), 1u);
}

TEST(Wire, EncodesAndDecodes) {
  std::string body = wire::Encoder()
                         .u32(7)
                         .i32(-2)
                         .u64(1ull << 40)
                         .str(std::string("a\0b", 3))
                         .strings({"x", ""})
                         .ints({3, -1})
                         .take();
  wire::Decoder d(body);
  EXPECT_EQ(d.u32(), 7u);
  EXPECT_EQ(d.i32(), -2);
  EXPECT_EQ(d.u64(), 1ull << 40);
  EXPECT_EQ(d.str(), std::string("a\0b", 3));
  EXPECT_EQ(d.strings(), (std::vector<std::string>{"x", ""}));
  EXPECT_EQ(d.ints(), (std::vector<int>{3, -1}));
  EXPECT_TRUE(d.done());
  EXPECT_THROW(d.u32(), wire::ProtocolError);
}

TEST(Wire, FramesOverASocketAndLimitsThemBeforeAuthentication) {
  int fds[2];
  ASSERT_EQ(socketpair(AF_UNIX, SOCK_STREAM, 0, fds), 0);
  wire::Link a(fds[0]);
  wire::Link b(fds[1]);
  a.send(wire::Type::kChallenge, "hello");
  a.send(wire::Type::kStart, "");
  ASSERT_TRUE(b.receive());
  auto first = b.next();
  ASSERT_TRUE(first.has_value());
  EXPECT_EQ(first->type, wire::Type::kChallenge);
  EXPECT_EQ(first->body, "hello");
  EXPECT_EQ(b.next()->type, wire::Type::kStart);
  EXPECT_FALSE(b.next().has_value());
  a.send(wire::Type::kJob, std::string(wire::kMaxFrameBeforeAuth + 1, 'x'));
  ASSERT_TRUE(b.receive());
  EXPECT_THROW(b.next(), wire::ProtocolError);
}

TEST(JobSpec, RoundTrips) {
  JobSpec spec{.nspace = "gpurun.42",
               .node = 1,
               .map = map_ranks(two_hosts(2, 2), {.np = 3}),
               .apps = {App{.np = 1, .program = "/bin/prog", .argv = {"prog", "x"}},
                        App{.np = 2,
                            .program = "/bin/other",
                            .argv = {"other"},
                            .exports = {{"B", "x=y"}},
                            .wdir = "/tmp"}},
               .env = {"A=1"},
               .cwd = "/w",
               .bind = BindTo::kNone,
               .map_by = MapBy::kNuma,
               .ranks_per_domain = 3,
               .gpus_per_rank = 2,
               .cpus_per_rank = 4,
               .cpus_from_threads = true,
               .hwthread_cpus = true,
               .share = {.first = 2, .ranks = 3},
               .stdin_rank = kStdinAll,
               .slots = {"0", "1:0-2", "*"}};
  JobSpec back = decode_job_spec(encode(spec));
  EXPECT_EQ(back.nspace, "gpurun.42");
  EXPECT_EQ(back.node, 1);
  EXPECT_EQ(back.map.node_of, spec.map.node_of);
  EXPECT_TRUE(back.map.nodes[1].local);
  EXPECT_FALSE(back.map.nodes[0].local);
  ASSERT_EQ(back.apps.size(), 2u);
  EXPECT_EQ(back.apps[0].argv, spec.apps[0].argv);
  EXPECT_EQ(back.apps[1].program, "/bin/other");
  EXPECT_EQ(back.apps[1].np, 2);
  EXPECT_EQ(back.apps[1].exports, spec.apps[1].exports);
  EXPECT_EQ(back.apps[1].wdir, "/tmp");
  EXPECT_EQ(back.env, spec.env);
  EXPECT_EQ(back.map_by, MapBy::kNuma);
  EXPECT_EQ(back.ranks_per_domain, 3);
  EXPECT_EQ(back.gpus_per_rank, 2);
  EXPECT_EQ(back.cpus_per_rank, 4);
  EXPECT_TRUE(back.cpus_from_threads);
  EXPECT_TRUE(back.hwthread_cpus);
  EXPECT_EQ(back.stdin_rank, kStdinAll);
  EXPECT_EQ(back.slots, spec.slots);
  EXPECT_EQ(back.share.first, 2);
  EXPECT_EQ(back.share.ranks, 3);
  std::string broken = encode(spec);
  broken.pop_back();
  EXPECT_THROW(decode_job_spec(broken), wire::ProtocolError);
  // Programs whose ranks are not the job's are refused.
  JobSpec short_apps = spec;
  short_apps.apps[1].np = 1;
  EXPECT_THROW(decode_job_spec(encode(short_apps)), wire::ProtocolError);
  // Slots for some ranks only, or a stdin rank beyond the job, are refused.
  JobSpec few_slots = spec;
  few_slots.slots.pop_back();
  EXPECT_THROW(decode_job_spec(encode(few_slots)), wire::ProtocolError);
  JobSpec far_stdin = spec;
  far_stdin.stdin_rank = 3;
  EXPECT_THROW(decode_job_spec(encode(far_stdin)), wire::ProtocolError);
  // A share that cannot hold the host's ranks is refused.
  spec.share = {.first = 2, .ranks = 2};
  EXPECT_THROW(decode_job_spec(encode(spec)), wire::ProtocolError);
}

TEST(Apps, RanksFollowThePrograms) {
  std::vector<App> apps = {{.np = 2}, {.np = 1}, {.np = 3}};
  std::vector<int> of;
  for (int rank = 0; rank < 6; ++rank) of.push_back(app_of_rank(apps, rank));
  EXPECT_EQ(of, (std::vector<int>{0, 0, 1, 2, 2, 2}));
  EXPECT_EQ(app_sizes(apps, 6), (std::vector<int>{2, 1, 3}));
  // The sole program without -np (over hosts, one rank per slot) has every rank.
  std::vector<App> sole = {{.np = 0}};
  EXPECT_EQ(app_of_rank(sole, 5), 0);
  EXPECT_EQ(app_sizes(sole, 7), (std::vector<int>{7}));
}

TEST(Words, SplitAtBlanksAndKeepQuotedWords) {
  EXPECT_EQ(split_words("  -np 2\t./a 'x y' \"\" b\"c d\"e ", "f:1"),
            (std::vector<std::string>{"-np", "2", "./a", "x y", "", "bc de"}));
  EXPECT_TRUE(split_words("   ", "f:2").empty());
  EXPECT_NE(usage_error([] { split_words("./a 'open", "f:3"); }).find("f:3: unbalanced quote (')"),
            std::string::npos);
}

TEST(MachineShare, HostsOfOneKernelArePlacedTogether) {
  // Hosts a and c share one machine, b has its own, d has no machine id.
  std::vector<HostSpec> hosts = {{.name = "a", .slots = 2},
                                 {.name = "b", .slots = 2},
                                 {.name = "c", .slots = 3},
                                 {.name = "d", .slots = 1}};
  JobMap map = map_ranks(hosts, {.np = 8});
  std::vector<CpuShare> shares = cpu_shares(map, {"m1", "m2", "m1", ""});
  ASSERT_EQ(shares.size(), 4u);
  EXPECT_EQ(shares[0].first, 0);
  EXPECT_EQ(shares[0].ranks, 5);
  EXPECT_EQ(shares[2].first, 2);
  EXPECT_EQ(shares[2].ranks, 5);
  EXPECT_EQ(shares[1].ranks, 0);  // alone on its machine
  EXPECT_EQ(shares[3].ranks, 0);  // unknown machine: alone
  // A host without ranks takes no share.
  JobMap fewer = map_ranks(hosts, {.np = 2});
  EXPECT_EQ(cpu_shares(fewer, {"m1", "m2", "m1", ""})[0].ranks, 0);
}

TEST(MachineShare, TheRunningKernelHasAnId) {
  std::string id = machine_id();
  EXPECT_FALSE(id.empty());
  EXPECT_EQ(id, machine_id());
}

std::string hex(const std::string& bytes) {
  static const char* digits = "0123456789abcdef";
  std::string out;
  for (unsigned char c : bytes) {
    out += digits[c >> 4];
    out += digits[c & 15];
  }
  return out;
}

TEST(Auth, HmacSha256MatchesRfc4231) {
  EXPECT_EQ(hex(auth::hmac_sha256("Jefe", "what do ya want for nothing?")),
            "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843");
}

TEST(Auth, ProofsDependOnSecretRoleNodeAndBothNonces) {
  std::string secret = auth::make_secret();
  EXPECT_EQ(secret.size(), 64u);
  EXPECT_NE(secret, auth::make_secret());
  std::string c = auth::random_bytes(32);
  std::string n = auth::random_bytes(32);
  std::string proof = auth::daemon_proof(secret, 1, c, n);
  EXPECT_TRUE(auth::same(proof, auth::daemon_proof(secret, 1, c, n)));
  EXPECT_FALSE(auth::same(proof, auth::daemon_proof(auth::make_secret(), 1, c, n)));
  EXPECT_FALSE(auth::same(proof, auth::daemon_proof(secret, 2, c, n)));
  EXPECT_FALSE(auth::same(proof, auth::daemon_proof(secret, 1, n, c)));
  EXPECT_FALSE(auth::same(proof, auth::launcher_proof(secret, 1, c, n)));
  EXPECT_FALSE(auth::same(proof, proof.substr(1)));
}

using Names = std::vector<std::string>;

TEST(SlurmAllocation, ExpandsHostLists) {
  const char* var = "SLURM_JOB_NODELIST";
  EXPECT_EQ(expand_hostlist("gpurun-s[1-2]", var), (Names{"gpurun-s1", "gpurun-s2"}));
  EXPECT_EQ(expand_hostlist("n[08-10,3],login", var), (Names{"n08", "n09", "n10", "n3", "login"}));
  EXPECT_EQ(expand_hostlist("r[1-2]n[7-8]", var), (Names{"r1n7", "r1n8", "r2n7", "r2n8"}));
  EXPECT_EQ(expand_hostlist("solo", var), Names{"solo"});
  for (const char* bad : {"n[1-", "n1]", "n[3-1]", "n[a-b]", "a,,b", ""}) {
    try {
      expand_hostlist(bad, var);
      ADD_FAILURE() << "'" << bad << "' was expanded";
    } catch (const UsageError& e) {
      EXPECT_NE(std::string(e.what()).find("SLURM_JOB_NODELIST='"), std::string::npos) << e.what();
    }
  }
}

TEST(SlurmAllocation, ExpandsCounts) {
  const char* var = "SLURM_TASKS_PER_NODE";
  EXPECT_EQ(expand_counts("2(x3),1", var), (std::vector<int>{2, 2, 2, 1}));
  EXPECT_EQ(expand_counts("16", var), std::vector<int>{16});
  EXPECT_THROW(expand_counts("2(x3", var), UsageError);
  EXPECT_THROW(expand_counts("two", var), UsageError);
}

}  // namespace
}  // namespace gpurun::launcher

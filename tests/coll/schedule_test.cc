// The schedule runner: rounds in order, local steps after their receives (and after the sends
// whose memory they write), errors for counts that do not match, restarts, scratch and type
// lifetimes. Ranks run in one process (coll_job.h).
#include "coll/schedule.h"

#include <gtest/gtest.h>

#include <cstring>
#include <numeric>
#include <vector>

#include "coll/engine.h"
#include "coll/scratch.h"
#include "runtime/base/param.h"
#include "runtime/core/datatype_build.h"
#include "tests/coll/coll_job.h"

namespace gpurun::coll {
namespace {

using testing_util::Job;

const core::Datatype& int32() {
  static auto* t =
      new core::DatatypeRef(core::Datatype::predefined(core::BasicType::kInt32, 4, "MPI_INT"));
  return **t;
}

Buf ints(std::vector<int>& v) {
  return Buf{v.data(), static_cast<std::int64_t>(v.size()), &int32()};
}

std::unique_ptr<Operation> built(ScheduleBuilder& b) {
  auto op = b.build();
  EXPECT_TRUE(op.ok()) << op.status().to_string();
  return op.ok() ? std::move(op).value() : nullptr;
}

TEST(Schedule, RoundsRunInOrderAcrossRanks) {
  // A relay: rank 0 sends, rank 1 copies what it got and passes it on in its next round,
  // rank 2 receives. A step that ran early would pass on zeros.
  Job job(3);
  std::vector<int> data{1, 2, 3, 4}, mid(4, 0), copy(4, 0), out(4, 0);
  std::vector<std::unique_ptr<Operation>> ops(3);
  Args a0 = job.args(0, Collective::kBcast), a1 = job.args(1, Collective::kBcast),
       a2 = job.args(2, Collective::kBcast);
  {
    ScheduleBuilder b(a0);
    b.send(1, ints(data));
    ops[0] = built(b);
  }
  {
    ScheduleBuilder b(a1);
    b.recv(0, ints(mid));
    b.copy(ints(mid), ints(copy));
    b.next_round();
    b.send(2, ints(copy));
    ops[1] = built(b);
  }
  {
    ScheduleBuilder b(a2);
    b.recv(1, ints(out));
    ops[2] = built(b);
  }
  ASSERT_TRUE(job.run(ops));
  EXPECT_EQ(out, data);
  for (auto& op : ops) EXPECT_TRUE(op->status().ok());
}

TEST(Schedule, LocalStepWaitsForTheSendWhoseBufferItWrites) {
  // Rank 0 sends a rendezvous-sized buffer and, in the same round, overwrites it with what
  // rank 1 sends back. Rank 1 pulls the big buffer only after its own small send: the
  // overwrite must wait for the pull, or rank 1 receives the new contents.
  Job job(2);
  const int n = 64 * 1024;
  std::vector<int> big(n), back(1, 0), reply{-7}, got(n, 0);
  std::iota(big.begin(), big.end(), 100);
  std::vector<int> sent = big;
  std::vector<std::unique_ptr<Operation>> ops(2);
  Args a0 = job.args(0, Collective::kBcast), a1 = job.args(1, Collective::kBcast);
  {
    ScheduleBuilder b(a0);
    b.send(1, ints(big));
    b.recv(1, ints(back));
    b.copy(ints(back), Buf{big.data(), 1, &int32()});
    ops[0] = built(b);
  }
  {
    ScheduleBuilder b(a1);
    b.send(0, ints(reply));
    b.next_round();
    b.recv(0, ints(got));
    ops[1] = built(b);
  }
  ASSERT_TRUE(job.run(ops));
  EXPECT_EQ(got, sent);
  EXPECT_EQ(big[0], -7);
}

TEST(Schedule, AReceiveItsRoundReducesIsCopiedByTheReceiverAlone) {
  // With CMA, a 128K message is split: the sender writes a share. A receive whose data a reduce
  // step of its round reads is copied by the receiver alone, so that it lands in the
  // receiver's cache: rank 0 then finishes while rank 1 makes no progress after its send.
  ASSERT_TRUE(param::find("GPURUN_SHM_CMA")->set_from_string("on").ok());
  for (bool reduced : {true, false}) {
    Job job(2);
    const int n = 32 * 1024;
    std::vector<int> data(n), in(n, 0), acc(n, 1);
    std::iota(data.begin(), data.end(), 0);
    std::vector<std::unique_ptr<Operation>> ops(2);
    Args a0 = job.args(0, Collective::kReduce), a1 = job.args(1, Collective::kReduce);
    a0.op = a1.op = &core::Op::predefined(core::OpKind::kSum);
    {
      ScheduleBuilder b(a0);
      b.recv(1, ints(in));
      if (reduced) b.reduce(ints(in), ints(acc));
      ops[0] = built(b);
    }
    {
      ScheduleBuilder b(a1);
      b.send(0, ints(data));
      ops[1] = built(b);
    }
    ASSERT_TRUE(ops[1]->start().ok());  // the request to send reaches rank 0's ring
    ASSERT_TRUE(ops[0]->start().ok());
    bool done = false;
    for (int i = 0; i < 100000 && !done; ++i) {
      job.pml(0).progress();
      done = ops[0]->progress();
    }
    EXPECT_EQ(done, reduced) << (reduced ? "the receiver waited for the sender's share"
                                         : "the receiver copied all without being told to");
    for (int i = 0; i < 1000000 && !(ops[0]->progress() && ops[1]->progress()); ++i) {
      job.pml(0).progress();
      job.pml(1).progress();
    }
    EXPECT_EQ(in, data);
    if (reduced) {
      EXPECT_EQ(acc[5], 6);
    }
  }
  ASSERT_TRUE(param::find("GPURUN_SHM_CMA")->set_from_string("auto").ok());
}

TEST(Schedule, CountsThatDoNotMatchAreErrorsNotHangs) {
  Job job(2);
  std::vector<int> eight(8, 5), four(4, 0), sixteen(16, 0);
  for (auto* into : {&four, &sixteen}) {
    std::vector<std::unique_ptr<Operation>> ops(2);
    Args a0 = job.args(0, Collective::kBcast), a1 = job.args(1, Collective::kBcast);
    ScheduleBuilder b0(a0), b1(a1);
    b0.send(1, ints(eight));
    b1.recv(0, ints(*into));
    ops[0] = built(b0);
    ops[1] = built(b1);
    ASSERT_TRUE(job.run(ops));
    EXPECT_TRUE(ops[0]->status().ok());
    EXPECT_EQ(ops[1]->status().code(),
              into == &four ? ErrorCode::kTruncated : ErrorCode::kInvalidArgument);
    EXPECT_NE(ops[1]->status().message().find("do not match"), std::string_view::npos)
        << ops[1]->status().to_string();
  }
}

TEST(Schedule, AFailedStepStillRunsTheLaterRoundsWithThePoison) {
  // Rank 1's first receive is too short; its second round must still run so rank 0 is not
  // left waiting, and send the poison instead of its data, so that rank 0 fails too.
  Job job(2);
  std::vector<int> two{1, 2}, one(1), reply{9}, got(1, 0);
  std::vector<std::unique_ptr<Operation>> ops(2);
  Args a0 = job.args(0, Collective::kBcast), a1 = job.args(1, Collective::kBcast);
  ScheduleBuilder b0(a0), b1(a1);
  b0.send(1, ints(two));
  b0.next_round();
  b0.recv(1, ints(got));
  b1.recv(0, ints(one));
  b1.next_round();
  b1.send(0, ints(reply));
  ops[0] = built(b0);
  ops[1] = built(b1);
  ASSERT_TRUE(job.run(ops));
  EXPECT_EQ(got[0], 0);
  EXPECT_FALSE(ops[1]->status().ok());
  ASSERT_FALSE(ops[0]->status().ok());
  EXPECT_NE(ops[0]->status().message().find("part of the call failed"), std::string::npos)
      << ops[0]->status().to_string();
}

TEST(Schedule, ARestartRunsTheSameRoundsOnNewData) {
  Job job(2);
  std::vector<int> src{1, 2, 3}, dst(3, 0);
  std::vector<std::unique_ptr<Operation>> ops(2);
  Args a0 = job.args(0, Collective::kBcast), a1 = job.args(1, Collective::kBcast);
  ScheduleBuilder b0(a0), b1(a1);
  b0.send(1, ints(src));
  b1.recv(0, ints(dst));
  ops[0] = built(b0);
  ops[1] = built(b1);
  for (int start = 0; start < 3; ++start) {
    for (int& x : src) x += 10;
    ASSERT_TRUE(job.run(ops));
    EXPECT_EQ(dst, src) << "start " << start;
  }
}

TEST(Schedule, StartingAnActiveScheduleFails) {
  Job job(2);
  std::vector<int> v(1);
  Args a1 = job.args(1, Collective::kBcast);
  ScheduleBuilder b(a1);
  b.recv(0, ints(v));
  auto op = built(b);
  ASSERT_TRUE(op->start().ok());
  EXPECT_FALSE(op->progress());
  EXPECT_FALSE(op->start().ok());
}

TEST(Schedule, EmptyOperationCompletesAtOnce) {
  auto op = empty_operation();
  ASSERT_TRUE(op->start().ok());
  EXPECT_TRUE(op->progress());
  EXPECT_TRUE(op->status().ok());
}

TEST(Schedule, ScratchFollowsTheTypesLayout) {
  // A vector of 2 ints with stride 3: scratch for 4 of them spans the gaps, so that element i
  // lives at i * extent as in a user buffer.
  Job job(1);
  auto vec = core::make_vector(2, 1, 3, int32());
  ASSERT_TRUE(vec.ok());
  vec.value()->commit();
  Args a = job.args(0, Collective::kBcast);
  ScheduleBuilder b(a);
  Buf s = b.scratch(4, *vec.value());
  Span span = span_of(4, *vec.value());
  EXPECT_EQ(span.size, 3 * 16 + 16);  // extent 16 (lb 0, ub 16); the last element ends at 16
  std::vector<int> in(16);
  std::iota(in.begin(), in.end(), 0);
  Buf from{in.data(), 4, vec.value().get()};
  b.copy(from, s);
  std::vector<int> out(8, -1);
  b.next_round();
  b.copy(s, Buf{out.data(), 8, &int32()});
  auto op = built(b);
  ASSERT_TRUE(op->start().ok());
  EXPECT_TRUE(op->progress());
  EXPECT_EQ(out, (std::vector<int>{0, 3, 4, 7, 8, 11, 12, 15}));
}

TEST(Schedule, KeepsItsTypesAliveAfterTheCallerDropsThem) {
  Job job(2);
  (void)int32();  // created once for the process: not part of the count
  std::int64_t before = core::Datatype::live();
  std::vector<std::unique_ptr<Operation>> ops(2);
  std::vector<int> src(6), dst(6, 0);
  std::iota(src.begin(), src.end(), 1);
  {
    auto contig = core::make_contiguous(3, int32());
    ASSERT_TRUE(contig.ok());
    contig.value()->commit();
    Args a0 = job.args(0, Collective::kBcast), a1 = job.args(1, Collective::kBcast);
    ScheduleBuilder b0(a0), b1(a1);
    b0.send(1, Buf{src.data(), 2, contig.value().get()});
    b1.recv(0, Buf{dst.data(), 2, contig.value().get()});
    ops[0] = built(b0);
    ops[1] = built(b1);
  }  // the caller's reference goes here
  EXPECT_EQ(core::Datatype::live(), before + 1);
  ASSERT_TRUE(job.run(ops));
  EXPECT_EQ(dst, src);
  ops.clear();
  EXPECT_EQ(core::Datatype::live(), before);
}

TEST(Schedule, RearmsOnlyForTheSameCallWithItsNewTag) {
  // Two ranks exchange through a schedule built for tag 5; rearmed with tag 6 for the same
  // buffers it runs again (and its messages carry tag 6: a receive posted for tag 6 gets them).
  Job job(2);
  std::vector<int> a{1, 2}, b(2, 0);
  Args a0 = job.args(0, Collective::kAllreduce, 5), a1 = job.args(1, Collective::kAllreduce, 5);
  a0.sendbuf = a.data();
  a1.recvbuf = b.data();
  ScheduleBuilder b0(a0), b1(a1);
  b0.send(1, ints(a));
  b1.recv(0, ints(b));
  std::vector<std::unique_ptr<Operation>> ops(2);
  ops[0] = built(b0);
  ops[1] = built(b1);
  ASSERT_TRUE(job.run(ops));
  Args next0 = a0, next1 = a1;
  next0.tag = next1.tag = 6;
  ASSERT_TRUE(ops[0]->rearm(next0));
  ASSERT_TRUE(ops[1]->rearm(next1));
  a = {3, 4};
  ASSERT_TRUE(job.run(ops));
  EXPECT_EQ(b, a);
  std::vector<int> other(2);
  Args moved = a1;
  moved.recvbuf = other.data();
  EXPECT_FALSE(ops[1]->rearm(moved)) << "another buffer";
  Args recount = a1;
  recount.count = 3;
  EXPECT_FALSE(ops[1]->rearm(recount)) << "another count";
  std::int64_t counts[2] = {1, 1};
  Args v = a1;
  v.recvcounts = counts;
  EXPECT_FALSE(ops[1]->rearm(v)) << "an array the first call did not have";
  ASSERT_TRUE(ops[1]->start().ok());
  EXPECT_FALSE(ops[1]->rearm(a1)) << "still running";
}

TEST(Schedule, RearmsAVFormOnlyForTheSameArrayValues) {
  // An allgatherv's schedule keeps the values of its arrays: another call with the same values
  // in other arrays may run it again, one with a value changed (in place, as users do) may not.
  Job job(2);
  std::vector<int> b(2, 0);
  std::int64_t counts[2] = {1, 1}, displs[2] = {0, 1};
  Args a = job.args(1, Collective::kAllgatherv, 5);
  a.recvbuf = b.data();
  a.recvcounts = counts;
  a.rdispls = displs;
  ScheduleBuilder builder(a);
  builder.recv(0, ints(b));
  std::unique_ptr<Operation> op = built(builder);
  std::int64_t same_counts[2] = {1, 1}, same_displs[2] = {0, 1};
  Args again = a;
  again.recvcounts = same_counts;
  again.rdispls = same_displs;
  EXPECT_TRUE(op->rearm(again)) << "the same values in other arrays";
  same_displs[1] = 0;
  EXPECT_FALSE(op->rearm(again)) << "a displacement changed";
  same_displs[1] = 1;
  same_counts[0] = 2;
  EXPECT_FALSE(op->rearm(again)) << "a count changed";
  same_counts[0] = 1;
  Args fewer = again;
  fewer.rdispls = nullptr;
  EXPECT_FALSE(op->rearm(fewer)) << "an array missing";
  int sources[1] = {0};
  Args neighbors = again;
  neighbors.sources = sources;
  neighbors.indegree = 1;
  EXPECT_FALSE(op->rearm(neighbors)) << "neighbourhood lists are not kept";
  EXPECT_TRUE(op->rearm(again));
}

TEST(Engine, BlockingCallsReuseTheirOperationForTheSameArguments) {
  Job job(1);
  std::vector<int> in{7}, out{0}, out2{0};
  Args a = job.args(0, Collective::kAllreduce, 1);
  a.sendbuf = in.data();
  a.recvbuf = out.data();
  a.count = 1;
  a.type = &int32();
  a.op = &core::Op::predefined(core::OpKind::kSum);
  auto first = blocking_operation(a);
  ASSERT_TRUE(first.ok()) << first.status().to_string();
  ASSERT_TRUE(first.value()->start().ok());
  EXPECT_TRUE(first.value()->progress());
  EXPECT_EQ(out[0], 7);
  a.tag = 2;
  auto again = blocking_operation(a);
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again.value(), first.value());
  a.recvbuf = out2.data();
  auto other = blocking_operation(a);
  ASSERT_TRUE(other.ok());
  ASSERT_TRUE(other.value()->start().ok());
  EXPECT_TRUE(other.value()->progress());
  EXPECT_EQ(out2[0], 7);
  forget_comm(job.comm(0)->context_id());
}

TEST(ScratchPool, BlocksComeBackForReuse) {
  std::size_t held = ScratchPool::held();
  std::byte* first;
  {
    ScratchBlock b = ScratchPool::take(1000);
    EXPECT_GE(b.capacity(), 1000u);
    EXPECT_EQ(reinterpret_cast<std::uintptr_t>(b.data()) % 64, 0u);
    first = b.data();
  }
  EXPECT_EQ(ScratchPool::held(), held + 1);
  ScratchBlock again = ScratchPool::take(900);
  EXPECT_EQ(again.data(), first);
}

}  // namespace
}  // namespace gpurun::coll

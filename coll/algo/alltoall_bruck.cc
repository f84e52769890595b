// alltoall "bruck" (Bruck, Ho, Kipnis, Upfal and Weathersby).
//
// Idea: a rank first rotates its blocks into a packed scratch array, slot i holding the block
// for rank r + i. In round k (k = 0 .. ceil(log2 p) - 1) it sends, packed in one message, every
// slot whose index has bit k set to rank r + 2^k and receives the same slots from rank r - 2^k,
// which replace them. Afterwards slot i holds the block that rank r - i sent to r, which a
// last pass unpacks into place. Packing for round k + 1 happens as round k's local steps.
// Requirements: none (any p, any datatypes: blocks travel packed, so only the send and receive
// type signatures have to agree). alltoall only (the v and w forms have blocks of different
// sizes: pairwise).
// Cost: ceil(log2 p) alpha + (p/2) ceil(log2 p) n beta for blocks of n, plus three local passes
// over the p n bytes (rotate, pack/unpack, final): the choice for small blocks, where pairwise
// exchange's p - 1 rounds cost more. Scratch: p n packed + 2 (p/2 + 1) n for the messages.
#include "coll/algo/common.h"

namespace gpurun::coll::algo {
namespace {

struct Plan {
  ScheduleBuilder& b;
  std::byte* slots;    // p packed blocks
  std::int64_t bytes;  // of one block

  Buf slot(int i) const { return packed(slots + i * bytes, bytes); }
  // Slots with bit k of their index set, packed one after the other into `to` (or back).
  void pack(int p, int k, std::byte* to, bool back) {
    int n = 0;
    for (int i = 1; i < p; ++i)
      if ((i >> k) & 1) {
        Buf msg = packed(to + (n++) * bytes, bytes);
        back ? b.copy(msg, slot(i)) : b.copy(slot(i), msg);
      }
  }
  static int slots_of(int p, int k) {  // how many indices below p have bit k set
    int n = 0;
    for (int i = 1; i < p; ++i) n += (i >> k) & 1;
    return n;
  }
};

Status plan(ScheduleBuilder& b) {
  const Args& a = b.args();
  const int p = b.size(), r = b.rank();
  const std::int64_t bytes = a.recvcount * a.recvtype->size();
  Buf recv_whole{a.recvbuf, 0, a.recvtype};
  auto recv_block = [&](int i) { return recv_whole.slice(i * a.recvcount, a.recvcount); };
  Buf send_whole = a.in_place ? recv_whole : Buf{const_cast<void*>(a.sendbuf), 0, a.type};
  const std::int64_t send_count = a.in_place ? a.recvcount : a.count;
  Plan x{b, b.scratch_bytes(static_cast<std::size_t>(bytes * p)), bytes};
  for (int i = 0; i < p; ++i)
    b.copy(send_whole.slice(((r + i) % p) * send_count, send_count), x.slot(i));
  const int rounds = ceil_log2(p);
  const std::size_t most = static_cast<std::size_t>(bytes * (p / 2 + 1));
  std::byte* out = b.scratch_bytes(most);
  std::byte* in = b.scratch_bytes(most);
  if (rounds > 0) x.pack(p, 0, out, false);
  b.next_round();
  for (int k = 0; k < rounds; ++k) {
    const std::int64_t n = Plan::slots_of(p, k) * bytes;
    b.send((r + (1 << k)) % p, packed(out, n));
    b.recv((r - (1 << k) % p + p) % p, packed(in, n));
    x.pack(p, k, in, true);
    if (k + 1 < rounds) x.pack(p, k + 1, out, false);
    b.next_round();
  }
  for (int i = 0; i < p; ++i) b.copy(x.slot(i), recv_block((r - i + p) % p));
  b.next_round();
  return ok_status();
}

}  // namespace
}  // namespace gpurun::coll::algo

GPURUN_REGISTER_ALGORITHM(alltoall_bruck, .name = "bruck",
                          .collective = ::gpurun::coll::Collective::kAlltoall,
                          .usable = ::gpurun::coll::algo::host_or_device,
                          .create = ::gpurun::coll::algo::create_with<::gpurun::coll::algo::plan>,
                          .device_steps = true,
                          .summary =
                              "Bruck, blocks packed; ceil(log2 p) alpha + (p/2) log2 p n beta "
                              "+ 3 local passes")

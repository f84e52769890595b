#include "tests/transport/net_conformance.h"

#include <cstdlib>
#include <cstring>

#include "runtime/base/param.h"

namespace gpurun::transport::testing {

// Enough for any loopback transfer here by orders of magnitude; only a bug gets this far.
constexpr long kMaxPolls = 50'000'000;

ScopedEnv::ScopedEnv(const std::string& list) {
  std::size_t at = 0;
  while (at < list.size()) {
    std::size_t end = list.find(',', at);
    // A value may hold commas (UCX_TLS=tcp,self): an item without '=' continues the previous.
    std::string item = list.substr(at, end == std::string::npos ? std::string::npos : end - at);
    at = end == std::string::npos ? list.size() : end + 1;
    std::size_t eq = item.find('=');
    if (eq == std::string::npos) {
      if (saved_.empty()) continue;
      std::string name = saved_.back().first;
      std::string value = std::string(param::external_env(name.c_str()).value_or("")) + "," + item;
      setenv(name.c_str(), value.c_str(), 1);
      continue;
    }
    std::string name = item.substr(0, eq);
    saved_.emplace_back(name, param::external_env(name.c_str()));
    setenv(name.c_str(), item.substr(eq + 1).c_str(), 1);
  }
}

ScopedEnv::~ScopedEnv() {
  for (auto it = saved_.rbegin(); it != saved_.rend(); ++it) {
    if (it->second) {
      setenv(it->first.c_str(), it->second->c_str(), 1);
    } else {
      unsetenv(it->first.c_str());
    }
  }
}

NetPair::NetPair(const NetSetup& setup) : env_(setup.env) {
  for (int rank = 0; rank < 2; ++rank) {
    auto t = setup.create(rank, 2, PacketHandler{on_packet, &side_[rank]});
    if (!t.ok()) throw std::runtime_error(t.status().to_string());
    side_[rank].transport = std::move(t).value();
  }
  for (int rank = 0; rank < 2; ++rank) {
    auto ep = side_[rank].transport->connect(1 - rank, side_[1 - rank].transport->address());
    if (!ep.ok()) throw std::runtime_error(ep.status().to_string());
    side_[rank].to_peer = ep.value();
  }
}

void NetPair::on_packet(void* context, const Packet& p) {
  auto* side = static_cast<Side*>(context);
  side->received.push_back(
      Received{p.peer, *p.header, std::vector<std::byte>(p.payload, p.payload + p.length)});
}

void NetPair::progress() {
  side_[0].transport->progress();
  side_[1].transport->progress();
}

bool NetPair::progress_until(const std::function<bool()>& done) {
  for (long i = 0; i < kMaxPolls; ++i) {
    if (done()) return true;
    progress();
  }
  ADD_FAILURE() << "no progress after " << kMaxPolls << " polls";
  return false;
}

void NetPair::send(int rank, const PacketHeader& header, const std::vector<std::byte>& payload) {
  for (long i = 0; i < kMaxPolls; ++i) {
    Status st = to_peer(rank).send(header, payload.data(), payload.size());
    if (st.ok()) return;
    ASSERT_EQ(st.code(), ErrorCode::kNoResource) << st.to_string();
    progress();
  }
  ADD_FAILURE() << "send never found room";
}

std::vector<std::byte> pattern(std::size_t size, int seed) {
  std::vector<std::byte> out(size);
  for (std::size_t i = 0; i < size; ++i)
    out[i] = static_cast<std::byte>((i * 131 + i / 251 + static_cast<std::size_t>(seed)) & 0xff);
  return out;
}

Data contiguous(std::vector<std::byte>& buffer, std::size_t size) {
  Data d;
  d.size = size;
  d.contiguous = buffer.data();
  return d;
}

std::size_t Strided::position(std::size_t packed) const {
  std::size_t half = (buffer.size() + 1) / 2;
  return packed < half ? 2 * packed : 2 * (packed - half) + 1;
}

Data Strided::data() {
  Data d;
  d.size = buffer.size();
  d.pack = pack;
  d.unpack = unpack;
  d.context = this;
  return d;
}

std::size_t Strided::pack(void* self, std::size_t offset, void* dst, std::size_t length) {
  auto* s = static_cast<Strided*>(self);
  auto* out = static_cast<std::byte*>(dst);
  for (std::size_t i = 0; i < length; ++i) out[i] = s->buffer[s->position(offset + i)];
  return length;
}

std::size_t Strided::unpack(void* self, std::size_t offset, const void* src, std::size_t length) {
  auto* s = static_cast<Strided*>(self);
  const auto* in = static_cast<const std::byte*>(src);
  for (std::size_t i = 0; i < length; ++i) s->buffer[s->position(offset + i)] = in[i];
  return length;
}

namespace {

PacketHeader header_for(int i) {
  return PacketHeader{static_cast<std::uint8_t>(1 + i % 4), 0, static_cast<std::uint16_t>(i),
                      static_cast<std::uint32_t>(i * 7),    i, i % 3};
}

// The cookie travels in a packet, as the pml sends it.
BulkCookie exchange_cookie(NetPair& pair, int from, const BulkCookie& cookie) {
  std::vector<std::byte> bytes(sizeof cookie);
  std::memcpy(bytes.data(), &cookie, sizeof cookie);
  std::size_t before = pair.received(1 - from).size();
  pair.send(from, PacketHeader{3, 0, 0, 0, 0, 0}, bytes);
  pair.progress_until([&] { return pair.received(1 - from).size() > before; });
  BulkCookie out;
  std::memcpy(&out, pair.received(1 - from).back().payload.data(), sizeof out);
  return out;
}

TEST_P(NetConformance, DescribesItself) {
  NetPair pair(GetParam());
  const Caps& caps = pair.transport(0).caps();
  EXPECT_EQ(caps.reach, Reach::kNetwork);
  EXPECT_TRUE(caps.host_memory);
  EXPECT_FALSE(caps.device_memory) << "no CUDA-capable network library on this machine";
  EXPECT_GE(caps.max_packet, 4096u);
  EXPECT_FALSE(pair.transport(0).address().empty());
}

TEST_P(NetConformance, PacketsArriveInOrderWithHeaders) {
  NetPair pair(GetParam());
  std::size_t max = pair.transport(0).caps().max_packet;
  constexpr int kCount = 2000;
  for (int i = 0; i < kCount; ++i) {
    pair.send(0, header_for(i), pattern(static_cast<std::size_t>(i * 37) % (max + 1), i));
    if (i % 3 == 0) pair.send(1, header_for(i), pattern(static_cast<std::size_t>(i % 50), -i));
  }
  ASSERT_TRUE(pair.progress_until([&] {
    return pair.received(1).size() == std::size_t{kCount} &&
           pair.received(0).size() == std::size_t{(kCount + 2) / 3};
  }));
  for (int i = 0; i < kCount; ++i) {
    const Received& r = pair.received(1)[i];
    EXPECT_EQ(r.peer, 0);
    PacketHeader expected = header_for(i);
    EXPECT_EQ(std::memcmp(&r.header, &expected, sizeof expected), 0) << "packet " << i;
    ASSERT_EQ(r.payload, pattern(static_cast<std::size_t>(i * 37) % (max + 1), i)) << i;
  }
  for (std::size_t j = 0; j < pair.received(0).size(); ++j) {
    EXPECT_EQ(pair.received(0)[j].peer, 1);
    EXPECT_EQ(pair.received(0)[j].header.tag, static_cast<int>(j * 3));
  }
}

// Many small packets reach a receiver that has not polled (more than a transport keeps
// receives posted for), with larger ones among them: all arrive, in order, intact. Fewer
// than the 256 packets in flight that a transport takes before it may ask to retry.
TEST_P(NetConformance, SmallPacketsBeforeTheFirstPoll) {
  NetPair pair(GetParam());
  pair.send(0, header_for(0), pattern(8, 0));  // connects
  ASSERT_TRUE(pair.progress_until([&] { return pair.received(1).size() == 1; }));
  constexpr int kCount = 200;
  for (int i = 1; i < kCount; ++i) {
    std::size_t size = i % 10 == 0 ? 5000 : static_cast<std::size_t>(i % 64);
    Status st = pair.to_peer(0).send(header_for(i), pattern(size, i).data(), size);
    ASSERT_TRUE(st.ok()) << "packet " << i << ": " << st.to_string();
  }
  ASSERT_TRUE(pair.progress_until([&] { return pair.received(1).size() == std::size_t{kCount}; }));
  for (int i = 1; i < kCount; ++i) {
    std::size_t size = i % 10 == 0 ? 5000 : static_cast<std::size_t>(i % 64);
    ASSERT_EQ(pair.received(1)[i].header.tag, i);
    ASSERT_EQ(pair.received(1)[i].payload, pattern(size, i)) << i;
  }
}

// A receiver that does not poll fills every queue on the way; the sender is told to retry
// (never blocked, never an error), and nothing is lost or reordered.
TEST_P(NetConformance, FullQueueAsksToRetry) {
  NetPair pair(GetParam());
  std::size_t size = pair.transport(0).caps().max_packet;
  pair.send(0, header_for(0), pattern(size, 0));  // connects
  ASSERT_TRUE(pair.progress_until([&] { return pair.received(1).size() == 1; }));
  pair.received(1).clear();
  int sent = 0;
  bool refused = false;
  for (long i = 0; i < 1'000'000 && !refused; ++i) {
    Status st = pair.to_peer(0).send(header_for(sent), pattern(size, sent).data(), size);
    if (st.code() == ErrorCode::kNoResource) {
      refused = true;
    } else {
      ASSERT_TRUE(st.ok()) << st.to_string();
      ++sent;
    }
  }
  ASSERT_TRUE(refused) << "sent " << sent << " packets to a rank that never polled";
  EXPECT_GT(sent, 0) << "the connection was up, so some packets went before the queues filled";
  constexpr int kMore = 100;
  for (int i = 0; i < kMore; ++i) pair.send(0, header_for(sent + i), pattern(size, sent + i));
  ASSERT_TRUE(
      pair.progress_until([&] { return pair.received(1).size() == std::size_t(sent + kMore); }));
  for (int i = 0; i < sent + kMore; ++i) {
    ASSERT_EQ(pair.received(1)[i].header.tag, i);
    ASSERT_EQ(pair.received(1)[i].payload, pattern(size, i)) << i;
  }
}

// Bulk data both ways at once, the pull issued before and after the data's own arrival.
TEST_P(NetConformance, BulkBothWays) {
  NetPair pair(GetParam());
  for (std::size_t size : {std::size_t{1}, std::size_t{100'000}, std::size_t{3 << 20}}) {
    std::vector<std::byte> src[2] = {pattern(size, 1), pattern(size, 2)};
    std::vector<std::byte> dst[2] = {std::vector<std::byte>(size), std::vector<std::byte>(size)};
    Done offered[2], pulled[2];
    BulkCookie cookies[2];
    for (int rank = 0; rank < 2; ++rank) {
      auto cookie =
          pair.to_peer(rank).offer(contiguous(src[rank], size), offered[rank].completion());
      ASSERT_TRUE(cookie.ok()) << cookie.status().to_string();
      cookies[rank] = exchange_cookie(pair, rank, *cookie);
    }
    // Rank 1 pulls at once; rank 0 lets the data arrive first.
    ASSERT_TRUE(
        pair.to_peer(1).pull(cookies[0], contiguous(dst[1], size), pulled[1].completion()).ok());
    for (int i = 0; i < 1000; ++i) pair.progress();
    ASSERT_TRUE(
        pair.to_peer(0).pull(cookies[1], contiguous(dst[0], size), pulled[0].completion()).ok());
    ASSERT_TRUE(pair.progress_until([&] {
      return offered[0].called && offered[1].called && pulled[0].called && pulled[1].called;
    }));
    for (int rank = 0; rank < 2; ++rank) {
      EXPECT_TRUE(offered[rank].status.ok()) << offered[rank].status.to_string();
      EXPECT_TRUE(pulled[rank].status.ok()) << pulled[rank].status.to_string();
    }
    EXPECT_EQ(dst[1], src[0]) << size;
    EXPECT_EQ(dst[0], src[1]) << size;
  }
}

// An offer completes only once its receiver took the data: a synchronous send relies on it.
TEST_P(NetConformance, OfferCompletesOnlyAfterPull) {
  NetPair pair(GetParam());
  for (std::size_t size : {std::size_t{1}, std::size_t{16384}, std::size_t{1 << 20}}) {
    std::vector<std::byte> src = pattern(size, 4), dst(size);
    Done offered, pulled;
    auto cookie = pair.to_peer(0).offer(contiguous(src, size), offered.completion());
    ASSERT_TRUE(cookie.ok());
    BulkCookie k = exchange_cookie(pair, 0, *cookie);
    for (int i = 0; i < 20000; ++i) pair.progress();
    EXPECT_FALSE(offered.called) << size << " bytes: done before the receiver pulled";
    ASSERT_TRUE(pair.to_peer(1).pull(k, contiguous(dst, size), pulled.completion()).ok());
    ASSERT_TRUE(pair.progress_until([&] { return offered.called && pulled.called; }));
    EXPECT_EQ(dst, src);
  }
}

// Non-contiguous on either side goes through pack/unpack by offset.
TEST_P(NetConformance, BulkNonContiguous) {
  NetPair pair(GetParam());
  constexpr std::size_t kSize = 1'000'003;
  Strided from{pattern(kSize, 5)};
  Strided to{std::vector<std::byte>(kSize)};
  std::vector<std::byte> flat = pattern(kSize, 6);
  std::vector<std::byte> flat_in(kSize);
  Done offered[2], pulled[2];
  auto c0 = pair.to_peer(0).offer(from.data(), offered[0].completion());
  auto c1 = pair.to_peer(0).offer(contiguous(flat, kSize), offered[1].completion());
  ASSERT_TRUE(c0.ok() && c1.ok());
  BulkCookie k0 = exchange_cookie(pair, 0, *c0);
  BulkCookie k1 = exchange_cookie(pair, 0, *c1);
  ASSERT_TRUE(pair.to_peer(1).pull(k0, contiguous(flat_in, kSize), pulled[0].completion()).ok());
  ASSERT_TRUE(pair.to_peer(1).pull(k1, to.data(), pulled[1].completion()).ok());
  ASSERT_TRUE(pair.progress_until([&] {
    return offered[0].called && offered[1].called && pulled[0].called && pulled[1].called;
  }));
  EXPECT_TRUE(pulled[0].status.ok() && pulled[1].status.ok());
  // flat_in holds from's packed stream; to's buffer holds flat's bytes at strided places.
  std::vector<std::byte> packed(kSize);
  Strided::pack(&from, 0, packed.data(), kSize);
  EXPECT_EQ(flat_in, packed);
  std::vector<std::byte> unpacked(kSize);
  Strided::pack(&to, 0, unpacked.data(), kSize);
  EXPECT_EQ(unpacked, flat);
}

// The receiver takes less than offered: it gets the first bytes, and the sender completes.
TEST_P(NetConformance, TruncatedPull) {
  NetPair pair(GetParam());
  constexpr std::size_t kOffered = 500'000;
  std::vector<std::byte> src = pattern(kOffered, 9);
  for (std::size_t wanted : {std::size_t{0}, std::size_t{1000}, kOffered - 1}) {
    std::vector<std::byte> dst(kOffered, std::byte{0x5a});
    Done offered, pulled;
    auto cookie = pair.to_peer(0).offer(contiguous(src, kOffered), offered.completion());
    ASSERT_TRUE(cookie.ok());
    BulkCookie k = exchange_cookie(pair, 0, *cookie);
    ASSERT_TRUE(pair.to_peer(1).pull(k, contiguous(dst, wanted), pulled.completion()).ok());
    ASSERT_TRUE(pair.progress_until([&] { return offered.called && pulled.called; })) << wanted;
    EXPECT_TRUE(offered.status.ok()) << offered.status.to_string();
    EXPECT_TRUE(pulled.status.ok()) << pulled.status.to_string();
    EXPECT_TRUE(std::equal(dst.begin(), dst.begin() + wanted, src.begin())) << wanted;
    EXPECT_TRUE(std::all_of(dst.begin() + wanted, dst.end(),
                            [](std::byte b) { return b == std::byte{0x5a}; }))
        << "bytes beyond the pull were written, wanted " << wanted;
  }
}

// Many offers in flight at once, pulled in the reverse order, mixed with packets.
TEST_P(NetConformance, ManyOutstanding) {
  NetPair pair(GetParam());
  constexpr int kCount = 200;
  std::vector<std::vector<std::byte>> src, dst;
  std::vector<Done> offered(kCount), pulled(kCount);
  std::vector<BulkCookie> cookies;
  for (int i = 0; i < kCount; ++i) {
    std::size_t size = 1 + static_cast<std::size_t>(i) * 997 % 70'000;
    src.push_back(pattern(size, i));
    dst.emplace_back(size);
    auto cookie = pair.to_peer(0).offer(contiguous(src.back(), size), offered[i].completion());
    ASSERT_TRUE(cookie.ok());
    cookies.push_back(exchange_cookie(pair, 0, *cookie));
  }
  for (int i = kCount - 1; i >= 0; --i) {
    ASSERT_TRUE(pair.to_peer(1)
                    .pull(cookies[i], contiguous(dst[i], dst[i].size()), pulled[i].completion())
                    .ok());
    pair.send(1, header_for(i), pattern(16, i));
  }
  ASSERT_TRUE(pair.progress_until([&] {
    for (int i = 0; i < kCount; ++i)
      if (!offered[i].called || !pulled[i].called) return false;
    return true;
  }));
  for (int i = 0; i < kCount; ++i) {
    EXPECT_TRUE(pulled[i].status.ok() && offered[i].status.ok());
    ASSERT_EQ(dst[i], src[i]) << i;
  }
  EXPECT_TRUE(pair.progress_until([&] { return pair.received(0).size() == std::size_t{kCount}; }));
}

// An offer the receiver leaves waiting holds up none after it: the receiver may match a later
// message first (another tag) and wait for it before it takes the earlier one.
TEST_P(NetConformance, LaterOfferCompletesWhileEarlierWaits) {
  NetPair pair(GetParam());
  constexpr std::size_t kSize = 3 << 20;
  std::vector<std::byte> src[2] = {pattern(kSize, 21), pattern(kSize, 22)};
  std::vector<std::byte> dst[2] = {std::vector<std::byte>(kSize), std::vector<std::byte>(kSize)};
  Done offered[2], pulled[2];
  BulkCookie cookies[2];
  for (int i = 0; i < 2; ++i) {
    auto cookie = pair.to_peer(0).offer(contiguous(src[i], kSize), offered[i].completion());
    ASSERT_TRUE(cookie.ok()) << cookie.status().to_string();
    cookies[i] = exchange_cookie(pair, 0, *cookie);
  }
  ASSERT_TRUE(
      pair.to_peer(1).pull(cookies[1], contiguous(dst[1], kSize), pulled[1].completion()).ok());
  ASSERT_TRUE(pair.progress_until([&] { return offered[1].called && pulled[1].called; }))
      << "the later offer waits for the earlier one";
  EXPECT_FALSE(offered[0].called) << "done before the receiver pulled";
  ASSERT_TRUE(
      pair.to_peer(1).pull(cookies[0], contiguous(dst[0], kSize), pulled[0].completion()).ok());
  ASSERT_TRUE(pair.progress_until([&] { return offered[0].called && pulled[0].called; }));
  for (int i = 0; i < 2; ++i) {
    EXPECT_TRUE(offered[i].status.ok() && pulled[i].status.ok()) << i;
    EXPECT_EQ(dst[i], src[i]) << "offer " << i;
  }
}

// A piece size asked for by a knob: 0 keeps data whole, anything else is at least 4K.
TEST(PieceSize, ZeroOrAtLeastFourK) {
  EXPECT_EQ(piece_size_from(0), 0u);
  EXPECT_EQ(piece_size_from(1), kMinPieceSize);
  EXPECT_EQ(piece_size_from(4095), kMinPieceSize);
  EXPECT_EQ(piece_size_from(131072), 131072u);
}

// Offers interleaved with packets of every size: a packet sent right after an offer (which
// may ride with it) keeps its place among the others, and every offer can be pulled, also one
// that no packet followed.
TEST_P(NetConformance, OffersAndPacketsInterleaved) {
  NetPair pair(GetParam());
  const std::size_t sizes[] = {0, 8, 32, 64, 65, 100, 2048};  // around the ucx carry limit
  constexpr std::size_t kData = 200'000;
  std::vector<std::vector<std::byte>> src, dst;
  std::vector<Done> offered(std::size(sizes) + 1), pulled(std::size(sizes) + 1);
  std::vector<BulkCookie> cookies;
  auto offer = [&](int i) {
    src.push_back(pattern(kData, 100 + i));
    auto cookie = pair.to_peer(0).offer(contiguous(src.back(), kData), offered[i].completion());
    ASSERT_TRUE(cookie.ok()) << cookie.status().to_string();
    cookies.push_back(*cookie);
  };
  for (std::size_t i = 0; i < std::size(sizes); ++i) {
    pair.send(0, header_for(static_cast<int>(2 * i)), pattern(sizes[i], static_cast<int>(i)));
    ASSERT_NO_FATAL_FAILURE(offer(static_cast<int>(i)));
    pair.send(0, header_for(static_cast<int>(2 * i + 1)), pattern(sizes[i], 50));
  }
  ASSERT_NO_FATAL_FAILURE(offer(static_cast<int>(std::size(sizes))));  // nothing follows it
  std::size_t packets = 2 * std::size(sizes);
  ASSERT_TRUE(pair.progress_until([&] { return pair.received(1).size() == packets; }));
  for (std::size_t i = 0; i < packets; ++i) {
    const Received& got = pair.received(1)[i];
    EXPECT_EQ(got.header.tag, header_for(static_cast<int>(i)).tag) << "packet " << i;
    std::size_t k = i / 2;
    EXPECT_EQ(got.payload, pattern(sizes[k], i % 2 == 0 ? static_cast<int>(k) : 50)) << i;
  }
  for (std::size_t i = 0; i < cookies.size(); ++i) {
    dst.emplace_back(kData);
    ASSERT_TRUE(
        pair.to_peer(1).pull(cookies[i], contiguous(dst[i], kData), pulled[i].completion()).ok());
  }
  ASSERT_TRUE(pair.progress_until([&] {
    for (std::size_t i = 0; i < cookies.size(); ++i)
      if (!offered[i].called || !pulled[i].called) return false;
    return true;
  }));
  for (std::size_t i = 0; i < cookies.size(); ++i) {
    EXPECT_TRUE(offered[i].status.ok() && pulled[i].status.ok()) << i;
    EXPECT_EQ(dst[i], src[i]) << "offer " << i;
  }
}

// Before a process may leave, what it sent has left it.
TEST_P(NetConformance, QuiescentOnceSent) {
  NetPair pair(GetParam());
  for (int i = 0; i < 100; ++i) pair.send(0, header_for(i), pattern(4000, i));
  EXPECT_TRUE(pair.progress_until([&] { return pair.transport(0).quiescent(); }));
  std::vector<std::byte> src = pattern(200'000, 3);
  Done offered;
  auto cookie = pair.to_peer(0).offer(contiguous(src, src.size()), offered.completion());
  ASSERT_TRUE(cookie.ok());
  for (int i = 0; i < 1000; ++i) pair.progress();
  EXPECT_FALSE(pair.transport(0).quiescent()) << "its data is still offered";
  std::vector<std::byte> dst(src.size());
  Done pulled;
  ASSERT_TRUE(pair.to_peer(1).pull(*cookie, contiguous(dst, dst.size()), pulled.completion()).ok());
  EXPECT_TRUE(pair.progress_until([&] { return offered.called && pair.transport(0).quiescent(); }));
  EXPECT_TRUE(pair.progress_until([&] { return pulled.called; }));
  EXPECT_EQ(dst, src);
}

// A peer that left (it finalized) pulls nothing more: the transport forgets the offers to it,
// runs none of their completions, and is quiescent again, so that the process can leave.
TEST_P(NetConformance, ForgottenOffersKeepNothingBusy) {
  NetPair pair(GetParam());
  std::vector<std::byte> src = pattern(200'000, 3), small = pattern(100, 4);
  Done offered, offered_small;
  ASSERT_TRUE(pair.to_peer(0).offer(contiguous(src, src.size()), offered.completion()).ok());
  pair.send(0, header_for(1), pattern(16, 1));  // the offer leaves with the next packet
  for (int i = 0; i < 1000; ++i) pair.progress();
  ASSERT_TRUE(pair.to_peer(0)
                  .offer(contiguous(small, small.size()), offered_small.completion())
                  .ok());  // one not sent yet
  EXPECT_FALSE(pair.transport(0).quiescent()) << "its data is still offered";
  EXPECT_TRUE(pair.to_peer(0).forget_offers());
  EXPECT_TRUE(pair.progress_until([&] { return pair.transport(0).quiescent(); }));
  for (int i = 0; i < 1000; ++i) pair.progress();
  EXPECT_FALSE(offered.called);
  EXPECT_FALSE(offered_small.called);
  Done refused;
  EXPECT_FALSE(pair.to_peer(0).offer(contiguous(small, small.size()), refused.completion()).ok())
      << "an offer to a peer that left";
}

// Two processes of different jobs (each rank 0 of 2): each numbers the other beyond its job
// (5 and 3), packets arrive with the sender's number at the receiver, and bulk data moves.
TEST_P(NetConformance, ReachesAProcessOfAnotherJob) {
  ScopedEnv env(GetParam().env);
  std::vector<Received> got[2];
  auto on_packet = [](void* context, const Packet& p) {
    auto* into = static_cast<std::vector<Received>*>(context);
    into->push_back(
        Received{p.peer, *p.header, std::vector<std::byte>(p.payload, p.payload + p.length)});
  };
  auto a = GetParam().create(0, 2, PacketHandler{on_packet, &got[0]});
  auto b = GetParam().create(0, 2, PacketHandler{on_packet, &got[1]});
  ASSERT_TRUE(a.ok() && b.ok());
  Transport& ta = **a;
  Transport& tb = **b;
  EXPECT_EQ(ta.connect_other_job(1, 3, tb.address()).status().code(),
            ErrorCode::kInvalidArgument);  // a number of its own job
  auto to_b = ta.connect_other_job(5, 3, tb.address());
  auto to_a = tb.connect_other_job(3, 5, ta.address());
  ASSERT_TRUE(to_b.ok() && to_a.ok()) << to_b.status().to_string();
  auto progress_until = [&](const std::function<bool()>& done) {
    for (int i = 0; i < 2000000 && !done(); ++i) {
      ta.progress();
      tb.progress();
    }
    return done();
  };
  // Sends, progressing while the transport asks to retry (a connection still being made).
  auto send = [&](Endpoint* ep, const PacketHeader& h, const void* data, std::size_t length) {
    Status st = ep->send(h, data, length);
    for (int i = 0; i < 2000000 && st.code() == ErrorCode::kNoResource; ++i) {
      ta.progress();
      tb.progress();
      st = ep->send(h, data, length);
    }
    return st;
  };
  PacketHeader h{1, 0, 0, 7, 11, 0};
  std::vector<std::byte> payload = pattern(100, 1);
  ASSERT_TRUE(send(*to_b, h, payload.data(), payload.size()).ok());
  ASSERT_TRUE(send(*to_a, h, payload.data(), payload.size()).ok());
  ASSERT_TRUE(progress_until([&] { return got[0].size() == 1 && got[1].size() == 1; }));
  EXPECT_EQ(got[1][0].peer, 3);  // B knows A as 3
  EXPECT_EQ(got[0][0].peer, 5);  // A knows B as 5
  EXPECT_EQ(got[1][0].payload, payload);

  std::vector<std::byte> big = pattern(std::size_t{1} << 20, 2), into(big.size());
  Done offered, pulled;
  auto cookie = (*to_b)->offer(contiguous(big, big.size()), offered.completion());
  ASSERT_TRUE(cookie.ok());
  ASSERT_TRUE(send(*to_b, h, &*cookie, sizeof *cookie).ok());  // the cookie travels
  ASSERT_TRUE(progress_until([&] { return got[1].size() == 2; }));
  BulkCookie arrived;
  std::memcpy(&arrived, got[1][1].payload.data(), sizeof arrived);
  ASSERT_TRUE((*to_a)->pull(arrived, contiguous(into, into.size()), pulled.completion()).ok());
  ASSERT_TRUE(progress_until([&] { return offered.called && pulled.called; }));
  EXPECT_TRUE(offered.status.ok() && pulled.status.ok());
  EXPECT_EQ(into, big);
}

}  // namespace
}  // namespace gpurun::transport::testing

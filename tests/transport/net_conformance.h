// The conformance suite of the network transports (ucx, ofi): two ranks of one job in one
// process, each with its own transport instance, talking over loopback. Each transport's test
// file instantiates NetConformance with the ways it can be set up (NetSetup).
#pragma once

#include <gtest/gtest.h>

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "runtime/transport/transport.h"

namespace gpurun::transport::testing {

struct NetSetup {
  std::string name;  // for the test name: "ucx_tcp"
  // Creates the transport of `rank` in a job of `size` ranks.
  std::function<Result<std::unique_ptr<Transport>>(int rank, int size, PacketHandler handler)>
      create;
  std::string env;  // "NAME=value,..." set (for the transport's library) before create
};

inline void PrintTo(const NetSetup& setup, std::ostream* os) { *os << setup.name; }

inline std::string setup_name(const ::testing::TestParamInfo<NetSetup>& info) {
  return info.param.name;
}

// Sets the setup's environment variables while alive, restoring the old values after.
class ScopedEnv {
 public:
  explicit ScopedEnv(const std::string& list);
  ~ScopedEnv();

 private:
  std::vector<std::pair<std::string, std::optional<std::string>>> saved_;
};

// What a Completion reports.
struct Done {
  bool called = false;
  Status status;
  Completion completion() { return Completion{on_done, this}; }
  static void on_done(void* self, Status status) {
    auto* d = static_cast<Done*>(self);
    EXPECT_FALSE(d->called) << "a completion ran twice";
    d->called = true;
    d->status = std::move(status);
  }
};

struct Received {
  int peer;
  PacketHeader header;
  std::vector<std::byte> payload;
};

// Two ranks, each with a transport and an endpoint to the other.
class NetPair {
 public:
  explicit NetPair(const NetSetup& setup);
  Transport& transport(int rank) { return *side_[rank].transport; }
  Endpoint& to_peer(int rank) { return *side_[rank].to_peer; }
  std::vector<Received>& received(int rank) { return side_[rank].received; }
  void progress();
  // Progresses both sides until `done` holds; false (and a test failure) if it never does.
  bool progress_until(const std::function<bool()>& done);
  // Sends a packet, progressing while the transport asks to retry.
  void send(int rank, const PacketHeader& header, const std::vector<std::byte>& payload);

 private:
  struct Side {
    std::unique_ptr<Transport> transport;
    Endpoint* to_peer = nullptr;
    std::vector<Received> received;
  };
  static void on_packet(void* context, const Packet& packet);
  ScopedEnv env_;
  Side side_[2];
};

std::vector<std::byte> pattern(std::size_t size, int seed);

// Data over a buffer seen as non-contiguous: the packed stream is the buffer's bytes at even
// offsets then at odd ones, so any mix-up of offsets shows.
struct Strided {
  std::vector<std::byte> buffer;
  Data data();
  static std::size_t pack(void* self, std::size_t offset, void* dst, std::size_t length);
  static std::size_t unpack(void* self, std::size_t offset, const void* src, std::size_t length);
  std::size_t position(std::size_t packed_offset) const;
};

Data contiguous(std::vector<std::byte>& buffer, std::size_t size);

class NetConformance : public ::testing::TestWithParam<NetSetup> {};

}  // namespace gpurun::transport::testing

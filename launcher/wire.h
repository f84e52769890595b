// The TCP protocol between gpurun and its daemons on remote hosts: framed messages on one
// connection per daemon, the daemon connecting to gpurun.
//
// Frame: type (u32), body length (u32), body; integers little-endian. Until both sides have
// proved that they know the job's secret (auth.h), a frame may hold at most kMaxFrameBeforeAuth
// bytes, and only the authentication messages are accepted.
//
// Conversation: gpurun sends kChallenge; the daemon answers kProof; gpurun answers kAccept (or
// kReject and closes); gpurun sends kJob; the daemon sets up its PMIx server and answers kReady;
// once every host is ready gpurun sends kStart; the daemon starts its ranks and sends kSpawned.
// Then either side sends the rest at any time, and the daemon ends with kBye once its ranks
// are gone and its host is clean.
#pragma once

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace gpurun::launcher::wire {

enum class Type : std::uint32_t {
  kChallenge = 1,  // gpurun: nonce
  kProof,          // daemon: node id, nonce, proof
  kAccept,         // gpurun: proof
  kReject,         // gpurun: reason
  kJob,            // gpurun: JobSpec (job_spec.h)
  kReady,          // daemon: job dir, token
  kStart,          // gpurun: (empty)
  kSpawned,        // daemon: pid of each local rank, in rank order
  kOutput,         // daemon: rank, stream (1 stdout, 2 stderr), bytes
  kOutputEnd,      // daemon: rank, stream
  kRankEvent,      // daemon: rank, kind (RankEvent::Kind), code, message
  kRankExit,       // daemon: rank, wait status
  kStdin,          // gpurun: bytes for rank 0; empty: end of input
  kFence,          // daemon: sequence, participants, data
  kFenceDone,      // gpurun: sequence, participants, status, data
  kModexRequest,   // either: request id, rank
  kModexReply,     // either: request id, status, data
  kKill,           // gpurun: signal
  kFailure,        // daemon: what went wrong on its host (one line); it then ends
  kBye,            // daemon: its ranks are gone and its host is clean
  kSignal,         // gpurun: a signal for the ranks that does not end the job
};

inline constexpr std::size_t kMaxFrameBeforeAuth = 4096;
inline constexpr std::size_t kMaxFrame = std::size_t{1} << 30;

// A malformed message (launcher/ may throw).
class ProtocolError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class Encoder {
 public:
  Encoder& u32(std::uint32_t v);
  Encoder& i32(std::int32_t v) { return u32(static_cast<std::uint32_t>(v)); }
  Encoder& u64(std::uint64_t v);
  Encoder& str(std::string_view s);  // length (u32) and bytes
  Encoder& strings(const std::vector<std::string>& v);
  Encoder& ints(const std::vector<int>& v);
  std::string take() { return std::move(out_); }

 private:
  std::string out_;
};

// Reads what an Encoder wrote; throws ProtocolError past the end.
class Decoder {
 public:
  explicit Decoder(std::string_view in) : in_(in) {}
  std::uint32_t u32();
  std::int32_t i32() { return static_cast<std::int32_t>(u32()); }
  std::uint64_t u64();
  std::string str();
  std::vector<std::string> strings();
  std::vector<int> ints();
  bool done() const { return in_.empty(); }

 private:
  std::string_view take(std::size_t n);
  std::string_view in_;
};

struct Message {
  Type type;
  std::string body;
};

// One connection: a non-blocking socket with a receive buffer and a send queue. Not
// thread-safe; owned by one loop.
class Link {
 public:
  explicit Link(int fd);  // takes the fd, sets it non-blocking
  ~Link();
  Link(const Link&) = delete;
  Link& operator=(const Link&) = delete;

  int fd() const { return fd_; }
  // Reads what the socket holds; false on end of stream or error (`error()` says which).
  bool receive();
  // The next whole message received, if any. Throws ProtocolError for an oversized frame.
  std::optional<Message> next();
  // Queues a message and writes what the socket takes now.
  void send(Type type, std::string_view body);
  // Writes queued data; false on error.
  bool flush();
  bool wants_write() const { return sent_ < out_.size(); }
  std::size_t queued() const { return out_.size() - sent_; }
  // Sends what is queued, waiting up to `timeout_ms` (for the last words before closing).
  void flush_blocking(int timeout_ms);
  void set_authenticated() { authenticated_ = true; }
  const std::string& error() const { return error_; }

 private:
  int fd_;
  bool authenticated_ = false;
  std::string in_;
  std::size_t consumed_ = 0;
  std::string out_;
  std::size_t sent_ = 0;
  std::string error_;
};

// TCP keep-alive probes every second and a user timeout of `timeout_ms`, so that a host that
// vanishes without closing its connection is noticed within that time.
void set_liveness(int fd, int timeout_ms);

}  // namespace gpurun::launcher::wire

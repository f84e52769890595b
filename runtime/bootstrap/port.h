// Ports: how two jobs that share nothing meet (MPI_Open_port, MPI_Comm_accept,
// MPI_Comm_connect, MPI_Comm_join). A port is a TCP socket listening on one address of this host
// (the loopback unless the program asks for another); its name carries that address and a random
// secret. The accepting side's root takes a connection on it, the connecting side's root makes
// one, and the two roots trade messages over the Channel: frames of a 4-byte length and bytes.
// The first frame from the connecting side is the secret: a connection that does not bring it is
// dropped and the port waits for the next. Only the handshake travels here; messages go through
// the transports afterwards.
//
// Blocking calls take an `idle` function that runs while they wait (MPI progress), so that a
// root waiting for its peer keeps the rest of its communication moving.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/base/status.h"

namespace gpurun::bootstrap {

// What a port name says: "gpurun-port:<IPv4 address>:<tcp port>:<secret, 16 hex digits>".
struct PortName {
  std::string address;
  int tcp_port = 0;
  std::uint64_t secret = 0;
};
std::string format_port_name(const PortName& name);
// kInvalidArgument, naming what is wrong, for text that is no port name.
Result<PortName> parse_port_name(std::string_view text);

// One connected stream socket; closed with the object.
class Channel {
 public:
  explicit Channel(int fd) : fd_(fd) {}
  ~Channel();
  Channel(const Channel&) = delete;
  Channel& operator=(const Channel&) = delete;

  Status send(std::span<const std::byte> frame);
  // The next frame (at most `limit` bytes, else kInvalidArgument); kPeerFailed when the other
  // side closed the connection.
  Result<std::vector<std::byte>> receive(const std::function<void()>& idle,
                                         std::size_t limit = std::size_t{1} << 30);
  int fd() const { return fd_; }

 private:
  int fd_;
};

class Port {
 public:
  // Listens on `address` (IPv4, numeric) on a free TCP port.
  static Result<std::unique_ptr<Port>> open(std::string_view address);
  ~Port();
  Port(const Port&) = delete;
  Port& operator=(const Port&) = delete;

  const std::string& name() const { return name_; }
  // Waits for a connection that brings this port's secret. While it waits, `alive` (when set)
  // says whether the peer it waits for may still come: its failure ends the wait with it.
  Result<std::unique_ptr<Channel>> accept(const std::function<void()>& idle,
                                          const std::function<Status()>& alive = {});

 private:
  Port(int fd, PortName name);
  int fd_;
  PortName parsed_;
  std::string name_;
};

// Connects to the port `name` names and sends its secret. kPeerFailed when nothing listens.
Result<std::unique_ptr<Channel>> connect_port(const PortName& name);

// Waits until `fd` is readable (true) or `idle` has run `rounds` times with nothing to read
// (false; rounds < 0: no limit). Each round waits at most a millisecond.
bool wait_readable(int fd, const std::function<void()>& idle, int rounds = -1);

}  // namespace gpurun::bootstrap

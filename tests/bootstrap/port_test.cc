// Ports: names that say where and carry a secret, a connection that must bring the secret, and
// frames both ways over the loopback.
#include "runtime/bootstrap/port.h"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <thread>

namespace gpurun::bootstrap {
namespace {

std::vector<std::byte> bytes_of(std::string_view text) {
  auto b = std::as_bytes(std::span(text));
  return {b.begin(), b.end()};
}

TEST(PortName, FormatsAndParses) {
  PortName name{"127.0.0.1", 4242, 0x0123456789abcdefULL};
  std::string text = format_port_name(name);
  EXPECT_EQ(text, "gpurun-port:127.0.0.1:4242:0123456789abcdef");
  auto parsed = parse_port_name(text);
  ASSERT_TRUE(parsed.ok()) << parsed.status().to_string();
  EXPECT_EQ(parsed->address, "127.0.0.1");
  EXPECT_EQ(parsed->tcp_port, 4242);
  EXPECT_EQ(parsed->secret, name.secret);
}

TEST(PortName, RefusesWhatIsNoPortName) {
  for (const char* bad :
       {"", "nonsense", "gpurun-port:127.0.0.1:4242", "gpurun-port:127.0.0.1:0:0123456789abcdef",
        "gpurun-port:127.0.0.1:70000:0123456789abcdef",
        "gpurun-port:localhost:4242:0123456789abcdef", "gpurun-port:127.0.0.1:4242:0123"}) {
    auto parsed = parse_port_name(bad);
    EXPECT_EQ(parsed.status().code(), ErrorCode::kInvalidArgument) << bad;
  }
  EXPECT_NE(parse_port_name("x").status().message().find("is no port name"), std::string::npos);
}

// A connection without the secret is dropped; the one with it is taken and frames go both ways.
TEST(Port, TakesOnlyAConnectionWithItsSecret) {
  auto port = Port::open("127.0.0.1");
  ASSERT_TRUE(port.ok()) << port.status().to_string();
  auto name = parse_port_name((*port)->name());
  ASSERT_TRUE(name.ok());
  std::thread peer([n = *name] {
    PortName wrong = n;
    wrong.secret ^= 1;
    auto stray = connect_port(wrong);  // the kernel takes it; the port must drop it
    ASSERT_TRUE(stray.ok());
    auto ch = connect_port(n);
    ASSERT_TRUE(ch.ok());
    ASSERT_TRUE((*ch)->send(bytes_of("hello")).ok());
    auto reply = (*ch)->receive(nullptr);
    ASSERT_TRUE(reply.ok());
    EXPECT_EQ(*reply, bytes_of("world"));
  });
  auto ch = (*port)->accept(nullptr);
  ASSERT_TRUE(ch.ok()) << ch.status().to_string();
  auto got = (*ch)->receive(nullptr);
  ASSERT_TRUE(got.ok());
  EXPECT_EQ(*got, bytes_of("hello"));
  EXPECT_TRUE((*ch)->send(bytes_of("world")).ok());
  peer.join();
  // The peer closed its end: the next receive says so instead of waiting.
  EXPECT_EQ((*ch)->receive(nullptr).status().code(), ErrorCode::kPeerFailed);
}

TEST(Port, ConnectingWhereNothingListensFails) {
  auto port = Port::open("127.0.0.1");
  ASSERT_TRUE(port.ok());
  auto name = parse_port_name((*port)->name());
  port->reset();  // closed: nothing listens any more
  auto ch = connect_port(*name);
  EXPECT_EQ(ch.status().code(), ErrorCode::kPeerFailed);
  EXPECT_NE(ch.status().message().find("nothing accepts"), std::string::npos);
}

TEST(Port, RefusesAnAddressThatIsNoIpv4Address) {
  EXPECT_EQ(Port::open("not-an-address").status().code(), ErrorCode::kInvalidArgument);
}

}  // namespace
}  // namespace gpurun::bootstrap

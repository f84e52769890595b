// The software cost of one small message through the pml and the shm transport, without the
// cost of moving a cache line between cores: two ranks in one process and one thread, playing
// ping-pong. Run under `valgrind --tool=callgrind` for an instruction count that does not move
// with the machine's load; the time it prints is per message, both sides included.
//
// Usage: pml_pingpong [messages] [bytes]
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <memory>
#include <vector>

#include "pml/pml.h"
#include "runtime/base/clock.h"
#include "runtime/transport/shm/shm_transport.h"

using namespace gpurun;  // NOLINT(google-build-using-namespace): a small program

int main(int argc, char** argv) {
  long messages = argc > 1 ? std::atol(argv[1]) : 1'000'000;
  std::size_t bytes = argc > 2 ? std::strtoul(argv[2], nullptr, 10) : 8;
  auto type = core::Datatype::predefined(core::BasicType::kUint8, 1, "byte");
  std::unique_ptr<pml::Pml> pmls[2];
  std::unique_ptr<transport::shm::ShmTransport> shms[2];
  std::unique_ptr<core::Communicator> comms[2];
  for (int r = 0; r < 2; ++r) {
    pmls[r] = std::make_unique<pml::Pml>(r, 2);
    shms[r] = transport::shm::ShmTransport::create(
                  {r, {0, 1}, "micro" + std::to_string(getpid())}, pmls[r]->handler())
                  .value();
    pmls[r]->add_transport(shms[r].get());
    comms[r] = std::make_unique<core::Communicator>(core::Group::identity(2), r, 0);
    pmls[r]->add_comm(*comms[r]);
  }
  for (int r = 0; r < 2; ++r)
    pmls[r]->set_route(1 - r, shms[r]->connect(1 - r, shms[1 - r]->address()).value(), 16384,
                       "shm");
  std::vector<char> buf[2] = {std::vector<char>(bytes, 1), std::vector<char>(bytes, 2)};
  std::int64_t t0 = clock::now_ns();
  for (long i = 0; i < messages; ++i) {
    int from = static_cast<int>(i & 1), to = 1 - from;
    core::Request r;
    (void)pmls[to]->irecv({comms[to].get(), buf[to].data(), static_cast<std::int64_t>(bytes),
                           type.get(), from, 0},
                          &r);
    pmls[from]->send_now({comms[from].get(), buf[from].data(),
                          static_cast<std::int64_t>(bytes), type.get(), to, 0});
    while (!r.complete()) pmls[to]->progress();
  }
  double ns = static_cast<double>(clock::now_ns() - t0) / static_cast<double>(messages);
  std::printf("%zu-byte messages: %.1f ns each, send and receive sides together\n", bytes, ns);
  return 0;
}

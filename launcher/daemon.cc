// The daemon's start: arguments, the secret, connecting to gpurun, authentication, the job.
// Running the job is daemon_job.cc's.
#include "launcher/daemon.h"

#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <unistd.h>

#include <charconv>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <stdexcept>

#include "launcher/auth.h"
#include "launcher/daemon_job.h"
#include "launcher/environment.h"
#include "launcher/job_dir.h"
#include "launcher/listener.h"
#include "launcher/machine.h"
#include "launcher/params.h"
#include "launcher/signals.h"
#include "launcher/wire.h"
#include "runtime/base/log.h"

namespace gpurun::launcher {
namespace {

using Clock = std::chrono::steady_clock;

// A failure before the daemon knows the job: one line on stderr, exit code 1.
class StartError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

int parse_int(const std::string& text, const char* what) {
  int value = 0;
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || ptr != text.data() + text.size() || value < 0)
    throw StartError(std::string("gpurun --daemon: bad ") + what + " '" + text + "'");
  return value;
}

int ms_until(Clock::time_point deadline) {
  auto left = std::chrono::ceil<std::chrono::milliseconds>(deadline - Clock::now()).count();
  return static_cast<int>(std::max<long long>(left, 0));
}

// The first line of stdin (the agent passes gpurun's pipe through); stdin is /dev/null after.
std::string read_secret(int timeout_ms) {
  Clock::time_point deadline = Clock::now() + std::chrono::milliseconds(timeout_ms);
  std::string line;
  char c = 0;
  while (line.size() < 256) {
    pollfd p{.fd = STDIN_FILENO, .events = POLLIN, .revents = 0};
    if (poll(&p, 1, ms_until(deadline)) <= 0) throw StartError("no job secret on stdin");
    ssize_t n = read(STDIN_FILENO, &c, 1);
    if (n <= 0 || c == '\n') break;
    line += c;
  }
  int null = open("/dev/null", O_RDONLY | O_CLOEXEC);
  if (null >= 0) {
    dup2(null, STDIN_FILENO);
    close(null);
  }
  if (line.size() != 64) throw StartError("no job secret on stdin");
  return line;
}

// The next message, waiting up to `deadline`; throws StartError when the link ends first.
wire::Message await(wire::Link& link, Clock::time_point deadline, const char* waiting_for) {
  while (true) {
    if (auto message = link.next()) return *message;
    pollfd p{.fd = link.fd(), .events = POLLIN, .revents = 0};
    if (poll(&p, 1, ms_until(deadline)) <= 0)
      throw StartError(std::string("gpurun sent no ") + waiting_for + " in time");
    bool open = link.receive();
    if (auto message = link.next()) return *message;
    if (!open)
      throw StartError(std::string("gpurun closed the connection before the ") + waiting_for);
  }
}

// Proves the secret to gpurun and checks gpurun's proof (auth.h).
void authenticate(wire::Link& link, const std::string& secret, std::uint32_t node,
                  const std::string& endpoints, Clock::time_point deadline) {
  wire::Message challenge = await(link, deadline, "challenge");
  if (challenge.type != wire::Type::kChallenge) throw StartError("gpurun sent no challenge");
  std::string challenge_bytes = wire::Decoder(challenge.body).str();
  std::string nonce = auth::random_bytes(auth::kNonceBytes);
  link.send(wire::Type::kProof, wire::Encoder()
                                    .u32(node)
                                    .str(nonce)
                                    .str(auth::daemon_proof(secret, node, challenge_bytes, nonce))
                                    .str(machine_id())
                                    .take());
  wire::Message answer = await(link, deadline, "answer to its proof");
  if (answer.type == wire::Type::kReject)
    throw StartError("gpurun at " + endpoints +
                     " refused this daemon: " + wire::Decoder(answer.body).str());
  std::string proof = answer.type == wire::Type::kAccept ? wire::Decoder(answer.body).str() : "";
  if (!auth::same(proof, auth::launcher_proof(secret, node, challenge_bytes, nonce)))
    throw StartError("the gpurun at " + endpoints +
                     " failed authentication (it does not have this job's secret); running "
                     "nothing");
  link.set_authenticated();
}

// Sets the job's variables (gpurun's knobs among them) in this process, then reads the knobs.
void apply_environment(const JobSpec& spec) {
  scrub_inherited_environment();
  for (const std::string& entry : spec.env) {
    auto eq = entry.find('=');
    if (eq != std::string::npos) setenv(entry.substr(0, eq).c_str(), entry.c_str() + eq + 1, 1);
  }
  add_library_path();  // this host's gpurun library, where it lies elsewhere
  gpurun::log::configure();
  set_pmix_environment();
}

int serve(const std::vector<std::string>& args) {
  if (args.size() != 3) throw StartError("usage: gpurun --daemon ENDPOINTS NODE TIMEOUT_MS");
  const std::string& endpoints = args[0];
  auto node = static_cast<std::uint32_t>(parse_int(args[1], "node"));
  int timeout_ms = parse_int(args[2], "timeout");
  Clock::time_point deadline = Clock::now() + std::chrono::milliseconds(timeout_ms);
  std::string secret = read_secret(timeout_ms);
  std::string error;
  int fd = connect_to(endpoints, timeout_ms, error);
  if (fd < 0) throw StartError("cannot reach gpurun at " + error);
  wire::Link link(fd);
  authenticate(link, secret, node, endpoints, deadline);
  wire::Message job = await(link, deadline, "job");
  if (job.type != wire::Type::kJob) throw StartError("gpurun sent no job");
  JobSpec spec = decode_job_spec(job.body);
  // Until now a signal simply ends the daemon (there is nothing to clean up); from now on the
  // loop reads them, before libpmix starts its thread.
  SignalFd signals;
  apply_environment(spec);
  wire::set_liveness(fd, static_cast<int>(std::chrono::duration_cast<std::chrono::milliseconds>(
                                              params::host_timeout().get())
                                              .count()));
  return serve_job(std::move(spec), link, signals.fd());
}

}  // namespace

int run_daemon(const std::vector<std::string>& args) {
  try {
    return serve(args);
  } catch (const StartError& e) {
    std::fprintf(stderr, "%s\n", e.what());
  } catch (const wire::ProtocolError& e) {
    std::fprintf(stderr, "gpurun sent a malformed message (%s)\n", e.what());
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s\n", e.what());
  }
  return 1;
}

int run_host_cleanup(const std::vector<std::string>& args) {
  if (args.size() != 2) {
    std::fprintf(stderr, "usage: gpurun --host-cleanup JOBDIR TOKEN\n");
    return 2;
  }
  std::filesystem::path dir(args[0]);
  const std::string& token = args[1];
  if (!dir.is_absolute() || !dir.filename().string().starts_with("gpurun.") ||
      !is_job_token(token)) {
    std::fprintf(stderr, "gpurun --host-cleanup: %s %s is no gpurun job\n", args[0].c_str(),
                 token.c_str());
    return 2;
  }
  std::error_code ec;
  std::filesystem::remove_all(dir, ec);
  remove_shm_segments(token);
  return ec ? 1 : 0;
}

}  // namespace gpurun::launcher

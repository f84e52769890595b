// gpurun: starts an MPI job on this host or across hosts. See `gpurun --help` and
// launcher/README.md.
#include <fcntl.h>
#include <unistd.h>

#include <cstdio>
#include <exception>

#include "launcher/cli.h"
#include "launcher/daemon.h"
#include "launcher/environment.h"
#include "launcher/explain.h"
#include "launcher/info.h"
#include "launcher/launch.h"
#include "runtime/base/log.h"

namespace {

// Pipes and files opened later must not land on 0, 1 or 2 if gpurun was started with one
// of them closed.
void ensure_standard_fds() {
  for (int fd = 0; fd < 3; ++fd)
    if (fcntl(fd, F_GETFD) < 0) open("/dev/null", fd == 0 ? O_RDONLY : O_WRONLY);
}

int run(int argc, char** argv) {
  using gpurun::launcher::Options;
  Options options = gpurun::launcher::parse_command_line(argc, argv);
  switch (options.action) {
    case Options::Action::kVersion:
      std::fputs(gpurun::launcher::version_text().c_str(), stdout);
      return 0;
    case Options::Action::kHelp:
      std::fputs(gpurun::launcher::usage_text().c_str(), stdout);
      return 0;
    case Options::Action::kInfo:
      return gpurun::launcher::print_info(options.info_topic);
    case Options::Action::kExplain:
      gpurun::log::configure();
      return gpurun::launcher::explain(options);
    case Options::Action::kDaemon:
      return gpurun::launcher::run_daemon(options.internal_args);
    case Options::Action::kHostCleanup:
      return gpurun::launcher::run_host_cleanup(options.internal_args);
    case Options::Action::kRun:
      break;
  }
  gpurun::launcher::scrub_inherited_environment();
  gpurun::launcher::add_library_path();  // MPICH-built programs find gpurun's library
  gpurun::log::configure();
  gpurun::launcher::warn_unknown_knobs();
  return gpurun::launcher::launch(options);
}

int run_catching(int argc, char** argv) {
  try {
    return run(argc, argv);
  } catch (const gpurun::launcher::UsageError& e) {
    std::fprintf(stderr, "gpurun: %s\n", e.what());
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "gpurun: %s\n", e.what());
    return 1;
  }
}

}  // namespace

int main(int argc, char** argv) {
  ensure_standard_fds();
  int code = run_catching(argc, argv);
  // Every job resource is released by now; _exit rather than exit so that no static
  // destructor runs under a PMIx thread that was not finalized (see PmixServer::abandon).
  std::fflush(nullptr);
  _exit(code);
}

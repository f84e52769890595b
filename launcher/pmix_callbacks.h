// The PMIx server module: callbacks that libpmix runs on its progress thread.
#pragma once

#include <pmix_server.h>

#include "launcher/events.h"

namespace gpurun::launcher {

// Where the callbacks push their events (one server per process); nullptr detaches them.
// `across_hosts`: the job has ranks on other hosts, so fences and direct modex requests are
// queued for the main loop (kFence, kModexAsk) instead of being answered at once.
void install_callbacks_target(EventQueue* events, bool across_hosts = false);
// The module handed to PMIx_server_init.
pmix_server_module_t server_module();

}  // namespace gpurun::launcher

// Launch agents: the command that starts gpurun's daemon on a remote host (ssh by default,
// or --launch-agent 'CMD' such as 'ip netns exec {host}').
#pragma once

#include <string>
#include <vector>

namespace gpurun::launcher {

// The words of `agent` (split at blanks; single or double quotes group words), each "{host}"
// replaced by `host`, or `host` appended when no word names it, then `command`. When the agent
// is ssh or rsh, which hand the command to a shell on the remote host, words of `command`
// holding anything but letters, digits and /._,:=+- are quoted for that shell. Throws
// UsageError for an agent without words or with an unbalanced quote.
std::vector<std::string> agent_argv(const std::string& agent, const std::string& host,
                                    const std::vector<std::string>& command);

}  // namespace gpurun::launcher

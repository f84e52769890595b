#include "launcher/agent.h"

#include "launcher/cli.h"
#include "launcher/words.h"

namespace gpurun::launcher {
namespace {

std::vector<std::string> split_command(const std::string& text) {
  std::vector<std::string> words = split_words(text, "--launch-agent '" + text + "'");
  if (words.empty()) throw UsageError("--launch-agent needs a command");
  return words;
}

bool plain(const std::string& word) {
  for (char c : word) {
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              std::string_view("/._,:=+-").find(c) != std::string_view::npos;
    if (!ok) return false;
  }
  return !word.empty();
}

std::string shell_quote(const std::string& word) {
  if (plain(word)) return word;
  std::string out = "'";
  for (char c : word) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

bool remote_shell(const std::string& program) {
  std::string base = program.substr(program.rfind('/') + 1);
  return base == "ssh" || base == "rsh";
}

}  // namespace

std::vector<std::string> agent_argv(const std::string& agent, const std::string& host,
                                    const std::vector<std::string>& command) {
  std::vector<std::string> argv = split_command(agent);
  bool named = false;
  for (std::string& word : argv) {
    for (std::size_t at; (at = word.find("{host}")) != std::string::npos; named = true)
      word.replace(at, 6, host);
  }
  if (!named) argv.push_back(host);
  bool quote = remote_shell(argv.front());
  for (const std::string& word : command) argv.push_back(quote ? shell_quote(word) : word);
  return argv;
}

}  // namespace gpurun::launcher

// gpurun's output options (launcher/cli_args.h).
#include <string>

#include "launcher/cli_args.h"
#include "launcher/stdin_fan.h"

namespace gpurun::launcher {
namespace {

// "--output-filename DIR[:MOD,MOD]": the directory and Open MPI's modifiers.
void parse_output_dir(std::string_view text, std::string_view name, OutputSpec& out) {
  std::string_view dir = text.substr(0, text.find(':'));
  if (dir.empty()) throw UsageError(std::string(name) + " needs a directory");
  out.dir = std::string(dir);
  if (dir.size() == text.size()) return;
  std::string_view mods = text.substr(dir.size() + 1);
  for (std::size_t at = 0; at <= mods.size();) {
    std::size_t end = std::min(mods.find(',', at), mods.size());
    std::string_view mod = mods.substr(at, end - at);
    at = end + 1;
    if (mod == "nocopy")
      out.copy = false;
    else if (mod == "nojobid")
      out.job_level = false;
    else
      throw UsageError(std::string(name) + ": '" + std::string(mod) +
                       "' is not a modifier (nocopy, nojobid)");
  }
}

}  // namespace

bool parse_stdin_option(int argc, char** argv, int& i, std::string_view arg, int& stdin_rank) {
  if (!matches(arg, "--stdin") && !matches(arg, "-stdin")) return false;
  std::string_view name = arg.substr(0, arg.find('='));
  std::string_view value = take_value(argc, argv, i, arg, name);
  if (value == "all") {
    stdin_rank = kStdinAll;
  } else if (value == "none") {
    stdin_rank = kStdinNone;
  } else if (value == "0") {
    stdin_rank = 0;
  } else {
    try {
      stdin_rank = parse_positive(value, name);
    } catch (const UsageError&) {
      throw UsageError(std::string(name) + ": '" + std::string(value) +
                       "' is not a rank, all or none");
    }
  }
  return true;
}

bool parse_output_option(int argc, char** argv, int& i, std::string_view arg, OutputSpec& out) {
  if (arg == "--tag-output" || arg == "-l" || arg == "-prepend-rank") {
    out.tag = true;
  } else if (arg == "--timestamp-output") {
    out.timestamp = true;
  } else if (arg == "--merge-stderr-to-stdout") {
    out.merge_stderr = true;
  } else if (matches(arg, "--output-filename") || matches(arg, "-output-filename")) {
    std::string_view name = arg.substr(0, arg.find('='));
    parse_output_dir(take_value(argc, argv, i, arg, name), name, out);
  } else if (matches(arg, "-outfile-pattern") || matches(arg, "--outfile-pattern") ||
             matches(arg, "-errfile-pattern") || matches(arg, "--errfile-pattern")) {
    std::string name(arg.substr(0, arg.find('=')));
    std::string pattern(take_value(argc, argv, i, arg, name));
    check_pattern(pattern, name);
    (name.find("outfile") != std::string::npos ? out.out_pattern : out.err_pattern) = pattern;
  } else {
    return false;
  }
  return true;
}

}  // namespace gpurun::launcher

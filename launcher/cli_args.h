// The two ways an option of gpurun's command line takes its value, shared by its parsers.
#pragma once

#include <string>
#include <string_view>

#include "launcher/cli.h"

namespace gpurun::launcher {

// Whether `arg` is option `name`, alone or as "name=value".
inline bool matches(std::string_view arg, std::string_view name) {
  return arg == name ||
         (arg.starts_with(name) && arg.size() > name.size() && arg[name.size()] == '=');
}

// Takes the value of an option: "--opt value" or "--opt=value".
inline std::string_view take_value(int argc, char** argv, int& i, std::string_view arg,
                                   std::string_view name) {
  if (arg.size() > name.size() && arg[name.size()] == '=') return arg.substr(name.size() + 1);
  if (i + 1 >= argc) throw UsageError(std::string(name) + " needs a value");
  return argv[++i];
}

// The options that decide where the ranks' output goes (launcher/output.h): --tag-output (-l,
// -prepend-rank), --timestamp-output, --merge-stderr-to-stdout, --output-filename
// DIR[:nocopy,nojobid]. Returns false when `arg` is none of them.
bool parse_output_option(int argc, char** argv, int& i, std::string_view arg, OutputSpec& out);

}  // namespace gpurun::launcher

#include "launcher/apps.h"

#include <fstream>

#include "launcher/cli.h"
#include "launcher/words.h"

namespace gpurun::launcher {

int app_of_rank(const std::vector<App>& apps, int rank) {
  int first = 0;
  for (std::size_t i = 0; i < apps.size(); ++i) {
    if (apps[i].np == 0) return static_cast<int>(i);  // the sole program, every rank
    first += apps[i].np;
    if (rank < first) return static_cast<int>(i);
  }
  return static_cast<int>(apps.size()) - 1;
}

bool any_program_hosts(const std::vector<App>& apps) {
  for (const App& app : apps)
    if (!app.hosts.empty() || !app.hostfile.empty()) return true;
  return false;
}

std::vector<int> app_sizes(const std::vector<App>& apps, int size) {
  std::vector<int> sizes;
  for (const App& app : apps) sizes.push_back(app.np == 0 ? size : app.np);
  return sizes;
}

std::vector<std::pair<std::string, std::vector<std::string>>> read_app_file(
    const std::string& path) {
  std::ifstream in(path);
  if (!in) throw UsageError("--app " + path + ": cannot read the file");
  std::vector<std::pair<std::string, std::vector<std::string>>> lines;
  std::string line;
  for (int number = 1; std::getline(in, line); ++number) {
    std::string where = path + ":" + std::to_string(number);
    std::vector<std::string> words = split_words(line, where);
    if (words.empty() || words.front().starts_with("#")) continue;
    lines.emplace_back(where, std::move(words));
  }
  if (lines.empty()) throw UsageError("--app " + path + ": names no program");
  return lines;
}

}  // namespace gpurun::launcher

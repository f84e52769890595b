#include "runtime/topo/pci_probe.h"

#include <dirent.h>
#include <fcntl.h>
#include <unistd.h>

#include <cstdlib>
#include <memory>

namespace gpurun::topo {
namespace {

// The number in a sysfs attribute file ("0x10de\n"), or -1.
long read_hex_file(const std::string& path) {
  int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return -1;
  char text[32] = {};
  ssize_t n = read(fd, text, sizeof text - 1);
  close(fd);
  if (n <= 0) return -1;
  char* end = nullptr;
  long value = std::strtol(text, &end, 16);
  return end == text ? -1 : value;
}

struct DirCloser {
  void operator()(DIR* dir) const { closedir(dir); }
};

}  // namespace

bool has_nvidia_gpu(const std::string& devices_dir) {
  constexpr long kNvidia = 0x10de;
  std::unique_ptr<DIR, DirCloser> dir(opendir(devices_dir.c_str()));
  if (dir == nullptr) return false;
  while (dirent* entry = readdir(dir.get())) {
    if (entry->d_name[0] == '.') continue;
    std::string device = devices_dir + "/" + entry->d_name;
    if (read_hex_file(device + "/vendor") != kNvidia) continue;
    long pci_class = read_hex_file(device + "/class") >> 8;  // drop the programming interface
    if (pci_class == 0x0300 || pci_class == 0x0302) return true;
  }
  return false;
}

}  // namespace gpurun::topo

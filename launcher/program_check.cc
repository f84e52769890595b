#include "launcher/program_check.h"

#include <elf.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstring>
#include <string_view>

#include "launcher/cli.h"

namespace gpurun::launcher {
namespace {

// A read-only mapping of a whole file.
class Mapped {
 public:
  explicit Mapped(const std::string& path) {
    int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return;
    struct stat st;
    if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0) {
      void* p = mmap(nullptr, static_cast<std::size_t>(st.st_size), PROT_READ, MAP_PRIVATE, fd, 0);
      if (p != MAP_FAILED) {
        data_ = static_cast<const unsigned char*>(p);
        size_ = static_cast<std::size_t>(st.st_size);
      }
    }
    close(fd);
  }
  ~Mapped() {
    if (data_ != nullptr) munmap(const_cast<unsigned char*>(data_), size_);
  }
  Mapped(const Mapped&) = delete;
  Mapped& operator=(const Mapped&) = delete;

  // The `T` at `offset`, or null when it does not lie whole inside the file.
  template <class T>
  const T* at(std::uint64_t offset, std::uint64_t count = 1) const {
    if (data_ == nullptr || offset > size_ || count > (size_ - offset) / sizeof(T)) return nullptr;
    return reinterpret_cast<const T*>(data_ + offset);
  }
  std::size_t size() const { return size_; }

 private:
  const unsigned char* data_ = nullptr;
  std::size_t size_ = 0;
};

// The file offset of virtual address `addr`, through the PT_LOAD segment that holds it.
std::optional<std::uint64_t> file_offset(const Elf64_Phdr* phdrs, int count, std::uint64_t addr) {
  for (int i = 0; i < count; ++i) {
    const Elf64_Phdr& p = phdrs[i];
    if (p.p_type == PT_LOAD && addr >= p.p_vaddr && addr - p.p_vaddr < p.p_filesz)
      return p.p_offset + (addr - p.p_vaddr);
  }
  return std::nullopt;
}

}  // namespace

std::optional<std::vector<std::string>> needed_libraries(const std::string& path) {
  Mapped file(path);
  const auto* eh = file.at<Elf64_Ehdr>(0);
  if (eh == nullptr || std::memcmp(eh->e_ident, ELFMAG, SELFMAG) != 0 ||
      eh->e_ident[EI_CLASS] != ELFCLASS64 || eh->e_ident[EI_DATA] != ELFDATA2LSB ||
      eh->e_phentsize != sizeof(Elf64_Phdr))
    return std::nullopt;
  const auto* phdrs = file.at<Elf64_Phdr>(eh->e_phoff, eh->e_phnum);
  if (phdrs == nullptr) return std::nullopt;
  const Elf64_Dyn* dyn = nullptr;
  std::uint64_t dyn_count = 0;
  for (int i = 0; i < eh->e_phnum; ++i) {
    if (phdrs[i].p_type != PT_DYNAMIC) continue;
    dyn_count = phdrs[i].p_filesz / sizeof(Elf64_Dyn);
    dyn = file.at<Elf64_Dyn>(phdrs[i].p_offset, dyn_count);
  }
  if (dyn == nullptr) return std::nullopt;
  std::optional<std::uint64_t> strtab;
  for (std::uint64_t i = 0; i < dyn_count && dyn[i].d_tag != DT_NULL; ++i)
    if (dyn[i].d_tag == DT_STRTAB) strtab = file_offset(phdrs, eh->e_phnum, dyn[i].d_un.d_ptr);
  if (!strtab) return std::nullopt;
  std::vector<std::string> needed;
  for (std::uint64_t i = 0; i < dyn_count && dyn[i].d_tag != DT_NULL; ++i) {
    if (dyn[i].d_tag != DT_NEEDED) continue;
    const char* name = file.at<char>(*strtab + dyn[i].d_un.d_val);
    if (name == nullptr) return std::nullopt;
    needed.emplace_back(name, strnlen(name, file.size() - (*strtab + dyn[i].d_un.d_val)));
  }
  return needed;
}

std::string foreign_mpi_library(const std::vector<std::string>& needed) {
  for (std::string_view lib : needed) {
    bool open_mpi = lib.starts_with("libmpi.so.40") || lib.starts_with("libmpi.so.20") ||
                    lib.starts_with("libmpi_mpifh.so") || lib.starts_with("libmpi_usempi") ||
                    lib.starts_with("libmpi_cxx.so") || lib.starts_with("libmpi_java.so");
    if (open_mpi) return std::string(lib);
  }
  return "";
}

void check_program_mpi(const std::string& path) {
  std::optional<std::vector<std::string>> needed = needed_libraries(path);
  if (!needed) return;
  std::string foreign = foreign_mpi_library(*needed);
  if (foreign.empty()) return;
  throw UsageError(path + " is built against Open MPI (it needs " + foreign +
                   "): gpurun's library cannot stand in for Open MPI's, and each rank would run "
                   "alone. Rebuild it with gpurun's mpicc (programs built with MPICH's run "
                   "unchanged)");
}

}  // namespace gpurun::launcher

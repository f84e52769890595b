#include "runtime/transport/shm/cma.h"

#include <sys/uio.h>

#include <cerrno>

namespace gpurun::transport::shm {

Status cma_copy(int pid, bool write, std::byte* local, std::uint64_t remote, std::size_t length) {
  std::size_t done = 0;
  while (done < length) {
    iovec here{local + done, length - done};
    iovec there{reinterpret_cast<void*>(remote + done), length - done};
    ssize_t n = write ? process_vm_writev(pid, &here, 1, &there, 1, 0)
                      : process_vm_readv(pid, &here, 1, &there, 1, 0);
    if (n <= 0) return errno_status(write ? "process_vm_writev" : "process_vm_readv", errno);
    done += static_cast<std::size_t>(n);
  }
  return ok_status();
}

}  // namespace gpurun::transport::shm

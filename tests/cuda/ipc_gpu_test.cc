// cuda_ipc on a real GPU (label gpu; skipped without one): two processes, each with its shm
// and cuda_ipc transports, move device buffers of every allocator between them. CUDA is never
// initialised in the test process itself, which forks the ranks (CUDA does not survive a fork).
#include <cuda_runtime_api.h>
#include <dlfcn.h>
#include <gtest/gtest.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <functional>
#include <vector>

#include "cuda/ipc/cuda_ipc_transport.h"
#include "runtime/transport/shm/shm_transport.h"

namespace gpurun::cuda::ipc {
namespace {

#define RANK_CHECK(cond)                                                           \
  do {                                                                             \
    if (!(cond)) {                                                                 \
      std::fprintf(stderr, "rank check failed at line %d: %s\n", __LINE__, #cond); \
      return 1;                                                                    \
    }                                                                              \
  } while (0)

// Whether a usable GPU is here, asked in a child so that this process stays CUDA-free.
bool gpu_present(int* devices) {
  int fds[2];
  if (pipe(fds) != 0) return false;
  pid_t child = fork();
  if (child == 0) {
    close(fds[0]);
    int count = 0;
    if (!system_driver().ok() || cudaGetDeviceCount(&count) != cudaSuccess) count = 0;
    if (write(fds[1], &count, sizeof count) != sizeof count) _exit(1);
    _exit(0);
  }
  close(fds[1]);
  int count = 0;
  if (read(fds[0], &count, sizeof count) != sizeof count) count = 0;
  close(fds[0]);
  waitpid(child, nullptr, 0);
  *devices = count;
  return count > 0;
}

struct Done {
  bool fired = false;
  Status status;
  static void fn(void* self, Status s) {
    static_cast<Done*>(self)->fired = true;
    static_cast<Done*>(self)->status = std::move(s);
  }
};

// One rank: transports connected to the other rank, and a socket to it for test messages.
struct Rank {
  int rank = 0;
  int sock = -1;
  std::unique_ptr<transport::shm::ShmTransport> shm;
  std::unique_ptr<CudaIpcTransport> ipc;
  transport::Endpoint* ep = nullptr;

  void put(const void* p, std::size_t n) {
    if (write(sock, p, n) != static_cast<ssize_t>(n)) _exit(5);
  }
  void get(void* p, std::size_t n) {
    auto* b = static_cast<char*>(p);
    for (std::size_t got = 0; got < n;) {
      ssize_t r = read(sock, b + got, n - got);
      if (r <= 0) _exit(6);
      got += static_cast<std::size_t>(r);
    }
  }
  void put_bytes(const std::vector<std::byte>& v) {
    std::uint64_t n = v.size();
    put(&n, sizeof n);
    put(v.data(), v.size());
  }
  std::vector<std::byte> get_bytes() {
    std::uint64_t n = 0;
    get(&n, sizeof n);
    std::vector<std::byte> v(n);
    get(v.data(), n);
    return v;
  }
  bool wait(Done& d) {
    auto until = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    while (!d.fired && std::chrono::steady_clock::now() < until) {
      shm->progress();
      ipc->progress();
    }
    return d.fired && d.status.ok();
  }
  // Offers `data`, hands the cookie to the other rank, waits until it has read it.
  bool send(const transport::Data& data) {
    Done done;
    auto cookie = ep->offer(data, transport::Completion{Done::fn, &done});
    if (!cookie.ok()) {
      std::fprintf(stderr, "offer: %s\n", cookie.status().to_string().c_str());
      return false;
    }
    put(&*cookie, sizeof *cookie);
    bool ok = wait(done);
    if (!ok) std::fprintf(stderr, "offer completion: %s\n", done.status.to_string().c_str());
    return ok;
  }
  bool receive(const transport::Data& data) {
    transport::BulkCookie cookie;
    get(&cookie, sizeof cookie);
    Done done;
    Status st = ep->pull(cookie, data, transport::Completion{Done::fn, &done});
    if (!st.ok() || !wait(done)) {
      std::fprintf(stderr, "pull: %s %s\n", st.to_string().c_str(),
                   done.status.to_string().c_str());
      return false;
    }
    return true;
  }
  void barrier() {
    char c = 0;
    put(&c, 1);
    get(&c, 1);
  }
};

transport::Data device(void* p, std::size_t n) {
  transport::Data d;
  d.size = n;
  d.contiguous = p;
  d.kind = accel::MemoryKind::kCudaDevice;
  return d;
}

transport::Data host(void* p, std::size_t n) {
  transport::Data d;
  d.size = n;
  d.contiguous = p;
  return d;
}

using Body = std::function<int(Rank&)>;

void ignore_packet(void*, const transport::Packet&);

int run_rank(int rank, int sock, const std::string& token, int device, const Body& body) {
  if (cudaSetDevice(device) != cudaSuccess) return 2;
  Rank r;
  r.rank = rank;
  r.sock = sock;
  auto shm = transport::shm::ShmTransport::create(transport::shm::Config{rank, {0, 1}, token},
                                                  transport::PacketHandler{ignore_packet, nullptr});
  if (!shm.ok()) return 3;
  r.shm = std::move(shm).value();
  auto ipc = CudaIpcTransport::create(Config{rank, {0, 1}, token, "", r.shm->caps().max_packet});
  if (!ipc.ok()) return 3;
  r.ipc = std::move(ipc).value();
  r.put_bytes(r.shm->address());
  r.put_bytes(r.ipc->address());
  auto peer_shm = r.get_bytes();
  auto peer_ipc = r.get_bytes();
  auto host_ep = r.shm->connect(1 - rank, peer_shm);
  if (!host_ep.ok()) return 4;
  auto ep = r.ipc->connect(1 - rank, peer_ipc, host_ep.value());
  if (!ep.ok()) return 4;
  r.ep = ep.value();
  int rc = body(r);
  r.barrier();  // neither leaves while the other may still map its memory
  return rc;
}

void ignore_packet(void*, const transport::Packet&) {}

// Runs the two ranks in two processes (rank 1 on `device1`); true when both succeeded.
void run_pair(const Body& rank0, const Body& rank1, int device1 = 0) {
  int fds[2];
  ASSERT_EQ(socketpair(AF_UNIX, SOCK_STREAM, 0, fds), 0);
  std::string token = "gputest" + std::to_string(getpid()) + "x" +
                      std::to_string(std::chrono::steady_clock::now().time_since_epoch().count());
  pid_t pids[2];
  for (int rank = 0; rank < 2; ++rank) {
    pids[rank] = fork();
    if (pids[rank] == 0) {
      close(fds[1 - rank]);
      _exit(run_rank(rank, fds[rank], token, rank == 0 ? 0 : device1, rank == 0 ? rank0 : rank1));
    }
  }
  close(fds[0]);
  close(fds[1]);
  for (int rank = 0; rank < 2; ++rank) {
    int status = 0;
    waitpid(pids[rank], &status, 0);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0)
        << "rank " << rank << " ended with status " << status;
  }
}

class IpcGpu : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!gpu_present(&devices_)) GTEST_SKIP() << "no usable GPU";
  }
  int devices_ = 0;
};

std::vector<unsigned char> pattern(std::size_t n, int seed) {
  std::vector<unsigned char> v(n);
  for (std::size_t i = 0; i < n; ++i) v[i] = static_cast<unsigned char>((i * 31 + seed) & 0xff);
  return v;
}

// Rank 0 sends `n` bytes from a buffer made by `make`; rank 1 receives into device memory and
// checks them.
void device_round(std::size_t n, const std::function<void*(std::size_t)>& make,
                  const std::function<void(void*)>& free_fn, int device1 = 0) {
  run_pair(
      [&](Rank& r) {
        void* src = make(n);
        RANK_CHECK(src != nullptr);
        auto p = pattern(n, 1);
        RANK_CHECK(cudaMemcpy(src, p.data(), n, cudaMemcpyHostToDevice) == cudaSuccess);
        RANK_CHECK(r.send(device(src, n)));
        r.barrier();
        free_fn(src);
        return 0;
      },
      [&](Rank& r) {
        void* dst = nullptr;
        RANK_CHECK(cudaMalloc(&dst, n) == cudaSuccess);
        RANK_CHECK(r.receive(device(dst, n)));
        std::vector<unsigned char> back(n);
        RANK_CHECK(cudaMemcpy(back.data(), dst, n, cudaMemcpyDeviceToHost) == cudaSuccess);
        RANK_CHECK(back == pattern(n, 1));
        r.barrier();
        cudaFree(dst);
        return 0;
      },
      device1);
}

void* malloc_device(std::size_t n) {
  void* p = nullptr;
  return cudaMalloc(&p, n) == cudaSuccess ? p : nullptr;
}
void free_device(void* p) { cudaFree(p); }

TEST_F(IpcGpu, DeviceToDeviceOnOneGpu) {
  for (std::size_t n : {std::size_t{8}, std::size_t{1} << 20, std::size_t{64} << 20})
    device_round(n, malloc_device, free_device);
}

TEST_F(IpcGpu, DeviceToDeviceAcrossGpus) {
  if (devices_ < 2) GTEST_SKIP() << "one GPU only";
  device_round(std::size_t{16} << 20, malloc_device, free_device, /*device1=*/1);
}

TEST_F(IpcGpu, DeviceToHostAndHostToDevice) {
  constexpr std::size_t n = std::size_t{4} << 20;
  run_pair(
      [&](Rank& r) {
        void* src = malloc_device(n);
        auto p = pattern(n, 2);
        RANK_CHECK(cudaMemcpy(src, p.data(), n, cudaMemcpyHostToDevice) == cudaSuccess);
        RANK_CHECK(r.send(device(src, n)));  // into rank 1's host memory
        std::vector<unsigned char> h = pattern(n, 3);
        RANK_CHECK(r.send(host(h.data(), n)));  // into rank 1's device memory, staged
        cudaFree(src);
        return 0;
      },
      [&](Rank& r) {
        std::vector<unsigned char> h(n);
        RANK_CHECK(r.receive(host(h.data(), n)));
        RANK_CHECK(h == pattern(n, 2));
        void* dst = malloc_device(n);
        RANK_CHECK(r.receive(device(dst, n)));
        RANK_CHECK(cudaMemcpy(h.data(), dst, n, cudaMemcpyDeviceToHost) == cudaSuccess);
        RANK_CHECK(h == pattern(n, 3));
        cudaFree(dst);
        return 0;
      });
}

TEST_F(IpcGpu, StreamOrderedPoolBuffers) {
  constexpr std::size_t n = std::size_t{8} << 20;
  // A pool made for sharing: IPC.
  cudaMemPool_t pool = nullptr;
  device_round(
      n,
      [&](std::size_t bytes) -> void* {
        cudaMemPoolProps props{};
        props.allocType = cudaMemAllocationTypePinned;
        props.handleTypes = cudaMemHandleTypePosixFileDescriptor;
        props.location.type = cudaMemLocationTypeDevice;
        props.location.id = 0;
        if (cudaMemPoolCreate(&pool, &props) != cudaSuccess) return nullptr;
        void* p = nullptr;
        if (cudaMallocFromPoolAsync(&p, bytes, pool, 0) != cudaSuccess) return nullptr;
        return cudaStreamSynchronize(0) == cudaSuccess ? p : nullptr;
      },
      [&](void* p) {
        cudaFreeAsync(p, 0);
        cudaStreamSynchronize(0);
        cudaMemPoolDestroy(pool);
      });
  // cudaMallocAsync's default pool cannot be shared: staged.
  device_round(
      n,
      [](std::size_t bytes) -> void* {
        void* p = nullptr;
        if (cudaMallocAsync(&p, bytes, 0) != cudaSuccess) return nullptr;
        return cudaStreamSynchronize(0) == cudaSuccess ? p : nullptr;
      },
      [](void* p) {
        cudaFreeAsync(p, 0);
        cudaStreamSynchronize(0);
      });
}

// cuMemCreate memory with a POSIX fd handle type, through the driver's own entry points.
struct Vmm {
  void* lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  template <class F>
  F get(const char* name) {
    return reinterpret_cast<F>(dlsym(lib, name));
  }
  std::size_t size = 0;
  CUmemGenericAllocationHandle handle{};
  void* create(std::size_t bytes) {
    auto granularity =
        get<decltype(&::cuMemGetAllocationGranularity)>("cuMemGetAllocationGranularity");
    auto create_fn = get<decltype(&::cuMemCreate)>("cuMemCreate");
    auto reserve = get<decltype(&::cuMemAddressReserve)>("cuMemAddressReserve");
    auto map = get<decltype(&::cuMemMap)>("cuMemMap");
    auto access = get<decltype(&::cuMemSetAccess)>("cuMemSetAccess");
    if (!granularity || !create_fn || !reserve || !map || !access) return nullptr;
    CUmemAllocationProp prop{};
    prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
    prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    prop.location.id = 0;
    prop.requestedHandleTypes = CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR;
    std::size_t g = 0;
    if (granularity(&g, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM) != CUDA_SUCCESS) return nullptr;
    size = (bytes + g - 1) / g * g;
    CUdeviceptr ptr = 0;
    if (create_fn(&handle, size, &prop, 0) != CUDA_SUCCESS) return nullptr;
    if (reserve(&ptr, size, 0, 0, 0) != CUDA_SUCCESS) return nullptr;
    if (map(ptr, size, 0, handle, 0) != CUDA_SUCCESS) return nullptr;
    CUmemAccessDesc desc{};
    desc.location = prop.location;
    desc.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
    if (access(ptr, size, &desc, 1) != CUDA_SUCCESS) return nullptr;
    return reinterpret_cast<void*>(ptr);
  }
  void destroy(void* p) {
    auto ptr = reinterpret_cast<CUdeviceptr>(p);
    get<decltype(&::cuMemUnmap)>("cuMemUnmap")(ptr, size);
    get<decltype(&::cuMemAddressFree)>("cuMemAddressFree")(ptr, size);
    get<decltype(&::cuMemRelease)>("cuMemRelease")(handle);
  }
};

TEST_F(IpcGpu, VmmBuffers) {
  Vmm vmm;
  device_round(
      std::size_t{32} << 20, [&](std::size_t n) { return vmm.create(n); },
      [&](void* p) { vmm.destroy(p); });
}

// Allocate, send, free, 10,000 times: the device's memory in use stays flat (mappings of
// freed buffers do not pile up in the receiver).
TEST_F(IpcGpu, ChurnKeepsMemoryFlat) {
  constexpr std::size_t n = std::size_t{1} << 20;
  constexpr int kRounds = 10000;
  run_pair(
      [&](Rank& r) {
        std::size_t free_before = 0, free_after = 0, total = 0;
        void* warm = malloc_device(n);
        RANK_CHECK(r.send(device(warm, n)));
        cudaFree(warm);
        RANK_CHECK(cudaMemGetInfo(&free_before, &total) == cudaSuccess);
        for (int i = 0; i < kRounds; ++i) {
          void* src = malloc_device(n);
          RANK_CHECK(src != nullptr);
          RANK_CHECK(cudaMemset(src, i & 0xff, n) == cudaSuccess);
          RANK_CHECK(r.send(device(src, n)));
          RANK_CHECK(cudaFree(src) == cudaSuccess);
        }
        r.barrier();
        RANK_CHECK(cudaMemGetInfo(&free_after, &total) == cudaSuccess);
        std::fprintf(stderr, "device memory in use grew by %lld bytes over %d rounds\n",
                     static_cast<long long>(free_before) - static_cast<long long>(free_after),
                     kRounds);
        RANK_CHECK(free_before < free_after + (std::size_t{256} << 20));
        return 0;
      },
      [&](Rank& r) {
        void* dst = malloc_device(n);
        RANK_CHECK(r.receive(device(dst, n)));
        for (int i = 0; i < kRounds; ++i) {
          RANK_CHECK(r.receive(device(dst, n)));
          if (i % 1000 == 999) {
            unsigned char b = 0;
            RANK_CHECK(cudaMemcpy(&b, static_cast<char*>(dst) + n - 1, 1, cudaMemcpyDeviceToHost) ==
                       cudaSuccess);
            RANK_CHECK(b == (i & 0xff));
          }
        }
        r.barrier();
        cudaFree(dst);
        return 0;
      });
}

}  // namespace
}  // namespace gpurun::cuda::ipc

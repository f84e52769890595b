// gpu_ref: the hardware bounds that bench/compare sets GPU results against, measured on the
// device this process sees: cudaMemcpy bandwidth device-to-device, host-to-device and
// device-to-host (pinned host memory) per message size, kernel launch latency (issue only,
// and launch + synchronize) and the round trip of a CUDA event. Times include the API call,
// as an MPI library pays it. Exits 3 with a message when no CUDA device can be used.
#include <cuda_runtime.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

namespace {

constexpr int kExitNoDevice = 3;

struct Options {
  size_t min_size = 1, max_size = 4 << 20;
  int iterations = 100;
  bool json = false;
};

__global__ void empty_kernel() {}

double now_us() {
  using clock = std::chrono::steady_clock;
  return std::chrono::duration<double, std::micro>(clock::now().time_since_epoch()).count();
}

void check(cudaError_t err, const char* what) {
  if (err == cudaSuccess) return;
  std::fprintf(stderr, "gpu_ref: %s failed: %s (%d)\n", what, cudaGetErrorString(err),
               static_cast<int>(err));
  std::exit(1);
}

// Average microseconds of one synchronous cudaMemcpy of bytes.
double copy_us(void* dst, const void* src, size_t bytes, cudaMemcpyKind kind, int iters) {
  for (int i = 0; i < 3; i++) check(cudaMemcpy(dst, src, bytes, kind), "cudaMemcpy");
  check(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
  double t0 = now_us();
  // Device-to-device copies may return before they finish: synchronize every time.
  for (int i = 0; i < iters; i++) {
    check(cudaMemcpy(dst, src, bytes, kind), "cudaMemcpy");
    check(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
  }
  return (now_us() - t0) / iters;
}

struct Latencies {
  double launch_us, launch_sync_us, event_rtt_us;
};

Latencies measure_latencies(int iters) {
  Latencies l{};
  cudaEvent_t ev;
  check(cudaEventCreate(&ev), "cudaEventCreate");
  empty_kernel<<<1, 1>>>();
  check(cudaDeviceSynchronize(), "kernel launch");
  double t0 = now_us();
  for (int i = 0; i < iters; i++) empty_kernel<<<1, 1>>>();
  l.launch_us = (now_us() - t0) / iters;
  check(cudaDeviceSynchronize(), "kernel launch");
  t0 = now_us();
  for (int i = 0; i < iters; i++) {
    empty_kernel<<<1, 1>>>();
    check(cudaStreamSynchronize(nullptr), "cudaStreamSynchronize");
  }
  l.launch_sync_us = (now_us() - t0) / iters;
  t0 = now_us();
  for (int i = 0; i < iters; i++) {
    check(cudaEventRecord(ev, nullptr), "cudaEventRecord");
    check(cudaEventSynchronize(ev), "cudaEventSynchronize");
  }
  l.event_rtt_us = (now_us() - t0) / iters;
  check(cudaEventDestroy(ev), "cudaEventDestroy");
  return l;
}

bool parse_size_range(const char* text, Options* o) {
  const char* colon = std::strchr(text, ':');
  char* end = nullptr;
  if (colon) {
    o->min_size = std::strtoull(text, &end, 10);
    text = colon + 1;
  }
  o->max_size = std::strtoull(text, &end, 10);
  return *end == '\0' && o->min_size <= o->max_size && o->max_size > 0;
}

int parse(int argc, char** argv, Options* o) {
  for (int i = 1; i < argc; i++) {
    std::string a = argv[i];
    if (a == "-h" || a == "--help") {
      std::printf(
          "Usage: gpu_ref [-m [MIN:]MAX] [-i N] [--quick] [--format text|json]\n"
          "Measures cudaMemcpy D2D/H2D/D2H bandwidth per size, kernel launch latency and CUDA\n"
          "event round trip on this process's device. Exit 3: no usable CUDA device.\n");
      return 0;
    } else if (a == "-m" && i + 1 < argc && parse_size_range(argv[i + 1], o)) {
      i++;
    } else if (a == "-i" && i + 1 < argc && std::atoi(argv[i + 1]) > 0) {
      o->iterations = std::atoi(argv[++i]);
    } else if (a == "--quick") {
      o->iterations = 20;
    } else if (a == "--format" && i + 1 < argc) {
      o->json = std::string(argv[++i]) == "json";
    } else {
      std::fprintf(stderr, "gpu_ref: bad argument %s (see --help)\n", a.c_str());
      return 2;
    }
  }
  return -1;
}

int open_device(std::string* name) {
  int count = 0;
  cudaError_t err = cudaGetDeviceCount(&count);
  if (err != cudaSuccess || count <= 0) {
    std::fprintf(stderr,
                 "gpu_ref: no CUDA device: cudaGetDeviceCount returned %d (%s), count %d; "
                 "the GPU reference needs a machine with a GPU and its driver\n",
                 static_cast<int>(err), cudaGetErrorString(err), err == cudaSuccess ? count : 0);
    return kExitNoDevice;
  }
  cudaDeviceProp prop{};
  check(cudaGetDeviceProperties(&prop, 0), "cudaGetDeviceProperties");
  *name = prop.name;
  return -1;
}

void print_row(const Options& o, size_t bytes, const double us[3], bool first) {
  if (o.json) {
    std::printf(
        "%s\n    {\"size\": %zu, \"d2d_us\": %.3f, \"d2d_mbps\": %.2f, \"h2d_us\": %.3f, "
        "\"h2d_mbps\": %.2f, \"d2h_us\": %.3f, \"d2h_mbps\": %.2f}",
        first ? "" : ",", bytes, us[0], bytes / us[0], us[1], bytes / us[1], us[2], bytes / us[2]);
  } else {
    std::printf("%-10zu%14.2f%14.2f%14.2f%14.2f%14.2f%14.2f\n", bytes, us[0], bytes / us[0], us[1],
                bytes / us[1], us[2], bytes / us[2]);
  }
}

void print_head(const Options& o, const std::string& device, const Latencies& l) {
  if (o.json) {
    std::printf(
        "{\n  \"device\": \"%s\",\n  \"launch_us\": %.3f,\n  \"launch_sync_us\": %.3f,\n"
        "  \"event_rtt_us\": %.3f,\n  \"rows\": [",
        device.c_str(), l.launch_us, l.launch_sync_us, l.event_rtt_us);
    return;
  }
  std::printf("# gpurun GPU reference: %s\n", device.c_str());
  std::printf("# Kernel launch (us): %.2f  launch + sync (us): %.2f  event round trip (us): %.2f\n",
              l.launch_us, l.launch_sync_us, l.event_rtt_us);
  std::printf("%-10s%14s%14s%14s%14s%14s%14s\n", "# Size", "D2D (us)", "D2D (MB/s)", "H2D (us)",
              "H2D (MB/s)", "D2H (us)", "D2H (MB/s)");
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  int status = parse(argc, argv, &o);
  if (status >= 0) return status;
  std::string device;
  status = open_device(&device);
  if (status >= 0) return status;
  void *d0, *d1, *h;
  check(cudaMalloc(&d0, o.max_size), "cudaMalloc");
  check(cudaMalloc(&d1, o.max_size), "cudaMalloc");
  check(cudaMallocHost(&h, o.max_size), "cudaMallocHost");
  std::memset(h, 1, o.max_size);
  print_head(o, device, measure_latencies(o.iterations * 10));
  bool first = true;
  for (size_t s = o.min_size; s <= o.max_size; s *= 2) {
    double us[3] = {copy_us(d1, d0, s, cudaMemcpyDeviceToDevice, o.iterations),
                    copy_us(d0, h, s, cudaMemcpyHostToDevice, o.iterations),
                    copy_us(h, d0, s, cudaMemcpyDeviceToHost, o.iterations)};
    print_row(o, s, us, first);
    first = false;
  }
  if (o.json) std::printf("\n  ]\n}\n");
  cudaFree(d0);
  cudaFree(d1);
  cudaFreeHost(h);
  return 0;
}

#include "runtime/base/log.h"

#include "runtime/base/param.h"

#include <gtest/gtest.h>
#include <stdlib.h>
#include <unistd.h>

#include <cstdio>
#include <string>

namespace gpurun::log {
namespace {

// Captures what GPURUN_LOG writes to stderr.
class StderrCapture {
 public:
  StderrCapture() {
    std::fflush(stderr);
    saved_ = dup(STDERR_FILENO);
    file_ = std::tmpfile();
    dup2(fileno(file_), STDERR_FILENO);
  }
  std::string finish() {
    dup2(saved_, STDERR_FILENO);
    close(saved_);
    std::string out;
    std::rewind(file_);
    char buf[512];
    while (std::fgets(buf, sizeof buf, file_)) out += buf;
    std::fclose(file_);
    return out;
  }

 private:
  int saved_ = -1;
  FILE* file_ = nullptr;
};

TEST(Log, ThresholdPerSubsystemAndPrefix) {
  ASSERT_TRUE(param::find("GPURUN_LOG_LEVEL")->set_from_string("warn,pml:debug").ok());
  configure();
  set_rank(3);
  StderrCapture cap;
  GPURUN_LOG(debug, pml, "peer %d via %s", 1, "shm");
  GPURUN_LOG(debug, coll, "hidden %d", 2);
  GPURUN_LOG(info, init, "hidden too");
  GPURUN_LOG(warn, coll, "shown %s", "warning");
  std::string out = cap.finish();
  std::string line = ":";
  line.append(std::to_string(getpid())).append(":3] debug pml: peer 1 via shm\n");
  EXPECT_NE(out.find(line), std::string::npos) << out;
  EXPECT_EQ(out.find("hidden"), std::string::npos) << out;
  EXPECT_NE(out.find("warn coll: shown warning"), std::string::npos) << out;
  EXPECT_TRUE(enabled(Level::debug, Subsys::pml));
  EXPECT_FALSE(enabled(Level::trace, Subsys::pml));
}

}  // namespace
}  // namespace gpurun::log

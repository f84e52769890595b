// A job of n ranks of one host inside the test process, for running collectives as units:
// each rank has its pml, its self and shm transports and MPI_COMM_WORLD's identity, and
// run() progresses every rank's pml and operations in turn until they are all complete.
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <memory>
#include <string>
#include <vector>

#include "coll/algorithm.h"
#include "pml/pml.h"
#include "runtime/transport/self/self_transport.h"
#include "runtime/transport/shm/shm_transport.h"

namespace gpurun::coll::testing_util {

class Job {
 public:
  explicit Job(int n) : ranks_(n) {
    static int jobs = 0;
    std::string token = "colltest" + std::to_string(getpid()) + "_" + std::to_string(jobs++);
    std::vector<int> local(n);
    for (int r = 0; r < n; ++r) local[r] = r;
    for (int r = 0; r < n; ++r) {
      Rank& k = ranks_[r];
      k.pml = std::make_unique<pml::Pml>(r, n);
      k.self = std::make_unique<transport::self::SelfTransport>(r, k.pml->handler());
      k.pml->add_transport(k.self.get());
      k.pml->set_route(r, k.self->connect(r, {}).value(), 16384, "self");
      if (n > 1) {
        auto shm = transport::shm::ShmTransport::create({r, local, token}, k.pml->handler());
        EXPECT_TRUE(shm.ok()) << shm.status().to_string();
        k.shm = std::move(shm).value();
        k.pml->add_transport(k.shm.get());
      }
      k.world = std::make_unique<core::Communicator>(core::Group::identity(n), r, 0);
      k.pml->add_comm(*k.world);
    }
    for (int r = 0; r < n; ++r)
      for (int p = 0; p < n; ++p)
        if (p != r) {
          auto ep = ranks_[r].shm->connect(p, ranks_[p].shm->address());
          EXPECT_TRUE(ep.ok());
          ranks_[r].pml->set_route(p, ep.value(), 16384, "shm");
        }
  }

  int size() const { return static_cast<int>(ranks_.size()); }
  pml::Pml& pml(int r) { return *ranks_[r].pml; }
  const core::Communicator* comm(int r) const { return ranks_[r].world.get(); }

  // Args of rank r for `collective` with the job's pml and communicator and `tag`.
  Args args(int r, Collective collective, int tag = 0) {
    Args a;
    a.collective = collective;
    a.pml = &pml(r);
    a.comm = comm(r);
    a.tag = tag;
    return a;
  }

  // Starts every operation (null ones are skipped) and progresses all ranks until each is
  // complete; false if that takes unreasonably long (a bug, not a slow machine).
  bool run(std::vector<std::unique_ptr<Operation>>& ops) {
    for (auto& op : ops) {
      if (op) {
        EXPECT_TRUE(op->start().ok());
      }
    }
    for (long i = 0; i < 20'000'000; ++i) {
      bool all = true;
      for (int r = 0; r < size(); ++r) {
        ranks_[r].pml->progress();
        if (ops[r] && !ops[r]->progress()) all = false;
      }
      if (all) return true;
    }
    return false;
  }

 private:
  struct Rank {
    std::unique_ptr<pml::Pml> pml;
    std::unique_ptr<transport::self::SelfTransport> self;
    std::unique_ptr<transport::shm::ShmTransport> shm;
    std::unique_ptr<core::Communicator> world;
  };
  std::vector<Rank> ranks_;
};

}  // namespace gpurun::coll::testing_util

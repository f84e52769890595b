// The queue of a stream's enqueued operations (api/enqueue.h): start points, wait points, and
// the order in which they pass.
#include <algorithm>

#include "api/enqueue.h"

namespace gpurun::api {

EnqueueQueue::~EnqueueQueue() {
  for (auto& op : ops_) operations_.abandon(op->r);  // started and never waited for
  if (busy_) operations_.busy(false);
}

Status EnqueueQueue::start_at(const char* call_name, core::Request* r) {
  std::uint32_t value = starts_ + 1;
  GPURUN_TRY(device_.signal(value));
  starts_ = value;
  ops_.push_back(std::make_unique<Op>(Op{.r = r, .start = value, .call_name = call_name}));
  unstarted_.push_back(ops_.back().get());
  update_busy();
  return ok_status();
}

bool EnqueueQueue::waitable(const core::Request* r) const {
  return std::any_of(ops_.begin(), ops_.end(),
                     [r](const auto& op) { return op->r == r && !op->waited; });
}

Status EnqueueQueue::wait_for(const std::vector<core::Request*>& requests,
                              std::vector<MPI_Status*> statuses) {
  if (statuses.empty()) statuses.assign(requests.size(), MPI_STATUS_IGNORE);
  if (statuses.size() != requests.size())
    return Status(ErrorCode::kInvalidArgument, "one status per request expected");
  WaitPoint point{.value = waits_made_ + 1, .ops = {}, .statuses = std::move(statuses)};
  for (core::Request* r : requests) {
    auto it = std::find_if(ops_.begin(), ops_.end(),
                           [r](const auto& op) { return op->r == r && !op->waited; });
    if (it == ops_.end() ||
        std::find(point.ops.begin(), point.ops.end(), it->get()) != point.ops.end())
      return Status(ErrorCode::kInvalidArgument, "a request is not pending on this stream");
    point.ops.push_back(it->get());
  }
  GPURUN_TRY(device_.wait(point.value));
  waits_made_ = point.value;
  for (Op* op : point.ops) op->waited = true;
  waits_.push_back(std::move(point));
  update_busy();
  return ok_status();
}

bool EnqueueQueue::done(const WaitPoint& w) const {
  return std::all_of(w.ops.begin(), w.ops.end(), [this](const Op* op) {
    return op->failed || (op->started && operations_.complete(op->r));
  });
}

void EnqueueQueue::pass(const WaitPoint& w) {
  for (std::size_t i = 0; i < w.ops.size(); ++i) {
    Op* op = w.ops[i];
    operations_.finish(op->r, op->call_name, op->failed, w.statuses[i]);
    ops_.erase(std::find_if(ops_.begin(), ops_.end(),
                            [op](const auto& entry) { return entry.get() == op; }));
  }
  device_.release(w.value);
}

int EnqueueQueue::poll() {
  int work = 0;
  if (!unstarted_.empty()) {
    std::uint32_t reached = device_.started();
    while (!unstarted_.empty() && accel::reached(reached, unstarted_.front()->start)) {
      Op* op = unstarted_.front();
      unstarted_.pop_front();
      op->started = true;
      op->failed = !operations_.start(op->r, op->call_name);
      ++work;
    }
  }
  while (!waits_.empty() && done(waits_.front())) {
    pass(waits_.front());
    waits_.pop_front();
    ++work;
  }
  update_busy();
  return work + (busy_ ? 1 : 0);
}

void EnqueueQueue::update_busy() {
  bool busy = !idle();
  if (busy == busy_) return;
  busy_ = busy;
  operations_.busy(busy);
}

}  // namespace gpurun::api

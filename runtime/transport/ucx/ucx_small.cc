// Small packets as UCP tagged messages.
//
// A packet with at most kSmallPayloadMax bytes of payload travels as one tagged message: its
// wire header and payload joined in one buffer, received into one of kSmallReceives receives
// the transport keeps posted. UCX sends a tagged message with one plain send() on TCP, where
// an active message with a header goes through a gathering sendmsg(); one way between two
// test hosts that saves about 0.05 us of 1.8 (ucx_perftest 8 B: tag_lat 4.38 us, ucp_am_lat
// 4.43 us; bench/compare osu_latency 8 B against MPICH over UCX, 9 interleaved runs: 1.06x
// -> 1.01x).
//
// Order: a small packet and a larger one (an active message) can arrive out of order; the
// per-peer sequence number in the wire header puts them back in order (receive_packet).
#include <algorithm>
#include <cstring>
#include <vector>

#include "runtime/base/log.h"
#include "runtime/transport/ucx/ucx_transport.h"

namespace gpurun::transport::ucx {

ucs_status_ptr_t UcxEndpoint::send_small(const WireHeader& wire, const void* payload,
                                         std::size_t length) {
  alignas(8) std::byte joined[sizeof(WireHeader) + kSmallPayloadMax];
  std::memcpy(joined, &wire, sizeof wire);
  if (length > 0) std::memcpy(joined + sizeof wire, payload, length);
  ucs_status_ptr_t r =
      api().tag_send_nbx(ep_, joined, sizeof wire + length, kSmallTag, &transport_->small_send_);
  // Sent at once or refused (UCP_OP_ATTR_FLAG_FORCE_IMM_CMPL): UCX keeps no pointer into
  // `joined`. Should a UCX not honour the flag, the send completes here, before `joined` goes.
  if (r != nullptr && !UCS_PTR_IS_ERR(r)) [[unlikely]] {
    while (api().request_check_status(r) == UCS_INPROGRESS)
      api().worker_progress(transport_->worker_);
    ucs_status_t st = api().request_check_status(r);
    api().request_free(r);
    return st == UCS_OK ? nullptr : UCS_STATUS_PTR(st);
  }
  return r;
}

Status UcxTransport::init_small() {
  small_send_.op_attr_mask = UCP_OP_ATTR_FLAG_FORCE_IMM_CMPL;
  small_.resize(kSmallReceives);
  for (auto& slot : small_) {
    slot = std::make_unique<SmallReceive>();
    slot->transport = this;
    small_repost_.push_back(slot.get());
  }
  return post_small();
}

// Posts the receives that completed since the last call. progress() calls it once a call
// finds nothing to do (or half the receives are gone): posting is work a reply to the packet
// just delivered should not wait for. UCX completes a receive whose
// packet is already waiting through the callback too (UCP_OP_ATTR_FLAG_NO_IMM_CMPL), maybe
// before tag_recv_nbx returns: that callback delivers the packet and queues the slot again.
Status UcxTransport::post_small() {
  while (!small_repost_.empty()) {
    SmallReceive* slot = small_repost_.back();
    small_repost_.pop_back();
    ucp_request_param_t p;
    p.op_attr_mask =
        UCP_OP_ATTR_FIELD_CALLBACK | UCP_OP_ATTR_FIELD_USER_DATA | UCP_OP_ATTR_FLAG_NO_IMM_CMPL;
    p.cb.recv = on_small;
    p.user_data = slot;
    slot->posted = true;
    ucs_status_ptr_t r = api().tag_recv_nbx(worker_, slot->buffer, sizeof slot->buffer, kSmallTag,
                                            ~ucp_tag_t{0}, &p);
    if (r == nullptr || UCS_PTR_IS_ERR(r)) [[unlikely]] {
      slot->posted = false;
      small_repost_.push_back(slot);
      return ucx_error("ucx: posting a receive",
                       r == nullptr ? UCS_ERR_UNSUPPORTED : UCS_PTR_STATUS(r));
    }
    if (slot->posted) slot->request = r;  // else its callback ran already
  }
  return ok_status();
}

void UcxTransport::on_small(void* request, ucs_status_t status, const ucp_tag_recv_info_t* info,
                            void* user_data) {
  auto* slot = static_cast<SmallReceive*>(user_data);
  UcxTransport* t = slot->transport;
  api().request_free(request);
  slot->request = nullptr;
  slot->posted = false;
  if (status == UCS_ERR_CANCELED) return;  // the transport is closing
  if (status == UCS_OK)
    t->deliver_small(*slot, info->length);
  else
    GPURUN_LOG(error, transport, "ucx: a small packet was lost: %s", api().status_string(status));
  t->small_repost_.push_back(slot);
}

void UcxTransport::deliver_small(const SmallReceive& slot, std::size_t length) {
  if (length < sizeof(WireHeader)) [[unlikely]] {
    GPURUN_LOG(error, transport, "ucx: dropped a malformed packet (%zu bytes)", length);
    return;
  }
  WireHeader wire;
  std::memcpy(&wire, slot.buffer, sizeof wire);
  receive_packet(wire, slot.buffer + sizeof wire, length - sizeof wire);
}

void UcxTransport::cancel_small() {
  small_repost_.clear();
  for (auto& slot : small_)
    if (slot && slot->request != nullptr) api().request_cancel(worker_, slot->request);
  // Cancelled receives complete (UCS_ERR_CANCELED) in the next progress calls.
  for (int i = 0; i < 1000; ++i) {
    bool pending = false;
    for (auto& slot : small_) pending = pending || (slot && slot->posted);
    if (!pending) break;
    api().worker_progress(worker_);
  }
}

void UcxTransport::discard_unexpected_small() {
  std::vector<std::byte> sink;
  for (int i = 0; i < 10000; ++i) {
    ucp_tag_recv_info_t info{};
    ucp_tag_message_h message = api().tag_probe_nb(worker_, 0, 0, /*remove=*/1, &info);
    if (message == nullptr) return;
    sink.resize(std::max(sink.size(), info.length));
    ucp_request_param_t param{};  // no callback: completes in place or by the request
    ucs_status_ptr_t r = api().tag_msg_recv_nbx(worker_, sink.data(), info.length, message, &param);
    if (r == nullptr || UCS_PTR_IS_ERR(r)) continue;
    for (int j = 0; j < 1000 && api().request_check_status(r) == UCS_INPROGRESS; ++j)
      api().worker_progress(worker_);
    api().request_free(r);
  }
}

}  // namespace gpurun::transport::ucx

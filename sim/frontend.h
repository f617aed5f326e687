// SPDX-License-Identifier: Apache-2.0
#pragma once
// An in-order frontend in front of the channels' controllers (the DCC artifact's Ramulator 2 frontend,
// pim_loadstore_trace.cpp): one trace for the whole device, sent request by request as long as the addressed
// controller takes them; a request whose buffer is full stops the whole trace (the requests of every other
// channel behind it) until that buffer frees an entry. With SimOptions::frontend the simulator runs each
// channel on its own and times every request's arrival from this order.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "sim/program.h"
#include "sim/scheduler.h"

namespace pim::sim {

struct FrontendOrder {
  /// The controller buffer a request waits in (Ramulator 2's read and write buffers, the fork's PIM buffer).
  enum class Buffer : uint8_t { Read, Write, Pim };
  struct Request {
    uint8_t channel;
    Buffer buffer;
  };
  std::vector<Request> requests;  // in send order, barriers excluded
  /// Requests sent before each barrier. Barriers are global steps (SimOptions::globalBarriers): the part of
  /// the trace after one is sent once every channel has drained.
  std::vector<size_t> barriers;
  /// Per channel: the send index of its k-th request in program order (repeats expanded, barriers not
  /// counted), as ChannelScheduler::feedRequests numbers them.
  std::vector<std::vector<size_t>> sent;
  size_t bufferEntries = 33;  // per buffer and channel (the DCC artifact's: dcc::kRequestBuffer)
};

/// Channels that run the same program share one run (its class's), as long as the frontend sends each
/// member's k-th request in the same cycle as the first member's: then every member is served alike.
/// FedChannels checks this for every request and throws NotShared otherwise; the caller then runs every
/// channel on its own (`share` false). `channelMap` of the result names each channel's class.
Program sharedRuns(const Program& prog, bool share);
struct NotShared {};

/// Runs the classes of channels part by part (the requests between two barriers) under a FrontendOrder, in
/// one pass over the order. A request arrives when the frontend sends it: not before the one before it, nor
/// before its buffer has a free entry. When a buffer is full the frontend waits for that channel to serve
/// its oldest requests (served then, each no earlier than it arrived); the others are served once the part
/// is sent.
class FedChannels {
 public:
  /// `classes`: a program from sharedRuns(); `requests[c]`: the requests of class c's program. Throws
  /// std::logic_error when `order` does not number exactly those.
  FedChannels(const FrontendOrder& order, const Program& classes, const std::vector<int64_t>& requests);
  /// Part `k` of every class (`parts[c]` and `scheds[c]` are class c's) from cycle `start` on (the drain
  /// point of the barrier before it); false when a class stopped past `stopAfter`.
  bool runPart(size_t k, int64_t start, std::vector<std::unique_ptr<ChannelScheduler>>& scheds,
               const std::vector<std::vector<ChannelProgram>>& parts, int64_t stopAfter);
  /// Requests the frontend sent later than the one before them because their buffer was full.
  int64_t heldBack() const { return m_heldBack; }

 private:
  // Serves class c's next request (sent before `sentBefore`); its departure joins its buffer's.
  int64_t serve(size_t c, size_t sentBefore, ChannelScheduler& s, int64_t stopAfter);
  // The frontend's cycle for request g (channel ch, its request r) after `t`; sets or checks its arrival.
  int64_t send(size_t g, int64_t t, std::vector<size_t>& arrived,
               std::vector<std::unique_ptr<ChannelScheduler>>& scheds, int64_t stopAfter);

  const FrontendOrder& m_order;
  std::vector<int> m_classOf, m_first;               // per channel: its class; per class: its first channel
  std::vector<std::pair<uint32_t, size_t>> m_where;  // send index -> (channel, request of the channel)
  std::vector<std::vector<int64_t>> m_arrivals, m_departures;  // per class and request
  std::vector<std::vector<int64_t>> m_left;  // per class and buffer: departures in this part, in time order
  int64_t m_heldBack = 0;
};

}  // namespace pim::sim

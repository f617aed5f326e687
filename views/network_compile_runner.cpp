// SPDX-License-Identifier: Apache-2.0
#include "views/network_compile_runner.h"

#include <QMetaObject>
#include <exception>

namespace pimgui {

NetworkCompileRunner::NetworkCompileRunner(QObject* parent) : QObject(parent) {}

NetworkCompileRunner::~NetworkCompileRunner() { stopAndWait(); }

void NetworkCompileRunner::post(unsigned generation, std::function<void()> onGui) {
  QMetaObject::invokeMethod(
      this,
      [this, generation, onGui = std::move(onGui)] {
        if (generation == m_generation) onGui();  // drops what a cancelled or superseded run reports late
      },
      Qt::QueuedConnection);
}

void NetworkCompileRunner::joinReturned() {
  // Only workers that have returned are joined, so the GUI thread never waits for a compile.
  std::erase_if(m_workers, [](Worker& w) {
    if (!w.done->load()) return false;
    if (w.thread.joinable()) w.thread.join();
    return true;
  });
}

void NetworkCompileRunner::cancel() {
  if (!m_running || m_workers.back().cancel->load()) return;
  // The worker stops within an instruction group; a genetic search stops within 100 ms and still hands over
  // its best so far, profiled, before `finished(true)`.
  m_workers.back().cancel->store(true);
  emit stopping();
}

void NetworkCompileRunner::stopAndWait() {
  ++m_generation;  // nothing the workers still report reaches a view that is going away
  m_running = false;
  for (Worker& w : m_workers) {
    w.cancel->store(true);
    if (w.thread.joinable()) w.thread.join();
  }
  m_workers.clear();
}

void NetworkCompileRunner::start(pim::Backend backend, pim::Network network,
                                 std::vector<pim::NetworkCompileRequest> requests) {
  if (m_running) m_workers.back().cancel->store(true);  // superseded: what it still reports is dropped
  joinReturned();
  ++m_generation;
  m_running = true;
  Worker w;
  w.cancel = std::make_shared<std::atomic<bool>>(false);
  w.done = std::make_shared<std::atomic<bool>>(false);
  const unsigned generation = m_generation;
  // `this` outlives the thread: the destructor joins every worker.
  w.thread = std::thread([this, generation, backend = std::move(backend), network = std::move(network),
                          requests = std::move(requests), cancel = w.cancel, done = w.done]() mutable {
    struct MarkDone {
      std::atomic<bool>& flag;
      ~MarkDone() { flag.store(true); }
    } mark{*done};
    for (pim::NetworkCompileRequest& r : requests) {
      if (cancel->load()) break;
      r.cancel = cancel.get();
      const std::string method = r.compile.replication;
      r.report = [this, generation, method](const std::string& line) {
        post(generation,
             [this, line = QString::fromStdString(method + ": " + line)] { emit progressed(line); });
      };
      CompiledCandidate c{method, r.compile.unfolding.all, nullptr, {}};
      try {
        auto result = std::make_shared<pim::NetworkCompileResult>(pim::compileNetwork(backend, network, r));
        if (result->cancelled) break;  // a cut-short compile is not a candidate (a stopped GA's best is)
        c.result = std::move(result);
      } catch (const std::exception& e) {
        c.error = QString::fromStdString(e.what());
      }
      post(generation, [this, c = std::move(c)] { emit compiled(c); });
    }
    post(generation, [this, stopped = cancel->load()] {
      m_running = false;
      emit finished(stopped);
    });
  });
  m_workers.push_back(std::move(w));
}

}  // namespace pimgui

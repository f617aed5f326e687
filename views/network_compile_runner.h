// SPDX-License-Identifier: Apache-2.0
// Compiles a network on a crossbar backend off the GUI thread, once per replication method asked for (issue
// 19): each finished compile arrives as `compiled` on the GUI thread, so rows appear as they are ready and a
// Cancel keeps the ones already done. The worker polls the cancel flag between instruction groups and stops
// within one of them; a genetic search stops within 100 ms and its best so far is still compiled and
// delivered, then `finished(true)`.
#pragma once
#include <QObject>
#include <QString>
#include <atomic>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "engine/hw/backend.h"
#include "engine/kernel/network.h"
#include "engine/target/crossbar/network_compile.h"

namespace pimgui {

/// One compile of a batch: its request's method, and the result or why there is none.
struct CompiledCandidate {
  std::string method;
  std::string unfolding;                                    // as asked: "im2col", "auto" or a Table IV name
  std::shared_ptr<const pim::NetworkCompileResult> result;  // null when it failed
  QString error;
};

class NetworkCompileRunner : public QObject {
  Q_OBJECT
 public:
  explicit NetworkCompileRunner(QObject* parent = nullptr);
  ~NetworkCompileRunner() override;

  /// Cancels a running batch and starts compiling `network` on `backend` for each request in order.
  void start(pim::Backend backend, pim::Network network, std::vector<pim::NetworkCompileRequest> requests);
  /// Stops the batch: `stopping` at once, then the stopped GA's best (if one was searching) and
  /// `finished(true)` within about a second; candidates already compiled were delivered.
  void cancel();
  bool running() const { return m_running; }
  /// Cancels and joins every worker (shutdown, tests).
  void stopAndWait();

 signals:
  void progressed(const QString& line);
  void compiled(const pimgui::CompiledCandidate& candidate);
  void stopping();
  void finished(bool cancelled);

 private:
  struct Worker {
    std::thread thread;
    std::shared_ptr<std::atomic<bool>> cancel, done;
  };
  void joinReturned();
  void post(unsigned generation, std::function<void()> onGui);

  std::vector<Worker> m_workers;
  bool m_running = false;
  unsigned m_generation = 0;
};

}  // namespace pimgui

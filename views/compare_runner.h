// SPDX-License-Identifier: Apache-2.0
// Runs pim::compareBackends on a worker thread with a cancel flag and hands the Comparison back on the GUI
// thread through a queued invocation. Like ExplorationSession, Cancel ends the run for the GUI at once; the
// worker finishes the simulation in flight, is retired, and its late result is dropped.
#pragma once
#include <QObject>
#include <QString>
#include <atomic>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "engine/kernel/kernel.h"
#include "engine/workflow/compare.h"

namespace pimgui {

class CompareRunner : public QObject {
  Q_OBJECT
 public:
  explicit CompareRunner(QObject* parent = nullptr);
  ~CompareRunner() override;

  /// Cancels any running comparison and starts `compareBackends(kernel, dims, options)`; the runner owns the
  /// cancel flag (`options.search.cancel` is replaced). Input errors arrive as `failed`.
  void start(pim::Kernel kernel, std::string dims, pim::CompareOptions options);
  /// Sets the cancel flag and emits `cancelled` at once (nothing else follows for this run).
  void cancel();
  /// Cancels and joins every worker (shutdown, tests).
  void stopAndWait();

  /// A run the GUI is waiting for.
  bool running() const { return m_running; }
  /// Some worker (current or cancelled) has not returned yet.
  bool workerAlive() const;
  std::shared_ptr<const pim::Comparison> result() const { return m_result; }
  /// The latest progress of the running comparison (which backend, and its search).
  const pim::CompareProgress& progress() const { return m_progress; }

 signals:
  void started();
  /// progress() moved on (about every 50 ms while a backend is searched).
  void progressed();
  void finished(std::shared_ptr<const pim::Comparison> comparison);
  void failed(const QString& message);
  void cancelled();

 private:
  struct Worker {
    std::thread thread;
    std::shared_ptr<std::atomic<bool>> cancel, done;
  };
  void joinReturned();

  std::vector<Worker> m_workers;  // the current one last
  std::shared_ptr<const pim::Comparison> m_result;
  pim::CompareProgress m_progress;
  bool m_running = false;
  unsigned m_generation = 0;  // drops queued results of a cancelled or superseded run
};

}  // namespace pimgui

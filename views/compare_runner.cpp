// SPDX-License-Identifier: Apache-2.0
#include "views/compare_runner.h"

#include <QMetaObject>
#include <algorithm>
#include <exception>

namespace pimgui {

CompareRunner::CompareRunner(QObject* parent) : QObject(parent) {}

CompareRunner::~CompareRunner() { stopAndWait(); }

bool CompareRunner::workerAlive() const {
  return std::any_of(m_workers.begin(), m_workers.end(), [](const Worker& w) { return !w.done->load(); });
}

void CompareRunner::joinReturned() {
  // Only workers that have returned are joined here, so the GUI thread never blocks on a simulation.
  auto returned = [](Worker& w) {
    if (!w.done->load()) return false;
    if (w.thread.joinable()) w.thread.join();
    return true;
  };
  m_workers.erase(std::remove_if(m_workers.begin(), m_workers.end(), returned), m_workers.end());
}

void CompareRunner::cancel() {
  if (!m_running) return;
  m_workers.back().cancel->store(true);
  ++m_generation;
  m_running = false;
  emit cancelled();
}

void CompareRunner::stopAndWait() {
  cancel();
  for (Worker& w : m_workers) {
    w.cancel->store(true);
    if (w.thread.joinable()) w.thread.join();
  }
  m_workers.clear();
}

void CompareRunner::start(pim::Kernel kernel, std::string dims, pim::CompareOptions options) {
  cancel();
  joinReturned();
  ++m_generation;
  m_result.reset();
  Worker w;
  w.cancel = std::make_shared<std::atomic<bool>>(false);
  w.done = std::make_shared<std::atomic<bool>>(false);
  m_running = true;
  m_progress = {};
  m_progress.backends = options.backends.size();
  emit started();
  const unsigned generation = m_generation;
  options.onProgress = [this, generation](const pim::CompareProgress& p) {
    QMetaObject::invokeMethod(
        this,
        [this, generation, p] {
          if (generation != m_generation) return;  // a late report of a cancelled run
          m_progress = p;
          emit progressed();
        },
        Qt::QueuedConnection);
  };
  // `this` outlives the thread: the destructor joins every worker.
  w.thread = std::thread([this, generation, kernel = std::move(kernel), dims = std::move(dims),
                          options = std::move(options), cancel = w.cancel, done = w.done]() mutable {
    options.search.cancel = cancel.get();  // the lambda owns the flag for as long as the engine reads it
    std::shared_ptr<const pim::Comparison> result;
    QString error;
    try {
      result = std::make_shared<const pim::Comparison>(pim::compareBackends(kernel, dims, options));
    } catch (const std::exception& e) {
      error = QString::fromStdString(e.what());
    }
    done->store(true);
    QMetaObject::invokeMethod(
        this,
        [this, generation, result, error] {
          joinReturned();
          if (generation != m_generation) return;  // cancelled or superseded
          m_running = false;
          if (!result) {
            emit failed(error);
            return;
          }
          m_result = result;
          emit finished(result);
        },
        Qt::QueuedConnection);
  });
  m_workers.push_back(std::move(w));
}

}  // namespace pimgui

// SPDX-License-Identifier: Apache-2.0
#include "views/layer_map_runner.h"

#include <QMetaObject>
#include <exception>

namespace pimgui {

LayerMapRunner::LayerMapRunner(QObject* parent) : QObject(parent) {}

LayerMapRunner::~LayerMapRunner() { stopAndWait(); }

void LayerMapRunner::post(unsigned generation, std::function<void()> onGui) {
  QMetaObject::invokeMethod(
      this,
      [this, generation, onGui = std::move(onGui)] {
        if (generation == m_generation) onGui();
      },
      Qt::QueuedConnection);
}

void LayerMapRunner::cancel() {
  if (!m_running || m_cancel->load()) return;
  m_cancel->store(true);
  emit stopping();
}

void LayerMapRunner::stopAndWait() {
  ++m_generation;
  m_running = false;
  if (m_cancel) m_cancel->store(true);
  m_tasks.closeAndWait();
}

void LayerMapRunner::start(LayerMapRequest request) {
  if (m_running) m_cancel->store(true);  // superseded: what it still reports is dropped
  const unsigned generation = ++m_generation;
  m_running = true;
  m_cancel = std::make_shared<std::atomic<bool>>(false);
  m_tasks.start([this, generation, request = std::move(request), cancel = m_cancel]() mutable {
    request.options.cancel = cancel.get();
    request.options.solverLog = [this, generation](const std::string& line) {
      post(generation, [this, line = QString::fromStdString(line)] { emit logged(line); });
    };
    LayerMapOutcome outcome;
    try {
      const auto mapper = pim::convmap::makeMapper(request.mapper);
      outcome.result = mapper->solve(request.layer, request.hierarchy, request.options,
                                     [this, generation](const pim::convmap::MapProgress& p) {
                                       post(generation, [this, p] { emit progressed(p); });
                                     });
    } catch (const std::exception& e) {
      outcome.error = QString::fromStdString(e.what());
    }
    outcome.cancelled = cancel->load();
    post(generation, [this, outcome = std::move(outcome)] {
      m_running = false;
      emit finished(outcome);
    });
  });
}

}  // namespace pimgui

// SPDX-License-Identifier: Apache-2.0
// Maps one conv layer on a PIM hierarchy off the GUI thread (issue 20: "a solve runs off the GUI thread with
// live incumbent, bound and gap; Cancel stops it and keeps the incumbent"). The mapper is the engine's, as
// `pimscope-cli map` runs it; its reports arrive as `progressed` and its result as `finished`, both on the
// GUI thread. Cancel sets the mapper's cancel flag: the heuristic and the walk check it between mappings,
// the MILP solver between nodes, and each returns its best mapping so far.
#pragma once
#include <QObject>
#include <QString>
#include <atomic>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "engine/convmap/hierarchy.h"
#include "engine/convmap/mapper.h"
#include "views/pool_tasks.h"

namespace pimgui {

struct LayerMapRequest {
  pim::convmap::ConvLayer layer;
  pim::convmap::Hierarchy hierarchy;
  std::string mapper;
  pim::convmap::MapOptions options;  // its cancel flag is the runner's
};

/// How a run ended: a result (also when cancelled: the best mapping so far) or why there is none.
struct LayerMapOutcome {
  std::optional<pim::convmap::MapResult> result;
  QString error;
  bool cancelled = false;
};

class LayerMapRunner : public QObject {
  Q_OBJECT
 public:
  explicit LayerMapRunner(QObject* parent = nullptr);
  ~LayerMapRunner() override;

  /// Cancels a run in progress (what it still reports is dropped) and starts `request`.
  void start(LayerMapRequest request);
  /// Asks the run to stop: `stopping` at once, then `finished` with its best mapping so far.
  void cancel();
  bool running() const { return m_running; }
  /// Cancels and waits for the worker (shutdown, tests).
  void stopAndWait();

 signals:
  void progressed(const pim::convmap::MapProgress& progress);
  /// A line of the MILP solver's own log.
  void logged(const QString& line);
  void stopping();
  void finished(const pimgui::LayerMapOutcome& outcome);

 private:
  void post(unsigned generation, std::function<void()> onGui);

  PoolTasks m_tasks;
  std::shared_ptr<std::atomic<bool>> m_cancel;
  bool m_running = false;
  unsigned m_generation = 0;  // drops what a superseded or stopped run reports late
};

}  // namespace pimgui

// SPDX-License-Identifier: Apache-2.0
// A network on several backends (issue 19: "compare the network on a crossbar and a DRAM-PIM backend"), the
// window's face of `pimscope-cli compare --network` (pim::compareNetwork): crossbar backends compile the
// network, the others run its CONV/FC layers one by one; one row per backend with the total, a table of every
// layer on every backend (a layer a backend cannot run says why in its tooltip) and the verdict. Runs off the
// GUI thread with progress; Cancel returns at once.
#pragma once
#include <QWidget>
#include <atomic>
#include <functional>
#include <memory>
#include <string>

#include "engine/workflow/network_compare.h"
#include "views/pool_tasks.h"

class QLabel;
class QListWidget;
class QPushButton;
class QTableWidget;

namespace pimgui {

class NetworkComparePanel : public QWidget {
  Q_OBJECT
 public:
  /// `networkPath` gives the network file to compare (the compile view's network box), `timing` how crossbar
  /// backends are timed (its Timing box).
  NetworkComparePanel(std::function<std::string()> networkPath,
                      std::function<pim::xbar::TimingModel()> timing, QWidget* parent = nullptr);
  ~NetworkComparePanel() override;

  void compare();
  void cancel();
  bool running() const { return m_running; }
  /// Ticks exactly these backends.
  void choose(const QStringList& backends);

  QTableWidget* totals() const { return m_totals; }
  QTableWidget* layers() const { return m_layers; }
  QLabel* verdict() const { return m_verdict; }
  QLabel* status() const { return m_status; }

 signals:
  void done();

 private:
  void show(const pim::NetworkComparison& c);
  void finish(const QString& status);

  std::function<std::string()> m_networkPath;
  std::function<pim::xbar::TimingModel()> m_timing;
  PoolTasks m_tasks;
  std::shared_ptr<std::atomic<bool>> m_cancel;
  unsigned m_generation = 0;
  bool m_running = false;
  QListWidget* m_backends;
  QPushButton *m_compare, *m_stop;
  QLabel *m_status, *m_verdict;
  QTableWidget *m_totals, *m_layers;
};

}  // namespace pimgui

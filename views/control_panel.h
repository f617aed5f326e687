// SPDX-License-Identifier: Apache-2.0
// The problem and search settings: backend, kernel (library or DSL file), one spin box per kernel dimension,
// strategy, pruning rules and optimizer passes. It only edits a SessionConfig; the main window runs it.
#pragma once
#include <QWidget>
#include <vector>

#include "views/session_config.h"

class QCheckBox;
class QComboBox;
class QFormLayout;
class QGroupBox;
class QLabel;
class QPushButton;
class QSpinBox;

namespace pimgui {

class ControlPanel : public QWidget {
  Q_OBJECT
 public:
  explicit ControlPanel(QWidget* parent = nullptr);
  SessionConfig config() const;
  void setConfig(const SessionConfig& c);
  /// Loads a DSL file as the kernel; returns false (and says why) when it does not parse.
  bool setKernelFile(const QString& path, QString* error = nullptr);
  void setRunning(bool running);

 signals:
  void exploreRequested();
  void cancelRequested();
  void openKernelRequested();
  /// The user changed a steering setting (backend, kernel, a dimension, strategy, a rule, a pass); not
  /// emitted by setConfig, so undo can set the panel back without recording itself.
  void configChanged();

 private:
  void rebuildDims(const QString& shape);
  QGroupBox* makeSearchBox();  // strategy, prune rules, optimizer passes

  QComboBox* m_backend;
  QComboBox* m_kernel;
  QLabel* m_kernelSummary;
  QFormLayout* m_dimsForm;
  QWidget* m_dimsBox;
  std::vector<std::pair<QString, QSpinBox*>> m_dims;
  QComboBox* m_strategy;
  std::vector<QCheckBox*> m_rules;  // one per rule of pim::PruneRuleRegistry::builtin(), in its order
  QCheckBox* m_staged;
  QCheckBox* m_groupCommands;
  QPushButton* m_explore;
  QPushButton* m_cancel;
  QString m_kernelFile;
  bool m_applying = false;  // inside setConfig: no configChanged
};

}  // namespace pimgui

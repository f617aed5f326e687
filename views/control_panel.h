// SPDX-License-Identifier: Apache-2.0
// The problem and search settings: backend, kernel (library or DSL file), one field per kernel dimension,
// strategy, pruning rules and optimizer passes. It only edits a SessionConfig; the main window runs it. A
// dimension field keeps exactly what the user typed and says inline when it is not a size the engine accepts
// (1 to 2^40, as the CLI); nothing is clamped or replaced.
#pragma once
#include <QWidget>
#include <optional>
#include <vector>

#include "engine/kernel/kernel.h"
#include "engine/target/target.h"

#include "views/session_config.h"

class QCheckBox;
class QComboBox;
class QFormLayout;
class QGroupBox;
class QLabel;
class QLineEdit;
class QPushButton;

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
  /// Explore is enabled only while no run is going and the problem may run (the window's verdict).
  void setExploreAllowed(bool allowed);
  /// The first dimension field's error ("dimension 'n': 0 is not a valid size (must be 1..2^40)"), or empty.
  QString inputError() const;
  /// The field of dimension `name` (tests type into it as a user would); nullptr when there is none.
  QLineEdit* dimensionField(const QString& name) const;
  /// The "Resident tensors" field (comma list; filled with the kernel's declared residency on a kernel
  /// change).
  QLineEdit* residentField() const { return m_resident; }
  QComboBox* timingBox() const { return m_timing; }
  QPushButton* exploreButton() const { return m_explore; }
  QPushButton* cancelButton() const { return m_cancel; }

 signals:
  void exploreRequested();
  void cancelRequested();
  void openKernelRequested();
  /// The user changed a steering setting (backend, kernel, a dimension, strategy, a rule, a pass); not
  /// emitted by setConfig, so undo can set the panel back without recording itself.
  void configChanged();

 private:
  void rebuildDims(const QString& shape);
  void validateDims();         // marks every invalid field and fills m_dimsError
  QString validateResident();  // marks the resident field when it names no tensor of the kernel
  void describeResidency();  // the resident field's tooltip: the kernel's tensors and what each choice means
  QGroupBox* makeSearchBox();  // strategy, prune rules, optimizer passes
  /// Shows only the settings the backend's family reads (ITarget::searchSettings); a hidden one keeps its
  /// value (a saved session still has it) and is not validated.
  void showReadSettings();

  QComboBox* m_backend;
  QComboBox* m_kernel;
  QComboBox* m_dtype;  // "" (as declared) or a DType name
  QLabel* m_kernelSummary;
  QFormLayout* m_dimsForm;
  QWidget* m_dimsBox;
  std::vector<std::pair<QString, QLineEdit*>> m_dims;
  QLabel* m_dimsError;
  QLineEdit* m_resident;
  QFormLayout* m_problemForm;               // holds the resident row
  QFormLayout* m_strategyForm;              // holds the model row
  pim::SearchSettings m_reads;              // what the current backend's family reads (showReadSettings)
  std::optional<pim::Kernel> m_dimsKernel;  // the kernel the fields were built for: validation parses by it
  QComboBox* m_strategy;
  QComboBox* m_model;               // pim::LabelModel by name
  QComboBox* m_timing;              // the crossbar profiler's timing mode (views/timing_combo.h)
  std::vector<QCheckBox*> m_rules;  // one per rule of pim::PruneRuleRegistry::builtin(), in its order
  QCheckBox* m_staged;
  QCheckBox* m_groupCommands;
  QPushButton* m_explore;
  QPushButton* m_cancel;
  QString m_kernelFile;
  bool m_applying = false;  // inside setConfig: no configChanged
  bool m_running = false, m_allowed = true;
};

}  // namespace pimgui

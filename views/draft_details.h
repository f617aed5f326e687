// SPDX-License-Identifier: Apache-2.0
// The selected draft in full: its parts, the data/compute/tensor tiles of the first cores, the IR text, the
// command listing, and why it was pruned (for pruned drafts).
#pragma once
#include <QWidget>
#include <memory>

class QLabel;
class QPlainTextEdit;
class QTabWidget;
class QTreeWidget;

namespace pimgui {

class StageChart;

struct DraftAnalysis;

class DraftDetails : public QWidget {
  Q_OBJECT
 public:
  static constexpr int kCoresListed = 64;
  explicit DraftDetails(QWidget* parent = nullptr);
  void setAnalysis(std::shared_ptr<const DraftAnalysis> analysis);
  void setPending(quint64 draft);  // shown while the analysis runs

  QTreeWidget* tiles() const { return m_tiles; }
  QPlainTextEdit* ir() const { return m_ir; }
  QPlainTextEdit* commands() const { return m_commands; }
  QLabel* verdict() const { return m_verdict; }
  QTabWidget* tabs() const { return m_tabs; }
  /// The candidate's stages (a crossbar network's layer pipeline); its tab is disabled without stages.
  StageChart* stages() const { return m_stages; }

 private:
  void fillTiles(const DraftAnalysis& a);
  void showStages(const DraftAnalysis* a);

  QLabel* m_header;
  QLabel* m_verdict;
  QTabWidget* m_tabs;
  QTreeWidget* m_tiles;
  QPlainTextEdit* m_ir;
  QPlainTextEdit* m_commands;
  StageChart* m_stages;
};

}  // namespace pimgui

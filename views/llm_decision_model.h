// SPDX-License-Identifier: Apache-2.0
// The decision table of one system of an LLM run (issue 21) as an item model: per operator of the decoder
// layer and run of steps with one placement, where it ran and with which schedule, the GPU, PIM and split
// times weighed at the run's first step, the margin over the next-best option and the steps. The numbers are
// the engine's KernelDecision fields; "-" is "not an option".
#pragma once
#include <QAbstractTableModel>
#include <optional>
#include <string>
#include <vector>

#include "engine/llm/inference.h"

namespace pimgui {

class LlmDecisionModel : public QAbstractTableModel {
  Q_OBJECT
 public:
  enum Column { kKernel, kShape, kWhere, kSchedule, kGpuUs, kPimUs, kSplitUs, kMargin, kSteps, kColumns };
  explicit LlmDecisionModel(QObject* parent = nullptr);

  void setDecisions(std::vector<pim::llm::KernelDecision> decisions);
  const pim::llm::KernelDecision& decision(int row) const { return m_rows[static_cast<std::size_t>(row)]; }

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation o, int role = Qt::DisplayRole) const override;

 private:
  std::vector<pim::llm::KernelDecision> m_rows;
};

/// A library kernel and the dimensions the explorer takes (`explore --kernel K --dims D`).
struct LlmPimKernel {
  std::string kernel;  // "gemv", "attn" or "attn_gqa"
  std::string dims;    // "b=1,out=15360,in=5120"; an attention range's first length ("l=2049")
};

/// The PIM kernel a decision's shape names ("gemv[b=1,out=15360,in=5120]",
/// "attn[b=1,h=40,l=2049..2175,d=128]"); nullopt for a GPU-only shape ("1x15360x5120").
std::optional<LlmPimKernel> llmPimKernelOf(const std::string& shape);

}  // namespace pimgui

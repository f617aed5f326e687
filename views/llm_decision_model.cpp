// SPDX-License-Identifier: Apache-2.0
#include "views/llm_decision_model.h"

#include <regex>

#include "engine/llm/system.h"

namespace pimgui {

using pim::llm::KernelDecision;

LlmDecisionModel::LlmDecisionModel(QObject* parent) : QAbstractTableModel(parent) {}

void LlmDecisionModel::setDecisions(std::vector<KernelDecision> decisions) {
  beginResetModel();
  m_rows = std::move(decisions);
  endResetModel();
}

int LlmDecisionModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(m_rows.size());
}

int LlmDecisionModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : kColumns; }

namespace {

QString us(double v) { return v < 0 ? QStringLiteral("-") : QString::number(v, 'f', 2); }

QString steps(const KernelDecision& d) {
  return d.lastStep > d.firstStep ? QStringLiteral("%1..%2").arg(d.firstStep).arg(d.lastStep)
                                  : QString::number(d.firstStep);
}

QString text(const KernelDecision& d, int column) {
  switch (column) {
    case LlmDecisionModel::kKernel:
      return QString::fromStdString(d.op);
    case LlmDecisionModel::kShape:
      return QString::fromStdString(d.shape);
    case LlmDecisionModel::kWhere:
      return QString::fromLatin1(pim::llm::placementName(d.where));
    case LlmDecisionModel::kSchedule:
      return QString::fromStdString(d.schedule);
    case LlmDecisionModel::kGpuUs:
      return us(d.gpuUs);
    case LlmDecisionModel::kPimUs:
      return us(d.pimUs);
    case LlmDecisionModel::kSplitUs:
      return us(d.splitUs);
    case LlmDecisionModel::kMargin:
      return d.margin > 0 ? QString::number(d.margin, 'f', 2) + QLatin1Char('x') : QStringLiteral("-");
    case LlmDecisionModel::kSteps:
      return steps(d);
    default:
      return {};
  }
}

}  // namespace

QVariant LlmDecisionModel::data(const QModelIndex& index, int role) const {
  if (!index.isValid() || index.row() >= rowCount() || index.column() >= kColumns) return {};
  const KernelDecision& d = m_rows[static_cast<std::size_t>(index.row())];
  switch (role) {
    case Qt::DisplayRole:
      return text(d, index.column());
    case Qt::ToolTipRole:
      if (index.column() == kShape && llmPimKernelOf(d.shape))
        return tr("%1: double-click to explore this kernel in the main window").arg(text(d, kShape));
      return text(d, index.column());
    case Qt::TextAlignmentRole:
      if (index.column() >= kGpuUs && index.column() <= kMargin)
        return QVariant::fromValue(Qt::AlignRight | Qt::AlignVCenter);
      return {};
    default:
      return {};
  }
}

QVariant LlmDecisionModel::headerData(int section, Qt::Orientation o, int role) const {
  if (o != Qt::Horizontal || section < 0 || section >= kColumns) return {};
  static const char* titles[] = {"kernel", "shape",    "where",  "schedule", "GPU µs",
                                 "PIM µs", "split µs", "margin", "steps"};
  static const char* tips[] = {
      "the operator of the decoder layer",
      "as the PIM library kernel runs it (gemv, attn, attn_gqa) where PIM is an option, else the GPU's GEMM "
      "shape",
      "gpu, pim, or gpu+pim: rows shared so both finish together",
      "the GPU's, the vendor's tiling, or the draft DCC chose (groups, cores, representative per part)",
      "one call on the GPU at the run's first step, per layer (the LM head: per step)",
      "one call on the PIM devices at the run's first step, per layer (the LM head: per step; - : not an "
      "option)",
      "the GPU and PIM sharing the rows (- : not an option)",
      "how much slower the next-best option was (smallest over the steps; - : none was weighed)",
      "the decode steps this placement and schedule held for"};
  if (role == Qt::DisplayRole) return QString::fromUtf8(titles[section]);
  if (role == Qt::ToolTipRole) return tr(tips[section]);
  return {};
}

std::optional<LlmPimKernel> llmPimKernelOf(const std::string& shape) {
  // kernel[name=v,...]; an attention range "l=2049..2175" opens at its first length.
  static const std::regex form(
      R"(^(gemv|attn_gqa|attn)\[([a-z]+=[0-9]+(\.\.[0-9]+)?(,[a-z]+=[0-9]+(\.\.[0-9]+)?)*)\]$)");
  std::smatch m;
  if (!std::regex_match(shape, m, form)) return std::nullopt;
  static const std::regex range(R"(\.\.[0-9]+)");
  return LlmPimKernel{m[1].str(), std::regex_replace(m[2].str(), range, "")};
}

}  // namespace pimgui

// SPDX-License-Identifier: Apache-2.0
#include "views/draft_details.h"

#include <QFontDatabase>
#include <QHeaderView>
#include <QLabel>
#include <QLocale>
#include <QPlainTextEdit>
#include <QTabWidget>
#include <QTreeWidget>
#include <QVBoxLayout>

#include "engine/core/problem.h"
#include "engine/target/registry.h"
#include "views/code_highlighter.h"
#include "views/draft_analysis.h"
#include "views/residency_input.h"
#include "views/stage_chart.h"

namespace pimgui {

namespace {
QPlainTextEdit* codeView() {
  auto* edit = new QPlainTextEdit;
  edit->setReadOnly(true);
  edit->setLineWrapMode(QPlainTextEdit::NoWrap);
  edit->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
  new CodeHighlighter(edit->document());
  return edit;
}
QString sets(const std::vector<pim::IndexSet>& s) {
  QStringList parts;
  for (const auto& x : s) parts << QString::fromStdString(x.str());
  return parts.join(QStringLiteral(" × "));
}
}  // namespace

DraftDetails::DraftDetails(QWidget* parent) : QWidget(parent) {
  m_header = new QLabel(tr("Select a draft in the table or the plots."));
  m_header->setWordWrap(true);
  m_header->setTextInteractionFlags(Qt::TextSelectableByMouse);
  m_verdict = new QLabel;
  m_verdict->setWordWrap(true);
  m_verdict->setAlignment(Qt::AlignTop | Qt::AlignLeft);
  m_verdict->setTextInteractionFlags(Qt::TextSelectableByMouse);
  m_verdict->setMargin(8);
  m_tiles = new QTreeWidget;
  m_tiles->setColumnCount(2);
  m_tiles->setHeaderLabels({tr("Item"), tr("Value")});
  m_tiles->header()->setSectionResizeMode(0, QHeaderView::ResizeToContents);
  m_ir = codeView();
  m_commands = codeView();
  m_tabs = new QTabWidget;
  m_tabs->addTab(m_tiles, tr("Parts && tiles"));
  m_tabs->addTab(m_ir, tr("IR"));
  m_tabs->addTab(m_commands, tr("Commands"));
  m_tabs->addTab(m_verdict, tr("Why pruned"));
  m_stages = new StageChart;
  m_stages->setEmptyNote(tr("This candidate does not run as a pipeline of stages"));
  m_tabs->addTab(m_stages, tr("Stages"));
  m_tabs->setTabEnabled(m_tabs->indexOf(m_stages), false);
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(4, 4, 4, 4);
  layout->addWidget(m_header);
  layout->addWidget(m_tabs, 1);
}

void DraftDetails::setPending(quint64 draft) {
  m_header->setText(tr("<b>Draft %1</b> — analysing…").arg(draft));
}

void DraftDetails::setAnalysis(std::shared_ptr<const DraftAnalysis> a) {
  m_tiles->clear();
  if (!a) {
    m_header->setText(tr("Select a draft in the table or the plots."));
    m_ir->clear();
    m_commands->clear();
    m_verdict->clear();
    showStages(nullptr);
    return;
  }
  const QString label = QString::fromStdString(a->label);
  QString header = tr("<b>Draft %1</b> %2").arg(a->draft.id).arg(label.toHtmlEscaped());
  if (a->evaluation && a->problem) {
    const pim::Backend& b = a->problem->backend();
    header += tr("<br>%1 %2 µs, %3 µJ, %4 %5s used (analysed in %6 ms)")
                  .arg(QString::fromUtf8(pim::provenanceName(a->evaluation->provenance)))
                  .arg(a->evaluation->timeNs / 1e3, 0, 'f', 2)
                  .arg(a->evaluation->energyPj / 1e6, 0, 'f', 3)
                  .arg(a->evaluation->unitsUsed)
                  .arg(QString::fromStdString(pim::targetOf(b).geometry(b).innerName))
                  .arg(a->milliseconds, 0, 'f', 0);
    const QString preload = preloadText(
        a->evaluation->preloadCycles, a->evaluation->tCKns,
        QString::fromStdString(pim::residentNames(a->problem->kernel(), a->problem->residency())));
    if (!preload.isEmpty()) header += QStringLiteral("<br>") + preload.toHtmlEscaped();
  }
  if (!a->error.empty())
    header += tr("<br><font color='#a02828'>%1</font>").arg(QString::fromStdString(a->error).toHtmlEscaped());
  m_header->setText(header);
  m_verdict->setText(a->verdict.kept
                         ? tr("Kept: no pruning rule removes this draft.")
                         : tr("<b>Pruned by rule %1 (%2)</b><br>%3%4")
                               .arg(a->verdict.rule)
                               .arg(QString::fromStdString(a->verdict.ruleName))
                               .arg(QString::fromStdString(a->verdict.reason).toHtmlEscaped())
                               .arg(a->verdict.keptTwin
                                        ? tr("<br>Stands for kept draft %1.").arg(*a->verdict.keptTwin)
                                        : QString()));
  if (!a->verdict.kept) m_tabs->setCurrentWidget(m_verdict);
  m_ir->setPlainText(QString::fromStdString(a->irText));
  m_commands->setPlainText(QString::fromStdString(a->commands));
  fillTiles(*a);
  showStages(a.get());
}

void DraftDetails::showStages(const DraftAnalysis* a) {
  const bool any = a && a->evaluation && a->problem && !a->evaluation->stages.empty();
  const int tab = m_tabs->indexOf(m_stages);
  m_tabs->setTabEnabled(tab, any);
  if (!any) {
    if (m_tabs->currentIndex() == tab) m_tabs->setCurrentIndex(0);
    return m_stages->setStages(nullptr, {}, {});
  }
  QStringList parts;
  for (const pim::SubPhaseDecl& d : pim::targetOf(a->problem->backend()).subPhases())
    parts << QString::fromStdString(d.label);
  const pim::Evaluation& e = *a->evaluation;
  const QString label = QString::fromStdString(a->label);
  m_stages->setStages(std::make_shared<const pim::Evaluation>(e), parts,
                      e.periodCycles
                          ? tr("%1: each stage's time on its busiest unit; the bottleneck bounds the "
                               "period")
                                .arg(label)
                          : tr("%1: each stage from its first instruction to its last").arg(label));
}

void DraftDetails::fillTiles(const DraftAnalysis& a) {
  if (!a.problem) return;
  if (a.draft.parts.empty()) {  // a family's own candidate: the figures its evaluation reports (listing: IR)
    if (!a.evaluation || a.evaluation->facts.empty()) return;
    auto* facts = new QTreeWidgetItem(m_tiles, {tr("Evaluation facts"), tr("as the target reports them")});
    for (const auto& [name, value] : a.evaluation->facts)
      new QTreeWidgetItem(facts, {QString::fromStdString(name), QLocale().toString(value, 'g', 12)});
    facts->setExpanded(true);
    return;
  }
  const pim::DraftSpace& space = a.problem->space();
  const pim::Kernel& k = a.problem->kernel();
  const auto vars = k.loopVarNames();
  auto* parts = new QTreeWidgetItem(m_tiles, {tr("Parts"), QString::number(a.draft.parts.size())});
  for (int i = 0; i < static_cast<int>(a.draft.parts.size()); ++i) {
    const pim::PartChoice& c = a.draft.parts[static_cast<std::size_t>(i)];
    const pim::RepresentativeMapping& rep = space.representative(i, c);
    const QString tensor =
        rep.tensor >= 0 ? QString::fromStdString(k.tensors[static_cast<std::size_t>(rep.tensor)].name) : "?";
    new QTreeWidgetItem(parts,
                        {tr("part %1").arg(i),
                         tr("%1 groups × %2 cores, representative %3 axis %4 = %5 (extent %6, %7 per core)")
                             .arg(c.groups)
                             .arg(c.cores)
                             .arg(tensor)
                             .arg(rep.axis)
                             .arg(QString::fromStdString(rep.fn.str(vars)))
                             .arg(rep.extent)
                             .arg(space.perCoreSize(i, c))});
  }
  parts->setExpanded(true);
  if (!a.mapping) return;
  const auto& cores = a.mapping->cores;
  auto* root = new QTreeWidgetItem(
      m_tiles,
      {tr("Cores"), tr("first %1 of %2").arg(std::min<int>(kCoresListed, cores.size())).arg(cores.size())});
  for (int i = 0; i < std::min<int>(kCoresListed, cores.size()); ++i) {
    const pim::CoreTile& t = cores[static_cast<std::size_t>(i)];
    auto* item = new QTreeWidgetItem(
        root, {tr("group %1, core %2").arg(t.group).arg(t.core), t.idle ? tr("idle") : sets(t.computeTile)});
    for (int p = 0; p < static_cast<int>(t.dataTiles.size()); ++p)
      new QTreeWidgetItem(item, {tr("data tile, part %1").arg(p),
                                 QString::fromStdString(t.dataTiles[static_cast<std::size_t>(p)].str())});
    QStringList loops;
    for (int v = 0; v < static_cast<int>(t.computeTile.size()) && v < static_cast<int>(vars.size()); ++v)
      loops << QString::fromStdString(vars[static_cast<std::size_t>(v)]) + QStringLiteral(" ∈ ") +
                   QString::fromStdString(t.computeTile[static_cast<std::size_t>(v)].str());
    new QTreeWidgetItem(item, {tr("compute tile"), loops.join(QStringLiteral(", "))});
    for (int ti = 0; ti < static_cast<int>(t.tensors.size()) && ti < static_cast<int>(k.tensors.size());
         ++ti) {
      QStringList axes;
      for (const auto& ax : t.tensors[static_cast<std::size_t>(ti)].axes)
        axes << QString::fromStdString(ax.str());
      new QTreeWidgetItem(
          item,
          {tr("tensor tile %1").arg(QString::fromStdString(k.tensors[static_cast<std::size_t>(ti)].name)),
           tr("%1 (%2 elements)")
               .arg(axes.join(QStringLiteral(" × ")))
               .arg(t.tensors[static_cast<std::size_t>(ti)].elements)});
    }
  }
  root->setExpanded(true);
  if (root->childCount() > 0) root->child(0)->setExpanded(true);
}

}  // namespace pimgui

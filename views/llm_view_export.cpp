// SPDX-License-Identifier: Apache-2.0
// LlmView: CSV and chart exports and the screenshots of `pimscope --screenshot`. The CSV is the CLI's
// (engine/llm/llm_export.h: `llm --csv`, `--decisions-csv`, `serve --csv`), the charts go through the
// window's one plot exporter (views/plot_export.h).
#include <qcustomplot.h>
#include <QApplication>
#include <QDir>
#include <QFileDialog>
#include <QMenu>
#include <QMessageBox>
#include <QRegularExpression>
#include <QTabWidget>
#include <QToolButton>
#include <exception>

#include "engine/llm/llm_export.h"
#include "views/export_paths.h"
#include "views/llm_breakdown_chart.h"
#include "views/llm_serve_chart.h"
#include "views/llm_token_chart.h"
#include "views/llm_view.h"
#include "views/llm_warmup_panel.h"
#include "views/plot_export.h"

namespace pimgui {
namespace {

bool writeCsvFile(const QString& path, const std::string& csv, QString* error) {
  try {
    pim::llm::writeCsv(path.toStdString(), csv);
    return true;
  } catch (const std::exception& e) {
    if (error) *error = QString::fromStdString(e.what());
    return false;
  }
}

bool nothing(QString* error, const QString& why) {
  if (error) *error = why;
  return false;
}

}  // namespace

bool LlmView::exportTokensCsv(const QString& path, QString* error) const {
  if (!m_run) return nothing(error, tr("run a request first: there is no per-token series to export"));
  return writeCsvFile(path, pim::llm::tokenSeriesCsv(m_run->result), error);
}

bool LlmView::exportDecisionsCsv(const QString& path, QString* error) const {
  if (!m_run) return nothing(error, tr("run a request first: there are no decisions to export"));
  return writeCsvFile(path, pim::llm::decisionsCsv(m_run->result), error);
}

bool LlmView::exportServedCsv(const QString& path, QString* error) const {
  if (m_warmup->runs().empty()) return nothing(error, tr("run a request stream first: nothing was served"));
  return writeCsvFile(path, pim::llm::servedCsv(m_warmup->runs()), error);
}

bool LlmView::exportChart(Chart c, const QString& path, QString* error) const {
  QWidget* plot = c == Chart::Breakdown ? static_cast<QWidget*>(m_breakdown->plot())
                  : c == Chart::Tokens  ? static_cast<QWidget*>(m_tokens->plot())
                                        : static_cast<QWidget*>(m_warmup->chart()->plot());
  const QString what = c == Chart::Breakdown ? tr("Time per token by phase")
                       : c == Chart::Tokens  ? tr("Time per decode step")
                                             : tr("Latency per request, online and offline lookup table");
  const QString request = m_run && c != Chart::Warmup ? llmRequestText(m_run->result) : QString();
  return exportPlot(plot, path, error, request.isEmpty() ? what : what + QStringLiteral(": ") + request);
}

QString LlmView::baseName(const QString& what) const {
  QString name = QStringLiteral("llm_") + what;
  if (m_run) {
    const auto& r = m_run->result;
    name = QStringLiteral("llm_%1_b%2_lin%3_lout%4_%5")
               .arg(QString::fromStdString(r.model))
               .arg(r.batch)
               .arg(r.lin)
               .arg(r.lout)
               .arg(what);
  }
  static const QRegularExpression unsafe(QStringLiteral("[^A-Za-z0-9._+-]"));
  return name.replace(unsafe, QStringLiteral("_"));
}

void LlmView::exportCsvInteractive(const QString& what) {
  const QString path = QFileDialog::getSaveFileName(
      this, tr("Export CSV"), suggestedExportPath(baseName(what) + ".csv"), tr("CSV (*.csv);;All files (*)"));
  if (path.isEmpty()) return;
  rememberExportFolder(path);
  QString error;
  const bool ok = what == QLatin1String("tokens")      ? exportTokensCsv(path, &error)
                  : what == QLatin1String("decisions") ? exportDecisionsCsv(path, &error)
                                                       : exportServedCsv(path, &error);
  if (!ok) {
    QMessageBox::warning(this, tr("Export failed"), error);
    return;
  }
  m_status->setText(tr("Wrote %1").arg(path));
}

void LlmView::exportChartInteractive(Chart c) {
  const QString what = c == Chart::Breakdown ? QStringLiteral("breakdown")
                       : c == Chart::Tokens  ? QStringLiteral("tokens")
                                             : QStringLiteral("warmup");
  QWidget* plot = c == Chart::Breakdown ? static_cast<QWidget*>(m_breakdown->plot())
                  : c == Chart::Tokens  ? static_cast<QWidget*>(m_tokens->plot())
                                        : static_cast<QWidget*>(m_warmup->chart()->plot());
  const QString title = c == Chart::Warmup || !m_run ? QString() : llmRequestText(m_run->result);
  const QString path = exportPlotInteractive(this, plot, baseName(what), title);
  if (!path.isEmpty()) m_status->setText(tr("Wrote %1").arg(path));
}

QToolButton* LlmView::buildExportButton() {
  auto* button = new QToolButton;
  button->setText(tr("Export"));
  button->setPopupMode(QToolButton::InstantPopup);
  button->setToolTip(
      tr("CSV of the per-token series, the decisions or the served stream (as pimscope-cli "
         "llm/serve --csv); a chart as PNG, SVG or PDF"));
  auto* menu = new QMenu(button);
  menu->addAction(tr("Per-token series (CSV)…"), this,
                  [this] { exportCsvInteractive(QStringLiteral("tokens")); });
  menu->addAction(tr("Decisions (CSV)…"), this,
                  [this] { exportCsvInteractive(QStringLiteral("decisions")); });
  menu->addAction(tr("Served stream (CSV)…"), this,
                  [this] { exportCsvInteractive(QStringLiteral("served")); });
  menu->addSeparator();
  menu->addAction(tr("Breakdown chart…"), this, [this] { exportChartInteractive(Chart::Breakdown); });
  menu->addAction(tr("Per-token chart…"), this, [this] { exportChartInteractive(Chart::Tokens); });
  menu->addAction(tr("Warm-up chart…"), this, [this] { exportChartInteractive(Chart::Warmup); });
  // Only what there is to export is offered.
  connect(menu, &QMenu::aboutToShow, this, [this, menu] {
    const auto actions = menu->actions();
    const bool served = !m_warmup->runs().empty();
    const bool have[] = {bool(m_run), bool(m_run), served, false, bool(m_run), bool(m_run), served};
    for (int i = 0; i < actions.size() && i < static_cast<int>(std::size(have)); ++i)
      if (!actions[i]->isSeparator()) actions[i]->setEnabled(have[i]);
  });
  button->setMenu(menu);
  return button;
}

QStringList LlmView::saveScreenshots(const QString& dir) {
  QStringList written;
  if (!m_run) return written;
  QDir().mkpath(dir);
  const int shown = m_tabs->currentIndex();
  const std::pair<int, const char*> shots[] = {{0, "llm_breakdown.png"}, {1, "llm_tokens.png"}};
  for (const auto& [tab, name] : shots) {
    m_tabs->setCurrentIndex(tab);
    QApplication::processEvents();
    const QString path = QDir(dir).filePath(QString::fromLatin1(name));
    if (grab().save(path)) written << path;
  }
  m_tabs->setCurrentIndex(shown);
  return written;
}

}  // namespace pimgui

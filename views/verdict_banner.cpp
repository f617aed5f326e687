// SPDX-License-Identifier: Apache-2.0
#include "views/verdict_banner.h"

#include <exception>

#include "engine/target/registry.h"
#include "views/exploration_session.h"

namespace pimgui {

QString problemVerdict(const SessionConfig& config) {
  try {
    pim::requireRunnable(*makeProblem(config));
    return {};
  } catch (const std::exception& e) {
    return QString::fromStdString(e.what());
  }
}

VerdictBanner::VerdictBanner(QWidget* parent) : QLabel(parent) {
  setObjectName(QStringLiteral("verdictBanner"));
  setWordWrap(true);
  setTextInteractionFlags(Qt::TextSelectableByMouse);
  setStyleSheet(
      QStringLiteral("QLabel { background: #fbe3e3; color: #6b1111; border: 1px solid #d9a0a0; "
                     "border-radius: 4px; padding: 6px 8px; }"));
  hide();
}

void VerdictBanner::setVerdict(const QString& reason) {
  m_verdict = reason;
  setText(reason.isEmpty() ? QString() : tr("<b>Cannot run:</b> %1").arg(reason.toHtmlEscaped()));
  setVisible(!reason.isEmpty());
}

}  // namespace pimgui

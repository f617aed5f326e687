// SPDX-License-Identifier: Apache-2.0
#include "views/stale_banner.h"

#include "engine/hw/backend.h"
#include "views/undo_commands.h"

namespace pimgui {

QString staleReason(const SessionConfig& shown, const SessionConfig& requested) {
  QString field = steeringChange(shown, requested);
  const auto hashOf = [](const SessionConfig& c) {
    return c.backendOverride ? c.backendOverride->hash() : std::string();
  };
  if (shown.backend == requested.backend && hashOf(shown) != hashOf(requested))
    field = field.isEmpty() ? QObject::tr("what-if hardware") : QObject::tr("settings");
  return field;
}

StaleBanner::StaleBanner(QWidget* parent) : QLabel(parent) {
  setObjectName(QStringLiteral("staleBanner"));
  setWordWrap(true);
  setTextInteractionFlags(Qt::TextSelectableByMouse);
  setStyleSheet(
      QStringLiteral("QLabel { background: #fff4d6; color: #5c4400; border: 1px solid #e0c070; "
                     "border-radius: 4px; padding: 6px 8px; }"));
  hide();
}

void StaleBanner::setStale(const QString& reason, const QString& shownTitle) {
  m_reason = reason;
  setText(
      reason.isEmpty()
          ? QString()
          : tr("<b>Stale:</b> the views show %1; the %2 changed in the controls since. Press Explore (F5) "
               "to update them.")
                .arg(shownTitle.toHtmlEscaped(), reason.toHtmlEscaped()));
  setVisible(!reason.isEmpty());
}

}  // namespace pimgui

// SPDX-License-Identifier: Apache-2.0
#include "views/llm_inputs.h"

#include <QLineEdit>
#include <QRegularExpression>

namespace pimgui {
namespace {

std::optional<std::int64_t> parseWhole(QString text) {
  text.remove(QLatin1Char(',')).remove(QLatin1Char(' ')).remove(QLatin1Char('_'));
  bool ok = false;
  const qlonglong v = text.toLongLong(&ok);
  if (!ok) return std::nullopt;
  return static_cast<std::int64_t>(v);
}

}  // namespace

std::optional<std::int64_t> readWholeNumber(const LlmField& f, QString* error) {
  const QString text = f.edit->text().trimmed();
  const auto v = parseWhole(text);
  markField(f, !v);
  if (!v && error) *error = QObject::tr("%1: '%2' is not a whole number").arg(f.label, text);
  return v;
}

std::optional<std::pair<std::int64_t, std::int64_t>> readRange(const LlmField& f, QString* error) {
  const QString text = f.edit->text().trimmed();
  // A-B or A:B; a minus sign of a negative bound would be ambiguous with the dash, so bounds are unsigned.
  static const QRegularExpression form(
      QStringLiteral(R"(^([0-9][0-9, _]*)\s*(?:[-:]\s*([0-9][0-9, _]*))?$)"));
  const QRegularExpressionMatch m = form.match(text);
  std::optional<std::int64_t> lo, hi;
  if (m.hasMatch()) {
    lo = parseWhole(m.captured(1));
    hi = m.captured(2).isEmpty() ? lo : parseWhole(m.captured(2));
  }
  markField(f, !lo || !hi);
  if (!lo || !hi) {
    if (error) *error = QObject::tr("%1: '%2' is not a range A-B of whole numbers").arg(f.label, text);
    return std::nullopt;
  }
  return std::pair{*lo, *hi};
}

QString showFieldError(const QString& message, const std::vector<LlmField>& fields) {
  QString out = message;
  for (const LlmField& f : fields) {
    const bool named = !f.option.isEmpty() && message.startsWith(f.option + QLatin1Char(':'));
    if (named) out = f.label + message.mid(f.option.size());
    markField(f, named);
  }
  return out;
}

void markField(const LlmField& f, bool invalid) {
  if (!f.edit) return;
  f.edit->setStyleSheet(invalid ? QStringLiteral("QLineEdit { border: 2px solid #b22222; }") : QString());
}

}  // namespace pimgui

// SPDX-License-Identifier: Apache-2.0
// The LLM view's number fields (issue 21): they keep exactly what was typed (nothing is clamped), are read
// here as whole numbers or ranges, and the engine's messages, which name the CLI's options ("--batch: 0 is
// outside 1..65536"), are shown with the field's own label ("Batch: 0 is outside 1..65536") and the field
// marked.
#pragma once
#include <QString>
#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

class QLineEdit;

namespace pimgui {

/// A form field and the CLI option the engine names it by.
struct LlmField {
  QLineEdit* edit = nullptr;
  QString label;   // "Batch"
  QString option;  // "--batch"
};

/// The whole number in `f` ("4,096" and "4 096" allowed); on failure nullopt and `error` naming the field.
std::optional<std::int64_t> readWholeNumber(const LlmField& f, QString* error);
/// "A-B", "A:B" (the CLI's form) or "A" in `f`; on failure nullopt and `error` naming the field.
std::optional<std::pair<std::int64_t, std::int64_t>> readRange(const LlmField& f, QString* error);

/// `message` with a leading "--option:" of one of `fields` replaced by its label, that field marked; every
/// other field unmarked. The message unchanged when it names none of them.
QString showFieldError(const QString& message, const std::vector<LlmField>& fields);
/// Marks `f` invalid (red frame) or clears the mark.
void markField(const LlmField& f, bool invalid);

}  // namespace pimgui

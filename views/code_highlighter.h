// SPDX-License-Identifier: Apache-2.0
// Colours keywords, command mnemonics, numbers and comments of the IR text and command listings.
#pragma once
#include <QRegularExpression>
#include <QSyntaxHighlighter>
#include <QTextCharFormat>
#include <vector>

namespace pimgui {

class CodeHighlighter : public QSyntaxHighlighter {
  Q_OBJECT
 public:
  explicit CodeHighlighter(QTextDocument* doc);

 protected:
  void highlightBlock(const QString& text) override;

 private:
  struct Rule {
    QRegularExpression pattern;
    QTextCharFormat format;
  };
  std::vector<Rule> m_rules;
};

}  // namespace pimgui

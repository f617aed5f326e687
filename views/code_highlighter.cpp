// SPDX-License-Identifier: Apache-2.0
#include "views/code_highlighter.h"

namespace pimgui {

CodeHighlighter::CodeHighlighter(QTextDocument* doc) : QSyntaxHighlighter(doc) {
  QTextCharFormat keyword;
  keyword.setForeground(QColor(0x00, 0x4d, 0x99));
  keyword.setFontWeight(QFont::Bold);
  QTextCharFormat command;
  command.setForeground(QColor(0x8a, 0x2b, 0x86));
  command.setFontWeight(QFont::Bold);
  QTextCharFormat number;
  number.setForeground(QColor(0xb3, 0x5c, 0x00));
  QTextCharFormat comment;
  comment.setForeground(QColor(0x6a, 0x73, 0x7d));
  comment.setFontItalic(true);
  // IR keywords (DCC Table 2) and DRAM/PIM command mnemonics.
  m_rules.push_back({QRegularExpression(QStringLiteral(
                         "\\b(hardware_platform|complex_dimset|representative|ranges|data_tile|compute_tile|"
                         "tensor_tile|rearrange|to_PIM_core|to_host|parallel_PIM|loop|for|in|kernel|input|"
                         "output|temp|group|core|channel|phase|repeat)\\b")),
                     keyword});
  m_rules.push_back(
      {QRegularExpression(QStringLiteral(
           "\\b(ACT|PRE|PREA|RD|WR|REF|REFab|MAC|MACAB|MUL|ADD|LD|WB|BARRIER|MOV|FILL|NOP|EXIT|JUMP|"
           "RDA|WRA|[A-Z]{2,}_[A-Z0-9_]+)\\b")),
       command});
  m_rules.push_back({QRegularExpression(QStringLiteral("\\b-?\\d+(\\.\\d+)?([eE][-+]?\\d+)?\\b")), number});
  m_rules.push_back({QRegularExpression(QStringLiteral("(//.*$)|(^\\s*;.*$)")), comment});
}

void CodeHighlighter::highlightBlock(const QString& text) {
  for (const Rule& rule : m_rules) {
    auto it = rule.pattern.globalMatch(text);
    while (it.hasNext()) {
      const auto m = it.next();
      setFormat(static_cast<int>(m.capturedStart()), static_cast<int>(m.capturedLength()), rule.format);
    }
  }
}

}  // namespace pimgui

// SPDX-License-Identifier: Apache-2.0
// Progress reports as text (mapper.h): the CLI's progress line, the window's status line and the candidate
// list's preparation all read them the same way.
#include <algorithm>
#include <cstdio>
#include <string>

#include "engine/common/number_text.h"
#include "engine/convmap/mapper.h"

namespace pim::convmap {

std::string objectiveValueText(const ObjectiveSpec& o, double value) {
  char text[48];
  switch (o.kind) {
    case Objective::Latency:
      return withThousands(static_cast<std::int64_t>(value)) + " cycles";
    case Objective::Energy:
      std::snprintf(text, sizeof text, "%.6g nJ", value / 1e3);
      return text;
    case Objective::Blended:
      break;
  }
  std::snprintf(text, sizeof text, "%.4f", value);
  return text;
}

std::string progressText(const ObjectiveSpec& o, const MapProgress& p,
                         std::optional<std::int64_t> proposalBudget) {
  std::string line = p.stage.empty() ? "" : p.stage + ": ";
  if (p.incumbent) {
    line += "best " + objectiveValueText(o, *p.incumbent);
    if (p.bound) {
      const double gap = *p.incumbent > 0 ? std::max(0.0, (*p.incumbent - *p.bound) / *p.incumbent) : 0.0;
      line += ", bound " + objectiveValueText(o, *p.bound) + ", gap " + withDecimals(gap * 100, 1) + " %";
    }
  } else {
    line += "no mapping yet";
  }
  if (p.nodes) line += " · " + withThousands(*p.nodes) + " nodes";
  if (p.evaluated > 0 || !p.nodes) {
    line += " · " + withThousands(p.evaluated);
    if (proposalBudget) line += " of " + withThousands(*proposalBudget);
    line += " mappings evaluated";
  }
  return line + " · " + withDecimals(p.seconds, 1) + " s";
}

}  // namespace pim::convmap

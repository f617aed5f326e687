// SPDX-License-Identifier: Apache-2.0
#include "views/walkthrough_pictures.h"

#include <QObject>
#include <QPainter>
#include <QPainterPath>
#include <algorithm>
#include <array>
#include <set>

#include "engine/mapping/tile_mapping.h"

namespace pimgui {
namespace {

// Tableau 10: distinguishable in print and on a projector.
constexpr std::array<QRgb, 10> kPalette = {0x4e79a7, 0xf28e2b, 0xe15759, 0x76b7b2, 0x59a14f,
                                           0xedc948, 0xb07aa1, 0xff9da7, 0x9c755f, 0xbab0ac};
QColor colourOf(std::size_t i) { return QColor(kPalette[i % kPalette.size()]); }

QImage blank(int height) {
  QImage img(kPictureWidth, height, QImage::Format_ARGB32_Premultiplied);
  img.fill(Qt::white);
  return img;
}

void begin(QPainter& p, int pixelSize = 12) {
  p.setRenderHint(QPainter::Antialiasing);
  p.setRenderHint(QPainter::TextAntialiasing);
  QFont f = p.font();
  f.setPixelSize(pixelSize);
  p.setFont(f);
}

/// Swatches with their labels from (x, y) to the right, wrapping at the picture's width; returns the y below.
int legend(QPainter& p, int x, int y, const std::vector<std::pair<QBrush, QString>>& items) {
  const int x0 = x;
  for (const auto& [brush, text] : items) {
    const int w = 18 + p.fontMetrics().horizontalAdvance(text) + 16;
    if (x + w > kPictureWidth - 8 && x > x0) x = x0, y += 18;
    p.setPen(QColor(0x555555));
    p.setBrush(brush);
    p.drawRect(x, y + 2, 12, 12);
    p.setPen(Qt::black);
    p.drawText(x + 18, y + 13, text);
    x += w;
  }
  return y + 20;
}

/// A pruned draft's colour by the rule that removed it (kept drafts are green).
QColor ruleColour(int rule) {
  switch (rule) {
    case 1:
      return QColor(0xe15759);
    case 2:
      return QColor(0xf28e2b);
    case 3:
      return QColor(0xedc948);
    default:
      return colourOf(6 + static_cast<std::size_t>(rule));
  }
}

QString tensorDimName(const pim::Kernel& k, int tensor, int axis) {
  return QString::fromStdString(k.tensors[static_cast<std::size_t>(tensor)].name) + QString::number(axis);
}

}  // namespace

WalkthroughPicture dimensionGraphPicture(const pim::DraftSpace& space) {
  const pim::Kernel& k = space.kernel();
  const auto vars = k.loopVarNames();
  const auto& sets = space.sets().sets;
  std::size_t dims = 0;
  for (const auto& s : sets) dims += s.dims.size();
  constexpr int kRow = 32, kTop = 34;
  const int rows = static_cast<int>(std::max(dims, vars.size()));
  WalkthroughPicture pic{blank(kTop + rows * kRow + 50), {}};
  QPainter p(&pic.image);
  begin(p);
  p.drawText(20, 18, QObject::tr("tensor dimension = {reference set}"));
  p.drawText(500, 18, QObject::tr("loop variable [range)"));
  const QRectF dimBox(20, 0, 290, 24), varBox(500, 0, 200, 24);
  auto varAt = [&](std::size_t v) { return varBox.translated(0, kTop + static_cast<double>(v) * kRow); };
  for (std::size_t v = 0; v < vars.size(); ++v) {
    p.setPen(Qt::black);
    p.setBrush(QColor(0xf4f4f4));
    p.drawRoundedRect(varAt(v), 5, 5);
    p.drawText(varAt(v).adjusted(8, 0, 0, 0), Qt::AlignVCenter,
               QStringLiteral("%1  [%2, %3)")
                   .arg(QString::fromStdString(vars[v]))
                   .arg(space.sets().loopLo.at(v))
                   .arg(space.sets().loopHi.at(v)));
  }
  std::set<std::pair<std::size_t, int>> edges;  // (dimension row, variable)
  std::size_t row = 0;
  for (std::size_t si = 0; si < sets.size(); ++si) {
    for (const pim::TensorDim& d : sets[si].dims) {
      const QRectF box = dimBox.translated(0, kTop + static_cast<double>(row) * kRow);
      QStringList refs;
      for (const pim::AffineExpr& e : d.references) {
        refs << QString::fromStdString(e.str(vars));
        for (const auto& [var, coeff] : e.terms) {
          if (coeff == 0 || !edges.emplace(row, var).second) continue;
          p.setPen(QPen(colourOf(si), 2));
          const QRectF to = varAt(static_cast<std::size_t>(var));
          p.drawLine(QPointF(box.right(), box.center().y()), QPointF(to.left(), to.center().y()));
        }
      }
      p.setPen(Qt::black);
      p.setBrush(colourOf(si).lighter(160));
      p.drawRoundedRect(box, 5, 5);
      p.drawText(box.adjusted(8, 0, -4, 0), Qt::AlignVCenter,
                 QStringLiteral("%1 = {%2}   extent %3")
                     .arg(tensorDimName(k, d.tensor, d.axis), refs.join(QStringLiteral(", ")))
                     .arg(d.extent));
      ++row;
    }
  }
  std::vector<std::pair<QBrush, QString>> items;
  for (std::size_t si = 0; si < sets.size(); ++si)
    items.emplace_back(colourOf(si).lighter(160), QStringLiteral("ds%1%2").arg(si).arg(
                                                      sets[si].simd ? QObject::tr(" (SIMD)") : QString()));
  legend(p, 20, kTop + rows * kRow + 8, items);
  pic.drawn = {{"graph_dims", dims}, {"graph_vars", vars.size()}, {"graph_edges", edges.size()}};
  return pic;
}

namespace {

/// One allocation tree in `area`: the root, a level per part, a leaf per chain (chains in id order).
void drawTree(QPainter& p, const QRect& area, const QString& title, int total,
              const std::vector<std::vector<int>>& chains, std::uint64_t allChains) {
  p.setPen(Qt::black);
  p.drawText(area.left(), area.top() + 14,
             chains.size() < allChains
                 ? QObject::tr("%1: the first %2 of %3 chains").arg(title).arg(chains.size()).arg(allChains)
                 : QObject::tr("%1: %2 chains, one per leaf").arg(title).arg(allChains));
  if (chains.empty()) return;
  const int parts = static_cast<int>(chains.front().size());
  const int levelH = (area.height() - 46) / std::max(1, parts);
  const double left = area.left() + 60, width = area.width() - 70;
  auto y = [&](int level) { return area.top() + 36.0 + level * levelH; };
  for (int level = 0; level <= parts; ++level)
    p.drawText(QPointF(area.left(), y(level) + 4),
               level == 0 ? QObject::tr("available") : QObject::tr("part %1").arg(level - 1));
  // A trie of the chains: a node per distinct prefix, created parent first.
  struct Node {
    int value, level;
    double x = 0;
    std::vector<std::size_t> children;
  };
  std::vector<Node> nodes{{total, 0, 0, {}}};
  for (std::size_t i = 0; i < chains.size(); ++i) {
    std::size_t cur = 0;
    for (int level = 1; level <= parts; ++level) {
      const int v = chains[i][static_cast<std::size_t>(level - 1)];
      const auto& kids = nodes[cur].children;
      auto it = std::find_if(kids.begin(), kids.end(), [&](std::size_t c) { return nodes[c].value == v; });
      if (it == kids.end()) {
        nodes.push_back({v, level, 0, {}});
        nodes[cur].children.push_back(nodes.size() - 1);
        cur = nodes.size() - 1;
      } else {
        cur = *it;
      }
    }
    nodes[cur].x = left + (static_cast<double>(i) + 0.5) * width / static_cast<double>(chains.size());
  }
  for (std::size_t n = nodes.size(); n-- > 0;)
    if (!nodes[n].children.empty())
      nodes[n].x = (nodes[nodes[n].children.front()].x + nodes[nodes[n].children.back()].x) / 2;
  p.setPen(QPen(QColor(0x888888), 1.2));
  for (const Node& n : nodes)
    for (std::size_t c : n.children)
      p.drawLine(QPointF(n.x, y(n.level)), QPointF(nodes[c].x, y(nodes[c].level)));
  for (const Node& n : nodes) {
    const QRectF r(n.x - 11, y(n.level) - 10, 22, 20);
    p.setPen(Qt::black);
    p.setBrush(n.level == 0 ? QColor(0xdddddd)
                            : colourOf(static_cast<std::size_t>(n.level - 1)).lighter(150));
    p.drawEllipse(r);
    p.drawText(r, Qt::AlignCenter, QString::number(n.value));
  }
}

/// The chains of the first `limit` drafts that differ only in their group (or core) chain, in id order.
std::vector<std::vector<int>> chainsOf(const pim::DraftSpace& space, bool groups, std::size_t limit) {
  const std::uint64_t count = groups ? space.groupChains() : space.coreChains();
  const std::uint64_t stride =
      groups ? space.coreChains() * space.repCombinations() : space.repCombinations();
  std::vector<std::vector<int>> out;
  for (std::uint64_t r = 0; r < std::min<std::uint64_t>(count, limit); ++r) {
    const pim::Draft d = space.draft(r * stride);
    std::vector<int> chain;
    for (const pim::PartChoice& c : d.parts) chain.push_back(groups ? c.groups : c.cores);
    out.push_back(std::move(chain));
  }
  return out;
}

}  // namespace

WalkthroughPicture allocationTreePicture(const pim::DraftSpace& space) {
  const int treeH = 50 + 50 * space.partCount();
  WalkthroughPicture pic{blank(2 * treeH + 42), {}};
  QPainter p(&pic.image);
  begin(p, 11);
  // A saturated draft count means ids past 2^64 cannot be formed: no chain can be read back then.
  std::vector<std::vector<int>> groupChains, coreChains;
  if (space.size() != UINT64_MAX) {
    groupChains = chainsOf(space, true, kMaxTreeLeaves);
    coreChains = chainsOf(space, false, kMaxTreeLeaves);
  }
  const auto& r = space.resources();
  drawTree(p, QRect(12, 4, kPictureWidth - 24, treeH), QObject::tr("groups (%1 available)").arg(r.groups),
           r.groups, groupChains, space.groupChains());
  drawTree(p, QRect(12, treeH + 14, kPictureWidth - 24, treeH),
           QObject::tr("cores per group (%1 available)").arg(r.coresPerGroup), r.coresPerGroup, coreChains,
           space.coreChains());
  p.setPen(QColor(0x555555));
  p.drawText(12, 2 * treeH + 34,
             QObject::tr("A node is what its part takes; what is left for the parts below is the available "
                         "count divided by what the parts above took, rounded down."));
  pic.drawn = {{"tree_group_leaves", groupChains.size()}, {"tree_core_leaves", coreChains.size()}};
  return pic;
}

WalkthroughPicture draftGridPicture(const pim::DraftSpace& space, const pim::Pruner& pruner,
                                    std::uint64_t follow) {
  constexpr int kCols = 64, kCell = 11, kTop = 24;
  const std::uint64_t n = std::min(space.size(), kMaxGridDrafts);
  const int rows = static_cast<int>((n + kCols - 1) / kCols);
  WalkthroughPicture pic{blank(kTop + rows * kCell + 70), {}};
  QPainter p(&pic.image);
  begin(p);
  p.drawText(20, 16,
             n < space.size() ? QObject::tr("The first %L1 of %L2 drafts in id order, %3 a row")
                                    .arg(n)
                                    .arg(space.size())
                                    .arg(kCols)
                              : QObject::tr("All %L1 drafts in id order, %2 a row").arg(n).arg(kCols));
  const QColor kept(0x59a14f);
  std::map<int, std::pair<std::string, std::uint64_t>> removed;  // rule -> (name, cells)
  std::uint64_t keptCells = 0;
  p.setPen(Qt::NoPen);
  for (std::uint64_t id = 0; id < n; ++id) {
    const pim::Verdict v = pruner.why(id);
    QColor c = kept;
    if (v.kept) {
      ++keptCells;
    } else {
      auto& [name, cells] = removed[v.rule];
      name = v.ruleName;
      ++cells;
      c = ruleColour(v.rule);
    }
    p.setBrush(c);
    p.drawRect(QRectF(20 + static_cast<double>(id % kCols) * kCell,
                      kTop + static_cast<double>(id / kCols) * kCell, kCell - 1, kCell - 1));
  }
  if (follow < n) {
    p.setPen(QPen(Qt::black, 2.5));
    p.setBrush(Qt::NoBrush);
    p.drawRect(QRectF(19 + static_cast<double>(follow % kCols) * kCell,
                      kTop - 1 + static_cast<double>(follow / kCols) * kCell, kCell + 1, kCell + 1));
  }
  std::vector<std::pair<QBrush, QString>> items{{kept, QObject::tr("kept (%L1)").arg(keptCells)}};
  for (const auto& [rule, entry] : removed) {
    items.emplace_back(
        ruleColour(rule),
        QObject::tr("rule %1 %2 (%L3)").arg(rule).arg(QString::fromStdString(entry.first)).arg(entry.second));
  }
  int y = legend(p, 20, kTop + rows * kCell + 10, items);
  p.setPen(Qt::black);
  p.drawText(20, y + 12,
             follow < n ? QObject::tr("Outlined: draft #%1, followed through the next steps.").arg(follow)
                        : QObject::tr("Draft #%1, followed through the next steps, lies beyond the "
                                      "cells shown.")
                              .arg(follow));
  pic.drawn = {{"grid_cells", n}, {"grid_kept", keptCells}};
  return pic;
}

namespace {

/// Indices of one axis of a core's tile as drawable bands: a range is one band, a strided progression one
/// band per index (up to a cap, past which its covering range stands in).
std::vector<std::pair<std::int64_t, std::int64_t>> bands(const pim::IndexUnion& u) {
  constexpr std::int64_t kMaxStripes = 96;
  std::vector<std::pair<std::int64_t, std::int64_t>> out;
  for (const pim::IndexSet& s : u.parts) {
    if (s.contiguous() || s.count > kMaxStripes) {
      out.emplace_back(s.lo(), s.hi());
    } else {
      for (std::int64_t i = 0; i < s.count; ++i)
        out.emplace_back(s.start + i * s.stride, s.start + i * s.stride + 1);
    }
  }
  return out;
}

/// The tensor whose tiles differ most between the two strategies (the point of the picture); ties go to
/// the one with more elements per core.
int tensorToDraw(const pim::TileMapping& expand, const pim::TileMapping& exact, std::size_t tensors) {
  int best = 0;
  std::pair<std::int64_t, std::int64_t> bestKey{-1, -1};
  for (std::size_t t = 0; t < tensors; ++t) {
    std::int64_t diff = 0, elements = 0;
    for (std::size_t c = 0; c < expand.cores.size(); ++c) {
      diff += expand.cores[c].tensors[t].elements - exact.cores[c].tensors[t].elements;
      elements += expand.cores[c].tensors[t].elements;
    }
    if (std::pair(diff, elements) > bestKey) bestKey = {diff, elements}, best = static_cast<int>(t);
  }
  return best;
}

/// One strategy's panel: the tensor's index plane (its last two axes) and every core's tile on it.
std::int64_t drawTilePanel(QPainter& p, const QRect& area, const QString& title, const pim::TileMapping& m,
                           int tensor, std::int64_t rowsExtent, std::int64_t colsExtent) {
  const int rank = static_cast<int>(m.cores.front().tensors[static_cast<std::size_t>(tensor)].axes.size());
  const double w = area.width() - 40;
  const double h =
      std::clamp(w * static_cast<double>(rowsExtent) / static_cast<double>(colsExtent), 24.0, 240.0);
  const QRectF plane(area.left() + 30, area.top() + 24, w, h);
  const double sx = w / static_cast<double>(colsExtent), sy = h / static_cast<double>(rowsExtent);
  std::int64_t elements = 0;
  p.setPen(Qt::NoPen);
  for (std::size_t c = 0; c < m.cores.size(); ++c) {
    const pim::CoreTile& core = m.cores[c];
    if (core.idle) continue;
    const pim::TensorTile& t = core.tensors[static_cast<std::size_t>(tensor)];
    elements += t.elements;
    QColor colour = colourOf(c);
    colour.setAlpha(120);
    p.setBrush(colour);
    const auto cols = bands(t.axes[static_cast<std::size_t>(rank - 1)]);
    const auto rows = rank >= 2 ? bands(t.axes[static_cast<std::size_t>(rank - 2)])
                                : std::vector<std::pair<std::int64_t, std::int64_t>>{{0, 1}};
    for (const auto& [r0, r1] : rows)
      for (const auto& [c0, c1] : cols)
        p.drawRect(QRectF(plane.left() + c0 * sx, plane.top() + r0 * sy, (c1 - c0) * sx, (r1 - r0) * sy));
  }
  p.setBrush(Qt::NoBrush);
  p.setPen(QPen(QColor(0xdddddd), 0.5));
  if (colsExtent <= 64)
    for (std::int64_t x = 1; x < colsExtent; ++x)
      p.drawLine(QPointF(plane.left() + x * sx, plane.top()), QPointF(plane.left() + x * sx, plane.bottom()));
  if (rowsExtent <= 64)
    for (std::int64_t y = 1; y < rowsExtent; ++y)
      p.drawLine(QPointF(plane.left(), plane.top() + y * sy), QPointF(plane.right(), plane.top() + y * sy));
  p.setPen(Qt::black);
  p.drawRect(plane);
  p.drawText(area.left(), area.top() + 14, title);
  p.drawText(QRectF(plane.left(), plane.bottom() + 2, plane.width(), 16), Qt::AlignCenter,
             QObject::tr("axis %1: 0 … %2").arg(rank - 1).arg(colsExtent - 1));
  p.save();
  p.translate(area.left() + 22, plane.center().y());
  p.rotate(-90);
  p.drawText(QRectF(-plane.height() / 2, -14, plane.height(), 16), Qt::AlignCenter,
             rank >= 2 ? QObject::tr("axis %1").arg(rank - 2) : QString());
  p.restore();
  p.drawText(QPointF(plane.left(), plane.bottom() + 32),
             QObject::tr("%L1 elements over the cores").arg(elements));
  return static_cast<std::int64_t>(plane.bottom() + 40);
}

}  // namespace

WalkthroughPicture tilesPicture(const pim::DraftSpace& space, const pim::Draft& d) {
  const pim::Kernel& k = space.kernel();
  const pim::TileMapping expand = pim::mapDraft(space, d, pim::IndexingStrategy::Expand);
  const pim::TileMapping exact = pim::mapDraft(space, d, pim::IndexingStrategy::Exact);
  const int t = tensorToDraw(expand, exact, k.tensors.size());
  const int rank = static_cast<int>(k.tensors[static_cast<std::size_t>(t)].shape.size());
  // Extents of the two drawn axes, from the dimension sets (every tensor dimension is in one).
  std::int64_t rowsExtent = 1, colsExtent = 1;
  for (const auto& set : space.sets().sets)
    for (const pim::TensorDim& dim : set.dims)
      if (dim.tensor == t) {
        if (dim.axis == rank - 1) colsExtent = std::max<std::int64_t>(1, dim.extent);
        if (dim.axis == rank - 2) rowsExtent = std::max<std::int64_t>(1, dim.extent);
      }
  WalkthroughPicture pic{blank(400), {}};
  QPainter p(&pic.image);
  begin(p);
  const QString name = QString::fromStdString(k.tensors[static_cast<std::size_t>(t)].name);
  const int half = kPictureWidth / 2;
  const std::int64_t y1 =
      drawTilePanel(p, QRect(8, 4, half - 16, 360), QObject::tr("(i) expand: %1's tile per core").arg(name),
                    expand, t, rowsExtent, colsExtent);
  const std::int64_t y2 = drawTilePanel(p, QRect(half + 8, 4, half - 16, 360),
                                        QObject::tr("(ii) exact: %1's tile per core").arg(name), exact, t,
                                        rowsExtent, colsExtent);
  std::vector<std::pair<QBrush, QString>> items;
  std::uint64_t drawnCores = 0;
  for (std::size_t c = 0; c < exact.cores.size(); ++c) {
    if (exact.cores[c].idle) continue;
    ++drawnCores;
    if (items.size() < 8) {
      QColor colour = colourOf(c);
      colour.setAlpha(120);
      items.emplace_back(colour,
                         QObject::tr("group %1, core %2").arg(exact.cores[c].group).arg(exact.cores[c].core));
    }
  }
  if (drawnCores > items.size())
    items.emplace_back(QColor(0xdddddd),
                       QObject::tr("… %1 more cores (colours repeat)").arg(drawnCores - items.size()));
  const int bottom = legend(p, 12, static_cast<int>(std::max(y1, y2)) + 4, items);
  p.end();
  pic.image = pic.image.copy(0, 0, kPictureWidth, std::min(bottom + 4, pic.image.height()));
  pic.drawn = {{"tiles_cores", drawnCores}, {"tiles_tensor", static_cast<std::uint64_t>(t)}};
  return pic;
}

WalkthroughPicture bankLayoutPicture(const pim::BankLayout& L) {
  // The pseudo-channels holding data, in order, as many as fit.
  std::vector<int> channels;
  std::int64_t most = 1;
  for (const pim::BankPlacement& b : L.banks) {
    if (b.group < 0) continue;
    most = std::max(most, b.bytes + b.paddingBytes);
    if (channels.empty() || channels.back() != b.pseudoChannel) channels.push_back(b.pseudoChannel);
  }
  constexpr std::size_t kMaxChannels = 48;
  const std::size_t shown = std::min(channels.size(), kMaxChannels);
  const int banks = std::max(1, L.banksPerPseudoChannel);
  const double cellW = std::min(56.0, 660.0 / static_cast<double>(std::max<std::size_t>(1, shown)));
  const double cellH = std::min(14.0, 220.0 / banks);
  constexpr int kLeft = 60, kTop = 26;
  WalkthroughPicture pic{blank(kTop + static_cast<int>(banks * cellH) + 90), {}};
  QPainter p(&pic.image);
  begin(p, 11);
  p.drawText(
      kLeft, 16,
      shown < channels.size()
          ? QObject::tr("The first %1 of %2 pseudo-channels holding data").arg(shown).arg(channels.size())
          : QObject::tr("The %1 pseudo-channels holding data").arg(shown));
  std::uint64_t used = 0;
  std::set<int> groups;
  for (std::size_t c = 0; c < shown; ++c) {
    for (int b = 0; b < banks; ++b) {
      const pim::BankPlacement& pl = L.at(channels[c], b);
      const QRectF cell(kLeft + static_cast<double>(c) * cellW, kTop + b * cellH, cellW - 1, cellH - 1);
      QColor colour(0xeeeeee);
      if (pl.group >= 0) {
        ++used;
        groups.insert(pl.group);
        const double fill = static_cast<double>(pl.bytes + pl.paddingBytes) / static_cast<double>(most);
        colour =
            colourOf(static_cast<std::size_t>(pl.group)).lighter(100 + static_cast<int>(70 * (1 - fill)));
      }
      p.fillRect(cell, colour);
      if (pl.paddingBytes > 0) p.fillRect(cell, QBrush(QColor(0, 0, 0, 110), Qt::BDiagPattern));
    }
    if (c % std::max<std::size_t>(1, shown / 8) == 0)
      p.drawText(
          QRectF(kLeft + static_cast<double>(c) * cellW - 10, kTop + banks * cellH + 2, cellW + 20, 14),
          Qt::AlignCenter, QString::number(channels[c]));
  }
  for (int b = 0; b < banks; b += std::max(1, banks / 8))
    p.drawText(QRectF(kLeft - 30, kTop + b * cellH - 2, 26, 14), Qt::AlignRight, QString::number(b));
  p.drawText(
      QRectF(kLeft, kTop + banks * cellH + 16, std::max(160.0, static_cast<double>(shown) * cellW), 14),
      Qt::AlignCenter, QObject::tr("pseudo-channel"));
  p.save();
  p.translate(14, kTop + banks * cellH / 2);
  p.rotate(-90);
  p.drawText(QRectF(-60, -10, 120, 14), Qt::AlignCenter, QObject::tr("bank"));
  p.restore();
  std::vector<std::pair<QBrush, QString>> items;
  for (int g : groups) {
    if (items.size() >= 6) break;
    items.emplace_back(colourOf(static_cast<std::size_t>(g)), QObject::tr("PIM group %1").arg(g));
  }
  items.emplace_back(QBrush(QColor(0, 0, 0, 110), Qt::BDiagPattern), QObject::tr("holds padding"));
  items.emplace_back(QColor(0xeeeeee), QObject::tr("no data"));
  const int y = legend(p, kLeft, kTop + static_cast<int>(banks * cellH) + 36, items);
  p.setPen(QColor(0x555555));
  p.drawText(kLeft, y + 10, QObject::tr("Lighter: fewer bytes than the fullest bank (%L1 bytes)").arg(most));
  pic.drawn = {{"layout_banks_used", used}};
  return pic;
}

WalkthroughPicture timelinePicture(const pim::Evaluation& e) {
  static const char* const kNames[] = {"input rearrangement", "compute", "output rearrangement"};
  static const QColor kColours[] = {QColor(0x4e79a7), QColor(0xf28e2b), QColor(0x59a14f)};
  WalkthroughPicture pic{blank(120), {}};
  QPainter p(&pic.image);
  begin(p);
  constexpr double kLeft = 30, kRight = kPictureWidth - 30, kTop = 34, kBar = 30;
  const double total = std::max<double>(1, static_cast<double>(e.totalCycles));
  double x = kLeft;
  for (int ph = 0; ph < 3; ++ph) {
    const double w = (kRight - kLeft) * static_cast<double>(e.cycles[ph]) / total;
    if (w <= 0) continue;
    p.fillRect(QRectF(x, kTop, w, kBar), kColours[ph]);
    const QString label = QObject::tr("%1: %L2 cycles").arg(QObject::tr(kNames[ph])).arg(e.cycles[ph]);
    p.setPen(Qt::black);
    if (p.fontMetrics().horizontalAdvance(label) + 8 < w)
      p.drawText(QRectF(x, kTop, w, kBar), Qt::AlignCenter, label);
    else  // too narrow: above the bar, kept inside the picture
      p.drawText(
          QPointF(std::min(x, kRight - p.fontMetrics().horizontalAdvance(label)), kTop - 6 - 14 * (ph % 2)),
          label);
    x += w;
  }
  p.setPen(Qt::black);
  p.drawLine(QPointF(kLeft, kTop + kBar + 4), QPointF(kRight, kTop + kBar + 4));
  for (int i = 0; i <= 4; ++i) {
    const double tx = kLeft + (kRight - kLeft) * i / 4;
    p.drawLine(QPointF(tx, kTop + kBar + 4), QPointF(tx, kTop + kBar + 9));
    p.drawText(QRectF(tx - 40, kTop + kBar + 10, 80, 14), Qt::AlignCenter,
               QString::number(e.timeNs * i / 4 / 1e3, 'f', 3));
  }
  p.drawText(QRectF(kLeft, kTop + kBar + 26, kRight - kLeft, 14), Qt::AlignCenter, QObject::tr("time (µs)"));
  pic.drawn = {{"timeline_cycles", static_cast<std::uint64_t>(e.totalCycles)}};
  return pic;
}

}  // namespace pimgui

// SPDX-License-Identifier: Apache-2.0
// A classroom with pictures (issue 17, item 10): each step of the section 4.2 walkthrough draws what it
// explains (dimension sets as a graph, the allocation search as trees, the drafts as a grid marked by rule,
// draft 7's tiles under both indexing strategies, its bank layout, the timeline), from the engine's own
// objects; the draft the steps follow is named, and where it changes the step says why. Before, every step
// was a table.
#include <gtest/gtest.h>

#include <QDir>
#include <QImage>

#include "engine/kernel/dsl.h"
#include "engine/mapping/tile_mapping.h"
#include "engine/prune/pruner.h"
#include "gui_test_util.h"
#include "views/classroom_dialog.h"
#include "views/walkthrough.h"
#include "views/walkthrough_pictures.h"

using namespace pimgui;

namespace {

struct Example {
  pim::Kernel kernel = pim::loadKernelFile(pim::dataDir() + "/kernels/dcc_example.pim");
  pim::Shape shape = pim::parseShape(kernel, "n=12,m=3,p=16");
  pim::DraftSpace space{kernel, pim::buildDimensionSets(kernel, shape), pim::Resources{2, 4, 16}};
};

/// The grid cell of draft `id` in draftGridPicture (64 a row, 11 px cells from (20, 24)).
QRgb gridCell(const QImage& img, std::uint64_t id) {
  return img.pixel(20 + static_cast<int>(id % 64) * 11 + 5, 24 + static_cast<int>(id / 64) * 11 + 5) &
         0xffffff;
}

}  // namespace

TEST(ClassroomPictures, EveryStepOfTheExampleDrawsTheEnginesObjects) {
  const Example ex;
  const pim::Pruner pruner(ex.space);
  ClassroomDialog d;
  ASSERT_TRUE(test::waitFor([&] { return !d.loading(); }, 60000));
  ASSERT_EQ(d.stepCount(), 7);
  for (int i = 0; i < d.stepCount(); ++i) {
    d.setStep(i);
    // No class or function names where a student reads.
    EXPECT_EQ(d.step(i).title.indexOf(QStringLiteral("::")), -1) << i;
    EXPECT_EQ(d.bodyText().indexOf(QStringLiteral("::")), -1) << i;
    if (i == 2) continue;  // the drafts' ids: a table of the first few
    ASSERT_FALSE(d.step(i).picture.isNull()) << "step " << i + 1;
    EXPECT_EQ(d.shownPicture().size(), d.step(i).picture.size()) << "step " << i + 1 << " shows its picture";
  }
  const auto drawn = [&](int step, const char* key) { return d.step(step).drawn.at(key); };
  // Six tensor dimensions, three loop variables; each dimension's functions use one variable.
  EXPECT_EQ(drawn(0, "graph_dims"), 6u);
  EXPECT_EQ(drawn(0, "graph_vars"), 3u);
  EXPECT_EQ(drawn(0, "graph_edges"), 6u);
  EXPECT_EQ(drawn(1, "tree_group_leaves"), ex.space.groupChains());
  EXPECT_EQ(drawn(1, "tree_core_leaves"), ex.space.coreChains());
  EXPECT_EQ(drawn(3, "grid_cells"), ex.space.size());
  EXPECT_EQ(drawn(3, "grid_kept"), pruner.counts().remaining);
  // Draft 7 runs on all 2 x 4 cores; its tiles are drawn for A, the tensor whose tiles the strategies split.
  EXPECT_EQ(drawn(4, "tiles_cores"), 8u);
  EXPECT_EQ(ex.kernel.tensors[drawn(4, "tiles_tensor")].name, "A");
  EXPECT_EQ(drawn(5, "layout_banks_used"), d.step(5).numbers.at("banks_used"));
  EXPECT_EQ(drawn(6, "timeline_cycles"), d.step(6).numbers.at("total_cycles"));
  // The timeline cannot time draft 7 (no hardware has the example's cores) and says so.
  d.setStep(6);
  EXPECT_NE(d.bodyText().indexOf(QStringLiteral("The draft changes here")), -1);

  // The grid's cells carry the pruner's verdicts: the first kept draft green, the first rule-1 draft red.
  const QImage grid = d.step(3).picture;
  std::optional<std::uint64_t> kept, rule1;
  for (std::uint64_t id = 0; id < ex.space.size() && (!kept || !rule1); ++id) {
    const pim::Verdict v = pruner.why(id);
    if (v.kept && !kept) kept = id;
    if (v.rule == 1 && !rule1) rule1 = id;
  }
  ASSERT_TRUE(kept && rule1);
  EXPECT_EQ(gridCell(grid, *kept), 0x59a14fu);
  EXPECT_EQ(gridCell(grid, *rule1), 0xe15759u);
}

TEST(ClassroomPictures, ExactIndexingDrawsFewerElementsThanExpand) {
  // The paper's draft 7: A1's index i*2 skips odd columns, which strategy (ii) leaves out.
  const Example ex;
  const pim::Draft d7 = ex.space.draft(698);
  ASSERT_EQ(ex.space.label(d7), "[[1, 4, C0^b], [2, 1, A1^i*2], [1, 1, B1^k]]");
  const pim::TileMapping expand = pim::mapDraft(ex.space, d7, pim::IndexingStrategy::Expand);
  const pim::TileMapping exact = pim::mapDraft(ex.space, d7, pim::IndexingStrategy::Exact);
  std::int64_t e = 0, x = 0;
  for (std::size_t c = 0; c < expand.cores.size(); ++c) {
    e += expand.cores[c].tensors[0].elements;
    x += exact.cores[c].tensors[0].elements;
  }
  EXPECT_GT(e, x);
  // The picture is the two panels side by side: the left (expand) has more coloured pixels than the right.
  const QImage img = tilesPicture(ex.space, d7).image;
  auto coloured = [&](int x0, int x1) {
    int n = 0;
    for (int y = 0; y < img.height() - 60; ++y)
      for (int xx = x0; xx < x1; ++xx) {
        const QColor c = img.pixelColor(xx, y);
        n += c.saturation() > 40;
      }
    return n;
  };
  EXPECT_GT(coloured(0, kPictureWidth / 2), coloured(kPictureWidth / 2, kPictureWidth));
}

TEST(ClassroomPictures, ALargeLibraryProblemDrawsWithinItsCaps) {
  ClassroomDialog d;
  ASSERT_TRUE(d.showLibrary(QStringLiteral("hbm-pim"), QStringLiteral("gemv"),
                            QStringLiteral("b=1,out=4096,in=4096")));
  ASSERT_TRUE(test::waitFor([&] { return !d.loading(); }, 120000));
  ASSERT_EQ(d.stepCount(), 7);
  EXPECT_EQ(d.step(1).drawn.at("tree_group_leaves"), kMaxTreeLeaves);
  EXPECT_EQ(d.step(3).drawn.at("grid_cells"), kMaxGridDrafts);
  EXPECT_GT(d.step(5).drawn.at("layout_banks_used"), 0u);
  for (int i : {0, 1, 3, 4, 5, 6}) EXPECT_FALSE(d.step(i).picture.isNull()) << i;
  if (const QByteArray dir = qgetenv("PIMSCOPE_SCREENSHOTS"); !dir.isEmpty())
    d.saveScreenshots(QDir(QString::fromLocal8Bit(dir)).filePath(QStringLiteral("classroom_gemv")));
}

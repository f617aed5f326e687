// SPDX-License-Identifier: Apache-2.0
// MainWindow: the conv-layer mapping window (Run > Map a conv layer on a PIM hierarchy…,
// views/layer_map_view.h).
#include <QDialog>
#include <QVBoxLayout>

#include "views/layer_map_view.h"
#include "views/main_window.h"

namespace pimgui {

void MainWindow::buildLayerMapWindow() {
  // One layer's mapping search, watched as it runs: a window of its own beside the explorer.
  m_layerMapDialog = new QDialog(this);
  m_layerMapDialog->setWindowTitle(tr("Map a conv layer on a PIM hierarchy"));
  m_layerMap = new LayerMapView;
  auto* layout = new QVBoxLayout(m_layerMapDialog);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->addWidget(m_layerMap);
  m_layerMapDialog->resize(1240, 820);
  connect(m_layerMap, &LayerMapView::done, this, &MainWindow::checkIdle);
}

void MainWindow::showLayerMap() {
  m_layerMapDialog->show();
  m_layerMapDialog->raise();
  m_layerMapDialog->activateWindow();
}

}  // namespace pimgui

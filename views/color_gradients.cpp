// SPDX-License-Identifier: Apache-2.0
#include "views/color_gradients.h"

namespace pimgui {

QCPColorGradient viridisGradient() {
  QCPColorGradient viridis;
  viridis.setColorStopAt(0.0, QColor(0x44, 0x01, 0x54));
  viridis.setColorStopAt(0.25, QColor(0x3b, 0x52, 0x8b));
  viridis.setColorStopAt(0.5, QColor(0x21, 0x91, 0x8c));
  viridis.setColorStopAt(0.75, QColor(0x5e, 0xc9, 0x62));
  viridis.setColorStopAt(1.0, QColor(0xfd, 0xe7, 0x25));
  viridis.setNanHandling(QCPColorGradient::nhTransparent);
  return viridis;
}

}  // namespace pimgui

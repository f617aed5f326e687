// SPDX-License-Identifier: Apache-2.0
#include "sim/config.h"

#include <algorithm>

namespace pim::sim {

void DeviceConfig::finalize() {
  const int bus = burstCycles();
  if (rdToPre < 0) rdToPre = bus + std::max(tRTPL, tCCDL) - tCCDL;
  if (wrToPre < 0) wrToPre = CWL + bus + tWR;
  if (rdToWr < 0) rdToWr = CL + bus + tRTRS - CWL;
  if (wrToRdS < 0) wrToRdS = CWL + bus + tWTRS;
  if (wrToRdL < 0) wrToRdL = CWL + bus + tWTRL;
  if (pimActToMac < 0) pimActToMac = tRCDRD;
  if (pimMacToMac < 0) pimMacToMac = tCCDL;
  if (pimMacToPre < 0) pimMacToPre = rdToPre;
  if (pimPreToAct < 0) pimPreToAct = tRP;
  if (pimActToAct < 0) pimActToAct = tRC;
  if (pimActToPre < 0) pimActToPre = tRAS;
}

}  // namespace pim::sim

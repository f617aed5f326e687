// SPDX-License-Identifier: Apache-2.0
// The XGBoost C API, bound on first use (dlopen) instead of at program start: loading libxgboost and dmlc
// costs every process ~9 million instructions of symbol relocation (60% of `pimscope-cli kernels`), and most
// commands (simulate, drafts, ir, why, compare without a model) never predict. Only xgb_model.cpp uses it.
#pragma once
#include <xgboost/c_api.h>

namespace pim {

/// The functions PIMScope calls, as XGBoost declares them.
struct XgbApi {
  decltype(&XGBGetLastError) GetLastError;
  decltype(&XGDMatrixCreateFromMat_omp) DMatrixCreateFromMat_omp;
  decltype(&XGDMatrixSetFloatInfo) DMatrixSetFloatInfo;
  decltype(&XGDMatrixFree) DMatrixFree;
  decltype(&XGBoosterCreate) BoosterCreate;
  decltype(&XGBoosterFree) BoosterFree;
  decltype(&XGBoosterSetParam) BoosterSetParam;
  decltype(&XGBoosterSetAttr) BoosterSetAttr;
  decltype(&XGBoosterGetAttr) BoosterGetAttr;
  decltype(&XGBoosterUpdateOneIter) BoosterUpdateOneIter;
  decltype(&XGBoosterEvalOneIter) BoosterEvalOneIter;
  decltype(&XGBoosterPredictFromDense) BoosterPredictFromDense;
  decltype(&XGBoosterSaveModelToBuffer) BoosterSaveModelToBuffer;
  decltype(&XGBoosterLoadModelFromBuffer) BoosterLoadModelFromBuffer;
  decltype(&XGBoosterGetNumFeature) BoosterGetNumFeature;
  decltype(&XGBoosterBoostedRounds) BoosterBoostedRounds;
  decltype(&XGBoosterSlice) BoosterSlice;
};

/// The API of the XGBoost library PIMScope was built against (PIMSCOPE_XGBOOST_LIBRARY), loaded once,
/// thread-safely. Throws InputError naming the library and what is missing when it cannot be loaded.
const XgbApi& xgb();

}  // namespace pim

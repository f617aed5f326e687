// SPDX-License-Identifier: Apache-2.0
#include "engine/predict/xgb_api.h"

#include <dlfcn.h>

#include <string>

#include "engine/common/error.h"

namespace pim {
namespace {

template <class F>
void bind(void* lib, F& f, const char* name) {
  f = reinterpret_cast<F>(dlsym(lib, name));
  if (!f) throw InputError(std::string(PIMSCOPE_XGBOOST_LIBRARY) + " has no " + name);
}

XgbApi load() {
  // Kept loaded for the process: models and boosters live until exit.
  void* lib = dlopen(PIMSCOPE_XGBOOST_LIBRARY, RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    const char* why = dlerror();
    throw InputError(std::string("cannot load XGBoost (") + PIMSCOPE_XGBOOST_LIBRARY +
                     "), needed to predict and train: " + (why ? why : "unknown error") +
                     " (scripts/deps.sh installs libxgboost-dev)");
  }
  XgbApi a{};
  bind(lib, a.GetLastError, "XGBGetLastError");
  bind(lib, a.DMatrixCreateFromMat_omp, "XGDMatrixCreateFromMat_omp");
  bind(lib, a.DMatrixSetFloatInfo, "XGDMatrixSetFloatInfo");
  bind(lib, a.DMatrixFree, "XGDMatrixFree");
  bind(lib, a.BoosterCreate, "XGBoosterCreate");
  bind(lib, a.BoosterFree, "XGBoosterFree");
  bind(lib, a.BoosterSetParam, "XGBoosterSetParam");
  bind(lib, a.BoosterSetAttr, "XGBoosterSetAttr");
  bind(lib, a.BoosterGetAttr, "XGBoosterGetAttr");
  bind(lib, a.BoosterUpdateOneIter, "XGBoosterUpdateOneIter");
  bind(lib, a.BoosterEvalOneIter, "XGBoosterEvalOneIter");
  bind(lib, a.BoosterPredictFromDense, "XGBoosterPredictFromDense");
  bind(lib, a.BoosterSaveModelToBuffer, "XGBoosterSaveModelToBuffer");
  bind(lib, a.BoosterLoadModelFromBuffer, "XGBoosterLoadModelFromBuffer");
  bind(lib, a.BoosterGetNumFeature, "XGBoosterGetNumFeature");
  bind(lib, a.BoosterBoostedRounds, "XGBoosterBoostedRounds");
  bind(lib, a.BoosterSlice, "XGBoosterSlice");
  return a;
}

}  // namespace

const XgbApi& xgb() {
  static const XgbApi api = load();  // a failed load throws and is retried by the next call
  return api;
}

}  // namespace pim

// SPDX-License-Identifier: Apache-2.0
#include "engine/predict/predictor.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <numeric>
#include <thread>
#include <tuple>

#include "engine/common/error.h"
#include "engine/common/json_input.h"
#include "engine/common/json_output.h"
#include "engine/common/mapped_file.h"
#include "engine/common/output_file.h"
#include "engine/target/registry.h"

namespace pim {
namespace {

std::string modelsDir(const std::string& dir) { return dir.empty() ? dataDir() + "/models" : dir; }

// Fields of a model's metadata file, each of the type it must have: a wrong type is one line naming the
// file and the field rather than nlohmann's type_error.
struct MetadataReader {
  const nlohmann::json& j;
  std::string file;
  template <class T>
  T get(const char* key, T fallback) const {
    if (!j.is_object())
      throw InputError(file + ": expected a JSON object at top level, got " + j.type_name());
    try {
      return j.value(key, fallback);
    } catch (const nlohmann::json::exception&) {
      throw InputError(file + ": " + key + ": has the wrong type (" + j.at(key).type_name() + ")");
    }
  }
};

}  // namespace

Predictor::Predictor(XgbModel model, std::vector<std::string> schema, TrainingMetadata meta)
    : m_model(std::move(model)), m_schema(std::move(schema)), m_meta(std::move(meta)) {}

std::optional<Predictor> Predictor::loadShipped(const std::string& backend, const std::string& dir) {
  const std::string base = modelsDir(dir) + "/" + backend;
  std::error_code ec;
  if (!std::filesystem::exists(base + ".json", ec) || !std::filesystem::exists(base + ".model", ec))
    return std::nullopt;
  const nlohmann::json j = readJsonFile(base + ".json", "model metadata file");
  const MappedFile bytes(base + ".model");
  const MetadataReader r{j, base + ".json"};
  const auto schema = r.get("features", std::vector<std::string>{});
  if (schema.empty())
    throw InputError(base + ".json: no \"features\": the model's feature schema is missing");
  TrainingMetadata m;
  m.backend = r.get("backend", backend);
  m.backendHash = r.get("backend_hash", std::string());
  m.kernels = r.get("kernels", std::vector<std::string>{});
  m.shapeRanges = r.get("shape_ranges", m.shapeRanges);
  m.kernelTypes = r.get("kernel_types", m.kernelTypes);
  m.samples = r.get("samples", std::size_t{0});
  m.validationSamples = r.get("validation_samples", std::size_t{0});
  m.sampleFraction = r.get("sample_fraction", 0.15);
  m.screenLimit = r.get("screen_limit", std::size_t{0});
  m.seed = r.get("seed", std::uint64_t{42});
  m.learningRate = r.get("learning_rate", m.learningRate);
  m.maxDepth = r.get("max_depth", m.maxDepth);
  m.rounds = r.get("rounds", 0);
  m.bestIteration = r.get("best_iteration", 0);
  m.validationMape = r.get("validation_mape", 0.0);
  m.trainSeconds = r.get("train_seconds", 0.0);
  m.labelSeconds = r.get("label_seconds", 0.0);
  try {
    return Predictor(XgbModel::load(bytes.bytes()), schema, m);
  } catch (const InputError& e) {
    throw InputError(base + ".model: " + e.what());
  }
}

std::string userModelsDir() {
  if (const char* xdg = std::getenv("XDG_DATA_HOME"); xdg && *xdg == '/')
    return std::string(xdg) + "/pimscope/models";
  if (const char* home = std::getenv("HOME"); home && *home == '/')
    return std::string(home) + "/.local/share/pimscope/models";
  throw InputError("--out: no folder given and neither XDG_DATA_HOME nor HOME names one; give --out DIR");
}

std::vector<std::string> Predictor::files(const std::string& dir, const std::string& backend) {
  return {dir + "/" + backend + ".model", dir + "/" + backend + ".json"};
}

void Predictor::prepareOutput(const std::string& dir, const std::string& backend) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) throw InputError("--out " + dir + ": cannot create the folder: " + ec.message());
  for (const std::string& f : files(dir, backend)) requireWritableOutput(f, "--out");
}

void Predictor::save(const std::string& dir) const {
  const std::string& d = dir;
  prepareOutput(d, m_meta.backend);  // checked again: a caller may save without preparing
  const auto bytes = m_model.save();
  writeFileAtomically(d + "/" + m_meta.backend + ".model", std::string(bytes.begin(), bytes.end()));
  const nlohmann::json j = {{"backend", m_meta.backend},
                            {"backend_hash", m_meta.backendHash},
                            {"kernels", m_meta.kernels},
                            {"shape_ranges", m_meta.shapeRanges},
                            {"kernel_types", m_meta.kernelTypes},
                            {"samples", m_meta.samples},
                            {"validation_samples", m_meta.validationSamples},
                            {"sample_fraction", m_meta.sampleFraction},
                            {"screen_limit", m_meta.screenLimit},
                            {"seed", m_meta.seed},
                            {"learning_rate", m_meta.learningRate},
                            {"max_depth", m_meta.maxDepth},
                            {"rounds", m_meta.rounds},
                            {"best_iteration", m_meta.bestIteration},
                            {"validation_mape", m_meta.validationMape},
                            {"train_seconds", m_meta.trainSeconds},
                            {"label_seconds", m_meta.labelSeconds},
                            {"target", "log(total time in ns)"},
                            {"features", m_schema}};
  writeFileAtomically(d + "/" + m_meta.backend + ".json", dumpJson(j, 2) + "\n");
}

namespace {

/// Rows per batched model call when a cancel flag is watched: a few tens of ms each with the shipped models.
constexpr std::size_t kCancelBatch = 2048;

/// `model` on `rows` rows of `x`, in batches of kCancelBatch checking `cancel` before each (one call without
/// a flag). Each row's prediction depends on its own features only, so the batches change no value.
std::optional<std::vector<float>> predictRows(const XgbModel& model, const std::vector<float>& x,
                                              std::size_t rows, std::size_t cols, int rounds,
                                              const std::atomic<bool>* cancel) {
  if (!cancel) return model.predict(x, rows, cols, rounds);
  std::vector<float> y;
  y.reserve(rows);
  for (std::size_t at = 0; at < rows; at += kCancelBatch) {
    if (cancel->load()) return std::nullopt;
    const std::size_t n = std::min(kCancelBatch, rows - at);
    const std::vector<float> part =
        model.predict(std::span<const float>(x).subspan(at * cols, n * cols), n, cols, rounds);
    y.insert(y.end(), part.begin(), part.end());
  }
  return y;
}

}  // namespace

std::vector<double> Predictor::predictNs(const Problem& p, std::span<const Draft> drafts,
                                         const CoarseToFine& plan) const {
  return *predictNs(p, drafts, nullptr, plan);
}

std::optional<std::vector<double>> Predictor::predictNs(const Problem& p, std::span<const Draft> drafts,
                                                        const std::atomic<bool>* cancel,
                                                        const CoarseToFine& plan) const {
  const ITarget& target = targetOf(p.backend());
  const auto features = target.estimator(p, {});
  if (!features || target.featureNames() != m_schema) {
    throw InputError("the model of " + m_meta.backend + " was trained on another feature schema than the " +
                     std::string(target.family()) +
                     " family's; retrain it with `pimscope-cli train --backend " + p.backend().name + "`");
  }
  const std::size_t cols = m_schema.size(), rows = drafts.size();
  std::vector<float> x;
  x.reserve(rows * cols);
  for (std::size_t i = 0; i < rows; ++i) {
    if (cancel && i % kCancelBatch == 0 && cancel->load()) return std::nullopt;
    features->features(drafts[i], x);
  }
  const std::size_t fine =
      std::max(plan.fineMin, static_cast<std::size_t>(plan.fineShare * static_cast<double>(rows)));
  const bool coarse =
      plan.coarseRounds > 0 && rows > fine && 2 * plan.coarseRounds <= m_model.bestIteration() + 1;
  std::optional<std::vector<float>> y =
      predictRows(m_model, x, rows, cols, coarse ? plan.coarseRounds : 0, cancel);
  if (!y) return std::nullopt;
  if (coarse) {
    // The `fine` best coarse predictions (ties by index), predicted again from every round.
    std::vector<std::size_t> order(rows);
    std::iota(order.begin(), order.end(), std::size_t{0});
    std::nth_element(
        order.begin(), order.begin() + static_cast<std::ptrdiff_t>(fine), order.end(),
        [&](std::size_t a, std::size_t b) { return std::tie((*y)[a], a) < std::tie((*y)[b], b); });
    order.resize(fine);
    std::vector<float> xs;
    xs.reserve(fine * cols);
    for (std::size_t i : order)
      xs.insert(xs.end(), x.begin() + static_cast<std::ptrdiff_t>(i * cols),
                x.begin() + static_cast<std::ptrdiff_t>((i + 1) * cols));
    const std::optional<std::vector<float>> yf = predictRows(m_model, xs, fine, cols, 0, cancel);
    if (!yf) return std::nullopt;
    for (std::size_t k = 0; k < fine; ++k) (*y)[order[k]] = (*yf)[k];
  }
  std::vector<double> ns(rows);
  for (std::size_t i = 0; i < rows; ++i) ns[i] = std::exp(static_cast<double>((*y)[i]));
  return ns;
}

ShippedModel sharedShippedModel(const Backend& backend) {
  struct Entry {
    std::filesystem::file_time_type modelTime, metaTime;
    std::shared_ptr<const Predictor> model;
  };
  static std::mutex mutex;
  // Never destroyed: freeing boosters during static destruction, after XGBoost's own statics, crashed at
  // exit.
  static auto& cache = *new std::map<std::string, Entry>;
  // Files are per backend name, so models are cached by name; whether one fits is a property of the
  // parameters asked about, answered per call from the hash the model was trained on.
  const std::string base = modelsDir("") + "/" + backend.name;
  std::error_code e1, e2;
  const auto modelTime = std::filesystem::last_write_time(base + ".model", e1);
  const auto metaTime = std::filesystem::last_write_time(base + ".json", e2);
  if (e1 || e2) return {};
  const auto fits = [&](std::shared_ptr<const Predictor> m) {
    const bool same = m->metadata().backendHash == backend.hash();
    return ShippedModel{std::move(m), same};
  };
  std::lock_guard lock(mutex);
  if (auto it = cache.find(backend.name);
      it != cache.end() && it->second.modelTime == modelTime && it->second.metaTime == metaTime)
    return fits(it->second.model);
  auto loaded = Predictor::loadShipped(backend.name);
  if (!loaded) return {};
  auto model = std::make_shared<const Predictor>(std::move(*loaded));
  cache[backend.name] = Entry{modelTime, metaTime, model};
  return fits(std::move(model));
}

ShippedModelLoader::ShippedModelLoader(const std::string& backend, const std::string& dir) {
  auto load = [this, backend, dir] {
    try {
      m_model = Predictor::loadShipped(backend, dir);
    } catch (const std::exception& e) {
      m_error = e.what();
    }
  };
  try {
    m_thread = std::thread(load);
  } catch (const std::system_error&) {
    load();  // no thread to spare: load now, without the overlap
  }
}

ShippedModelLoader::~ShippedModelLoader() {
  if (m_thread.joinable()) m_thread.join();
}

const Predictor* ShippedModelLoader::get() {
  if (!m_joined && m_thread.joinable()) {
    m_thread.join();
    m_joined = true;
  }
  return m_model ? &*m_model : nullptr;
}

std::string Predictor::id() const { return m_meta.backendHash + "-" + std::to_string(m_meta.seed); }

std::vector<std::size_t> bestPredicted(std::span<const double> predictedNs, std::size_t k, double bandPct,
                                       std::size_t kMax) {
  std::vector<std::size_t> order;
  for (std::size_t i = 0; i < predictedNs.size(); ++i) {
    if (std::isfinite(predictedNs[i])) order.push_back(i);
  }
  const std::size_t top = std::min(std::max(k, kMax), order.size());
  std::partial_sort(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(top), order.end(),
                    [&](std::size_t a, std::size_t b) {
                      return std::tie(predictedNs[a], a) < std::tie(predictedNs[b], b);
                    });
  std::size_t keep = std::min(k, top);
  if (keep > 0) {
    const double limit = predictedNs[order[0]] * (1 + bandPct / 100);
    while (keep < top && predictedNs[order[keep]] <= limit) ++keep;
  }
  order.resize(keep);
  return order;
}

}  // namespace pim

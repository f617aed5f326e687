// SPDX-License-Identifier: Apache-2.0
// XgbModel over the XGBoost C API (written against XGBoost 1.7; every call used here exists since 1.6/1.7).
#include "engine/predict/xgb_model.h"

#include <charconv>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>

#include "engine/common/error.h"
#include "engine/predict/xgb_api.h"

namespace pim {
namespace {

constexpr const char* kBestIterationAttr = "best_iteration";
constexpr const char* kBestScoreAttr = "best_score";

/// XGBoost's last error, reduced to its first line without the "[hh:mm:ss] " prefix (the rest is a stack
/// trace or a context excerpt).
std::string lastError() {
  const char* raw = xgb().GetLastError();
  std::string_view s = raw != nullptr ? raw : "";
  if (const auto nl = s.find('\n'); nl != std::string_view::npos) s = s.substr(0, nl);
  if (s.size() > 11 && s[0] == '[' && s[3] == ':' && s[6] == ':' && s[9] == ']' && s[10] == ' ')
    s.remove_prefix(11);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\r')) s.remove_suffix(1);
  return s.empty() ? std::string("unknown XGBoost error") : std::string(s);
}

/// A failing call whose cause is the caller's data, parameters or bytes.
void checkInput(int rc, const char* call) {
  if (rc != 0) throw InputError(std::string("XGBoost ") + call + ": " + lastError());
}
/// A failing call that should not fail for any input (a bug or an environment problem).
void checkInternal(int rc, const char* call) {
  if (rc != 0) throw std::runtime_error(std::string("XGBoost ") + call + ": " + lastError());
}

/// Locale-independent shortest round-trip text of a number (std::to_string(double) is neither).
template <typename T>
std::string num(T v) {
  char buf[64];
  const auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v);
  if (ec != std::errc{}) throw std::runtime_error("XgbModel: cannot format a number");
  return std::string(buf, end);
}

/// Owns a DMatrixHandle built from a dense row-major float array (NaN = missing) with labels.
class DMatrix {
 public:
  DMatrix(std::span<const float> X, std::size_t rows, std::size_t cols, std::span<const float> labels,
          int threads) {
    checkInput(
        xgb().DMatrixCreateFromMat_omp(X.data(), static_cast<bst_ulong>(rows), static_cast<bst_ulong>(cols),
                                       std::numeric_limits<float>::quiet_NaN(), &h_, threads),
        "XGDMatrixCreateFromMat_omp");
    // h_ is owned from here on: if setting the labels throws, the destructor is not run, so free explicitly.
    if (xgb().DMatrixSetFloatInfo(h_, "label", labels.data(), static_cast<bst_ulong>(labels.size())) != 0) {
      const std::string err = lastError();
      xgb().DMatrixFree(h_);
      throw InputError("XGBoost xgb().DMatrixSetFloatInfo(label): " + err);
    }
  }
  ~DMatrix() {
    if (h_ != nullptr) xgb().DMatrixFree(h_);
  }
  DMatrix(const DMatrix&) = delete;
  DMatrix& operator=(const DMatrix&) = delete;
  DMatrixHandle get() const { return h_; }

 private:
  DMatrixHandle h_ = nullptr;
};

/// Owns a BoosterHandle until release().
class BoosterOwner {
 public:
  BoosterOwner() = default;
  explicit BoosterOwner(BoosterHandle h) : h_(h) {}
  ~BoosterOwner() { reset(); }
  BoosterOwner(const BoosterOwner&) = delete;
  BoosterOwner& operator=(const BoosterOwner&) = delete;
  BoosterHandle get() const { return h_; }
  BoosterHandle* out() {
    reset();
    return &h_;
  }
  void reset(BoosterHandle h = nullptr) {
    if (h_ != nullptr) xgb().BoosterFree(h_);
    h_ = h;
  }
  BoosterHandle release() { return std::exchange(h_, nullptr); }

 private:
  BoosterHandle h_ = nullptr;
};

void checkShape(std::span<const float> data, std::size_t rows, std::size_t cols, const char* what) {
  if (cols != 0 && rows > std::numeric_limits<std::size_t>::max() / cols)
    throw InputError(std::string("XgbModel: ") + what + ": " + num(rows) + " x " + num(cols) + " overflows");
  if (data.size() != rows * cols)
    throw InputError(std::string("XgbModel: ") + what + ": expected " + num(rows) + " x " + num(cols) +
                     " = " + num(rows * cols) + " values, got " + num(data.size()));
}

void checkLabels(std::span<const float> y, std::size_t rows, const char* what) {
  if (y.size() != rows)
    throw InputError(std::string("XgbModel: ") + what + ": expected " + num(rows) + " labels, got " +
                     num(y.size()));
  for (std::size_t i = 0; i < y.size(); ++i)
    if (!std::isfinite(y[i]))
      throw InputError(std::string("XgbModel: ") + what + ": label " + num(i) + " is not finite");
}

void checkParams(const XgbParams& p) {
  const auto bad = [](const std::string& name, const std::string& rule) {
    throw InputError("XgbModel: parameter " + name + ": " + rule);
  };
  if (!(p.learningRate > 0 && p.learningRate <= 1)) bad("learningRate", "must be in (0, 1]");
  if (p.maxDepth < 1) bad("maxDepth", "must be >= 1");
  if (p.maxRounds < 1) bad("maxRounds", "must be >= 1");
  if (!(p.subsample > 0 && p.subsample <= 1)) bad("subsample", "must be in (0, 1]");
  if (!(p.colsampleBytree > 0 && p.colsampleBytree <= 1)) bad("colsampleBytree", "must be in (0, 1]");
  if (!(p.minChildWeight >= 0 && std::isfinite(p.minChildWeight))) bad("minChildWeight", "must be >= 0");
  if (!(p.lambda >= 0 && std::isfinite(p.lambda))) bad("lambda", "must be >= 0");
  if (p.threads < 0) bad("threads", "must be >= 0 (0 = all cores)");
  if (p.seed > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()))
    bad("seed", "must be <= 2^63 - 1");
  if (p.objective.empty()) bad("objective", "must not be empty");
}

/// The value of "<name>-rmse:" in an XGBoosterEvalOneIter line like "[3]\ttrain-rmse:0.12\tvalid-rmse:0.3".
double parseRmse(std::string_view line, std::string_view name) {
  const std::string key = "\t" + std::string(name) + "-rmse:";
  const auto at = line.find(key);
  if (at == std::string_view::npos)
    throw std::runtime_error("XgbModel: no " + std::string(name) + "-rmse in evaluation '" +
                             std::string(line) + "'");
  const char* first = line.data() + at + key.size();
  double v = 0;
  const auto [ptr, ec] = std::from_chars(first, line.data() + line.size(), v);
  if (ec != std::errc{} || ptr == first)
    throw std::runtime_error("XgbModel: cannot parse the RMSE in evaluation '" + std::string(line) + "'");
  return v;
}

void setParam(BoosterHandle b, const char* name, const std::string& value) {
  checkInput(xgb().BoosterSetParam(b, name, value.c_str()),
             (std::string("xgb().BoosterSetParam(") + name + ")").c_str());
}

/// Walks a UBJSON document (the subset XGBoost writes: draft 12 with optimised '$' / '#' containers) and
/// reports the first inconsistency: unknown marker, a length or count running past the end, nesting deeper
/// than kMaxDepth, or bytes left over. Empty result = well formed.
class UbjChecker {
 public:
  explicit UbjChecker(std::span<const std::uint8_t> b) : b_(b) {}
  std::string check() {
    if (!value(next(), 0)) return err_;
    if (pos_ != b_.size()) return num(b_.size() - pos_) + " bytes after the end of the model";
    return {};
  }

 private:
  static constexpr int kMaxDepth = 64;

  bool fail(std::string why) {
    if (err_.empty()) err_ = std::move(why) + " at byte " + num(pos_);
    return false;
  }
  int next() { return pos_ < b_.size() ? b_[pos_++] : -1; }
  bool skip(std::uint64_t n) {
    if (n > b_.size() - pos_) return fail("length " + num(n) + " runs past the end");
    pos_ += static_cast<std::size_t>(n);
    return true;
  }
  /// Size of a fixed-size scalar's payload, or -1.
  static int scalarSize(int m) {
    switch (m) {
      case 'Z':
      case 'T':
      case 'F':
      case 'N':
        return 0;
      case 'i':
      case 'U':
      case 'C':
        return 1;
      case 'I':
        return 2;
      case 'l':
      case 'd':
        return 4;
      case 'L':
      case 'D':
        return 8;
      default:
        return -1;
    }
  }
  /// A length or count: an integer value with its own marker, big-endian, non-negative.
  bool length(std::uint64_t* out) {
    const int m = next();
    const int size = (m == 'i' || m == 'U' || m == 'I' || m == 'l' || m == 'L') ? scalarSize(m) : -1;
    if (size < 0) return fail("expected an integer length");
    if (static_cast<std::size_t>(size) > b_.size() - pos_) return fail("length runs past the end");
    std::uint64_t v = 0;
    for (int i = 0; i < size; ++i) v = (v << 8) | b_[pos_ + i];
    const bool negative = m != 'U' && (b_[pos_] & 0x80) != 0;
    pos_ += static_cast<std::size_t>(size);
    if (negative) return fail("negative length");
    *out = v;
    return true;
  }
  bool value(int m, int depth) {
    if (m < 0) return fail("unexpected end");
    if (const int size = scalarSize(m); size >= 0) return skip(static_cast<std::uint64_t>(size));
    if (m == 'S' || m == 'H') {
      std::uint64_t n = 0;
      return length(&n) && skip(n);
    }
    if (m != '[' && m != '{') return fail("unknown marker " + num(m));
    if (depth >= kMaxDepth) return fail("nesting deeper than " + num(kMaxDepth));
    const bool object = m == '{';
    int type = 0;  // '$' element type, 0 = each element carries its marker
    std::uint64_t count = 0;
    bool counted = false;
    if (pos_ < b_.size() && b_[pos_] == '$') {
      ++pos_;
      type = next();
      if (type < 0 || (scalarSize(type) < 0 && type != 'S' && type != 'H' && type != '[' && type != '{'))
        return fail("bad container element type");
      if (next() != '#') return fail("'$' without '#'");
      counted = true;
    } else if (pos_ < b_.size() && b_[pos_] == '#') {
      ++pos_;
      counted = true;
    }
    if (counted) {
      if (!length(&count)) return false;
      // Every element takes at least one byte (a marker, a key length, or a fixed payload), except typed
      // zero-size scalars; cap those so a huge count cannot make us (or XGBoost) loop forever.
      const int size = type != 0 ? scalarSize(type) : -1;
      if (size > 0 && count > (b_.size() - pos_) / static_cast<std::uint64_t>(size))
        return fail("count " + num(count) + " runs past the end");
      if (size != 0 && count > b_.size() - pos_) return fail("count " + num(count) + " runs past the end");
      if (size == 0 && count > b_.size()) return fail("count " + num(count) + " is implausible");
      if (size > 0 && !object) return skip(count * static_cast<std::uint64_t>(size));
    }
    for (std::uint64_t i = 0; !counted || i < count; ++i) {
      if (!counted && pos_ < b_.size() && b_[pos_] == (object ? '}' : ']')) {
        ++pos_;
        return true;
      }
      if (object) {
        std::uint64_t keyLength = 0;
        if (!length(&keyLength) || !skip(keyLength)) return false;
      }
      if (!value(type != 0 ? type : next(), depth + 1)) return false;
    }
    return true;
  }

  std::span<const std::uint8_t> b_;
  std::size_t pos_ = 0;
  std::string err_;
};

/// XGBoost configures a booster lazily on its first prediction; do that now, on one all-missing row, so later
/// concurrent predict() calls on a const model never race on the first configuration.
void configureNow(BoosterHandle b, std::size_t cols) {
  const std::vector<float> row(cols, std::numeric_limits<float>::quiet_NaN());
  const std::string array = "{\"data\":[" + num(reinterpret_cast<std::uintptr_t>(row.data())) +
                            ",true],\"shape\":[1," + num(cols) + "],\"typestr\":\"<f4\",\"version\":3}";
  const bst_ulong* shape = nullptr;
  bst_ulong dim = 0;
  const float* out = nullptr;
  checkInput(xgb().BoosterPredictFromDense(
                 b, array.c_str(),
                 "{\"type\":0,\"training\":false,\"iteration_begin\":0,\"iteration_end\":0,"
                 "\"strict_shape\":false,\"missing\":NaN,\"cache_id\":0}",
                 nullptr, &shape, &dim, &out),
             "XGBoosterPredictFromDense");
}

}  // namespace

XgbModel XgbModel::train(std::span<const float> X, std::size_t rows, std::size_t cols,
                         std::span<const float> y, std::span<const float> Xvalid, std::size_t validRows,
                         std::span<const float> yValid, const XgbParams& p, TrainReport* report) {
  const auto start = std::chrono::steady_clock::now();
  if (rows == 0 || cols == 0)
    throw InputError("XgbModel: training set is empty (" + num(rows) + " x " + num(cols) + ")");
  checkShape(X, rows, cols, "training features");
  checkLabels(y, rows, "training labels");
  checkShape(Xvalid, validRows, cols, "validation features");
  checkLabels(yValid, validRows, "validation labels");
  checkParams(p);
  const bool hasValid = validRows > 0;

  const DMatrix dtrain(X, rows, cols, y, p.threads);
  std::optional<DMatrix> dvalid;
  if (hasValid) dvalid.emplace(Xvalid, validRows, cols, yValid, p.threads);

  // Both matrices go into the booster's cache so per-round evaluation reuses cached predictions.
  DMatrixHandle cache[2] = {dtrain.get(), hasValid ? dvalid->get() : nullptr};
  BoosterOwner booster;
  checkInput(xgb().BoosterCreate(cache, hasValid ? 2 : 1, booster.out()), "XGBoosterCreate");
  const BoosterHandle b = booster.get();
  setParam(b, "verbosity", "0");
  setParam(b, "booster", "gbtree");
  setParam(b, "tree_method", "hist");  // deterministic for a fixed seed, whatever nthread is
  setParam(b, "objective", p.objective);
  setParam(b, "eval_metric", "rmse");
  setParam(b, "eta", num(p.learningRate));
  setParam(b, "max_depth", num(p.maxDepth));
  setParam(b, "subsample", num(p.subsample));
  setParam(b, "colsample_bytree", num(p.colsampleBytree));
  setParam(b, "min_child_weight", num(p.minChildWeight));
  setParam(b, "lambda", num(p.lambda));
  setParam(b, "nthread", num(p.threads));
  setParam(b, "seed", num(static_cast<std::int64_t>(p.seed)));

  const char* names[2] = {"train", "valid"};
  const bool earlyStopping = hasValid && p.earlyStoppingRounds > 0;
  int rounds = 0, best = -1;
  double bestTrain = 0, bestValid = 0;
  for (int it = 0; it < p.maxRounds; ++it) {
    checkInput(xgb().BoosterUpdateOneIter(b, it, dtrain.get()), "XGBoosterUpdateOneIter");
    rounds = it + 1;
    if (!hasValid) continue;
    const char* line = nullptr;
    checkInput(xgb().BoosterEvalOneIter(b, it, cache, names, 2, &line), "XGBoosterEvalOneIter");
    const double trainRmse = parseRmse(line, "train"), validRmse = parseRmse(line, "valid");
    // Without early stopping the model keeps every round, so "best" simply follows the last one.
    if (best < 0 || !earlyStopping || validRmse < bestValid) {
      best = it;
      bestTrain = trainRmse;
      bestValid = validRmse;
    } else if (it - best >= p.earlyStoppingRounds) {
      break;
    }
  }
  if (!hasValid) {
    best = rounds - 1;
    const char* line = nullptr;
    checkInput(xgb().BoosterEvalOneIter(b, best, cache, names, 1, &line), "XGBoosterEvalOneIter");
    bestTrain = parseRmse(line, "train");
  }

  // Keep only rounds [0, best]: smaller saved models and faster prediction.
  if (best + 1 < rounds) {
    BoosterOwner sliced;
    checkInternal(xgb().BoosterSlice(b, 0, best + 1, 1, sliced.out()), "XGBoosterSlice");
    booster.reset(sliced.release());
  }
  checkInternal(xgb().BoosterSetAttr(booster.get(), kBestIterationAttr, num(best).c_str()),
                "XGBoosterSetAttr");
  if (hasValid)
    checkInternal(xgb().BoosterSetAttr(booster.get(), kBestScoreAttr, num(bestValid).c_str()),
                  "XGBoosterSetAttr");

  configureNow(booster.get(), cols);
  XgbModel model(booster.release(), cols, best);
  if (report != nullptr) {
    report->rounds = rounds;
    report->bestIteration = best;
    report->trainRmse = bestTrain;
    report->validRmse = hasValid ? bestValid : 0;
    report->seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  }
  return model;
}

std::vector<float> XgbModel::predict(std::span<const float> X, std::size_t rows, std::size_t cols,
                                     int rounds) const {
  const BoosterHandle b = handle();
  if (cols != features_)
    throw InputError("XgbModel: predict got " + num(cols) + " features per row, the model was trained on " +
                     num(features_));
  checkShape(X, rows, cols, "prediction features");
  if (rows == 0) return {};

  // __array_interface__ of the caller's buffer (read-only, little-endian float32, C order): no copy.
  const std::string array = "{\"data\":[" + num(reinterpret_cast<std::uintptr_t>(X.data())) +
                            ",true],\"shape\":[" + num(rows) + "," + num(cols) +
                            "],\"typestr\":\"<f4\",\"version\":3}";
  const std::string config = "{\"type\":0,\"training\":false,\"iteration_begin\":0,\"iteration_end\":" +
                             num(rounds > 0 ? std::min(rounds, bestIteration_ + 1) : bestIteration_ + 1) +
                             ",\"strict_shape\":false,\"missing\":NaN,\"cache_id\":0}";
  const bst_ulong* shape = nullptr;
  bst_ulong dim = 0;
  const float* out = nullptr;
  checkInput(xgb().BoosterPredictFromDense(b, array.c_str(), config.c_str(), nullptr, &shape, &dim, &out),
             "XGBoosterPredictFromDense");
  bst_ulong total = 1;
  for (bst_ulong i = 0; i < dim; ++i) total *= shape[i];
  if (out == nullptr || total != rows)
    throw std::runtime_error("XgbModel: XGBoost returned " + num(total) + " predictions for " + num(rows) +
                             " rows");
  return std::vector<float>(out, out + rows);
}

std::vector<std::uint8_t> XgbModel::save() const {
  bst_ulong len = 0;
  const char* data = nullptr;
  checkInternal(xgb().BoosterSaveModelToBuffer(handle(), "{\"format\":\"ubj\"}", &len, &data),
                "XGBoosterSaveModelToBuffer");
  const auto* bytes = reinterpret_cast<const std::uint8_t*>(data);
  return std::vector<std::uint8_t>(bytes, bytes + len);
}

XgbModel XgbModel::load(std::span<const std::uint8_t> bytes) {
  // XGBoost's UBJSON reader allocates whatever lengths the bytes declare and recurses on nesting, so garbage
  // could exhaust memory or the stack; and bytes not starting with '{' would reach its legacy binary reader.
  // Accept only one complete, self-consistent UBJSON object.
  if (bytes.empty() || bytes[0] != '{' || (bytes.size() > 1 && bytes[1] == '"'))
    throw InputError("XgbModel: not an XGBoost UBJSON model (as written by XgbModel::save)");
  if (const std::string why = UbjChecker(bytes).check(); !why.empty())
    throw InputError("XgbModel: corrupt model bytes: " + why);
  BoosterOwner booster;
  checkInternal(xgb().BoosterCreate(nullptr, 0, booster.out()), "XGBoosterCreate");
  checkInput(
      xgb().BoosterLoadModelFromBuffer(booster.get(), bytes.data(), static_cast<bst_ulong>(bytes.size())),
      "XGBoosterLoadModelFromBuffer");
  bst_ulong features = 0;
  checkInput(xgb().BoosterGetNumFeature(booster.get(), &features), "XGBoosterGetNumFeature");
  int rounds = 0;
  checkInput(xgb().BoosterBoostedRounds(booster.get(), &rounds), "XGBoosterBoostedRounds");
  if (features == 0) throw InputError("XgbModel: model has no features");
  if (rounds < 1) throw InputError("XgbModel: model has no boosting rounds");

  int best = rounds - 1;
  const char* attr = nullptr;
  int found = 0;
  checkInput(xgb().BoosterGetAttr(booster.get(), kBestIterationAttr, &attr, &found), "XGBoosterGetAttr");
  if (found != 0 && attr != nullptr) {
    const std::string_view s(attr);
    const auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), best);
    if (ec != std::errc{} || ptr != s.data() + s.size() || best < 0 || best >= rounds)
      throw InputError("XgbModel: model attribute best_iteration='" + std::string(s) + "' is not in [0, " +
                       num(rounds) + ")");
  }
  configureNow(booster.get(), static_cast<std::size_t>(features));
  return XgbModel(booster.release(), static_cast<std::size_t>(features), best);
}

std::size_t XgbModel::featureCount() const {
  handle();
  return features_;
}

int XgbModel::bestIteration() const {
  handle();
  return bestIteration_;
}

void* XgbModel::handle() const {
  if (booster_ == nullptr) throw std::runtime_error("XgbModel: use of a moved-from model");
  return booster_;
}

XgbModel::XgbModel(XgbModel&& other) noexcept
    : booster_(std::exchange(other.booster_, nullptr)),
      features_(std::exchange(other.features_, 0)),
      bestIteration_(std::exchange(other.bestIteration_, 0)) {}

XgbModel& XgbModel::operator=(XgbModel&& other) noexcept {
  if (this != &other) {
    if (booster_ != nullptr) xgb().BoosterFree(booster_);
    booster_ = std::exchange(other.booster_, nullptr);
    features_ = std::exchange(other.features_, 0);
    bestIteration_ = std::exchange(other.bestIteration_, 0);
  }
  return *this;
}

XgbModel::~XgbModel() {
  if (booster_ != nullptr) xgb().BoosterFree(booster_);
}

}  // namespace pim

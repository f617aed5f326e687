// SPDX-License-Identifier: Apache-2.0
// What each fuzz target does with one input, shared by the libFuzzer targets (tests/fuzz/fuzz_*.cpp) and by
// the test that replays the committed corpus in every build (tests/test_fuzz_corpus.cpp). Each function
// returns true when the reader accepted the bytes and false when it refused them with an InputError; any
// other exception, crash or sanitizer report is a finding.
#pragma once
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>
#include <vector>

#include "engine/common/error.h"
#include "engine/common/json_input.h"
#include "engine/convmap/evaluator.h"
#include "engine/convmap/lower_bound.h"
#include "engine/convmap/mapping_io.h"
#include "engine/convmap/network_layers.h"
#include "engine/convmap/trace_bridge.h"
#include "engine/core/problem.h"
#include "engine/crossbar/ht_schedule.h"
#include "engine/crossbar/ll_schedule.h"
#include "engine/kernel/dsl.h"
#include "engine/kernel/library.h"
#include "engine/kernel/onnx_network.h"
#include "engine/mapping/sub_map_layout.h"
#include "engine/search/schedule_file.h"
#include "engine/store/store.h"
#include "engine/target/registry.h"
#include "engine/workflow/mapping_schedule.h"
#include "engine/workflow/session_file.h"
#include "sim/crossbar/xbar_profiler.h"
#include "tests/crossbar_invariants.h"

namespace pim::fuzz {

/// The readers of schedules, sessions and stores take a path, not bytes: each input is written to one file
/// per process (in /dev/shm when there is one, so fuzzing does not wear the disk) and removed again with what
/// SQLite leaves beside it, so one input never sees another's file.
class InputFile {
 public:
  InputFile(std::string_view bytes, const std::string& extension)
      : m_path(folder() + "/pimscope-fuzz-" + std::to_string(::getpid()) + extension) {
    removeAll();
    std::ofstream(m_path, std::ios::binary).write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  }
  InputFile(const InputFile&) = delete;
  InputFile& operator=(const InputFile&) = delete;
  ~InputFile() { removeAll(); }
  const std::string& path() const { return m_path; }

 private:
  static std::string folder() {
    std::error_code ec;
    if (std::filesystem::is_directory("/dev/shm", ec)) return "/dev/shm";
    return std::filesystem::temp_directory_path().string();
  }
  void removeAll() const {
    for (const char* suffix : {"", "-wal", "-shm", "-journal"}) std::remove((m_path + suffix).c_str());
  }
  std::string m_path;
};

/// f(), true if it returned, false if it threw an InputError.
template <class F>
bool accepted(F&& f) {
  try {
    f();
    return true;
  } catch (const InputError&) {
    return false;
  }
}

/// The kernel DSL parser.
inline bool dsl(std::string_view bytes) {
  return accepted([&] { (void)parseKernel(bytes, "fuzz.pim"); });
}

/// The backend loader: depth-limited JSON reader, then the schema of the family the file names.
inline bool backend(std::string_view bytes) {
  return accepted([&] {
    const Backend b = parseBackend(bytes, "fuzz.json");
    (void)b.hash();
    (void)b.toJson();
  });
}

/// The schedule reader (embedded backend and kernel, shape, draft id and parts, recorded results). It stops
/// before the re-simulation, whose cost is the input's shape and not a reader's bug.
inline bool schedule(std::string_view bytes) {
  const InputFile file(bytes, ".schedule.json");
  return accepted([&] { (void)readSchedule(file.path()); });
}

/// The session reader, then the draft ids it read resolved against the shipped example's problem (GEMV
/// 4096x4096 on hbm-pim), as the window does on open.
inline bool session(std::string_view bytes) {
  static const Problem& example = *[] {
    Kernel k = KernelLibrary::builtin().get("gemv");
    Shape s = parseShape(k, "b=1,out=4096,in=4096");
    return new Problem(builtinBackends().get("hbm-pim"), std::move(k), std::move(s));  // kept for the run
  }();
  const InputFile file(bytes, ".pimsession");
  return accepted([&] {
    SessionData d = SessionFile::load(file.path());
    resolveDrafts(d, example);
  });
}

/// The results store opener (read-only preflight with SQLite's quick_check, application id, schema version,
/// migration of older stores), then the reads a rerun of `explore --db` and `map --db` makes, with the keys
/// of the seed stores (tests/fuzz/make_sqlite_seeds.sh) so that mutated rows are decoded.
inline bool store(std::string_view bytes) {
  const InputFile file(bytes, ".db");
  return accepted([&] {
    ResultsStore st = ResultsStore::open(file.path());
    (void)st.lookup("b1", "ir1:k", "n=8");
    (void)st.latestModel("b1", "m");
    (void)st.model(1);
    (void)st.findProblem(1, "ir1:k", "n=8");
    (void)st.drafts(1);
    (void)st.results(1);
    (void)st.countResults(1);
    (void)st.predictions(1, 1);
    (void)st.mapping("h1", "K=8", "latency", "auto");
    (void)st.mappings();
  });
}

/// The mapping reader (CoMoNM's notation or JSON), then its settings and its draft on upmem's GEMV of 512 x
/// 1,152 int32 (CoMoNM's Fig. 8 space), as `simulate --schedule mapping:FILE` does before it evaluates;
/// several sub-maps are placed in that space.
inline bool mapping(std::string_view bytes) {
  static const Problem& gemv = *[] {
    Kernel k = retyped(KernelLibrary::builtin().get("gemv"), DType::I32);
    Shape s = parseShape(k, "b=1,out=512,in=1152");
    return new Problem(builtinBackends().get("upmem"), std::move(k), std::move(s));  // kept for the run
  }();
  return accepted([&] {
    const MappingSpec m = parseMapping(bytes, "fuzz.map");
    if (m.maps.size() > 1) {  // sub-maps: where they lie (runSubMaps then maps each as below)
      (void)placeSubMaps(m, {1, 512, 1152}, {"b", "o", "i"});
      return;
    }
    (void)mappingSettings(m, gemv.backend());
    (void)mappedSchedule(m, gemv);
  });
}

/// A network node list (PIMCOMP-NN's format), then its conv and FC layers as the conv mapper takes them.
inline bool network(std::string_view bytes) {
  return accepted([&] { (void)convmap::networkLayers(parseNetworkJson(bytes, "fuzz.json")); });
}

/// An ONNX model (protobuf bytes): shape inference and PIMCOMP-NN's frontend rules, then the node list's
/// checks.
inline bool onnx(std::string_view bytes) {
  return accepted([&] { (void)parseOnnxNetwork(bytes, "fuzz.onnx"); });
}

/// Does every CONV and POOL window cover its whole input? A kernel smaller than its stride (or a last window
/// short of the edge) leaves input pixels nothing reads; the LL schedule ends with the last node and never
/// computes the pixels only those feed (as PIMCOMP-NN), so its MVM count may then fall short of the
/// invariant.
inline bool everyPixelRead(const Network& net) {
  const auto covers = [](std::int64_t in, std::int64_t out, std::int64_t k, std::int64_t s, std::int64_t d,
                         std::int64_t pad) {
    const std::int64_t cap = std::int64_t{1} << 20;
    if (in > cap || out > cap || k > cap || out * k > 16 * cap) return false;  // not worth a walk
    std::vector<char> read(static_cast<std::size_t>(std::max<std::int64_t>(in, 0)), 0);
    for (std::int64_t o = 0; o < out; ++o)
      for (std::int64_t j = 0; j < k; ++j) {
        const std::int64_t r = o * s + j * d - pad;
        if (r >= 0 && r < in) read[static_cast<std::size_t>(r)] = 1;
      }
    return std::all_of(read.begin(), read.end(), [](char c) { return c != 0; });
  };
  for (const NetworkNode& n : net.nodes) {
    if (n.input_dim.size() != 4 || n.output_dim.size() != 4) continue;
    const std::int64_t inH = n.input_dim[2], inW = n.input_dim[3], outH = n.output_dim[2],
                       outW = n.output_dim[3];
    if (n.op == NetworkOp::Conv &&
        !(covers(inH, outH, n.conv.kernel_h, n.conv.stride_h, n.conv.dilation_h, n.conv.pad_h0) &&
          covers(inW, outW, n.conv.kernel_w, n.conv.stride_w, n.conv.dilation_w, n.conv.pad_w0)))
      return false;
    if (n.op == NetworkOp::Pool && !n.pool.global &&
        !(covers(inH, outH, n.pool.kernel_h, n.pool.stride_h, 1, n.pool.pad_h0) &&
          covers(inW, outW, n.pool.kernel_w, n.pool.stride_w, 1, n.pool.pad_w0)))
      return false;
  }
  return true;
}

/// A network compiled on a small crossbar accelerator in both pipelines and in each weight unfolding (im2col,
/// I,O,K2, IK,O,K, I,OK2,1 and IK,OK,1), checked against the MVM invariant (every window of every layer runs
/// each AG band of each matrix once): a count that differs aborts (a finding). The HT programs and LL's with
/// spilling, whose data goes through global memory in order, are also profiled (a deadlock or a load of a
/// write never made throws: a finding). Large networks are left out (their schedules take seconds; the
/// seeds' shapes are small).
inline bool crossbar(std::string_view bytes) {
  return accepted([&] {
    const Network net = parseNetworkJson(bytes, "fuzz.json");
    crossbar::Accelerator acc;
    acc.name = "fuzz";
    acc.coresX = acc.coresY = 4;
    acc.crossbarsPerCore = 16;
    acc.rows = acc.cols = 32;
    std::int64_t work = 0;  // I,O,K2's MVMs times their column arrays: the most of the three formats
    for (const ConvLayerShape& l : convLayers(net))
      work += l.P * l.Q * l.R * l.S * ((l.C + acc.rows - 1) / acc.rows) * ((l.K + acc.cols - 1) / acc.cols);
    if (work > 200000) return;  // too slow to be worth a fuzz execution
    for (const char* format : {"im2col", "I,O,K2", "IK,O,K", "I,OK2,1", "IK,OK,1"}) {
      const std::int64_t expected = test::expectedMvms(net, acc.rows, format);
      for (const auto mode : {crossbar::PipelineMode::Ht, crossbar::PipelineMode::Ll}) {
        crossbar::CompileOptions o;
        o.mode = mode;
        o.unfolding.all = format;
        const crossbar::CompilePlan plan = crossbar::compilePlan(net, acc, o);
        struct Count final : xbar::IProgramSink {
          xbar::IProgramSink* next = nullptr;
          std::int64_t mvms = 0;
          bool group(const xbar::InstructionGroup& ig) override {
            for (const auto& core : ig.cores)
              for (const auto& i : core) mvms += i.op == xbar::Opcode::Mvmul;
            return !next || next->group(ig);
          }
        } count;
        xbar::Profiler profiler(static_cast<int>(acc.cores()), xbar::intended(16, 144));
        bool split =
            false;  // an AG split in column parts runs once per part: the invariant holds without AGP
        for (const auto& l : plan.layers) split = split || l.agp > 1;
        auto check = [&](std::int64_t mvms, const char* how) {
          const bool tooFew =
              mvms < expected && !(mode == crossbar::PipelineMode::Ll && !everyPixelRead(net));
          if (!split && (mvms > expected || tooFew)) {
            std::fprintf(stderr, "MVM invariant broken (%s, %s): %lld MVMs, %lld expected\n", format, how,
                         static_cast<long long>(mvms), static_cast<long long>(expected));
            std::abort();
          }
        };
        if (mode == crossbar::PipelineMode::Ht) {
          count.next = &profiler;
          crossbar::scheduleHt(plan, count);
          check(count.mvms, "HT");
          continue;
        }
        crossbar::scheduleLl(plan, crossbar::LlOptions{}, count);
        check(count.mvms, "LL");
        // A small local memory with spilling (scatter accumulators included): refused up front if a core
        // cannot hold its buffers, never stuck.
        crossbar::LlOptions tight;
        tight.localMemoryElements = 1024;
        tight.spillToGlobalMemory = true;
        Count spilled;
        spilled.next = &profiler;
        try {
          crossbar::scheduleLl(plan, tight, spilled);
        } catch (const InputError& e) {
          if (std::string_view(e.what()).find("no node can progress") == std::string_view::npos) continue;
          std::fprintf(stderr, "LL with spilling stuck: %s\n", e.what());
          std::abort();
        }
        check(spilled.mvms, "LL, spilling");
      }
    }
  });
}

/// The lower bound's promise: no valid mapping costs less. A mapping below it would be reported "optimal"
/// wrongly, so it aborts (a finding).
inline void requireBelow(const convmap::ConvLayer& layer, const convmap::Hierarchy& h,
                         const convmap::ConvMapping& m) {
  const auto b = convmap::lowerBound(layer, h);
  const auto c = convmap::evaluate(layer, h, m);
  if (c.latencyCycles < b.latencyCycles || c.energyPj * (1 + 1e-12) < b.energyPj) {
    std::fprintf(stderr, "lower bound above a valid mapping: latency %lld < %lld or energy %g < %g\n",
                 static_cast<long long>(c.latencyCycles), static_cast<long long>(b.latencyCycles), c.energyPj,
                 b.energyPj);
    std::abort();
  }
}

/// A conv-mapping hierarchy file; one that reads is checked against the lower bound on a small layer (its
/// trivial mapping, every loop in DRAM, when that one is valid).
inline bool hierarchy(std::string_view bytes) {
  static const convmap::ConvLayer layer = convmap::parseLayerDims("R=3,S=3,P=4,Q=4,C=4,K=8", "fuzz");
  return accepted([&] {
    const auto h = convmap::parseHierarchyJson(bytes, "fuzz.json");
    const auto m = convmap::trivialMapping(layer, h);
    if (convmap::violations(layer, h, m).empty()) requireBelow(layer, h, m);
  });
}

/// A saved conv mapping (`map --out`) on pimopt-small, as `rowtrace` reads it: the layer, the mapping, its
/// verdict; a valid one is evaluated and traced when its walk is short (the fuzzer's timeout is 10 s).
inline bool convMapping(std::string_view bytes) {
  static const convmap::Hierarchy h = convmap::builtinHierarchy("pimopt-small");
  return accepted([&] {
    const auto j = parseJsonInput(bytes, "fuzz.json");
    if (!j.is_object() || !j.contains("shape") || !j.contains("mapping"))
      throw InputError("fuzz.json: no mapping");
    const auto layer = convmap::parseLayerJson(j["shape"], "fuzz.json");
    const auto m = convmap::parseMappingJson(j["mapping"], h, "fuzz.json");
    if (!convmap::violations(layer, h, m).empty()) return;
    requireBelow(layer, h, m);
    if (convmap::traceIterations(m) <= 1e5) (void)convmap::checkAgainstTrace(layer, h, m);
  });
}

}  // namespace pim::fuzz

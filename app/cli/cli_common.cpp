// SPDX-License-Identifier: Apache-2.0
#include "app/cli/cli_common.h"

#include <algorithm>
#include <iostream>

#include "engine/common/error.h"

namespace pim::cli {

void ProblemOptions::addTo(CLI::App* cmd) {
  cmd->add_option("--backend,-b", backend, "backend name (see `pimscope-cli backends`)")->required();
  cmd->add_option("--kernel,-k", kernel, "library kernel name (see `pimscope-cli kernels`)");
  cmd->add_option("--kernel-file", kernelFile, "kernel DSL file instead of a library kernel");
  cmd->add_option("--dims,-d", dims, "dimension sizes, e.g. b=1,out=4096,in=4096 (defaults fill the rest)");
}

std::unique_ptr<Problem> ProblemOptions::build() const {
  if (kernel.empty() && kernelFile.empty())
    throw InputError("--kernel: give a library kernel or --kernel-file");
  const Backend& b = BackendRegistry::builtin().get(backend);
  Kernel k = resolveKernel(kernel, kernelFile);
  Shape s = parseShape(k, dims);
  return std::make_unique<Problem>(b, std::move(k), std::move(s));
}

std::string TextTable::str() const {
  std::vector<std::size_t> width;
  for (const auto& row : m_rows) {
    width.resize(std::max(width.size(), row.size()), 0);
    for (std::size_t i = 0; i < row.size(); ++i) width[i] = std::max(width[i], row[i].size());
  }
  auto numeric = [](const std::string& s) {
    return !s.empty() && s.find_first_not_of("0123456789.,-%x") == std::string::npos;
  };
  std::string out;
  for (std::size_t r = 0; r < m_rows.size(); ++r) {
    for (std::size_t i = 0; i < m_rows[r].size(); ++i) {
      const auto& cell = m_rows[r][i];
      const std::string pad(width[i] - cell.size(), ' ');
      out += (r > 0 && numeric(cell)) ? pad + cell : cell + pad;
      if (i + 1 < m_rows[r].size()) out += "  ";
    }
    out += "\n";
    if (r == 0) {
      for (std::size_t i = 0; i < width.size(); ++i)
        out += std::string(width[i], '-') + (i + 1 < width.size() ? "  " : "");
      out += "\n";
    }
  }
  return out;
}

std::string grouped(std::uint64_t n) {
  std::string s = std::to_string(n);
  for (int i = static_cast<int>(s.size()) - 3; i > 0; i -= 3) s.insert(static_cast<std::size_t>(i), ",");
  return s;
}

nlohmann::json draftJson(const DraftSpace& space, const Draft& d) {
  nlohmann::json parts = nlohmann::json::array();
  for (int i = 0; i < space.partCount(); ++i) {
    const auto& p = d.parts[i];
    parts.push_back({{"groups", p.groups},
                     {"cores", p.cores},
                     {"representative", mappingLabel(space.kernel(), space.representative(i, p))},
                     {"per_core", space.perCoreSize(i, p)}});
  }
  return {{"id", d.id}, {"label", space.label(d)}, {"parts", parts}};
}

void printJson(const nlohmann::json& j) { std::cout << j.dump(2) << "\n"; }

}  // namespace pim::cli

// SPDX-License-Identifier: Apache-2.0
#include "views/residency_input.h"

#include <QLocale>
#include <QObject>
#include <exception>

#include "engine/common/error.h"
#include "engine/core/problem.h"

namespace pimgui {

pim::Residency residencyFor(const pim::Kernel& kernel, const std::optional<std::string>& resident) {
  if (!resident) return pim::Residency::declared(kernel);
  pim::Residency none;
  none.resident.assign(kernel.tensors.size(), false);
  try {
    return pim::overrideResidency(kernel, std::move(none), *resident, "");
  } catch (const pim::InputError& e) {
    // The engine words it for the CLI's option; the window's field has a label of its own.
    std::string what = e.what();
    const std::string option = "--resident: ";
    if (what.rfind(option, 0) == 0) what = "resident tensors: " + what.substr(option.size());
    throw pim::InputError(what);
  }
}

std::string residentText(const pim::Kernel& kernel, const std::optional<std::string>& resident) {
  return resident ? *resident : pim::residentNames(kernel, pim::Residency::declared(kernel));
}

bool sameResidency(const std::string& kernelName, const std::string& kernelFile,
                   const std::optional<std::string>& a, const std::optional<std::string>& b) {
  if (a == b) return true;
  try {
    const pim::Kernel k = pim::resolveKernel(kernelName, kernelFile);
    return residencyFor(k, a) == residencyFor(k, b);
  } catch (const std::exception&) {
    return false;  // a list that does not parse differs from every other list
  }
}

QString preloadText(const std::optional<std::int64_t>& cycles, double tCKns, const QString& residentList) {
  if (!cycles) return {};
  const QLocale locale;
  return QObject::tr(
             "Preload (once): %1 cycles, %2 ns — placing %3 in this draft's layout before the first "
             "call; not in the total")
      .arg(locale.toString(static_cast<qlonglong>(*cycles)))
      .arg(locale.toString(static_cast<double>(*cycles) * tCKns, 'f', 1))
      .arg(residentList);
}

}  // namespace pimgui

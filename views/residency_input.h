// SPDX-License-Identifier: Apache-2.0
// The window's residency: the control panel's "Resident tensors" field as the engine's Residency. The field
// names every resident tensor (what the CLI reaches with --resident and --streamed together), so what the
// field shows is exactly what runs; nothing typed is corrected.
#pragma once
#include <QString>
#include <optional>
#include <string>

#include "engine/kernel/residency.h"

namespace pimgui {

/// The residency of `resident` (SessionConfig::resident): nullopt is what the kernel declares; a list makes
/// those tensors resident and every other one streamed. Throws pim::InputError naming an unknown tensor or a
/// temporary, worded for the field ("resident tensors: kernel gemv has no tensor 'X' (tensors: ...)").
pim::Residency residencyFor(const pim::Kernel& kernel, const std::optional<std::string>& resident);

/// The resident list as the field shows it for `kernel`: the declared one for nullopt, else as given.
std::string residentText(const pim::Kernel& kernel, const std::optional<std::string>& resident);

/// Whether two settings mean the same residency for the kernel both name (order and spaces aside); a kernel
/// that does not load compares the lists as written.
bool sameResidency(const std::string& kernelName, const std::string& kernelFile,
                   const std::optional<std::string>& a, const std::optional<std::string>& b);

/// "Preload (once): 1,234 cycles, 987.6 ns ..." for the details pane, empty without a preload.
QString preloadText(const std::optional<std::int64_t>& cycles, double tCKns, const QString& residentList);

}  // namespace pimgui

// SPDX-License-Identifier: Apache-2.0
// The kernel box of the control panel and of the comparison: the library's kernels by name, and at most one
// item for a kernel file, told apart by its item data.
#pragma once
#include <QString>

class QComboBox;

namespace pimgui {

/// Selects the kernel-file item of `box`, adding it if missing, labelled `text` with `path` as its tooltip.
void selectKernelFileItem(QComboBox* box, const QString& text, const QString& path);
/// Whether the current item of `box` is its kernel-file item (not a library kernel).
bool isKernelFileItem(const QComboBox* box);
/// The library kernel `box` selects, or "" when it selects the kernel file.
QString libraryKernelName(const QComboBox* box);

}  // namespace pimgui

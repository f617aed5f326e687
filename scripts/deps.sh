#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Installs the Debian 12 packages PIMScope needs that are not installed yet (sudo only when not root).
# README.md says why each one is there.
set -euo pipefail

PACKAGES=(
  cmake ninja-build g++ pkg-config git
  nlohmann-json3-dev libcli11-dev libsqlite3-dev
  libgtest-dev libgmock-dev libbenchmark-dev
  qt6-base-dev qt6-charts-dev qt6-svg-dev libqt6opengl6-dev libqcustomplot-dev libqcustomplot2.1-qt6 libgl1-mesa-dev
  libxgboost-dev xgboost
  coinor-libcbc-dev libglpk-dev
  libonnx-dev libprotobuf-dev
  openmpi-bin libopenmpi-dev
)

missing=()
for p in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "pimscope: installing ${missing[*]}"
  SUDO=""
  [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  $SUDO apt-get update -q
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q --no-install-recommends "${missing[@]}"
fi

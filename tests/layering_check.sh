#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# No folder includes one above it: every #include "<folder>/..." of a source file must name its own folder or
# one below it in the pipeline (engine/CMakeLists.txt links the same order). Prints each violation with file and
# line; exits 1 if there is any.
set -euo pipefail
cd "$(dirname "$0")/.."

# Each layer and what it may include (besides itself); a target family's subfolder is part of engine/target.
declare -A below=(
  [sim]=""
  [engine/common]=""
  [engine/kernel]="engine/common"
  [engine/hw]="engine/common engine/kernel"
  [engine/schedule]="engine/common engine/kernel"
  [engine/prune]="engine/common engine/kernel engine/schedule"
  [engine/mapping]="engine/common engine/kernel engine/hw engine/schedule"
  [engine/core]="engine/common engine/kernel engine/hw engine/schedule engine/prune engine/mapping sim"
  [engine/codegen]="engine/common engine/kernel engine/hw engine/schedule engine/prune engine/mapping engine/core sim"
  [engine/target]="engine/common engine/kernel engine/hw engine/schedule engine/prune engine/mapping engine/core engine/codegen engine/milp engine/convmap engine/crossbar sim"
  [engine/predict]="engine/common engine/kernel engine/hw engine/schedule engine/prune engine/mapping engine/core engine/codegen engine/milp engine/convmap engine/crossbar engine/target sim"
  [engine/search]="engine/common engine/kernel engine/hw engine/schedule engine/prune engine/mapping engine/core engine/codegen engine/milp engine/convmap engine/crossbar engine/target engine/predict sim"
  [engine/store]="engine/common"
  [engine/milp]="engine/common"
  [engine/convmap]="engine/common engine/kernel engine/hw engine/milp sim"
  [engine/crossbar]="engine/common engine/kernel sim"
  [engine/workflow]="engine/common engine/kernel engine/hw engine/schedule engine/prune engine/mapping engine/core engine/codegen engine/target engine/predict engine/search engine/store engine/milp engine/convmap engine/crossbar sim"
  [engine/llm]="engine/common engine/kernel engine/hw engine/schedule engine/prune engine/mapping engine/core engine/codegen engine/target engine/predict engine/search engine/store engine/milp engine/convmap engine/crossbar engine/workflow sim"
  [views]="engine sim"
  [app]="engine sim views app"
)

# Sets `layer` to the layer of path $1; no subshell, as it runs once per include.
layer_of() {
  case "$1" in
    engine/target/*) layer=engine/target ;;
    engine/*/*) layer="${1%/*}" ;;
    app/*) layer=app ;;
    *) layer="${1%%/*}" ;;
  esac
}

bad=0
# One grep over every source file: "file:line:#include "path"".
while IFS=: read -r file line inc; do
  layer_of "$file"
  [ -n "${below[$layer]+x}" ] || continue
  file_layer=$layer
  inc=${inc#'#include "'}
  inc=${inc%'"'}
  layer_of "$inc"
  [ "$layer" = "$file_layer" ] && continue
  ok=0
  for allowed in ${below[$file_layer]}; do
    case "$layer/" in "$allowed"/*) ok=1 ;; esac
  done
  if [ $ok -eq 0 ]; then
    echo "$file:$line: includes $inc ($layer is not below $file_layer)"
    bad=1
  fi
done < <(git ls-files -z -co --exclude-standard -- 'engine/*.h' 'engine/*.cpp' 'sim/*.h' 'sim/*.cpp' 'views/*.h' \
           'views/*.cpp' 'app/*.h' 'app/*.cpp' | xargs -0 grep -Hno '^#include "\(engine\|sim\|views\|app\)/[^"]*"')
if [ $bad -ne 0 ]; then exit 1; fi
echo "layering: every include names its own folder or one below it"

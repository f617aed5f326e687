# SPDX-License-Identifier: Apache-2.0
# cmake -P scripts/sanitize_exclusions.cmake: prints the regular expression of the tests the `sanitize` test
# preset leaves out (CMakePresets.json, the one place it is written), so that scripts/test.sh's `ci` pass can
# run exactly those, beside the GUI tests, when the sanitize pass follows, and the sanitize build's test shards
# (PIMSCOPE_TEST_SHARDS, tests/CMakeLists.txt) leave them out.
file(READ "${CMAKE_CURRENT_LIST_DIR}/../CMakePresets.json" presets)
string(JSON count LENGTH "${presets}" testPresets)
math(EXPR last "${count} - 1")
foreach(i RANGE ${last})
  string(JSON name GET "${presets}" testPresets ${i} name)
  if(name STREQUAL "sanitize")
    string(JSON regex GET "${presets}" testPresets ${i} filter exclude name)
    execute_process(COMMAND ${CMAKE_COMMAND} -E echo "${regex}")
    return()
  endif()
endforeach()
message(FATAL_ERROR "CMakePresets.json has no `sanitize` test preset")

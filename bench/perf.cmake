# The perf tests (label perf, in the default ctest run), included from tests/CMakeLists.txt so that every preset
# with tests runs them:
#   perf.instruction_budget  the instruction budgets of provpol's decision paths, counted by callgrind
#                            (bench/instructions.cpp, tools/instruction_budget.sh, bench/README.md);
#   perf.header_includes     the standard headers the umbrella header pulls in (compile cost, see below).
#
# The budgets are for g++ -O2, so bench/instructions.cpp is built with g++ -std=c++17 -O2 whatever the preset's
# compiler and flags are (the clang and sanitizer presets included: a sanitized binary would count the
# sanitizer's instructions). Where g++ or valgrind is missing the test is skipped with a message (exit 77).
find_program(PROVPOL_GXX NAMES g++ DOC "g++ for bench/instructions.cpp (the instruction budgets are for g++ -O2)")
find_program(PROVPOL_VALGRIND NAMES valgrind DOC "valgrind, for the instruction budgets (perf test)")

set(_provpol_budget_script ${PROJECT_SOURCE_DIR}/tools/instruction_budget.sh)
if(PROVPOL_GXX)
  set(_provpol_instructions ${CMAKE_CURRENT_BINARY_DIR}/instructions)
  set(_provpol_instructions_flags -std=c++17 -O2)
  add_custom_command(
    OUTPUT ${_provpol_instructions}
    COMMAND ${PROVPOL_GXX} ${_provpol_instructions_flags} "-DPROVPOL_BENCH_FLAGS=\"-std=c++17 -O2\"" ${PROVPOL_WARNINGS}
            -I${PROJECT_SOURCE_DIR}/include -MD -MF ${_provpol_instructions}.d -o ${_provpol_instructions}
            ${PROJECT_SOURCE_DIR}/bench/instructions.cpp
    DEPENDS ${PROJECT_SOURCE_DIR}/bench/instructions.cpp
    DEPFILE ${_provpol_instructions}.d
    COMMENT "Building provpol_instructions with g++ -O2 (instruction budgets)"
    VERBATIM)
  add_custom_target(provpol_instructions ALL DEPENDS ${_provpol_instructions})
  add_test(NAME perf.instruction_budget
           COMMAND bash ${_provpol_budget_script} --check --binary ${_provpol_instructions})
else()
  message(STATUS "g++ not found: perf.instruction_budget will be skipped")
  add_test(NAME perf.instruction_budget COMMAND bash ${_provpol_budget_script} --check)
endif()
if(NOT PROVPOL_VALGRIND)
  message(STATUS "valgrind not found: perf.instruction_budget will be skipped")
endif()
set_tests_properties(perf.instruction_budget PROPERTIES LABELS perf SKIP_RETURN_CODE 77)

# Compile cost. The time `#include <provpol/provpol.hpp>` adds (budget 0.25 s, tools/compile_cost.sh) is not a
# test: on a shared 2-core machine the minimum of 15 compiles still moves by +-0.04 s from run to run, and a
# timing test would fail for reasons that are not provpol's. What drives the cost is deterministic, though:
# which standard headers the umbrella pulls in. This test fails when it pulls in one the library must not
# include (<string>, <vector>, <iostream>, <random>, ...).
add_test(NAME perf.header_includes
         COMMAND bash ${PROJECT_SOURCE_DIR}/tools/compile_cost.sh --includes --check provpol/provpol.hpp)
set_tests_properties(perf.header_includes PROPERTIES LABELS perf ENVIRONMENT "CXX=${CMAKE_CXX_COMPILER}")

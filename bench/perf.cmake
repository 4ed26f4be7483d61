# The perf tests (label perf, in the default ctest run), included from tests/CMakeLists.txt so that every preset
# with tests runs them (a sanitized one all but the two budgets, see below):
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
# A sanitized build (PROVPOL_SANITIZED: the asan-ubsan and tsan presets) leaves the two budgets out: they build
# their own g++ -O2 programs whatever the preset, so they would measure again what the dev preset measured.
if(PROVPOL_SANITIZED)
  message(STATUS "PROVPOL_SANITIZED: perf.instruction_budget and perf.compile_budget are the dev preset's")
elseif(PROVPOL_GXX)
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
if(NOT PROVPOL_SANITIZED)
  set_tests_properties(perf.instruction_budget PROPERTIES LABELS perf SKIP_RETURN_CODE 77)
endif()

# Compile cost, as two budgets. The embedder's umbrella provpol.hpp (the decisions and their vocabulary) and the
# decision families' umbrellas (extend, log size, chunk: what an agent includes everywhere) each cost at most 1.0x
# what <string> adds to a translation unit, counted in compiler instructions (deterministic, where seconds on a shared
# 2-core machine move by +-0.04 s): perf.compile_budget, about a minute under valgrind. perf.header_includes fails when one of them, the embedder's umbrella provpol.hpp (the three
# together with the vocabulary) or VDSM's size rules (included by name) pulls in a standard header a decision must not
# include (<string>, <vector>, <cmath>, <chrono>, ...). The model layer
# (flow, fit, simulate, domain) is measured and reported (bench/README.md), not budgeted.
add_test(NAME perf.header_includes
         COMMAND bash ${PROJECT_SOURCE_DIR}/tools/compile_cost.sh --includes --check provpol/provpol.hpp
                 provpol/extend.hpp provpol/log_size.hpp provpol/chunk.hpp provpol/extend/vdsm_sizes.hpp)
set_tests_properties(perf.header_includes PROPERTIES LABELS perf ENVIRONMENT "CXX=${CMAKE_CXX_COMPILER}")
if(PROVPOL_GXX AND NOT PROVPOL_SANITIZED)
  add_test(NAME perf.compile_budget COMMAND bash ${PROJECT_SOURCE_DIR}/tools/compile_cost.sh --budget)
  set_tests_properties(perf.compile_budget PROPERTIES LABELS perf SKIP_RETURN_CODE 77
    ENVIRONMENT "CXX=${PROVPOL_GXX}" PASS_REGULAR_EXPRESSION "provpol.hpp and every decision umbrella within budget")
endif()

# cmake -P script run by ctest: one compile-fail case (tests/compile_fail/*.cpp).
#   cmake -DCXX=<compiler> -DSTD=<17|20> -DINCLUDE=<dir> -DSOURCE=<case.cpp> -P check.cmake
# A case is a translation unit whose misuse sits under #ifdef PROVPOL_COMPILE_FAIL, with the correct spelling of the
# same thing in the #else branch, and one or more lines "// expect: REGEX" (alternatives for g++ and clang). The
# case passes when the translation unit compiles without the macro (so the harness, the includes and the correct
# spelling are sound) and fails to compile with it, with a diagnostic that matches one of the regexes (so it fails
# for the reason the case names, not for a typo).
cmake_minimum_required(VERSION 3.21)
foreach(var CXX STD INCLUDE SOURCE)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "check.cmake: ${var} is not set")
  endif()
endforeach()

file(STRINGS "${SOURCE}" expects REGEX "^// expect: ")
list(TRANSFORM expects REPLACE "^// expect: " "")
if(NOT expects)
  message(FATAL_ERROR "${SOURCE}: no '// expect: REGEX' line")
endif()

set(flags -std=c++${STD} -fsyntax-only -I${INCLUDE})
execute_process(COMMAND ${CMAKE_COMMAND} -E env LC_ALL=C ${CXX} ${flags} ${SOURCE} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "${SOURCE}: the control (without PROVPOL_COMPILE_FAIL) does not compile:\n${err}")
endif()
execute_process(COMMAND ${CMAKE_COMMAND} -E env LC_ALL=C ${CXX} ${flags} -DPROVPOL_COMPILE_FAIL ${SOURCE}
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(rc EQUAL 0)
  message(FATAL_ERROR "${SOURCE}: the misuse compiles")
endif()
foreach(re IN LISTS expects)
  if(err MATCHES "${re}")
    message(STATUS "${SOURCE}: refused as expected (${re})")
    return()
  endif()
endforeach()
message(FATAL_ERROR "${SOURCE}: the misuse fails to compile, but not with the expected diagnostic (${expects}):\n${err}")

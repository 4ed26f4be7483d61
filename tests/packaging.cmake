# Tests that guard the packaging: self-contained headers, ODR, -fno-exceptions, and consumers that use an
# installed provpol (find_package, pkg-config) or a source tree (add_subdirectory).

# --- every public header compiles on its own (and twice in a row: include guards) ------------------------------
file(GLOB_RECURSE provpol_public_headers CONFIGURE_DEPENDS
     RELATIVE "${PROJECT_SOURCE_DIR}/include" "${PROJECT_SOURCE_DIR}/include/provpol/*.hpp")
set(provpol_header_tus "")
foreach(header IN LISTS provpol_public_headers)
  string(MAKE_C_IDENTIFIER "${header}" id)
  set(tu "${CMAKE_CURRENT_BINARY_DIR}/self_contained/${id}.cpp")
  file(CONFIGURE OUTPUT "${tu}" CONTENT "// generated: ${header} must compile on its own\n#include <${header}>\n#include <${header}>  // NOLINT(readability-duplicate-include): the include guard is under test\nint provpol_self_contained_${id}() { return 0; }\n")
  list(APPEND provpol_header_tus "${tu}")
endforeach()
list(LENGTH provpol_public_headers provpol_header_count)
file(CONFIGURE OUTPUT "${CMAKE_CURRENT_BINARY_DIR}/self_contained/main.cpp" CONTENT
"// generated: links one translation unit per public header
#include <cstdio>
int main() { std::printf(\"@provpol_header_count@ public headers compile on their own\\n\"); return 0; }
" @ONLY)
add_executable(header_self_contained ${provpol_header_tus} "${CMAKE_CURRENT_BINARY_DIR}/self_contained/main.cpp")
provpol_dev_target(header_self_contained)
add_test(NAME packaging.headers_self_contained COMMAND header_self_contained)
set_tests_properties(packaging.headers_self_contained PROPERTIES LABELS packaging
  PASS_REGULAR_EXPRESSION "^[1-9][0-9]* public headers compile on their own")

# --- ODR: two translation units include every public header (models.hpp) and are linked together ------------------
add_executable(odr_test packaging/odr_a.cpp packaging/odr_b.cpp packaging/odr_main.cpp)
provpol_dev_target(odr_test)
add_test(NAME packaging.odr COMMAND odr_test)
set_tests_properties(packaging.odr PROPERTIES LABELS packaging)

# --- ODR across instruction sets: one translation unit built with -mavx2, one without, linked together ----------
if(CMAKE_SYSTEM_PROCESSOR MATCHES "x86_64|AMD64|i[3-6]86" AND CMAKE_CXX_COMPILER_ID MATCHES "GNU|Clang")
  add_executable(batch_isa_test packaging/batch_isa_a.cpp packaging/batch_isa_b.cpp)
  provpol_dev_target(batch_isa_test)
  set_source_files_properties(packaging/batch_isa_a.cpp PROPERTIES COMPILE_OPTIONS "-mavx2")
  add_test(NAME packaging.batch_isa COMMAND batch_isa_test)
  set_tests_properties(packaging.batch_isa PROPERTIES LABELS packaging
    PASS_REGULAR_EXPRESSION "decided by a -mavx2 translation unit and a baseline one: 0 differ")
endif()

# --- the library without exceptions -------------------------------------------------------------------------------
add_executable(no_exceptions_test packaging/no_exceptions.cpp)
provpol_dev_target(no_exceptions_test)
target_compile_options(no_exceptions_test PRIVATE -fno-exceptions)
add_test(NAME packaging.no_exceptions COMMAND no_exceptions_test)
set_tests_properties(packaging.no_exceptions PROPERTIES LABELS packaging)

# --- consumers ------------------------------------------------------------------------------------------------------
# Each configures and builds a separate project with the same compiler, in its own scratch directory.
set(provpol_consumer_args
  -DPROVPOL_SOURCE_DIR=${PROJECT_SOURCE_DIR}
  -DPROVPOL_BINARY_DIR=${PROJECT_BINARY_DIR}
  -DPROVPOL_CONSUMER_DIR=${CMAKE_CURRENT_SOURCE_DIR}/packaging
  -DSCRATCH=${CMAKE_CURRENT_BINARY_DIR}/consumer_scratch
  -DCXX=${CMAKE_CXX_COMPILER}
  -DGENERATOR=${CMAKE_GENERATOR}
  -DVERSION=${PROJECT_VERSION})
if(PROVPOL_INSTALL)
  add_test(NAME packaging.find_package
           COMMAND ${CMAKE_COMMAND} ${provpol_consumer_args} -DMODE=find_package -P ${CMAKE_CURRENT_SOURCE_DIR}/packaging/consume.cmake)
  add_test(NAME packaging.pkg_config
           COMMAND ${CMAKE_COMMAND} ${provpol_consumer_args} -DMODE=pkg_config -P ${CMAKE_CURRENT_SOURCE_DIR}/packaging/consume.cmake)
  add_test(NAME packaging.header_only
           COMMAND ${CMAKE_COMMAND} ${provpol_consumer_args} -DMODE=header_only -P ${CMAKE_CURRENT_SOURCE_DIR}/packaging/consume.cmake)
  set_tests_properties(packaging.find_package packaging.pkg_config packaging.header_only PROPERTIES LABELS packaging)
  set_tests_properties(packaging.header_only PROPERTIES SKIP_REGULAR_EXPRESSION "SKIP: ")
endif()
add_test(NAME packaging.add_subdirectory
         COMMAND ${CMAKE_COMMAND} ${provpol_consumer_args} -DMODE=add_subdirectory -P ${CMAKE_CURRENT_SOURCE_DIR}/packaging/consume.cmake)
set_tests_properties(packaging.add_subdirectory PROPERTIES LABELS packaging)

# --- one version: debian/changelog, provpol --version, the CMake package and pkg-config -----------------------------
if(PROVPOL_INSTALL AND PROVPOL_BUILD_EXAMPLES)
  find_program(PROVPOL_PKG_CONFIG pkg-config DOC "pkg-config, for packaging.pkg_config and packaging.versions")
  add_test(NAME packaging.versions
           COMMAND ${CMAKE_COMMAND} -DPROVPOL_SOURCE_DIR=${PROJECT_SOURCE_DIR} -DPROVPOL_BINARY_DIR=${PROJECT_BINARY_DIR}
                   -DVERSION=${PROJECT_VERSION} -DPROVPOL=$<TARGET_FILE:provpol_cli> -DPKG_CONFIG=${PROVPOL_PKG_CONFIG}
                   -P ${CMAKE_CURRENT_SOURCE_DIR}/packaging/versions.cmake)
  set_tests_properties(packaging.versions PROPERTIES LABELS packaging)
endif()

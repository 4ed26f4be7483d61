# cmake -P script run by ctest (packaging.versions): the version is one everywhere a user or a package manager
# reads it. debian/changelog's upstream version (its first entry, less the Debian revision), `provpol --version`,
# the CMake package version (provpolConfigVersion.cmake's PACKAGE_VERSION) and the pkg-config file's Version
# must all be project(VERSION).
cmake_minimum_required(VERSION 3.21)
foreach(var PROVPOL_SOURCE_DIR PROVPOL_BINARY_DIR VERSION PROVPOL PKG_CONFIG)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "versions.cmake: ${var} is not set")
  endif()
endforeach()
set(failures 0)
macro(agree what value)
  if("${value}" STREQUAL "${VERSION}")
    message(STATUS "ok: ${what} is ${value}")
  else()
    message(SEND_ERROR "${what} is '${value}', project(VERSION) is '${VERSION}'")
    math(EXPR failures "${failures} + 1")
  endif()
endmacro()

# debian/changelog: "provpol (UPSTREAM-REVISION) DISTRIBUTION; urgency=..." on its first line.
file(STRINGS "${PROVPOL_SOURCE_DIR}/debian/changelog" first LIMIT_COUNT 1)
if(NOT first MATCHES "^provpol \\(([^)]+)-([^-)]+)\\) ")
  message(FATAL_ERROR "debian/changelog's first line is not 'provpol (UPSTREAM-REVISION) ...': ${first}")
endif()
agree("debian/changelog's upstream version" "${CMAKE_MATCH_1}")

# The CLI the packages ship.
execute_process(COMMAND "${PROVPOL}" --version RESULT_VARIABLE rc OUTPUT_VARIABLE out OUTPUT_STRIP_TRAILING_WHITESPACE)
if(NOT rc EQUAL 0 OR NOT out MATCHES "^provpol ([^ ]+)$")
  message(FATAL_ERROR "provpol --version exited ${rc} and printed '${out}'")
endif()
agree("provpol --version" "${CMAKE_MATCH_1}")

# The CMake package: what find_package(provpol) reports as provpol_VERSION.
set(PACKAGE_FIND_VERSION "${VERSION}")
include("${PROVPOL_BINARY_DIR}/provpolConfigVersion.cmake")
agree("provpolConfigVersion.cmake's PACKAGE_VERSION" "${PACKAGE_VERSION}")

# The pkg-config file, as generated for installation.
set(ENV{PKG_CONFIG_PATH} "${PROVPOL_BINARY_DIR}")
execute_process(COMMAND "${PKG_CONFIG}" --modversion provpol RESULT_VARIABLE rc OUTPUT_VARIABLE out
                OUTPUT_STRIP_TRAILING_WHITESPACE)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "pkg-config --modversion provpol exited ${rc}")
endif()
agree("pkg-config --modversion provpol" "${out}")

if(NOT failures EQUAL 0)
  message(FATAL_ERROR "${failures} version(s) disagree")
endif()

// The version macros in config.hpp must match project(VERSION) in CMakeLists.txt.
#include <provpol/config.hpp>

#include <doctest/doctest.h>

#include <string>

static_assert(PROVPOL_VERSION == PROVPOL_VERSION_MAJOR * 10000 + PROVPOL_VERSION_MINOR * 100 + PROVPOL_VERSION_PATCH);

TEST_CASE("config.hpp's version is the CMake project version") {
    const std::string from_macros = std::to_string(PROVPOL_VERSION_MAJOR) + "." +
                                    std::to_string(PROVPOL_VERSION_MINOR) + "." + std::to_string(PROVPOL_VERSION_PATCH);
    CHECK(from_macros == PROVPOL_CMAKE_PROJECT_VERSION);
    CHECK(std::string(PROVPOL_VERSION_STRING) == PROVPOL_CMAKE_PROJECT_VERSION);
}

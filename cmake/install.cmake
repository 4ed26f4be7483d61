# Install rules: headers, the exported target, a CMake package (provpolConfig.cmake and
# provpolConfigVersion.cmake) and a pkg-config file.
include(CMakePackageConfigHelpers)

set(PROVPOL_CMAKE_DIR "${CMAKE_INSTALL_DATADIR}/cmake/provpol" CACHE STRING
    "Where provpolConfig.cmake is installed, relative to the prefix")
set(PROVPOL_PKGCONFIG_DIR "${CMAKE_INSTALL_DATADIR}/pkgconfig" CACHE STRING
    "Where provpol.pc is installed, relative to the prefix")

install(TARGETS provpol provpol_models EXPORT provpolTargets)
install(DIRECTORY "${PROJECT_SOURCE_DIR}/include/provpol" DESTINATION "${CMAKE_INSTALL_INCLUDEDIR}")
install(EXPORT provpolTargets NAMESPACE provpol:: DESTINATION "${PROVPOL_CMAKE_DIR}")

configure_package_config_file(
  "${PROJECT_SOURCE_DIR}/cmake/provpolConfig.cmake.in"
  "${PROJECT_BINARY_DIR}/provpolConfig.cmake"
  INSTALL_DESTINATION "${PROVPOL_CMAKE_DIR}")
# Header-only: any architecture; a minor version adds, a major version may break.
write_basic_package_version_file(
  "${PROJECT_BINARY_DIR}/provpolConfigVersion.cmake"
  COMPATIBILITY SameMajorVersion
  ARCH_INDEPENDENT)
install(FILES "${PROJECT_BINARY_DIR}/provpolConfig.cmake" "${PROJECT_BINARY_DIR}/provpolConfigVersion.cmake"
        DESTINATION "${PROVPOL_CMAKE_DIR}")

# pkg-config: provpol.pc locates the prefix from its own directory, so `cmake --install --prefix` anywhere works.
if(IS_ABSOLUTE "${CMAKE_INSTALL_INCLUDEDIR}" OR IS_ABSOLUTE "${PROVPOL_PKGCONFIG_DIR}")
  message(FATAL_ERROR "provpol's install rules need relative CMAKE_INSTALL_INCLUDEDIR and PROVPOL_PKGCONFIG_DIR")
endif()
file(RELATIVE_PATH PROVPOL_PC_TO_PREFIX "/prefix/${PROVPOL_PKGCONFIG_DIR}" "/prefix")
string(REGEX REPLACE "/$" "" PROVPOL_PC_TO_PREFIX "${PROVPOL_PC_TO_PREFIX}")
configure_file("${PROJECT_SOURCE_DIR}/cmake/provpol.pc.in" "${PROJECT_BINARY_DIR}/provpol.pc" @ONLY)
install(FILES "${PROJECT_BINARY_DIR}/provpol.pc" DESTINATION "${PROVPOL_PKGCONFIG_DIR}")

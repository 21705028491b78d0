# SPDX-License-Identifier: MIT
# Install rules (included by the top CMakeLists.txt when GROVE_INSTALL is ON).
#
#   lib/libgrove.a or lib/libgrove.so.X.Y.Z (+ soname links)   include/grove.h, grove_mutate.h,
#                                                               grove_fuzz.h
#   lib/cmake/grove/   find_package(grove CONFIG) -> grove::grove
#   lib/pkgconfig/grove.pc                                      relocatable (${pcfiledir})
#   bin/grove, share/man/man1/grove.1, share/bash-completion/completions/grove (with GROVE_CLI;
#   shared: bin/grove finds libgrove.so through a RUNPATH relative to itself)
include(CMakePackageConfigHelpers)

install(TARGETS grove EXPORT groveTargets
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
  RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR}
  PUBLIC_HEADER DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
if(GROVE_CLI)
  if(GROVE_SHARED)
    # The installed tool finds libgrove.so beside it, wherever the prefix is: a RUNPATH
    # relative to the executable ($ORIGIN/../lib, or the multiarch lib/<triplet>).
    file(RELATIVE_PATH _grove_bin_to_lib "${CMAKE_INSTALL_FULL_BINDIR}" "${CMAKE_INSTALL_FULL_LIBDIR}")
    if(APPLE)
      set(_grove_origin "@loader_path")
    else()
      set(_grove_origin "$ORIGIN")
    endif()
    set_target_properties(grove-cli PROPERTIES INSTALL_RPATH "${_grove_origin}/${_grove_bin_to_lib}")
  endif()
  install(TARGETS grove-cli RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
  install(FILES ${PROJECT_SOURCE_DIR}/docs/grove.1 DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)
  install(FILES ${PROJECT_SOURCE_DIR}/tools/grove.bash
          DESTINATION ${CMAKE_INSTALL_DATADIR}/bash-completion/completions RENAME grove)
endif()
install(FILES ${PROJECT_SOURCE_DIR}/LICENSE ${PROJECT_SOURCE_DIR}/CHANGELOG.md
        DESTINATION ${CMAKE_INSTALL_DOCDIR})

# ---- CMake package ----
install(EXPORT groveTargets NAMESPACE grove:: DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/grove)
if(GROVE_SHARED)
  set(GROVE_CONFIG_SHARED TRUE)
else()
  set(GROVE_CONFIG_SHARED FALSE)
endif()
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/groveConfig.cmake.in
  ${PROJECT_BINARY_DIR}/groveConfig.cmake
  INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/grove)
# Before 1.0 a minor release may break compatibility (see CHANGELOG.md).
if(PROJECT_VERSION_MAJOR EQUAL 0)
  set(_grove_compat SameMinorVersion)
else()
  set(_grove_compat SameMajorVersion)
endif()
write_basic_package_version_file(${PROJECT_BINARY_DIR}/groveConfigVersion.cmake
  COMPATIBILITY ${_grove_compat})
install(FILES ${PROJECT_BINARY_DIR}/groveConfig.cmake ${PROJECT_BINARY_DIR}/groveConfigVersion.cmake
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/grove)

# ---- pkg-config ----
# The prefix is found from the .pc file's own place (${pcfiledir}), so the file stays right
# whatever --prefix / DESTDIR the install uses. An absolute LIBDIR/INCLUDEDIR is kept as given.
if(IS_ABSOLUTE "${CMAKE_INSTALL_LIBDIR}")
  set(GROVE_PC_PREFIX "${CMAKE_INSTALL_PREFIX}")
  set(GROVE_PC_LIBDIR "${CMAKE_INSTALL_LIBDIR}")
else()
  file(RELATIVE_PATH _grove_up "/grove-root/${CMAKE_INSTALL_LIBDIR}/pkgconfig" "/grove-root")
  string(REGEX REPLACE "/$" "" _grove_up "${_grove_up}")
  set(GROVE_PC_PREFIX "\${pcfiledir}/${_grove_up}")
  set(GROVE_PC_LIBDIR "\${prefix}/${CMAKE_INSTALL_LIBDIR}")
endif()
if(IS_ABSOLUTE "${CMAKE_INSTALL_INCLUDEDIR}")
  set(GROVE_PC_INCLUDEDIR "${CMAKE_INSTALL_INCLUDEDIR}")
else()
  set(GROVE_PC_INCLUDEDIR "\${prefix}/${CMAKE_INSTALL_INCLUDEDIR}")
endif()
# mimalloc ships no .pc file on Debian: it goes in as -lmimalloc. libxxhash has one.
if(GROVE_SHARED)
  # libgrove.so records its own dependencies: plain --libs is -lgrove; --static adds them.
  set(GROVE_PC_REQUIRES "Requires.private: libxxhash")
  set(GROVE_PC_LIBS "-L\${libdir} -lgrove")
  set(GROVE_PC_LIBS_PRIVATE "Libs.private: -lmimalloc -lm")
  set(GROVE_PC_CFLAGS "-I\${includedir}")
  set(GROVE_PC_CFLAGS_PRIVATE "Cflags.private: -DGROVE_STATIC")
else()
  # Only the static library is installed: plain --libs must link it, so Libs carries its
  # dependencies (and --static gives the same).
  set(GROVE_PC_REQUIRES "Requires: libxxhash")
  set(GROVE_PC_LIBS "-L\${libdir} -lgrove -lmimalloc -lm")
  set(GROVE_PC_LIBS_PRIVATE "")
  set(GROVE_PC_CFLAGS "-I\${includedir} -DGROVE_STATIC")
  set(GROVE_PC_CFLAGS_PRIVATE "")
endif()
configure_file(${PROJECT_SOURCE_DIR}/cmake/grove.pc.in ${PROJECT_BINARY_DIR}/grove.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/grove.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)

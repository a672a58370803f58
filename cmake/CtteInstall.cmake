# Install and package (docs/install.md): `cmake --install BUILD --prefix P` puts
#   P/bin/ctte-lab, P/bin/ctte-board                 the tools
#   P/lib/ctte-lab/images/<image>.{so,manifest.json} the clean images and the control mutants
#   P/lib/ctte-lab/workloads/*.elf (+ examples/)     the built-in RISC-V workloads
#   P/share/ctte-lab/campaigns/*.json (+ examples/)  the shipped campaign specs
#   P/share/doc/ctte-lab/                            README.md and docs/
# and ctte-lab finds images and workloads relative to its own executable
# (tools/ctte-lab/install_paths.h), so no build tree is needed. `cpack` (make package) turns the
# same tree into a Debian package whose dependencies dpkg-shlibdeps computes from the binaries.
include_guard(GLOBAL)

set(CTTE_INSTALL_PKGLIBDIR lib/ctte-lab)   # also compiled into ctte-lab (tools/CMakeLists.txt)
set(CTTE_INSTALL_DATADIR share/ctte-lab)
set(CTTE_INSTALL_DOCDIR share/doc/ctte-lab)

install(TARGETS ctte-lab ctte-board RUNTIME DESTINATION bin)

if(CTTE_BUILD_RTL)
  # The images are installed as the bytes that were built (install(FILES), not install(TARGETS),
  # which may rewrite an RPATH): the manifest's sha256 is the digest of the built file, and a
  # deploy checks it.
  foreach(t IN LISTS CTTE_INSTALL_IMAGE_TARGETS)
    get_target_property(_name ${t} OUTPUT_NAME)
    install(FILES $<TARGET_FILE:${t}> ${PROJECT_BINARY_DIR}/images/${_name}.manifest.json
            DESTINATION ${CTTE_INSTALL_PKGLIBDIR}/images)
  endforeach()
endif()

if(CTTE_BUILD_WORKLOADS)
  install(DIRECTORY ${PROJECT_BINARY_DIR}/workloads/ DESTINATION ${CTTE_INSTALL_PKGLIBDIR}/workloads
          FILES_MATCHING PATTERN "*.elf")
endif()

install(FILES ${PROJECT_SOURCE_DIR}/campaigns/smoke.json ${PROJECT_SOURCE_DIR}/campaigns/nightly.json
        DESTINATION ${CTTE_INSTALL_DATADIR}/campaigns)
install(FILES ${PROJECT_SOURCE_DIR}/campaigns/examples/rv32.json
        DESTINATION ${CTTE_INSTALL_DATADIR}/campaigns/examples)
install(FILES ${PROJECT_SOURCE_DIR}/README.md DESTINATION ${CTTE_INSTALL_DOCDIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/docs/ DESTINATION ${CTTE_INSTALL_DOCDIR}/docs)

# The Debian package: ctte-lab_<version>_<arch>.deb. The version is the project's, with the
# commit for a build of an untagged tree (0.1.0+g1a2b3c4), so two builds of different commits
# never share a version; `ctte-lab --version` prints the same version and the full commit.
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME ctte-lab)
set(CPACK_PACKAGE_VERSION ${CTTE_PACKAGE_VERSION})   # CMakeLists.txt
set(CPACK_PACKAGE_CONTACT "CTTE Lab <ctte-lab@localhost>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY
    "hardware-in-the-loop campaign runner for RISC-V trace encoders")
set(CPACK_PACKAGE_DESCRIPTION
    "CTTE Lab deploys hash-verified trace-encoder images to boards (simulated or FPGA), draws seeded cross-term configurations, captures the trace stream and judges every run against a reference model on eight verdicts. Results go to SQLite, with HTML, JUnit and CSV reports.")
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION devel)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_PACKAGE_DIRECTORY ${PROJECT_BINARY_DIR}/package)
include(CPack)

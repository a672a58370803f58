# ctte_warnings(target): our own warning set, -Werror when CTTE_WERROR is on.
# Never applied to generated Verilator code (see rtl/CMakeLists.txt).
function(ctte_warnings target)
  target_compile_options(${target} PRIVATE -Wall -Wextra -Wpedantic -Wshadow
                         -Wnon-virtual-dtor -Wcast-align -Wunused -Wnull-dereference
                         -Wimplicit-fallthrough
                         # GCC 12 reports false positives through std::variant/std::optional at -O3.
                         -Wno-maybe-uninitialized)
  if(CTTE_WERROR)
    target_compile_options(${target} PRIVATE -Werror)
  endif()
endfunction()

# ctte_library(name SOURCES ... DEPS ...): one library per folder.
function(ctte_library name)
  cmake_parse_arguments(ARG "" "" "SOURCES;DEPS;PUBLIC_DEPS" ${ARGN})
  add_library(${name} STATIC ${ARG_SOURCES})
  target_include_directories(${name} PUBLIC ${PROJECT_SOURCE_DIR})
  target_link_libraries(${name} PUBLIC ${ARG_PUBLIC_DEPS} PRIVATE ${ARG_DEPS})
  ctte_warnings(${name})
endfunction()

# ctte_test_code(target): a test executable's own code is compiled without optimization (-O0):
# about half the compile time of -O3 (#25, docs/testing.md), and the code under test is in the
# libraries, which keep the build type's flags. Sanitizer builds keep their -O1.
function(ctte_test_code target)
  if(NOT CTTE_SANITIZE)
    target_compile_options(${target} PRIVATE -O0)
  endif()
endfunction()

# ctte_unity_skip(file...): compile these sources of the current directory on their own, outside
# the unity batches (CTTE_UNITY_BUILD): their file-local names (helpers in an anonymous namespace)
# clash with another file's of the same target.
function(ctte_unity_skip)
  set_source_files_properties(${ARGN} DIRECTORY ${CMAKE_CURRENT_SOURCE_DIR}
                              PROPERTIES SKIP_UNITY_BUILD_INCLUSION ON)
endfunction()

# ctte_test(name SOURCES ... DEPS ... [TIER unit|board|e2e|campaign] [SUITE_TIERS Suite=tier...]
#           [LABELS ...] [TIMEOUT s] [IMAGE_SUITES suite...] [WHOLE_SUITES suite...]
#           [PROCESSORS n] [COST c]):
# one GoogleTest binary per module under ctest (docs/testing.md, "Tiers").
# - Every test carries its binary's name and its tier as labels. TIER is the binary's tier
#   (default unit); SUITE_TIERS gives single suites another one (Suite=tier, the GoogleTest suite
#   name, a parameterised suite without its instantiation prefix). The tiers: unit (host only,
#   no child process, no images: `make check`, the ASan pass), board (in-process simulated boards
#   or images), e2e (ctte-lab/ctte-board/other processes), campaign (whole campaigns).
# - IMAGE_SUITES name the suites that need the Verilator encoder images (label needs_images; a
#   binary whose every test needs them passes LABELS needs_images). CTTE_BUILD_RTL=OFF builds
#   skip them (ctest -LE needs_images).
# - WHOLE_SUITES run as ONE ctest each (NAME BINARY.Suite, --gtest_filter=Suite.*; a parameterised
#   suite is given with its prefix, Prefix/Suite, and named BINARY.Prefix_Suite) instead of one
#   process per TEST: for suites whose SetUpTestSuite is expensive (a soak, captures), which a
#   per-test ctest would repeat for every TEST. Their GoogleTest XML goes to
#   BUILD/test-xml/BINARY.Suite.xml, where scripts/check-skips polices their skips too.
# - PROCESSORS and COST apply to every ctest of the binary (ctest's scheduling).
function(ctte_test name)
  cmake_parse_arguments(ARG "" "TIMEOUT;TIER;PROCESSORS;COST"
                        "SOURCES;DEPS;LABELS;IMAGE_SUITES;WHOLE_SUITES;SUITE_TIERS" ${ARGN})
  add_executable(${name} ${ARG_SOURCES})
  set_target_properties(${name} PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${PROJECT_BINARY_DIR}/tests)
  target_link_libraries(${name} PRIVATE ${ARG_DEPS} GTest::gtest_main GTest::gmock)
  target_compile_definitions(${name} PRIVATE
    CTTE_SOURCE_DIR="${PROJECT_SOURCE_DIR}" CTTE_BINARY_DIR="${PROJECT_BINARY_DIR}")
  ctte_warnings(${name})
  ctte_test_code(${name})
  include(GoogleTest)
  if(NOT ARG_TIMEOUT)
    set(ARG_TIMEOUT 300)
  endif()
  if(NOT ARG_TIER)
    set(ARG_TIER unit)
  endif()
  set(_props TIMEOUT ${ARG_TIMEOUT})
  if(ARG_PROCESSORS)
    list(APPEND _props PROCESSORS ${ARG_PROCESSORS})
  endif()
  if(ARG_COST)
    list(APPEND _props COST ${ARG_COST})
  endif()
  # The tier of suite S: its SUITE_TIERS entry, else the binary's.
  set(_tier_cases "")
  foreach(st IN LISTS ARG_SUITE_TIERS)
    if(NOT st MATCHES "^([A-Za-z0-9_]+)=(unit|board|e2e|campaign)$")
      message(FATAL_ERROR "ctte_test(${name}): SUITE_TIERS entry '${st}' is not Suite=unit|board|e2e|campaign")
    endif()
    string(APPEND _tier_cases
      "  if(t MATCHES [==[^([A-Za-z0-9_]+/)?${CMAKE_MATCH_1}\\.]==])\n"
      "    set(tier ${CMAKE_MATCH_2})\n"
      "  endif()\n")
  endforeach()
  set(_filter "")
  if(ARG_WHOLE_SUITES)
    list(TRANSFORM ARG_WHOLE_SUITES APPEND ".*" OUTPUT_VARIABLE _whole_globs)
    list(JOIN _whole_globs ":" _filter)
    set(_filter TEST_FILTER "-${_filter}")
  endif()
  gtest_discover_tests(${name} WORKING_DIRECTORY ${PROJECT_BINARY_DIR} TEST_LIST ${name}_TESTS
                       ${_filter} PROPERTIES ${_props} DISCOVERY_TIMEOUT 60)
  # Labels are set by a script that ctest runs after the discovered tests are added (CMake 3.25's
  # gtest_discover_tests PROPERTIES cannot carry a list value such as two labels).
  set(_labels ${name} ${ARG_LABELS})
  set(_images_re "^$")
  if(ARG_IMAGE_SUITES)
    list(JOIN ARG_IMAGE_SUITES "|" _suites)
    set(_images_re "^([A-Za-z0-9_]+/)?(${_suites})\\.")
  endif()
  set(_script ${CMAKE_CURRENT_BINARY_DIR}/${name}_labels.cmake)
  file(WRITE ${_script}
    "foreach(t IN LISTS ${name}_TESTS)\n"
    "  set(tier ${ARG_TIER})\n"
    "${_tier_cases}"
    "  set(labels [==[${_labels}]==] \${tier})\n"
    "  if(t MATCHES [==[${_images_re}]==])\n"
    "    list(APPEND labels needs_images)\n"
    "  endif()\n"
    "  set_tests_properties(\"\${t}\" PROPERTIES LABELS \"\${labels}\")\n"
    "endforeach()\n")
  set_property(DIRECTORY APPEND PROPERTY TEST_INCLUDE_FILES ${_script})
  # The whole suites: one ctest each, labelled like their tests would be.
  foreach(suite IN LISTS ARG_WHOLE_SUITES)
    set(_tier ${ARG_TIER})
    foreach(st IN LISTS ARG_SUITE_TIERS)
      if(st MATCHES "^${suite}=(.*)$")
        set(_tier ${CMAKE_MATCH_1})
      endif()
    endforeach()
    set(_l ${_labels} ${_tier})
    if(suite IN_LIST ARG_IMAGE_SUITES)
      list(APPEND _l needs_images)
    endif()
    # A parameterised suite (Prefix/Suite) is named and written with '_' for '/'.
    string(REPLACE "/" "_" _safe "${suite}")
    add_test(NAME ${name}.${_safe}
             COMMAND ${name} --gtest_filter=${suite}.*
                     --gtest_output=xml:${PROJECT_BINARY_DIR}/test-xml/${name}.${_safe}.xml
             WORKING_DIRECTORY ${PROJECT_BINARY_DIR})
    set_tests_properties(${name}.${_safe} PROPERTIES ${_props} LABELS "${_l}")
  endforeach()
endfunction()

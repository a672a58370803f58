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

# ctte_test(name SOURCES ... DEPS ... [LABELS ...] [TIMEOUT s] [IMAGE_SUITES suite...]): one
# GoogleTest binary per module under ctest. Every test carries its binary's name as a label
# (scripts/test-asan selects by it). A binary whose every test needs the Verilator encoder images
# passes LABELS needs_images; IMAGE_SUITES names the GoogleTest suites of a binary that need
# them, and only their tests get the label. scripts/test-asan, built with CTTE_BUILD_RTL=OFF,
# excludes the label (ctest -LE needs_images).
function(ctte_test name)
  cmake_parse_arguments(ARG "" "TIMEOUT" "SOURCES;DEPS;LABELS;IMAGE_SUITES" ${ARGN})
  add_executable(${name} ${ARG_SOURCES})
  set_target_properties(${name} PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${PROJECT_BINARY_DIR}/tests)
  target_link_libraries(${name} PRIVATE ${ARG_DEPS} GTest::gtest_main GTest::gmock)
  target_compile_definitions(${name} PRIVATE
    CTTE_SOURCE_DIR="${PROJECT_SOURCE_DIR}" CTTE_BINARY_DIR="${PROJECT_BINARY_DIR}")
  ctte_warnings(${name})
  include(GoogleTest)
  if(NOT ARG_TIMEOUT)
    set(ARG_TIMEOUT 300)
  endif()
  gtest_discover_tests(${name} WORKING_DIRECTORY ${PROJECT_BINARY_DIR} TEST_LIST ${name}_TESTS
                       PROPERTIES TIMEOUT ${ARG_TIMEOUT} DISCOVERY_TIMEOUT 60)
  # Labels are set by a script that ctest runs after the discovered tests are added (CMake 3.25's
  # gtest_discover_tests PROPERTIES cannot carry a list value such as two labels).
  set(_labels ${name} ${ARG_LABELS})
  set(_script ${CMAKE_CURRENT_BINARY_DIR}/${name}_labels.cmake)
  if(ARG_IMAGE_SUITES)
    list(JOIN ARG_IMAGE_SUITES "|" _suites)
    file(WRITE ${_script}
      "foreach(t IN LISTS ${name}_TESTS)\n"
      "  if(t MATCHES [==[^(${_suites})\\.]==])\n"
      "    set_tests_properties(\"\${t}\" PROPERTIES LABELS [==[${_labels};needs_images]==])\n"
      "  else()\n"
      "    set_tests_properties(\"\${t}\" PROPERTIES LABELS [==[${_labels}]==])\n"
      "  endif()\n"
      "endforeach()\n")
  else()
    file(WRITE ${_script}
      "foreach(t IN LISTS ${name}_TESTS)\n"
      "  set_tests_properties(\"\${t}\" PROPERTIES LABELS [==[${_labels}]==])\n"
      "endforeach()\n")
  endif()
  set_property(DIRECTORY APPEND PROPERTY TEST_INCLUDE_FILES ${_script})
endfunction()

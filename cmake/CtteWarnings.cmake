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

# ctte_test(name SOURCES ... DEPS ...): one GoogleTest binary per module under ctest.
function(ctte_test name)
  cmake_parse_arguments(ARG "" "TIMEOUT" "SOURCES;DEPS;LABELS" ${ARGN})
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
  # Every test carries its binary's name as a label (scripts/test-asan selects by it).
  gtest_discover_tests(${name} WORKING_DIRECTORY ${PROJECT_BINARY_DIR}
                       PROPERTIES TIMEOUT ${ARG_TIMEOUT} LABELS "${name};${ARG_LABELS}"
                       DISCOVERY_TIMEOUT 60)
endfunction()

# runner/soak.{h,cc}, soak_boards.{h,cc}: the soak runner over runner/execute (issue 7).
# Included from runner/CMakeLists.txt after execute.cmake.
target_sources(ctte_runner PRIVATE ${CMAKE_CURRENT_LIST_DIR}/soak.cc
                                   ${CMAKE_CURRENT_LIST_DIR}/soak_boards.cc)
target_link_libraries(ctte_runner PRIVATE Threads::Threads)

# runner/execute.{h,cc}: one run from config to verdicts (issue 6). Included from
# runner/CMakeLists.txt; needs the oracle, the lab (boards) and the db records.
target_sources(ctte_runner PRIVATE ${CMAKE_CURRENT_LIST_DIR}/execute.cc)
target_link_libraries(ctte_runner PUBLIC ctte_oracle ctte_lab ctte_db
                      PRIVATE nlohmann_json::nlohmann_json)

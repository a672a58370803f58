# The layout as the build declares it (issue #29; docs/testing.md "Layout check"): after every
# folder is added, write each project library and executable with the libraries it links
# (LINK_LIBRARIES, PUBLIC and PRIVATE alike) and the folder that declares it, one per line:
#   TARGET<TAB>FOLDER<TAB>DEP;DEP;...
# to ${CMAKE_BINARY_DIR}/layout-links.tsv. tests/layout/layout_check.py reads it and fails when a
# library links one of a folder above it (the folder order is in that script).
function(ctte_write_layout)
  set(lines "")
  get_property(dirs GLOBAL PROPERTY CTTE_LAYOUT_DIRS)
  foreach(dir ${dirs})
    get_property(targets DIRECTORY ${dir} PROPERTY BUILDSYSTEM_TARGETS)
    file(RELATIVE_PATH rel ${PROJECT_SOURCE_DIR} ${dir})
    foreach(t ${targets})
      get_target_property(type ${t} TYPE)
      if(type STREQUAL "UTILITY")
        continue()
      endif()
      get_target_property(links ${t} LINK_LIBRARIES)
      if(NOT links)
        set(links "")
      endif()
      if(type STREQUAL "INTERFACE_LIBRARY")
        get_target_property(links ${t} INTERFACE_LINK_LIBRARIES)
        if(NOT links)
          set(links "")
        endif()
      endif()
      string(APPEND lines "${t}\t${rel}\t${links}\n")
    endforeach()
  endforeach()
  file(WRITE ${CMAKE_BINARY_DIR}/layout-links.tsv "${lines}")
endfunction()

# Every folder of the source tree that declares targets, recursively.
function(ctte_collect_dirs dir)
  set_property(GLOBAL APPEND PROPERTY CTTE_LAYOUT_DIRS ${dir})
  get_property(subdirs DIRECTORY ${dir} PROPERTY SUBDIRECTORIES)
  foreach(s ${subdirs})
    ctte_collect_dirs(${s})
  endforeach()
endfunction()

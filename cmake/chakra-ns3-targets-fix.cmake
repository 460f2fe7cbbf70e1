# Debian's ns-3 package config names include directories and libraries that a fresh machine may
# not have (libxml2, python, gsl, sqlite headers and .so links). Its shared libraries carry their
# own runtime dependencies, so after find_package(ns3) drop whatever does not exist instead of
# installing those packages. Used by this module's CMakeLists.txt and by its installed package
# configuration (chakra-ns3Config.cmake), so that projects using the module build on the same
# fresh machine.
function(chakra_drop_missing_ns3_paths)
  foreach(ns3_module core network internet point-to-point applications stats mobility bridge
                     traffic-control config-store)
    set(target ns3::lib${ns3_module})
    if(NOT TARGET ${target})
      continue()
    endif()
    foreach(property INTERFACE_INCLUDE_DIRECTORIES INTERFACE_LINK_LIBRARIES)
      get_target_property(values ${target} ${property})
      if(NOT values)
        continue()
      endif()
      set(kept)
      foreach(value ${values})
        if(value MATCHES "^/" AND NOT EXISTS "${value}")
          continue()
        endif()
        list(APPEND kept "${value}")
      endforeach()
      set_target_properties(${target} PROPERTIES ${property} "${kept}")
    endforeach()
  endforeach()
endfunction()

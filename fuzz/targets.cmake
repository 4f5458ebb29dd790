# One target per fuzz/<name>_fuzz.cc; its seed corpus is fuzz/corpus/<name>_fuzz/.
file(GLOB fuzz_sources CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/*_fuzz.cc)
foreach(source ${fuzz_sources})
  get_filename_component(name ${source} NAME_WE)
  kopt_add_fuzz_target(${name} ${source})
endforeach()

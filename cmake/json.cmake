# ---- libbotwire_json: `botwire decode/encode` as a library (botwire/json.h) ----
# The command's own JSON writers and readers (tools/json/, tools/cli.c) in a
# shared library of their own, for programs and the Python package: the
# text is the command's, byte for byte. Apart from libbotwire, whose codec
# core stays dependency-free; this one needs jansson. Only bw_json_* is
# exported: the command's helpers stay inside (hidden visibility).
add_library(botwire_json SHARED
    tools/json/api.c tools/json/jw.c tools/json/kobuki.c tools/json/p2os.c tools/json/lobot.c
    tools/json/create.c tools/json/rbsm.c tools/json/rflex.c tools/cli.c)
target_compile_options(botwire_json PRIVATE ${BW_WARNINGS} -fvisibility=hidden)
target_compile_definitions(botwire_json PRIVATE _GNU_SOURCE)
target_link_libraries(botwire_json PRIVATE botwire_shared PkgConfig::JANSSON)
if(NOT BW_SANITIZE AND NOT BW_FUZZ)
  # A symbol the command's files take from elsewhere in tools/ fails here,
  # not when a program loads the library.
  target_link_options(botwire_json PRIVATE -Wl,--no-undefined)
endif()
# Installed beside libbotwire, which it finds there ($ORIGIN).
set_target_properties(botwire_json PROPERTIES VERSION ${PROJECT_VERSION} SOVERSION 0
                      INSTALL_RPATH "$ORIGIN")
install(TARGETS botwire_json LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})

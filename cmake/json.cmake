# ---- libbotwire_json: the messages' text form as a library (botwire/json.h) ----
# The text layer (src/text/) and the record reader it uses (src/record/) in a
# shared library of their own, for programs and the Python package: the
# text is the command's, byte for byte. Apart from libbotwire, whose codec
# core stays dependency-free; this one needs jansson. Only bw_json_* is
# exported: the layers' helpers stay inside (hidden visibility).
add_library(botwire_json SHARED $<TARGET_OBJECTS:botwire_text> $<TARGET_OBJECTS:botwire_record>)
target_link_libraries(botwire_json PRIVATE botwire_shared PkgConfig::JANSSON PkgConfig::ZSTD PkgConfig::LZ4
                      PkgConfig::ZLIB)
if(NOT BW_SANITIZE AND NOT BW_FUZZ)
  # A symbol the layers take from elsewhere fails here, not when a program
  # loads the library.
  target_link_options(botwire_json PRIVATE -Wl,--no-undefined)
endif()
# Installed beside libbotwire, which it finds there ($ORIGIN).
set_target_properties(botwire_json PROPERTIES VERSION ${PROJECT_VERSION} SOVERSION 0
                      INSTALL_RPATH "$ORIGIN")
install(TARGETS botwire_json LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})

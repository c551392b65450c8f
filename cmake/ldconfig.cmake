# Run by `make install`: a library installed where the dynamic linker looks
# (/usr/local/lib on Debian) is found only once the linker's cache knows it,
# so the cache is refreshed when installing there as root. Elsewhere programs
# find it by the rpath pkg-config gives them (botwire.pc).
set(libdir "${CMAKE_INSTALL_PREFIX}/${BW_LIBDIR}")
if("$ENV{DESTDIR}" STREQUAL "")
  execute_process(COMMAND sh -c "ldconfig -v -N 2>/dev/null | grep -q '^${libdir}:'"
                  RESULT_VARIABLE searched)
  if(searched EQUAL 0)
    execute_process(COMMAND ldconfig RESULT_VARIABLE rc OUTPUT_QUIET ERROR_QUIET)
    if(rc EQUAL 0)
      message(STATUS "Refreshed the dynamic linker's cache for ${libdir}")
    else()
      message(STATUS "Run ldconfig as root so that programs find ${libdir}/libbotwire.so")
    endif()
  endif()
endif()

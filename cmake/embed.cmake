# Writes the built-in page of the live view (IN) into a C file (OUT) as the
# bytes bw_view_page[bw_view_page_len], so the tool serves it from the
# build tree or wherever it is installed, with no path to find.
file(READ ${IN} hex HEX)
string(LENGTH "${hex}" n)
math(EXPR len "${n} / 2")
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," bytes "${hex}")
string(REGEX REPLACE "((0x..,){24})" "\\1\n" bytes "${bytes}")
file(WRITE ${OUT} "/* Generated from web/view.html by cmake/embed.cmake: do not edit. */\n"
     "#include <stddef.h>\n"
     "extern const unsigned char bw_view_page[];\n"
     "extern const size_t bw_view_page_len;\n"
     "const unsigned char bw_view_page[] = {\n${bytes}\n0 };\n"
     "const size_t bw_view_page_len = ${len};\n")

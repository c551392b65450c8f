/*
 * The decoder's columns (BW_JSON_COLUMNS, columns.c): what the writers of
 * src/text/ (jw.c) put out member by member goes here instead of into
 * text. columns.c reads field descriptors itself (jw_field_value below)
 * and calls nothing of jw.c, so the two do not call into each other. Not
 * part of any API.
 */
#ifndef BOTWIRE_TEXT_COLUMNS_H
#define BOTWIRE_TEXT_COLUMNS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "botwire/json.h"
#include "botwire/wire.h"

typedef struct jc jc_t;
jc_t *jc_new(void);
void jc_free(jc_t *j);
/* Whether a message came that the columns cannot hold (*why: the reason). */
bool jc_failed(const jc_t *j, const char **why);
void jc_msg_begin(jc_t *j, const char *type);
void jc_key(jc_t *j, const char *key);
void jc_int(jc_t *j, int64_t v);
void jc_real(jc_t *j, double v);
void jc_bool(jc_t *j, bool v);
/* tag 's' a string, 'h' bytes shown as hex */
void jc_text(jc_t *j, char tag, const void *s, size_t n);
void jc_open(jc_t *j, char c);
void jc_close(jc_t *j, char c);
void jc_fields(jc_t *j, const bw_field_t *fields, size_t n, const void *base);
size_t jc_count(const jc_t *j);
size_t jc_types(const jc_t *j);
const char *jc_type(const jc_t *j, size_t i, size_t *rows);
int jc_column(jc_t *j, size_t i, bw_json_column_t *out);

/* A field's value at p, of type (bw_ftype_t), as an integer. */
static inline int64_t jw_field_value(const uint8_t *p, uint8_t type)
{
    switch (type) {
    case BW_FT_U8: return *p;
    case BW_FT_I8: return (int8_t)*p;
    case BW_FT_U16: { uint16_t v; memcpy(&v, p, 2); return v; }
    case BW_FT_I16: { int16_t v; memcpy(&v, p, 2); return v; }
    case BW_FT_U32: { uint32_t v; memcpy(&v, p, 4); return v; }
    case BW_FT_I32: { int32_t v; memcpy(&v, p, 4); return v; }
    default: return 0;
    }
}

#endif

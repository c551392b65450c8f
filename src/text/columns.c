/*
 * The decoder's messages as columns (BW_JSON_COLUMNS, botwire/json.h): the
 * writers of src/text/ call these instead of writing text, member by
 * member, so the columns hold what the text would say. Per message type,
 * per member, a value per message of the type: integers int64, reals
 * double, booleans a byte, strings their bytes with each row's end, arrays
 * of integers (and arrays of such arrays) their integers one after another
 * with each row's length. A member a message leaves out is marked in the
 * column's `present` (made at the first such). A message inside another's
 * array (a Create stream's packets) is a row of its own type, with the "t"
 * and "from" of the message that holds it. Descriptor tables (jw_fields)
 * go straight from the struct into the columns by a plan made once per
 * table and type.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "columns.h"

#define DEPTH 16
#define CHILDREN 4096

typedef struct {
    uint8_t *p;
    size_t len, cap;
} jc_buf_t;

typedef struct {
    const char *key;
    char kind;       /* 0 none yet, 'i' 'r' 'b' 's' 'a' */
    int depth;       /* 'a': 1, or 2 for arrays of arrays */
    jc_buf_t vals;   /* i r b: a value per row; s: the bytes; a: the integers */
    jc_buf_t ends;   /* s: int64 end of each row's bytes */
    jc_buf_t tags;   /* s: a tag per row ('s' 'h', or 'i' 'r' 'b' as text) */
    jc_buf_t lens;   /* a: int32 elements per row */
    jc_buf_t inner;  /* a, depth 2: int32 integers of each inner array */
    jc_buf_t present; /* a byte per row; empty while every row has it */
    size_t rows;
} jc_col_t;

typedef struct {
    const char *type;
    jc_col_t **cols;
    size_t n, cap, cursor; /* cursor: where the next key usually is */
    size_t rows;
    /* jw_fields' plan: the column of each field of the table last seen */
    const bw_field_t *plan_of;
    size_t plan_n;
    jc_col_t **plan;
    size_t plan_cursor; /* where the keys after the fields usually are */
} jc_table_t;

typedef struct {
    jc_table_t *table;
    size_t row;
    jc_col_t *col; /* the member whose value comes next */
    bool t_set;
    double t;
    const char *t_key, *from_key;
    char from[16];
    size_t from_len;
    bool from_set;
    bool msg_array;     /* its member's array holds messages */
    size_t first_child;
} jc_msg_t;

struct jc {
    jc_table_t **tables;
    size_t n, cap;
    jc_msg_t msgs[DEPTH];
    int nmsgs;
    int arr;          /* arrays open in a member's value: 0, 1 or 2 */
    jc_col_t *arr_col;
    int32_t n_outer, n_inner;
    struct {
        jc_table_t *table;
        size_t row;
    } children[CHILDREN];
    size_t nchildren;
    bool failed;
    char why[160];
};

static bool fail(jc_t *j, const char *why, const char *name)
{
    if (!j->failed)
        snprintf(j->why, sizeof j->why, "%s%s%s", why, name ? ": " : "", name ? name : "");
    j->failed = true;
    return false;
}

static bool grow(jc_t *j, jc_buf_t *b, size_t n)
{
    if (b->len + n <= b->cap)
        return true;
    size_t cap = b->cap ? b->cap : 4096;
    while (cap < b->len + n)
        cap *= 2;
    uint8_t *p = realloc(b->p, cap);
    if (!p)
        return fail(j, "out of memory", NULL);
    b->p = p;
    b->cap = cap;
    return true;
}

static inline bool put(jc_t *j, jc_buf_t *b, const void *v, size_t n)
{
    if (b->len + n > b->cap && !grow(j, b, n))
        return false;
    memcpy(b->p + b->len, v, n);
    b->len += n;
    return true;
}

static bool put_zeros(jc_t *j, jc_buf_t *b, size_t n)
{
    if (!grow(j, b, n))
        return false;
    memset(b->p + b->len, 0, n);
    b->len += n;
    return true;
}

jc_t *jc_new(void)
{
    return calloc(1, sizeof(jc_t));
}

static void col_free(jc_col_t *c)
{
    free(c->vals.p);
    free(c->ends.p);
    free(c->tags.p);
    free(c->lens.p);
    free(c->inner.p);
    free(c->present.p);
    free(c);
}

void jc_free(jc_t *j)
{
    if (!j)
        return;
    for (size_t i = 0; i < j->n; i++) {
        for (size_t k = 0; k < j->tables[i]->n; k++)
            col_free(j->tables[i]->cols[k]);
        free(j->tables[i]->cols);
        free(j->tables[i]->plan);
        free(j->tables[i]);
    }
    free(j->tables);
    free(j);
}

bool jc_failed(const jc_t *j, const char **why)
{
    *why = j->why;
    return j->failed;
}

static jc_table_t *table_for(jc_t *j, const char *type)
{
    for (size_t i = 0; i < j->n; i++) /* few types: the last ones first */
        if (j->tables[j->n - 1 - i]->type == type)
            return j->tables[j->n - 1 - i];
    for (size_t i = 0; i < j->n; i++) /* the same name at another address */
        if (!strcmp(j->tables[i]->type, type))
            return j->tables[i];
    if (j->n == j->cap) {
        size_t cap = j->cap ? 2 * j->cap : 16;
        jc_table_t **t = realloc(j->tables, cap * sizeof *t);
        if (!t)
            return fail(j, "out of memory", NULL), NULL;
        j->tables = t;
        j->cap = cap;
    }
    jc_table_t *t = calloc(1, sizeof *t);
    if (!t)
        return fail(j, "out of memory", NULL), NULL;
    t->type = type;
    j->tables[j->n++] = t;
    return t;
}

static jc_col_t *col_for(jc_t *j, jc_table_t *t, const char *key)
{
    if (t->cursor < t->n && t->cols[t->cursor]->key == key)
        return t->cols[t->cursor++];
    for (size_t i = 0; i < t->n; i++)
        if (t->cols[i]->key == key || !strcmp(t->cols[i]->key, key)) {
            t->cursor = i + 1;
            return t->cols[i];
        }
    if (t->n == t->cap) {
        size_t cap = t->cap ? 2 * t->cap : 16;
        jc_col_t **c = realloc(t->cols, cap * sizeof *c);
        if (!c)
            return fail(j, "out of memory", NULL), NULL;
        t->cols = c;
        t->cap = cap;
    }
    jc_col_t *c = calloc(1, sizeof *c);
    if (!c)
        return fail(j, "out of memory", NULL), NULL;
    c->key = key;
    t->cols[t->n++] = c;
    t->cursor = t->n;
    return c;
}

static size_t kind_size(char kind)
{
    return kind == 'b' ? 1 : kind == 'i' || kind == 'r' ? 8 : 0;
}

/* Rows before row, left out. */
static bool fill(jc_t *j, jc_col_t *c, size_t row)
{
    if (c->rows >= row)
        return true;
    size_t n = row - c->rows;
    if (c->present.len < c->rows) { /* the first left out: every row before had it */
        size_t had = c->rows - c->present.len;
        if (!grow(j, &c->present, had))
            return false;
        memset(c->present.p + c->present.len, 1, had);
        c->present.len += had;
    }
    if (!put_zeros(j, &c->present, n))
        return false;
    bool ok = true;
    switch (c->kind) {
    case 'i':
    case 'r':
    case 'b': ok = put_zeros(j, &c->vals, n * kind_size(c->kind)); break;
    case 'a': ok = put_zeros(j, &c->lens, 4 * n); break;
    case 's':
        for (size_t i = 0; ok && i < n; i++) {
            int64_t end = (int64_t)c->vals.len;
            ok = put(j, &c->ends, &end, 8) && put_zeros(j, &c->tags, 1);
        }
        break;
    default: break; /* no kind yet: made when it has one */
    }
    c->rows = row;
    return ok;
}

/* A number or boolean as the text the JSON has (a member of mixed kinds). */
static bool text_of(jc_t *j, jc_col_t *c, char kind, const uint8_t *v)
{
    char buf[40];
    int n = 0;
    if (kind == 'i') {
        int64_t x;
        memcpy(&x, v, 8);
        n = snprintf(buf, sizeof buf, "%lld", (long long)x);
    } else if (kind == 'r') {
        double x;
        memcpy(&x, v, 8);
        n = snprintf(buf, sizeof buf, "%.17g", x);
    } else {
        n = snprintf(buf, sizeof buf, "%s", *v ? "true" : "false");
    }
    int64_t end = (int64_t)(c->vals.len + (size_t)n);
    return put(j, &c->vals, buf, (size_t)n) && put(j, &c->ends, &end, 8) &&
           put(j, &c->tags, &kind, 1);
}

/* A column of numbers made strings, for a string in it. */
static bool to_text(jc_t *j, jc_col_t *c)
{
    jc_buf_t old = c->vals;
    size_t size = kind_size(c->kind);
    char kind = c->kind;
    c->vals = (jc_buf_t){ 0 };
    c->kind = 's';
    bool ok = true;
    for (size_t i = 0; ok && i < c->rows; i++) {
        if (c->present.len && !c->present.p[i]) {
            int64_t end = (int64_t)c->vals.len;
            ok = put(j, &c->ends, &end, 8) && put_zeros(j, &c->tags, 1);
        } else {
            ok = text_of(j, c, kind, old.p + i * size);
        }
    }
    free(old.p);
    return ok;
}

/* c ready for row's value of kind. */
static bool begin(jc_t *j, jc_col_t *c, size_t row, char kind)
{
    if (c->rows > row)
        return fail(j, "a member twice in one message", c->key);
    if (c->kind == 0) {
        /* rows left out before its first value: in its kind's form now */
        size_t rows = c->rows;
        c->kind = kind;
        c->rows = 0;
        c->present.len = 0;
        if (rows && !fill(j, c, rows))
            return false;
    } else if (c->kind != kind) {
        if (c->kind == 'a' || kind == 'a')
            return fail(j, "a member that is an array in some messages and not in others",
                        c->key);
        if (c->kind != 's' && kind == 's' && !to_text(j, c))
            return false;
    }
    if (!fill(j, c, row))
        return false;
    if (c->present.len && !put(j, &c->present, "\1", 1))
        return false;
    c->rows = row + 1;
    return true;
}

static void scalar(jc_t *j, jc_col_t *c, size_t row, char kind, const void *v)
{
    if (c->kind == kind && c->rows == row && !c->present.len) { /* the usual case */
        put(j, &c->vals, v, kind_size(kind));
        c->rows++;
        return;
    }
    if (!begin(j, c, row, kind))
        return;
    if (c->kind == 's')
        text_of(j, c, kind, v);
    else
        put(j, &c->vals, v, kind_size(kind));
}

static jc_msg_t *top(jc_t *j)
{
    return j->nmsgs ? &j->msgs[j->nmsgs - 1] : NULL;
}

/* The column of the value that comes next (its key taken). */
static jc_col_t *value_col(jc_t *j, const char *what)
{
    jc_msg_t *m = top(j);
    if (!m || !m->col) {
        fail(j, what, NULL);
        return NULL;
    }
    jc_col_t *c = m->col;
    m->col = NULL;
    return c;
}

void jc_msg_begin(jc_t *j, const char *type)
{
    if (j->failed)
        return;
    if (j->nmsgs == DEPTH)
        return (void)fail(j, "messages nested too deep", type);
    if (j->arr) {
        if (j->arr != 1 || j->n_outer)
            return (void)fail(j, "a message among an array's numbers", type);
        top(j)->msg_array = true;
        j->arr = 0; /* its messages are rows of their own */
    }
    jc_table_t *t = table_for(j, type);
    if (!t)
        return;
    t->cursor = 0;
    j->msgs[j->nmsgs++] = (jc_msg_t){ .table = t, .row = t->rows++, .first_child = j->nchildren };
}

void jc_key(jc_t *j, const char *key)
{
    jc_msg_t *m = top(j);
    if (j->failed)
        return;
    if (!m || j->arr)
        return (void)fail(j, "a key outside a message", key);
    m->col = col_for(j, m->table, key);
}

void jc_int(jc_t *j, int64_t v)
{
    if (j->failed)
        return;
    if (j->arr) {
        if (j->arr == 2)
            j->n_inner++;
        else
            j->n_outer++;
        put(j, &j->arr_col->vals, &v, 8);
        return;
    }
    jc_col_t *c = value_col(j, "a number outside a message");
    if (c)
        scalar(j, c, top(j)->row, 'i', &v);
}

void jc_real(jc_t *j, double v)
{
    jc_msg_t *m = top(j);
    if (j->failed)
        return;
    if (j->arr)
        return (void)fail(j, "a real in an array", NULL);
    jc_col_t *c = value_col(j, "a real outside a message's member");
    if (!c)
        return;
    if (!strcmp(c->key, "t")) {
        m->t = v;
        m->t_set = true;
        m->t_key = c->key;
    }
    scalar(j, c, m->row, 'r', &v);
}

void jc_bool(jc_t *j, bool v)
{
    uint8_t b = v;
    if (j->failed)
        return;
    if (j->arr)
        return (void)fail(j, "a boolean in an array", NULL);
    jc_col_t *c = value_col(j, "a boolean outside a message's member");
    if (!c)
        return;
    scalar(j, c, top(j)->row, 'b', &b);
}

void jc_text(jc_t *j, char tag, const void *s, size_t n)
{
    jc_msg_t *m = top(j);
    if (j->failed)
        return;
    if (j->arr)
        return (void)fail(j, "a string in an array", NULL);
    jc_col_t *c = value_col(j, "a string outside a message's member");
    if (!c)
        return;
    if (tag == 's' && !strcmp(c->key, "from") && n < sizeof m->from) {
        memcpy(m->from, s, n);
        m->from_len = n;
        m->from_set = true;
        m->from_key = c->key;
    }
    if (!begin(j, c, m->row, 's'))
        return;
    int64_t end = (int64_t)(c->vals.len + n);
    if (put(j, &c->vals, s, n) && put(j, &c->ends, &end, 8))
        put(j, &c->tags, &tag, 1);
}

void jc_open(jc_t *j, char c)
{
    jc_msg_t *m = top(j);
    if (j->failed)
        return;
    if (c == '{')
        return (void)fail(j, "an object that is not a message", NULL);
    if (j->arr == 0) {
        if (!m || !m->col)
            return (void)fail(j, "an array outside a message's member", NULL);
        j->arr = 1;
        j->arr_col = m->col;
        j->n_outer = 0;
        if (j->arr_col->kind && j->arr_col->kind != 'a')
            return (void)fail(j, "a member that is an array in some messages and not in others",
                              j->arr_col->key);
        return;
    }
    if (j->arr == 2)
        return (void)fail(j, "arrays nested deeper than two", j->arr_col->key);
    j->arr = 2;
    j->n_inner = 0;
}

static void msg_end(jc_t *j)
{
    jc_msg_t *m = &j->msgs[--j->nmsgs];
    /* the messages it holds: its t and from */
    for (size_t i = m->first_child; i < j->nchildren; i++) {
        jc_table_t *t = j->children[i].table;
        size_t row = j->children[i].row;
        jc_col_t *c;
        if (m->t_set && (c = col_for(j, t, m->t_key)) && begin(j, c, row, 'r'))
            put(j, &c->vals, &m->t, 8);
        if (m->from_set && (c = col_for(j, t, m->from_key)) && begin(j, c, row, 's')) {
            int64_t end = (int64_t)(c->vals.len + m->from_len);
            char tag = 's';
            if (put(j, &c->vals, m->from, m->from_len) && put(j, &c->ends, &end, 8))
                put(j, &c->tags, &tag, 1);
        }
    }
    j->nchildren = m->first_child;
    if (j->nmsgs) { /* held by the message below: its t and from come later */
        if (j->nchildren == CHILDREN)
            return (void)fail(j, "too many messages in one", NULL);
        j->children[j->nchildren].table = m->table;
        j->children[j->nchildren++].row = m->row;
    }
}

void jc_close(jc_t *j, char c)
{
    jc_msg_t *m = top(j);
    if (j->failed)
        return;
    if (c == '}') {
        if (!m || j->arr)
            return (void)fail(j, "an end with no message open", NULL);
        msg_end(j);
        return;
    }
    if (j->arr == 0 && m && m->msg_array) { /* an array of messages: no column of its own */
        m->msg_array = false;
        m->col = NULL;
        return;
    }
    if (j->arr == 2) {
        j->arr = 1;
        j->n_outer++;
        put(j, &j->arr_col->inner, &j->n_inner, 4);
        return;
    }
    if (j->arr != 1 || !m)
        return (void)fail(j, "an end with no array open", NULL);
    jc_col_t *col = j->arr_col;
    j->arr = 0;
    int depth = j->n_outer == 0 ? 0 : col->inner.len ? 2 : 1;
    if (col->depth && depth && col->depth != depth)
        return (void)fail(j, "a member that is an array of arrays in some messages only", col->key);
    if (depth)
        col->depth = depth;
    m->col = NULL;
    if (begin(j, col, m->row, 'a'))
        put(j, &col->lens, &j->n_outer, 4);
}

void jc_fields(jc_t *j, const bw_field_t *fields, size_t n, const void *base)
{
    jc_msg_t *m = top(j);
    if (j->failed)
        return;
    if (!m || j->arr)
        return (void)fail(j, "fields outside a message", NULL);
    jc_table_t *t = m->table;
    if (t->plan_of != fields || t->plan_n != n) {
        jc_col_t **plan = realloc(t->plan, (n ? n : 1) * sizeof *plan);
        if (!plan)
            return (void)fail(j, "out of memory", NULL);
        t->plan = plan;
        for (size_t k = 0; k < n; k++)
            if (fields[k].type != BW_FT_PAD && !(plan[k] = col_for(j, t, fields[k].name)))
                return;
        t->plan_of = fields;
        t->plan_n = n;
        t->plan_cursor = t->cursor;
    }
    for (size_t k = 0; k < n; k++) {
        const bw_field_t *f = &fields[k];
        if (f->type == BW_FT_PAD)
            continue;
        jc_col_t *c = t->plan[k];
        const uint8_t *p = (const uint8_t *)base + f->offset;
        if (f->count == 1) {
            int64_t v = jw_field_value(p, f->type);
            scalar(j, c, m->row, 'i', &v);
            continue;
        }
        if (c->kind && c->kind != 'a')
            return (void)fail(j, "a member that is an array in some messages and not in others",
                              c->key);
        size_t size = bw_ftype_size((bw_ftype_t)f->type);
        if (!grow(j, &c->vals, 8 * (size_t)f->count))
            return;
        for (size_t i = 0; i < f->count; i++, p += size) {
            int64_t v = jw_field_value(p, f->type);
            memcpy(c->vals.p + c->vals.len, &v, 8);
            c->vals.len += 8;
        }
        int32_t count = f->count;
        c->depth = 1;
        if (begin(j, c, m->row, 'a'))
            put(j, &c->lens, &count, 4);
    }
    t->cursor = t->plan_cursor; /* the keys after the fields: usually the next columns */
}

size_t jc_types(const jc_t *j)
{
    return j->n;
}

const char *jc_type(const jc_t *j, size_t i, size_t *rows)
{
    if (i >= j->n)
        return NULL;
    *rows = j->tables[i]->rows;
    return j->tables[i]->type;
}

size_t jc_count(const jc_t *j)
{
    size_t n = 0;
    for (size_t i = 0; i < j->n; i++)
        for (size_t k = 0; k < j->tables[i]->n; k++)
            n += j->tables[i]->cols[k]->kind != 0; /* a member whose arrays held messages: none */
    return n;
}

int jc_column(jc_t *j, size_t i, bw_json_column_t *out)
{
    for (size_t ti = 0; ti < j->n; ti++) {
        jc_table_t *t = j->tables[ti];
        for (size_t k = 0; k < t->n; k++) {
            jc_col_t *c = t->cols[k];
            if (c->kind == 0 || i--)
                continue;
            if (!fill(j, c, t->rows))
                return BW_ENOMEM;
            *out = (bw_json_column_t){
                .type = t->type,
                .name = c->key,
                .kind = c->kind,
                .depth = c->kind == 'a' ? (c->depth ? c->depth : 1) : 0,
                .rows = c->rows,
                .values = c->vals.p,
                .nvalues = c->kind == 'a' ? c->vals.len / 8 : c->kind == 's' ? c->vals.len : c->rows,
                .ends = (const int64_t *)(void *)c->ends.p,
                .tags = c->tags.p,
                .lens = (const int32_t *)(void *)c->lens.p,
                .inner = (const int32_t *)(void *)c->inner.p,
                .ninner = c->inner.len / 4,
                .present = c->present.len ? c->present.p : NULL,
            };
            return 0;
        }
    }
    return BW_EINVAL;
}

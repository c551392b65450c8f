/*
 * botwire._tape: the decoder's tape (botwire/json.h, BW_JSON_TAPE) into
 * Python objects, in C: the dicts of botwire.decode with no text formatted
 * and parsed between the decoded structs and them, and the columns of
 * botwire.decode_columns. It reads bytes only (it links no library of
 * botwire's): libbotwire_json writes the tape, this turns it into objects.
 *
 * The names a tape points at ('M' and 'K') live in the library for as
 * long as it is loaded, so each becomes a Python string once, kept by its
 * pointer.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "botwire/json.h"

/* ---- names by their pointers ---------------------------------------------- */

#define NAMES 4096 /* a power of two; every codec's names fit many times */

typedef struct {
    const char *p;
    PyObject *s;
    int64_t last;       /* a key's: its last integer value, and that value */
    PyObject *last_obj; /* as an object (a sensor's value often repeats) */
} name_t;

static name_t names[NAMES];
static name_t spare; /* for a name that finds no slot: nothing kept */

/* The entry of the name at p, its s a borrowed reference; NULL with an
 * error. */
static name_t *name_of(const char *p)
{
    size_t h = ((uintptr_t)p >> 3) * 0x9E3779B97F4A7C15ull >> 52;
    for (size_t i = 0; i < 16; i++) {
        name_t *n = &names[(h + i) & (NAMES - 1)];
        if (n->p == p)
            return n;
        if (!n->p) {
            PyObject *s = PyUnicode_InternFromString(p);
            if (!s || PyObject_Hash(s) == -1) /* the hash kept in s, for put */
                return NULL;
            *n = (name_t){ p, s, 0, NULL };
            return n;
        }
    }
    /* A crowded neighbourhood (never seen: the codecs' names are far
     * fewer): made each time, and kept until the next such. */
    Py_XDECREF(spare.s);
    Py_CLEAR(spare.last_obj);
    spare = (name_t){ p, PyUnicode_FromString(p), 0, NULL };
    return spare.s && PyObject_Hash(spare.s) != -1 ? &spare : NULL;
}

/* v as an int object, the one made last for the same key when it is the
 * same value: a new reference. */
static PyObject *int_for(name_t *key, int64_t v)
{
    if (v >= -5 && v <= 256) /* Python's own small ints */
        return PyLong_FromLongLong(v);
    if (key && key->last_obj && key->last == v) {
        Py_INCREF(key->last_obj);
        return key->last_obj;
    }
    PyObject *o = PyLong_FromLongLong(v);
    if (o && key) {
        Py_XSETREF(key->last_obj, o);
        Py_INCREF(o);
        key->last = v;
    }
    return o;
}

/* ---- reading entries -------------------------------------------------------- */

typedef struct {
    const uint8_t *p, *end;
} tape_t;

static int truncated(void)
{
    PyErr_SetString(PyExc_ValueError, "botwire tape: cut short");
    return -1;
}

static int take(tape_t *t, void *out, size_t n)
{
    if ((size_t)(t->end - t->p) < n)
        return truncated();
    memcpy(out, t->p, n);
    t->p += n;
    return 0;
}

/* The bytes of an 'S' or 'H' entry (the tag taken). */
static int take_bytes(tape_t *t, const uint8_t **p, size_t *n)
{
    uint32_t len;
    if (take(t, &len, 4) < 0)
        return -1;
    if ((size_t)(t->end - t->p) < len)
        return truncated();
    *p = t->p;
    *n = len;
    t->p += len;
    return 0;
}

static PyObject *hex_of(const uint8_t *p, size_t n)
{
    static const char digits[] = "0123456789abcdef";
    PyObject *s = PyUnicode_New((Py_ssize_t)(2 * n), 127);
    if (!s)
        return NULL;
    Py_UCS1 *d = PyUnicode_1BYTE_DATA(s);
    for (size_t i = 0; i < n; i++) {
        d[2 * i] = (Py_UCS1)digits[p[i] >> 4];
        d[2 * i + 1] = (Py_UCS1)digits[p[i] & 15];
    }
    return s;
}

/* A scalar entry's value (tag taken), a member of key (NULL: none): a
 * new reference, NULL with an error. */
static PyObject *scalar(tape_t *t, uint8_t tag, name_t *key)
{
    switch (tag) {
    case BW_TAPE_INT32: {
        int32_t v;
        return take(t, &v, 4) < 0 ? NULL : int_for(key, v);
    }
    case BW_TAPE_INT: {
        int64_t v;
        return take(t, &v, 8) < 0 ? NULL : int_for(key, v);
    }
    case BW_TAPE_REAL: {
        double v;
        return take(t, &v, 8) < 0 ? NULL : PyFloat_FromDouble(v);
    }
    case BW_TAPE_TRUE: Py_RETURN_TRUE;
    case BW_TAPE_FALSE: Py_RETURN_FALSE;
    case BW_TAPE_STR:
    case BW_TAPE_HEX: {
        const uint8_t *p;
        size_t n;
        if (take_bytes(t, &p, &n) < 0)
            return NULL;
        return tag == BW_TAPE_HEX ? hex_of(p, n)
                                  : PyUnicode_DecodeUTF8((const char *)p, (Py_ssize_t)n, "strict");
    }
    default:
        PyErr_Format(PyExc_ValueError, "botwire tape: unknown entry 0x%02x", tag);
        return NULL;
    }
}

/* ---- objects ---------------------------------------------------------------- */

#define DEPTH 32
#define MEMBERS 1024 /* of the messages open at once; a message has far fewer */

typedef struct {
    enum { LIST, DICT, MSG } kind;
    PyObject *obj; /* a list or dict (a message's is made at its end) */
    name_t *key;   /* a member waiting for its value */
    name_t *type;  /* a message's type */
    size_t first;  /* a message's first member in the members' stack */
} open_t;

typedef struct {
    name_t *key;
    PyObject *value;
} member_t;

typedef struct {
    open_t stack[DEPTH];
    int depth;
    member_t members[MEMBERS];
    size_t nmembers;
    PyObject *out;
} build_t;

static int fail_with(const char *why)
{
    PyErr_Format(PyExc_ValueError, "botwire tape: %s", why);
    return -1;
}

/* Puts v (a new reference, stolen) into the innermost open container, or
 * into out at the top. */
static int put(build_t *b, PyObject *v)
{
    if (!v)
        return -1;
    if (b->depth == 0) {
        int rc = PyList_Append(b->out, v);
        Py_DECREF(v);
        return rc;
    }
    open_t *o = &b->stack[b->depth - 1];
    if (o->kind == LIST) {
        int rc = PyList_Append(o->obj, v);
        Py_DECREF(v);
        return rc;
    }
    if (!o->key) {
        Py_DECREF(v);
        return fail_with("a member without a key");
    }
    if (o->kind == DICT) {
        int rc = PyDict_SetItem(o->obj, o->key->s, v);
        Py_DECREF(v);
        o->key = NULL;
        return rc;
    }
    if (b->nmembers == MEMBERS) {
        Py_DECREF(v);
        return fail_with("too many members");
    }
    b->members[b->nmembers++] = (member_t){ o->key, v };
    o->key = NULL;
    return 0;
}

static PyObject *type_key;
static Py_hash_t type_hash;

/* The dict of the message o whose members are m[0..n). */
static PyObject *message(const open_t *o, const member_t *m, size_t n)
{
    PyObject *d = _PyDict_NewPresized((Py_ssize_t)n + 1);
    if (!d)
        return NULL;
    if (_PyDict_SetItem_KnownHash(d, type_key, o->type->s, type_hash) < 0)
        goto fail;
    for (size_t i = 0; i < n; i++)
        if (_PyDict_SetItem_KnownHash(d, m[i].key->s, m[i].value,
                                      ((PyASCIIObject *)m[i].key->s)->hash) < 0)
            goto fail;
    return d;
fail:
    Py_DECREF(d);
    return NULL;
}

/* Closes the innermost container (an end of its kind). */
static int close_one(build_t *b, uint8_t tag)
{
    if (b->depth == 0 || (tag == BW_TAPE_END_ARR) != (b->stack[b->depth - 1].kind == LIST))
        return fail_with("an end with nothing of its kind open");
    open_t *o = &b->stack[--b->depth];
    if (o->kind != MSG)
        return put(b, o->obj);
    member_t *m = b->members + o->first;
    size_t n = b->nmembers - o->first;
    PyObject *d = message(o, m, n);
    for (size_t i = 0; i < n; i++)
        Py_DECREF(m[i].value);
    b->nmembers = o->first;
    return put(b, d);
}

static int open_one(build_t *b, tape_t *t, uint8_t tag)
{
    if (b->depth == DEPTH)
        return fail_with("nested too deep");
    open_t *o = &b->stack[b->depth];
    if (tag == BW_TAPE_MSG) {
        const char *name;
        if (take(t, &name, sizeof name) < 0 || !(o->type = name_of(name)))
            return -1;
        o->kind = MSG;
        o->obj = NULL;
        o->first = b->nmembers;
    } else {
        o->kind = tag == BW_TAPE_ARR ? LIST : DICT;
        o->obj = tag == BW_TAPE_ARR ? PyList_New(0) : PyDict_New();
        if (!o->obj)
            return -1;
    }
    o->key = NULL;
    b->depth++;
    return 0;
}

static int step(build_t *b, tape_t *t)
{
    uint8_t tag = *t->p++;
    switch (tag) {
    case BW_TAPE_LINE:
        return b->depth ? fail_with("a line ends inside a value") : 0;
    case BW_TAPE_OBJ:
    case BW_TAPE_ARR:
    case BW_TAPE_MSG:
        return open_one(b, t, tag);
    case BW_TAPE_END_OBJ:
    case BW_TAPE_END_ARR:
        return close_one(b, tag);
    case BW_TAPE_KEY: {
        const char *name;
        if (b->depth == 0 || b->stack[b->depth - 1].kind == LIST)
            return fail_with("a key outside an object");
        if (take(t, &name, sizeof name) < 0 || !(b->stack[b->depth - 1].key = name_of(name)))
            return -1;
        return 0;
    }
    default:
        return put(b, scalar(t, tag, b->depth ? b->stack[b->depth - 1].key : NULL));
    }
}

static PyObject *objects(PyObject *self, PyObject *arg)
{
    (void)self;
    Py_buffer buf;
    if (PyObject_GetBuffer(arg, &buf, PyBUF_SIMPLE) < 0)
        return NULL;
    build_t *b = PyMem_Malloc(sizeof *b);
    if (!b) {
        PyBuffer_Release(&buf);
        return PyErr_NoMemory();
    }
    b->depth = 0;
    b->nmembers = 0;
    tape_t t = { buf.buf, (const uint8_t *)buf.buf + buf.len };
    /* Every container made here is alive until returned: the collector's
     * passes over them while they are made would find nothing to free. */
    int gc_was = PyGC_Disable();
    int rc = (b->out = PyList_New(0)) ? 0 : -1;
    while (rc == 0 && t.p < t.end)
        rc = step(b, &t);
    if (rc == 0 && b->depth)
        rc = truncated();
    PyObject *out = b->out;
    if (rc < 0) {
        for (size_t i = 0; i < b->nmembers; i++)
            Py_DECREF(b->members[i].value);
        while (b->depth > 0)
            Py_XDECREF(b->stack[--b->depth].obj);
        Py_CLEAR(out);
    }
    PyMem_Free(b);
    PyBuffer_Release(&buf);
    if (gc_was)
        PyGC_Enable();
    return out;
}

/* ---- columns ---------------------------------------------------------------- */

/*
 * A stream's messages as columns: per message type, per member, one value
 * per message of the type. Integers, reals and booleans go into arrays of
 * int64, double and bytes; strings into a list; arrays of integers (and
 * arrays of such arrays) into their values one after another with each
 * row's length. A message inside another's array (a Create stream's
 * packets) is a row of its own type, with the "t" and "from" of the
 * message that holds it. A member a message leaves out is marked missing
 * in its column. botwire.decode_columns makes NumPy arrays of them.
 */

typedef struct {
    uint8_t *p;
    size_t len, cap;
} bytes_t;

static int grow(bytes_t *b, size_t n)
{
    if (b->len + n <= b->cap)
        return 0;
    size_t cap = b->cap ? b->cap : 256;
    while (cap < b->len + n)
        cap *= 2;
    uint8_t *p = PyMem_Realloc(b->p, cap);
    if (!p) {
        PyErr_NoMemory();
        return -1;
    }
    b->p = p;
    b->cap = cap;
    return 0;
}

static int append(bytes_t *b, const void *v, size_t n)
{
    if (grow(b, n) < 0)
        return -1;
    memcpy(b->p + b->len, v, n);
    b->len += n;
    return 0;
}

enum { K_NONE = 0, K_INT = 'i', K_REAL = 'r', K_BOOL = 'b', K_OBJ = 'o', K_ARRAY = 'a' };

typedef struct {
    name_t *key;
    char kind;
    int depth;       /* an array's: 1, or 2 for arrays of arrays */
    bytes_t vals;    /* a value per row; an array's values one after another */
    bytes_t lens;    /* an array's: int32 elements per row */
    bytes_t inner;   /* an array of arrays': int32 elements of each inner one */
    PyObject *objs;  /* strings (and values of mixed kinds): a list */
    bytes_t mask;    /* uint8 per row: 1 present */
    Py_ssize_t rows;
    bool missing;
} col_t;

typedef struct {
    name_t *type;
    col_t *cols;
    size_t n, cap, cursor; /* cursor: where the next key usually is */
    Py_ssize_t rows;
} table_t;

typedef struct {
    PyObject_HEAD
    table_t *tables;
    size_t n, cap;
    int32_t *by_name; /* names[] index -> tables index + 1 */
} columns_t;

static void col_free(col_t *c)
{
    PyMem_Free(c->vals.p);
    PyMem_Free(c->lens.p);
    PyMem_Free(c->inner.p);
    PyMem_Free(c->mask.p);
    Py_XDECREF(c->objs);
}

static void columns_dealloc(columns_t *self)
{
    for (size_t i = 0; i < self->n; i++) {
        for (size_t k = 0; k < self->tables[i].n; k++)
            col_free(&self->tables[i].cols[k]);
        PyMem_Free(self->tables[i].cols);
    }
    PyMem_Free(self->tables);
    PyMem_Free(self->by_name);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static table_t *table_for(columns_t *c, name_t *type)
{
    size_t at = type == &spare ? 0 : (size_t)(type - names) + 1;
    if (at && c->by_name[at - 1])
        return &c->tables[c->by_name[at - 1] - 1];
    /* the same name at another address (the host's "stream" and the
     * robot's): the same table */
    for (size_t i = 0; i < c->n; i++)
        if (!strcmp(c->tables[i].type->p, type->p)) {
            if (at)
                c->by_name[at - 1] = (int32_t)i + 1;
            return &c->tables[i];
        }
    if (c->n == c->cap) {
        size_t cap = c->cap ? 2 * c->cap : 16;
        table_t *t = PyMem_Realloc(c->tables, cap * sizeof *t);
        if (!t) {
            PyErr_NoMemory();
            return NULL;
        }
        c->tables = t;
        c->cap = cap;
    }
    c->tables[c->n] = (table_t){ type, NULL, 0, 0, 0, 0 };
    if (at)
        c->by_name[at - 1] = (int32_t)++c->n;
    else
        c->n++;
    return &c->tables[c->n - 1];
}

static col_t *col_for(table_t *t, name_t *key)
{
    if (t->cursor < t->n && t->cols[t->cursor].key->p == key->p)
        return &t->cols[t->cursor++];
    for (size_t i = 0; i < t->n; i++)
        if (t->cols[i].key->p == key->p || !strcmp(t->cols[i].key->p, key->p)) {
            t->cursor = i + 1;
            return &t->cols[i];
        }
    if (t->n == t->cap) {
        size_t cap = t->cap ? 2 * t->cap : 16;
        col_t *c = PyMem_Realloc(t->cols, cap * sizeof *c);
        if (!c) {
            PyErr_NoMemory();
            return NULL;
        }
        t->cols = c;
        t->cap = cap;
    }
    memset(&t->cols[t->n], 0, sizeof t->cols[t->n]);
    t->cols[t->n].key = key;
    t->cursor = t->n + 1;
    return &t->cols[t->n++];
}

static size_t kind_size(char kind)
{
    return kind == K_BOOL ? 1 : kind == K_INT || kind == K_REAL ? 8 : 0;
}

/* Rows up to (not including) row, missing. */
static int fill(col_t *c, Py_ssize_t row)
{
    if (c->rows >= row)
        return 0;
    size_t n = (size_t)(row - c->rows);
    size_t size = kind_size(c->kind);
    if (c->kind == K_ARRAY)
        size = 4; /* lens: 0 */
    bytes_t *b = c->kind == K_ARRAY ? &c->lens : &c->vals;
    if (c->kind == K_OBJ) {
        for (size_t i = 0; i < n; i++)
            if (PyList_Append(c->objs, Py_None) < 0)
                return -1;
    } else if (c->kind != K_NONE) {
        if (grow(b, n * size) < 0)
            return -1;
        memset(b->p + b->len, 0, n * size);
        b->len += n * size;
    }
    if (grow(&c->mask, n) < 0)
        return -1;
    memset(c->mask.p + c->mask.len, 0, n);
    c->mask.len += n;
    c->rows = row;
    c->missing = true;
    return 0;
}

/* A column of scalars made a list of objects, for a value of another kind. */
static int to_objects(col_t *c)
{
    PyObject *l = PyList_New(0);
    if (!l)
        return -1;
    for (Py_ssize_t i = 0; i < c->rows; i++) {
        PyObject *v;
        if (!c->mask.p[i]) {
            v = Py_NewRef(Py_None);
        } else if (c->kind == K_INT) {
            int64_t x;
            memcpy(&x, c->vals.p + 8 * i, 8);
            v = PyLong_FromLongLong(x);
        } else if (c->kind == K_REAL) {
            double x;
            memcpy(&x, c->vals.p + 8 * i, 8);
            v = PyFloat_FromDouble(x);
        } else {
            v = PyBool_FromLong(c->vals.p[i]);
        }
        if (!v || PyList_Append(l, v) < 0) {
            Py_XDECREF(v);
            Py_DECREF(l);
            return -1;
        }
        Py_DECREF(v);
    }
    c->objs = l;
    c->kind = K_OBJ;
    c->vals.len = 0;
    return 0;
}

/* Makes c ready for row's value of kind: the rows before it filled. */
static int col_begin(col_t *c, Py_ssize_t row, char kind)
{
    if (c->rows > row) {
        PyErr_Format(PyExc_ValueError, "botwire tape: member \"%s\" twice in one message",
                     c->key->p);
        return -1;
    }
    if (c->kind == K_NONE) {
        /* its first value: the rows before it filled in the kind's form */
        if (kind == K_OBJ && !(c->objs = PyList_New(0)))
            return -1;
        c->kind = kind;
        Py_ssize_t filled = c->rows;
        c->rows = 0;
        c->mask.len = 0;
        if (fill(c, filled) < 0)
            return -1;
    } else if (c->kind != kind) {
        if (c->kind == K_ARRAY || kind == K_ARRAY) {
            PyErr_Format(PyExc_ValueError,
                         "decode_columns: member \"%s\" is an array in some messages and not in others",
                         c->key->p);
            return -1;
        }
        if (c->kind != K_OBJ && to_objects(c) < 0)
            return -1;
    }
    if (fill(c, row) < 0 || grow(&c->mask, 1) < 0)
        return -1;
    c->mask.p[c->mask.len++] = 1;
    c->rows = row + 1;
    return 0;
}

static int col_scalar(col_t *c, Py_ssize_t row, char kind, const void *v, PyObject *obj)
{
    if (col_begin(c, row, obj ? K_OBJ : kind) < 0)
        return -1;
    if (c->kind == K_OBJ) {
        PyObject *o = obj ? Py_NewRef(obj)
                          : kind == K_INT  ? PyLong_FromLongLong(*(const int64_t *)v)
                          : kind == K_REAL ? PyFloat_FromDouble(*(const double *)v)
                                           : PyBool_FromLong(*(const uint8_t *)v);
        int rc = o ? PyList_Append(c->objs, o) : -1;
        Py_XDECREF(o);
        return rc;
    }
    return append(&c->vals, v, kind_size(kind));
}

/* The reading of one tape into the columns. */
typedef struct {
    table_t *table;
    Py_ssize_t row;
    col_t *col;      /* the member whose value comes next */
    bool t_set, from_set;
    double t;
    PyObject *from;
    name_t *t_name, *from_name;
    size_t first_child; /* the messages it holds, in children[] */
} cmsg_t;

typedef struct {
    table_t *table;
    Py_ssize_t row;
} child_t;

#define CHILDREN 4096

typedef struct {
    columns_t *c;
    cmsg_t msgs[DEPTH];
    int nmsgs;
    /* the arrays open: depth 0 none; an array of a member: 1 or 2 */
    int arr;
    col_t *arr_col;
    int32_t n_outer, n_inner;
    bool arr_of_msgs; /* the member's array holds messages */
    child_t children[CHILDREN];
    size_t nchildren;
} creader_t;

static int cmsg_end(creader_t *r)
{
    cmsg_t *m = &r->msgs[--r->nmsgs];
    /* the messages it holds: its t and from */
    for (size_t i = m->first_child; i < r->nchildren; i++) {
        child_t *ch = &r->children[i];
        col_t *c;
        if (m->t_set && (!(c = col_for(ch->table, m->t_name)) ||
                         col_scalar(c, ch->row, K_REAL, &m->t, NULL) < 0))
            return -1;
        if (m->from_set && (!(c = col_for(ch->table, m->from_name)) ||
                            col_scalar(c, ch->row, K_OBJ, NULL, m->from) < 0))
            return -1;
    }
    r->nchildren = m->first_child;
    if (r->nmsgs) {
        /* held by the message below: its t and from come later */
        if (r->nchildren == CHILDREN)
            return fail_with("too many messages in one");
        r->children[r->nchildren++] = (child_t){ m->table, m->row };
    }
    Py_CLEAR(m->from);
    return 0;
}

static int cstep(creader_t *r, tape_t *t)
{
    uint8_t tag = *t->p++;
    cmsg_t *m = r->nmsgs ? &r->msgs[r->nmsgs - 1] : NULL;
    switch (tag) {
    case BW_TAPE_LINE:
        return r->nmsgs || r->arr ? fail_with("a line ends inside a value") : 0;
    case BW_TAPE_MSG: {
        const char *name;
        name_t *type;
        if (take(t, &name, sizeof name) < 0 || !(type = name_of(name)))
            return -1;
        if (r->nmsgs == DEPTH || (r->arr && !(r->arr == 1 && (r->arr_of_msgs || r->n_outer == 0))))
            return fail_with("a message where decode_columns takes none");
        table_t *tb = table_for(r->c, type);
        if (!tb)
            return -1;
        if (r->arr) {
            r->arr_of_msgs = true;
            r->arr = 0; /* its messages are rows of their own */
            r->n_outer = -1;
        }
        r->msgs[r->nmsgs++] = (cmsg_t){ tb, tb->rows++, NULL, false, false, 0, NULL, NULL, NULL,
                                        r->nchildren };
        tb->cursor = 0;
        return 0;
    }
    case BW_TAPE_KEY: {
        const char *name;
        name_t *key;
        if (!m || r->arr)
            return fail_with("a key outside a message");
        if (take(t, &name, sizeof name) < 0 || !(key = name_of(name)))
            return -1;
        return (m->col = col_for(m->table, key)) ? 0 : -1;
    }
    case BW_TAPE_ARR:
        if (r->arr == 0 && r->n_outer == -1)
            return fail_with("an array beside messages");
        if (r->arr == 0) {
            if (!m || !m->col)
                return fail_with("an array outside a message");
            r->arr = 1;
            r->arr_col = m->col;
            r->n_outer = 0;
            r->arr_of_msgs = false;
            return 0;
        }
        if (r->arr == 2)
            return fail_with("arrays nested deeper than two");
        r->arr = 2;
        r->n_inner = 0;
        return 0;
    case BW_TAPE_END_ARR:
        if (r->n_outer == -1 && r->arr == 0) {
            /* the end of an array of messages: nothing in its own column */
            r->n_outer = 0;
            if (m)
                m->col = NULL;
            return 0;
        }
        if (r->arr == 2) {
            r->arr = 1;
            r->n_outer++;
            return append(&r->arr_col->inner, &r->n_inner, 4);
        }
        if (r->arr == 1) {
            col_t *c = r->arr_col;
            int depth = c->inner.len ? 2 : 1;
            r->arr = 0;
            if (r->n_outer == 0 && c->kind == K_NONE)
                depth = 0; /* empty: says nothing of its depth */
            if (c->depth && depth && c->depth != depth)
                return fail_with("an array of arrays in some messages and not in others");
            if (depth)
                c->depth = depth;
            if (col_begin(c, m->row, K_ARRAY) < 0)
                return -1;
            m->col = NULL;
            return append(&c->lens, &r->n_outer, 4);
        }
        return fail_with("an end with no array open");
    case BW_TAPE_END_OBJ:
        if (!m || r->arr)
            return fail_with("an end with no message open");
        return cmsg_end(r);
    case BW_TAPE_OBJ:
        return fail_with("an object that is not a message");
    case BW_TAPE_INT32:
    case BW_TAPE_INT: {
        int64_t v;
        if (tag == BW_TAPE_INT32) {
            int32_t s;
            if (take(t, &s, 4) < 0)
                return -1;
            v = s;
        } else if (take(t, &v, 8) < 0) {
            return -1;
        }
        if (r->arr) {
            /* before the row's begin: a new column may have no kind yet */
            if (r->arr == 2)
                r->n_inner++;
            else
                r->n_outer++;
            if (r->arr_col->kind != K_NONE && r->arr_col->kind != K_ARRAY)
                return fail_with("an array in a column of scalars");
            return append(&r->arr_col->vals, &v, 8);
        }
        if (!m || !m->col)
            return fail_with("a value outside a message");
        int rc = col_scalar(m->col, m->row, K_INT, &v, NULL);
        m->col = NULL;
        return rc;
    }
    case BW_TAPE_REAL: {
        double v;
        if (take(t, &v, 8) < 0)
            return -1;
        if (r->arr || !m || !m->col)
            return fail_with("a real outside a message's member");
        if (!strcmp(m->col->key->p, "t")) {
            m->t = v;
            m->t_set = true;
            m->t_name = m->col->key;
        }
        int rc = col_scalar(m->col, m->row, K_REAL, &v, NULL);
        m->col = NULL;
        return rc;
    }
    case BW_TAPE_TRUE:
    case BW_TAPE_FALSE: {
        uint8_t v = tag == BW_TAPE_TRUE;
        if (r->arr || !m || !m->col)
            return fail_with("a boolean outside a message's member");
        int rc = col_scalar(m->col, m->row, K_BOOL, &v, NULL);
        m->col = NULL;
        return rc;
    }
    default: {
        if (r->arr || !m || !m->col)
            return fail_with("a string outside a message's member");
        PyObject *o = scalar(t, tag, NULL);
        if (!o)
            return -1;
        if (!strcmp(m->col->key->p, "from")) {
            Py_XSETREF(m->from, Py_NewRef(o));
            m->from_set = true;
            m->from_name = m->col->key;
        }
        int rc = col_scalar(m->col, m->row, K_OBJ, NULL, o);
        Py_DECREF(o);
        m->col = NULL;
        return rc;
    }
    }
}

static PyObject *columns_feed(columns_t *self, PyObject *arg)
{
    Py_buffer buf;
    if (PyObject_GetBuffer(arg, &buf, PyBUF_SIMPLE) < 0)
        return NULL;
    creader_t *r = PyMem_Calloc(1, sizeof *r);
    if (!r) {
        PyBuffer_Release(&buf);
        return PyErr_NoMemory();
    }
    r->c = self;
    tape_t t = { buf.buf, (const uint8_t *)buf.buf + buf.len };
    int rc = 0;
    while (rc == 0 && t.p < t.end)
        rc = cstep(r, &t);
    if (rc == 0 && (r->nmsgs || r->arr))
        rc = truncated();
    for (int i = 0; i < r->nmsgs; i++)
        Py_XDECREF(r->msgs[i].from);
    PyMem_Free(r);
    PyBuffer_Release(&buf);
    if (rc < 0)
        return NULL;
    Py_RETURN_NONE;
}

static PyObject *bytes_of(const bytes_t *b)
{
    return PyBytes_FromStringAndSize((const char *)b->p, (Py_ssize_t)b->len);
}

/* {type: {member: (kind, values, mask or None, lens, inner, depth)}}; kind
 * 'i', 'r', 'b': values bytes of int64, double, bool; 'o': a list; 'a':
 * values int64, lens int32 per row, inner int32 per inner array (depth 2). */
static PyObject *columns_take(columns_t *self, PyObject *unused)
{
    (void)unused;
    PyObject *out = PyDict_New();
    if (!out)
        return NULL;
    for (size_t i = 0; i < self->n; i++) {
        table_t *tb = &self->tables[i];
        PyObject *d = PyDict_New();
        int rc = d ? PyDict_SetItem(out, tb->type->s, d) : -1;
        Py_XDECREF(d);
        if (rc < 0)
            goto fail;
        for (size_t k = 0; k < tb->n; k++) {
            col_t *c = &tb->cols[k];
            if (c->kind == K_NONE)
                continue; /* a member whose arrays held messages (rows of their own) */
            if (c->kind == K_ARRAY && !c->depth)
                c->depth = 1; /* only empty arrays */
            if (fill(c, tb->rows) < 0)
                goto fail;
            PyObject *vals = c->kind == K_OBJ ? Py_NewRef(c->objs) : bytes_of(&c->vals);
            PyObject *mask = c->missing ? bytes_of(&c->mask) : Py_NewRef(Py_None);
            PyObject *spec = Py_BuildValue("(CNNNNi)", c->kind, vals, mask, bytes_of(&c->lens),
                                           bytes_of(&c->inner), c->depth);
            if (!spec || PyDict_SetItem(d, c->key->s, spec) < 0) {
                Py_XDECREF(spec);
                goto fail;
            }
            Py_DECREF(spec);
        }
    }
    return out;
fail:
    Py_DECREF(out);
    return NULL;
}

/* ---- module ----------------------------------------------------------------- */

static PyMethodDef columns_methods[] = {
    { "feed", (PyCFunction)columns_feed, METH_O, "feed(tape): a decoder's tape into the columns." },
    { "take", (PyCFunction)columns_take, METH_NOARGS,
      "take() -> {type: {member: (kind, values, mask, lens, inner, depth)}}" },
    { NULL, NULL, 0, NULL },
};

static int columns_init(columns_t *self, PyObject *args, PyObject *kw)
{
    (void)args;
    (void)kw;
    if (!self->by_name && !(self->by_name = PyMem_Calloc(NAMES, sizeof *self->by_name))) {
        PyErr_NoMemory();
        return -1;
    }
    return 0;
}

static PyTypeObject columns_type = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "botwire._tape.Columns",
    .tp_basicsize = sizeof(columns_t),
    .tp_dealloc = (destructor)columns_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "A stream's messages as columns (botwire.decode_columns).",
    .tp_methods = columns_methods,
    .tp_init = (initproc)columns_init,
    .tp_new = PyType_GenericNew,
};

static PyMethodDef methods[] = {
    { "objects", objects, METH_O,
      "objects(tape) -> list: the values of a decoder's tape (bytes-like), one per line." },
    { NULL, NULL, 0, NULL },
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_tape",
    "The decoder's tape (BW_JSON_TAPE) into Python objects, in C.", -1, methods,
    NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__tape(void)
{
    type_key = PyUnicode_InternFromString("type");
    if (!type_key || (type_hash = PyObject_Hash(type_key)) == -1)
        return NULL;
    if (PyType_Ready(&columns_type) < 0)
        return NULL;
    PyObject *m = PyModule_Create(&module);
    if (m && PyModule_AddObjectRef(m, "Columns", (PyObject *)&columns_type) < 0)
        Py_CLEAR(m);
    return m;
}

/*
 * botwire._tape: the decoder's tape (botwire/json.h, BW_JSON_TAPE) into
 * Python objects, in C: the dicts of botwire.decode with no text formatted
 * and parsed between the decoded structs and them. It reads bytes only (it links no library of
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

/* A descriptor table's names, by its pointer: made once. */
typedef struct {
    const bw_field_t *fields;
    uint32_t n;
    name_t **names; /* NULL for a BW_FT_PAD field */
} table_t;

#define TABLES 512

static table_t tables[TABLES];

static table_t *table_of(const bw_field_t *fields, uint32_t n)
{
    size_t h = ((uintptr_t)fields >> 3) * 0x9E3779B97F4A7C15ull >> 55;
    for (size_t i = 0; i < 16; i++) {
        table_t *t = &tables[(h + i) & (TABLES - 1)];
        if (t->fields == fields && t->n == n)
            return t;
        if (t->fields)
            continue;
        name_t **names = PyMem_Calloc(n ? n : 1, sizeof *names);
        if (!names) {
            PyErr_NoMemory();
            return NULL;
        }
        for (uint32_t k = 0; k < n; k++)
            if (fields[k].type != BW_FT_PAD && !(names[k] = name_of(fields[k].name))) {
                PyMem_Free(names);
                return NULL;
            }
        *t = (table_t){ fields, n, names };
        return t;
    }
    PyErr_SetString(PyExc_RuntimeError, "botwire tape: too many descriptor tables");
    return NULL;
}

/* A 'D' entry (the tag taken): its members into the open message. */
static int fields(build_t *b, tape_t *t)
{
    const bw_field_t *f;
    uint32_t n;
    table_t *tb;
    if (take(t, &f, sizeof f) < 0 || take(t, &n, 4) < 0 || !(tb = table_of(f, n)))
        return -1;
    if (b->depth == 0 || b->stack[b->depth - 1].kind != MSG)
        return fail_with("fields outside a message");
    for (uint32_t k = 0; k < n; k++) {
        if (f[k].type == BW_FT_PAD)
            continue;
        size_t count = f[k].count;
        if ((size_t)(t->end - t->p) < 8 * count)
            return truncated();
        if (b->nmembers == MEMBERS)
            return fail_with("too many members");
        PyObject *v;
        if (count == 1) {
            int64_t x;
            memcpy(&x, t->p, 8);
            v = int_for(tb->names[k], x);
        } else if ((v = PyList_New((Py_ssize_t)count))) {
            for (size_t i = 0; i < count; i++) {
                int64_t x;
                memcpy(&x, t->p + 8 * i, 8);
                PyObject *e = PyLong_FromLongLong(x);
                if (!e) {
                    Py_CLEAR(v);
                    break;
                }
                PyList_SET_ITEM(v, (Py_ssize_t)i, e);
            }
        }
        if (!v)
            return -1;
        t->p += 8 * count;
        b->members[b->nmembers++] = (member_t){ tb->names[k], v };
    }
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
    case BW_TAPE_FIELDS:
        return fields(b, t);
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

/* ---- module ----------------------------------------------------------------- */

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
    return PyModule_Create(&module);
}

/*
 * Looking at a ROS 2 graph without ROS 2 (botwire/ros2.h): `botwire ros2
 * list` (the nodes, topics and services, from DDS discovery and
 * ros_discovery_info) and `botwire ros2 echo TOPIC` (each message printed as
 * `ros2 topic echo` prints it, from its CDR and the type's ros2msg schema).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <dds/dds.h>
#define asm __asm__
#include <dds/ddsi/ddsi_cdrstream.h>
#undef asm

#include "botwire/ros2.h"
#include "internal.h"

#define MAX_SEEN 512

/* "rt/robot1/odom" -> "/robot1/odom"; "rq/a/bRequest" -> "/a/b" (a
 * service); NULL for a topic that is not ROS 2's. */
static const char *ros_name(const char *dds, char *out, size_t cap, bool *service)
{
    *service = false;
    if (!strncmp(dds, "rt/", 3)) {
        snprintf(out, cap, "%s", dds + 2);
        return out;
    }
    size_t n = strlen(dds);
    if (!strncmp(dds, "rq/", 3) && n > 10 && !strcmp(dds + n - 7, "Request")) {
        snprintf(out, cap, "%.*s", (int)(n - 9), dds + 2);
        *service = true;
        return out;
    }
    if (!strncmp(dds, "rr/", 3) && n > 8 && !strcmp(dds + n - 5, "Reply"))
        return NULL; /* the reply side of a service listed by its request */
    return NULL;
}

typedef struct {
    char name[256], type[160], qos[96];
    int writers, readers;
    bool service;
} seen_t;

static void describe_qos(const dds_qos_t *q, char *out, size_t cap)
{
    dds_reliability_kind_t rel = DDS_RELIABILITY_BEST_EFFORT;
    dds_durability_kind_t dur = DDS_DURABILITY_VOLATILE;
    dds_history_kind_t hist = DDS_HISTORY_KEEP_LAST;
    dds_duration_t block;
    int32_t depth = 1;
    dds_qget_reliability(q, &rel, &block);
    dds_qget_durability(q, &dur);
    dds_qget_history(q, &hist, &depth);
    char keep[32];
    if (hist == DDS_HISTORY_KEEP_ALL)
        snprintf(keep, sizeof keep, "keep all");
    else
        snprintf(keep, sizeof keep, "keep last %d", (int)depth);
    snprintf(out, cap, "%s, %s, %s", rel == DDS_RELIABILITY_RELIABLE ? "reliable" : "best effort",
             dur == DDS_DURABILITY_TRANSIENT_LOCAL ? "transient local" : "volatile", keep);
}

/* One endpoint seen: counted under its topic (or service). */
static void saw(seen_t *seen, size_t *n, const dds_builtintopic_endpoint_t *e, bool writer)
{
    char name[256], type[160];
    bool service;
    if (!e->topic_name || !e->type_name || !ros_name(e->topic_name, name, sizeof name, &service))
        return;
    bw_ros2_type_of_dds(type, sizeof type, e->type_name);
    if (service) { /* "rcl_interfaces/srv/GetParameters_Request" -> ".../GetParameters" */
        char *cut = strstr(type, "_Request");
        if (cut)
            *cut = 0;
    }
    size_t i = 0;
    while (i < *n && (strcmp(seen[i].name, name) != 0 || seen[i].service != service))
        i++;
    if (i == *n) {
        if (*n == MAX_SEEN)
            return;
        memset(&seen[i], 0, sizeof seen[i]);
        snprintf(seen[i].name, sizeof seen[i].name, "%s", name);
        snprintf(seen[i].type, sizeof seen[i].type, "%s", type);
        seen[i].service = service;
        (*n)++;
    }
    if (writer) {
        seen[i].writers++;
        if (!seen[i].qos[0])
            describe_qos(e->qos, seen[i].qos, sizeof seen[i].qos);
    } else {
        seen[i].readers++;
    }
}

static int by_name(const void *a, const void *b)
{
    const seen_t *x = a, *y = b;
    return x->service != y->service ? x->service - y->service : strcmp(x->name, y->name);
}

int bw_ros2_list(const bw_ros2_options_t *opt, double seconds, FILE *out, char *err, size_t errlen)
{
    bw_ros2_t *n;
    int rc = bw_ros2_open(&n, opt, err, errlen);
    if (rc < 0)
        return rc;
    dds_entity_t pp = bw_ros2_participant(n);
    dds_entity_t pubs = dds_create_reader(pp, DDS_BUILTIN_TOPIC_DCPSPUBLICATION, NULL, NULL);
    dds_entity_t subs = dds_create_reader(pp, DDS_BUILTIN_TOPIC_DCPSSUBSCRIPTION, NULL, NULL);
    static seen_t seen[MAX_SEEN];
    size_t nseen = 0;
    static char nodes[MAX_SEEN][300];
    size_t nnodes = 0;
    dds_time_t end = dds_time() + (dds_duration_t)(seconds * 1e9);
    while (dds_time() < end) {
        dds_sleepfor(DDS_MSECS(50));
        bw_ros2_nodes(n, nodes, MAX_SEEN, &nnodes);
    }
    for (int k = 0; k < 2; k++) {
        dds_entity_t r = k ? subs : pubs;
        void *samples[64] = { NULL };
        dds_sample_info_t info[64];
        int got;
        while (r > 0 && (got = dds_read(r, samples, info, 64, 64)) > 0) {
            for (int i = 0; i < got; i++)
                if (info[i].valid_data && info[i].instance_state == DDS_IST_ALIVE)
                    saw(seen, &nseen, samples[i], !k);
            dds_return_loan(r, samples, got);
            if (got < 64)
                break;
        }
    }
    qsort(seen, nseen, sizeof seen[0], by_name);
    fprintf(out, "nodes:\n");
    for (size_t i = 0; i < nnodes; i++)
        fprintf(out, "  %s\n", nodes[i]);
    fprintf(out, "topics:\n");
    for (size_t i = 0; i < nseen; i++)
        if (!seen[i].service)
            fprintf(out, "  %s [%s] %d publisher%s, %d subscriber%s%s%s\n", seen[i].name,
                    seen[i].type, seen[i].writers, seen[i].writers == 1 ? "" : "s",
                    seen[i].readers, seen[i].readers == 1 ? "" : "s",
                    seen[i].qos[0] ? "; " : "", seen[i].qos);
    fprintf(out, "services:\n");
    for (size_t i = 0; i < nseen; i++)
        if (seen[i].service)
            fprintf(out, "  %s [%s]\n", seen[i].name, seen[i].type);
    bw_ros2_close(n, 0);
    return 0;
}

/* ---- echo: a message's CDR printed by its ros2msg schema ---------------------------- */

static const struct {
    const char *name;
    int size;
    char kind; /* u, i, f, b (bool), s (string) */
} prims[] = { { "bool", 1, 'b' },     { "byte", 1, 'u' },    { "char", 1, 'u' },
              { "uint8", 1, 'u' },    { "int8", 1, 'i' },    { "uint16", 2, 'u' },
              { "int16", 2, 'i' },    { "uint32", 4, 'u' },  { "int32", 4, 'i' },
              { "uint64", 8, 'u' },   { "int64", 8, 'i' },   { "float32", 4, 'f' },
              { "float64", 8, 'f' },  { "string", 4, 's' } };

/* A primitive's index ("string<=10" is a string), or -1. */
static int prim_of(const char *t)
{
    for (size_t i = 0; i < sizeof prims / sizeof prims[0]; i++) {
        size_t len = strlen(prims[i].name);
        if (!strncmp(t, prims[i].name, len) && (!t[len] || t[len] == '<'))
            return (int)i;
    }
    return -1;
}

typedef struct {
    const uint8_t *b;
    size_t n, at; /* the CDR after its encapsulation, and where we are */
    bool bad;
    FILE *out;
    const char *schema;
    char package[80]; /* the root type's, for names without one */
} cdr_t;

static bool take(cdr_t *c, void *v, size_t size)
{
    size_t at = (c->at + size - 1) / size * size; /* aligned, from the payload's start */
    if (c->bad || at + size > c->n) {
        c->bad = true;
        return false;
    }
    memcpy(v, c->b + at, size); /* little endian, as the node writes */
    c->at = at + size;
    return true;
}

static void print_double(FILE *out, double x)
{
    char buf[40];
    if (isnan(x)) {
        fputs(".nan", out);
        return;
    }
    if (isinf(x)) {
        fputs(x > 0 ? ".inf" : "-.inf", out);
        return;
    }
    for (int prec = 1; prec <= 17; prec++) { /* the shortest that reads back */
        snprintf(buf, sizeof buf, "%.*g", prec, x);
        if (strtod(buf, NULL) == x)
            break;
    }
    fputs(buf, out);
    if (!strpbrk(buf, ".eEn"))
        fputs(".0", out);
}

static void primitive(cdr_t *c, int k)
{
    uint8_t v[8] = { 0 };
    if (prims[k].kind == 's') {
        uint32_t n;
        if (!take(c, &n, 4))
            return;
        if (n == 0 || c->at + n > c->n) {
            c->bad = true;
            return;
        }
        const char *s = (const char *)c->b + c->at;
        c->at += n;
        if (n == 1)
            fputs("''", c->out);
        else
            fprintf(c->out, "%.*s", (int)(n - 1), s);
        return;
    }
    if (!take(c, v, (size_t)prims[k].size))
        return;
    if (prims[k].kind == 'b') {
        fputs(v[0] ? "true" : "false", c->out);
    } else if (prims[k].kind == 'f' && prims[k].size == 4) {
        float f;
        memcpy(&f, v, 4);
        print_double(c->out, f);
    } else if (prims[k].kind == 'f') {
        double d;
        memcpy(&d, v, 8);
        print_double(c->out, d);
    } else {
        uint64_t u = 0;
        memcpy(&u, v, (size_t)prims[k].size);
        if (prims[k].kind == 'i' && prims[k].size < 8 && (u >> (8 * prims[k].size - 1)))
            u |= ~0ull << (8 * prims[k].size); /* sign extended */
        if (prims[k].kind == 'i')
            fprintf(c->out, "%lld", (long long)u);
        else
            fprintf(c->out, "%llu", (unsigned long long)u);
    }
}

/* Type `type`'s fields (NULL: the root type's) as YAML, each key at indent
 * spaces but the first when inline_first (it follows a list's "- "), as
 * `ros2 topic echo` prints them. */
static void message(cdr_t *c, const char *type, int indent, bool inline_first, int depth)
{
    size_t len = 0;
    const char *sec = NULL;
    if (!type) {
        const char *sep = strstr(c->schema, "\n====");
        sec = c->schema;
        len = sep ? (size_t)(sep - sec) + 1 : strlen(sec);
    } else {
        char want[200];
        snprintf(want, sizeof want, "MSG: %s\n", type);
        const char *at = strstr(c->schema, want);
        if (at) {
            sec = at + strlen(want);
            const char *sep = strstr(sec, "\n====");
            len = sep ? (size_t)(sep - sec) + 1 : strlen(sec);
        }
    }
    if (!sec || depth > 16) {
        c->bad = true;
        return;
    }
    bool first = true;
    for (const char *line = sec, *end = sec + len; line < end && !c->bad;) {
        const char *nl = memchr(line, '\n', (size_t)(end - line));
        size_t n = nl ? (size_t)(nl - line) : (size_t)(end - line);
        char text[256], t[160], name[96];
        snprintf(text, sizeof text, "%.*s", (int)(n < 255 ? n : 255), line);
        line += n + 1;
        char *hash = strchr(text, '#');
        if (hash)
            *hash = 0;
        if (strchr(text, '=') || sscanf(text, "%159s %95s", t, name) != 2)
            continue; /* a constant, a comment, a blank line */
        char *br = strchr(t, '['); /* [] a sequence, [N] fixed, [<=N] bounded */
        long fixed = -1;
        if (br) {
            if (br[1] != ']' && br[1] != '<')
                fixed = strtol(br + 1, NULL, 10);
            *br = 0;
        }
        int k = prim_of(t);
        char full[240];
        if (k < 0 && !strchr(t, '/')) /* a type of the root's package */
            snprintf(full, sizeof full, "%s/%s", c->package, t);
        else
            snprintf(full, sizeof full, "%s", t);
        fprintf(c->out, "%*s%s:", first && inline_first ? 0 : indent, "", name);
        first = false;
        if (!br) {
            if (k >= 0) {
                fputc(' ', c->out);
                primitive(c, k);
                fputc('\n', c->out);
            } else {
                fputc('\n', c->out);
                message(c, full, indent + 2, false, depth + 1);
            }
            continue;
        }
        uint32_t count = (uint32_t)fixed;
        if (fixed < 0 && !take(c, &count, 4))
            break;
        if (count == 0) {
            fputs(" []\n", c->out);
            continue;
        }
        fputc('\n', c->out);
        for (uint32_t i = 0; i < count && !c->bad; i++) {
            fprintf(c->out, "%*s- ", indent, "");
            if (k >= 0) {
                primitive(c, k);
                fputc('\n', c->out);
            } else {
                message(c, full, indent + 2, true, depth + 1);
            }
        }
    }
}

int bw_ros2_print_cdr(const char *type, const char *schema, const uint8_t *data, size_t len,
                      FILE *out)
{
    if (len < 4 || data[0] != 0x00 || data[1] != 0x01)
        return -1; /* plain CDR, little endian, alone */
    cdr_t c = { .b = data + 4, .n = len - 4, .out = out, .schema = schema };
    const char *slash = strchr(type, '/');
    snprintf(c.package, sizeof c.package, "%.*s", slash ? (int)(slash - type) : 0, type);
    message(&c, NULL, 0, false, 0);
    fputs("---\n", out);
    return c.bad ? -1 : 0;
}

int bw_ros2_echo(const bw_ros2_options_t *opt, const char *topic, double seconds, long count,
                 FILE *out, char *err, size_t errlen)
{
    char dds_topic[300];
    snprintf(dds_topic, sizeof dds_topic, "rt%s%s", topic[0] == '/' ? "" : "/", topic);
    bw_ros2_t *n;
    int rc = bw_ros2_open(&n, opt, err, errlen);
    if (rc < 0)
        return rc;
    dds_entity_t pp = bw_ros2_participant(n);
    dds_entity_t pubs = dds_create_reader(pp, DDS_BUILTIN_TOPIC_DCPSPUBLICATION, NULL, NULL);
    /* its type and QoS, from a writer of it */
    dds_time_t end = dds_time() + (dds_duration_t)(seconds * 1e9);
    char dds_type[200] = "";
    dds_reliability_kind_t rel = DDS_RELIABILITY_RELIABLE;
    dds_durability_kind_t dur = DDS_DURABILITY_VOLATILE;
    while (!dds_type[0] && dds_time() < end) {
        void *s[32] = { NULL };
        dds_sample_info_t info[32];
        int got = dds_read(pubs, s, info, 32, 32);
        for (int i = 0; i < got; i++) {
            const dds_builtintopic_endpoint_t *e = s[i];
            if (!dds_type[0] && info[i].valid_data && e->topic_name && e->type_name &&
                !strcmp(e->topic_name, dds_topic)) {
                dds_duration_t block;
                snprintf(dds_type, sizeof dds_type, "%s", e->type_name);
                dds_qget_reliability(e->qos, &rel, &block);
                dds_qget_durability(e->qos, &dur);
            }
        }
        if (got > 0)
            dds_return_loan(pubs, s, got);
        if (!dds_type[0])
            dds_sleepfor(DDS_MSECS(20));
    }
    char type[200];
    const dds_topic_descriptor_t *d = dds_type[0] ? bw_ros2_descriptor(dds_type, opt ? opt->distro : 0)
                                                  : NULL;
    bw_ros2_type_of_dds(type, sizeof type, dds_type);
    const char *schema = d ? bw_ros2_schema(type, opt ? opt->distro : 0) : NULL;
    if (!dds_type[0] || !d || !schema) {
        if (!dds_type[0])
            snprintf(err, errlen, "%s: no publisher seen in %g s (is the node on this domain?)",
                     topic, seconds);
        else
            snprintf(err, errlen, "%s: type %s is not one botwire knows", topic, type);
        bw_ros2_close(n, 0);
        return BW_EINVAL;
    }
    dds_entity_t t = dds_create_topic(pp, d, dds_topic, NULL, NULL);
    dds_qos_t *q = dds_create_qos();
    dds_qset_reliability(q, rel, DDS_INFINITY);
    dds_qset_durability(q, dur);
    dds_qset_history(q, DDS_HISTORY_KEEP_LAST, 100);
    dds_entity_t r = t < 0 ? t : dds_create_reader(pp, t, q, NULL);
    dds_delete_qos(q);
    long printed = 0;
    while (r > 0 && (count <= 0 || printed < count) && dds_time() < end) {
        void *s[16] = { NULL };
        dds_sample_info_t info[16];
        int got = dds_take(r, s, info, 16, 16);
        for (int i = 0; i < got && (count <= 0 || printed < count); i++) {
            if (!info[i].valid_data)
                continue;
            dds_ostreamLE_t os;
            dds_ostreamLE_init(&os, 256, 1);
            dds_stream_writeLE(&os, s[i], d->m_ops);
            uint8_t *buf = malloc(4 + os.x.m_index);
            if (buf) {
                static const uint8_t cdr_le[4] = { 0x00, 0x01, 0x00, 0x00 };
                memcpy(buf, cdr_le, 4);
                memcpy(buf + 4, os.x.m_buffer, os.x.m_index);
                bw_ros2_print_cdr(type, schema, buf, 4 + os.x.m_index, out);
                fflush(out);
                free(buf);
                printed++;
            }
            dds_ostreamLE_fini(&os);
        }
        if (got > 0)
            dds_return_loan(r, s, got);
        else
            dds_sleepfor(DDS_MSECS(10));
    }
    bw_ros2_close(n, 0);
    if (printed == 0) {
        snprintf(err, errlen, "%s: no message in %g s", topic, seconds);
        return BW_EIO;
    }
    return 0;
}

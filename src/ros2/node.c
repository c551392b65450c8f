/*
 * Bases as ROS 2 nodes over Cyclone DDS (botwire/ros2.h): what
 * rmw_cyclonedds_cpp puts on the wire for a node, with the types compiled
 * by Cyclone's idlc from src/ros2/idl. docs/ros2.md says where each rule
 * comes from.
 */
#include <math.h>
#include <stddef.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <dds/dds.h>
/* Cyclone's serializer, the one its writers use, for the CDR view; its
 * headers spell GNU C's asm the short way, which ISO C does not know. */
#define asm __asm__
#include <dds/ddsi/ddsi_cdrstream.h>
#undef asm

#include "botwire/ros2.h"

/* The types, as idlc wrote them from src/ros2/idl into the build. */
#include <diagnostic_msgs.h>
#include <humble.h>
#include <nav_msgs.h>
#include <rmw_dds_common.h>
#include <sensor_msgs.h>
#include <std_msgs.h>
#include <tf2_msgs.h>

#define NAME_MAX_LEN 128
#define MAX_GIDS 64 /* a node's readers and writers: 12 + its ranges */

/* ---- what each topic is ----------------------------------------------------- */

/* ROS 2 Jazzy's type hashes (RIHS01: SHA-256 of the type description),
 * carried in each reader's and writer's USER_DATA as rmw_cyclonedds does;
 * a Humble node sends none. */
#define HASH_ODOMETRY "RIHS01_3cc97dc7fb7502f8714462c526d369e35b603cfc34d946e3f2eda2766dfec6e0"
#define HASH_TFMESSAGE "RIHS01_e369d0f05a23ae52508854b66f6aa0437f3449d652e8cbf22d5abe85d020f087"
#define HASH_TWIST "RIHS01_9c45bf16fe0983d80e3cfe750d6835843d265a9a6c46bd2e609fcddde6fb8d2a"
#define HASH_TWIST_STAMPED "RIHS01_5f0fcd4f81d5d06ad9b4c4c63e3ea51b82d6ae4d0558f1d475229b1121db6f64"
#define HASH_RANGE "RIHS01_b42b62562e93cbfe9d42b82fe5994dfa3d63d7d5c90a317981703f7388adff3a"
#define HASH_UINT32 "RIHS01_a5c874829b752bc5fa190024b0ad76f578cc278271e855c7d02a818b3516fb4a"
#define HASH_STRING "RIHS01_df668c740482bbd48fb39d76a70dfd4bd59db1288021743503259e948f6b1a18"
#define HASH_BATTERY "RIHS01_4bee5dfce981c98faa6828b868307a0a73f992ed0789f374ee96c8f840e69741"
#define HASH_DIAGNOSTICS "RIHS01_5a8a36efb05fb25070fa0fb3810290c0e6cd4862b54a8fb975a1ee8dc55a333e"
#define HASH_PARTICIPANT "RIHS01_91a0593bacdcc50ea9bdcf849a938b128412cc1ea821245c663bcd26f83c295e"

/* The topics a robot publishes: their names, ROS 2 types (whose ros2msg
 * schemas are in schemas.c), how they are kept (ROS 2's profiles as
 * rmw_cyclonedds maps them: bw_ros2_qos_t) and Jazzy's type hashes. */
enum { T_ODOM, T_TF, T_TF_STATIC, T_BUMPER, T_CLIFF, T_DROP, T_EVENTS, T_BATTERY, T_DIAG, T_RANGE };
static const struct {
    const char *name; /* relative to the namespace unless it starts with '/' */
    const char *type;
    bw_ros2_qos_t qos; /* as the node offers it */
    int depth;         /* keep last */
    const char *hash;
} topics[] = {
    [T_ODOM] = { "odom", "nav_msgs/msg/Odometry", BW_ROS2_QOS_DEFAULT, 10, HASH_ODOMETRY },
    [T_TF] = { "/tf", "tf2_msgs/msg/TFMessage", BW_ROS2_QOS_DEFAULT, 100, HASH_TFMESSAGE },
    [T_TF_STATIC] = { "/tf_static", "tf2_msgs/msg/TFMessage", BW_ROS2_QOS_LATCHED, 1, HASH_TFMESSAGE },
    [T_BUMPER] = { "bumper", "std_msgs/msg/UInt32", BW_ROS2_QOS_LATCHED, 1, HASH_UINT32 },
    [T_CLIFF] = { "cliff", "std_msgs/msg/UInt32", BW_ROS2_QOS_LATCHED, 1, HASH_UINT32 },
    [T_DROP] = { "wheel_drop", "std_msgs/msg/UInt32", BW_ROS2_QOS_LATCHED, 1, HASH_UINT32 },
    [T_EVENTS] = { "events", "std_msgs/msg/String", BW_ROS2_QOS_DEFAULT, 50, HASH_STRING },
    [T_BATTERY] = { "battery", "sensor_msgs/msg/BatteryState", BW_ROS2_QOS_DEFAULT, 1, HASH_BATTERY },
    [T_DIAG] = { "/diagnostics", "diagnostic_msgs/msg/DiagnosticArray", BW_ROS2_QOS_DEFAULT, 10,
      HASH_DIAGNOSTICS },
    [T_RANGE] = { "range/", "sensor_msgs/msg/Range", BW_ROS2_QOS_SENSOR, 5, HASH_RANGE },
};

struct bw_ros2;

typedef struct {
    struct bw_ros2 *node;
    bw_base_t *base;
    char ns[NAME_MAX_LEN];     /* "/robot1", or "/" */
    char url[256];
    char odom_frame[NAME_MAX_LEN + 16], base_frame[NAME_MAX_LEN + 16], range_prefix[NAME_MAX_LEN + 16];
    dds_entity_t writer[T_RANGE], cmd; /* a node's: a writer a topic, cmd_vel's reader */
    bool stamped;                      /* cmd_vel is TwistStamped */
    char cmd_topic[2 * NAME_MAX_LEN + 8]; /* its DDS name: "rt/robot1/cmd_vel" */
    dds_guid_t told[16];               /* writers of the other type already said */
    unsigned ntold;
    dds_entity_t range[BW_BASE_MAX_RANGES];
    unsigned nranges;
    double range_t[BW_BASE_MAX_RANGES];
    /* the node's readers and writers, for ros_discovery_info */
    dds_guid_t readers[MAX_GIDS], writers[MAX_GIDS];
    unsigned nreaders, nwriters;
    double v, w, last_cmd, last_state_t, last_diag;
    bool have_cmd, driving;
    uint32_t last_mask[3];
    bool sent_mask[3];
    /* what the node's options say, per robot: a CDR view has no node */
    bool no_tf;
    bw_ros2_distro_t distro;
    double diagnostic_period;
    /* a CDR view's: where its messages go, serialized (node NULL) */
    bw_ros2_cdr_fn cdr_fn;
    void *cdr_ctx;
    uint8_t *cdr_buf;
    size_t cdr_cap;
} robot_t;

struct bw_ros2 {
    bw_ros2_options_t opt;
    dds_entity_t domain, participant, info_writer, info_reader;
    dds_entity_t publications; /* the domain's writers (DCPSPublication) */
    dds_topic_descriptor_t *range_desc, *info_desc; /* by distro */
    robot_t **robots;
    size_t nrobots;
    bw_ros2_stats_t stats;
};

static const dds_topic_descriptor_t *descriptor_of(const robot_t *r, int topic)
{
    switch (topic) {
    case T_ODOM: return &nav_msgs_msg_dds__Odometry__desc;
    case T_TF:
    case T_TF_STATIC: return &tf2_msgs_msg_dds__TFMessage__desc;
    case T_BUMPER:
    case T_CLIFF:
    case T_DROP: return &std_msgs_msg_dds__UInt32__desc;
    case T_EVENTS: return &std_msgs_msg_dds__String__desc;
    case T_BATTERY: return &sensor_msgs_msg_dds__BatteryState__desc;
    case T_DIAG: return &diagnostic_msgs_msg_dds__DiagnosticArray__desc;
    default:
        return r->distro == BW_ROS2_HUMBLE ? &humble_sensor_msgs_msg_dds__Range__desc
                                           : &sensor_msgs_msg_dds__Range__desc;
    }
}

static dds_entity_t writer_of(const robot_t *r, int topic, unsigned i)
{
    return topic == T_RANGE ? r->range[i] : r->writer[topic];
}

/* A message out, counted: written to DDS (the node), or serialized as
 * rmw_cyclonedds serializes it (plain CDR, little endian, after its
 * encapsulation header) and handed on (a CDR view). One serialization for
 * both: the types idlc compiled. */
static void out(robot_t *r, int topic, unsigned i, const void *sample,
                builtin_interfaces_msg_dds__Time_ stamp)
{
    if (r->node) {
        if (dds_write(writer_of(r, topic, i), sample) == DDS_RETCODE_OK)
            r->node->stats.published++;
        return;
    }
    dds_ostreamLE_t os;
    dds_ostreamLE_init(&os, 256, 1); /* XCDR1: the encoding ROS 2 uses */
    dds_stream_writeLE(&os, sample, descriptor_of(r, topic)->m_ops);
    size_t len = 4 + os.x.m_index;
    if (len > r->cdr_cap) {
        uint8_t *p = realloc(r->cdr_buf, len * 2);
        if (!p) {
            dds_ostreamLE_fini(&os);
            return;
        }
        r->cdr_buf = p;
        r->cdr_cap = len * 2;
    }
    static const uint8_t cdr_le[4] = { 0x00, 0x01, 0x00, 0x00 };
    memcpy(r->cdr_buf, cdr_le, 4);
    memcpy(r->cdr_buf + 4, os.x.m_buffer, os.x.m_index);
    dds_ostreamLE_fini(&os);
    char name[NAME_MAX_LEN * 2];
    const char *t = topics[topic].name;
    if (t[0] == '/')
        snprintf(name, sizeof name, "%s", t);
    else if (topic == T_RANGE)
        snprintf(name, sizeof name, "%s%srange/%u", r->ns, strcmp(r->ns, "/") ? "/" : "", i);
    else
        snprintf(name, sizeof name, "%s%s%s", r->ns, strcmp(r->ns, "/") ? "/" : "", t);
    bw_ros2_cdr_msg_t m = { name, topics[topic].type, bw_ros2_schema(topics[topic].type, r->distro),
                            r->cdr_buf, len,
                            (uint64_t)stamp.sec * 1000000000u + stamp.nanosec,
                            topics[topic].qos, topics[topic].depth };
    r->cdr_fn(r->cdr_ctx, &m);
}

static void say(char *err, size_t cap, const char *fmt, ...)
{
    if (!err || !cap)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, cap, fmt, ap);
    va_end(ap);
}

/* A line the node says, to whoever the options name. */
static void node_says(const bw_ros2_t *n, const char *fmt, ...)
{
    if (!n->opt.log)
        return;
    char line[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    n->opt.log(n->opt.log_ctx, line);
}

static const char *const distro_names[] = {
    [BW_ROS2_HUMBLE] = "humble",
    [BW_ROS2_JAZZY] = "jazzy",
    [BW_ROS2_KILTED] = "kilted",
    [BW_ROS2_LYRICAL] = "lyrical",
};

int bw_ros2_distro_parse(const char *name, bw_ros2_distro_t *distro)
{
    for (size_t i = 0; i < sizeof distro_names / sizeof distro_names[0]; i++)
        if (distro_names[i] && name && !strcmp(name, distro_names[i])) {
            *distro = (bw_ros2_distro_t)i;
            return 0;
        }
    return -1;
}

const char *bw_ros2_distro_name(bw_ros2_distro_t distro)
{
    static const char *const titles[] = {
        [BW_ROS2_HUMBLE] = "Humble",
        [BW_ROS2_JAZZY] = "Jazzy",
        [BW_ROS2_KILTED] = "Kilted",
        [BW_ROS2_LYRICAL] = "Lyrical",
    };
    return (unsigned)distro < sizeof titles / sizeof titles[0] ? titles[distro] : "?";
}

/* Nav2 sends TwistStamped from Kilted on (enable_stamped_cmd_vel), as
 * diff_drive_controller takes it from Jazzy's; earlier stacks Twist. */
bw_ros2_cmd_vel_t bw_ros2_cmd_vel_of(const bw_ros2_options_t *opt)
{
    if (opt->cmd_vel != BW_ROS2_CMD_VEL_DEFAULT)
        return opt->cmd_vel;
    return opt->distro == BW_ROS2_KILTED || opt->distro == BW_ROS2_LYRICAL ? BW_ROS2_CMD_VEL_STAMPED
                                                                           : BW_ROS2_CMD_VEL_TWIST;
}

/* "geometry_msgs::msg::dds_::Twist_" as ROS 2 names it:
 * "geometry_msgs/msg/Twist". */
static void ros_type_of(char *out, size_t cap, const char *dds)
{
    size_t k = 0;
    for (const char *p = dds; *p && k + 1 < cap;) {
        if (!strncmp(p, "dds_::", 6)) {
            p += 6;
        } else if (!strncmp(p, "::", 2)) {
            out[k++] = '/';
            p += 2;
        } else {
            out[k++] = *p++;
        }
    }
    if (k && out[k - 1] == '_')
        k--;
    out[k] = 0;
}

/* ROS time: the wall clock (no /clock here). */
static builtin_interfaces_msg_dds__Time_ ros_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    builtin_interfaces_msg_dds__Time_ t = { (int32_t)ts.tv_sec, (uint32_t)ts.tv_nsec };
    return t;
}

static dds_qos_t *make_qos(const bw_ros2_t *n, bw_ros2_qos_t kind, int32_t depth, const char *hash)
{
    dds_qos_t *q = dds_create_qos();
    dds_qset_history(q, DDS_HISTORY_KEEP_LAST, depth);
    if (kind == BW_ROS2_QOS_SENSOR)
        dds_qset_reliability(q, DDS_RELIABILITY_BEST_EFFORT, 0);
    else
        dds_qset_reliability(q, DDS_RELIABILITY_RELIABLE, DDS_INFINITY);
    if (kind == BW_ROS2_QOS_LATCHED) {
        dds_qset_durability(q, DDS_DURABILITY_TRANSIENT_LOCAL);
        dds_qset_durability_service(q, 0, DDS_HISTORY_KEEP_LAST, depth, DDS_LENGTH_UNLIMITED,
                                    DDS_LENGTH_UNLIMITED, DDS_LENGTH_UNLIMITED);
    } else {
        dds_qset_durability(q, DDS_DURABILITY_VOLATILE);
    }
    dds_qset_writer_data_lifecycle(q, false);
    dds_qset_liveliness(q, DDS_LIVELINESS_AUTOMATIC, DDS_INFINITY);
    /* rmw_cyclonedds's serializer allows XCDR1 alone: its endpoints offer
     * that one representation (Cyclone's own types offer XCDR2 too). */
    static const dds_data_representation_id_t xcdr1[] = { DDS_DATA_REPRESENTATION_XCDR1 };
    dds_qset_data_representation(q, 1, xcdr1);
    if (n->opt.distro != BW_ROS2_HUMBLE && hash) {
        char user[96];
        int len = snprintf(user, sizeof user, "typehash=%s;", hash);
        dds_qset_userdata(q, user, (size_t)len);
    }
    return q;
}

/* "rt" + the topic's full ROS name: "rt/robot1/odom", "rt/tf". */
static void dds_topic_name(char *out, size_t cap, const char *ns, const char *name)
{
    if (name[0] == '/')
        snprintf(out, cap, "rt%s", name);
    else if (!strcmp(ns, "/"))
        snprintf(out, cap, "rt/%s", name);
    else
        snprintf(out, cap, "rt%s/%s", ns, name);
}

static dds_entity_t endpoint(robot_t *r, bool writer, const dds_topic_descriptor_t *desc,
                             const char *name, bw_ros2_qos_t kind, int32_t depth, const char *hash)
{
    bw_ros2_t *n = r->node;
    char full[2 * NAME_MAX_LEN + 8];
    dds_topic_name(full, sizeof full, r->ns, name);
    dds_entity_t topic = dds_create_topic(n->participant, desc, full, NULL, NULL);
    if (topic < 0)
        return topic;
    dds_qos_t *q = make_qos(n, kind, depth, hash);
    dds_entity_t e = writer ? dds_create_writer(n->participant, topic, q, NULL)
                            : dds_create_reader(n->participant, topic, q, NULL);
    dds_delete_qos(q);
    if (e < 0)
        return e;
    dds_guid_t *list = writer ? r->writers : r->readers;
    unsigned *count = writer ? &r->nwriters : &r->nreaders;
    if (*count < MAX_GIDS && dds_get_guid(e, &list[*count]) == DDS_RETCODE_OK)
        (*count)++;
    return e;
}

/* ---- ros_discovery_info: the nodes of this participant ------------------------- */

static void copy_gid(uint8_t *to, size_t cap, const dds_guid_t *g)
{
    memset(to, 0, cap);
    memcpy(to, g->v, sizeof g->v < cap ? sizeof g->v : cap);
}

/* The whole participant's nodes, as rmw_dds_common's graph cache sends
 * them after every change (a snapshot, not a delta). One body for the two
 * layouts (a Gid of 16 bytes in Jazzy, 24 in Humble), over the types idlc
 * generated for each: T is the generated names' prefix. */
#define DEFINE_ANNOUNCE(fn, T)                                                                  \
    static void fn(bw_ros2_t *n, const dds_guid_t *pg)                                         \
    {                                                                                          \
        size_t k = n->nrobots;                                                                 \
        T##ParticipantEntitiesInfo_ m;                                                         \
        memset(&m, 0, sizeof m);                                                               \
        copy_gid(m.gid.data, sizeof m.gid.data, pg);                                           \
        T##NodeEntitiesInfo_ *nodes = calloc(k ? k : 1, sizeof *nodes);                        \
        T##Gid_ *gids = calloc(k ? k * 2 * MAX_GIDS : 1, sizeof *gids);                        \
        if (!nodes || !gids) {                                                                 \
            free(nodes);                                                                       \
            free(gids);                                                                        \
            return;                                                                            \
        }                                                                                      \
        for (size_t i = 0; i < k; i++) {                                                       \
            robot_t *r = n->robots[i];                                                         \
            T##Gid_ *rg = gids + i * 2 * MAX_GIDS, *wg = rg + MAX_GIDS;                        \
            for (unsigned j = 0; j < r->nreaders; j++)                                         \
                copy_gid(rg[j].data, sizeof rg[j].data, &r->readers[j]);                       \
            for (unsigned j = 0; j < r->nwriters; j++)                                         \
                copy_gid(wg[j].data, sizeof wg[j].data, &r->writers[j]);                       \
            snprintf(nodes[i].node_namespace, sizeof nodes[i].node_namespace, "%s", r->ns);    \
            snprintf(nodes[i].node_name, sizeof nodes[i].node_name, "botwire");                \
            nodes[i].reader_gid_seq =                                                          \
                (dds_sequence_##T##Gid_){ r->nreaders, r->nreaders, rg, false };               \
            nodes[i].writer_gid_seq =                                                          \
                (dds_sequence_##T##Gid_){ r->nwriters, r->nwriters, wg, false };               \
        }                                                                                      \
        m.node_entities_info_seq._length = m.node_entities_info_seq._maximum = (uint32_t)k;    \
        m.node_entities_info_seq._buffer = nodes;                                              \
        dds_write(n->info_writer, &m);                                                         \
        free(nodes);                                                                           \
        free(gids);                                                                            \
    }
DEFINE_ANNOUNCE(announce_jazzy, rmw_dds_common_msg_dds__)
DEFINE_ANNOUNCE(announce_humble, humble_rmw_dds_common_msg_dds__)

static void announce(bw_ros2_t *n)
{
    dds_guid_t pg;
    if (dds_get_guid(n->participant, &pg) != DDS_RETCODE_OK)
        return;
    if (n->opt.distro == BW_ROS2_HUMBLE)
        announce_humble(n, &pg);
    else
        announce_jazzy(n, &pg);
}

/* ---- the domain and its configuration -------------------------------------- */

/* What rmw_cyclonedds puts before CYCLONEDDS_URI for ROS 2's discovery
 * settings: Humble's ROS_LOCALHOST_ONLY=1 binds to the loopback; Jazzy's
 * ROS_AUTOMATIC_DISCOVERY_RANGE (SUBNET unless set; ROS_LOCALHOST_ONLY=1
 * means LOCALHOST) and ROS_STATIC_PEERS. */
static int discovery_config(const bw_ros2_t *n, char *out, size_t cap, char *err, size_t errlen)
{
    const char *local = getenv("ROS_LOCALHOST_ONLY");
    bool localhost_only = local && !strcmp(local, "1");
    out[0] = 0;
    if (n->opt.distro == BW_ROS2_HUMBLE) {
        if (localhost_only)
            snprintf(out, cap, "<CycloneDDS><Domain><General><Interfaces><NetworkInterface "
                               "address=\"127.0.0.1\"/></Interfaces></General></Domain></CycloneDDS>");
        return 0;
    }
    const char *range = getenv("ROS_AUTOMATIC_DISCOVERY_RANGE");
    const char *peers = getenv("ROS_STATIC_PEERS");
    if (localhost_only) {
        range = "LOCALHOST";
        peers = NULL;
    }
    if (!range || !*range)
        range = "SUBNET";
    char peer_xml[1024] = "";
    size_t used = 0;
    if (peers && *peers && strcmp(range, "OFF") != 0 && strcmp(range, "SYSTEM_DEFAULT") != 0) {
        const char *p = peers;
        while (*p) {
            size_t len = strcspn(p, ";");
            if (len) {
                if (len > 255) {
                    say(err, errlen, "ROS_STATIC_PEERS: a peer of more than 255 characters");
                    return -1;
                }
                int w = snprintf(peer_xml + used, sizeof peer_xml - used,
                                 "<Peer address=\"%.*s\"/>", (int)len, p);
                if (w < 0 || (size_t)w >= sizeof peer_xml - used) {
                    say(err, errlen, "ROS_STATIC_PEERS: too many peers");
                    return -1;
                }
                used += (size_t)w;
            }
            p += len;
            if (*p == ';')
                p++;
        }
    }
    if (!strcmp(range, "SUBNET")) {
        snprintf(out, cap,
                 "<CycloneDDS><Domain><Discovery><ParticipantIndex>auto</ParticipantIndex>"
                 "<MaxAutoParticipantIndex>32</MaxAutoParticipantIndex>%s%s%s</Discovery></Domain>"
                 "</CycloneDDS>",
                 used ? "<Peers>" : "", peer_xml, used ? "</Peers>" : "");
    } else if (!strcmp(range, "LOCALHOST")) {
        snprintf(out, cap,
                 "<CycloneDDS><Domain><General><AllowMulticast>false</AllowMulticast></General>"
                 "<Discovery><ParticipantIndex>auto</ParticipantIndex><MaxAutoParticipantIndex>32"
                 "</MaxAutoParticipantIndex><Peers><Peer address=\"localhost\"/>%s</Peers>"
                 "</Discovery></Domain></CycloneDDS>",
                 peer_xml);
    } else if (!strcmp(range, "OFF")) {
        snprintf(out, cap,
                 "<CycloneDDS><Domain><General><AllowMulticast>false</AllowMulticast></General>"
                 "<Discovery><ParticipantIndex>none</ParticipantIndex><Tag>ros_discovery_off_%ld"
                 "</Tag></Discovery></Domain></CycloneDDS>",
                 (long)getpid());
    } else if (strcmp(range, "SYSTEM_DEFAULT") != 0) {
        say(err, errlen,
            "ROS_AUTOMATIC_DISCOVERY_RANGE=%s: not OFF, LOCALHOST, SUBNET or SYSTEM_DEFAULT", range);
        return -1;
    }
    return 0;
}

/* A copy of a topic descriptor under another type name (its fields are
 * const: copied as bytes into storage of our own). */
static dds_topic_descriptor_t *renamed(const dds_topic_descriptor_t *d, const char *name)
{
    dds_topic_descriptor_t *copy = malloc(sizeof *copy);
    if (!copy)
        return NULL;
    memcpy(copy, d, sizeof *copy);
    memcpy((char *)copy + offsetof(dds_topic_descriptor_t, m_typename), &name, sizeof name);
    return copy;
}

int bw_ros2_open(bw_ros2_t **node, const bw_ros2_options_t *opt, char *err, size_t errlen)
{
    *node = NULL;
    bw_ros2_t *n = calloc(1, sizeof *n);
    if (!n) {
        say(err, errlen, "out of memory");
        return BW_ENOMEM;
    }
    if (opt)
        n->opt = *opt;
    if (!(n->opt.cmd_vel_timeout > 0))
        n->opt.cmd_vel_timeout = 0.6;
    if (!(n->opt.diagnostic_period > 0))
        n->opt.diagnostic_period = 1.0;
    long domain = n->opt.domain;
    if (domain < 0) {
        const char *env = getenv("ROS_DOMAIN_ID");
        domain = 0;
        if (env && *env) {
            char *end;
            domain = strtol(env, &end, 10);
            if (*end || domain < 0 || domain > 232) {
                say(err, errlen, "ROS_DOMAIN_ID=%s: not a domain from 0 to 232", env);
                free(n);
                return BW_EINVAL;
            }
        }
    }
    if (domain > 232) {
        say(err, errlen, "domain %ld: ROS 2 domains are 0 to 232", domain);
        free(n);
        return BW_EINVAL;
    }
    n->opt.domain = (int)domain;

    /* The config: ROS 2's discovery settings, then the user's Cyclone
     * configuration (CYCLONEDDS_URI), which has the last word. */
    char ros_xml[2048];
    if (discovery_config(n, ros_xml, sizeof ros_xml, err, errlen) < 0) {
        free(n);
        return BW_EINVAL;
    }
    const char *uri = getenv("CYCLONEDDS_URI");
    size_t cap = strlen(ros_xml) + (uri ? strlen(uri) : 0) + 2;
    char *config = malloc(cap);
    if (!config) {
        free(n);
        say(err, errlen, "out of memory");
        return BW_ENOMEM;
    }
    snprintf(config, cap, "%s%s%s", ros_xml, ros_xml[0] && uri && *uri ? "," : "",
             uri ? uri : "");
    n->domain = dds_create_domain((dds_domainid_t)domain, config);
    free(config);
    if (n->domain < 0 && n->domain != DDS_RETCODE_PRECONDITION_NOT_MET) {
        say(err, errlen, "DDS domain %ld: %s (see CYCLONEDDS_URI)", domain,
            dds_strretcode(n->domain));
        free(n);
        return BW_EIO;
    }
    dds_qos_t *q = dds_create_qos();
    static const char enclave[] = "enclave=/;"; /* no NUL on the wire */
    dds_qset_userdata(q, enclave, sizeof enclave - 1);
    n->participant = dds_create_participant((dds_domainid_t)domain, q, NULL);
    dds_delete_qos(q);
    if (n->participant < 0) {
        say(err, errlen, "DDS participant on domain %ld: %s", domain,
            dds_strretcode(n->participant));
        if (n->domain > 0)
            dds_delete(n->domain);
        free(n);
        return BW_EIO;
    }

    /* The types whose layout depends on the release carry the ROS 2 name
     * whichever C struct holds them. */
    n->range_desc = renamed(n->opt.distro == BW_ROS2_HUMBLE ? &humble_sensor_msgs_msg_dds__Range__desc
                                                            : &sensor_msgs_msg_dds__Range__desc,
                            "sensor_msgs::msg::dds_::Range_");
    n->info_desc = renamed(n->opt.distro == BW_ROS2_HUMBLE
                               ? &humble_rmw_dds_common_msg_dds__ParticipantEntitiesInfo__desc
                               : &rmw_dds_common_msg_dds__ParticipantEntitiesInfo__desc,
                           "rmw_dds_common::msg::dds_::ParticipantEntitiesInfo_");
    if (!n->range_desc || !n->info_desc) {
        say(err, errlen, "out of memory");
        bw_ros2_close(n, 0);
        return BW_ENOMEM;
    }

    /* ros_discovery_info: no "rt", reliable, transient local, the last
     * snapshot; the reader, keep all, never hears its own participant. */
    dds_entity_t topic = dds_create_topic(n->participant, n->info_desc, "ros_discovery_info",
                                          NULL, NULL);
    q = make_qos(n, BW_ROS2_QOS_LATCHED, 1, HASH_PARTICIPANT);
    n->info_writer = topic < 0 ? topic : dds_create_writer(n->participant, topic, q, NULL);
    dds_qset_history(q, DDS_HISTORY_KEEP_ALL, 0);
    dds_qset_ignorelocal(q, DDS_IGNORELOCAL_PARTICIPANT);
    n->info_reader = topic < 0 ? topic : dds_create_reader(n->participant, topic, q, NULL);
    dds_delete_qos(q);
    if (n->info_writer < 0 || n->info_reader < 0) {
        say(err, errlen, "ros_discovery_info: %s",
            dds_strretcode(n->info_writer < 0 ? n->info_writer : n->info_reader));
        bw_ros2_close(n, 0);
        return BW_EIO;
    }
    /* The domain's writers, to tell the user of one on a robot's cmd_vel
     * whose type the node does not take (never silent). */
    n->publications = dds_create_reader(n->participant, DDS_BUILTIN_TOPIC_DCPSPUBLICATION, NULL, NULL);
    announce(n);
    *node = n;
    return 0;
}

/* ---- a robot as a node ---------------------------------------------------------- */

/* A ROS 2 name: letters, digits, '_' and '/', not starting with a digit. */
static bool name_ok(const char *s)
{
    for (const char *p = s; *p; p++) {
        char c = *p;
        bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == '/' ||
                  (c >= '0' && c <= '9' && p != s && p[-1] != '/');
        if (!ok)
            return false;
    }
    return !strstr(s, "//");
}

/* A robot's names and frames, from its namespace (and a frame prefix, or
 * the namespace's): 0, or BW_EINVAL with err. */
static int name_robot(robot_t *r, bw_base_t *base, const char *ns, const char *frame_prefix,
                      const char *url, const bw_ros2_options_t *opt, char *err, size_t errlen)
{
    r->base = base;
    r->no_tf = opt->no_tf;
    r->distro = opt->distro;
    r->diagnostic_period = opt->diagnostic_period > 0 ? opt->diagnostic_period : 1.0;
    /* the namespace: "/" or "/a/b", no trailing '/' */
    const char *s = ns ? ns : "";
    while (*s == '/')
        s++;
    size_t len = strlen(s);
    while (len && s[len - 1] == '/')
        len--;
    if (len + 2 > sizeof r->ns || !name_ok(s)) {
        say(err, errlen, "namespace \"%s\": a ROS 2 name is letters, digits, '_' and '/'", ns);
        return BW_EINVAL;
    }
    snprintf(r->ns, sizeof r->ns, "/%.*s", (int)len, s);
    char prefix[NAME_MAX_LEN];
    if (frame_prefix)
        snprintf(prefix, sizeof prefix, "%s", frame_prefix);
    else
        snprintf(prefix, sizeof prefix, "%.*s%s", (int)len, s, len ? "/" : "");
    snprintf(r->odom_frame, sizeof r->odom_frame, "%sodom", prefix);
    snprintf(r->base_frame, sizeof r->base_frame, "%sbase_footprint", prefix);
    snprintf(r->range_prefix, sizeof r->range_prefix, "%srange_", prefix);
    snprintf(r->url, sizeof r->url, "%s", url ? url : "");
    r->last_state_t = -1;
    r->last_diag = -1e9;
    return 0;
}

int bw_ros2_add(bw_ros2_t *n, bw_base_t *base, const char *ns, const char *frame_prefix,
                const char *url, char *err, size_t errlen)
{
    robot_t *r = calloc(1, sizeof *r);
    robot_t **grown = realloc(n->robots, (n->nrobots + 1) * sizeof *grown);
    if (!r || !grown) {
        free(r);
        if (grown)
            n->robots = grown;
        say(err, errlen, "out of memory");
        return BW_ENOMEM;
    }
    n->robots = grown;
    r->node = n;
    if (name_robot(r, base, ns, frame_prefix, url, &n->opt, err, errlen) < 0) {
        free(r);
        return BW_EINVAL;
    }

    for (int t = 0; t < T_RANGE; t++)
        r->writer[t] = endpoint(r, true, descriptor_of(r, t), topics[t].name, topics[t].qos,
                                topics[t].depth, topics[t].hash);
    r->stamped = bw_ros2_cmd_vel_of(&n->opt) == BW_ROS2_CMD_VEL_STAMPED;
    dds_topic_name(r->cmd_topic, sizeof r->cmd_topic, r->ns, "cmd_vel");
    r->cmd = endpoint(r, false,
                      r->stamped ? &geometry_msgs_msg_dds__TwistStamped__desc
                                 : &geometry_msgs_msg_dds__Twist__desc,
                      "cmd_vel", BW_ROS2_QOS_DEFAULT, 10, r->stamped ? HASH_TWIST_STAMPED : HASH_TWIST);
    for (int t = 0; t <= T_RANGE; t++) {
        dds_entity_t e = t < T_RANGE ? r->writer[t] : r->cmd;
        if (e < 0) {
            say(err, errlen, "%s: a DDS reader or writer: %s", r->ns, dds_strretcode(e));
            free(r);
            return BW_EIO;
        }
    }
    n->robots[n->nrobots++] = r;
    announce(n);
    return 0;
}

/* ---- publishing ------------------------------------------------------------------ */

static geometry_msgs_msg_dds__Quaternion_ yaw_quaternion(double yaw)
{
    geometry_msgs_msg_dds__Quaternion_ q = { 0, 0, sin(yaw / 2), cos(yaw / 2) };
    return q;
}

static void publish_odom(robot_t *r, const bw_base_state_t *st, builtin_interfaces_msg_dds__Time_ stamp)
{
    nav_msgs_msg_dds__Odometry_ o;
    memset(&o, 0, sizeof o);
    o.header.stamp = stamp;
    o.header.frame_id = r->odom_frame;
    o.child_frame_id = r->base_frame;
    o.pose.pose.position.x = st->pose.x;
    o.pose.pose.position.y = st->pose.y;
    o.pose.pose.orientation = yaw_quaternion(st->pose.theta);
    o.twist.twist.linear.x = st->v;
    o.twist.twist.angular.z = st->w;
    /* x, y, yaw from odometry; z, roll, pitch fixed (a planar base) */
    for (size_t i = 0; i < 6; i++) {
        bool planar = i == 0 || i == 1 || i == 5;
        o.pose.covariance[i * 7] = planar ? 1e-3 : 1e6;
        o.twist.covariance[i * 7] = planar ? 1e-3 : 1e6;
    }
    out(r, T_ODOM, 0, &o, stamp);
    if (r->no_tf)
        return;
    geometry_msgs_msg_dds__TransformStamped_ t;
    memset(&t, 0, sizeof t);
    t.header = o.header;
    t.child_frame_id = r->base_frame;
    t.transform.translation.x = st->pose.x;
    t.transform.translation.y = st->pose.y;
    t.transform.rotation = o.pose.pose.orientation;
    tf2_msgs_msg_dds__TFMessage_ m = { { 1, 1, &t, false } };
    out(r, T_TF, 0, &m, stamp);
}

/* Jazzy's Range and Humble's differ only in the variance at the end. */
static void write_range(robot_t *r, unsigned i, const bw_range_t *rg,
                        builtin_interfaces_msg_dds__Time_ stamp)
{
    char frame[NAME_MAX_LEN + 32];
    snprintf(frame, sizeof frame, "%s%u", r->range_prefix, i);
    bool ir = rg->kind == BW_RANGE_IR;
    sensor_msgs_msg_dds__Range_ m;
    memset(&m, 0, sizeof m);
    m.header.stamp = stamp;
    m.header.frame_id = frame;
    m.radiation_type = ir ? 1 : 0; /* INFRARED : ULTRASOUND */
    /* a Polaroid transducer's cone; an IR proximity sensor's narrow beam */
    m.field_of_view = (float)((ir ? 5.0 : 15.0) * M_PI / 180);
    m.min_range = 0.0f;
    m.max_range = (float)rg->max_range;
    /* REP 117: nothing seen within max_range is +Inf */
    m.range = rg->range >= rg->max_range ? INFINITY : (float)rg->range;
    m.variance = 0.0f; /* unknown */
    if (r->distro == BW_ROS2_HUMBLE) {
        humble_sensor_msgs_msg_dds__Range_ h = { m.header, m.radiation_type, m.field_of_view,
                                                 m.min_range, m.max_range, m.range };
        out(r, T_RANGE, i, &h, stamp);
    } else {
        out(r, T_RANGE, i, &m, stamp);
    }
}

static void publish_ranges(robot_t *r, const bw_base_state_t *st,
                           builtin_interfaces_msg_dds__Time_ stamp)
{
    if (st->nranges > r->nranges) { /* known once the model is */
        geometry_msgs_msg_dds__TransformStamped_ mounts[BW_BASE_MAX_RANGES];
        char frames[BW_BASE_MAX_RANGES][NAME_MAX_LEN + 32];
        memset(mounts, 0, sizeof mounts);
        for (unsigned i = r->nranges; r->node && i < st->nranges && i < BW_BASE_MAX_RANGES; i++) {
            char name[32];
            snprintf(name, sizeof name, "range/%u", i);
            r->range[i] = endpoint(r, true, r->node->range_desc, name, topics[T_RANGE].qos,
                                   topics[T_RANGE].depth, topics[T_RANGE].hash);
        }
        for (unsigned i = 0; i < st->nranges && i < BW_BASE_MAX_RANGES; i++) {
            snprintf(frames[i], sizeof frames[i], "%s%u", r->range_prefix, i);
            mounts[i].header.stamp = stamp;
            mounts[i].header.frame_id = r->base_frame;
            mounts[i].child_frame_id = frames[i];
            mounts[i].transform.translation.x = st->ranges[i].mount.x;
            mounts[i].transform.translation.y = st->ranges[i].mount.y;
            mounts[i].transform.rotation = yaw_quaternion(st->ranges[i].mount.theta);
        }
        r->nranges = st->nranges;
        tf2_msgs_msg_dds__TFMessage_ m = { { r->nranges, r->nranges, mounts, false } };
        out(r, T_TF_STATIC, 0, &m, stamp);
        if (r->node)
            announce(r->node);
    }
    for (unsigned i = 0; i < r->nranges; i++) {
        const bw_range_t *rg = &st->ranges[i];
        if (r->range[i] < 0 || rg->t == 0 || rg->t == r->range_t[i])
            continue;
        r->range_t[i] = rg->t;
        write_range(r, i, rg, stamp);
    }
}

static void publish_mask(robot_t *r, int which, int topic, uint32_t mask,
                         builtin_interfaces_msg_dds__Time_ stamp)
{
    if (r->sent_mask[which] && mask == r->last_mask[which])
        return;
    std_msgs_msg_dds__UInt32_ m = { mask };
    out(r, topic, 0, &m, stamp);
    r->last_mask[which] = mask;
    r->sent_mask[which] = true;
}

/* An event of the base as a line on events. */
static void publish_event(robot_t *r, const bw_event_t *ev, builtin_interfaces_msg_dds__Time_ stamp)
{
    char line[160];
    if (ev->type == BW_EV_ONLINE || ev->type == BW_EV_OFFLINE) /* the link's: its name */
        snprintf(line, sizeof line, "%s", bw_event_name(ev->type));
    else
        snprintf(line, sizeof line, "%s %s mask 0x%x", bw_event_name(ev->type),
                 ev->on ? "on" : "off", ev->mask);
    std_msgs_msg_dds__String_ m = { line };
    out(r, T_EVENTS, 0, &m, stamp);
}

static void publish_events(robot_t *r, const bw_base_state_t *st,
                           builtin_interfaces_msg_dds__Time_ stamp)
{
    uint32_t caps = bw_base_caps(r->base);
    if (caps & BW_CAP_BUMPERS)
        publish_mask(r, 0, T_BUMPER, st->bumpers, stamp);
    if (caps & BW_CAP_CLIFFS)
        publish_mask(r, 1, T_CLIFF, st->cliffs, stamp);
    if (caps & BW_CAP_WHEEL_DROPS)
        publish_mask(r, 2, T_DROP, st->wheel_drops, stamp);
    bw_event_t ev;
    while (r->node && bw_base_next_event(r->base, &ev) > 0) /* a CDR view is given them */
        publish_event(r, &ev, stamp);
}

static void publish_battery(robot_t *r, const bw_base_state_t *st,
                            builtin_interfaces_msg_dds__Time_ stamp)
{
    if (!(bw_base_caps(r->base) & BW_CAP_BATTERY))
        return;
    sensor_msgs_msg_dds__BatteryState_ b;
    memset(&b, 0, sizeof b);
    b.header.stamp = stamp;
    b.header.frame_id = "";
    b.voltage = (float)st->battery;
    b.current = st->battery_current != 0 ? (float)st->battery_current : NAN;
    b.charge = st->battery_charge != 0 ? (float)st->battery_charge : NAN;
    b.capacity = st->battery_capacity != 0 ? (float)st->battery_capacity : NAN;
    b.design_capacity = NAN;
    b.percentage = NAN;
    b.temperature = st->battery_temp != 0 ? (float)st->battery_temp : NAN;
    switch (st->charging) { /* POWER_SUPPLY_STATUS_* */
    case BW_CHARGE_DISCHARGING: b.power_supply_status = 2; break;
    case BW_CHARGE_CHARGING: b.power_supply_status = 1; break;
    case BW_CHARGE_CHARGED: b.power_supply_status = 4; break;
    default: b.power_supply_status = 0; break;
    }
    b.present = st->battery > 0;
    b.location = "";
    b.serial_number = "";
    out(r, T_BATTERY, 0, &b, stamp);
}

static void publish_diagnostics(robot_t *r, const bw_base_state_t *st,
                                builtin_interfaces_msg_dds__Time_ stamp)
{
    char name[NAME_MAX_LEN + 64], num[8][24];
    bool root = !strcmp(r->ns, "/");
    snprintf(name, sizeof name, "botwire%s%s: %s base", root ? "" : " ", root ? "" : r->ns,
             bw_base_family(r->base));
    uint64_t counts[] = { st->link.frames,  st->link.checksum_errors, st->link.length_errors,
                          st->link.skipped_bytes, st->reconnects, st->events_dropped,
                          st->faults };
    for (size_t i = 0; i < 7; i++)
        snprintf(num[i], sizeof num[i], "%llu", (unsigned long long)counts[i]);
    diagnostic_msgs_msg_dds__KeyValue_ kv[] = {
        { "online", st->online ? "true" : "false" },
        { "frames", num[0] },
        { "checksum_errors", num[1] },
        { "length_errors", num[2] },
        { "skipped_bytes", num[3] },
        { "reconnects", num[4] },
        { "events_dropped", num[5] },
        { "faults", num[6] },
        { "mode", (char *)st->mode },
        { "firmware", (char *)st->firmware },
        { "hardware", (char *)st->hardware },
    };
    diagnostic_msgs_msg_dds__DiagnosticStatus_ s;
    memset(&s, 0, sizeof s);
    s.level = st->online ? 0 : 2; /* OK : ERROR */
    s.message = st->online ? "online" : "offline";
    if (st->online && st->faults) {
        s.level = 1; /* WARN */
        s.message = "online, faults reported";
    }
    s.name = name;
    s.hardware_id = r->url;
    s.values._length = s.values._maximum = (uint32_t)(sizeof kv / sizeof kv[0]);
    s.values._buffer = kv;
    diagnostic_msgs_msg_dds__DiagnosticArray_ a;
    memset(&a, 0, sizeof a);
    a.header.stamp = stamp;
    a.header.frame_id = "";
    a.status._length = a.status._maximum = 1;
    a.status._buffer = &s;
    out(r, T_DIAG, 0, &a, stamp);
}

/* ---- the loop's step ---------------------------------------------------------------- */

static void take_cmd_vel(robot_t *r, double now)
{
    void *samples[16] = { NULL };
    dds_sample_info_t info[16];
    int got;
    while ((got = dds_take(r->cmd, samples, info, 16, 16)) > 0) {
        for (int i = 0; i < got; i++) {
            if (!info[i].valid_data)
                continue;
            const geometry_msgs_msg_dds__Twist_ *t = samples[i];
            double age = 0;
            if (r->stamped) {
                /* As diff_drive_controller: a command is as old as its
                 * stamp says (ROS time: the wall clock), and a zero stamp
                 * is now. */
                const geometry_msgs_msg_dds__TwistStamped_ *ts = samples[i];
                t = &ts->twist;
                if (ts->header.stamp.sec != 0 || ts->header.stamp.nanosec != 0) {
                    builtin_interfaces_msg_dds__Time_ wall = ros_now();
                    age = (double)(wall.sec - ts->header.stamp.sec) +
                          ((double)wall.nanosec - (double)ts->header.stamp.nanosec) * 1e-9;
                    if (age < 0)
                        age = 0; /* another machine's clock ahead: taken as now */
                }
            }
            r->node->stats.cmd_vel++;
            if (!isfinite(t->linear.x) || !isfinite(t->angular.z)) {
                r->node->stats.cmd_vel_ignored++;
                continue;
            }
            if (age > r->node->opt.cmd_vel_timeout) {
                r->node->stats.cmd_vel_stale++;
                if (r->node->stats.cmd_vel_stale == 1)
                    node_says(r->node,
                              "%s: a cmd_vel stamped %.2f s ago refused (older than the %.2f s "
                              "timeout; is the sender's clock this one's?)",
                              r->ns, age, r->node->opt.cmd_vel_timeout);
                continue;
            }
            r->v = t->linear.x;
            r->w = t->angular.z;
            r->last_cmd = now - age; /* its timeout runs from its stamp */
            r->have_cmd = true;
        }
        dds_return_loan(r->cmd, samples, got);
        if (got < 16)
            break;
    }
}

/* What the robot's state says now, on every topic it changed on (the
 * battery and diagnostics every diagnostic_period). */
static void publish_state(robot_t *r, double now)
{
    const bw_base_state_t *st = bw_base_state(r->base);
    builtin_interfaces_msg_dds__Time_ stamp = ros_now();
    if (st->t != r->last_state_t) {
        r->last_state_t = st->t;
        publish_odom(r, st, stamp);
    }
    publish_ranges(r, st, stamp);
    publish_events(r, st, stamp);
    if (now - r->last_diag >= r->diagnostic_period) {
        r->last_diag = now;
        publish_battery(r, st, stamp);
        publish_diagnostics(r, st, stamp);
    }
}

static void step_robot(robot_t *r, double now)
{
    bw_ros2_t *n = r->node;
    take_cmd_vel(r, now);
    if (r->have_cmd && now - r->last_cmd <= n->opt.cmd_vel_timeout) {
        bw_base_drive(r->base, r->v, r->w, now);
        r->driving = true;
    } else if (r->driving) {
        bw_base_stop(r->base, now); /* cmd_vel fell silent */
        r->driving = false;
    }
    bw_base_poll(r->base, now);
    publish_state(r, now);
}

/* A writer on a robot's cmd_vel topic with a type the node does not take
 * matches nothing and drives nothing: said once per writer, with what
 * would take it. */
static void watch_publications(bw_ros2_t *n)
{
    void *samples[16] = { NULL };
    dds_sample_info_t info[16];
    int got;
    while (n->publications > 0 &&
           (got = dds_take(n->publications, samples, info, 16, 16)) > 0) {
        for (int i = 0; i < got; i++) {
            const dds_builtintopic_endpoint_t *e = samples[i];
            if (!info[i].valid_data || !e->topic_name || !e->type_name)
                continue;
            for (size_t k = 0; k < n->nrobots; k++) {
                robot_t *r = n->robots[k];
                if (strcmp(e->topic_name, r->cmd_topic) != 0)
                    continue;
                const char *want = r->stamped ? "geometry_msgs::msg::dds_::TwistStamped_"
                                              : "geometry_msgs::msg::dds_::Twist_";
                if (!strcmp(e->type_name, want))
                    continue;
                bool told = false;
                for (unsigned j = 0; j < r->ntold; j++)
                    told = told || !memcmp(&r->told[j], &e->key, sizeof e->key);
                if (told)
                    continue;
                if (r->ntold < sizeof r->told / sizeof r->told[0])
                    memcpy(&r->told[r->ntold++], &e->key, sizeof e->key);
                n->stats.cmd_vel_other_type++;
                char type[160];
                ros_type_of(type, sizeof type, e->type_name);
                bool twist = !strcmp(e->type_name, "geometry_msgs::msg::dds_::Twist_");
                bool stamped = !strcmp(e->type_name, "geometry_msgs::msg::dds_::TwistStamped_");
                node_says(n,
                          "%s: a writer of %s on %s/cmd_vel, where this node takes %s: none of "
                          "its commands are taken%s",
                          r->ns, type, strcmp(r->ns, "/") ? r->ns : "",
                          r->stamped ? "geometry_msgs/msg/TwistStamped" : "geometry_msgs/msg/Twist",
                          twist     ? " (--cmd-vel twist takes them)"
                          : stamped ? " (--cmd-vel stamped takes them)"
                                    : "");
            }
        }
        dds_return_loan(n->publications, samples, got);
        if (got < 16)
            break;
    }
}

void bw_ros2_step(bw_ros2_t *n, double now)
{
    for (size_t i = 0; i < n->nrobots; i++)
        step_robot(n->robots[i], now);
    watch_publications(n);
    /* Other participants' node lists: not needed here, only kept small. */
    void *samples[8] = { NULL };
    dds_sample_info_t info[8];
    int got = dds_take(n->info_reader, samples, info, 8, 8);
    if (got > 0)
        dds_return_loan(n->info_reader, samples, got);
}

int bw_ros2_domain(const bw_ros2_t *n) { return n->opt.domain; }

void bw_ros2_stats(const bw_ros2_t *n, bw_ros2_stats_t *stats) { *stats = n->stats; }

void bw_ros2_close(bw_ros2_t *n, double now)
{
    if (!n)
        return;
    for (size_t i = 0; i < n->nrobots; i++) {
        bw_base_stop(n->robots[i]->base, now);
        free(n->robots[i]);
    }
    free(n->robots);
    if (n->participant > 0)
        dds_delete(n->participant);
    free(n->range_desc);
    free(n->info_desc);
    if (n->domain > 0)
        dds_delete(n->domain);
    free(n);
}

/* ---- a robot as CDR, for a record --------------------------------------------------- */

struct bw_ros2_cdr {
    robot_t r;
};

int bw_ros2_cdr_open(bw_ros2_cdr_t **out_view, bw_base_t *base, const char *ns,
                     const char *url, const bw_ros2_options_t *opt, bw_ros2_cdr_fn fn, void *ctx,
                     char *err, size_t errlen)
{
    *out_view = NULL;
    bw_ros2_cdr_t *c = calloc(1, sizeof *c);
    if (!c) {
        say(err, errlen, "out of memory");
        return BW_ENOMEM;
    }
    static const bw_ros2_options_t defaults = { 0 };
    if (name_robot(&c->r, base, ns, NULL, url, opt ? opt : &defaults, err, errlen) < 0) {
        free(c);
        return BW_EINVAL;
    }
    c->r.cdr_fn = fn;
    c->r.cdr_ctx = ctx;
    *out_view = c;
    return 0;
}

void bw_ros2_cdr_step(bw_ros2_cdr_t *c, double now) { publish_state(&c->r, now); }

void bw_ros2_cdr_event(bw_ros2_cdr_t *c, const bw_event_t *ev) { publish_event(&c->r, ev, ros_now()); }

void bw_ros2_cdr_close(bw_ros2_cdr_t *c)
{
    if (!c)
        return;
    free(c->r.cdr_buf);
    free(c);
}

/*
 * Bases as ROS 2 nodes over Cyclone DDS (botwire/ros2.h): what
 * rmw_cyclonedds_cpp puts on the wire for a node, with the types compiled
 * by Cyclone's idlc from src/ros2/idl. docs/ros2.md says where each rule
 * comes from.
 */
#include <math.h>
#include <pthread.h>
#include <stddef.h>
#include <stdarg.h>
#include <stdatomic.h>
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

#include "botwire/behave.h"
#include "botwire/ros2.h"
#include "internal.h"

/* The types, as idlc wrote them from src/ros2/idl into the build. */
#include <diagnostic_msgs.h>
#include <humble.h>
#include <nav_msgs.h>
#include <rcl_interfaces.h>
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
#define HASH_IMU "RIHS01_7d9a00ff131080897a5ec7e26e315954b8eae3353c3f995c55faf71574000b5b"
#define HASH_JOINT_STATE "RIHS01_a13ee3a330e346c9d87b5aa18d24e11690752bd33a0350f11c5882bc9179260e"
#define HASH_EMPTY "RIHS01_20b625256f32d5dbc0d04fee44f43c41e51c70d3502f84b4a08e7a9c26a96312"
#define HASH_LOG "RIHS01_e28ce254ca8abc06abf92773b74602cdbf116ed34fbaf294fb9f81da9f318eac"
#define HASH_PARAMETER_EVENT "RIHS01_043e627780fcad87a22d225bc2a037361dba713fca6a6b9f4b869a5aa0393204"

/* The six parameter services every rclcpp node offers (rclcpp's
 * ParameterService), by their names under the node's, with the types of
 * their request and reply (the request header first: rcl_interfaces.idl)
 * and Jazzy's hashes of the _Request and _Response messages. */
enum { S_DESCRIBE, S_GET, S_GET_TYPES, S_LIST, S_SET, S_SET_ATOMICALLY, NSERVICES };
static const struct {
    const char *name;
    const dds_topic_descriptor_t *request, *reply;
    const char *request_hash, *reply_hash;
} services[NSERVICES] = {
    [S_DESCRIBE] = { "describe_parameters", &rcl_interfaces_srv_dds__DescribeParameters_Request__desc,
                     &rcl_interfaces_srv_dds__DescribeParameters_Response__desc,
                     "RIHS01_05dd1c2bc87dec2627105c8070d6f9725c781a4f2ab852975bf105462b82b644",
                     "RIHS01_ad6747319613c6131589e062e095b469a46cc764f7d0f12a001a49e6cd893995" },
    [S_GET] = { "get_parameters", &rcl_interfaces_srv_dds__GetParameters_Request__desc,
                &rcl_interfaces_srv_dds__GetParameters_Response__desc,
                "RIHS01_135a9e1c3d7cebef792f6687d7ddf99949b21a0bd9a320d863a9110a3f5cf4d6",
                "RIHS01_9fa773b46e39cc5d02db6224d8fd520bb9caeeffc2b27c96c1e59431baba9f2a" },
    [S_GET_TYPES] = { "get_parameter_types", &rcl_interfaces_srv_dds__GetParameterTypes_Request__desc,
                      &rcl_interfaces_srv_dds__GetParameterTypes_Response__desc,
                      "RIHS01_87d7ec5ef545d4daa289d500025d31fb2437bc8b8365ca367161c4dac4be33fd",
                      "RIHS01_ac1335dce67c478e669434f6ac2fbff34fcd529580f272d3006785ba8b54e47f" },
    [S_LIST] = { "list_parameters", &rcl_interfaces_srv_dds__ListParameters_Request__desc,
                 &rcl_interfaces_srv_dds__ListParameters_Response__desc,
                 "RIHS01_a1b0b5d6b967a5b8ac5bc8563c3ea678f349e312a6a4967227c5a96bc5ce38df",
                 "RIHS01_31b937b82de3612426be79f231e386259f97e8dc843e3f2845288b4bfa296bdd" },
    [S_SET] = { "set_parameters", &rcl_interfaces_srv_dds__SetParameters_Request__desc,
                &rcl_interfaces_srv_dds__SetParameters_Response__desc,
                "RIHS01_130d46386b7e84ea9ecf60608a4d83cbe5e5cb7c6cc5b712b7a4e3a6c254e932",
                "RIHS01_7a0e8140a0b8d98308fa81a5403a766e610af29a239caf54b7553227906fc266" },
    [S_SET_ATOMICALLY] = { "set_parameters_atomically",
                           &rcl_interfaces_srv_dds__SetParametersAtomically_Request__desc,
                           &rcl_interfaces_srv_dds__SetParametersAtomically_Response__desc,
                           "RIHS01_db0bd950ed5ed867a0e90b225e44dea382d762c0762ff3e0ee842190042a59e5",
                           "RIHS01_31b1a38c5b0b9d893ee24da45f69638f4561c78461d82d52750f429b534502b8" },
};

/* The parameters each robot's node holds (ParameterValue's types). */
enum { PT_NOT_SET = 0, PT_BOOL = 1, PT_INTEGER = 2, PT_DOUBLE = 3, PT_STRING = 4 };
enum {
    P_USE_SIM_TIME, P_CMD_VEL_TIMEOUT, P_CMD_VEL_TYPE, P_DIAGNOSTIC_PERIOD, P_PUBLISH_TF, P_RATE,
    P_ODOM_FRAME, P_BASE_FRAME, P_URL, P_FAMILY, P_DISTRO, NPARAMS
};
static const struct {
    const char *name;
    uint8_t type;
    const char *read_only; /* why it cannot be set; NULL: it can */
    double from, to;       /* a double's range */
    const char *description, *constraints;
} params[NPARAMS] = {
    [P_USE_SIM_TIME] = { "use_sim_time", PT_BOOL, NULL, 0, 0,
                         "stamp with /clock (every rclcpp node has it)",
                         "false only: there is no /clock here, stamps are the wall clock" },
    [P_CMD_VEL_TIMEOUT] = { "cmd_vel_timeout", PT_DOUBLE, NULL, 0.05, 60,
                            "s without cmd_vel (or since a TwistStamped's stamp) before the "
                            "robot stops", "" },
    [P_CMD_VEL_TYPE] = { "cmd_vel_type", PT_STRING, NULL, 0, 0,
                         "what cmd_vel carries: twist (geometry_msgs/msg/Twist) or stamped "
                         "(geometry_msgs/msg/TwistStamped)", "twist or stamped" },
    [P_DIAGNOSTIC_PERIOD] = { "diagnostic_period", PT_DOUBLE, NULL, 0.05, 3600,
                              "s between /diagnostics and battery messages", "" },
    [P_PUBLISH_TF] = { "publish_tf", PT_BOOL, NULL, 0, 0,
                       "odom -> base_footprint on tf", "" },
    [P_RATE] = { "rate", PT_DOUBLE, "the loop's rate is the command's --rate, set when it starts",
                 0, 0, "Hz at which the robot is looked at", "" },
    [P_ODOM_FRAME] = { "odom_frame", PT_STRING,
                       "the frames are the namespace's and --tf's, fixed when the node starts", 0, 0,
                       "the odometry's frame", "" },
    [P_BASE_FRAME] = { "base_frame", PT_STRING,
                       "the frames are the namespace's and --tf's, fixed when the node starts", 0, 0,
                       "the robot's frame", "" },
    [P_URL] = { "url", PT_STRING, "the robot the node was started on", 0, 0,
                "where the robot is (a botwire URL)", "" },
    [P_FAMILY] = { "family", PT_STRING, "the robot's family, known from its URL", 0, 0,
                   "the robot's protocol family", "" },
    [P_DISTRO] = { "distro", PT_STRING, "the wire's layout is fixed when the node starts (--distro)",
                   0, 0, "the ROS 2 release whose wire the node speaks", "" },
};

/* The topics a robot publishes: their names, ROS 2 types (whose ros2msg
 * schemas are in schemas.c), how they are kept (ROS 2's profiles as
 * rmw_cyclonedds maps them: bw_ros2_qos_t) and Jazzy's type hashes. */
enum {
    T_ODOM, T_TF, T_TF_STATIC, T_BUMPER, T_CLIFF, T_DROP, T_EVENTS, T_BATTERY, T_DIAG, T_IMU,
    T_JOINTS, T_RANGE
};
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
    /* as kobuki_ros and create_robot publish them (reliable: a reader of
     * either kind matches) */
    [T_IMU] = { "imu", "sensor_msgs/msg/Imu", BW_ROS2_QOS_DEFAULT, 10, HASH_IMU },
    [T_JOINTS] = { "joint_states", "sensor_msgs/msg/JointState", BW_ROS2_QOS_DEFAULT, 10,
                   HASH_JOINT_STATE },
    [T_RANGE] = { "range/", "sensor_msgs/msg/Range", BW_ROS2_QOS_SENSOR, 5, HASH_RANGE },
};

/* Whether the robot has what a topic carries: the Kobuki's gyro for imu,
 * each wheel's encoder for joint_states. */
static bool has_topic(bw_base_t *base, int topic)
{
    const bw_base_state_t *st = bw_base_state(base);
    if (topic == T_IMU)
        return (bw_base_caps(base) & BW_CAP_GYRO) != 0;
    if (topic == T_JOINTS)
        return (bw_base_caps(base) & BW_CAP_ENCODERS) && st->wheel_radius > 0 &&
               st->counts_per_m > 0;
    return true;
}

struct bw_ros2;

typedef struct {
    struct bw_ros2 *node;
    size_t part; /* its participant: node->parts[part] */
    bw_base_t *base;
    char ns[NAME_MAX_LEN];     /* "/robot1", or "/" */
    char url[256];
    char odom_frame[NAME_MAX_LEN + 16], base_frame[NAME_MAX_LEN + 16], range_prefix[NAME_MAX_LEN + 16];
    dds_entity_t writer[T_RANGE], cmd; /* a node's: a writer a topic, cmd_vel's reader */
    bool stamped;                      /* cmd_vel is TwistStamped */
    char cmd_topic[2 * NAME_MAX_LEN + 8]; /* its DDS name: "rt/robot1/cmd_vel" */
    dds_guid_t told[16];               /* writers of the other type already said */
    unsigned ntold;
    /* what every rclcpp node has: /rosout, /parameter_events and the
     * parameter services (request readers, reply writers) */
    dds_entity_t rosout, param_events, request[NSERVICES], reply[NSERVICES];
    dds_entity_t reset;                /* reset_odometry's reader */
    /* dock and undock (std_msgs/msg/Empty, as create_robot names them):
     * their readers, and the docking under way (docs/grl.md) */
    dds_entity_t dock_rd, undock_rd;
    bw_grl_t grl;
    bw_docking_t docking;
    bool docking_on, undocking;
    double joint_t, joint_pos[2];      /* the wheels' last positions, for their speeds */
    int64_t joint_from[2];             /* the encoders' counts the first time: angle 0 */
    bool have_joint;
    char node_name[NAME_MAX_LEN + 16]; /* "/robot1/botwire" */
    char logger[NAME_MAX_LEN + 16];    /* "robot1.botwire", as rcl names it */
    double cmd_vel_timeout;
    dds_entity_t range[BW_BASE_MAX_RANGES];
    unsigned nranges;
    /* the readers matched with each volatile writer, as discovery tells
     * (listeners): a message nobody reads is not serialized */
    atomic_int readers_of[T_RANGE], range_readers[BW_BASE_MAX_RANGES];
    /* set when a command, or a request or reset, came (listeners): a step
     * takes from a reader only then, not from each of a fleet's thousands
     * in turn at every step */
    atomic_int cmd_came, slow_came;
    double range_t[BW_BASE_MAX_RANGES];
    /* the node's readers and writers, for ros_discovery_info */
    dds_guid_t readers[MAX_GIDS], writers[MAX_GIDS];
    unsigned nreaders, nwriters;
    double v, w, last_cmd, last_state_t, last_diag;
    /* per-topic rates (periods, s; 0: every report) and when each is due */
    double odom_period, tf_period, range_period, odom_due, tf_due, range_due[BW_BASE_MAX_RANGES];
    bool have_cmd, driving;
    uint32_t last_mask[3];
    bool sent_mask[3];
    /* what the node's options say, per robot: a CDR view has no node */
    bool no_tf, tf_namespaced;
    bool tf_shared; /* its /tf: its participant's tf_batch_t */
    bw_ros2_distro_t distro;
    double diagnostic_period;
    /* a CDR view's: where its messages go, serialized (node NULL) */
    bw_ros2_cdr_fn cdr_fn;
    void *cdr_ctx;
    uint8_t *cdr_buf;
    size_t cdr_cap;
    uint64_t clock_ns; /* a CDR view's stamps, when not the wall clock (0) */
    /* what it published, refused, ...: its own counts, as its thread
     * steps it alone (bw_ros2_stats adds them up) */
    bw_ros2_stats_t stats;
} robot_t;

/* The robots of a node, a participant to so many of them: Cyclone DDS
 * counts a participant's topics, readers and writers in its handle's
 * 14 bits (16,383 at most), and a robot's node has about 50 of them. As
 * rclcpp's nodes of one context, the robots of a participant share it and
 * its ros_discovery_info. */
#define ROBOTS_PER_PARTICIPANT 250

/* A participant's /tf: one writer its robots share, and each step's
 * transforms of all of them in one TFMessage (as one tf broadcaster sends
 * every frame it has), not a message a robot. A listener of /tf gets the
 * same transforms, each with its robot's stamp; a fleet's thousand robots
 * cost a few writes a step instead of a thousand, on both sides. Kept
 * apart from the participant's array, which grows: the listener counts
 * into `readers`. */
typedef struct {
    dds_entity_t writer;
    dds_guid_t gid;
    atomic_int readers;
    geometry_msgs_msg_dds__TransformStamped_ *t;
    uint32_t n, cap;
} tf_batch_t;

typedef struct {
    dds_entity_t pp, info_writer;
    tf_batch_t *tf; /* NULL until a robot of it publishes /tf */
} part_t;

struct bw_ros2 {
    bw_ros2_options_t opt;
    dds_entity_t domain, participant, info_writer, info_reader; /* the first part's */
    part_t *parts;
    size_t nparts;
    dds_entity_t publications; /* the domain's writers (DCPSPublication) */
    uint32_t service_ids;      /* rmw_cyclonedds's client/service counter */
    double slow_at;            /* the last step that served parameters (SLOW_PERIOD) */
    dds_topic_descriptor_t *range_desc, *info_desc; /* by distro */
    robot_t **robots;
    size_t nrobots;
    robot_t **by_cmd; /* the robots by cmd_topic (robot_of_cmd_topic) */
    size_t nby_cmd;
    bw_ros2_stats_t stats; /* the node's own (a fleet's /tf, other writers' types) */
    /* Threads that step the robots with the caller's (opt.threads): each
     * step, thread k (the caller is 0) steps its run of the robots
     * (step_share); then the caller publishes for all. Made at the first
     * step. */
    struct {
        pthread_mutex_t m;
        pthread_cond_t go, done;
        pthread_t *thread;
        unsigned workers;  /* started, besides the caller */
        unsigned busy;     /* workers still stepping this round (under m) */
        unsigned long gen; /* rounds begun (under m) */
        double now;
        bool slow, quit, tried;
    } pool;
};

static dds_entity_t cmd_reader(robot_t *r);
static int node_services(robot_t *r);
static void params_declared(robot_t *r);
static void announce(bw_ros2_t *n, size_t part);

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
    case T_IMU: return &sensor_msgs_msg_dds__Imu__desc;
    case T_JOINTS: return &sensor_msgs_msg_dds__JointState__desc;
    default:
        return r->distro == BW_ROS2_HUMBLE ? &humble_sensor_msgs_msg_dds__Range__desc
                                           : &sensor_msgs_msg_dds__Range__desc;
    }
}

/* A topic's name for this robot: tf in its namespace when it keeps its
 * own tree ("tf" for "/tf"). */
static const char *topic_name(const robot_t *r, int topic)
{
    if (r->tf_namespaced && (topic == T_TF || topic == T_TF_STATIC))
        return topics[topic].name + 1;
    return topics[topic].name;
}

static dds_entity_t writer_of(const robot_t *r, int topic, unsigned i)
{
    return topic == T_RANGE ? r->range[i] : r->writer[topic];
}

static bool tf_grow(tf_batch_t *b)
{
    uint32_t cap = b->cap ? 2 * b->cap : 64;
    void *t = realloc(b->t, cap * sizeof *b->t);
    if (!t)
        return false;
    b->t = t;
    b->cap = cap;
    return true;
}

/* The step's transforms of a participant's robots, out in one message
 * (each robot's counted as a message it published, as a robot alone
 * would have sent it). */
static void tf_flush(bw_ros2_t *n)
{
    for (size_t p = 0; p < n->nparts; p++) {
        tf_batch_t *b = n->parts[p].tf;
        if (!b || b->n == 0)
            continue;
        tf2_msgs_msg_dds__TFMessage_ m = { { b->n, b->n, b->t, false } };
        if (dds_write(b->writer, &m) == DDS_RETCODE_OK)
            n->stats.published += b->n;
        b->n = 0;
    }
}

/* A message out, counted: written to DDS (the node), or serialized as
 * rmw_cyclonedds serializes it (plain CDR, little endian, after its
 * encapsulation header) and handed on (a CDR view). One serialization for
 * both: the types idlc compiled. */
static void out(robot_t *r, int topic, unsigned i, const void *sample,
                builtin_interfaces_msg_dds__Time_ stamp)
{
    if (r->node) {
        /* its transform into its participant's /tf of this step (not
         * kept when nobody reads /tf, as below) */
        if (topic == T_TF && r->tf_shared) {
            tf_batch_t *b = r->node->parts[r->part].tf;
            const tf2_msgs_msg_dds__TFMessage_ *m = sample;
            bool heard = atomic_load_explicit(&b->readers, memory_order_relaxed) > 0;
            for (uint32_t k = 0; k < m->transforms._length; k++) {
                if (heard && (b->n < b->cap || tf_grow(b)))
                    b->t[b->n++] = m->transforms._buffer[k]; /* its strings are the robot's */
                else
                    r->stats.unread++;
            }
            return;
        }
        /* to nobody: not serialized, as a reader that matches later would
         * not get it anyway (but a latched topic's history) */
        if (topics[topic].qos != BW_ROS2_QOS_LATCHED &&
            atomic_load_explicit(topic == T_RANGE ? &r->range_readers[i] : &r->readers_of[topic],
                                 memory_order_relaxed) == 0) {
            r->stats.unread++;
            return;
        }
        if (dds_write(writer_of(r, topic, i), sample) == DDS_RETCODE_OK)
            r->stats.published++;
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
    const char *t = topic_name(r, topic);
    if (t[0] == '/')
        snprintf(name, sizeof name, "%s", t);
    else if (topic == T_RANGE)
        snprintf(name, sizeof name, "%s%srange/%u", r->ns, strcmp(r->ns, "/") ? "/" : "", i);
    else
        snprintf(name, sizeof name, "%s%s%s", r->ns, strcmp(r->ns, "/") ? "/" : "", t);
    bw_ros2_cdr_msg_t m = { name, topics[topic].type, bw_ros2_schema(topics[topic].type, r->distro),
                            r->cdr_buf, len,
                            (uint64_t)stamp.sec * 1000000000u + stamp.nanosec,
                            topics[topic].qos, topics[topic].depth,
                            r->distro == BW_ROS2_HUMBLE ? "" : topics[topic].hash };
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

/* "geometry_msgs::msg::dds_::Twist_" as ROS 2 names it:
 * "geometry_msgs/msg/Twist". */
void bw_ros2_type_of_dds(char *out, size_t cap, const char *dds)
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

/* ROS 2's QoS for a topic as rmw_cyclonedds maps it; extra goes before
 * the type hash in USER_DATA ("serviceid=...;"), lifespan > 0 is set (in
 * s: /rosout's). */
static dds_qos_t *make_qos_ex(const bw_ros2_t *n, bw_ros2_qos_t kind, int32_t depth,
                              const char *hash, const char *extra, double lifespan)
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
    if (lifespan > 0)
        dds_qset_lifespan(q, (dds_duration_t)(lifespan * 1e9));
    char user[192];
    int len = snprintf(user, sizeof user, "%s%s%s%s", extra ? extra : "",
                       n->opt.distro != BW_ROS2_HUMBLE && hash ? "typehash=" : "",
                       n->opt.distro != BW_ROS2_HUMBLE && hash ? hash : "",
                       n->opt.distro != BW_ROS2_HUMBLE && hash ? ";" : "");
    if (len > 0 && (size_t)len < sizeof user)
        dds_qset_userdata(q, user, (size_t)len);
    return q;
}

static dds_qos_t *make_qos(const bw_ros2_t *n, bw_ros2_qos_t kind, int32_t depth, const char *hash)
{
    return make_qos_ex(n, kind, depth, hash, NULL, 0);
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

/* A writer's matched readers into its counter, as discovery changes them
 * (on Cyclone's thread; each call has the count itself, not a change). */
static void on_matched(dds_entity_t writer, const dds_publication_matched_status_t status, void *arg)
{
    (void)writer;
    atomic_store_explicit((atomic_int *)arg, (int)status.current_count, memory_order_relaxed);
}

/* A reader's flag, raised as data comes (on Cyclone's thread, each time). */
static void on_data(dds_entity_t reader, void *arg)
{
    (void)reader;
    atomic_store_explicit((atomic_int *)arg, 1, memory_order_release);
}

/* A reader or writer of the robot's node, on topic `full` (a DDS name),
 * counted for ros_discovery_info. `watch`, if not NULL: a writer's count
 * of its matched readers, or the flag a reader raises when data comes. */
static dds_entity_t endpoint_ex(robot_t *r, bool writer, const dds_topic_descriptor_t *desc,
                                const char *full, bw_ros2_qos_t kind, int32_t depth,
                                const char *hash, const char *extra, double lifespan,
                                atomic_int *watch)
{
    bw_ros2_t *n = r->node;
    dds_entity_t pp = n->parts[r->part].pp;
    dds_entity_t topic = dds_create_topic(pp, desc, full, NULL, NULL);
    if (topic < 0)
        return topic;
    dds_qos_t *q = make_qos_ex(n, kind, depth, hash, extra, lifespan);
    /* from its creation on, so that no match and no sample goes unseen */
    dds_listener_t *l = watch ? dds_create_listener(watch) : NULL;
    if (l && writer)
        dds_lset_publication_matched(l, on_matched);
    else if (l)
        dds_lset_data_available(l, on_data);
    dds_entity_t e = writer ? dds_create_writer(pp, topic, q, l) : dds_create_reader(pp, topic, q, l);
    if (l)
        dds_delete_listener(l);
    dds_delete_qos(q);
    if (e < 0)
        return e;
    dds_guid_t *list = writer ? r->writers : r->readers;
    unsigned *count = writer ? &r->nwriters : &r->nreaders;
    if (*count < MAX_GIDS && dds_get_guid(e, &list[*count]) == DDS_RETCODE_OK)
        (*count)++;
    return e;
}

static dds_entity_t endpoint(robot_t *r, bool writer, const dds_topic_descriptor_t *desc,
                             const char *name, bw_ros2_qos_t kind, int32_t depth, const char *hash,
                             atomic_int *watch)
{
    char full[2 * NAME_MAX_LEN + 8];
    dds_topic_name(full, sizeof full, r->ns, name);
    return endpoint_ex(r, writer, desc, full, kind, depth, hash, NULL, 0, watch);
}

/* A writer of one of the robot's topics; a volatile one counts its
 * readers, a latched one always writes (a late reader gets its history). */
static dds_entity_t topic_writer(robot_t *r, const dds_topic_descriptor_t *desc, const char *name,
                                 int topic, atomic_int *readers)
{
    char full[2 * NAME_MAX_LEN + 8];
    dds_topic_name(full, sizeof full, r->ns, name);
    return endpoint_ex(r, true, desc, full, topics[topic].qos, topics[topic].depth,
                       topics[topic].hash, NULL, 0,
                       topics[topic].qos == BW_ROS2_QOS_LATCHED ? NULL : readers);
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
    static void fn(bw_ros2_t *n, size_t part, const dds_guid_t *pg)                            \
    {                                                                                          \
        size_t first = part * ROBOTS_PER_PARTICIPANT, k = n->nrobots > first ? n->nrobots - first : 0; \
        if (k > ROBOTS_PER_PARTICIPANT)                                                        \
            k = ROBOTS_PER_PARTICIPANT;                                                        \
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
            robot_t *r = n->robots[first + i];                                                 \
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
        dds_write(n->parts[part].info_writer, &m);                                             \
        free(nodes);                                                                           \
        free(gids);                                                                            \
    }
DEFINE_ANNOUNCE(announce_jazzy, rmw_dds_common_msg_dds__)
DEFINE_ANNOUNCE(announce_humble, humble_rmw_dds_common_msg_dds__)

/* A participant's nodes, on its own ros_discovery_info. */
static void announce(bw_ros2_t *n, size_t part)
{
    dds_guid_t pg;
    if (part >= n->nparts || dds_get_guid(n->parts[part].pp, &pg) != DDS_RETCODE_OK)
        return;
    if (n->opt.distro == BW_ROS2_HUMBLE)
        announce_humble(n, part, &pg);
    else
        announce_jazzy(n, part, &pg);
}

/* One more participant, with its ros_discovery_info writer (the node's
 * first one also reads the domain's: bw_ros2_open). */
static int add_part(bw_ros2_t *n, char *err, size_t errlen)
{
    part_t *grown = realloc(n->parts, (n->nparts + 1) * sizeof *grown);
    if (!grown) {
        say(err, errlen, "out of memory");
        return BW_ENOMEM;
    }
    n->parts = grown;
    part_t *p = &n->parts[n->nparts];
    p->tf = NULL;
    dds_qos_t *q = dds_create_qos();
    static const char enclave[] = "enclave=/;"; /* no NUL on the wire */
    dds_qset_userdata(q, enclave, sizeof enclave - 1);
    p->pp = dds_create_participant((dds_domainid_t)n->opt.domain, q, NULL);
    dds_delete_qos(q);
    if (p->pp < 0) {
        say(err, errlen, "DDS participant on domain %d: %s", n->opt.domain, dds_strretcode(p->pp));
        return BW_EIO;
    }
    /* ros_discovery_info: no "rt", reliable, transient local, the last
     * snapshot */
    dds_entity_t topic = dds_create_topic(p->pp, n->info_desc, "ros_discovery_info", NULL, NULL);
    q = make_qos(n, BW_ROS2_QOS_LATCHED, 1, HASH_PARTICIPANT);
    p->info_writer = topic < 0 ? topic : dds_create_writer(p->pp, topic, q, NULL);
    dds_delete_qos(q);
    if (p->info_writer < 0) {
        say(err, errlen, "ros_discovery_info: %s", dds_strretcode(p->info_writer));
        dds_delete(p->pp);
        return BW_EIO;
    }
    n->nparts++;
    return 0;
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

    int rc = add_part(n, err, errlen);
    if (rc < 0) {
        bw_ros2_close(n, 0);
        return rc;
    }
    n->participant = n->parts[0].pp;
    n->info_writer = n->parts[0].info_writer;
    /* the domain's ros_discovery_info, keep all, never its own participant */
    dds_entity_t topic = dds_create_topic(n->participant, n->info_desc, "ros_discovery_info",
                                          NULL, NULL);
    dds_qos_t *q = make_qos(n, BW_ROS2_QOS_LATCHED, 1, HASH_PARTICIPANT);
    dds_qset_history(q, DDS_HISTORY_KEEP_ALL, 0);
    dds_qset_ignorelocal(q, DDS_IGNORELOCAL_PARTICIPANT);
    n->info_reader = topic < 0 ? topic : dds_create_reader(n->participant, topic, q, NULL);
    dds_delete_qos(q);
    if (n->info_reader < 0) {
        say(err, errlen, "ros_discovery_info: %s", dds_strretcode(n->info_reader));
        bw_ros2_close(n, 0);
        return BW_EIO;
    }
    /* The domain's writers, to tell the user of one on a robot's cmd_vel
     * whose type the node does not take (never silent). */
    n->publications = dds_create_reader(n->participant, DDS_BUILTIN_TOPIC_DCPSPUBLICATION, NULL, NULL);
    announce(n, 0);
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
    r->tf_namespaced = opt->tf_namespaced;
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
    else if (opt->tf_namespaced)
        prefix[0] = 0; /* the tree is the namespace's own: odom, base_footprint */
    else
        snprintf(prefix, sizeof prefix, "%.*s%s", (int)len, s, len ? "/" : "");
    snprintf(r->odom_frame, sizeof r->odom_frame, "%sodom", prefix);
    snprintf(r->base_frame, sizeof r->base_frame, "%sbase_footprint", prefix);
    snprintf(r->range_prefix, sizeof r->range_prefix, "%srange_", prefix);
    snprintf(r->url, sizeof r->url, "%s", url ? url : "");
    snprintf(r->node_name, sizeof r->node_name, "%s/botwire", len ? r->ns : "");
    snprintf(r->logger, sizeof r->logger, "%.*s%sbotwire", (int)len, s, len ? "." : "");
    for (char *c = r->logger; *c; c++)
        if (*c == '/')
            *c = '.';
    r->cmd_vel_timeout = opt->cmd_vel_timeout > 0 ? opt->cmd_vel_timeout : 0.6;
    r->odom_period = opt->odom_rate > 0 ? 1 / opt->odom_rate : 0;
    r->tf_period = opt->tf_rate > 0 ? 1 / opt->tf_rate : 0;
    r->range_period = opt->range_rate > 0 ? 1 / opt->range_rate : 0;
    r->last_state_t = -1;
    r->last_diag = -1e9;
    return 0;
}

/* The robot's /tf: its participant's writer (made for the first), listed
 * among the robot's writers in ros_discovery_info as among each of its
 * neighbours': `ros2 node info` shows every robot publishing /tf. */
static dds_entity_t shared_tf_writer(robot_t *r)
{
    part_t *p = &r->node->parts[r->part];
    if (!p->tf) {
        tf_batch_t *b = calloc(1, sizeof *b);
        if (!b)
            return DDS_RETCODE_OUT_OF_RESOURCES;
        b->writer = topic_writer(r, descriptor_of(r, T_TF), topic_name(r, T_TF), T_TF, &b->readers);
        if (b->writer < 0) {
            dds_entity_t bad = b->writer;
            free(b);
            return bad;
        }
        (void)dds_get_guid(b->writer, &b->gid);
        p->tf = b;
    } else if (r->nwriters < MAX_GIDS) {
        r->writers[r->nwriters++] = p->tf->gid;
    }
    r->tf_shared = true;
    return p->tf->writer;
}

/* Deletes what of a robot's node was made (0 and errors are not entities;
 * a shared /tf writer is its participant's). */
static void drop_endpoints(robot_t *r)
{
    dds_entity_t *all[] = { &r->cmd,     &r->reset,  &r->dock_rd,
                            &r->undock_rd, &r->rosout, &r->param_events };
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        if (*all[i] > 0)
            dds_delete(*all[i]);
    for (int t = 0; t < T_RANGE; t++)
        if (r->writer[t] > 0 && !(t == T_TF && r->tf_shared))
            dds_delete(r->writer[t]);
    for (int sv = 0; sv < NSERVICES; sv++) {
        if (r->request[sv] > 0)
            dds_delete(r->request[sv]);
        if (r->reply[sv] > 0)
            dds_delete(r->reply[sv]);
    }
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
    r->part = n->nrobots / ROBOTS_PER_PARTICIPANT;
    if (r->part >= n->nparts && add_part(n, err, errlen) < 0) {
        free(r);
        return BW_EIO;
    }
    if (name_robot(r, base, ns, frame_prefix, url, &n->opt, err, errlen) < 0) {
        free(r);
        return BW_EINVAL;
    }

    for (int t = 0; t < T_RANGE; t++)
        if (t == T_TF && !r->tf_namespaced)
            r->writer[t] = shared_tf_writer(r);
        else if (has_topic(base, t))
            r->writer[t] = topic_writer(r, descriptor_of(r, t), topic_name(r, t), t,
                                        &r->readers_of[t]);
    r->reset = endpoint(r, false, &std_msgs_msg_dds__Empty__desc, "reset_odometry",
                        BW_ROS2_QOS_DEFAULT, 10, HASH_EMPTY, &r->slow_came);
    r->dock_rd = endpoint(r, false, &std_msgs_msg_dds__Empty__desc, "dock", BW_ROS2_QOS_DEFAULT,
                          10, HASH_EMPTY, &r->slow_came);
    r->undock_rd = endpoint(r, false, &std_msgs_msg_dds__Empty__desc, "undock",
                            BW_ROS2_QOS_DEFAULT, 10, HASH_EMPTY, &r->slow_came);
    r->stamped = bw_ros2_cmd_vel_of(&n->opt) == BW_ROS2_CMD_VEL_STAMPED;
    dds_topic_name(r->cmd_topic, sizeof r->cmd_topic, r->ns, "cmd_vel");
    r->cmd = cmd_reader(r);
    dds_entity_t bad = r->reset < 0      ? r->reset
                       : r->dock_rd < 0   ? r->dock_rd
                       : r->undock_rd < 0 ? r->undock_rd
                                          : node_services(r);
    for (int t = 0; t <= T_RANGE && bad >= 0; t++)
        bad = t < T_RANGE ? r->writer[t] : r->cmd;
    if (bad < 0) {
        say(err, errlen, "%s: a DDS reader or writer: %s", r->ns, dds_strretcode(bad));
        drop_endpoints(r); /* their listeners write into r */
        free(r);
        return BW_EIO;
    }
    n->robots[n->nrobots++] = r;
    params_declared(r);
    announce(n, r->part);
    return 0;
}

/* cmd_vel's reader, of the type the robot takes. */
static dds_entity_t cmd_reader(robot_t *r)
{
    return endpoint(r, false,
                    r->stamped ? &geometry_msgs_msg_dds__TwistStamped__desc
                               : &geometry_msgs_msg_dds__Twist__desc,
                    "cmd_vel", BW_ROS2_QOS_DEFAULT, 10, r->stamped ? HASH_TWIST_STAMPED : HASH_TWIST,
                    &r->cmd_came);
}

/* ---- /rosout: the node's own lines -------------------------------------------------- */

enum { LOG_INFO = 20, LOG_WARN = 30, LOG_ERROR = 40 }; /* rcl_interfaces/msg/Log's levels */

/* A line of the robot's node: on /rosout under its logger's name, as rcl
 * logs, and to the options' log function ("/robot1: ..."). */
#define robot_says(r, level, ...) robot_says_at((r), (level), __func__, __LINE__, __VA_ARGS__)
static void robot_says_at(robot_t *r, uint8_t level, const char *function, unsigned line,
                          const char *fmt, ...) __attribute__((format(printf, 5, 6)));
static void robot_says_at(robot_t *r, uint8_t level, const char *function, unsigned line,
                          const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (!r->node)
        return;
    if (r->node->opt.log) {
        char said[NAME_MAX_LEN + 520];
        snprintf(said, sizeof said, "%s: %s", r->ns, msg);
        r->node->opt.log(r->node->opt.log_ctx, said);
    }
    if (r->rosout > 0) {
        rcl_interfaces_msg_dds__Log_ m = { ros_now(), level, r->logger, msg, "node.c",
                                           (char *)function, line };
        if (dds_write(r->rosout, &m) == DDS_RETCODE_OK)
            r->stats.published++;
    }
}

/* ---- parameters: the node's settings, as an rclcpp node holds them ------------------- */

static int param_index(const char *name)
{
    for (int i = 0; name && i < NPARAMS; i++)
        if (!strcmp(name, params[i].name))
            return i;
    return -1;
}

static const char *type_name_of(uint8_t type)
{
    static const char *const names[] = { "unset value", "bool", "integer", "double", "string",
                                         "byte array", "bool array", "integer array",
                                         "double array", "string array" };
    return type < sizeof names / sizeof names[0] ? names[type] : "value of an unknown type";
}

/* A parameter's value now (its strings the robot's own, valid while it is). */
static void param_value(const robot_t *r, int i, rcl_interfaces_msg_dds__ParameterValue_ *v)
{
    memset(v, 0, sizeof *v);
    v->type = params[i].type;
    v->string_value = "";
    switch (i) {
    case P_USE_SIM_TIME: v->bool_value = false; break;
    case P_CMD_VEL_TIMEOUT: v->double_value = r->cmd_vel_timeout; break;
    case P_CMD_VEL_TYPE: v->string_value = r->stamped ? "stamped" : "twist"; break;
    case P_DIAGNOSTIC_PERIOD: v->double_value = r->diagnostic_period; break;
    case P_PUBLISH_TF: v->bool_value = !r->no_tf; break;
    case P_RATE: v->double_value = r->node->opt.rate > 0 ? r->node->opt.rate : 50; break;
    case P_ODOM_FRAME: v->string_value = (char *)r->odom_frame; break;
    case P_BASE_FRAME: v->string_value = (char *)r->base_frame; break;
    case P_URL: v->string_value = (char *)r->url; break;
    case P_FAMILY: v->string_value = (char *)bw_base_family(r->base); break;
    case P_DISTRO: v->string_value = (char *)bw_ros2_distro_id(r->distro); break;
    default: v->type = PT_NOT_SET; break;
    }
}

/* Whether p may be set: 0, or -1 with the reason a ROS 2 user is told. */
static int param_check(const robot_t *r, const rcl_interfaces_msg_dds__Parameter_ *p, char *why,
                       size_t cap)
{
    int i = param_index(p->name);
    if (i < 0) {
        snprintf(why, cap, "parameter '%.64s' is not declared by %s", p->name ? p->name : "",
                 r->node_name);
        return -1;
    }
    if (params[i].read_only) {
        snprintf(why, cap, "%s is read-only: %s", params[i].name, params[i].read_only);
        return -1;
    }
    uint8_t t = p->value.type;
    bool fits = t == params[i].type || (params[i].type == PT_DOUBLE && t == PT_INTEGER);
    if (!fits) {
        snprintf(why, cap, "%s is a %s; a %s cannot set it", params[i].name,
                 type_name_of(params[i].type), type_name_of(t));
        return -1;
    }
    if (params[i].type == PT_DOUBLE) {
        double x = t == PT_INTEGER ? (double)p->value.integer_value : p->value.double_value;
        if (!(x >= params[i].from && x <= params[i].to)) {
            snprintf(why, cap, "%s must be from %g to %g, not %g", params[i].name, params[i].from,
                     params[i].to, x);
            return -1;
        }
    }
    const char *str = p->value.string_value ? p->value.string_value : "";
    if (i == P_CMD_VEL_TYPE && strcmp(str, "twist") != 0 && strcmp(str, "stamped") != 0) {
        snprintf(why, cap, "cmd_vel_type is twist or stamped, not \"%s\"", str);
        return -1;
    }
    if (i == P_USE_SIM_TIME && p->value.bool_value) {
        snprintf(why, cap, "use_sim_time: %s", params[i].constraints);
        return -1;
    }
    return 0;
}

/* Takes a parameter that param_check let pass; true if its value changed. */
static bool param_apply(robot_t *r, const rcl_interfaces_msg_dds__Parameter_ *p, double now)
{
    int i = param_index(p->name);
    double x = p->value.type == PT_INTEGER ? (double)p->value.integer_value : p->value.double_value;
    switch (i) {
    case P_CMD_VEL_TIMEOUT:
        if (x == r->cmd_vel_timeout)
            return false;
        r->cmd_vel_timeout = x;
        return true;
    case P_DIAGNOSTIC_PERIOD:
        if (x == r->diagnostic_period)
            return false;
        r->diagnostic_period = x;
        return true;
    case P_PUBLISH_TF:
        if (r->no_tf == !p->value.bool_value)
            return false;
        r->no_tf = !p->value.bool_value;
        return true;
    case P_CMD_VEL_TYPE: {
        bool stamped = !strcmp(p->value.string_value, "stamped");
        if (stamped == r->stamped)
            return false;
        /* a reader of the other type in place of the old one: the robot
         * stops until commands of that type come */
        for (unsigned j = 0; j < r->nreaders; j++) {
            dds_guid_t g;
            if (dds_get_guid(r->cmd, &g) == DDS_RETCODE_OK && !memcmp(&g, &r->readers[j], sizeof g)) {
                memmove(&r->readers[j], &r->readers[j + 1], (r->nreaders - j - 1) * sizeof g);
                r->nreaders--;
                break;
            }
        }
        dds_delete(r->cmd);
        r->stamped = stamped;
        r->ntold = 0;
        r->cmd = cmd_reader(r);
        if (r->driving) {
            bw_base_stop(r->base, now);
            r->driving = false;
        }
        r->have_cmd = false;
        announce(r->node, r->part);
        robot_says(r, LOG_INFO, "cmd_vel now takes %s",
                   stamped ? "geometry_msgs/msg/TwistStamped" : "geometry_msgs/msg/Twist");
        return true;
    }
    default: return false; /* use_sim_time false: as it was */
    }
}

/* /parameter_events: the parameters new (all, when the node starts) or
 * changed, as rclcpp publishes them. */
static void param_event(robot_t *r, const rcl_interfaces_msg_dds__Parameter_ *ps, uint32_t n,
                        bool fresh)
{
    if (r->param_events <= 0 || n == 0)
        return;
    rcl_interfaces_msg_dds__ParameterEvent_ e;
    memset(&e, 0, sizeof e);
    e.stamp = ros_now();
    e.node = r->node_name;
    dds_sequence_rcl_interfaces_msg_dds__Parameter_ seq = { n, n,
                                                             (rcl_interfaces_msg_dds__Parameter_ *)ps,
                                                             false };
    if (fresh)
        e.new_parameters = seq;
    else
        e.changed_parameters = seq;
    if (dds_write(r->param_events, &e) == DDS_RETCODE_OK)
        r->stats.published++;
}

static void params_declared(robot_t *r)
{
    rcl_interfaces_msg_dds__Parameter_ ps[NPARAMS];
    for (int i = 0; i < NPARAMS; i++) {
        ps[i].name = (char *)params[i].name;
        param_value(r, i, &ps[i].value);
    }
    param_event(r, ps, NPARAMS, true);
}

/* ---- the parameter services -------------------------------------------------------- */

static dds_sequence_string names_of(const void *request, int service)
{
    switch (service) {
    case S_GET: return ((const rcl_interfaces_srv_dds__GetParameters_Request_ *)request)->names;
    case S_GET_TYPES:
        return ((const rcl_interfaces_srv_dds__GetParameterTypes_Request_ *)request)->names;
    default: return ((const rcl_interfaces_srv_dds__DescribeParameters_Request_ *)request)->names;
    }
}

/* Whether every name is declared: rclcpp answers a request that names an
 * undeclared parameter with nothing. */
static bool all_declared(const dds_sequence_string *names)
{
    for (uint32_t i = 0; i < names->_length; i++)
        if (param_index(names->_buffer[i]) < 0)
            return false;
    return true;
}

#define MAX_ASKED 64 /* names or parameters in one request */

/* The header is the first two members of each request and reply type. */
typedef struct {
    uint64_t guid;
    int64_t seq;
} request_header_t;

static void answer(robot_t *r, int service, const void *request, double now)
{
    const request_header_t *h = request;
    switch (service) {
    case S_LIST: {
        const rcl_interfaces_srv_dds__ListParameters_Request_ *q = request;
        rcl_interfaces_srv_dds__ListParameters_Response_ a;
        memset(&a, 0, sizeof a);
        a.guid = h->guid;
        a.seq = h->seq;
        char *names[NPARAMS];
        uint32_t k = 0;
        for (int i = 0; i < NPARAMS; i++) {
            bool wanted = q->prefixes._length == 0;
            for (uint32_t j = 0; !wanted && j < q->prefixes._length; j++) {
                const char *pre = q->prefixes._buffer[j] ? q->prefixes._buffer[j] : "";
                size_t len = strlen(pre);
                wanted = !strcmp(params[i].name, pre) ||
                         (!strncmp(params[i].name, pre, len) && params[i].name[len] == '.');
            }
            if (wanted)
                names[k++] = (char *)params[i].name;
        }
        a.result.names = (dds_sequence_string){ k, k, names, false };
        dds_write(r->reply[service], &a);
        break;
    }
    case S_GET:
    case S_GET_TYPES:
    case S_DESCRIBE: {
        dds_sequence_string names = names_of(request, service);
        /* (more than MAX_ASKED names: the same ones again and again, taken
         * as rclcpp takes an undeclared one) */
        uint32_t k = all_declared(&names) && names._length <= MAX_ASKED ? names._length : 0;
        rcl_interfaces_msg_dds__ParameterValue_ values[MAX_ASKED];
        uint8_t types[MAX_ASKED];
        rcl_interfaces_msg_dds__ParameterDescriptor_ d[MAX_ASKED];
        rcl_interfaces_msg_dds__FloatingPointRange_ ranges[MAX_ASKED];
        for (uint32_t j = 0; j < k; j++) {
            int i = param_index(names._buffer[j]);
            param_value(r, i, &values[j]);
            types[j] = params[i].type;
            memset(&d[j], 0, sizeof d[j]);
            d[j].name = (char *)params[i].name;
            d[j].type = params[i].type;
            d[j].description = (char *)params[i].description;
            d[j].additional_constraints = (char *)(params[i].read_only ? params[i].read_only
                                                                       : params[i].constraints);
            d[j].read_only = params[i].read_only != NULL;
            if (params[i].type == PT_DOUBLE && !params[i].read_only) {
                ranges[j] = (rcl_interfaces_msg_dds__FloatingPointRange_){ params[i].from,
                                                                           params[i].to, 0 };
                d[j].floating_point_range =
                    (dds_sequence_rcl_interfaces_msg_dds__FloatingPointRange_){ 1, 1, &ranges[j],
                                                                                false };
            }
        }
        if (service == S_GET) {
            rcl_interfaces_srv_dds__GetParameters_Response_ a = { h->guid, h->seq, { k, k, values, false } };
            dds_write(r->reply[service], &a);
        } else if (service == S_GET_TYPES) {
            rcl_interfaces_srv_dds__GetParameterTypes_Response_ a = { h->guid, h->seq, { k, k, types, false } };
            dds_write(r->reply[service], &a);
        } else {
            rcl_interfaces_srv_dds__DescribeParameters_Response_ a = { h->guid, h->seq, { k, k, d, false } };
            dds_write(r->reply[service], &a);
        }
        break;
    }
    case S_SET:
    case S_SET_ATOMICALLY: {
        /* the two requests have the same layout */
        const rcl_interfaces_srv_dds__SetParameters_Request_ *q = request;
        uint32_t k = q->parameters._length > MAX_ASKED ? MAX_ASKED : q->parameters._length;
        rcl_interfaces_msg_dds__SetParametersResult_ results[MAX_ASKED];
        char why[MAX_ASKED][320];
        rcl_interfaces_msg_dds__Parameter_ changed[MAX_ASKED];
        uint32_t nchanged = 0;
        bool all = true, many = q->parameters._length > MAX_ASKED;
        for (uint32_t j = 0; j < k; j++) {
            if (many)
                snprintf(why[j], sizeof why[j], "%u parameters in one request: %d at most",
                         q->parameters._length, MAX_ASKED);
            results[j].successful =
                !many && param_check(r, &q->parameters._buffer[j], why[j], sizeof why[j]) == 0;
            results[j].reason = results[j].successful ? "" : why[j];
            all = all && results[j].successful;
        }
        bool atomic = service == S_SET_ATOMICALLY;
        for (uint32_t j = 0; j < k; j++) {
            if (!results[j].successful || (atomic && !all))
                continue;
            /* Every parameter set goes on /parameter_events, its value
             * new or not, as rclcpp publishes them; the node says so when
             * it changed. */
            const rcl_interfaces_msg_dds__Parameter_ *p = &q->parameters._buffer[j];
            int i = param_index(p->name);
            if (param_apply(r, p, now))
                robot_says(r, LOG_INFO, "parameter %s set", params[i].name);
            changed[nchanged].name = (char *)params[i].name;
            param_value(r, i, &changed[nchanged].value);
            nchanged++;
        }
        for (uint32_t j = 0; j < k; j++)
            if (!results[j].successful)
                robot_says(r, LOG_WARN, "a set of %s refused: %s",
                           q->parameters._buffer[j].name ? q->parameters._buffer[j].name : "", why[j]);
        param_event(r, changed, nchanged, false);
        if (atomic) {
            rcl_interfaces_srv_dds__SetParametersAtomically_Response_ a;
            memset(&a, 0, sizeof a);
            a.guid = h->guid;
            a.seq = h->seq;
            a.result.successful = all;
            a.result.reason = "";
            for (uint32_t j = 0; !all && j < k; j++)
                if (!results[j].successful) {
                    a.result.reason = why[j];
                    break;
                }
            dds_write(r->reply[service], &a);
        } else {
            rcl_interfaces_srv_dds__SetParameters_Response_ a = { h->guid, h->seq, { k, k, results, false } };
            dds_write(r->reply[service], &a);
        }
        break;
    }
    }
}

static void serve(robot_t *r, double now)
{
    for (int sv = 0; sv < NSERVICES; sv++) {
        if (r->request[sv] <= 0)
            continue;
        void *samples[8] = { NULL };
        dds_sample_info_t info[8];
        int got;
        while ((got = dds_take(r->request[sv], samples, info, 8, 8)) > 0) {
            for (int k = 0; k < got; k++)
                if (info[k].valid_data)
                    answer(r, sv, samples[k], now);
            dds_return_loan(r->request[sv], samples, got);
            if (got < 8)
                break;
        }
    }
}

/* rmw_cyclonedds's id of a client or service (get_unique_csid): the
 * participant's GUID prefix and a counter, big-endian, written as
 * csid_to_string writes it ("%2x", then ".%x" for each byte). */
static void service_id(bw_ros2_t *n, size_t part, char *out, size_t cap)
{
    dds_guid_t g;
    memset(&g, 0, sizeof g);
    dds_get_guid(n->parts[part].pp, &g);
    uint32_t x = ++n->service_ids;
    uint8_t id[16];
    memcpy(id, g.v, 12);
    for (int i = 0; i < 4; i++)
        id[12 + i] = (uint8_t)(x >> (24 - 8 * i));
    size_t used = (size_t)snprintf(out, cap, "serviceid=%2x", id[0]);
    for (int i = 1; i < 16 && used < cap; i++)
        used += (size_t)snprintf(out + used, cap - used, ".%x", id[i]);
    if (used < cap)
        snprintf(out + used, cap - used, ";");
}

/* /rosout, /parameter_events and the six services of the robot's node. */
static int node_services(robot_t *r)
{
    bw_ros2_t *n = r->node;
    r->rosout = endpoint_ex(r, true, &rcl_interfaces_msg_dds__Log__desc, "rt/rosout",
                            BW_ROS2_QOS_LATCHED, 1000, HASH_LOG, NULL, 10.0, NULL);
    if (r->rosout < 0)
        return r->rosout;
    r->param_events = endpoint_ex(r, true, &rcl_interfaces_msg_dds__ParameterEvent__desc,
                                  "rt/parameter_events", BW_ROS2_QOS_DEFAULT, 1000,
                                  HASH_PARAMETER_EVENT, NULL, 0, NULL);
    if (r->param_events < 0)
        return r->param_events;
    for (int sv = 0; sv < NSERVICES; sv++) {
        char id[96], topic[2 * NAME_MAX_LEN + 64];
        service_id(n, r->part, id, sizeof id);
        snprintf(topic, sizeof topic, "rq%s/%sRequest", r->node_name, services[sv].name);
        r->request[sv] = endpoint_ex(r, false, services[sv].request, topic, BW_ROS2_QOS_DEFAULT,
                                     1000, services[sv].request_hash, id, 0, &r->slow_came);
        if (r->request[sv] < 0)
            return r->request[sv];
        snprintf(topic, sizeof topic, "rr%s/%sReply", r->node_name, services[sv].name);
        r->reply[sv] = endpoint_ex(r, true, services[sv].reply, topic, BW_ROS2_QOS_DEFAULT, 1000,
                                   services[sv].reply_hash, id, 0, NULL);
        if (r->reply[sv] < 0)
            return r->reply[sv];
    }
    return 0;
}

/* ---- publishing ------------------------------------------------------------------ */

/* Whether a topic of period `period` (0: every report) is due at now;
 * if so, when it is next (on its own schedule: a report a little early
 * by the robot's jitter still counts, one that fell behind does not
 * bring a burst). */
static bool due(double now, double *at, double period)
{
    if (period <= 0)
        return true;
    if (now < *at - 0.002)
        return false;
    *at += period;
    if (*at < now)
        *at = now + period;
    return true;
}

static geometry_msgs_msg_dds__Quaternion_ yaw_quaternion(double yaw)
{
    geometry_msgs_msg_dds__Quaternion_ q = { 0, 0, sin(yaw / 2), cos(yaw / 2) };
    return q;
}

/* The gyro as kobuki_ros gives it: the heading (the odometry's, which the
 * Kobuki's driver takes from the gyro) and its rate; roll and pitch
 * unknown, no accelerometer (-1 first: REP 145's "not there"). */
static void publish_imu(robot_t *r, const bw_base_state_t *st, builtin_interfaces_msg_dds__Time_ stamp)
{
    if (!has_topic(r->base, T_IMU) || !(st->t > 0))
        return;
    sensor_msgs_msg_dds__Imu_ m;
    memset(&m, 0, sizeof m);
    m.header.stamp = stamp;
    m.header.frame_id = r->base_frame;
    m.orientation = yaw_quaternion(st->pose.theta);
    m.angular_velocity.z = st->w;
    m.orientation_covariance[0] = m.orientation_covariance[4] = 1e6;
    m.orientation_covariance[8] = 0.05 * 0.05; /* a Kobuki's gyro: a few degrees */
    m.angular_velocity_covariance[0] = m.angular_velocity_covariance[4] = 1e6;
    m.angular_velocity_covariance[8] = 0.02 * 0.02;
    m.linear_acceleration_covariance[0] = -1;
    out(r, T_IMU, 0, &m, stamp);
}

/* Each wheel's joint as kobuki_ros and create_robot name them: the angle
 * its encoder counted since the node first heard it (rad), and its speed
 * since the last report. */
static void publish_joints(robot_t *r, const bw_base_state_t *st,
                           builtin_interfaces_msg_dds__Time_ stamp)
{
    if (!has_topic(r->base, T_JOINTS) || !(st->t > 0)) /* (t 0: no frame yet, no counts) */
        return;
    static char *names[2] = { "wheel_left_joint", "wheel_right_joint" };
    double pos[2], vel[2] = { 0, 0 };
    for (int i = 0; i < 2 && !r->have_joint; i++)
        r->joint_from[i] = st->encoder[i];
    for (int i = 0; i < 2; i++) {
        pos[i] = (double)(st->encoder[i] - r->joint_from[i]) / st->counts_per_m / st->wheel_radius;
        if (r->have_joint && st->t > r->joint_t)
            vel[i] = (pos[i] - r->joint_pos[i]) / (st->t - r->joint_t);
        r->joint_pos[i] = pos[i];
    }
    r->joint_t = st->t;
    r->have_joint = true;
    sensor_msgs_msg_dds__JointState_ m;
    memset(&m, 0, sizeof m);
    m.header.stamp = stamp;
    m.header.frame_id = "";
    m.name = (dds_sequence_string){ 2, 2, names, false };
    m.position = (dds_sequence_double){ 2, 2, pos, false };
    m.velocity = (dds_sequence_double){ 2, 2, vel, false };
    out(r, T_JOINTS, 0, &m, stamp);
}

static void publish_odom(robot_t *r, const bw_base_state_t *st, builtin_interfaces_msg_dds__Time_ stamp,
                         bool odom, bool tf)
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
    if (odom)
        out(r, T_ODOM, 0, &o, stamp);
    if (r->no_tf || !tf)
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
                           builtin_interfaces_msg_dds__Time_ stamp, double now)
{
    if (st->nranges > r->nranges) { /* known once the model is */
        geometry_msgs_msg_dds__TransformStamped_ mounts[BW_BASE_MAX_RANGES];
        char frames[BW_BASE_MAX_RANGES][NAME_MAX_LEN + 32];
        memset(mounts, 0, sizeof mounts);
        for (unsigned i = r->nranges; r->node && i < st->nranges && i < BW_BASE_MAX_RANGES; i++) {
            char name[32];
            snprintf(name, sizeof name, "range/%u", i);
            r->range[i] = topic_writer(r, r->node->range_desc, name, T_RANGE, &r->range_readers[i]);
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
            announce(r->node, r->part);
    }
    for (unsigned i = 0; i < r->nranges; i++) {
        const bw_range_t *rg = &st->ranges[i];
        if (r->range[i] < 0 || rg->t == 0 || rg->t == r->range_t[i] ||
            !due(now, &r->range_due[i], r->range_period))
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
    while (r->node && bw_base_next_event(r->base, &ev) > 0) { /* a CDR view is given them */
        publish_event(r, &ev, stamp);
        if (ev.type == BW_EV_ONLINE)
            robot_says(r, LOG_INFO, "online: %s", r->url);
        else if (ev.type == BW_EV_OFFLINE)
            robot_says(r, LOG_WARN, "offline: nothing heard from %s; the robot stopped", r->url);
        else if (ev.type == BW_EV_FAULT && ev.on)
            robot_says(r, LOG_ERROR, "fault 0x%x reported by the robot", ev.mask);
    }
}

static void publish_battery(robot_t *r, const bw_base_state_t *st,
                            builtin_interfaces_msg_dds__Time_ stamp)
{
    if (!(bw_base_caps(r->base) & BW_CAP_BATTERY) || !(st->t > 0))
        return; /* (nothing said of a battery before the robot's first report) */
    sensor_msgs_msg_dds__BatteryState_ b;
    memset(&b, 0, sizeof b);
    b.header.stamp = stamp;
    b.header.frame_id = "";
    b.voltage = (float)st->battery;
    b.current = st->battery_current != 0 ? (float)st->battery_current : NAN;
    b.charge = st->battery_charge != 0 ? (float)st->battery_charge : NAN;
    b.capacity = st->battery_capacity != 0 ? (float)st->battery_capacity : NAN;
    b.design_capacity = NAN;
    b.percentage = st->battery_fraction > 0 ? (float)st->battery_fraction : NAN; /* 0..1 */
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
            r->stats.cmd_vel++;
            if (!isfinite(t->linear.x) || !isfinite(t->angular.z)) {
                r->stats.cmd_vel_ignored++;
                continue;
            }
            if (age > r->cmd_vel_timeout) {
                r->stats.cmd_vel_stale++;
                if (r->stats.cmd_vel_stale == 1)
                    robot_says(r, LOG_WARN,
                               "a cmd_vel stamped %.2f s ago refused (older than the %.2f s "
                               "timeout; is the sender's clock this one's?)",
                               age, r->cmd_vel_timeout);
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
/* The robot's messages' stamp: ROS time, the wall clock, unless a CDR
 * view was given its own. */
static builtin_interfaces_msg_dds__Time_ stamp_of_robot(const robot_t *r)
{
    if (!r->clock_ns)
        return ros_now();
    builtin_interfaces_msg_dds__Time_ t = { (int32_t)(r->clock_ns / 1000000000u),
                                            (uint32_t)(r->clock_ns % 1000000000u) };
    return t;
}

static void publish_state(robot_t *r, double now)
{
    const bw_base_state_t *st = bw_base_state(r->base);
    builtin_interfaces_msg_dds__Time_ stamp = stamp_of_robot(r);
    if (st->t != r->last_state_t) {
        r->last_state_t = st->t;
        bool odom = due(now, &r->odom_due, r->odom_period), tf = due(now, &r->tf_due, r->tf_period);
        if (odom || tf)
            publish_odom(r, st, stamp, odom, tf);
        if (odom) {
            publish_imu(r, st, stamp);
            publish_joints(r, st, stamp);
        }
    }
    publish_ranges(r, st, stamp, now);
    publish_events(r, st, stamp);
    if (now - r->last_diag >= r->diagnostic_period) {
        r->last_diag = now;
        publish_battery(r, st, stamp);
        publish_diagnostics(r, st, stamp);
    }
}

/* reset_odometry (std_msgs/msg/Empty), as kobuki_ros and create_robot
 * take it: the odometry starts again from (0, 0, 0) where the robot is. */
static void take_reset(robot_t *r)
{
    void *samples[4] = { NULL };
    dds_sample_info_t info[4];
    int got;
    bool reset = false;
    while ((got = dds_take(r->reset, samples, info, 4, 4)) > 0) { /* every one that came */
        for (int i = 0; i < got; i++)
            reset = reset || info[i].valid_data;
        dds_return_loan(r->reset, samples, got);
        if (got < 4)
            break;
    }
    if (reset) {
        bw_base_reset_odometry(r->base);
        r->last_state_t = -1; /* the new pose goes out, */
        r->odom_due = r->tf_due = 0; /* at once */
        robot_says(r, LOG_INFO, "odometry reset to (0, 0, 0)");
    }
}

/* Whether an Empty came on a reader: every one there taken. */
static bool empty_came(dds_entity_t rd)
{
    void *samples[4] = { NULL };
    dds_sample_info_t info[4];
    int got;
    bool came = false;
    while ((got = dds_take(rd, samples, info, 4, 4)) > 0) {
        for (int i = 0; i < got; i++)
            came = came || info[i].valid_data;
        dds_return_loan(rd, samples, got);
        if (got < 4)
            break;
    }
    return came;
}

#define DOCK_LIMIT 180.0 /* s a dock or undock may take */

/* dock and undock: the GRL layer's docking by the dock's infrared, on a
 * base that hears it, or the base's own Seek Dock, watched (a Create);
 * what happens said on /rosout. */
static void take_dock(robot_t *r, double now)
{
    bool dock = empty_came(r->dock_rd), undock = empty_came(r->undock_rd);
    if (!dock && !undock)
        return;
    if (!(bw_base_caps(r->base) & (BW_CAP_DOCK_IR | BW_CAP_SEEK_DOCK))) {
        robot_says(r, LOG_WARN, "%s: a %s base reports no dock botwire can find it by; not moved",
                   undock ? "undock" : "dock", bw_base_family(r->base));
        return;
    }
    bw_grl_init(&r->grl, r->base);
    r->grl.now = now;
    r->undocking = undock;
    if (undock)
        bw_docking_init_undock(&r->docking, &r->grl, DOCK_LIMIT);
    else
        bw_docking_init(&r->docking, &r->grl, DOCK_LIMIT);
    r->docking_on = true;
    r->have_cmd = false; /* the docking drives now */
    robot_says(r, LOG_INFO, "%s: begun", undock ? "undock" : "dock");
}

/* A step of the docking under way: true while it drives the robot. */
static bool step_docking(robot_t *r, double now)
{
    if (!r->docking_on)
        return false;
    r->grl.now = now;
    int rc = bw_docking_tick(&r->docking);
    if (rc != 0) {
        r->docking_on = false;
        r->driving = false;
        robot_says(r, rc > 0 ? LOG_INFO : LOG_WARN, "%s: %s: %s", r->undocking ? "undock" : "dock",
                   rc > 0 ? "done" : "failed", r->docking.why);
    }
    return true;
}

/* A robot's step up to what it publishes: what came for it, its drive,
 * its base polled (its emulation and driver). On any thread (the pool). */
static void step_robot(robot_t *r, double now, bool slow)
{
    /* parameters and resets: at SLOW_PERIOD, not each cycle; each reader
     * only once something came (the flag down before the take, so that
     * what comes during it raises it again) */
    if (slow && atomic_exchange_explicit(&r->slow_came, 0, memory_order_acquire)) {
        serve(r, now);
        take_reset(r);
        take_dock(r, now);
    }
    double cmd_before = r->last_cmd;
    if (atomic_exchange_explicit(&r->cmd_came, 0, memory_order_acquire))
        take_cmd_vel(r, now);
    if (r->docking_on && r->have_cmd && r->last_cmd != cmd_before) {
        /* someone drives: the docking gives way */
        r->docking_on = false;
        robot_says(r, LOG_INFO, "%s: given up: a cmd_vel came", r->undocking ? "undock" : "dock");
    }
    if (step_docking(r, now)) {
        r->driving = true; /* stopped when it ends, as a drive */
    } else if (r->have_cmd && now - r->last_cmd <= r->cmd_vel_timeout) {
        bw_base_drive(r->base, r->v, r->w, now);
        r->driving = true;
    } else if (r->driving) {
        bw_base_stop(r->base, now); /* cmd_vel fell silent */
        r->driving = false;
    }
    bw_base_poll(r->base, now);
}

static int by_cmd_topic(const void *a, const void *b)
{
    return strcmp((*(robot_t *const *)a)->cmd_topic, (*(robot_t *const *)b)->cmd_topic);
}

static int cmd_topic_is(const void *topic, const void *r)
{
    return strcmp(topic, (*(robot_t *const *)r)->cmd_topic);
}

/* The robot whose cmd_vel topic (DDS name) this is, or NULL. The domain's
 * writers are mostly the robots' own (twenty a robot): most names are
 * not a cmd_vel's, and those that are are looked up in the robots sorted
 * by it, not compared with each of a fleet's thousands. */
static robot_t *robot_of_cmd_topic(bw_ros2_t *n, const char *topic)
{
    static const char tail[] = "cmd_vel";
    size_t len = strlen(topic), tl = sizeof tail - 1;
    if (len < tl || strcmp(topic + len - tl, tail) != 0)
        return NULL;
    if (n->nby_cmd != n->nrobots) {
        robot_t **grown = realloc(n->by_cmd, (n->nrobots ? n->nrobots : 1) * sizeof *grown);
        if (!grown)
            return NULL;
        n->by_cmd = grown;
        memcpy(grown, n->robots, n->nrobots * sizeof *grown);
        qsort(grown, n->nrobots, sizeof *grown, by_cmd_topic);
        n->nby_cmd = n->nrobots;
    }
    robot_t **hit = bsearch(topic, n->by_cmd, n->nby_cmd, sizeof *n->by_cmd, cmd_topic_is);
    return hit ? *hit : NULL;
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
            robot_t *r = robot_of_cmd_topic(n, e->topic_name);
            if (!r)
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
            bw_ros2_type_of_dds(type, sizeof type, e->type_name);
            bool twist = !strcmp(e->type_name, "geometry_msgs::msg::dds_::Twist_");
            bool stamped = !strcmp(e->type_name, "geometry_msgs::msg::dds_::TwistStamped_");
            robot_says(r, LOG_WARN,
                       "a writer of %s on %s/cmd_vel, where this node takes %s: none of "
                       "its commands are taken%s",
                       type, strcmp(r->ns, "/") ? r->ns : "",
                       r->stamped ? "geometry_msgs/msg/TwistStamped" : "geometry_msgs/msg/Twist",
                       twist     ? " (--cmd-vel twist or cmd_vel_type twist takes them)"
                       : stamped ? " (--cmd-vel stamped or cmd_vel_type stamped takes them)"
                                 : "");
        }
        dds_return_loan(n->publications, samples, got);
        if (got < 16)
            break;
    }
}

/* How often the node looks at what is not on a robot's control path: the
 * parameter services, reset_odometry, other writers' types (a fleet's
 * thousands of readers are not taken at the robots' 50 Hz). */
#define SLOW_PERIOD 0.05

/* Thread k's share of a step's robots (the caller is 0): a run of
 * them, each thread's own part of memory. */
static void step_share(bw_ros2_t *n, unsigned k, double now, bool slow)
{
    size_t threads = n->pool.workers + 1;
    size_t from = n->nrobots * k / threads, to = n->nrobots * (k + 1) / threads;
    for (size_t i = from; i < to; i++)
        step_robot(n->robots[i], now, slow);
}

typedef struct {
    bw_ros2_t *n;
    unsigned k;
} worker_t;

static void *worker(void *arg)
{
    worker_t w = *(worker_t *)arg;
    free(arg);
    bw_ros2_t *n = w.n;
    unsigned long seen = 0;
    for (;;) {
        pthread_mutex_lock(&n->pool.m);
        while (n->pool.gen == seen)
            pthread_cond_wait(&n->pool.go, &n->pool.m);
        seen = n->pool.gen;
        bool quit = n->pool.quit, slow = n->pool.slow;
        double now = n->pool.now;
        pthread_mutex_unlock(&n->pool.m);
        if (quit)
            return NULL;
        step_share(n, w.k, now, slow);
        pthread_mutex_lock(&n->pool.m);
        if (--n->pool.busy == 0)
            pthread_cond_signal(&n->pool.done);
        pthread_mutex_unlock(&n->pool.m);
    }
}

/* The threads a step's robots want: opt.threads, but a thread to
 * ROBOTS_PER_THREAD of them at most (a handful of robots is stepped
 * faster than threads are woken). */
#define ROBOTS_PER_THREAD 50
static unsigned threads_wanted(const bw_ros2_t *n)
{
    size_t t = n->nrobots / ROBOTS_PER_THREAD;
    if (t > n->opt.threads)
        t = n->opt.threads;
    return t > 1 ? (unsigned)t : 1;
}

/* The step's threads, made at the first step (once the robots are
 * there). A thread that cannot be made is done without (its robots go to
 * the others). */
static void pool_start(bw_ros2_t *n)
{
    n->pool.tried = true;
    unsigned want = threads_wanted(n);
    if (want < 2)
        return;
    n->pool.thread = calloc(want - 1, sizeof *n->pool.thread);
    if (!n->pool.thread)
        return;
    pthread_mutex_init(&n->pool.m, NULL);
    pthread_cond_init(&n->pool.go, NULL);
    pthread_cond_init(&n->pool.done, NULL);
    /* the share is by the number of threads: none steps until all are made */
    unsigned made = 0;
    pthread_mutex_lock(&n->pool.m);
    for (unsigned k = 1; k < want; k++) {
        worker_t *w = malloc(sizeof *w);
        if (!w)
            break;
        *w = (worker_t){ n, k };
        if (pthread_create(&n->pool.thread[made], NULL, worker, w) != 0) {
            free(w);
            break;
        }
        made++;
    }
    n->pool.workers = made;
    pthread_mutex_unlock(&n->pool.m);
}

static void pool_stop(bw_ros2_t *n)
{
    if (!n->pool.tried || !n->pool.thread)
        return;
    pthread_mutex_lock(&n->pool.m);
    n->pool.quit = true;
    n->pool.gen++;
    pthread_cond_broadcast(&n->pool.go);
    pthread_mutex_unlock(&n->pool.m);
    for (unsigned k = 0; k < n->pool.workers; k++)
        pthread_join(n->pool.thread[k], NULL);
    free(n->pool.thread);
    pthread_mutex_destroy(&n->pool.m);
    pthread_cond_destroy(&n->pool.go);
    pthread_cond_destroy(&n->pool.done);
    n->pool.thread = NULL;
    n->pool.workers = 0;
}

void bw_ros2_step(bw_ros2_t *n, double now)
{
    bool slow = !(now - n->slow_at < SLOW_PERIOD && now >= n->slow_at);
    if (slow)
        n->slow_at = now;
    if (!n->pool.tried && n->opt.threads > 1)
        pool_start(n);
    if (n->pool.workers) {
        pthread_mutex_lock(&n->pool.m);
        n->pool.now = now;
        n->pool.slow = slow;
        n->pool.busy = n->pool.workers;
        n->pool.gen++;
        pthread_cond_broadcast(&n->pool.go);
        pthread_mutex_unlock(&n->pool.m);
        step_share(n, 0, now, slow);
        pthread_mutex_lock(&n->pool.m);
        while (n->pool.busy > 0)
            pthread_cond_wait(&n->pool.done, &n->pool.m);
        pthread_mutex_unlock(&n->pool.m);
    } else {
        for (size_t i = 0; i < n->nrobots; i++)
            step_robot(n->robots[i], now, slow);
    }
    /* What they publish goes out from this thread alone, while the
     * others rest: on a machine whose cores the readers share, a step
     * that wrote from every core would keep them from their messages. */
    for (size_t i = 0; i < n->nrobots; i++)
        publish_state(n->robots[i], now);
    tf_flush(n);
    if (slow)
        watch_publications(n);
    /* Other participants' node lists: not needed here, only kept small. */
    void *samples[8] = { NULL };
    dds_sample_info_t info[8];
    int got = dds_take(n->info_reader, samples, info, 8, 8);
    if (got > 0)
        dds_return_loan(n->info_reader, samples, got);
}

bool bw_ros2_commanded(const bw_ros2_t *n, size_t i) { return i < n->nrobots && n->robots[i]->driving; }

int bw_ros2_domain(const bw_ros2_t *n) { return n->opt.domain; }

unsigned bw_ros2_threads(const bw_ros2_t *n)
{
    return n->pool.tried ? n->pool.workers + 1 : threads_wanted(n);
}

void bw_ros2_stats(const bw_ros2_t *n, bw_ros2_stats_t *stats)
{
    *stats = n->stats;
    for (size_t i = 0; i < n->nrobots; i++) {
        const bw_ros2_stats_t *r = &n->robots[i]->stats;
        stats->published += r->published;
        stats->unread += r->unread;
        stats->cmd_vel += r->cmd_vel;
        stats->cmd_vel_ignored += r->cmd_vel_ignored;
        stats->cmd_vel_stale += r->cmd_vel_stale;
        stats->cmd_vel_other_type += r->cmd_vel_other_type;
    }
}

void bw_ros2_close(bw_ros2_t *n, double now)
{
    if (!n)
        return;
    pool_stop(n);
    for (size_t i = 0; i < n->nrobots; i++)
        bw_base_stop(n->robots[i]->base, now);
    /* the participants (and their listeners, which write into the
     * robots) first */
    for (size_t i = 0; i < n->nparts; i++) {
        dds_delete(n->parts[i].pp);
        if (n->parts[i].tf)
            free(n->parts[i].tf->t);
        free(n->parts[i].tf);
    }
    free(n->parts);
    for (size_t i = 0; i < n->nrobots; i++)
        free(n->robots[i]);
    free(n->robots);
    free(n->by_cmd);
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

void bw_ros2_cdr_event(bw_ros2_cdr_t *c, const bw_event_t *ev)
{
    publish_event(&c->r, ev, stamp_of_robot(&c->r));
}

void bw_ros2_cdr_clock(bw_ros2_cdr_t *c, uint64_t stamp_ns) { c->r.clock_ns = stamp_ns; }

void bw_ros2_cdr_close(bw_ros2_cdr_t *c)
{
    if (!c)
        return;
    free(c->r.cdr_buf);
    free(c);
}

/* ---- for looking at the graph (look.c) ----------------------------------------------- */

dds_entity_t bw_ros2_participant(const bw_ros2_t *n) { return n->participant; }

#define DEFINE_NODES(fn, T)                                                                   \
    static void fn(bw_ros2_t *n, char (*out)[300], size_t cap, size_t *count)                \
    {                                                                                         \
        void *s[16] = { NULL };                                                               \
        dds_sample_info_t info[16];                                                           \
        int got;                                                                              \
        while ((got = dds_take(n->info_reader, s, info, 16, 16)) > 0) {                       \
            for (int i = 0; i < got; i++) {                                                   \
                const T##ParticipantEntitiesInfo_ *p = s[i];                                  \
                for (uint32_t j = 0; info[i].valid_data && j < p->node_entities_info_seq._length; \
                     j++) {                                                                   \
                    const T##NodeEntitiesInfo_ *e = &p->node_entities_info_seq._buffer[j];    \
                    char name[300];                                                           \
                    snprintf(name, sizeof name, "%.150s%s%.140s", e->node_namespace,         \
                             strcmp(e->node_namespace, "/") ? "/" : "", e->node_name);        \
                    size_t k = 0;                                                             \
                    while (k < *count && strcmp(out[k], name) != 0)                           \
                        k++;                                                                  \
                    if (k == *count && *count < cap)                                          \
                        memcpy(out[(*count)++], name, sizeof name);                           \
                }                                                                             \
            }                                                                                 \
            dds_return_loan(n->info_reader, s, got);                                          \
            if (got < 16)                                                                     \
                break;                                                                        \
        }                                                                                     \
    }
DEFINE_NODES(nodes_jazzy, rmw_dds_common_msg_dds__)
DEFINE_NODES(nodes_humble, humble_rmw_dds_common_msg_dds__)

void bw_ros2_nodes(bw_ros2_t *n, char (*out)[300], size_t cap, size_t *count)
{
    if (n->opt.distro == BW_ROS2_HUMBLE)
        nodes_humble(n, out, cap, count);
    else
        nodes_jazzy(n, out, cap, count);
}

const dds_topic_descriptor_t *bw_ros2_descriptor(const char *dds_type, bw_ros2_distro_t distro)
{
    static const dds_topic_descriptor_t *const known[] = {
        &nav_msgs_msg_dds__Odometry__desc,        &tf2_msgs_msg_dds__TFMessage__desc,
        &std_msgs_msg_dds__UInt32__desc,          &std_msgs_msg_dds__String__desc,
        &std_msgs_msg_dds__Empty__desc,           &sensor_msgs_msg_dds__BatteryState__desc,
        &diagnostic_msgs_msg_dds__DiagnosticArray__desc, &sensor_msgs_msg_dds__Imu__desc,
        &sensor_msgs_msg_dds__JointState__desc,   &rcl_interfaces_msg_dds__Log__desc,
        &geometry_msgs_msg_dds__Twist__desc,      &geometry_msgs_msg_dds__TwistStamped__desc,
        &rcl_interfaces_msg_dds__ParameterEvent__desc,
    };
    if (!strcmp(dds_type, "sensor_msgs::msg::dds_::Range_"))
        return distro == BW_ROS2_HUMBLE ? &humble_sensor_msgs_msg_dds__Range__desc
                                        : &sensor_msgs_msg_dds__Range__desc;
    for (size_t i = 0; i < sizeof known / sizeof known[0]; i++)
        if (!strcmp(known[i]->m_typename, dds_type))
            return known[i];
    return NULL;
}

/*
 * botwire/ros2.h: bases as ROS 2 nodes, over Cyclone DDS, with nothing of
 * ROS 2 installed.
 *
 * Each robot added is a node `/<ns>/botwire` that is, on the wire, what a
 * ROS 2 node on rmw_cyclonedds_cpp is (docs/ros2.md): topics `rt/<ns>/odom`
 * and so on, types `<pkg>::msg::dds_::<Type>_` in plain little-endian CDR,
 * ROS 2's QoS per topic, the participant's `enclave=/;` and the node on
 * `ros_discovery_info`, so `ros2 node list`, `ros2 topic echo`, RViz 2 and
 * Nav2 see it as any other node. The same topics, units, frames and
 * behaviour as the ROS 1 bridge (docs/ros.md): cmd_vel in (stop after the
 * timeout), odom, /tf, /tf_static, range/N, bumper, cliff, wheel_drop,
 * events, battery, /diagnostics. And what every rclcpp node has: /rosout
 * with the node's own lines, /parameter_events and the six parameter
 * services over its settings (cmd_vel_timeout, cmd_vel_type, ...), so
 * `ros2 param` and `ros2 node info` find them.
 *
 * Cyclone's own configuration stays its own (CYCLONEDDS_URI);
 * ROS_DOMAIN_ID, ROS_LOCALHOST_ONLY, ROS_AUTOMATIC_DISCOVERY_RANGE and
 * ROS_STATIC_PEERS are read as ROS 2 reads them.
 */
#ifndef BOTWIRE_ROS2_H
#define BOTWIRE_ROS2_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "botwire/base.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The ROS 2 release whose node the wire shows (docs/ros2.md's table):
 * Humble's layouts of Range and of the node list and no type hashes;
 * Jazzy's type hashes; from Kilted, cmd_vel as TwistStamped unless told
 * otherwise (as Nav2 sends it). */
typedef enum {
    BW_ROS2_JAZZY = 0, /* the library's zero (the command's default: Lyrical) */
    BW_ROS2_HUMBLE,
    BW_ROS2_KILTED,
    BW_ROS2_LYRICAL,
} bw_ros2_distro_t;

/* What cmd_vel carries: the distro's default (Twist up to Jazzy,
 * TwistStamped from Kilted), or one said. */
typedef enum {
    BW_ROS2_CMD_VEL_DEFAULT = 0,
    BW_ROS2_CMD_VEL_TWIST,   /* geometry_msgs/msg/Twist */
    BW_ROS2_CMD_VEL_STAMPED, /* geometry_msgs/msg/TwistStamped */
} bw_ros2_cmd_vel_t;

/* A line the node says (a writer of cmd_vel with the other type, ...):
 * the command prints it on stderr. */
typedef void (*bw_ros2_log_fn)(void *ctx, const char *line);

typedef struct {
    int domain;             /* < 0: ROS_DOMAIN_ID, else 0 */
    bw_ros2_distro_t distro;
    double cmd_vel_timeout; /* s; 0: 0.6. TwistStamped: by its header stamp (0: now) */
    double diagnostic_period; /* s; 0: 1 */
    bool no_tf;             /* leave odom -> base_footprint off /tf */
    bw_ros2_cmd_vel_t cmd_vel;
    bw_ros2_log_fn log;     /* NULL: the node's lines go to /rosout alone */
    void *log_ctx;
    double rate;            /* Hz the caller steps at, for the rate parameter; 0: 50 */
    /* tf: each robot's frames prefixed with its namespace on the global
     * /tf and /tf_static (one tree), or, as Nav2's multi-robot bringup
     * keeps them, on <ns>/tf and <ns>/tf_static with frames unprefixed. */
    bool tf_namespaced;
    /* Hz at most, per topic (0: as often as the robot reports): odom with
     * imu and joint_states; odom -> base_footprint on tf; each range/N. A
     * fleet's rates: 10 Hz odometry from a 50 Hz Kobuki is every fifth
     * report. Diagnostics and battery: diagnostic_period. */
    double odom_rate, tf_rate, range_rate;
    /* Threads that step the robots' bases (0 or 1: the caller's alone; a
     * thread to 50 robots at most): each step, what came for each robot,
     * its drive and bw_base_poll run on these threads, each its own run
     * of the robots; then the caller's thread publishes for all. Robots
     * emulated in one fleet need it frozen (bw_fleet_freeze), synced after
     * each step. */
    unsigned threads;
} bw_ros2_options_t;

/* A distro by its name ("humble", "jazzy", "kilted", "lyrical"): 0, or -1. */
int bw_ros2_distro_parse(const char *name, bw_ros2_distro_t *distro);
const char *bw_ros2_distro_name(bw_ros2_distro_t distro); /* "Jazzy", ... */
const char *bw_ros2_distro_id(bw_ros2_distro_t distro);   /* "jazzy", ... */
/* What cmd_vel carries under opt (its cmd_vel, else its distro's default). */
bw_ros2_cmd_vel_t bw_ros2_cmd_vel_of(const bw_ros2_options_t *opt);

typedef struct bw_ros2 bw_ros2_t;

/* The DDS participant. 0, or a negative error with a one-line reason. */
int bw_ros2_open(bw_ros2_t **node, const bw_ros2_options_t *opt, char *err, size_t errlen);

/*
 * A base as the node `<ns>/botwire` (ns "" or "/": the root namespace;
 * else "/robot1" or "robot1"). Its frames are prefixed with the namespace
 * ("robot1/odom") unless frame_prefix says otherwise ("" for none). url
 * names the robot in /diagnostics. The base stays the caller's.
 */
int bw_ros2_add(bw_ros2_t *node, bw_base_t *base, const char *ns, const char *frame_prefix,
                const char *url, char *err, size_t errlen);

/* Takes cmd_vel, drives or stops each robot, polls it and publishes what
 * changed. Call at least as often as the robots report (50 Hz). now is the
 * caller's clock, as for the base. With opt.threads, the robots' bases
 * are stepped on that many threads; it returns when all of them are done
 * and everything is published. */
void bw_ros2_step(bw_ros2_t *node, double now);

/* Whether the i-th robot added (from 0) is driven by cmd_vel, as of the
 * last step: a command came within its timeout. A caller that drives the
 * robots itself when nobody commands them (`--wander`) asks this first. */
bool bw_ros2_commanded(const bw_ros2_t *node, size_t i);

/* The threads a step uses, the caller's among them, as the robots added
 * so far make it: opt.threads, but a thread to 50 robots at most. */
unsigned bw_ros2_threads(const bw_ros2_t *node);

/* The DDS domain the node is on. */
int bw_ros2_domain(const bw_ros2_t *node);

typedef struct {
    unsigned long long published;     /* messages written, every topic */
    unsigned long long unread;        /* ... not written: no reader matched (not serialized) */
    unsigned long long cmd_vel;       /* cmd_vel messages taken */
    unsigned long long cmd_vel_ignored; /* ... of which not finite, ignored */
    unsigned long long cmd_vel_stale; /* ... of which stamped older than the timeout, refused */
    unsigned long long cmd_vel_other_type; /* writers on a cmd_vel topic with the other type */
} bw_ros2_stats_t;
void bw_ros2_stats(const bw_ros2_t *node, bw_ros2_stats_t *stats);

/* Stops every robot (bw_base_stop) and leaves the DDS domain. */
void bw_ros2_close(bw_ros2_t *node, double now);

/* ---- the same messages as CDR, for a record ------------------------------------ */

/*
 * What the node publishes for a base, without DDS: each message serialized
 * as rmw_cyclonedds serializes it (the encapsulation header 00 01 00 00,
 * then plain little-endian CDR), by the same code and types as the node's,
 * and handed to a function with its topic (/odom, /tf, /range/3, ...:
 * absolute, in the namespace given), its ROS 2 type and that type's
 * ros2msg schema. For `botwire record -o run.mcap`; nothing is driven
 * (cmd_vel is the node's).
 */
/* How the node offers a topic: ROS 2's default profile (reliable,
 * volatile), sensor data (best effort), or latched (reliable, transient
 * local). */
typedef enum { BW_ROS2_QOS_DEFAULT = 0, BW_ROS2_QOS_SENSOR, BW_ROS2_QOS_LATCHED } bw_ros2_qos_t;

typedef struct {
    const char *topic;   /* "/odom", "/robot1/odom", "/tf", ... */
    const char *type;    /* "nav_msgs/msg/Odometry" */
    const char *schema;  /* its ros2msg text, dependencies included */
    const uint8_t *data; /* the CDR bytes, valid during the call */
    size_t len;
    uint64_t stamp_ns;   /* the message's header stamp (ROS time: the wall clock) */
    bw_ros2_qos_t qos;   /* as the node offers the topic */
    int depth;           /* ... keeping the last depth */
    const char *type_hash; /* its RIHS01 hash ("RIHS01_..."), "" in Humble's layout */
} bw_ros2_cdr_msg_t;
typedef void (*bw_ros2_cdr_fn)(void *ctx, const bw_ros2_cdr_msg_t *m);

typedef struct bw_ros2_cdr bw_ros2_cdr_t;
/* A CDR view of base in namespace ns (NULL or "" for none; frames prefixed
 * with it, as the node's); opt: distro, no_tf, diagnostic_period (NULL: the
 * defaults). 0, or BW_EINVAL / BW_ENOMEM / BW_ENOTSUP (built without Cyclone
 * DDS) with err. */
int bw_ros2_cdr_open(bw_ros2_cdr_t **view, bw_base_t *base, const char *ns, const char *url,
                     const bw_ros2_options_t *opt, bw_ros2_cdr_fn fn, void *ctx, char *err,
                     size_t errlen);
/* After bw_base_poll: what changed goes to the function. */
void bw_ros2_cdr_step(bw_ros2_cdr_t *view, double now);
/* The ROS time (ns since 1970) the view's messages are stamped with from
 * now on: a record converted later keeps the record's clock; 0 (the
 * default): the wall clock, as the node's. */
void bw_ros2_cdr_clock(bw_ros2_cdr_t *view, uint64_t stamp_ns);
/* The base's events are the caller's to take (bw_base_next_event): each
 * one given here goes out on events, as the node sends it. */
void bw_ros2_cdr_event(bw_ros2_cdr_t *view, const bw_event_t *ev);
void bw_ros2_cdr_close(bw_ros2_cdr_t *view);

/* The QoS a topic is offered with, as rosbag2 writes it into a record
 * (the channel's offered_qos_profiles: a YAML list of one profile) into
 * buf; its length, or -1 if it does not fit. */
int bw_ros2_qos_yaml(bw_ros2_qos_t qos, int depth, char *buf, size_t cap);

/* The ros2msg text of a type the node publishes ("nav_msgs/msg/Odometry"),
 * its dependencies after it as rosbag2 writes them (a line of 80 '=' and
 * "MSG: pkg/Type" before each); NULL for another type. */
const char *bw_ros2_schema(const char *type, bw_ros2_distro_t distro);

/* ---- looking at a ROS 2 graph without ROS 2 ----------------------------------- */

/*
 * `botwire ros2 list`: joins the domain as opt says (the node's discovery
 * settings) for seconds, then writes the nodes (ros_discovery_info), the
 * topics with their types, publishers, subscribers and the publishers' QoS,
 * and the services (DDS discovery) to out. 0, or a negative error with err.
 */
int bw_ros2_list(const bw_ros2_options_t *opt, double seconds, FILE *out, char *err,
                 size_t errlen);
/*
 * `botwire ros2 echo TOPIC`: each message on TOPIC ("/robot1/odom") as
 * `ros2 topic echo` prints it, "---" after each, for seconds or count
 * messages (count <= 0: no limit); the type from a publisher's discovery
 * data, one botwire knows (what the node publishes and takes). 0, or a
 * negative error with err (no publisher, a type botwire does not know, no
 * message).
 */
int bw_ros2_echo(const bw_ros2_options_t *opt, const char *topic, double seconds, long count,
                 FILE *out, char *err, size_t errlen);
/* One message's CDR (after its encapsulation header, little endian) printed
 * as `ros2 topic echo` prints it, by the type's ros2msg schema; 0, or -1 if
 * the bytes do not fit the schema (what fitted is printed). */
int bw_ros2_print_cdr(const char *type, const char *schema, const uint8_t *data, size_t len,
                      FILE *out);

#ifdef __cplusplus
}
#endif

#endif

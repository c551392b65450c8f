/*
 * A ROS 2 peer for the tests of `botwire ros2`, on the Cyclone DDS C API
 * with its own IDL of the ROS 2 types (ros2_types.idl): it reads and sends
 * what a ROS 2 node on rmw_cyclonedds_cpp would, by the names and QoS a
 * ROS 2 program uses.
 *
 *   ros2_peer watch SECONDS NS... [--drive NS V D] [--until-offline NS]
 *       subscribes to rt/NS/odom (reliable, keep last 10, as rclcpp's
 *       default), rt/tf (as tf2_ros's listener), rt/tf_static (transient
 *       local) and rt/diagnostics for SECONDS; with --drive, once NS's
 *       odometry comes and the node's reader of rt/NS/cmd_vel has matched
 *       this writer, publishes rt/NS/cmd_vel (reliable, keep last 10)
 *       V m/s ahead at 20 Hz for D seconds, then a zero twist, and past
 *       SECONDS goes on until NS's odometry is at rest after it (a drive
 *       that started late is watched to its end), and until every NS's
 *       last diagnostics say online (with --until-offline NS, that one's
 *       offline): 30 s more at most. Prints:
 *         odom NS COUNT HZ FRAME CHILD X Y AVG
 *                                              per namespace: HZ one over
 *                                              the median gap between the
 *                                              messages' stamps (the node's
 *                                              cadence), AVG the messages
 *                                              over the stamps' span
 *         tf TREES MIXED                       robots whose NS/odom ->
 *                                              NS/base_footprint came on
 *                                              rt/tf; transforms between
 *                                              frames of two robots
 *         static NS COUNT                      transforms on rt/tf_static
 *         online NS 0|1                        the last diagnostics
 *       and with --drive (no --fall-silent):
 *         cruise NS V                          the speed it drove at, by
 *                                              its own odometry: the upper
 *                                              quartile of the speeds it
 *                                              moved at, stamped from the
 *                                              first command on (-1: never
 *                                              moved)
 *         earlier NS N                         odometry samples that moved,
 *                                              stamped before the first
 *                                              command (only when N > 0)
 *         zero_to_rest NS S LATE               from the zero twist sent to
 *                                              the first odometry at rest
 *                                              (-1: never), and how much
 *                                              later than usual the node's
 *                                              cycles ran in that time
 *         drove S                              how long it sent commands
 *                                              (its clock)
 *         sent N                               how many, the zero among
 *                                              them (its loop's own
 *                                              count, however late it ran)
 *         matched 0|1                          whether the node's reader
 *                                              matched its cmd_vel writer
 *       --stamped AGE sends geometry_msgs/msg/TwistStamped stamped AGE s
 *       before now (zero: a zero stamp), else Twist; --hz HZ (default 20);
 *       --unmatched S drives S s after the odometry came without a match
 *       (a writer of a type the node does not take is never matched).
 *       With --drive it says "moving X" (flushed) once NS's odometry is
 *       0.1 m along; with --end-when-silent S it ends early, once
 *       odometry came and then none for S seconds (the node is gone).
 *       With --fall-silent the drive ends with no zero twist (a teleop
 *       that died), and the watch goes on until NS's odometry is at rest;
 *       it prints
 *         stop NS SLOWING STOPPED LATE        from the last cmd_vel sent
 *                                              to the first odometry at
 *                                              half the speed, and at
 *                                              rest (stamps; -1: never);
 *                                              how much later than usual
 *                                              the node's cycles ran in
 *                                              that time (gaps between
 *                                              its stamps over the median)
 *       With --just-seconds (and --fall-silent) it ends at SECONDS, what
 *       the diagnostics said or not (a robot whose link went).
 *       Also, per namespace: "gap NS MAX LAST": the longest gap between
 *       two of its odometry stamps, and the last stamp (wall clock, s);
 *       and "late NS FROM TO" for each gap between two stamps over 50 ms;
 *       "tfs NS COUNT": its odom -> base_footprint transforms on rt/tf.
 *       Exits 0 if every NS sent odometry.
 *   ros2_peer nodes SECONDS [--humble] [--ranges NS] [--until LINE] [--matched]
 *       reads ros_discovery_info: a line "node NAMESPACE NAME READERS
 *       WRITERS" per node any participant announced; with --ranges, NS's
 *       rt/NS/range/0..15 as well: "range I FRAME R", the last of each.
 *       --humble reads both in ROS 2 Humble's layouts (a Gid of 24 bytes,
 *       Range without variance). With --until it ends as soon as a node
 *       line begins with LINE (and, with --ranges, every range has been
 *       read): SECONDS only bound a wait for what never comes. With
 *       --matched the SECONDS count from when every range reader has been
 *       matched with a writer (60 s at most before): a window in which the
 *       node's ranges reach this reader if they can.
 *   ros2_peer dock NS SECONDS [--undock]
 *       one std_msgs/msg/Empty on rt/NS/dock (rt/NS/undock), then what the
 *       node says of it on /rosout ("said MESSAGE") until done or failed,
 *       and the battery after: "battery POWER_SUPPLY_STATUS PERCENTAGE".
 *   ros2_peer sub SECONDS FIRST LAST [--prefix P] [--until-all]
 *       the independent subscriber of `botwire bench --ros2 --subscribe`:
 *       readers of rt/PK/odom for K from FIRST to LAST (reliable, keep
 *       last 10, rclcpp's default) and of rt/tf (keep last 100), each
 *       taken by its listener as data comes. Says "matched S" (flushed) once every odom reader has
 *       matched its writer, S seconds after it began; then takes every
 *       message for SECONDS and prints one JSON line: per robot, odometry
 *       and transforms a second (median, least), how many robots got
 *       each, the latency from each odometry's stamp to its take (p50,
 *       p99, max, ms), the messages on rt/tf a second and the transforms
 *       each carried (mean), and how much CPU this process took.
 *       --until-all: takes for SECONDS and on until every robot's
 *       odometry and tf have come (120 s at most). Exits 0 when every
 *       robot's odometry came.
 *   ros2_peer graph SECONDS [--until N,M,...]
 *       the graph's nodes as ROS 2 keeps them: each participant's latest
 *       ros_discovery_info, dropped when DDS says the participant is gone
 *       (DCPSParticipant no longer alive: its lease ran out). A line at
 *       every change, flushed: "graph WALL NODES" (WALL the wall clock,
 *       s), then at the end "nodes NAMES" (the namespaces of every node
 *       seen, sorted); with --until it ends once the count has been N,
 *       then M, ... in that order, else after SECONDS.
 */
#include <math.h>
#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <dds/dds.h>

#include "ros2_types.h"

#define MAX_NS 128

/* A clock's reading, s. */
static double clock_s(clockid_t c)
{
    struct timespec ts;
    clock_gettime(c, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static double mono(void) { return clock_s(CLOCK_MONOTONIC); }

/* ROS 2's domain: ROS_DOMAIN_ID, else 0. */
static dds_domainid_t domain(void)
{
    const char *d = getenv("ROS_DOMAIN_ID");
    return d && *d ? (dds_domainid_t)atoi(d) : 0;
}

static dds_qos_t *qos(bool reliable, bool latched, int depth)
{
    dds_qos_t *q = dds_create_qos();
    dds_qset_reliability(q, reliable ? DDS_RELIABILITY_RELIABLE : DDS_RELIABILITY_BEST_EFFORT,
                         DDS_SECS(1));
    dds_qset_durability(q, latched ? DDS_DURABILITY_TRANSIENT_LOCAL : DDS_DURABILITY_VOLATILE);
    dds_qset_history(q, DDS_HISTORY_KEEP_LAST, depth);
    /* XCDR1 alone, as rmw_cyclonedds offers: any XCDR2 on the wire is the
     * node's (ros2_wire) */
    static const dds_data_representation_id_t xcdr1[] = { DDS_DATA_REPRESENTATION_XCDR1 };
    dds_qset_data_representation(q, 1, xcdr1);
    return q;
}

/* The peer's participant on the test's domain; exits 2 without one. */
static dds_entity_t participant(void)
{
    dds_entity_t pp = dds_create_participant(domain(), NULL, NULL);
    if (pp < 0) {
        fprintf(stderr, "ros2_peer: participant: %s\n", dds_strretcode(pp));
        exit(2);
    }
    return pp;
}

/* A reader or writer of `name` (with listener l, or NULL); exits on error. */
static dds_entity_t endpoint_l(dds_entity_t pp, bool writer, const dds_topic_descriptor_t *d,
                               const char *name, dds_qos_t *q, const dds_listener_t *l)
{
    dds_entity_t t = dds_create_topic(pp, d, name, NULL, NULL);
    if (t < 0) {
        fprintf(stderr, "ros2_peer: topic %s: %s\n", name, dds_strretcode(t));
        exit(2);
    }
    dds_entity_t e = writer ? dds_create_writer(pp, t, q, l) : dds_create_reader(pp, t, q, l);
    dds_delete_qos(q);
    if (e < 0) {
        fprintf(stderr, "ros2_peer: %s %s: %s\n", writer ? "writer" : "reader", name,
                dds_strretcode(e));
        exit(2);
    }
    return e;
}

static dds_entity_t endpoint(dds_entity_t pp, bool writer, const dds_topic_descriptor_t *d,
                             const char *name, dds_qos_t *q)
{
    return endpoint_l(pp, writer, d, name, q, NULL);
}

/* "robot3/odom" -> "robot3"; "odom" -> "" */
static void robot_of(const char *frame, char *out, size_t cap)
{
    const char *slash = strrchr(frame, '/');
    size_t n = slash ? (size_t)(slash - frame) : 0;
    if (n >= cap)
        n = cap - 1;
    memcpy(out, frame, n);
    out[n] = 0;
}

typedef struct {
    const char *ns; /* "robot1", or "" */
    dds_entity_t odom;
    unsigned count;
    double first_stamp, last_stamp;
    double v, v_at_cmd, slowing_at, stopped_at; /* the driven robot's braking */
    double stamps[4096];                        /* its stamps after the last cmd_vel */
    unsigned nstamps;
    double gaps[4096]; /* between every two odometry stamps, for the rate */
    unsigned ngaps;
    char frame[128], child[128];
    double x, y;
    bool tree;
    unsigned tfs; /* its odom -> base_footprint transforms on rt/tf */
    unsigned statics;
    int online;
} watched_t;

/* Gaps between two odometry stamps of a robot longer than LATE_GAP: which
 * robot, from and to (wall clock). */
#define LATE_GAP 0.05
#define MAX_LATE 4096
typedef struct {
    size_t robot;
    double from, to;
} late_t;
static late_t late_gaps[MAX_LATE];
static size_t nlate;
static bool just_seconds; /* --just-seconds: the watch ends at SECONDS, settled or not */

static double stamp_of(const builtin_interfaces_msg_dds__Time_ *t)
{
    return (double)t->sec + (double)t->nanosec / 1e9;
}

static double realtime(void) { return clock_s(CLOCK_REALTIME); }

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(const double *v, unsigned n)
{
    double sorted[4096];
    memcpy(sorted, v, n * sizeof *v);
    qsort(sorted, n, sizeof *sorted, by_value);
    return sorted[n / 2];
}

/* How late the node's cycles ran between the last cmd_vel and the robot at
 * rest: the node publishes odometry each cycle its state is new, stamped
 * when the cycle ran, so a cycle run late shows as a gap longer than the
 * usual one, the median gap of the whole watch (a window of one or two
 * gaps has no median of its own to tell a late cycle by). A gap of one and
 * a half cycles and more counts, less the usual: a loaded machine's delays
 * come a few tens of ms at a time. A cycle skipped where the node's and the
 * robot's rates beat counts too: a cycle's worth, which a stop late by the
 * 0.6 s timeout does not hide. */
static double late_by(const watched_t *w)
{
    if (w->nstamps < 2 || w->ngaps < 3)
        return 0;
    double usual = median(w->gaps, w->ngaps), late = 0;
    for (unsigned i = 0; i + 1 < w->nstamps; i++) {
        double gap = w->stamps[i + 1] - w->stamps[i];
        if (gap > 1.5 * usual)
            late += gap - usual;
    }
    return late;
}

/* The driven robot's odometry: every stamp and speed, for the speed it
 * drove at and how late the node's cycles ran. */
static double drive_stamp[16384], drive_speed[16384];
static unsigned ndrive;

/* How --drive sends: Twist, or TwistStamped stamped cmd_age s before now
 * (NAN: a zero stamp); every cmd_period s; and whether it drives without
 * a match after unmatched_after s of odometry (< 0: never; a writer of the
 * type the node does not take is never matched). */
static bool cmd_stamped;
static double cmd_age, cmd_period = 0.05, unmatched_after = -1, cmd_w;

static void send_cmd(dds_entity_t cmd, double v)
{
    if (!cmd_stamped) {
        geometry_msgs_msg_dds__Twist_ t;
        memset(&t, 0, sizeof t);
        t.linear.x = v;
        t.angular.z = v != 0 ? cmd_w : 0;
        dds_write(cmd, &t);
        return;
    }
    geometry_msgs_msg_dds__TwistStamped_ t;
    memset(&t, 0, sizeof t);
    t.header.frame_id = "";
    if (!isnan(cmd_age)) {
        double at = realtime() - cmd_age;
        t.header.stamp.sec = (int32_t)floor(at);
        t.header.stamp.nanosec = (uint32_t)((at - floor(at)) * 1e9);
    }
    t.twist.linear.x = v;
    t.twist.angular.z = v != 0 ? cmd_w : 0;
    dds_write(cmd, &t);
}

static int watch(double seconds, watched_t *w, size_t n, const char *drive_ns, double v, double d,
                 double silent, bool fall_silent, const char *offline_ns)
{
    dds_entity_t pp = participant();
    char name[256];
    for (size_t i = 0; i < n; i++) {
        snprintf(name, sizeof name, "rt%s%s/odom", *w[i].ns ? "/" : "", w[i].ns);
        w[i].odom = endpoint(pp, false, &nav_msgs_msg_dds__Odometry__desc, name, qos(true, false, 10));
        w[i].online = -1;
    }
    dds_entity_t tf = endpoint(pp, false, &tf2_msgs_msg_dds__TFMessage__desc, "rt/tf",
                               qos(true, false, 100));
    dds_entity_t tfs = endpoint(pp, false, &tf2_msgs_msg_dds__TFMessage__desc, "rt/tf_static",
                                qos(true, true, 100));
    dds_entity_t diag = endpoint(pp, false, &diagnostic_msgs_msg_dds__DiagnosticArray__desc,
                                 "rt/diagnostics", qos(true, false, 10));
    dds_entity_t cmd = 0;
    watched_t *driven = NULL;
    if (drive_ns) {
        snprintf(name, sizeof name, "rt%s%s/cmd_vel", *drive_ns ? "/" : "", drive_ns);
        cmd = endpoint(pp, true,
                       cmd_stamped ? &geometry_msgs_msg_dds__TwistStamped__desc
                                   : &geometry_msgs_msg_dds__Twist__desc,
                       name, qos(true, false, 10));
        for (size_t i = 0; i < n; i++)
            if (!strcmp(w[i].ns, drive_ns))
                driven = &w[i];
    }
    watched_t *offline = NULL;
    for (size_t i = 0; offline_ns && i < n; i++)
        if (!strcmp(w[i].ns, offline_ns))
            offline = &w[i];
    int mixed = 0;
    double t0 = mono(), end = t0 + seconds, drive_from = -1, next_cmd = 0, last_cmd = -1;
    double zero_at = -1, rest_at = -1; /* the zero twist sent; the driven robot at rest after */
    double first_cmd = -1; /* the first twist sent, on the clock the node stamps with */
    double odom_from = -1;             /* the driven robot's first odometry */
    bool matched = false;
    bool drove = false, said_moving = false;
    unsigned sent = 0; /* cmd_vel messages written */
    double last_odom = -1;
    void *s[64];
    dds_sample_info_t info[64];
    /* Past SECONDS, until what is waited for has come (30 s more at most:
     * only a node that never gets there takes them). */
    for (;;) {
        double at = mono();
        /* A link the machine held quiet past the driver's timeout (a
         * Kobuki's: 0.1 s) is offline until its next frame: past SECONDS
         * the watch waits for every robot's diagnostics to say online (but
         * --until-offline's, offline), not on a time that a loaded machine
         * may not have given it. */
        bool settled = true;
        for (size_t i = 0; i < n; i++)
            if (w[i].online != (&w[i] == offline ? 0 : 1))
                settled = false;
        bool more = (driven && !fall_silent && (!drove || rest_at < 0)) || (!settled && !just_seconds);
        if (at >= end && (!more || at >= end + 30))
            break;
        for (size_t i = 0; i < n; i++) {
            int got;
            memset(s, 0, sizeof s);
            while ((got = dds_take(w[i].odom, s, info, 64, 64)) > 0) {
                for (int k = 0; k < got; k++) {
                    if (!info[k].valid_data)
                        continue;
                    const nav_msgs_msg_dds__Odometry_ *o = s[k];
                    double st = stamp_of(&o->header.stamp);
                    /* (a message sent again with its stamp is no cycle) */
                    if (w[i].count++ == 0)
                        w[i].first_stamp = st;
                    else if (st > w[i].last_stamp && w[i].ngaps < sizeof w[i].gaps / sizeof w[i].gaps[0])
                        w[i].gaps[w[i].ngaps++] = st - w[i].last_stamp;
                    if (w[i].count > 1 && st - w[i].last_stamp > LATE_GAP && nlate < MAX_LATE)
                        late_gaps[nlate++] = (late_t){ i, w[i].last_stamp, st };
                    w[i].last_stamp = st;
                    snprintf(w[i].frame, sizeof w[i].frame, "%s", o->header.frame_id);
                    snprintf(w[i].child, sizeof w[i].child, "%s", o->child_frame_id);
                    w[i].x = o->pose.pose.position.x;
                    w[i].y = o->pose.pose.position.y;
                    w[i].v = o->twist.twist.linear.x;
                    last_odom = mono();
                    if (&w[i] == driven && ndrive < sizeof drive_stamp / sizeof drive_stamp[0]) {
                        drive_stamp[ndrive] = st;
                        drive_speed[ndrive++] = w[i].v;
                    }
                    if (&w[i] == driven && zero_at > 0 && rest_at < 0 && st > zero_at &&
                        fabs(w[i].v) < 1e-6)
                        rest_at = st;
                    if (&w[i] == driven && drove && st > last_cmd) {
                        if (w[i].nstamps < sizeof w[i].stamps / sizeof w[i].stamps[0] &&
                            w[i].stopped_at < 0)
                            w[i].stamps[w[i].nstamps++] = st;
                        if (w[i].slowing_at < 0 && fabs(w[i].v) < fabs(w[i].v_at_cmd) / 2)
                            w[i].slowing_at = st;
                        if (w[i].stopped_at < 0 && fabs(w[i].v) < 1e-6)
                            w[i].stopped_at = st;
                    }
                }
                dds_return_loan(w[i].odom, s, got);
                memset(s, 0, sizeof s);
            }
        }
        int got;
        memset(s, 0, sizeof s);
        dds_entity_t tfr[2] = { tf, tfs };
        for (int which = 0; which < 2; which++) {
            while ((got = dds_take(tfr[which], s, info, 64, 64)) > 0) {
                for (int k = 0; k < got; k++) {
                    if (!info[k].valid_data)
                        continue;
                    const tf2_msgs_msg_dds__TFMessage_ *m = s[k];
                    for (uint32_t j = 0; j < m->transforms._length; j++) {
                        const geometry_msgs_msg_dds__TransformStamped_ *t = &m->transforms._buffer[j];
                        char a[128], b[128];
                        robot_of(t->header.frame_id, a, sizeof a);
                        robot_of(t->child_frame_id, b, sizeof b);
                        if (strcmp(a, b) != 0) {
                            mixed++;
                            continue;
                        }
                        for (size_t i = 0; i < n; i++) {
                            if (strcmp(a, w[i].ns) != 0)
                                continue;
                            char want_odom[160], want_base[160];
                            snprintf(want_odom, sizeof want_odom, "%s%sodom", w[i].ns, *w[i].ns ? "/" : "");
                            snprintf(want_base, sizeof want_base, "%s%sbase_footprint", w[i].ns, *w[i].ns ? "/" : "");
                            if (which == 0 && !strcmp(t->header.frame_id, want_odom) &&
                                !strcmp(t->child_frame_id, want_base))
                                w[i].tree = true, w[i].tfs++;
                            if (which == 1 && !strcmp(t->header.frame_id, want_base))
                                w[i].statics++;
                        }
                    }
                }
                dds_return_loan(tfr[which], s, got);
                memset(s, 0, sizeof s);
            }
        }
        while ((got = dds_take(diag, s, info, 64, 64)) > 0) {
            for (int k = 0; k < got; k++) {
                if (!info[k].valid_data)
                    continue;
                const diagnostic_msgs_msg_dds__DiagnosticArray_ *a = s[k];
                for (uint32_t j = 0; j < a->status._length; j++) {
                    const diagnostic_msgs_msg_dds__DiagnosticStatus_ *st = &a->status._buffer[j];
                    for (size_t i = 0; i < n; i++) {
                        char tag[160];
                        snprintf(tag, sizeof tag, " /%s:", w[i].ns);
                        bool mine = *w[i].ns ? strstr(st->name, tag) != NULL
                                             : strchr(st->name, '/') == NULL;
                        if (mine)
                            w[i].online = st->level == 0;
                    }
                }
            }
            dds_return_loan(diag, s, got);
            memset(s, 0, sizeof s);
        }
        double now = mono();
        if (silent > 0 && last_odom > 0 && now - last_odom > silent)
            break;
        if (fall_silent && drove && driven->stopped_at > 0)
            break;
        if (driven && !said_moving && fabs(driven->x) >= 0.1) {
            printf("moving %.4f\n", driven->x);
            fflush(stdout);
            said_moving = true;
        }
        /* The drive starts once the robot's odometry comes and the node's
         * cmd_vel reader has matched this writer: a twist written before
         * that reaches nobody (discovery's order is the machine's). */
        if (driven && driven->count > 0 && drive_from < 0) {
            if (odom_from < 0)
                odom_from = now;
            dds_publication_matched_status_t pm;
            if (dds_get_publication_matched_status(cmd, &pm) == 0 && pm.current_count > 0)
                drive_from = now, matched = true;
            else if (unmatched_after >= 0 && now >= odom_from + unmatched_after)
                drive_from = now; /* a writer nobody takes, on purpose */
        }
        if (drive_from >= 0 && !drove && now >= next_cmd) {
            if (now < drive_from + d) {
                send_cmd(cmd, v);
                sent++;
                last_cmd = realtime();
                if (first_cmd < 0)
                    first_cmd = last_cmd;
                driven->v_at_cmd = driven->v;
            } else {
                drove = true;
                if (!fall_silent) {
                    send_cmd(cmd, 0); /* a clean end, as a teleop does: zero */
                    sent++;
                    zero_at = realtime();
                }
                printf("drove %.3f\n", now - drive_from); /* its commands' span, its clock */
                printf("sent %u\n", sent); /* how many, the zero among them */
                driven->slowing_at = driven->stopped_at = -1;
                driven->stamps[0] = driven->last_stamp; /* the cycle the last one fell in */
                driven->nstamps = 1;
            }
            next_cmd = now + cmd_period;
        }
        dds_sleepfor(DDS_MSECS(5));
    }
    int trees = 0, missing = 0;
    for (size_t i = 0; i < n; i++) {
        /* HZ: the node's cadence, one over its median gap between stamps
         * (a node publishing every other cycle shows at half the rate; a
         * loaded machine that holds some cycles back does not move the
         * median unless it holds back most). AVG: over the whole span. */
        double span = w[i].last_stamp - w[i].first_stamp;
        double usual = w[i].ngaps >= 1 ? median(w[i].gaps, w[i].ngaps) : 0;
        printf("odom %s %u %.1f %s %s %.4f %.4f %.1f\n", *w[i].ns ? w[i].ns : "/", w[i].count,
               usual > 0 ? 1 / usual : 0.0, *w[i].frame ? w[i].frame : "-",
               *w[i].child ? w[i].child : "-", w[i].x, w[i].y,
               w[i].count > 1 && span > 0 ? (w[i].count - 1) / span : 0.0);
        double longest = 0;
        for (unsigned g = 0; g < w[i].ngaps; g++)
            longest = fmax(longest, w[i].gaps[g]);
        printf("gap %s %.3f %.3f\n", *w[i].ns ? w[i].ns : "/", longest, w[i].last_stamp);
        printf("tfs %s %u\n", *w[i].ns ? w[i].ns : "/", w[i].tfs);
        printf("static %s %u\n", *w[i].ns ? w[i].ns : "/", w[i].statics);
        printf("online %s %d\n", *w[i].ns ? w[i].ns : "/", w[i].online);
        trees += w[i].tree;
        missing += w[i].count == 0;
    }
    for (size_t k = 0; k < nlate; k++)
        printf("late %s %.3f %.3f\n", *w[late_gaps[k].robot].ns ? w[late_gaps[k].robot].ns : "/",
               late_gaps[k].from, late_gaps[k].to);
    printf("tf %d %d\n", trees, mixed);
    if (driven)
        printf("matched %d\n", matched);
    if (driven && !fall_silent) {
        /* The speed it cruised at: the upper quartile of the speeds its
         * odometry gave while it moved (the ramps are the lower ones),
         * stamped once the commands began. A volatile reader that has
         * just joined can be given samples written before it matched
         * (within DDS's rules: Cyclone does so until the writer's first
         * heartbeat reaches it), here of the drive before this one: the
         * robot's past, counted apart. */
        static double moving[16384];
        unsigned nmoving = 0, earlier = 0;
        for (unsigned i = 0; i < ndrive; i++)
            if (fabs(drive_speed[i]) >= 1e-6) {
                if (first_cmd >= 0 && drive_stamp[i] >= first_cmd)
                    moving[nmoving++] = fabs(drive_speed[i]);
                else
                    earlier++;
            }
        qsort(moving, nmoving, sizeof *moving, by_value);
        const char *ns = *driven->ns ? driven->ns : "/";
        if (earlier)
            printf("earlier %s %u\n", ns, earlier);
        printf("cruise %s %.4f\n", ns, nmoving ? moving[nmoving * 3 / 4] : -1.0);
        /* The cycles run late between the zero and the rest, as late_by. */
        double usual = driven->ngaps >= 3 ? median(driven->gaps, driven->ngaps) : 0, late = 0;
        for (unsigned i = 1; usual > 0 && rest_at > 0 && i < ndrive; i++) {
            double gap = drive_stamp[i] - drive_stamp[i - 1];
            if (drive_stamp[i] > zero_at && drive_stamp[i - 1] < rest_at && gap > 1.5 * usual)
                late += gap - usual;
        }
        printf("zero_to_rest %s %.3f %.3f\n", ns, rest_at > 0 ? rest_at - zero_at : -1.0, late);
    }
    if (fall_silent && driven)
        printf("stop %s %.3f %.3f %.3f\n", *driven->ns ? driven->ns : "/",
               driven->slowing_at > 0 ? driven->slowing_at - last_cmd : -1.0,
               driven->stopped_at > 0 ? driven->stopped_at - last_cmd : -1.0, late_by(driven));
    dds_delete(pp);
    return missing ? 1 : 0;
}

/* A descriptor of ours under the ROS 2 type name (a Humble layout's,
 * generated in the module `humble`). */
static const dds_topic_descriptor_t *as_ros2(const dds_topic_descriptor_t *d, const char *name)
{
    static dds_topic_descriptor_t copies[4];
    static size_t used;
    if (used == sizeof copies / sizeof copies[0])
        exit(2);
    dds_topic_descriptor_t *c = &copies[used++];
    memcpy(c, d, sizeof *c);
    memcpy((char *)c + offsetof(dds_topic_descriptor_t, m_typename), &name, sizeof name);
    return c;
}

/* The latest snapshot of each participant's nodes, in either layout. */
static char node_lines[MAX_NS][600];
static uint8_t node_who[MAX_NS][24];
static size_t node_first[MAX_NS], node_count[MAX_NS], nlines, nwho;

#define TAKE_NODES(T, gidlen)                                                                   \
    do {                                                                                       \
        const T##ParticipantEntitiesInfo_ *m = sample;                                         \
        size_t p = 0;                                                                          \
        while (p < nwho && memcmp(node_who[p], m->gid.data, gidlen) != 0)                      \
            p++;                                                                               \
        if (p == nwho && nwho < MAX_NS)                                                        \
            memcpy(node_who[nwho++], m->gid.data, gidlen);                                     \
        if (p == nwho)                                                                         \
            break;                                                                             \
        node_first[p] = nlines;                                                                \
        node_count[p] = 0;                                                                     \
        for (uint32_t j = 0; j < m->node_entities_info_seq._length && nlines < MAX_NS; j++) {  \
            const T##NodeEntitiesInfo_ *e = &m->node_entities_info_seq._buffer[j];             \
            snprintf(node_lines[nlines++], sizeof node_lines[0], "node %s %s %u %u",           \
                     e->node_namespace, e->node_name, e->reader_gid_seq._length,               \
                     e->writer_gid_seq._length);                                               \
            node_count[p]++;                                                                   \
        }                                                                                      \
    } while (0)

/* nodes SECONDS [--humble]; with `ranges_ns`, also that namespace's
 * rt/NS/range/0..15 (best effort, as sensor data), a line each. */
static int nodes(double seconds, bool humble, const char *ranges_ns, const char *until,
                 bool matched)
{
    dds_entity_t pp = participant();
    dds_qos_t *q = qos(true, true, 1);
    dds_qset_history(q, DDS_HISTORY_KEEP_ALL, 0);
    const dds_topic_descriptor_t *info_desc =
        humble ? as_ros2(&humble_rmw_dds_common_msg_dds__ParticipantEntitiesInfo__desc,
                         "rmw_dds_common::msg::dds_::ParticipantEntitiesInfo_")
               : &rmw_dds_common_msg_dds__ParticipantEntitiesInfo__desc;
    dds_entity_t r = endpoint(pp, false, info_desc, "ros_discovery_info", q);
    dds_entity_t ranges[16];
    size_t nranges = 0;
    static float range_of[16];
    static char frame_of[16][128];
    if (ranges_ns) {
        const dds_topic_descriptor_t *rd =
            humble ? as_ros2(&humble_sensor_msgs_msg_dds__Range__desc, "sensor_msgs::msg::dds_::Range_")
                   : &sensor_msgs_msg_dds__Range__desc;
        for (; nranges < 16; nranges++) {
            char name[256];
            snprintf(name, sizeof name, "rt/%s/range/%zu", ranges_ns, nranges);
            ranges[nranges] = endpoint(pp, false, rd, name, qos(false, false, 5));
            frame_of[nranges][0] = 0;
        }
    }
    double end = mono() + seconds;
    if (matched) /* the window opens once every range reader is matched */
        end = mono() + 60;
    bool opened = !matched;
    void *s[16];
    dds_sample_info_t info[16];
    while (mono() < end) {
        if (!opened) {
            size_t m = 0;
            for (size_t i = 0; i < nranges; i++) {
                dds_subscription_matched_status_t st;
                if (dds_get_subscription_matched_status(ranges[i], &st) == 0 && st.current_count > 0)
                    m++;
            }
            if (m == nranges) {
                opened = true;
                end = mono() + seconds;
            }
        }
        if (until) {
            bool seen = false, all = true;
            for (size_t p = 0; p < nwho && !seen; p++)
                for (size_t j = 0; j < node_count[p]; j++)
                    if (!strncmp(node_lines[node_first[p] + j], until, strlen(until)))
                        seen = true;
            for (size_t i = 0; i < nranges; i++)
                if (!frame_of[i][0])
                    all = false;
            if (seen && all)
                break;
        }
        int got;
        memset(s, 0, sizeof s);
        while ((got = dds_take(r, s, info, 16, 16)) > 0) {
            for (int k = 0; k < got; k++) {
                const void *sample = s[k];
                if (!info[k].valid_data)
                    continue;
                if (humble)
                    TAKE_NODES(humble_rmw_dds_common_msg_dds__, 24);
                else
                    TAKE_NODES(rmw_dds_common_msg_dds__, 16);
            }
            dds_return_loan(r, s, got);
            memset(s, 0, sizeof s);
        }
        for (size_t i = 0; i < nranges; i++) {
            while ((got = dds_take(ranges[i], s, info, 16, 16)) > 0) {
                for (int k = 0; k < got; k++) {
                    if (!info[k].valid_data)
                        continue;
                    /* the header and the range: where both layouts agree */
                    const sensor_msgs_msg_dds__Range_ *m = s[k];
                    snprintf(frame_of[i], sizeof frame_of[i], "%s", m->header.frame_id);
                    range_of[i] = m->range;
                }
                dds_return_loan(ranges[i], s, got);
                memset(s, 0, sizeof s);
            }
        }
        dds_sleepfor(DDS_MSECS(10));
    }
    for (size_t p = 0; p < nwho; p++)
        for (size_t j = 0; j < node_count[p]; j++)
            printf("%s\n", node_lines[node_first[p] + j]);
    for (size_t i = 0; i < nranges; i++)
        if (frame_of[i][0])
            printf("range %zu %s %.4f\n", i, frame_of[i], range_of[i]);
    dds_delete(pp);
    return nwho ? 0 : 1;
}

/* ---- a ROS 2 client of the node's parameter services, /rosout, events ---- */

/* One value as `ros2 param get` would show it. */
static void print_value(const char *name, const rcl_interfaces_msg_dds__ParameterValue_ *v)
{
    switch (v->type) {
    case 1: printf("value %s bool %s\n", name, v->bool_value ? "true" : "false"); break;
    case 2: printf("value %s integer %lld\n", name, (long long)v->integer_value); break;
    case 3: printf("value %s double %.6g\n", name, v->double_value); break;
    case 4: printf("value %s string %s\n", name, v->string_value ? v->string_value : ""); break;
    default: printf("value %s type %u\n", name, v->type); break;
    }
}

/* The serviceid= values of what e (a writer: its matched readers; a
 * reader: its matched writers) is matched with, into ids (8 at most). */
static size_t matched_ids(dds_entity_t e, bool writer, char ids[8][128])
{
    dds_instance_handle_t h[8];
    int n = writer ? dds_get_matched_subscriptions(e, h, 8) : dds_get_matched_publications(e, h, 8);
    size_t k = 0;
    for (int i = 0; i < n && i < 8; i++) {
        dds_builtintopic_endpoint_t *ep = writer ? dds_get_matched_subscription_data(e, h[i])
                                                 : dds_get_matched_publication_data(e, h[i]);
        void *data = NULL;
        size_t len = 0;
        ids[k][0] = 0;
        if (ep && dds_qget_userdata(ep->qos, &data, &len) && data) {
            const char *u = data, *at = NULL;
            for (size_t j = 0; j + 10 <= len && !at; j++)
                if (!memcmp(u + j, "serviceid=", 10))
                    at = u + j + 10;
            size_t m = 0;
            while (at && at + m < u + len && at[m] != ';' && m + 1 < 128)
                m++;
            memcpy(ids[k], at ? at : "", m);
            ids[k][m] = 0;
        }
        dds_free(data);
        if (ep)
            dds_builtintopic_free_endpoint(ep);
        k++;
    }
    return k;
}

/* A request to NODE's SERVICE as rmw_cyclonedds's client sends it: a
 * request writer on rq<NODE>/<SERVICE>Request and a reply reader on
 * rr<NODE>/<SERVICE>Reply, both with USER_DATA clientid=...;, the request
 * once both are matched (what rclcpp's wait_for_service waits for), its
 * header this client's id and sequence number; the reply is the one that
 * echoes them. 0 and the reply handed to `show`, or 1 (said why). */
static int call(dds_entity_t pp, const char *node, const char *service,
                const dds_topic_descriptor_t *rq, const dds_topic_descriptor_t *rr, void *request,
                const char *names[], void (*show)(const void *reply, const char *names[]))
{
    static const uint64_t client = 0x0102030405060708ull;
    static int64_t seq;
    char topic[512];
    /* rclcpp's parameter client QoS (reliable, volatile, keep last 1000) */
    static const char id[] = "clientid= 1.2.3.4.5.6.7.8.9.a.b.c.0.0.0.1;";
    dds_qos_t *wq = qos(true, false, 1000), *rq_ = qos(true, false, 1000);
    dds_qset_userdata(wq, id, sizeof id - 1);
    dds_qset_userdata(rq_, id, sizeof id - 1);
    snprintf(topic, sizeof topic, "rq%s/%sRequest", node, service);
    dds_entity_t w = endpoint(pp, true, rq, topic, wq);
    snprintf(topic, sizeof topic, "rr%s/%sReply", node, service);
    dds_entity_t r = endpoint(pp, false, rr, topic, rq_);
    double until = mono() + 30; /* only a node that never answers takes them */
    for (;;) {
        /* available as rmw_cyclonedds's client judges it
         * (check_for_service_reader_writer): a matched request reader and
         * a matched reply writer with the same serviceid= */
        char rid[8][128], wid[8][128];
        size_t nr = matched_ids(w, true, rid), nw = matched_ids(r, false, wid);
        bool available = false;
        for (size_t i = 0; i < nr; i++)
            for (size_t j = 0; j < nw; j++)
                available = available || (rid[i][0] && !strcmp(rid[i], wid[j]));
        if (available)
            break;
        if (mono() > until) {
            printf("no %s%s service\n", node, service);
            return 1;
        }
        dds_sleepfor(DDS_MSECS(10));
    }
    uint64_t *head = request;
    head[0] = client;
    ((int64_t *)request)[1] = ++seq;
    dds_write(w, request);
    while (mono() < until) {
        void *samples[4] = { NULL };
        dds_sample_info_t info[4];
        int got = dds_take(r, samples, info, 4, 4);
        bool done = false;
        for (int i = 0; i < got; i++) {
            const uint64_t *h = samples[i];
            if (info[i].valid_data && h[0] == client && (int64_t)h[1] == seq) {
                show(samples[i], names);
                done = true;
            }
        }
        if (got > 0)
            dds_return_loan(r, samples, got);
        if (done) {
            dds_delete(w);
            dds_delete(r);
            return 0;
        }
        dds_sleepfor(DDS_MSECS(5));
    }
    printf("no answer from %s%s\n", node, service);
    return 1;
}

static void show_list(const void *reply, const char *names[])
{
    (void)names;
    const rcl_interfaces_srv_dds__ListParameters_Response_ *a = reply;
    printf("names");
    for (uint32_t i = 0; i < a->result.names._length; i++)
        printf(" %s", a->result.names._buffer[i]);
    printf("\n");
}

static void show_get(const void *reply, const char *names[])
{
    const rcl_interfaces_srv_dds__GetParameters_Response_ *a = reply;
    if (a->values._length == 0)
        printf("values none\n");
    for (uint32_t i = 0; i < a->values._length; i++)
        print_value(names[i], &a->values._buffer[i]);
}

static void show_set(const void *reply, const char *names[])
{
    const rcl_interfaces_srv_dds__SetParameters_Response_ *a = reply;
    for (uint32_t i = 0; i < a->results._length; i++)
        printf("set %s %s%s\n", names[i], a->results._buffer[i].successful ? "ok" : "refused: ",
               a->results._buffer[i].successful ? "" : a->results._buffer[i].reason);
}

/* param NODE list | get NAME... | set NAME TYPE VALUE */
static int param(int argc, char **argv)
{
    dds_entity_t pp = dds_create_participant(domain(), NULL, NULL);
    if (pp < 0)
        return 2;
    const char *node = argv[2], *what = argv[3];
    int status = 2;
    if (!strcmp(what, "list")) {
        rcl_interfaces_srv_dds__ListParameters_Request_ q;
        memset(&q, 0, sizeof q);
        status = call(pp, node, "list_parameters",
                      &rcl_interfaces_srv_dds__ListParameters_Request__desc,
                      &rcl_interfaces_srv_dds__ListParameters_Response__desc, &q, NULL, show_list);
    } else if (!strcmp(what, "get") && argc > 4) {
        rcl_interfaces_srv_dds__GetParameters_Request_ q;
        memset(&q, 0, sizeof q);
        q.names._length = q.names._maximum = (uint32_t)(argc - 4);
        q.names._buffer = argv + 4;
        status = call(pp, node, "get_parameters", &rcl_interfaces_srv_dds__GetParameters_Request__desc,
                      &rcl_interfaces_srv_dds__GetParameters_Response__desc, &q,
                      (const char **)(argv + 4), show_get);
    } else if (!strcmp(what, "set") && argc == 7) {
        rcl_interfaces_msg_dds__Parameter_ p;
        memset(&p, 0, sizeof p);
        p.name = argv[4];
        p.value.string_value = "";
        const char *type = argv[5], *value = argv[6];
        if (!strcmp(type, "double"))
            p.value.type = 3, p.value.double_value = atof(value);
        else if (!strcmp(type, "integer"))
            p.value.type = 2, p.value.integer_value = atoll(value);
        else if (!strcmp(type, "bool"))
            p.value.type = 1, p.value.bool_value = !strcmp(value, "true");
        else
            p.value.type = 4, p.value.string_value = argv[6];
        rcl_interfaces_srv_dds__SetParameters_Request_ q;
        memset(&q, 0, sizeof q);
        q.parameters._length = q.parameters._maximum = 1;
        q.parameters._buffer = &p;
        status = call(pp, node, "set_parameters", &rcl_interfaces_srv_dds__SetParameters_Request__desc,
                      &rcl_interfaces_srv_dds__SetParameters_Response__desc, &q,
                      (const char **)(argv + 4), show_set);
    }
    fflush(stdout);
    dds_delete(pp);
    return status;
}

/* rosout SECONDS [--until TEXT]: rt/rosout as `ros2 topic echo /rosout`
 * reads it with rcl's QoS (reliable, transient local, keep last 1000): a
 * reader that joins late gets what the node's writer keeps. A line "log
 * LEVEL NAME MSG" each; ends once a MSG holds TEXT. Either says
 * "listening" first, once a writer is matched. events SECONDS
 * [--until NAME]: rt/parameter_events, "event NODE new|changed NAME TYPE
 * VALUE" each; ends once NAME changed. */
static int listen(const char *what, double seconds, const char *until)
{
    dds_entity_t pp = dds_create_participant(domain(), NULL, NULL);
    if (pp < 0)
        return 2;
    bool logs = !strcmp(what, "rosout");
    dds_entity_t r = logs ? endpoint(pp, false, &rcl_interfaces_msg_dds__Log__desc, "rt/rosout",
                                     qos(true, true, 1000))
                          : endpoint(pp, false, &rcl_interfaces_msg_dds__ParameterEvent__desc,
                                     "rt/parameter_events", qos(true, false, 1000));
    /* "listening" once a writer is matched: what it writes from then on
     * reaches this reader */
    double end = mono() + seconds;
    dds_subscription_matched_status_t sm;
    while (mono() < end && !(dds_get_subscription_matched_status(r, &sm) == 0 && sm.current_count > 0))
        dds_sleepfor(DDS_MSECS(5));
    printf("listening\n");
    fflush(stdout);
    bool found = false;
    while (!found && mono() < end) {
        void *samples[16] = { NULL };
        dds_sample_info_t info[16];
        int got = dds_take(r, samples, info, 16, 16);
        for (int i = 0; i < got; i++) {
            if (!info[i].valid_data)
                continue;
            if (logs) {
                const rcl_interfaces_msg_dds__Log_ *m = samples[i];
                printf("log %u %s %s\n", m->level, m->name, m->msg);
                found = found || (until && strstr(m->msg, until));
                continue;
            }
            const rcl_interfaces_msg_dds__ParameterEvent_ *e = samples[i];
            for (int k = 0; k < 2; k++) {
                const dds_sequence_rcl_interfaces_msg_dds__Parameter_ *ps =
                    k ? &e->changed_parameters : &e->new_parameters;
                for (uint32_t j = 0; j < ps->_length; j++) {
                    printf("event %s %s ", e->node, k ? "changed" : "new");
                    print_value(ps->_buffer[j].name, &ps->_buffer[j].value);
                    found = found || (k && until && !strcmp(ps->_buffer[j].name, until));
                }
            }
        }
        if (got > 0)
            dds_return_loan(r, samples, got);
        fflush(stdout);
        dds_sleepfor(DDS_MSECS(10));
    }
    dds_delete(pp);
    return found || !until ? 0 : 1;
}

/* tf COUNT TOPIC...: reads each TOPIC (a TFMessage topic, "rt/robot1/tf")
 * as tf2_ros's listener does until the first has had COUNT messages (30 s
 * at most); prints "tf TOPIC N FRAME CHILD" each: how many came, and the
 * last transform's frames. */
static int tf_topics(int count, int argc, char **argv)
{
    dds_entity_t pp = dds_create_participant(domain(), NULL, NULL);
    if (pp < 0 || argc > 8)
        return 2;
    dds_entity_t r[8];
    int n[8] = { 0 };
    char frame[8][128] = { { 0 } }, child[8][128] = { { 0 } };
    for (int i = 0; i < argc; i++)
        r[i] = endpoint(pp, false, &tf2_msgs_msg_dds__TFMessage__desc, argv[i], qos(true, false, 100));
    double end = mono() + 30;
    while (n[0] < count && mono() < end) {
        for (int i = 0; i < argc; i++) {
            void *samples[16] = { NULL };
            dds_sample_info_t info[16];
            int got = dds_take(r[i], samples, info, 16, 16);
            for (int k = 0; k < got; k++) {
                const tf2_msgs_msg_dds__TFMessage_ *m = samples[k];
                if (!info[k].valid_data || m->transforms._length == 0)
                    continue;
                n[i]++;
                snprintf(frame[i], sizeof frame[i], "%s", m->transforms._buffer[0].header.frame_id);
                snprintf(child[i], sizeof child[i], "%s", m->transforms._buffer[0].child_frame_id);
            }
            if (got > 0)
                dds_return_loan(r[i], samples, got);
        }
        dds_sleepfor(DDS_MSECS(5));
    }
    for (int i = 0; i < argc; i++)
        printf("tf %s %d %s %s\n", argv[i], n[i], n[i] ? frame[i] : "-", n[i] ? child[i] : "-");
    dds_delete(pp);
    return n[0] >= count ? 0 : 1;
}

/* One std_msgs/msg/Empty from writer w once a reader has matched it (30 s
 * at most): the wall-clock time it went. */
static double send_empty(dds_entity_t w)
{
    double end = mono() + 30;
    dds_publication_matched_status_t pm;
    while (mono() < end && !(dds_get_publication_matched_status(w, &pm) == 0 && pm.current_count > 0))
        dds_sleepfor(DDS_MSECS(5));
    std_msgs_msg_dds__Empty_ e = { 0 };
    double sent = realtime();
    dds_write(w, &e);
    return sent;
}

/* sensors SECONDS NS: rt/NS/imu, rt/NS/joint_states and rt/NS/battery as
 * their ROS 2 readers take them, for SECONDS once the battery has come (30
 * s at most before); the last of each: "imu FRAME YAW RATE COV_YAW ACC0",
 * "joints NAME0 NAME1 POS0 POS1 VEL0 VEL1", "battery V PERCENTAGE
 * STATUS"; "none imu" (...) for what never came. reset NS: one
 * std_msgs/msg/Empty on rt/NS/reset_odometry once the node's reader is
 * matched, then the pose of the first odometry stamped after the node took
 * it (its /rosout line says when): "reset X Y YAW". */
static int sensors(double seconds, const char *ns, bool reset)
{
    dds_entity_t pp = dds_create_participant(domain(), NULL, NULL);
    if (pp < 0)
        return 2;
    char name[256];
    if (reset) {
        snprintf(name, sizeof name, "rt/%s/reset_odometry", ns);
        dds_entity_t w = endpoint(pp, true, &std_msgs_msg_dds__Empty__desc, name, qos(true, false, 10));
        snprintf(name, sizeof name, "rt/%s/odom", ns);
        dds_entity_t o = endpoint(pp, false, &nav_msgs_msg_dds__Odometry__desc, name, qos(true, false, 10));
        /* when the node took it: its /rosout line says so, stamped then */
        dds_entity_t lg = endpoint(pp, false, &rcl_interfaces_msg_dds__Log__desc, "rt/rosout",
                                   qos(true, true, 1000));
        double sent = send_empty(w), end = mono() + 30, taken = -1;
        while (mono() < end) {
            void *s[8] = { NULL };
            dds_sample_info_t info[8];
            int got = taken < 0 ? dds_take(lg, s, info, 8, 8) : 0;
            for (int i = 0; i < got; i++) {
                const rcl_interfaces_msg_dds__Log_ *m = s[i];
                if (info[i].valid_data && strstr(m->msg, "odometry reset") &&
                    stamp_of(&m->stamp) >= sent - 0.001)
                    taken = stamp_of(&m->stamp);
            }
            if (got > 0)
                dds_return_loan(lg, s, got);
            got = taken < 0 ? 0 : dds_take(o, s, info, 8, 8);
            for (int i = 0; i < got; i++) {
                const nav_msgs_msg_dds__Odometry_ *m = s[i];
                /* the first odometry stamped after the node took it */
                if (info[i].valid_data && stamp_of(&m->header.stamp) > taken) {
                    const geometry_msgs_msg_dds__Quaternion_ *q = &m->pose.pose.orientation;
                    printf("reset %.4f %.4f %.4f\n", m->pose.pose.position.x,
                           m->pose.pose.position.y, 2 * atan2(q->z, q->w));
                    dds_return_loan(o, s, got);
                    dds_delete(pp);
                    return 0;
                }
            }
            if (got > 0)
                dds_return_loan(o, s, got);
            dds_sleepfor(DDS_MSECS(5));
        }
        printf("reset none\n");
        dds_delete(pp);
        return 1;
    }
    const dds_topic_descriptor_t *d[3] = { &sensor_msgs_msg_dds__Imu__desc,
                                           &sensor_msgs_msg_dds__JointState__desc,
                                           &sensor_msgs_msg_dds__BatteryState__desc };
    const char *topic[3] = { "imu", "joint_states", "battery" };
    dds_entity_t r[3];
    char line[3][512];
    bool have[3] = { false, false, false };
    for (int k = 0; k < 3; k++) {
        snprintf(name, sizeof name, "rt/%s/%s", ns, topic[k]);
        r[k] = endpoint(pp, false, d[k], name, qos(true, false, 10));
    }
    double end = mono() + 30, first = -1;
    while (mono() < end && (first < 0 || mono() < first + seconds)) {
        for (int k = 0; k < 3; k++) {
            void *s[16] = { NULL };
            dds_sample_info_t info[16];
            int got = dds_take(r[k], s, info, 16, 16);
            for (int i = 0; i < got; i++) {
                if (!info[i].valid_data)
                    continue;
                have[k] = true;
                if (k == 0) {
                    const sensor_msgs_msg_dds__Imu_ *m = s[i];
                    snprintf(line[k], sizeof line[k], "imu %s %.4f %.4f %g %g", m->header.frame_id,
                             2 * atan2(m->orientation.z, m->orientation.w), m->angular_velocity.z,
                             m->orientation_covariance[8], m->linear_acceleration_covariance[0]);
                } else if (k == 1) {
                    const sensor_msgs_msg_dds__JointState_ *m = s[i];
                    if (m->name._length == 2 && m->position._length == 2 && m->velocity._length == 2)
                        snprintf(line[k], sizeof line[k], "joints %s %s %.4f %.4f %.4f %.4f",
                                 m->name._buffer[0], m->name._buffer[1], m->position._buffer[0],
                                 m->position._buffer[1], m->velocity._buffer[0],
                                 m->velocity._buffer[1]);
                    else
                        snprintf(line[k], sizeof line[k], "joints malformed");
                } else {
                    const sensor_msgs_msg_dds__BatteryState_ *m = s[i];
                    snprintf(line[k], sizeof line[k], "battery %.2f %.4f %u", m->voltage,
                             m->percentage, m->power_supply_status);
                }
            }
            if (got > 0)
                dds_return_loan(r[k], s, got);
        }
        /* the battery comes each diagnostic period, imu and joints with
         * every odometry: SECONDS past the battery, the others have come
         * if they ever do */
        if (first < 0 && have[2])
            first = mono();
        dds_sleepfor(DDS_MSECS(5));
    }
    for (int k = 0; k < 3; k++)
        printf("%s\n", have[k] ? line[k] : k == 0 ? "none imu" : k == 1 ? "none joints" : "none battery");
    dds_delete(pp);
    return 0;
}


/* ---- the fleet benchmark's subscriber ------------------------------------ */

static double cpu_self(void) { return clock_s(CLOCK_PROCESS_CPUTIME_ID); }

static int by_float(const void *a, const void *b)
{
    float x = *(const float *)a, y = *(const float *)b;
    return (x > y) - (x < y);
}

/* What sub's listeners count, on Cyclone's receiving threads. */
static struct {
    pthread_mutex_t lock;
    bool counting; /* within the window; before it, taken and let go */
    dds_entity_t *odom;
    size_t n;
    long first, last;
    const char *prefix;
    size_t plen;
    unsigned *odoms, *tfs;
    unsigned long tf_messages, tf_transforms; /* on rt/tf: messages, and what they carried */
    float *lat;
    size_t nlat, lat_cap;
} S = { .lock = PTHREAD_MUTEX_INITIALIZER };

/* A reader's data, taken as it comes (the listener of robot i's odometry,
 * or of rt/tf when i is n): no waitset, which looks at every reader at
 * each wake-up, between a thousand writers and their reader. */
static void sub_take(dds_entity_t r, void *arg)
{
    size_t i = (size_t)(uintptr_t)arg;
    void *s[64] = { NULL };
    dds_sample_info_t info[64];
    int got;
    pthread_mutex_lock(&S.lock);
    while ((got = dds_take(r, s, info, 64, 64)) > 0) {
        double now = realtime();
        for (int m = 0; S.counting && m < got; m++) {
            if (!info[m].valid_data)
                continue;
            if (i < S.n) {
                const nav_msgs_msg_dds__Odometry_ *o = s[m];
                S.odoms[i]++;
                if (S.nlat < S.lat_cap)
                    S.lat[S.nlat++] = (float)((now - stamp_of(&o->header.stamp)) * 1000);
                continue;
            }
            const tf2_msgs_msg_dds__TFMessage_ *t = s[m];
            S.tf_messages++;
            S.tf_transforms += t->transforms._length;
            for (uint32_t x = 0; x < t->transforms._length; x++) {
                const char *c = t->transforms._buffer[x].child_frame_id;
                if (!c || strncmp(c, S.prefix, S.plen) != 0)
                    continue;
                long k = strtol(c + S.plen, NULL, 10);
                if (k >= S.first && k <= S.last)
                    S.tfs[k - S.first]++;
            }
        }
        dds_return_loan(r, s, got);
        memset(s, 0, sizeof s);
        if (got < 64)
            break;
    }
    pthread_mutex_unlock(&S.lock);
}

#define SUB_HANG 120.0

static int sub(double seconds, long first, long last, const char *prefix, bool until_all)
{
    if (first < 1 || last < first || last - first >= 100000) {
        fprintf(stderr, "ros2_peer: sub: robots FIRST to LAST, 1 <= FIRST <= LAST\n");
        return 2;
    }
    size_t n = (size_t)(last - first + 1);
    /* a participant to SUB_READERS readers: Cyclone DDS counts a
     * participant's entities (a topic and a reader each) in 14 bits */
    enum { SUB_READERS = 4000 };
    size_t npp = n / SUB_READERS + 1;
    dds_entity_t *pps = calloc(npp, sizeof *pps);
    if (!pps) {
        fprintf(stderr, "ros2_peer: out of memory\n");
        return 2;
    }
    for (size_t k = 0; k < npp; k++)
        pps[k] = participant();
    S.n = n;
    S.first = first;
    S.last = last;
    S.prefix = prefix;
    S.plen = strlen(prefix);
    S.odom = calloc(n, sizeof *S.odom);
    S.odoms = calloc(n, sizeof *S.odoms);
    S.tfs = calloc(n, sizeof *S.tfs);
    S.lat_cap = 1 << 24;
    S.lat = malloc(S.lat_cap * sizeof *S.lat);
    if (!S.odom || !S.odoms || !S.tfs || !S.lat) {
        fprintf(stderr, "ros2_peer: out of memory\n");
        return 2;
    }
    for (size_t i = 0; i <= n; i++) {
        dds_listener_t *l = dds_create_listener((void *)(uintptr_t)i);
        dds_lset_data_available(l, sub_take);
        if (i < n) {
            char name[256];
            snprintf(name, sizeof name, "rt/%s%ld/odom", prefix, first + (long)i);
            S.odom[i] = endpoint_l(pps[i / SUB_READERS], false, &nav_msgs_msg_dds__Odometry__desc,
                                   name, qos(true, false, 10), l);
        } else {
            (void)endpoint_l(pps[0], false, &tf2_msgs_msg_dds__TFMessage__desc, "rt/tf",
                             qos(true, false, 100), l);
        }
        dds_delete_listener(l);
    }
    /* discovery: every odom reader matched */
    double t0 = mono(), matched_at = -1;
    for (size_t done = 0; done < n && mono() < t0 + 600;) {
        dds_subscription_matched_status_t st;
        while (done < n && dds_get_subscription_matched_status(S.odom[done], &st) == 0 &&
               st.current_count > 0)
            done++;
        if (done < n)
            dds_sleepfor(DDS_MSECS(10));
        else
            matched_at = mono() - t0;
    }
    if (matched_at < 0) {
        fprintf(stderr, "ros2_peer: sub: not every odom writer matched in 600 s\n");
        return 1;
    }
    printf("matched %.3f\n", matched_at);
    fflush(stdout);
    /* (what came before the window is not counted) */
    pthread_mutex_lock(&S.lock);
    S.counting = true;
    double cpu0 = cpu_self(), w0 = mono(), end = w0 + seconds;
    pthread_mutex_unlock(&S.lock);
    for (double left; (left = end - mono()) > 0;)
        dds_sleepfor((dds_duration_t)(fmin(left, 0.5) * 1e9) + 1);
    /* --until-all: on past the window until every robot's odometry and tf
     * have come (a loaded machine sends them later, not never); SUB_HANG
     * only stops a broken build. The rates are over the whole span. */
    while (until_all && mono() < w0 + SUB_HANG) {
        pthread_mutex_lock(&S.lock);
        size_t heard = 0;
        for (size_t i = 0; i < n; i++)
            heard += S.odoms[i] > 0 && S.tfs[i] > 0;
        pthread_mutex_unlock(&S.lock);
        if (heard == n)
            break;
        dds_sleepfor(DDS_MSECS(10));
    }
    pthread_mutex_lock(&S.lock);
    S.counting = false;
    double span = mono() - w0, cpu = (cpu_self() - cpu0) / span;
    pthread_mutex_unlock(&S.lock);
    float *rate = malloc(n * sizeof *rate), *trate = malloc(n * sizeof *trate);
    size_t with_odom = 0, with_tf = 0;
    for (size_t i = 0; rate && trate && i < n; i++) {
        rate[i] = (float)(S.odoms[i] / span);
        trate[i] = (float)(S.tfs[i] / span);
        with_odom += S.odoms[i] > 0;
        with_tf += S.tfs[i] > 0;
    }
    if (!rate || !trate)
        return 2;
    size_t nlat = S.nlat;
    float *lat = S.lat;
    qsort(rate, n, sizeof *rate, by_float);
    qsort(trate, n, sizeof *trate, by_float);
    qsort(lat, nlat, sizeof *lat, by_float);
    printf("{\"robots\":%zu,\"window_s\":%.2f,\"matched_s\":%.3f,\"robots_with_odom\":%zu,"
           "\"odom_per_robot_s_median\":%.2f,\"odom_per_robot_s_least\":%.2f,\"robots_with_tf\":%zu,"
           "\"tf_per_robot_s_median\":%.2f,\"tf_per_robot_s_least\":%.2f,\"latency_ms_p50\":%.2f,"
           "\"latency_ms_p99\":%.2f,\"latency_ms_max\":%.2f,\"tf_messages_per_s\":%.1f,"
           "\"transforms_per_tf_message\":%.1f,\"subscriber_cpu_cores\":%.3f}\n",
           n, span, matched_at, with_odom, rate[n / 2], rate[0], with_tf, trate[n / 2], trate[0],
           nlat ? lat[nlat / 2] : -1.0, nlat ? lat[nlat * 99 / 100] : -1.0, nlat ? lat[nlat - 1] : -1.0,
           (double)S.tf_messages / span,
           S.tf_messages ? (double)S.tf_transforms / (double)S.tf_messages : 0.0, cpu);
    fflush(stdout);
    for (size_t k = 0; k < npp; k++) /* (the listeners done: nothing writes into S any more) */
        dds_delete(pps[k]);
    free(pps);
    free(rate);
    free(trate);
    free(S.lat);
    free(S.odom);
    free(S.odoms);
    free(S.tfs);
    return with_odom == n ? 0 : 1;
}

/* ---- the graph over time: nodes come, and go with their participant ---- */

#define MAX_PARTICIPANTS 64
#define MAX_GRAPH_NODES 2048

typedef struct {
    uint8_t guid[16];
    dds_instance_handle_t handle; /* its DCPSParticipant instance (0: not seen there yet) */
    bool alive;
    size_t nodes;
} graph_participant_t;

static int by_name(const void *a, const void *b) { return strcmp(a, b); }

static int graph(double seconds, const char *until)
{
    dds_entity_t pp = participant();
    dds_qos_t *q = qos(true, true, 1);
    dds_qset_history(q, DDS_HISTORY_KEEP_ALL, 0);
    dds_entity_t info_r = endpoint(pp, false, &rmw_dds_common_msg_dds__ParticipantEntitiesInfo__desc,
                                   "ros_discovery_info", q);
    dds_entity_t parts = dds_create_reader(pp, DDS_BUILTIN_TOPIC_DCPSPARTICIPANT, NULL, NULL);
    if (info_r < 0 || parts < 0) {
        fprintf(stderr, "ros2_peer: readers: %s\n", dds_strretcode(info_r < 0 ? info_r : parts));
        return 2;
    }
    static graph_participant_t who[MAX_PARTICIPANTS];
    static char seen[MAX_GRAPH_NODES][300];
    size_t nwho_g = 0, nseen = 0, shown = (size_t)-1;
    long want[16];
    size_t nwant = 0, reached = 0;
    for (const char *p = until; p && *p && nwant < 16;) {
        want[nwant++] = strtol(p, (char **)&p, 10);
        if (*p == ',')
            p++;
        else
            break;
    }
    double end = mono() + seconds;
    void *s[16];
    dds_sample_info_t info[16];
    while (mono() < end && (nwant == 0 || reached < nwant)) {
        int got;
        memset(s, 0, sizeof s);
        while ((got = dds_take(parts, s, info, 16, 16)) > 0) {
            for (int k = 0; k < got; k++) {
                const dds_builtintopic_participant_t *b = s[k];
                size_t p = 0;
                if (info[k].valid_data) {
                    while (p < nwho_g && memcmp(who[p].guid, b->key.v, 16) != 0)
                        p++;
                    if (p == nwho_g && nwho_g < MAX_PARTICIPANTS)
                        memcpy(who[nwho_g++].guid, b->key.v, 16);
                    if (p < nwho_g) {
                        who[p].handle = info[k].instance_handle;
                        who[p].alive = true;
                    }
                } else if (info[k].instance_state != DDS_IST_ALIVE) {
                    for (p = 0; p < nwho_g; p++)
                        if (who[p].handle == info[k].instance_handle)
                            who[p].alive = false, who[p].nodes = 0;
                }
            }
            dds_return_loan(parts, s, got);
            memset(s, 0, sizeof s);
        }
        while ((got = dds_take(info_r, s, info, 16, 16)) > 0) {
            for (int k = 0; k < got; k++) {
                if (!info[k].valid_data)
                    continue;
                const rmw_dds_common_msg_dds__ParticipantEntitiesInfo_ *m = s[k];
                size_t p = 0;
                while (p < nwho_g && memcmp(who[p].guid, m->gid.data, 16) != 0)
                    p++;
                if (p == nwho_g && nwho_g < MAX_PARTICIPANTS) {
                    memcpy(who[nwho_g++].guid, m->gid.data, 16);
                    who[p].alive = true; /* its DCPSParticipant sample may come after */
                }
                if (p == nwho_g || !who[p].alive)
                    continue;
                who[p].nodes = m->node_entities_info_seq._length;
                for (uint32_t j = 0; j < m->node_entities_info_seq._length; j++) {
                    const rmw_dds_common_msg_dds__NodeEntitiesInfo_ *e = &m->node_entities_info_seq._buffer[j];
                    char name[300];
                    snprintf(name, sizeof name, "%.150s/%.140s", e->node_namespace, e->node_name);
                    size_t i = 0;
                    while (i < nseen && strcmp(seen[i], name) != 0)
                        i++;
                    if (i == nseen && nseen < MAX_GRAPH_NODES)
                        snprintf(seen[nseen++], sizeof seen[0], "%s", name);
                }
            }
            dds_return_loan(info_r, s, got);
            memset(s, 0, sizeof s);
        }
        size_t count = 0;
        for (size_t p = 0; p < nwho_g; p++)
            count += who[p].alive ? who[p].nodes : 0;
        if (count != shown) {
            shown = count;
            printf("graph %.3f %zu\n", realtime(), count);
            fflush(stdout);
            if (reached < nwant && (long)count == want[reached])
                reached++;
        }
        dds_sleepfor(DDS_MSECS(5));
    }
    qsort(seen, nseen, sizeof seen[0], by_name);
    printf("nodes");
    for (size_t i = 0; i < nseen; i++)
        printf(" %s", seen[i]);
    printf("\n");
    dds_delete(pp);
    return nwant == 0 || reached == nwant ? 0 : 1;
}

/* dock NS SECONDS [--undock]: one std_msgs/msg/Empty on rt/NS/dock (or
 * rt/NS/undock) once the node's reader is matched; then, from the node's
 * /rosout lines (logger NS.botwire) that speak of it, "said MESSAGE" each,
 * until one says it is done or failed (SECONDS at most); and the last
 * rt/NS/battery: "battery STATUS PERCENTAGE". Exits 0 when done. */
static int dock(const char *ns, double seconds, bool undock)
{
    dds_entity_t pp = participant();
    char name[256], logger[256];
    snprintf(name, sizeof name, "rt/%s/%s", ns, undock ? "undock" : "dock");
    dds_entity_t w = endpoint(pp, true, &std_msgs_msg_dds__Empty__desc, name, qos(true, false, 10));
    snprintf(name, sizeof name, "rt/%s/battery", ns);
    dds_entity_t bat = endpoint(pp, false, &sensor_msgs_msg_dds__BatteryState__desc, name, qos(true, false, 10));
    dds_entity_t lg = endpoint(pp, false, &rcl_interfaces_msg_dds__Log__desc, "rt/rosout", qos(true, true, 1000));
    snprintf(logger, sizeof logger, "%s.botwire", ns);
    double sent = send_empty(w);
    const char *what = undock ? "undock: " : "dock: ";
    int rc = 1, status = -1;
    float pct = NAN;
    double end = mono() + seconds;
    for (bool over = false; !over && mono() < end;) {
        void *s[8] = { NULL };
        dds_sample_info_t info[8];
        int got = dds_take(lg, s, info, 8, 8);
        for (int i = 0; i < got; i++) {
            const rcl_interfaces_msg_dds__Log_ *m = s[i];
            if (!info[i].valid_data || strcmp(m->name, logger) || strncmp(m->msg, what, strlen(what)) ||
                stamp_of(&m->stamp) < sent - 0.001)
                continue;
            printf("said %s\n", m->msg);
            if (strstr(m->msg, ": done:"))
                rc = 0, over = true;
            else if (strstr(m->msg, ": failed:") || strstr(m->msg, "not moved") || strstr(m->msg, "given up"))
                over = true;
        }
        if (got > 0)
            dds_return_loan(lg, s, got);
        memset(s, 0, sizeof s);
        got = dds_take(bat, s, info, 8, 8);
        for (int i = 0; i < got; i++)
            if (info[i].valid_data) {
                const sensor_msgs_msg_dds__BatteryState_ *b = s[i];
                status = b->power_supply_status;
                pct = b->percentage;
            }
        if (got > 0)
            dds_return_loan(bat, s, got);
        dds_sleepfor(DDS_MSECS(10));
    }
    /* the battery as the node next says it (its period) */
    for (double until = mono() + 3; mono() < until;) {
        void *s[8] = { NULL };
        dds_sample_info_t info[8];
        int got = dds_take(bat, s, info, 8, 8);
        bool fresh = false;
        for (int i = 0; i < got; i++)
            if (info[i].valid_data) {
                const sensor_msgs_msg_dds__BatteryState_ *b = s[i];
                status = b->power_supply_status;
                pct = b->percentage;
                fresh = true;
            }
        if (got > 0)
            dds_return_loan(bat, s, got);
        if (fresh)
            break;
        dds_sleepfor(DDS_MSECS(10));
    }
    printf("battery %d %.3f\n", status, pct);
    fflush(stdout);
    dds_delete(pp);
    return rc;
}

int main(int argc, char **argv)
{
    if (argc >= 4 && !strcmp(argv[1], "sensors"))
        return sensors(atof(argv[2]), argv[3], false);
    if (argc >= 3 && !strcmp(argv[1], "reset"))
        return sensors(0, argv[2], true);
    if (argc >= 4 && !strcmp(argv[1], "dock"))
        return dock(argv[2], atof(argv[3]), argc >= 5 && !strcmp(argv[4], "--undock"));
    if (argc >= 4 && !strcmp(argv[1], "tf"))
        return tf_topics(atoi(argv[2]), argc - 3, argv + 3);
    if (argc >= 4 && !strcmp(argv[1], "param"))
        return param(argc, argv);
    if (argc >= 3 && (!strcmp(argv[1], "rosout") || !strcmp(argv[1], "events")))
        return listen(argv[1], atof(argv[2]), argc >= 5 && !strcmp(argv[3], "--until") ? argv[4] : NULL);
    if (argc >= 5 && !strcmp(argv[1], "sub")) {
        const char *prefix = "robot";
        bool until_all = false;
        for (int i = 5; i < argc; i++) {
            if (!strcmp(argv[i], "--prefix") && i + 1 < argc)
                prefix = argv[++i];
            else if (!strcmp(argv[i], "--until-all"))
                until_all = true;
        }
        return sub(atof(argv[2]), atol(argv[3]), atol(argv[4]), prefix, until_all);
    }
    if (argc >= 3 && !strcmp(argv[1], "graph"))
        return graph(atof(argv[2]), argc >= 5 && !strcmp(argv[3], "--until") ? argv[4] : NULL);
    if (argc >= 3 && !strcmp(argv[1], "nodes")) {
        bool humble = false, matched = false;
        const char *ranges = NULL, *until = NULL;
        for (int i = 3; i < argc; i++) {
            if (!strcmp(argv[i], "--humble"))
                humble = true;
            else if (!strcmp(argv[i], "--matched"))
                matched = true;
            else if (!strcmp(argv[i], "--ranges") && i + 1 < argc)
                ranges = argv[++i];
            else if (!strcmp(argv[i], "--until") && i + 1 < argc)
                until = argv[++i];
        }
        return nodes(atof(argv[2]), humble, ranges, until, matched);
    }
    if (argc >= 4 && !strcmp(argv[1], "watch")) {
        static watched_t w[MAX_NS];
        size_t n = 0;
        const char *drive = NULL;
        double v = 0, d = 0, silent = 0;
        bool fall_silent = false;
        const char *offline = NULL;
        for (int i = 3; i < argc; i++) {
            if (!strcmp(argv[i], "--fall-silent")) {
                fall_silent = true;
            } else if (!strcmp(argv[i], "--just-seconds")) {
                just_seconds = true;
            } else if (!strcmp(argv[i], "--until-offline") && i + 1 < argc) {
                offline = argv[++i];
            } else if (!strcmp(argv[i], "--stamped") && i + 1 < argc) {
                cmd_stamped = true;
                i++;
                cmd_age = !strcmp(argv[i], "zero") ? NAN : atof(argv[i]);
            } else if (!strcmp(argv[i], "--w") && i + 1 < argc) {
                cmd_w = atof(argv[++i]);
            } else if (!strcmp(argv[i], "--hz") && i + 1 < argc) {
                cmd_period = 1 / atof(argv[++i]);
            } else if (!strcmp(argv[i], "--unmatched") && i + 1 < argc) {
                unmatched_after = atof(argv[++i]);
            } else if (!strcmp(argv[i], "--end-when-silent") && i + 1 < argc) {
                silent = atof(argv[++i]);
            } else if (!strcmp(argv[i], "--drive") && i + 3 < argc) {
                drive = argv[i + 1];
                v = atof(argv[i + 2]);
                d = atof(argv[i + 3]);
                i += 3;
            } else if (n < MAX_NS) {
                w[n++].ns = !strcmp(argv[i], "/") ? "" : argv[i];
            }
        }
        if (drive && !strcmp(drive, "/"))
            drive = "";
        return watch(atof(argv[2]), w, n, drive, v, d, silent, fall_silent && drive, offline);
    }
    fprintf(stderr, "usage: ros2_peer watch SECONDS NS... [--drive NS V D [--fall-silent] "
                    "[--stamped AGE|zero] [--hz HZ] [--unmatched S]] "
                    "[--end-when-silent S] [--until-offline NS] [--just-seconds] | "
                    "nodes SECONDS [--humble] [--ranges NS] [--until LINE] [--matched] | "
                    "graph SECONDS [--until N,M,...] | sub SECONDS FIRST LAST [--prefix P] [--until-all] | "
                    "param NODE list|get NAME...|set NAME TYPE VALUE | "
                    "rosout|events SECONDS [--until TEXT] | tf COUNT TOPIC...\n");
    return 2;
}

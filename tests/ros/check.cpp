/*
 * The ROS side of the bridge's tests: a cmd_vel publisher, and a watcher of
 * what botwire_ros publishes.
 *
 *   ros_bridge_check publish V SECONDS zero|die
 *       publishes cmd_vel (V m/s ahead) at 10 Hz for SECONDS, then either
 *       zero twists for 0.3 s and a clean exit, or death by SIGKILL.
 *   ros_bridge_check watch SECONDS [WALL_X START_X]
 *       for SECONDS, records odom, cmd_vel, the range sensors with their
 *       static transforms and /diagnostics; then prints one line each:
 *         odom X V          the last odometry (x, forward speed)
 *         slowing_after S   from the last cmd_vel to the first odom at less
 *                           than half the speed then: the robot braking
 *         stopped_after S   ... to the first odom with v = 0 (-1: never)
 *         late_by S         how much later than usual the node's cycles ran
 *                           in that time (gaps in the odometry's stamps)
 *         cruise V          the speed the robot drove at, by its own
 *                           odometry: the upper quartile of the speeds it
 *                           moved at (-1: it never moved)
 *         zero_to_rest S L  from the first zero twist after a moving one
 *                           to the first odometry at rest (stamps; -1:
 *                           none), and how much later than usual the
 *                           node's cycles ran in that time, as late_by
 *         online B          /diagnostics said the link is online (1/0)
 *         range I R WANT    for each range sensor facing within 30 degrees
 *                           of ahead, its last reading and what a wall at
 *                           x = WALL_X in the world gives from the pose
 *                           (START_X + odometry) and its mount
 *       and exits 0 once it has seen odometry at all, else 1. It says
 *       "watching" (flushed) at its first odometry: a publisher started
 *       after that line drives in full view. Past
 *       SECONDS it goes on (10 s at most) until the robot has come to rest
 *       after the last cmd_vel (and, with WALL_X, every range sensor has
 *       read again since): a publisher that started late still drives its
 *       whole drive inside the watch.
 *   ros_bridge_check glance SECONDS [UNTIL_X]
 *       the same for SECONDS exactly, for a publisher that goes on; with
 *       UNTIL_X, it ends as soon as the odometry's x has reached it.
 *   ros_bridge_check online TIMEOUT [WANT]
 *       exits 0 as soon as /diagnostics says the link is online (WANT 1, the
 *       default; and odometry comes) or offline (WANT 0), printing the
 *       status's values (key value, a line each); 1 if that has not
 *       happened within TIMEOUT seconds.
 *   ros_bridge_check fleet-online N TIMEOUT
 *       exits 0 as soon as each of robot1..robotN has said online on
 *       /diagnostics (its status names its namespace) and sent /robotK/odom;
 *       else prints the ones missing and exits 1.
 *   ros_bridge_check fleet-watch N SECONDS [OFFLINE_K]
 *       for SECONDS, counts each /robotK/odom and gathers /tf and
 *       /diagnostics, and past SECONDS until every robot's last diagnostics
 *       say online (with OFFLINE_K: robot K's offline, the others online),
 *       30 s more at most; then a line per robot:
 *         robot K hz H x X y Y online B
 *       (H: one over the median gap between its odometry's stamps, the
 *       node's own cadence: a machine that holds some of its cycles back,
 *       or this watcher's, does not move the median unless it holds back
 *       most) and, from /tf, one line: trees T mixed M (T: robots whose own
 *       robotK/odom -> robotK/base_footprint was seen; M: transforms whose
 *       two frames are of different robots, or of none).
 *   ros_bridge_check master TIMEOUT
 *       exits 0 as soon as the master at ROS_MASTER_URI answers and the
 *       /rosout node it starts is registered with it (roscore is up), 1 if
 *       not within TIMEOUT seconds. It asks the master itself: roscore's
 *       log lines are Python's to buffer, not a sign to wait for.
 */
#include <algorithm>
#include <csignal>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <vector>
#include <string>

#include <diagnostic_msgs/DiagnosticArray.h>
#include <geometry_msgs/Twist.h>
#include <nav_msgs/Odometry.h>
#include <ros/ros.h>
#include <sensor_msgs/Range.h>
#include <tf2_msgs/TFMessage.h>

namespace {

int publish(double v, double seconds, bool die)
{
    ros::NodeHandle nh;
    ros::Publisher pub = nh.advertise<geometry_msgs::Twist>("cmd_vel", 10);
    /* the bridge must be subscribed before the stream starts */
    ros::WallTime until = ros::WallTime::now() + ros::WallDuration(10.0);
    while (pub.getNumSubscribers() == 0 && ros::WallTime::now() < until && ros::ok())
        ros::WallDuration(0.01).sleep();
    if (pub.getNumSubscribers() == 0) {
        std::fprintf(stderr, "publish: nobody subscribes to cmd_vel\n");
        return 1;
    }
    geometry_msgs::Twist t;
    t.linear.x = v;
    ros::WallRate rate(10.0);
    ros::WallTime end = ros::WallTime::now() + ros::WallDuration(seconds);
    while (ros::WallTime::now() < end && ros::ok()) {
        pub.publish(t);
        rate.sleep();
    }
    if (die)
        std::raise(SIGKILL); /* no goodbye: the stream just stops */
    /* A clean end, as a teleop does: zero, a few times over. */
    for (int i = 0; i < 3 && ros::ok(); i++) {
        pub.publish(geometry_msgs::Twist());
        rate.sleep();
    }
    return 0;
}

double yaw_of(const geometry_msgs::Quaternion &q)
{
    return std::atan2(2 * (q.w * q.z + q.x * q.y), 1 - 2 * (q.y * q.y + q.z * q.z));
}

/* The median of some gaps (0 if none). */
double median_of(std::vector<double> v)
{
    if (v.empty())
        return 0;
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

/* The gaps between the stamps in [from, to] longer than one and a half
 * times the usual, less the usual each: the time the machine held the
 * node's cycles back in that span, a cycle held back by half of one and
 * more counted (a loaded machine's delays come a few tens of ms at a
 * time). A cycle skipped where the node's and the robot's rates beat
 * counts too: a cycle's worth, which a stop late by the 0.6 s timeout
 * does not hide. */
double held_back(const std::vector<double> &stamps, double usual, double from, double to)
{
    double late = 0;
    for (size_t i = 1; i < stamps.size(); i++)
        if (stamps[i] > from && stamps[i - 1] < to && stamps[i] - stamps[i - 1] > 1.5 * usual)
            late += stamps[i] - stamps[i - 1] - usual;
    return late;
}

struct Watch {
    bool have_odom = false;
    double x = 0, v = 0, last_cmd = -1, v_at_cmd = 0, slowing_at = -1, stopped_at = -1;
    double until_x = NAN;        /* glance: enough once x has reached it */
    bool moving_cmd = false;     /* the last cmd_vel asked for motion */
    double first_zero = -1;      /* the first zero twist after a moving one */
    std::vector<double> stamps; /* every odometry's stamp, the node's clock */
    std::vector<double> speeds; /* ...and its speed */
    bool online = false, have_diag = false;
    std::map<std::string, std::string> values;
    std::map<std::string, geometry_msgs::Transform> mounts;
    std::map<std::string, double> ranges;
    std::map<std::string, double> range_at; /* each reading's stamp */

    /* The times are the node's and the transport's, not this loop's: the
     * odometry's own stamp (when the node read that state; ROS time is the
     * wall clock here, no /clock), and when a cmd_vel reached this process
     * (roscpp's receipt, in its network thread). On a loaded machine this
     * loop's spinOnce runs late, and its own clock made the robot look late
     * to stop, or early. */
    void odom(const ros::MessageEvent<nav_msgs::Odometry const> &e)
    {
        const nav_msgs::Odometry::ConstPtr &m = e.getMessage();
        have_odom = true;
        x = m->pose.pose.position.x;
        v = m->twist.twist.linear.x;
        double at = m->header.stamp.isZero() ? e.getReceiptTime().toSec() : m->header.stamp.toSec();
        stamps.push_back(at);
        speeds.push_back(v);
        if (last_cmd > 0 && slowing_at < 0 && v < v_at_cmd / 2 && at > last_cmd)
            slowing_at = at;
        if (last_cmd > 0 && stopped_at < 0 && std::fabs(v) < 1e-6 && at > last_cmd)
            stopped_at = at;
    }
    void cmd(const ros::MessageEvent<geometry_msgs::Twist const> &e)
    {
        const geometry_msgs::Twist &t = *e.getMessage();
        bool zero = t.linear.x == 0 && t.linear.y == 0 && t.angular.z == 0;
        if (zero && moving_cmd && first_zero < 0)
            first_zero = e.getReceiptTime().toSec();
        moving_cmd = !zero;
        last_cmd = e.getReceiptTime().toSec();
        v_at_cmd = v;
        slowing_at = stopped_at = -1;
    }
    /* How late the node's loop ran between the last cmd_vel and the rest:
     * the node publishes odometry each cycle the state is new, stamped when
     * that cycle ran, so a cycle the scheduler held back shows as a gap
     * longer than the usual one (the median), and the stop it was to send
     * went out that much later (held_back). */
    double usual_gap() const
    {
        std::vector<double> gaps;
        for (size_t i = 1; i < stamps.size(); i++)
            gaps.push_back(stamps[i] - stamps[i - 1]);
        return median_of(gaps);
    }
    double late_by() const
    {
        if (last_cmd < 0 || stopped_at < 0 || stamps.size() < 3)
            return 0;
        return held_back(stamps, usual_gap(), last_cmd, stopped_at);
    }
    /* The speed it cruised at, by its own odometry: the upper quartile
     * of the speeds it moved at (the ramps are the lower ones; a frame a
     * bad cable got past the checksum may make a speed of its own, one in
     * many), -1 if it never moved. */
    double cruise() const
    {
        std::vector<double> moving;
        for (double s : speeds)
            if (std::fabs(s) >= 1e-6)
                moving.push_back(std::fabs(s));
        if (moving.empty())
            return -1;
        std::sort(moving.begin(), moving.end());
        return moving[moving.size() * 3 / 4];
    }
    /* The first odometry at rest stamped after t, -1 if none. */
    double rest_after(double t) const
    {
        for (size_t i = 0; i < stamps.size(); i++)
            if (stamps[i] > t && std::fabs(speeds[i]) < 1e-6)
                return stamps[i];
        return -1;
    }
    void statics(const tf2_msgs::TFMessage::ConstPtr &m)
    {
        for (const auto &t : m->transforms)
            mounts[t.child_frame_id] = t.transform;
    }
    void range(const sensor_msgs::Range::ConstPtr &m)
    {
        ranges[m->header.frame_id] = m->range;
        range_at[m->header.frame_id] = m->header.stamp.toSec();
    }
    /* Every range sensor heard so far has read again in a cycle after the
     * one whose odometry showed the robot at rest: its reading is from
     * where the robot stayed. */
    bool ranges_after_rest() const
    {
        if (range_at.empty())
            return false;
        for (const auto &r : range_at)
            if (r.second <= stopped_at)
                return false;
        return true;
    }
    void diag(const diagnostic_msgs::DiagnosticArray::ConstPtr &m)
    {
        for (const auto &s : m->status) {
            have_diag = true;
            values.clear();
            for (const auto &kv : s.values) {
                values[kv.key] = kv.value;
                if (kv.key == "online")
                    online = kv.value == "true" && s.level == s.OK;
            }
        }
    }
};

int watch(double seconds, double wall_x, double start_x, bool ranges, bool to_rest,
          double until_x = NAN)
{
    ros::NodeHandle nh;
    Watch w;
    w.until_x = until_x;
    ros::Subscriber so = nh.subscribe("odom", 100, &Watch::odom, &w);
    ros::Subscriber sc = nh.subscribe("cmd_vel", 100, &Watch::cmd, &w);
    ros::Subscriber st = nh.subscribe("/tf_static", 10, &Watch::statics, &w);
    ros::Subscriber sd = nh.subscribe("/diagnostics", 10, &Watch::diag, &w);
    std::vector<ros::Subscriber> rs;
    for (int i = 0; i < 32; i++)
        rs.push_back(nh.subscribe("range/" + std::to_string(i), 10, &Watch::range, &w));
    ros::WallTime end = ros::WallTime::now() + ros::WallDuration(seconds);
    /* A publisher that started late (a loaded machine) drives late: past
     * the window the watch goes on until the robot has come to rest after
     * the last cmd_vel, so the pose read is where the drive ended, not
     * where the window cut it; and, when ranges are watched, until every
     * range sensor has read again from there (a node the machine held back
     * publishes them late: the readings' stamps say when, not this clock). */
    ros::WallTime last = end + ros::WallDuration(10.0);
    auto at_rest = [&] {
        if (!to_rest)
            return true;
        if (w.last_cmd < 0 || w.stopped_at < 0)
            return false;
        if (ranges)
            return w.ranges_after_rest();
        return ros::WallTime::now().toSec() - w.stopped_at >= 0.1;
    };
    ros::WallRate rate(200.0);
    bool said = false;
    while (ros::ok() && (ros::WallTime::now() < end || (!at_rest() && ros::WallTime::now() < last))) {
        ros::spinOnce();
        if (w.have_odom && !said) {
            std::printf("watching\n");
            std::fflush(stdout);
            said = true;
        }
        if (w.have_odom && w.x >= w.until_x) /* (NAN: never) */
            break;
        rate.sleep();
    }
    std::printf("odom %.4f %.4f\n", w.x, w.v);
    std::printf("slowing_after %.3f\n", w.slowing_at > 0 ? w.slowing_at - w.last_cmd : -1.0);
    std::printf("stopped_after %.3f\n", w.stopped_at > 0 ? w.stopped_at - w.last_cmd : -1.0);
    std::printf("late_by %.3f\n", w.late_by());
    std::printf("cruise %.4f\n", w.cruise());
    double rest = w.first_zero > 0 ? w.rest_after(w.first_zero) : -1;
    if (rest > 0)
        std::printf("zero_to_rest %.3f %.3f\n", rest - w.first_zero,
                    held_back(w.stamps, w.usual_gap(), w.first_zero, rest));
    else
        std::printf("zero_to_rest -1 0\n");
    std::printf("online %d\n", w.online ? 1 : 0);
    if (ranges) {
        for (const auto &r : w.ranges) {
            auto m = w.mounts.find(r.first);
            if (m == w.mounts.end())
                continue;
            double yaw = yaw_of(m->second.rotation);
            if (std::fabs(yaw) > 30 * M_PI / 180)
                continue;
            /* the robot heads along +x from (start_x + x): the mount's
             * origin, then the ray along its yaw to the wall */
            double ox = start_x + w.x + m->second.translation.x;
            double want = (wall_x - ox) / std::cos(yaw);
            std::printf("range %s %.4f %.4f\n", r.first.c_str(), r.second, want);
        }
    }
    return w.have_odom ? 0 : 1;
}

int online(double timeout, bool want)
{
    ros::NodeHandle nh;
    Watch w;
    ros::Subscriber so = nh.subscribe("odom", 100, &Watch::odom, &w);
    ros::Subscriber sd = nh.subscribe("/diagnostics", 10, &Watch::diag, &w);
    ros::WallTime end = ros::WallTime::now() + ros::WallDuration(timeout);
    ros::WallRate rate(200.0);
    auto done = [&] { return w.have_diag && w.online == want && (!want || w.have_odom); };
    while (!done() && ros::WallTime::now() < end && ros::ok()) {
        ros::spinOnce();
        rate.sleep();
    }
    for (const auto &kv : w.values)
        std::printf("%s %s\n", kv.first.c_str(), kv.second.c_str());
    return done() ? 0 : 1;
}

/* The robot a frame or a diagnostics name belongs to: K of "robotK/..." or
 * "... /robotK: ...", 0 if none. */
size_t robot_of_frame(const std::string &frame)
{
    if (frame.compare(0, 5, "robot") != 0)
        return 0;
    size_t slash = frame.find('/');
    if (slash == std::string::npos || slash == 5)
        return 0;
    return std::strtoul(frame.substr(5, slash - 5).c_str(), nullptr, 10);
}

size_t robot_of_status(const std::string &name)
{
    size_t at = name.find(" /robot");
    return at == std::string::npos ? 0 : std::strtoul(name.c_str() + at + 7, nullptr, 10);
}

struct Fleet {
    size_t n;
    std::vector<int> count;
    std::vector<double> x, y;
    std::vector<double> last_stamp;          /* each robot's last odometry stamp */
    std::vector<std::vector<double>> gaps;   /* ...and the gaps between them */
    std::vector<bool> online, said, tree;
    int mixed = 0;

    explicit Fleet(size_t robots)
        : n(robots), count(robots + 1), x(robots + 1), y(robots + 1), last_stamp(robots + 1),
          gaps(robots + 1), online(robots + 1), said(robots + 1), tree(robots + 1)
    {
    }
    void odom(size_t k, const nav_msgs::Odometry::ConstPtr &m)
    {
        double at = m->header.stamp.toSec();
        if (count[k] > 0 && at > last_stamp[k]) /* (sent again with its stamp: no cycle) */
            gaps[k].push_back(at - last_stamp[k]);
        last_stamp[k] = at;
        count[k]++;
        x[k] = m->pose.pose.position.x;
        y[k] = m->pose.pose.position.y;
    }
    void tf(const tf2_msgs::TFMessage::ConstPtr &m)
    {
        for (const auto &t : m->transforms) {
            size_t a = robot_of_frame(t.header.frame_id), b = robot_of_frame(t.child_frame_id);
            if (a == 0 || a != b || a > n) {
                mixed++;
                continue;
            }
            if (t.header.frame_id == "robot" + std::to_string(a) + "/odom" &&
                t.child_frame_id == "robot" + std::to_string(a) + "/base_footprint")
                tree[a] = true;
        }
    }
    void diag(const diagnostic_msgs::DiagnosticArray::ConstPtr &m)
    {
        for (const auto &s : m->status) {
            size_t k = robot_of_status(s.name);
            if (k < 1 || k > n)
                continue;
            said[k] = true;
            online[k] = s.level == s.OK;
        }
    }
    bool all_online() const
    {
        for (size_t k = 1; k <= n; k++)
            if (!online[k] || count[k] == 0)
                return false;
        return true;
    }
};

int fleet(size_t n, double seconds, bool until_online, size_t offline_k = 0)
{
    ros::NodeHandle nh;
    Fleet f(n);
    std::vector<ros::Subscriber> subs;
    for (size_t k = 1; k <= n; k++)
        subs.push_back(nh.subscribe<nav_msgs::Odometry>(
            "/robot" + std::to_string(k) + "/odom", 100,
            [&f, k](const nav_msgs::Odometry::ConstPtr &m) { f.odom(k, m); }));
    ros::Subscriber st = nh.subscribe("/tf", 1000, &Fleet::tf, &f);
    ros::Subscriber sd = nh.subscribe("/diagnostics", 100, &Fleet::diag, &f);
    ros::WallTime start = ros::WallTime::now(), end = start + ros::WallDuration(seconds);
    /* Robot K's node says it has lost its link when its diagnostics come
     * round, and a link the machine held quiet past the driver's timeout
     * (a Kobuki's: 0.1 s) is offline until its next frame: the watch waits
     * for the state asked, not for a time that a loaded machine may not
     * have given it (30 s only catch a node that never gets there). */
    ros::WallTime last = end + ros::WallDuration(30.0);
    auto settled = [&] {
        for (size_t k = 1; k <= n; k++)
            if (!f.said[k] || f.online[k] == (k == offline_k))
                return false;
        return true;
    };
    auto waiting = [&] {
        ros::WallTime now = ros::WallTime::now();
        return now < end || (!until_online && !settled() && now < last);
    };
    ros::WallRate rate(500.0);
    while (waiting() && ros::ok() && !(until_online && f.all_online())) {
        ros::spinOnce();
        rate.sleep();
    }
    if (until_online) {
        for (size_t k = 1; k <= n; k++)
            if (!f.online[k] || f.count[k] == 0)
                std::printf("robot %zu: %s, %d odom\n", k,
                            f.said[k] ? (f.online[k] ? "online" : "offline") : "no diagnostics",
                            f.count[k]);
        return f.all_online() ? 0 : 1;
    }
    int trees = 0;
    for (size_t k = 1; k <= n; k++) {
        double usual = median_of(f.gaps[k]);
        std::printf("robot %zu hz %.1f x %.4f y %.4f online %d\n", k, usual > 0 ? 1 / usual : 0.0,
                    f.x[k], f.y[k], f.online[k] ? 1 : 0);
        trees += f.tree[k];
    }
    std::printf("trees %d mixed %d\n", trees, f.mixed);
    return 0;
}

int master(double timeout)
{
    ros::WallTime end = ros::WallTime::now() + ros::WallDuration(timeout);
    for (;;) {
        ros::V_string nodes;
        if (ros::master::check() && ros::master::getNodes(nodes))
            for (const auto &n : nodes)
                if (n == "/rosout")
                    return 0;
        if (ros::WallTime::now() >= end) /* (ros::ok() is false until a node starts) */
            break;
        ros::WallDuration(0.05).sleep();
    }
    std::fprintf(stderr, "master: no roscore at %s within %g s\n", ros::master::getURI().c_str(),
                 timeout);
    return 1;
}

} // namespace

int main(int argc, char **argv)
{
    ros::init(argc, argv, "ros_bridge_check", ros::init_options::AnonymousName);
    if (argc >= 5 && !std::strcmp(argv[1], "publish"))
        return publish(std::atof(argv[2]), std::atof(argv[3]), !std::strcmp(argv[4], "die"));
    if (argc >= 3 && !std::strcmp(argv[1], "watch")) {
        bool ranges = argc >= 5;
        return watch(std::atof(argv[2]), ranges ? std::atof(argv[3]) : 0,
                     ranges ? std::atof(argv[4]) : 0, ranges, true);
    }
    if (argc >= 3 && !std::strcmp(argv[1], "glance"))
        return watch(std::atof(argv[2]), 0, 0, false, false, argc >= 4 ? std::atof(argv[3]) : NAN);
    if (argc >= 3 && !std::strcmp(argv[1], "online"))
        return online(std::atof(argv[2]), argc < 4 || std::atoi(argv[3]) != 0);
    if (argc >= 3 && !std::strcmp(argv[1], "master"))
        return master(std::atof(argv[2]));
    if (argc >= 4 && !std::strcmp(argv[1], "fleet-online"))
        return fleet(std::strtoul(argv[2], nullptr, 10), std::atof(argv[3]), true);
    if (argc >= 4 && !std::strcmp(argv[1], "fleet-watch"))
        return fleet(std::strtoul(argv[2], nullptr, 10), std::atof(argv[3]), false,
                     argc >= 5 ? std::strtoul(argv[4], nullptr, 10) : 0);
    std::fprintf(stderr, "usage: ros_bridge_check publish V SECONDS zero|die | "
                         "watch SECONDS [WALL_X START_X] | glance SECONDS [UNTIL_X] | "
                         "online TIMEOUT [WANT] | master TIMEOUT | fleet-online N TIMEOUT | "
                         "fleet-watch N SECONDS [OFFLINE_K]\n");
    return 2;
}

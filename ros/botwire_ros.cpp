/*
 * botwire_ros: any botwire base as a ROS 1 node, through the base API alone.
 *
 * Subscribes cmd_vel (geometry_msgs/Twist) and drives; stops the robot when
 * no cmd_vel came within ~cmd_vel_timeout. Publishes odom (nav_msgs/Odometry)
 * and, with ~publish_tf, the transform odom -> base_footprint on /tf (REP 103
 * units and axes, REP 105 frames); each range sensor as sensor_msgs/Range on
 * range/N in its own frame (range_N, a static transform from its mount on
 * /tf_static); bumpers, cliffs and wheel drops as std_msgs/UInt32 bit masks
 * (bumper, cliff, wheel_drop: latched, on every change) and every event of
 * the base as a line on events (std_msgs/String); the battery as
 * sensor_msgs/BatteryState (its percentage, 0..1, and the charger's state
 * where the base reports them); the link's health on /diagnostics
 * (diagnostic_msgs/DiagnosticArray). dock and undock (std_msgs/Empty, as
 * create_robot names them) dock the base as `botwire dock` does (a Kobuki
 * by its dock's IR, a Create by its own Seek Dock) or back it off its dock;
 * a cmd_vel meanwhile takes over; how it went is logged. The base reopens
 * a port that comes back by itself; the robot is stopped on shutdown.
 *
 * Parameters (private): url (sim:kobuki), cmd_vel_timeout (0.6 s),
 * publish_tf (true), odom_frame (odom), base_frame (base_footprint),
 * range_frame_prefix (range_), frame_prefix (""), rate (50 Hz),
 * diagnostic_period (1 s).
 *
 * Fleets: every topic but /tf, /tf_static and /diagnostics is relative, so
 * a node started in a namespace (roslaunch's ns, __ns:=robot1) has
 * /robot1/odom, /robot1/cmd_vel, ...; ~frame_prefix ("robot1/"), or the
 * older ~tf_prefix convention ("robot1", a '/' added), or else the
 * namespace itself ("robot1/"), goes before every frame it names, so each
 * robot's tf tree stays its own. Its diagnostics
 * status is named with the namespace.
 */
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include <diagnostic_msgs/DiagnosticArray.h>
#include <geometry_msgs/Twist.h>
#include <nav_msgs/Odometry.h>
#include <ros/ros.h>
#include <sensor_msgs/BatteryState.h>
#include <sensor_msgs/Range.h>
#include <std_msgs/Empty.h>
#include <std_msgs/String.h>
#include <std_msgs/UInt32.h>
#include <tf2_msgs/TFMessage.h>

#include "botwire/botwire.h"

namespace {

double wall_now() { return ros::WallTime::now().toSec(); }

geometry_msgs::Quaternion yaw_quaternion(double yaw)
{
    geometry_msgs::Quaternion q;
    q.x = 0;
    q.y = 0;
    q.z = std::sin(yaw / 2);
    q.w = std::cos(yaw / 2);
    return q;
}

diagnostic_msgs::KeyValue kv(const std::string &key, const std::string &value)
{
    diagnostic_msgs::KeyValue k;
    k.key = key;
    k.value = value;
    return k;
}

std::string u64(uint64_t v) { return std::to_string(static_cast<unsigned long long>(v)); }

class Bridge {
  public:
    explicit Bridge(ros::NodeHandle &nh, ros::NodeHandle &pnh) : nh_(nh)
    {
        pnh.param<std::string>("url", url_, "sim:kobuki");
        pnh.param("cmd_vel_timeout", cmd_vel_timeout_, 0.6);
        pnh.param("publish_tf", publish_tf_, true);
        pnh.param<std::string>("odom_frame", odom_frame_, "odom");
        pnh.param<std::string>("base_frame", base_frame_, "base_footprint");
        pnh.param<std::string>("range_frame_prefix", range_prefix_, "range_");
        /* ~frame_prefix as given (an empty one: no prefix); else the older
         * ~tf_prefix; else the node's own namespace, as the launch file
         * does: a node started in /robot1 by rosrun (__ns:=robot1) names
         * robot1/odom, not another robot's odom. */
        std::string prefix, tf_prefix;
        if (!pnh.getParam("frame_prefix", prefix)) {
            if (pnh.getParam("tf_prefix", tf_prefix) && !tf_prefix.empty()) {
                prefix = tf_prefix + "/";
            } else {
                std::string ns = ros::this_node::getNamespace();
                while (!ns.empty() && ns[0] == '/')
                    ns.erase(0, 1);
                prefix = ns.empty() ? "" : ns + "/";
            }
        }
        while (!prefix.empty() && prefix[0] == '/') /* tf2 frame ids have no leading '/' */
            prefix.erase(0, 1);
        odom_frame_ = prefix + odom_frame_;
        base_frame_ = prefix + base_frame_;
        range_prefix_ = prefix + range_prefix_;
        pnh.param("rate", rate_, 50.0);
        pnh.param("diagnostic_period", diag_period_, 1.0);
        if (!(rate_ > 0 && rate_ <= 1000))
            rate_ = 50;
        if (!(cmd_vel_timeout_ > 0))
            cmd_vel_timeout_ = 0.6;
    }

    bool open()
    {
        char err[256];
        bw_base_options_t opt;
        std::memset(&opt, 0, sizeof opt);
        opt.command_timeout = cmd_vel_timeout_; /* the base's own supervision, as a second line */
        if (bw_base_open(&base_, url_.c_str(), &opt, wall_now(), err, sizeof err) < 0) {
            ROS_FATAL("botwire_ros: %s", err);
            return false;
        }
        ROS_INFO("botwire_ros: %s (%s)", url_.c_str(), bw_base_family(base_));
        odom_pub_ = nh_.advertise<nav_msgs::Odometry>("odom", 10);
        tf_pub_ = nh_.advertise<tf2_msgs::TFMessage>("/tf", 10);
        tf_static_pub_ = nh_.advertise<tf2_msgs::TFMessage>("/tf_static", 1, true);
        bumper_pub_ = nh_.advertise<std_msgs::UInt32>("bumper", 1, true);
        cliff_pub_ = nh_.advertise<std_msgs::UInt32>("cliff", 1, true);
        drop_pub_ = nh_.advertise<std_msgs::UInt32>("wheel_drop", 1, true);
        event_pub_ = nh_.advertise<std_msgs::String>("events", 50);
        battery_pub_ = nh_.advertise<sensor_msgs::BatteryState>("battery", 1);
        diag_pub_ = nh_.advertise<diagnostic_msgs::DiagnosticArray>("/diagnostics", 10);
        cmd_sub_ = nh_.subscribe("cmd_vel", 10, &Bridge::on_cmd_vel, this);
        dock_sub_ = nh_.subscribe("dock", 1, &Bridge::on_dock, this);
        undock_sub_ = nh_.subscribe("undock", 1, &Bridge::on_undock, this);
        return true;
    }

    void run()
    {
        ros::WallRate rate(rate_);
        while (ros::ok()) {
            ros::spinOnce();
            step(wall_now());
            rate.sleep();
        }
    }

    void close()
    {
        /* what it published since its first message, for `botwire bench
         * --ros2` beside the ROS 2 node
         * (a plain line: ROS's logging has shut down with the node) */
        std::printf("botwire_ros: %llu messages published in %.1f s\n", published_,
                    published_ ? wall_now() - started_ : 0.0);
        if (docking_) {
            bw_docking_run_free(docking_);
            docking_ = nullptr;
        }
        if (base_) {
            bw_base_close(base_, wall_now()); /* stops the robot */
            base_ = nullptr;
        }
    }

  private:
    template <class M> void send(ros::Publisher &pub, const M &m)
    {
        pub.publish(m);
        if (published_++ == 0)
            started_ = wall_now();
    }

    void on_cmd_vel(const geometry_msgs::Twist::ConstPtr &msg)
    {
        if (!std::isfinite(msg->linear.x) || !std::isfinite(msg->angular.z)) {
            ROS_WARN_THROTTLE(5, "botwire_ros: cmd_vel with a non-finite value ignored");
            return;
        }
        v_ = msg->linear.x;
        w_ = msg->angular.z;
        last_cmd_ = wall_now();
        have_cmd_ = true;
        if (docking_) { /* someone drives: the docking gives way */
            ROS_INFO("botwire_ros: %s: given up: a cmd_vel came", undocking_ ? "undock" : "dock");
            bw_docking_run_free(docking_);
            docking_ = nullptr;
        }
    }

    void on_dock(const std_msgs::Empty::ConstPtr &) { start_docking(false); }
    void on_undock(const std_msgs::Empty::ConstPtr &) { start_docking(true); }

    void start_docking(bool undock)
    {
        const char *what = undock ? "undock" : "dock";
        if (!(bw_base_caps(base_) & (BW_CAP_DOCK_IR | BW_CAP_SEEK_DOCK))) {
            ROS_WARN("botwire_ros: %s: a %s base reports no dock botwire can find it by; not moved",
                     what, bw_base_family(base_));
            return;
        }
        if (docking_)
            bw_docking_run_free(docking_);
        docking_ = bw_docking_run_new(base_, dock_limit_, undock, wall_now());
        if (!docking_) {
            ROS_ERROR("botwire_ros: %s: out of memory", what);
            return;
        }
        undocking_ = undock;
        have_cmd_ = false; /* the docking drives now */
        ROS_INFO("botwire_ros: %s: begun", what);
    }

    void step(double now)
    {
        if (docking_) {
            int rc = bw_docking_run_tick(docking_, now);
            if (rc != 0) {
                if (rc > 0)
                    ROS_INFO("botwire_ros: %s: done: %s", undocking_ ? "undock" : "dock",
                             bw_docking_run_why(docking_));
                else
                    ROS_WARN("botwire_ros: %s: failed: %s", undocking_ ? "undock" : "dock",
                             bw_docking_run_why(docking_));
                bw_docking_run_free(docking_);
                docking_ = nullptr;
            }
            driving_ = false; /* the docking stopped the robot at its end, or left it docked */
        } else if (have_cmd_ && now - last_cmd_ <= cmd_vel_timeout_) {
            bw_base_drive(base_, v_, w_, now);
            driving_ = true;
        } else if (driving_) {
            bw_base_stop(base_, now); /* cmd_vel fell silent */
            driving_ = false;
            ROS_INFO("botwire_ros: no cmd_vel for %.2f s: stopped", cmd_vel_timeout_);
        }
        bw_base_poll(base_, now);
        const bw_base_state_t *st = bw_base_state(base_);
        ros::Time stamp = ros::Time::now();
        if (st->t != last_state_t_) {
            last_state_t_ = st->t;
            publish_odom(st, stamp);
        }
        publish_ranges(st, stamp);
        publish_events(st);
        if (now - last_diag_ >= diag_period_) {
            last_diag_ = now;
            publish_battery(st, stamp);
            publish_diagnostics(st, stamp);
        }
    }

    void publish_odom(const bw_base_state_t *st, const ros::Time &stamp)
    {
        nav_msgs::Odometry o;
        o.header.stamp = stamp;
        o.header.frame_id = odom_frame_;
        o.child_frame_id = base_frame_;
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
        send(odom_pub_, o);
        if (publish_tf_) {
            geometry_msgs::TransformStamped t;
            t.header = o.header;
            t.child_frame_id = base_frame_;
            t.transform.translation.x = st->pose.x;
            t.transform.translation.y = st->pose.y;
            t.transform.rotation = o.pose.pose.orientation;
            tf2_msgs::TFMessage m;
            m.transforms.push_back(t);
            send(tf_pub_, m);
        }
    }

    void publish_ranges(const bw_base_state_t *st, const ros::Time &stamp)
    {
        if (st->nranges != range_pubs_.size()) { /* known once the model is */
            range_pubs_.clear();
            range_t_.assign(st->nranges, 0.0);
            tf2_msgs::TFMessage statics;
            for (unsigned i = 0; i < st->nranges; i++) {
                range_pubs_.push_back(
                    nh_.advertise<sensor_msgs::Range>("range/" + std::to_string(i), 10));
                geometry_msgs::TransformStamped t;
                t.header.stamp = stamp;
                t.header.frame_id = base_frame_;
                t.child_frame_id = range_prefix_ + std::to_string(i);
                t.transform.translation.x = st->ranges[i].mount.x;
                t.transform.translation.y = st->ranges[i].mount.y;
                t.transform.rotation = yaw_quaternion(st->ranges[i].mount.theta);
                statics.transforms.push_back(t);
            }
            send(tf_static_pub_, statics);
        }
        for (unsigned i = 0; i < st->nranges; i++) {
            const bw_range_t &r = st->ranges[i];
            if (r.t == 0 || r.t == range_t_[i])
                continue;
            range_t_[i] = r.t;
            sensor_msgs::Range m;
            m.header.stamp = stamp;
            m.header.frame_id = range_prefix_ + std::to_string(i);
            bool ir = r.kind == BW_RANGE_IR;
            m.radiation_type = ir ? sensor_msgs::Range::INFRARED : sensor_msgs::Range::ULTRASOUND;
            /* a Polaroid transducer's cone; an IR proximity sensor's narrow beam */
            m.field_of_view = static_cast<float>((ir ? 5.0 : 15.0) * M_PI / 180);
            m.min_range = 0.0f;
            m.max_range = static_cast<float>(r.max_range);
            /* REP 117: nothing seen within max_range is +Inf */
            m.range = r.range >= r.max_range ? std::numeric_limits<float>::infinity()
                                             : static_cast<float>(r.range);
            send(range_pubs_[i], m);
        }
    }

    void publish_mask(ros::Publisher &pub, uint32_t mask, uint32_t &last, bool &sent)
    {
        if (sent && mask == last)
            return;
        std_msgs::UInt32 m;
        m.data = mask;
        send(pub, m);
        last = mask;
        sent = true;
    }

    void publish_events(const bw_base_state_t *st)
    {
        uint32_t caps = bw_base_caps(base_);
        if (caps & BW_CAP_BUMPERS)
            publish_mask(bumper_pub_, st->bumpers, last_bumpers_, sent_bumpers_);
        if (caps & BW_CAP_CLIFFS)
            publish_mask(cliff_pub_, st->cliffs, last_cliffs_, sent_cliffs_);
        if (caps & BW_CAP_WHEEL_DROPS)
            publish_mask(drop_pub_, st->wheel_drops, last_drops_, sent_drops_);
        bw_event_t ev;
        while (bw_base_next_event(base_, &ev) > 0) {
            char line[160];
            if (ev.type == BW_EV_ONLINE || ev.type == BW_EV_OFFLINE) /* the link's: its name */
                std::snprintf(line, sizeof line, "%s", bw_event_name(ev.type));
            else
                std::snprintf(line, sizeof line, "%s %s mask 0x%x", bw_event_name(ev.type),
                              ev.on ? "on" : "off", ev.mask);
            std_msgs::String m;
            m.data = line;
            send(event_pub_, m);
            if (ev.type == BW_EV_OFFLINE)
                ROS_WARN("botwire_ros: %s offline", url_.c_str());
            else if (ev.type == BW_EV_ONLINE)
                ROS_INFO("botwire_ros: %s online", url_.c_str());
        }
    }

    void publish_battery(const bw_base_state_t *st, const ros::Time &stamp)
    {
        if (!(bw_base_caps(base_) & BW_CAP_BATTERY))
            return;
        sensor_msgs::BatteryState b;
        b.header.stamp = stamp;
        b.voltage = static_cast<float>(st->battery);
        const float nan = std::numeric_limits<float>::quiet_NaN();
        b.current = st->battery_current != 0 ? static_cast<float>(st->battery_current) : nan;
        b.charge = st->battery_charge != 0 ? static_cast<float>(st->battery_charge) : nan;
        b.capacity = st->battery_capacity != 0 ? static_cast<float>(st->battery_capacity) : nan;
        b.design_capacity = nan;
        b.percentage = st->battery_fraction > 0 ? static_cast<float>(st->battery_fraction) : nan;
        b.temperature = st->battery_temp != 0 ? static_cast<float>(st->battery_temp) : nan;
        switch (st->charging) {
        case BW_CHARGE_DISCHARGING: b.power_supply_status = b.POWER_SUPPLY_STATUS_DISCHARGING; break;
        case BW_CHARGE_CHARGING: b.power_supply_status = b.POWER_SUPPLY_STATUS_CHARGING; break;
        case BW_CHARGE_CHARGED: b.power_supply_status = b.POWER_SUPPLY_STATUS_FULL; break;
        default: b.power_supply_status = b.POWER_SUPPLY_STATUS_UNKNOWN; break;
        }
        b.present = st->battery > 0;
        send(battery_pub_, b);
    }

    void publish_diagnostics(const bw_base_state_t *st, const ros::Time &stamp)
    {
        diagnostic_msgs::DiagnosticStatus s;
        const std::string &ns = ros::this_node::getNamespace();
        s.name = std::string("botwire_ros") + (ns == "/" || ns.empty() ? "" : " " + ns) + ": " +
                 bw_base_family(base_) + " base";
        s.hardware_id = url_;
        s.level = st->online ? s.OK : s.ERROR;
        s.message = st->online ? "online" : "offline";
        if (st->online && st->faults) {
            s.level = s.WARN;
            s.message = "online, faults reported";
        }
        s.values.push_back(kv("online", st->online ? "true" : "false"));
        s.values.push_back(kv("frames", u64(st->link.frames)));
        s.values.push_back(kv("checksum_errors", u64(st->link.checksum_errors)));
        s.values.push_back(kv("length_errors", u64(st->link.length_errors)));
        s.values.push_back(kv("skipped_bytes", u64(st->link.skipped_bytes)));
        s.values.push_back(kv("reconnects", u64(st->reconnects)));
        s.values.push_back(kv("events_dropped", u64(st->events_dropped)));
        s.values.push_back(kv("faults", u64(st->faults)));
        s.values.push_back(kv("mode", st->mode));
        s.values.push_back(kv("firmware", st->firmware));
        s.values.push_back(kv("hardware", st->hardware));
        diagnostic_msgs::DiagnosticArray a;
        a.header.stamp = stamp;
        a.status.push_back(s);
        send(diag_pub_, a);
    }

    ros::NodeHandle &nh_;
    std::string url_, odom_frame_, base_frame_, range_prefix_;
    double cmd_vel_timeout_ = 0.6, rate_ = 50, diag_period_ = 1;
    bool publish_tf_ = true;
    bw_base_t *base_ = nullptr;
    ros::Publisher odom_pub_, tf_pub_, tf_static_pub_, bumper_pub_, cliff_pub_, drop_pub_,
        event_pub_, battery_pub_, diag_pub_;
    std::vector<ros::Publisher> range_pubs_;
    std::vector<double> range_t_;
    ros::Subscriber cmd_sub_, dock_sub_, undock_sub_;
    double v_ = 0, w_ = 0, last_cmd_ = 0, last_state_t_ = -1, last_diag_ = -1e9;
    bool have_cmd_ = false, driving_ = false;
    bw_docking_run_t *docking_ = nullptr; /* a dock or undock under way */
    bool undocking_ = false;
    double dock_limit_ = 300; /* s a dock or undock may take */
    unsigned long long published_ = 0;
    double started_ = 0; /* the first message's time */
    uint32_t last_bumpers_ = 0, last_cliffs_ = 0, last_drops_ = 0;
    bool sent_bumpers_ = false, sent_cliffs_ = false, sent_drops_ = false;
};

} // namespace

int main(int argc, char **argv)
{
    /* exit() and SIGTERM stop the robot; ROS then takes SIGINT over for a
     * clean shutdown, which closes the base (and so stops it) itself. */
    bw_base_stop_on_exit();
    /* a line at a time, also into a pipe or a file (a launcher's log) */
    std::setvbuf(stdout, nullptr, _IOLBF, 0);
    ros::init(argc, argv, "botwire_ros");
    ros::NodeHandle nh, pnh("~");
    Bridge bridge(nh, pnh);
    if (!bridge.open())
        return 1;
    bridge.run();
    bridge.close();
    return 0;
}

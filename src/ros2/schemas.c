/* The ros2msg schemas of the types the ROS 2 node publishes (botwire/ros2.h):
 * each type's .msg fields as the ROS 2 message definitions have them
 * (common_interfaces, geometry2, rcl_interfaces' builtin_interfaces; the
 * comments left out), its dependencies after it in the form rosbag2 writes
 * into MCAP (docs/message_definition_encoding.md of ros2/rosbag2): a line
 * of 80 '=', then "MSG: pkg/Type". The fields are the IDL's of
 * src/ros2/idl, in the same order: a reader decodes our CDR with them. */
#include <stdio.h>
#include <string.h>

#include "botwire/ros2.h"

#define SEP "================================================================================\n"

#define TIME "MSG: builtin_interfaces/Time\nint32 sec\nuint32 nanosec\n"
#define HEADER "MSG: std_msgs/Header\nbuiltin_interfaces/Time stamp\nstring frame_id\n"
#define VECTOR3 "MSG: geometry_msgs/Vector3\nfloat64 x\nfloat64 y\nfloat64 z\n"
#define POINT "MSG: geometry_msgs/Point\nfloat64 x\nfloat64 y\nfloat64 z\n"
#define QUATERNION                                                                            \
    "MSG: geometry_msgs/Quaternion\nfloat64 x 0\nfloat64 y 0\nfloat64 z 0\nfloat64 w 1\n"
#define TRANSFORM                                                                             \
    "MSG: geometry_msgs/Transform\ngeometry_msgs/Vector3 translation\n"                       \
    "geometry_msgs/Quaternion rotation\n"
#define TRANSFORM_STAMPED                                                                     \
    "MSG: geometry_msgs/TransformStamped\nstd_msgs/Header header\nstring child_frame_id\n" \
    "geometry_msgs/Transform transform\n"

static const char odometry[] =
    "std_msgs/Header header\n"
    "string child_frame_id\n"
    "geometry_msgs/PoseWithCovariance pose\n"
    "geometry_msgs/TwistWithCovariance twist\n" SEP HEADER SEP TIME SEP
    "MSG: geometry_msgs/PoseWithCovariance\ngeometry_msgs/Pose pose\nfloat64[36] covariance\n" SEP
    "MSG: geometry_msgs/Pose\ngeometry_msgs/Point position\ngeometry_msgs/Quaternion orientation\n" SEP POINT SEP
    QUATERNION SEP
    "MSG: geometry_msgs/TwistWithCovariance\ngeometry_msgs/Twist twist\nfloat64[36] covariance\n" SEP
    "MSG: geometry_msgs/Twist\ngeometry_msgs/Vector3 linear\ngeometry_msgs/Vector3 angular\n" SEP VECTOR3;

static const char tf_message[] =
    "geometry_msgs/TransformStamped[] transforms\n" SEP TRANSFORM_STAMPED SEP HEADER SEP TIME SEP
    TRANSFORM SEP VECTOR3 SEP QUATERNION;

#define RANGE_FIELDS                                                                          \
    "uint8 ULTRASOUND=0\n"                                                                    \
    "uint8 INFRARED=1\n"                                                                      \
    "std_msgs/Header header\n"                                                                \
    "uint8 radiation_type\n"                                                                  \
    "float32 field_of_view\n"                                                                 \
    "float32 min_range\n"                                                                     \
    "float32 max_range\n"                                                                     \
    "float32 range\n"

static const char range_jazzy[] = RANGE_FIELDS "float32 variance\n" SEP HEADER SEP TIME;
static const char range_humble[] = RANGE_FIELDS SEP HEADER SEP TIME;

static const char battery_state[] =
    "uint8 POWER_SUPPLY_STATUS_UNKNOWN = 0\n"
    "uint8 POWER_SUPPLY_STATUS_CHARGING = 1\n"
    "uint8 POWER_SUPPLY_STATUS_DISCHARGING = 2\n"
    "uint8 POWER_SUPPLY_STATUS_NOT_CHARGING = 3\n"
    "uint8 POWER_SUPPLY_STATUS_FULL = 4\n"
    "uint8 POWER_SUPPLY_HEALTH_UNKNOWN = 0\n"
    "uint8 POWER_SUPPLY_HEALTH_GOOD = 1\n"
    "uint8 POWER_SUPPLY_HEALTH_OVERHEAT = 2\n"
    "uint8 POWER_SUPPLY_HEALTH_DEAD = 3\n"
    "uint8 POWER_SUPPLY_HEALTH_OVERVOLTAGE = 4\n"
    "uint8 POWER_SUPPLY_HEALTH_UNSPEC_FAILURE = 5\n"
    "uint8 POWER_SUPPLY_HEALTH_COLD = 6\n"
    "uint8 POWER_SUPPLY_HEALTH_WATCHDOG_TIMER_EXPIRE = 7\n"
    "uint8 POWER_SUPPLY_HEALTH_SAFETY_TIMER_EXPIRE = 8\n"
    "uint8 POWER_SUPPLY_TECHNOLOGY_UNKNOWN = 0\n"
    "uint8 POWER_SUPPLY_TECHNOLOGY_NIMH = 1\n"
    "uint8 POWER_SUPPLY_TECHNOLOGY_LION = 2\n"
    "uint8 POWER_SUPPLY_TECHNOLOGY_LIPO = 3\n"
    "uint8 POWER_SUPPLY_TECHNOLOGY_LIFE = 4\n"
    "uint8 POWER_SUPPLY_TECHNOLOGY_NICD = 5\n"
    "uint8 POWER_SUPPLY_TECHNOLOGY_LIMN = 6\n"
    "std_msgs/Header  header\n"
    "float32 voltage\n"
    "float32 temperature\n"
    "float32 current\n"
    "float32 charge\n"
    "float32 capacity\n"
    "float32 design_capacity\n"
    "float32 percentage\n"
    "uint8   power_supply_status\n"
    "uint8   power_supply_health\n"
    "uint8   power_supply_technology\n"
    "bool    present\n"
    "float32[] cell_voltage\n"
    "float32[] cell_temperature\n"
    "string location\n"
    "string serial_number\n" SEP HEADER SEP TIME;

static const char diagnostic_array[] =
    "std_msgs/Header header\n"
    "diagnostic_msgs/DiagnosticStatus[] status\n" SEP HEADER SEP TIME SEP
    "MSG: diagnostic_msgs/DiagnosticStatus\n"
    "byte OK=0\n"
    "byte WARN=1\n"
    "byte ERROR=2\n"
    "byte STALE=3\n"
    "byte level\n"
    "string name\n"
    "string message\n"
    "string hardware_id\n"
    "diagnostic_msgs/KeyValue[] values\n" SEP
    "MSG: diagnostic_msgs/KeyValue\nstring key\nstring value\n";

static const char imu[] =
    "std_msgs/Header header\n"
    "geometry_msgs/Quaternion orientation\n"
    "float64[9] orientation_covariance\n"
    "geometry_msgs/Vector3 angular_velocity\n"
    "float64[9] angular_velocity_covariance\n"
    "geometry_msgs/Vector3 linear_acceleration\n"
    "float64[9] linear_acceleration_covariance\n" SEP HEADER SEP TIME SEP QUATERNION SEP VECTOR3;

static const char joint_state[] =
    "std_msgs/Header header\n"
    "string[] name\n"
    "float64[] position\n"
    "float64[] velocity\n"
    "float64[] effort\n" SEP HEADER SEP TIME;

static const char log_msg[] =
    "byte DEBUG=10\nbyte INFO=20\nbyte WARN=30\nbyte ERROR=40\nbyte FATAL=50\n"
    "builtin_interfaces/Time stamp\n"
    "uint8 level\n"
    "string name\n"
    "string msg\n"
    "string file\n"
    "string function\n"
    "uint32 line\n" SEP TIME;

/* rcl_interfaces' ParameterEvent, Parameter and ParameterValue (the
 * constants of a type are ParameterType's, a message of its own). */
static const char parameter_event[] =
    "builtin_interfaces/Time stamp\n"
    "string node\n"
    "Parameter[] new_parameters\n"
    "Parameter[] changed_parameters\n"
    "Parameter[] deleted_parameters\n" SEP TIME SEP
    "MSG: rcl_interfaces/Parameter\n"
    "string name\n"
    "ParameterValue value\n" SEP
    "MSG: rcl_interfaces/ParameterValue\n"
    "uint8 type\n"
    "bool bool_value\n"
    "int64 integer_value\n"
    "float64 double_value\n"
    "string string_value\n"
    "byte[] byte_array_value\n"
    "bool[] bool_array_value\n"
    "int64[] integer_array_value\n"
    "float64[] double_array_value\n"
    "string[] string_array_value\n";

#define TWIST "MSG: geometry_msgs/Twist\ngeometry_msgs/Vector3 linear\ngeometry_msgs/Vector3 angular\n"
static const char twist[] = "geometry_msgs/Vector3 linear\ngeometry_msgs/Vector3 angular\n" SEP VECTOR3;
static const char twist_stamped[] =
    "std_msgs/Header header\ngeometry_msgs/Twist twist\n" SEP HEADER SEP TIME SEP TWIST SEP VECTOR3;
static const char empty_msg[] = "";

static const char uint32_msg[] = "uint32 data\n";
static const char string_msg[] = "string data\n";

const char *bw_ros2_schema(const char *type, bw_ros2_distro_t distro)
{
    static const struct {
        const char *type, *text;
    } known[] = {
        { "nav_msgs/msg/Odometry", odometry },
        { "tf2_msgs/msg/TFMessage", tf_message },
        { "sensor_msgs/msg/BatteryState", battery_state },
        { "diagnostic_msgs/msg/DiagnosticArray", diagnostic_array },
        { "std_msgs/msg/UInt32", uint32_msg },
        { "std_msgs/msg/String", string_msg },
        { "sensor_msgs/msg/Imu", imu },
        { "sensor_msgs/msg/JointState", joint_state },
        { "rcl_interfaces/msg/Log", log_msg },
        { "rcl_interfaces/msg/ParameterEvent", parameter_event },
        { "geometry_msgs/msg/Twist", twist },
        { "geometry_msgs/msg/TwistStamped", twist_stamped },
        { "std_msgs/msg/Empty", empty_msg },
    };
    if (!strcmp(type, "sensor_msgs/msg/Range"))
        return distro == BW_ROS2_HUMBLE ? range_humble : range_jazzy;
    for (size_t i = 0; i < sizeof known / sizeof known[0]; i++)
        if (!strcmp(type, known[i].type))
            return known[i].text;
    return NULL;
}

/* ---- the releases: names, and what cmd_vel carries in each ---------------- */

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

const char *bw_ros2_distro_id(bw_ros2_distro_t distro)
{
    return (unsigned)distro < sizeof distro_names / sizeof distro_names[0] ? distro_names[distro] : "?";
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

int bw_ros2_qos_yaml(bw_ros2_qos_t qos, int depth, char *buf, size_t cap)
{
    /* rmw's enums: history 1 keep last; reliability 1 reliable, 2 best
     * effort; durability 1 transient local, 2 volatile; liveliness 1
     * automatic; an infinite duration as rosbag2 writes it */
    static const char infinite[] = "\n    sec: 9223372036\n    nsec: 854775807";
    int n = snprintf(buf, cap,
                     "- history: 1\n  depth: %d\n  reliability: %d\n  durability: %d\n"
                     "  deadline:%s\n  lifespan:%s\n  liveliness: 1\n"
                     "  liveliness_lease_duration:%s\n  avoid_ros_namespace_conventions: false\n",
                     depth, qos == BW_ROS2_QOS_SENSOR ? 2 : 1, qos == BW_ROS2_QOS_LATCHED ? 1 : 2,
                     infinite, infinite, infinite);
    return n < 0 || (size_t)n >= cap ? -1 : n;
}

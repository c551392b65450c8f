#!/usr/bin/env python3
"""RIHS01 type hashes (REP 2011), computed here from the ROS 2 message
definitions below, apart from the node's code: what the tests hold the
node's USER_DATA and records' topic_type_hash against.

A type's hash is the SHA-256 of its type description (its fields, each with
a type id, capacity, string capacity and nested type name, and every type
it refers to, sorted by name) written as JSON with ', ' and ': ' between
items, default values left out. The definitions are ROS 2's own .msg and
.srv files of common_interfaces, geometry2, rcl_interfaces and
rmw_dds_common (Jazzy), constants and comments left out, as they do not
enter the hash.

usage: rihs01.py TYPE...     (e.g. geometry_msgs/msg/Twist)
       rihs01.py --check     the hashes ROS 2 publishes, recomputed
"""
import hashlib
import json
import re
import sys

MSGS = {
    "builtin_interfaces/msg/Time": "int32 sec\nuint32 nanosec",
    "std_msgs/msg/Header": "builtin_interfaces/Time stamp\nstring frame_id",
    "std_msgs/msg/Empty": "",
    # botwire's own: a record's wire channels (docs/record-format.md)
    "botwire_msgs/msg/Wire": "uint8[] data",
    "std_msgs/msg/String": "string data",
    "std_msgs/msg/UInt32": "uint32 data",
    "geometry_msgs/msg/Vector3": "float64 x\nfloat64 y\nfloat64 z",
    "geometry_msgs/msg/Point": "float64 x\nfloat64 y\nfloat64 z",
    "geometry_msgs/msg/Quaternion": "float64 x\nfloat64 y\nfloat64 z\nfloat64 w",
    "geometry_msgs/msg/Pose": "Point position\nQuaternion orientation",
    "geometry_msgs/msg/PoseWithCovariance": "Pose pose\nfloat64[36] covariance",
    "geometry_msgs/msg/Twist": "Vector3 linear\nVector3 angular",
    "geometry_msgs/msg/TwistStamped": "std_msgs/Header header\nTwist twist",
    "geometry_msgs/msg/TwistWithCovariance": "Twist twist\nfloat64[36] covariance",
    "geometry_msgs/msg/Transform": "Vector3 translation\nQuaternion rotation",
    "geometry_msgs/msg/TransformStamped":
        "std_msgs/Header header\nstring child_frame_id\nTransform transform",
    "nav_msgs/msg/Odometry":
        "std_msgs/Header header\nstring child_frame_id\n"
        "geometry_msgs/PoseWithCovariance pose\ngeometry_msgs/TwistWithCovariance twist",
    "tf2_msgs/msg/TFMessage": "geometry_msgs/TransformStamped[] transforms",
    "sensor_msgs/msg/Range":
        "std_msgs/Header header\nuint8 radiation_type\nfloat32 field_of_view\n"
        "float32 min_range\nfloat32 max_range\nfloat32 range\nfloat32 variance",
    "sensor_msgs/msg/BatteryState":
        "std_msgs/Header header\nfloat32 voltage\nfloat32 temperature\nfloat32 current\n"
        "float32 charge\nfloat32 capacity\nfloat32 design_capacity\nfloat32 percentage\n"
        "uint8 power_supply_status\nuint8 power_supply_health\nuint8 power_supply_technology\n"
        "bool present\nfloat32[] cell_voltage\nfloat32[] cell_temperature\nstring location\n"
        "string serial_number",
    "sensor_msgs/msg/Imu":
        "std_msgs/Header header\ngeometry_msgs/Quaternion orientation\n"
        "float64[9] orientation_covariance\ngeometry_msgs/Vector3 angular_velocity\n"
        "float64[9] angular_velocity_covariance\ngeometry_msgs/Vector3 linear_acceleration\n"
        "float64[9] linear_acceleration_covariance",
    "sensor_msgs/msg/JointState":
        "std_msgs/Header header\nstring[] name\nfloat64[] position\nfloat64[] velocity\n"
        "float64[] effort",
    "diagnostic_msgs/msg/KeyValue": "string key\nstring value",
    "diagnostic_msgs/msg/DiagnosticStatus":
        "byte level\nstring name\nstring message\nstring hardware_id\nKeyValue[] values",
    "diagnostic_msgs/msg/DiagnosticArray": "std_msgs/Header header\nDiagnosticStatus[] status",
    "rmw_dds_common/msg/Gid": "uint8[16] data",
    "rmw_dds_common/msg/NodeEntitiesInfo":
        "string<=256 node_namespace\nstring<=256 node_name\nGid[] reader_gid_seq\n"
        "Gid[] writer_gid_seq",
    "rmw_dds_common/msg/ParticipantEntitiesInfo":
        "Gid gid\nNodeEntitiesInfo[] node_entities_info_seq",
    "rcl_interfaces/msg/Log":
        "builtin_interfaces/Time stamp\nuint8 level\nstring name\nstring msg\nstring file\n"
        "string function\nuint32 line",
    "rcl_interfaces/msg/ParameterValue":
        "uint8 type\nbool bool_value\nint64 integer_value\nfloat64 double_value\n"
        "string string_value\nbyte[] byte_array_value\nbool[] bool_array_value\n"
        "int64[] integer_array_value\nfloat64[] double_array_value\nstring[] string_array_value",
    "rcl_interfaces/msg/Parameter": "string name\nParameterValue value",
    "rcl_interfaces/msg/ParameterEvent":
        "builtin_interfaces/Time stamp\nstring node\nParameter[] new_parameters\n"
        "Parameter[] changed_parameters\nParameter[] deleted_parameters",
    "rcl_interfaces/msg/FloatingPointRange": "float64 from_value\nfloat64 to_value\nfloat64 step",
    "rcl_interfaces/msg/IntegerRange": "int64 from_value\nint64 to_value\nuint64 step",
    "rcl_interfaces/msg/ParameterDescriptor":
        "string name\nuint8 type\nstring description\nstring additional_constraints\n"
        "bool read_only\nbool dynamic_typing\nFloatingPointRange[<=1] floating_point_range\n"
        "IntegerRange[<=1] integer_range",
    "rcl_interfaces/msg/SetParametersResult": "bool successful\nstring reason",
    "rcl_interfaces/msg/ListParametersResult": "string[] names\nstring[] prefixes",
    # The six parameter services' halves, as rmw sees them: messages.
    "rcl_interfaces/srv/ListParameters_Request": "string[] prefixes\nuint64 depth",
    "rcl_interfaces/srv/ListParameters_Response": "ListParametersResult result",
    "rcl_interfaces/srv/GetParameters_Request": "string[] names",
    "rcl_interfaces/srv/GetParameters_Response": "ParameterValue[] values",
    "rcl_interfaces/srv/SetParameters_Request": "Parameter[] parameters",
    "rcl_interfaces/srv/SetParameters_Response": "SetParametersResult[] results",
    "rcl_interfaces/srv/SetParametersAtomically_Request": "Parameter[] parameters",
    "rcl_interfaces/srv/SetParametersAtomically_Response": "SetParametersResult result",
    "rcl_interfaces/srv/DescribeParameters_Request": "string[] names",
    "rcl_interfaces/srv/DescribeParameters_Response": "ParameterDescriptor[] descriptors",
    "rcl_interfaces/srv/GetParameterTypes_Request": "string[] names",
    "rcl_interfaces/srv/GetParameterTypes_Response": "uint8[] types",
}

# The hashes ROS 2 Jazzy publishes for some of them (its generated type
# support, as rmw puts them in USER_DATA and rmw_zenoh in its key
# expressions): what --check recomputes.
KNOWN = {
    "nav_msgs/msg/Odometry": "3cc97dc7fb7502f8714462c526d369e35b603cfc34d946e3f2eda2766dfec6e0",
    "tf2_msgs/msg/TFMessage": "e369d0f05a23ae52508854b66f6aa0437f3449d652e8cbf22d5abe85d020f087",
    "geometry_msgs/msg/Twist": "9c45bf16fe0983d80e3cfe750d6835843d265a9a6c46bd2e609fcddde6fb8d2a",
    "geometry_msgs/msg/TwistStamped":
        "5f0fcd4f81d5d06ad9b4c4c63e3ea51b82d6ae4d0558f1d475229b1121db6f64",
    "sensor_msgs/msg/Range": "b42b62562e93cbfe9d42b82fe5994dfa3d63d7d5c90a317981703f7388adff3a",
    "sensor_msgs/msg/Imu": "7d9a00ff131080897a5ec7e26e315954b8eae3353c3f995c55faf71574000b5b",
    "sensor_msgs/msg/JointState":
        "a13ee3a330e346c9d87b5aa18d24e11690752bd33a0350f11c5882bc9179260e",
    "std_msgs/msg/UInt32": "a5c874829b752bc5fa190024b0ad76f578cc278271e855c7d02a818b3516fb4a",
    "std_msgs/msg/String": "df668c740482bbd48fb39d76a70dfd4bd59db1288021743503259e948f6b1a18",
    "sensor_msgs/msg/BatteryState":
        "4bee5dfce981c98faa6828b868307a0a73f992ed0789f374ee96c8f840e69741",
    "diagnostic_msgs/msg/DiagnosticArray":
        "5a8a36efb05fb25070fa0fb3810290c0e6cd4862b54a8fb975a1ee8dc55a333e",
    "rmw_dds_common/msg/ParticipantEntitiesInfo":
        "91a0593bacdcc50ea9bdcf849a938b128412cc1ea821245c663bcd26f83c295e",
    "rcl_interfaces/msg/Log": "e28ce254ca8abc06abf92773b74602cdbf116ed34fbaf294fb9f81da9f318eac",
    "rcl_interfaces/msg/ParameterEvent":
        "043e627780fcad87a22d225bc2a037361dba713fca6a6b9f4b869a5aa0393204",
}

# type_description_interfaces/msg/FieldType's ids; an array adds 48, a
# bounded sequence 96, an unbounded one 144.
PRIMITIVE = {
    "int8": 2, "uint8": 3, "int16": 4, "uint16": 5, "int32": 6, "uint32": 7, "int64": 8,
    "uint64": 9, "float32": 10, "float64": 11, "char": 13, "wchar": 14, "bool": 15, "byte": 16,
    "string": 17, "wstring": 18,
}
NESTED = 1


def field_type(pkg, spec):
    """A field's type description from its .msg spelling."""
    m = re.fullmatch(r"([A-Za-z0-9_/]+?)(<=(\d+))?(\[(<=)?(\d*)\])?", spec)
    if not m:
        raise ValueError("cannot read the type " + spec)
    base, strcap, arr, bounded, size = m.group(1), m.group(3), m.group(4), m.group(5), m.group(6)
    nested = ""
    if base in PRIMITIVE:
        tid = PRIMITIVE[base]
        if strcap:  # string<=N: a bounded string
            tid = {"string": 21, "wstring": 22}[base]
    else:
        tid = NESTED
        parts = base.split("/")
        nested = (parts[0] + "/msg/" + parts[1]) if len(parts) == 2 else (pkg + "/msg/" + base)
    capacity = 0
    if arr is not None:
        if bounded:
            tid += 96
            capacity = int(size)
        elif size:
            tid += 48
            capacity = int(size)
        else:
            tid += 144
    return {"type_id": tid, "capacity": capacity,
            "string_capacity": int(strcap) if strcap else 0, "nested_type_name": nested}


def description(name):
    pkg = name.split("/")[0]
    fields = []
    for line in MSGS[name].splitlines():
        line = line.split("#")[0].strip()
        if not line or "=" in line.split()[-1]:
            continue
        spec, fname = line.split()[:2]
        fields.append({"name": fname, "type": field_type(pkg, spec)})
    if not fields:  # what rosidl gives an empty message
        fields.append({"name": "structure_needs_at_least_one_member",
                       "type": {"type_id": 3, "capacity": 0, "string_capacity": 0,
                                "nested_type_name": ""}})
    return {"type_name": name, "fields": fields}


def referenced(name, seen):
    for f in description(name)["fields"]:
        n = f["type"]["nested_type_name"]
        if n and n not in seen:
            seen.add(n)
            referenced(n, seen)
    return seen


def rihs01(name):
    refs = sorted(referenced(name, set()))
    hashed = {"type_description": description(name),
              "referenced_type_descriptions": [description(r) for r in refs]}
    text = json.dumps(hashed, separators=(", ", ": "))
    return "RIHS01_" + hashlib.sha256(text.encode()).hexdigest()


def main(argv):
    if argv[1:] == ["--check"]:
        bad = 0
        for name, want in KNOWN.items():
            got = rihs01(name)
            ok = got == "RIHS01_" + want
            bad += not ok
            print(("ok: " if ok else "FAIL: ") + name + " " + got)
        return 1 if bad else 0
    if len(argv) < 2:
        print(__doc__.strip().split("\n\n")[-1], file=sys.stderr)
        return 2
    for name in argv[1:]:
        if name not in MSGS:
            print("rihs01.py: no definition of " + name, file=sys.stderr)
            return 1
        print(name, rihs01(name))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))

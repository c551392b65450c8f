#!/usr/bin/env python3
"""Whether rosbag2 takes an MCAP file, by the rules of its MCAP storage
plugin (rosbag2_storage_mcap's mcap_storage.cpp and rosbag2_storage's
metadata YAML), read here from the file's bytes by the MCAP specification,
apart from botwire's own reader:

- the Header's profile is ros2;
- every channel has a schema (rosbag2 throws "Could not find schema for
  topic" otherwise), named pkg/msg/Type, encoding ros2msg, not empty;
- every channel's message encoding is cdr (rosbag2 plays one
  serialization format);
- every channel's metadata has offered_qos_profiles, a YAML list of QoS
  profiles with every key rosbag2 reads, and topic_type_hash (RIHS01_ and
  64 hex digits, or empty as Humble's);
- a Metadata record named rosbag2 holds serialized_metadata, a YAML
  BagMetadata that rosbag2's decoder reads for its version: its keys, its
  topics as the channels are, its counts as the summary's statistics.

usage: rosbag2_check.py FILE.mcap   (a line per check; status 1 if any fails)
"""
import re
import struct
import sys

import yaml

QOS_KEYS = {"history", "depth", "reliability", "durability", "deadline", "lifespan",
            "liveliness", "liveliness_lease_duration", "avoid_ros_namespace_conventions"}
DURATIONS = {"deadline", "lifespan", "liveliness_lease_duration"}

failed = 0


def check(ok, what):
    global failed
    print(("ok: " if ok else "FAIL: ") + what)
    failed += not ok


def string(b, i):
    n, = struct.unpack_from("<I", b, i)
    return b[i + 4:i + 4 + n].decode(), i + 4 + n


def strmap(b, i):
    n, = struct.unpack_from("<I", b, i)
    end, i, m = i + 4 + n, i + 4, {}
    while i < end:
        k, i = string(b, i)
        v, i = string(b, i)
        m[k] = v
    return m, end


def records(b):
    """The top-level records after the magic: (opcode, content)."""
    i = 8
    while i + 9 <= len(b):
        op, n = struct.unpack_from("<BQ", b, i)
        yield op, b[i + 9:i + 9 + n]
        i += 9 + n
        if op == 0x02:  # the footer
            return


def qos_ok(text, topic):
    try:
        profiles = yaml.safe_load(text)
    except yaml.YAMLError as e:
        return f"{topic}: offered_qos_profiles is no YAML: {e}"
    if not isinstance(profiles, list) or not profiles:
        return f"{topic}: offered_qos_profiles is not a list of profiles"
    for p in profiles:
        missing = QOS_KEYS - set(p)
        if missing:
            return f"{topic}: offered_qos_profiles lacks {sorted(missing)}"
        for k in DURATIONS:
            if not isinstance(p[k], dict) or set(p[k]) != {"sec", "nsec"}:
                return f"{topic}: offered_qos_profiles' {k} is not sec and nsec"
    return None


def main(path):
    b = open(path, "rb").read()
    check(b[:8] == b"\x89MCAP0\r\n", f"{path}: the MCAP magic")
    header, schemas, channels, metadata, stats = None, {}, {}, [], None
    for op, c in records(b):
        if op == 0x01:
            profile, i = string(c, 0)
            header = profile
        elif op == 0x03:
            sid, = struct.unpack_from("<H", c, 0)
            name, i = string(c, 2)
            enc, i = string(c, i)
            n, = struct.unpack_from("<I", c, i)
            schemas[sid] = (name, enc, c[i + 4:i + 4 + n])
        elif op == 0x04:
            cid, sid = struct.unpack_from("<HH", c, 0)
            topic, i = string(c, 4)
            enc, i = string(c, i)
            meta, i = strmap(c, i)
            channels[cid] = (sid, topic, enc, meta)
        elif op == 0x0C:
            name, i = string(c, 0)
            meta, i = strmap(c, i)
            metadata.append((name, meta))
        elif op == 0x0B:
            count, = struct.unpack_from("<Q", c, 0)
            start, end = struct.unpack_from("<QQ", c, 8 + 2 + 4 + 4 + 4 + 4)
            i = 8 + 2 + 4 + 4 + 4 + 4 + 16
            n, = struct.unpack_from("<I", c, i)
            per = {}
            for j in range(i + 4, i + 4 + n, 10):
                cid, k = struct.unpack_from("<HQ", c, j)
                per[cid] = k
            stats = (count, start, end, per)
    check(header == "ros2", f"profile {header!r}")
    check(bool(channels), f"{len(channels)} channels (the summary's)")
    for cid, (sid, topic, enc, meta) in sorted(channels.items()):
        s = schemas.get(sid)
        check(s is not None and sid != 0, f"{topic}: a schema (id {sid})")
        if s:
            check(re.fullmatch(r"[a-z][a-z0-9_]*/msg/[A-Z][A-Za-z0-9]*", s[0]) is not None,
                  f"{topic}: its schema named {s[0]}")
            check(s[1] == "ros2msg" and len(s[2]) > 0, f"{topic}: ros2msg, {len(s[2])} bytes")
        check(enc == "cdr", f"{topic}: message encoding {enc}")
        why = qos_ok(meta.get("offered_qos_profiles", ""), topic)
        check(why is None, why or f"{topic}: offered_qos_profiles with every key")
        h = meta.get("topic_type_hash")
        check(h is not None and (h == "" or re.fullmatch(r"RIHS01_[0-9a-f]{64}", h) is not None),
              f"{topic}: topic_type_hash {h}")
    bags = [m for name, m in metadata if name == "rosbag2"]
    check(len(bags) == 1 and "serialized_metadata" in bags[0],
          f"{len(bags)} metadata record rosbag2 with serialized_metadata")
    if not bags or "serialized_metadata" not in bags[0]:
        return
    y = yaml.safe_load(bags[0]["serialized_metadata"])
    v = y.get("version")
    check(isinstance(v, int) and 1 <= v <= 9, f"serialized_metadata version {v}")
    need = {"version", "storage_identifier", "duration", "starting_time", "message_count",
            "topics_with_message_count", "relative_file_paths"}
    need |= {"compression_format", "compression_mode"} if v >= 3 else set()
    need |= {"files"} if v >= 5 else set()
    need |= {"custom_data"} if v >= 6 else set()
    need |= {"ros_distro"} if v >= 8 else set()
    check(need <= set(y), f"serialized_metadata has {sorted(need - set(y)) or 'every key'} "
          f"its version decodes")
    check(y["storage_identifier"] == "mcap" and isinstance(y["duration"]["nanoseconds"], int) and
          isinstance(y["starting_time"]["nanoseconds_since_epoch"], int) and
          isinstance(y.get("custom_data", {}), dict), "storage mcap, duration, starting_time")
    topics = {}
    for t in y["topics_with_message_count"]:
        m = t["topic_metadata"]
        keys = {"name", "type", "serialization_format", "offered_qos_profiles"}
        keys |= {"type_description_hash"} if v >= 7 else set()
        check(keys <= set(m) and isinstance(t["message_count"], int),
              f"{m.get('name')}: topic_metadata with {sorted(keys)}")
        qos = m["offered_qos_profiles"]
        # version < 9: the QoS as a YAML string; 9: as a list
        check(isinstance(qos, str) if v < 9 else isinstance(qos, list),
              f"{m.get('name')}: offered_qos_profiles as version {v} has it")
        topics[m["name"]] = (m["type"], m["serialization_format"], t["message_count"])
    for cid, (sid, topic, enc, meta) in sorted(channels.items()):
        got = topics.get(topic)
        want = schemas[sid][0] if sid in schemas else None
        check(got is not None and got[0] == want and got[1] == enc,
              f"{topic}: in serialized_metadata as {got and got[0]}, {got and got[1]}")
        if stats and got:
            check(got[2] == stats[3].get(cid, 0),
                  f"{topic}: {got[2]} messages, as the statistics count")
    if stats:
        check(y["message_count"] == stats[0], f"message_count {y['message_count']} of {stats[0]}")
        check(y["starting_time"]["nanoseconds_since_epoch"] == stats[1] and
              y["duration"]["nanoseconds"] == stats[2] - stats[1],
              "starting_time and duration as the statistics' message times")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        print(__doc__.strip().splitlines()[-1], file=sys.stderr)
        sys.exit(2)
    main(sys.argv[1])
    sys.exit(1 if failed else 0)

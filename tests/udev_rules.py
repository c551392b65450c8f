#!/usr/bin/python3
"""The udev rules botwire installs (dist/udev/60-botwire.rules), read as
udev reads them and applied to the devices they are meant for and to
their near misses: which names, group, mode and attributes each gets.

Debian 12's udev (252) has no `udevadm verify` (it came in 253); where it
is on PATH it checks the file too. Without it, this reader is the check:
it knows the keys the file may use (udev(7)), refuses any other, a match
key given an assignment operator or the reverse, an unquoted value, a GOTO
without its LABEL, and applies the rules: ATTRS keys all on one parent
device, patterns with '*', '?', '[...]' and '|' alternatives, $attr{NAME}
from the device the ATTRS keys selected.

usage: udev_rules.py RULES_FILE
"""
import fnmatch
import re
import shutil
import subprocess
import sys

failures = 0


def ok(msg):
    print("ok: " + msg)


def fail(msg):
    global failures
    failures += 1
    print("FAIL: " + msg)


MATCH_ONLY = {"ACTION", "SUBSYSTEM", "KERNEL", "ATTRS", "DRIVERS", "SUBSYSTEMS"}
ASSIGN_ONLY = {"GROUP", "MODE", "SYMLINK", "GOTO", "LABEL", "OWNER"}
EITHER = {"ATTR", "ENV"}
PAIR = re.compile(r'\s*([A-Z]+)(\{([^}]*)\})?\s*(==|!=|\+=|-=|:=|=)\s*"([^"]*)"\s*(,|$)')


def parse(path):
    """[(line number, [(key, attr, op, value)])], or exits on a bad line."""
    rules, labels, gotos = [], set(), []
    with open(path, encoding="ascii") as f:
        text = f.read().replace("\\\n", "")
    for n, line in enumerate(text.split("\n"), 1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        pairs, pos = [], 0
        while pos < len(line):
            m = PAIR.match(line, pos)
            if not m:
                fail("line %d: cannot read from %r" % (n, line[pos:pos + 40]))
                return None
            key, attr, op, value = m.group(1), m.group(3), m.group(4), m.group(5)
            matching = op in ("==", "!=")
            if key not in MATCH_ONLY | ASSIGN_ONLY | EITHER:
                fail("line %d: %s is not a key this file should use" % (n, key))
                return None
            if (key in MATCH_ONLY and not matching) or (key in ASSIGN_ONLY and matching):
                fail("line %d: %s with %s" % (n, key, op))
                return None
            if (key in ("ATTR", "ATTRS", "ENV")) != (attr is not None):
                fail("line %d: %s wants {NAME}" % (n, key))
                return None
            if key == "LABEL":
                labels.add(value)
            if key == "GOTO":
                gotos.append((n, value))
            pairs.append((key, attr, op, value))
            pos = m.end()
        rules.append((n, pairs))
    for n, g in gotos:
        if g not in labels:
            fail("line %d: GOTO %s has no LABEL" % (n, g))
            return None
    return rules


def matches(pattern, value):
    return value is not None and any(fnmatch.fnmatchcase(value, p) for p in pattern.split("|"))


def apply(rules, dev):
    """What udev would give DEV: {"symlinks", "group", "mode", "attrs_set"}."""
    got = {"symlinks": [], "group": None, "mode": None, "attrs_set": {}}
    skip_to = None
    for _, pairs in rules:
        label = [v for k, _, _, v in pairs if k == "LABEL"]
        if skip_to is not None:
            if skip_to in label:
                skip_to = None
            continue
        # The parent the ATTRS keys match on, all of them on one.
        attrs_keys = [(a, op, v) for k, a, op, v in pairs if k == "ATTRS"]
        parent = None
        if attrs_keys:
            for p in [dev["attrs"]] + dev["parents"]:
                if all(matches(v, p.get(a)) == (op == "==") for a, op, v in attrs_keys):
                    parent = p
                    break
            if parent is None:
                continue
        hit = True
        for k, a, op, v in pairs:
            if op not in ("==", "!="):
                continue
            if k == "ATTRS":
                continue
            have = {"ACTION": dev["action"], "SUBSYSTEM": dev["subsystem"],
                    "KERNEL": dev["kernel"]}.get(k) if k not in ("ATTR", "ENV") else \
                (dev["attrs"].get(a) if k == "ATTR" else dev["env"].get(a))
            if matches(v, have) != (op == "=="):
                hit = False
                break
        if not hit:
            continue

        def subst(v):
            def attr(m):
                name = m.group(1)
                return dev["attrs"].get(name, (parent or {}).get(name, ""))
            return re.sub(r"\$attr\{([^}]*)\}", attr, v)

        for k, a, op, v in pairs:
            if op in ("==", "!="):
                continue
            if k == "GOTO":
                skip_to = v
            elif k == "SYMLINK":
                got["symlinks"] += subst(v).split()
            elif k in ("GROUP", "MODE"):
                got[k.lower()] = subst(v)
            elif k == "ATTR":
                got["attrs_set"][a] = subst(v)
    return got


def tty(kernel, vendor, product, serial, action="add", subsystem="tty"):
    usb = {"idVendor": vendor, "idProduct": product, "serial": serial}
    return {"action": action, "subsystem": subsystem, "kernel": kernel, "attrs": {"dev": "188:0"},
            "env": {}, "parents": [{"interface": "00"}, usb]}


def main():
    path = sys.argv[1]
    udevadm = shutil.which("udevadm")
    if udevadm and subprocess.run([udevadm, "verify", "--help"], capture_output=True).returncode == 0:
        r = subprocess.run([udevadm, "verify", "--no-summary", path], capture_output=True, text=True)
        if r.returncode == 0:
            ok("udevadm verify accepts %s" % path)
        else:
            fail("udevadm verify: %s" % (r.stdout + r.stderr).strip())
    else:
        print("(no `udevadm verify` here: Debian 12's udev is 252, verify came in 253; "
              "the reader below checks the file)")
    rules = parse(path)
    if rules is None:
        sys.exit(1)
    ok("%d rules read: every key one of udev(7)'s, each with an operator of its kind" % len(rules))

    def expect(name, dev, links, group=None, mode=None, attrs=None):
        got = apply(rules, dev)
        want = {"symlinks": links, "group": group, "mode": mode, "attrs_set": attrs or {}}
        if got == want:
            ok("%s: %s" % (name, ", ".join("/dev/" + s for s in links) or "no name of ours"))
        else:
            fail("%s: got %s, wanted %s" % (name, got, want))

    kobuki = "kobuki_A601HIAM"
    expect("a Kobuki (0403:6001, serial %s)" % kobuki, tty("ttyUSB0", "0403", "6001", kobuki),
           ["kobuki", "botwire/kobuki-" + kobuki], "dialout", "0660", {"device/latency_timer": "1"})
    expect("another FT232R (serial A601HIAM)", tty("ttyUSB1", "0403", "6001", "A601HIAM"), [])
    expect("an FT231X with a kobuki serial (0403:6015)", tty("ttyUSB1", "0403", "6015", kobuki), [])
    expect("the Kobuki unplugged (remove)", tty("ttyUSB0", "0403", "6001", kobuki, action="remove"), [])
    expect("the Kobuki's USB device itself (not its tty)",
           tty("1-1", "0403", "6001", kobuki, subsystem="usb"), [])
    mega = "55736313238351E0B1B1"
    for vendor, product in (("2341", "0010"), ("2341", "0042"), ("2341", "0210"), ("2341", "0242"),
                            ("2a03", "0010"), ("2a03", "0042")):
        expect("an Arduino Mega 2560 (%s:%s) for RoboBuggy" % (vendor, product),
               tty("ttyACM0", vendor, product, mega), ["botwire/rbsm-" + mega], "dialout", "0660")
    expect("an Arduino Uno (2341:0043)", tty("ttyACM0", "2341", "0043", mega), [])
    expect("a Mega with no serial number", tty("ttyACM0", "2341", "0042", None), [])
    if failures:
        print("%d failure(s)" % failures)
        sys.exit(1)
    print("all udev checks passed")


main()

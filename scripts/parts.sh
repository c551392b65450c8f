# The parts of the build, what each needs from Debian, and how to tell that
# what it needs is really there (installed is not enough: a PATH without
# the ROS tools, say). Sourced by deps.sh and check.sh.
#
#   core      the library, the tool, the unit, CLI and real-time tests, the
#             sanitizer build and the fuzzers: always
#   firmware  cross builds for AVR and Cortex-M, and the firmware run in
#             simavr (make check SKIP=firmware leaves it out)
#   ros       the ROS 1 bridge and its test under a real roscore
#             (make check SKIP=ros leaves it out)
#   ros2      the ROS 2 node over Cyclone DDS (no ROS 2 needed) and its
#             tests: a peer on the Cyclone C API, tshark's RTPS dissector
#             reading the names on the wire, iproute2's network namespaces
#             for a fleet across hosts (make check SKIP=ros2)
#   view      the live view (libwebsockets on libuv) and its tests: a real
#             Foxglove client (npm's @foxglove/ws-protocol under node, pinned
#             by tests/npm/package-lock.json, installed into build/npm when the
#             registry can be reached; else that one test is left out) and
#             the page in headless Chromium (make check SKIP=view leaves them
#             out, and builds the tool without the view)
#   fuzz      the short fuzz run at the end of make check (SKIP=fuzz)
#   python    the Python package's C module (Python's headers) and its tests:
#             pytest with Debian's python3, cffi and NumPy, pip into a venv,
#             mypy over the package (make check SKIP=python leaves them out)

parts_optional="firmware ros ros2 view fuzz python"

# nodejs and npm are Debian's on a bare Debian 12 (the tests' outside tools:
# Foxglove's MCAP readers, its WebSocket client); a node that came with its
# own npm (NodeSource's, which conflicts with Debian's npm) is used as it is.
pkgs_core="cmake make gcc clang libclang-rt-14-dev llvm pkg-config binutils libcmocka-dev
           libjansson-dev libzstd-dev liblz4-dev zlib1g-dev help2man librsvg2-bin python3-yaml
           $(command -v npm >/dev/null 2>&1 || echo nodejs npm)"
pkgs_firmware="gcc-avr avr-libc binutils-avr gcc-arm-none-eabi libnewlib-arm-none-eabi
               libsimavr-dev"
pkgs_ros="g++ libroscpp-dev libstd-msgs-dev libgeometry-msgs-dev libnav-msgs-dev
          libsensor-msgs-dev libdiagnostic-msgs-dev libtf2-msgs-dev ros-core rosbash
          python3-std-msgs python3-geometry-msgs python3-nav-msgs python3-sensor-msgs
          python3-diagnostic-msgs python3-tf2-msgs"
pkgs_ros2="cyclonedds-dev cyclonedds-tools tshark iproute2"
pkgs_view="libwebsockets-dev libuv1-dev chromium chromium-driver python3-selenium"
pkgs_fuzz=""
pkgs_python="python3 python3-cffi python3-pytest python3-dev python3-numpy python3-venv mypy"

# KIND:WHAT:PACKAGE, KIND one of cmd (on PATH), file, py (a module Debian's
# python3 imports).
needs_core="cmd:cmake:cmake cmd:make:make cmd:gcc:gcc cmd:clang:clang cmd:clang++:clang
            cmd:llvm-symbolizer:llvm cmd:pkg-config:pkg-config cmd:help2man:help2man
            cmd:bash:bash cmd:rsvg-convert:librsvg2-bin file:/usr/include/cmocka.h:libcmocka-dev
            file:/usr/include/jansson.h:libjansson-dev file:/usr/include/zstd.h:libzstd-dev
            file:/usr/include/lz4frame.h:liblz4-dev file:/usr/include/zlib.h:zlib1g-dev
            cmd:node:nodejs cmd:npm:npm py:yaml:python3-yaml"
needs_firmware="cmd:avr-gcc:gcc-avr cmd:avr-objcopy:binutils-avr cmd:avr-size:binutils-avr
                cmd:arm-none-eabi-gcc:gcc-arm-none-eabi
                file:/usr/lib/avr/include/avr/io.h:avr-libc
                file:/usr/lib/arm-none-eabi/newlib/libc.a:libnewlib-arm-none-eabi
                file:/usr/include/simavr/sim_avr.h:libsimavr-dev"
needs_ros="cmd:g++:g++ cmd:roscore:python3-roslaunch cmd:roslaunch:python3-roslaunch
           cmd:rosrun:rosbash cmd:rostopic:python3-rostopic
           file:/usr/include/ros/ros.h:libroscpp-dev
           file:/usr/include/nav_msgs/Odometry.h:libnav-msgs-dev
           file:/usr/include/sensor_msgs/Range.h:libsensor-msgs-dev
           file:/usr/include/diagnostic_msgs/DiagnosticArray.h:libdiagnostic-msgs-dev
           file:/usr/include/tf2_msgs/TFMessage.h:libtf2-msgs-dev
           py:geometry_msgs.msg:python3-geometry-msgs py:nav_msgs.msg:python3-nav-msgs
           py:sensor_msgs.msg:python3-sensor-msgs py:diagnostic_msgs.msg:python3-diagnostic-msgs"
needs_ros2="file:/usr/include/dds/dds.h:cyclonedds-dev cmd:idlc:cyclonedds-tools cmd:tshark:tshark cmd:ip:iproute2"
needs_view="file:/usr/include/libwebsockets.h:libwebsockets-dev file:/usr/include/uv.h:libuv1-dev
            cmd:chromium:chromium cmd:chromedriver:chromium-driver
            py:selenium:python3-selenium"
needs_fuzz=""
needs_python="file:/usr/bin/python3:python3 py:cffi:python3-cffi py:pytest:python3-pytest
              cmd:python3-config:python3-dev py:numpy:python3-numpy py:ensurepip:python3-venv
              cmd:mypy:mypy"

# parts_check_skip SKIP: exits 2 with one line if SKIP names a part that is
# not optional. SKIP is a list separated by spaces or commas.
parts_check_skip() {
    for s in $(echo "$1" | tr ',' ' '); do
        case " $parts_optional " in
        *" $s "*) ;;
        *)
            echo "SKIP=$1: no part \"$s\" (the parts that can be left out: $parts_optional)" >&2
            exit 2
            ;;
        esac
    done
}

# part_skipped PART SKIP: true if SKIP names PART.
part_skipped() {
    case " $(echo "$2" | tr ',' ' ') " in *" $1 "*) return 0 ;; esac
    return 1
}

# part_missing PART: one line per need of PART that is not there:
# "WHAT (package PACKAGE)".
part_missing() {
    eval "needs=\$needs_$1"
    for n in $needs; do
        kind=${n%%:*}
        rest=${n#*:}
        what=${rest%:*}
        pkg=${rest##*:}
        case $kind in
        cmd) command -v "$what" >/dev/null 2>&1 || echo "$what is not on PATH (package $pkg)" ;;
        file) [ -e "$what" ] || echo "$what is missing (package $pkg)" ;;
        py) /usr/bin/python3 -c "import $what" >/dev/null 2>&1 ||
            echo "python3 cannot import $what (package $pkg)" ;;
        esac
    done
}

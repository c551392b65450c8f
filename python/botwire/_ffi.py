"""The C declarations the package uses, and the shared libraries loaded.

cffi in ABI mode (``ffi.dlopen``): nothing is compiled when the package is
built or installed, and the one package serves every python3 (docs/python.md
says why). In ABI mode cffi cannot check these declarations against the
headers, so tests/python/test_layout.py compiles the headers and compares
every struct's size and every field's offset with what is declared here.
"""

from __future__ import annotations

import os
from typing import Any, List, Optional, Tuple

from cffi import FFI

CDEF = r"""
typedef struct { double x, y; } bw_vec2_t;
typedef struct { double x, y; double theta; } bw_pose_t;

const char *bw_strerror(int err);

typedef uint64_t bw_count_t;
typedef struct {
    bw_count_t frames, checksum_errors, length_errors, skipped_bytes, unknown, implausible;
} bw_parse_stats_t;

/* ---- sim.h -------------------------------------------------------------- */
typedef struct { bw_vec2_t a, b; } bw_segment_t;
typedef struct { unsigned n; bw_vec2_t v[16]; } bw_polygon_t;
typedef struct { bw_vec2_t at; char text[24]; } bw_label_t;
typedef struct { char family[16]; char model[16]; bw_pose_t pose; } bw_world_robot_t;
typedef struct { bw_pose_t pose; char family[16]; } bw_dock_t;
typedef struct {
    double min_x, min_y, max_x, max_y;
    size_t nwalls;
    bw_segment_t walls[512];
    size_t ndrops;
    bw_polygon_t drops[32];
    size_t ndocks;
    bw_dock_t docks[32];
    bw_pose_t start;
    size_t nlabels;
    bw_label_t labels[16];
    size_t nrobots;
    bw_world_robot_t robots[64];
} bw_world_t;
void bw_world_default(bw_world_t *w);
int bw_world_load(bw_world_t *w, const char *path, char *err, size_t errlen);
int bw_world_parse(bw_world_t *w, const char *text, size_t len, char *err, size_t errlen);

typedef struct {
    double wheelbase, radius, max_wheel_speed, max_accel;
    unsigned ncliff;
    bw_vec2_t cliff[8];
    double slip, encoder_noise;
    uint64_t seed;
    double battery_full, battery_empty, drain_idle, drain_motion, charge_rate;
    char dock_family[16];
} bw_body_params_t;
typedef struct {
    bw_body_params_t prm;
    bw_pose_t pose;
    double cmd_left, cmd_right;
    double left, right;
    double v, w;
    double odo_left, odo_right;
    bool contact;
    double contact_angle;
    bool blocked;
    uint32_t cliff;
    bool drop_left, drop_right;
    double battery;
    bool docked;
    int dock;
} bw_body_t;
struct bw_fleet;
typedef struct {
    const bw_world_t *world;
    bw_body_t body;
    double t;
    double dt;
    uint64_t rng;
    double travelled;
    struct bw_fleet *fleet;
    unsigned fleet_slot;
    bool free_ok;
    bw_vec2_t free_at;
    double free;
    const struct bw_fleet *free_fleet;
    uint64_t free_gen;
} bw_sim_t;
int bw_sim_place(bw_sim_t *s, bw_pose_t pose);

/* ---- port.h ------------------------------------------------------------- */
typedef struct bw_port bw_port_t;
typedef struct bw_listener bw_listener_t;
int bw_port_read(bw_port_t *port, uint8_t *buf, size_t cap);
int bw_port_write(bw_port_t *port, const uint8_t *buf, size_t n);
int bw_port_fd(const bw_port_t *port);
const char *bw_port_name(const bw_port_t *port);
void bw_port_close(bw_port_t *port);
int bw_pty_open(bw_port_t **master, char *slave_path, size_t slave_cap, const char *link,
                char *err, size_t errlen);
int bw_pty_clients(bw_port_t *master, bool *emptied);
int bw_pty_watch_fd(const bw_port_t *master);
int bw_listener_open(bw_listener_t **l, const char *host, int tcp_port, char *err, size_t errlen);
int bw_listener_accept(bw_listener_t *l, bw_port_t **client);
int bw_listener_fd(const bw_listener_t *l);
int bw_listener_port(const bw_listener_t *l);
void bw_listener_close(bw_listener_t *l);

/* ---- device.h ----------------------------------------------------------- */
typedef struct bw_device bw_device_t;
typedef struct {
    const bw_world_t *world;
    bool has_start;
    bw_pose_t start;
    double noise;
    uint64_t seed;
    const char *model;
    double command_timeout;
    double push, slope;
    struct bw_fleet *fleet;
    int baud;
    bool has_battery;
    double battery;
} bw_device_options_t;
void bw_device_options_init(bw_device_options_t *o);
int bw_device_create(bw_device_t **dev, const char *family, const bw_device_options_t *opt,
                     double t0, char *err, size_t errlen);
void bw_device_destroy(bw_device_t *dev);
int bw_device_default_world(const char *family, bw_world_t *w);
void bw_device_input(bw_device_t *dev, const uint8_t *data, size_t n, double now);
void bw_device_step(bw_device_t *dev, double now);
size_t bw_device_output(bw_device_t *dev, uint8_t *buf, size_t cap);
double bw_device_next_deadline(const bw_device_t *dev);
int bw_device_family_baud(const char *family);
int bw_device_model_baud(const char *family, const char *model);
void bw_device_link(bw_device_t *dev, bool connected, double now);
bool bw_device_in_session(const bw_device_t *dev);
bw_sim_t *bw_device_sim(bw_device_t *dev);
const char *bw_device_family(const bw_device_t *dev);
int bw_device_next_notice(bw_device_t *dev, char *buf, size_t cap);
uint64_t bw_device_dropped(const bw_device_t *dev);

/* ---- base.h ------------------------------------------------------------- */
typedef struct bw_base bw_base_t;
typedef struct { double velocity, acceleration, torque; } bw_axis_t;
typedef enum { BW_RANGE_SONAR = 0, BW_RANGE_IR = 1 } bw_range_kind_t;
typedef struct {
    bw_pose_t mount;
    double max_range;
    double range;
    double t;
    bw_pose_t at;
    double raw_x, raw_y;
    bw_range_kind_t kind;
} bw_range_t;
typedef struct { bool known; bool user; double p, i, d; } bw_gains_t;
typedef struct { bool active; double x, y; uint32_t buttons; } bw_joystick_t;
typedef struct { double voltage; double logic_voltage; double current; uint32_t status; } bw_power_t;
typedef enum {
    BW_CHARGE_UNKNOWN = 0, BW_CHARGE_DISCHARGING, BW_CHARGE_CHARGING, BW_CHARGE_CHARGED
} bw_charge_t;
typedef struct {
    double t;
    bool online;
    bw_pose_t pose;
    double v, w;
    bool estimated;
    double estimated_time;
    uint32_t bumpers;
    uint64_t bump_switches;
    unsigned nbump_switches;
    uint32_t cliffs;
    uint32_t wheel_drops;
    uint32_t buttons;
    bool stalled;
    double battery;
    double battery_current, battery_charge, battery_capacity, battery_temp;
    double battery_fraction;
    bw_charge_t charging;
    uint32_t charge_sources;
    char mode[16];
    bool brake;
    uint32_t faults;
    bool commands_ignored;
    bw_axis_t trans, rot;
    int64_t encoder[2];
    double counts_per_m;
    double wheel_radius;
    double raw_x, raw_y;
    uint8_t dock_ir[3];
    uint8_t buoys[3];
    bool self_driving;
    char unique_id[40];
    bw_gains_t gains;
    bw_joystick_t joystick;
    bw_power_t power;
    char firmware[32];
    char hardware[32];
    char name[32];
    unsigned nranges;
    bw_range_t ranges[48];
    uint64_t reconnects;
    bw_parse_stats_t link;
    uint64_t events_dropped;
} bw_base_state_t;
typedef enum {
    BW_EV_ONLINE = 1, BW_EV_OFFLINE, BW_EV_BUMP, BW_EV_CLIFF, BW_EV_WHEEL_DROP, BW_EV_BUTTON,
    BW_EV_POWER, BW_EV_STALL, BW_EV_REFLEX, BW_EV_BRAKE, BW_EV_FAULT
} bw_event_type_t;
typedef struct {
    bw_event_type_t type;
    double t;
    uint32_t mask;
    bool on;
    double distance, angle;
    uint32_t detail;
} bw_event_t;
const char *bw_event_name(bw_event_type_t type);
typedef void (*bw_tap_fn)(void *ctx, bool from_robot, const uint8_t *data, size_t n, double now);
typedef struct {
    double link_timeout;
    double command_timeout;
    double reopen_interval;
    bw_tap_fn tap;
    void *tap_ctx;
    const bw_world_t *world;
    struct bw_fleet *fleet;
} bw_base_options_t;
int bw_base_open(bw_base_t **base, const char *url, const bw_base_options_t *opt, double now,
                 char *err, size_t errlen);
void bw_base_close(bw_base_t *base, double now);
int bw_base_drive(bw_base_t *base, double v, double w, double now);
int bw_base_stop(bw_base_t *base, double now);
int bw_base_motor(bw_base_t *base, const bw_axis_t *trans, const bw_axis_t *rot, double now);
int bw_base_led(bw_base_t *base, unsigned index, int colour, double now);
int bw_base_sound(bw_base_t *base, unsigned sequence, double now);
int bw_base_tone(bw_base_t *base, double hz, double seconds, double now);
int bw_base_outputs(bw_base_t *base, uint32_t mask, double now);
int bw_base_seek_dock(bw_base_t *base, double now);
int bw_create_base_drive_direct(bw_base_t *base, double left, double right, double now);
int bw_create_base_mode(bw_base_t *base, const char *mode, double now);
int bw_create_base_song(bw_base_t *base, unsigned number, const uint8_t *notes,
                        const double *seconds, size_t n, double now);
int bw_create_base_play(bw_base_t *base, unsigned number, double now);
int bw_create_base_leds(bw_base_t *base, unsigned bits, unsigned colour, unsigned intensity,
                        double now);
int bw_create_base_digits(bw_base_t *base, const char *text, double now);
int bw_create_base_value(const bw_base_t *base, const char *name, double *value);
typedef struct bw_docking_run bw_docking_run_t;
bw_docking_run_t *bw_docking_run_new(bw_base_t *base, double time_limit, bool undock, double now);
int bw_docking_run_tick(bw_docking_run_t *r, double now);
const char *bw_docking_run_state(const bw_docking_run_t *r);
const char *bw_docking_run_why(const bw_docking_run_t *r);
void bw_docking_run_free(bw_docking_run_t *r);
int bw_base_poll(bw_base_t *base, double now);
int bw_base_fd(const bw_base_t *base);
double bw_base_next_deadline(const bw_base_t *base);
const bw_base_state_t *bw_base_state(const bw_base_t *base);
uint64_t bw_base_changes(const bw_base_t *base);
int bw_base_next_event(bw_base_t *base, bw_event_t *ev);
uint32_t bw_base_caps(const bw_base_t *base);
const char *bw_base_family(const bw_base_t *base);
void bw_base_limits(const bw_base_t *base, double *max_v, double *max_w);
bw_device_t *bw_base_device(bw_base_t *base);
typedef struct {
    uint64_t bytes;
    const char *family;
    bool sure;
    bool wrong;
    unsigned closed_unheard;
} bw_base_heard_t;
void bw_base_heard(const bw_base_t *base, bw_base_heard_t *heard);
const char *bw_sniff_protocol(const char *family);
void bw_base_stop_on_exit(void);

/* ---- json.h (libbotwire_json) --------------------------------------------- */
typedef struct bw_json_decoder bw_json_decoder_t;
int bw_json_decoder_new(bw_json_decoder_t **d, const char *proto, const char *model,
                        const char *from, bool frames, char *err, size_t errlen);
void bw_json_decoder_free(bw_json_decoder_t *d);
int bw_json_decoder_options(bw_json_decoder_t *d, unsigned flags);
typedef struct {
    const char *type;
    const char *name;
    char kind;
    int depth;
    size_t rows;
    const void *values;
    size_t nvalues;
    const int64_t *ends;
    const uint8_t *tags;
    const int32_t *lens;
    const int32_t *inner;
    size_t ninner;
    const uint8_t *present;
} bw_json_column_t;
size_t bw_json_decoder_columns(const bw_json_decoder_t *d);
int bw_json_decoder_column(bw_json_decoder_t *d, size_t i, bw_json_column_t *out);
size_t bw_json_decoder_types(const bw_json_decoder_t *d);
const char *bw_json_decoder_type(const bw_json_decoder_t *d, size_t i, size_t *rows);
int bw_json_decoder_push(bw_json_decoder_t *d, const uint8_t *data, size_t n);
int bw_json_decoder_finish(bw_json_decoder_t *d);
const char *bw_json_decoder_text(bw_json_decoder_t *d, size_t *len);
int bw_json_decoder_next_warning(bw_json_decoder_t *d, char *buf, size_t cap);
int bw_json_encode(const char *proto, const char *json, size_t n, uint8_t *out, size_t cap,
                   size_t *len, char *err, size_t errlen);
const char *bw_json_protocols(void);
typedef struct bw_json_record bw_json_record_t;
int bw_json_record_read(bw_json_record_t **r, const char *path, char *err, size_t errlen);
const char *bw_json_record_header(const bw_json_record_t *r);
size_t bw_json_record_chunks(const bw_json_record_t *r);
int bw_json_record_chunk(const bw_json_record_t *r, size_t i, double *t, int *from_robot,
                         const uint8_t **data, size_t *len);
void bw_json_record_free(bw_json_record_t *r);
"""

# The structs test_layout.py checks against the headers.
STRUCTS = (
    "bw_pose_t", "bw_parse_stats_t", "bw_dock_t", "bw_world_t", "bw_body_params_t", "bw_body_t",
    "bw_sim_t", "bw_device_options_t", "bw_range_t", "bw_gains_t", "bw_joystick_t",
    "bw_power_t", "bw_base_state_t", "bw_event_t", "bw_base_options_t", "bw_base_heard_t",
)

ffi = FFI()
ffi.cdef(CDEF)


def _candidates(name: str) -> List[str]:
    """Where the library `name` (libbotwire.so.0, ...) may be, in order."""
    here = os.path.dirname(os.path.abspath(__file__))
    out: List[str] = []
    try:
        # Generated by the build: the build tree's folder, or the install's
        # libdir relative to the package (so a prefix can move).
        from . import _paths
        out += [os.path.join(d, name) for d in _paths.library_dirs(here)]
    except ImportError:
        pass  # the source folder itself: only the dynamic linker's search
    out.append(name)  # the dynamic linker's own search (ldconfig, LD_LIBRARY_PATH)
    return out


def _open(name: str) -> Tuple[Any, str]:
    errors = []
    for path in _candidates(name):
        if os.sep in path and not os.path.exists(path):
            continue
        try:
            return ffi.dlopen(path), path
        except OSError as e:
            errors.append(f"{path}: {e}")
    raise ImportError(f"botwire: cannot load {name} ("
                      + ("; ".join(errors) or "not found next to the package or in its prefix")
                      + "): build it (make) or install it (make install)")


# libbotwire first: libbotwire_json needs it, and the dynamic linker takes
# the one already loaded (same soname) instead of searching for another.
lib, LIBRARY = _open("libbotwire.so.0")
jlib, JSON_LIBRARY = _open("libbotwire_json.so.0")


def string(p: Any) -> Optional[str]:
    """A C string (NULL: None) as str."""
    return None if p == ffi.NULL else ffi.string(p).decode("utf-8", "replace")

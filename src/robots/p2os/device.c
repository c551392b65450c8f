/* The emulated Pioneer: the P2OS server side, on the shared sim. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "../../sim/device_internal.h"
#include "botwire/p2os.h"

#define SIP_PERIOD 0.100     /* s */
#define CONTROL_PERIOD 0.010 /* s: the server's motion control loop */
#define WATCHDOG 2.0         /* s without a command before the robot stops */
/* s a velocity command lasts without being renewed: keep-alives alone do not
 * keep a robot driving (docs/p2os.md, "what a stock P2OS client sees"). */
#define MOTION_LEASE WATCHDOG
#define SONARS_PER_SIP 4     /* transducers fired per SIP cycle */
#define SONAR_MAX_MM 5000.0
#define TICKS_PER_MM 128
#define ROBOT_NAME "botwire"
#define HEAD_DEADBAND (0.5 * BW_PI / 180)

/* Server limits: the "top" values cannot be exceeded; SETV and friends set
 * the working ones within them. */
#define TRANS_VEL_TOP 2000
#define TRANS_ACC_TOP 2000
#define ROT_VEL_TOP 360
#define ROT_ACC_TOP 720

typedef enum { WAIT_SYNC0, WAIT_SYNC1, WAIT_SYNC2, WAIT_OPEN, OPEN } session_t;

/* The fields a step reads first, the parser (and its buffer) last. */
typedef struct {
    const bw_p2os_model_t *model;
    session_t session;
    /* The control loop runs on a grid of ticks from t0; SIPs fall on it. */
    double t0;
    unsigned long ticks;    /* control ticks done */
    unsigned long sip_tick; /* tick of the next SIP */
    double last_cmd;
    double last_motion;   /* the last command that set a motion target */
    bool motors, sonar_on;
    int simstat_mode;     /* 0 off, 2 a SIMSTAT before every SIP */
    unsigned long placed_off_map; /* SIM_SET_POSEs off the map or into a wall (done anyway) */
    double last_sip, sip_gap; /* when the last SIP went, and the gap before it (s) */
    bw_pose_t start;      /* true start pose, for SIM_RESET */
    /* Motion control: translation by velocity or to a distance, rotation by
     * velocity or to a heading, or the two wheels directly (VEL2). */
    bool move_mode;       /* MOVE in progress */
    double vel_target;    /* mm/s */
    double move_start_x, move_start_y, move_heading, move_dist; /* mm, rad, mm */
    bool head_mode;
    double rvel_target;   /* deg/s */
    double head_target;   /* rad, in the robot's odometric frame */
    bool vel2;
    double vel2_left, vel2_right; /* mm/s */
    double v, w;          /* the profiled command: mm/s, deg/s */
    double trans_vel_max, trans_accel, trans_decel; /* mm/s, mm/s^2 */
    double rot_vel_max, rot_accel, rot_decel;       /* deg/s, deg/s^2 */
    /* The robot's own odometry, from its encoders: mm, mm, rad. */
    double x, y, th;
    double last_left, last_right; /* encoder travel already integrated, m */
    unsigned sonar_next;
    int encoder_mode;     /* 0 off, 1 one packet, >1 with every SIP */
    uint16_t digout;
    double wheelbase_mm;
    bw_p2os_parser_t parser;
} p2os_dev_t;

static p2os_dev_t *P(const bw_device_t *d) { return d->priv; }

static void reset_motion(p2os_dev_t *p)
{
    p->move_mode = p->head_mode = p->vel2 = false;
    p->vel_target = p->rvel_target = 0;
}

static void end_session(bw_device_t *d)
{
    p2os_dev_t *p = P(d);
    reset_motion(p);
    p->v = p->w = 0;
    p->motors = p->sonar_on = false;
    p->encoder_mode = 0;
    p->simstat_mode = 0;
    /* The SIP gaps are a session's: the next one's first SIMSTAT must not
     * report the idle time between the two as its interval. */
    p->last_sip = p->sip_gap = 0;
    p->session = WAIT_SYNC0;
    bw_sim_set_wheels(&d->sim, 0, 0);
}

static int init(bw_device_t *d, const bw_device_options_t *o, double t0, char *err, size_t errlen)
{
    p2os_dev_t *p = P(d);
    const char *name = o->model && *o->model ? o->model : "p2dx";
    p->model = bw_p2os_model(name);
    if (!p->model) {
        if (err)
            snprintf(err, errlen, "no P2OS model \"%s\" (p2dx, p2pb or p2at)", name);
        return BW_EUNKNOWN;
    }
    bw_body_params_t *b = &d->sim.body.prm;
    p->wheelbase_mm = 2.0 / p->model->diff_conv;
    b->wheelbase = p->wheelbase_mm / 1000.0;
    b->radius = p->model->radius;
    b->max_wheel_speed = TRANS_VEL_TOP / 1000.0;
    b->max_accel = 0; /* the server's own profile limits acceleration */
    b->ncliff = 0;
    b->slip = 0.01 * o->noise;
    b->encoder_noise = 0.002 * o->noise;
    b->seed = o->seed ? o->seed : 1;
    b->battery_full = 13.0;
    b->battery_empty = 11.0;
    b->drain_idle = 2e-5;
    b->drain_motion = 3e-4;
    d->sim.rng = b->seed;
    d->sim.body.battery = b->battery_full;
    bw_p2os_parser_init(&p->parser);
    p->t0 = t0;
    p->trans_vel_max = 1000;
    p->trans_accel = p->trans_decel = 300;
    p->rot_vel_max = 100;
    p->rot_accel = p->rot_decel = 100;
    p->start = d->sim.body.pose;
    end_session(d);
    return 0;
}

static void send_msg(bw_device_t *d, const bw_p2os_msg_t *m)
{
    uint8_t frame[BW_P2OS_MAX_FRAME];
    int n = bw_p2os_encode_frame(frame, sizeof frame, m);
    if (n > 0)
        bw_device_emit(d, frame, (size_t)n);
}

static void send_sync(bw_device_t *d, uint8_t n)
{
    bw_p2os_msg_t m;
    bw_p2os_msg_init(&m, BW_P2OS_SYNC);
    m.id = n;
    m.u.sync.n = n;
    if (n == 2) {
        m.u.sync.has_info = true;
        snprintf(m.u.sync.name, sizeof m.u.sync.name, "%s", ROBOT_NAME);
        snprintf(m.u.sync.cls, sizeof m.u.sync.cls, "%s", P(d)->model->cls);
        snprintf(m.u.sync.subclass, sizeof m.u.sync.subclass, "%s", P(d)->model->subclass);
    }
    send_msg(d, &m);
}

static uint16_t u16(double x) { return (uint16_t)(x < 0 ? 0 : x > 65535 ? 65535 : lround(x)); }

static void send_config(bw_device_t *d)
{
    const p2os_dev_t *p = P(d);
    const bw_p2os_model_t *mo = p->model;
    bw_p2os_msg_t m;
    bw_p2os_msg_init(&m, BW_P2OS_CONFIG_PAC);
    bw_p2os_config_t *c = &m.u.config;
    snprintf(c->robot_type, sizeof c->robot_type, "%s", mo->cls);
    snprintf(c->subtype, sizeof c->subtype, "%s", mo->subclass);
    snprintf(c->serial, sizeof c->serial, "BW-%s-0001", mo->subclass);
    c->rot_vel_top = ROT_VEL_TOP;
    c->trans_vel_top = TRANS_VEL_TOP;
    c->rot_accel_top = ROT_ACC_TOP;
    c->trans_accel_top = TRANS_ACC_TOP;
    c->pwm_max = 1000;
    snprintf(c->name, sizeof c->name, "%s", ROBOT_NAME);
    c->sip_cycle = (uint8_t)(SIP_PERIOD * 1000);
    c->host_baud = 4; /* 115200 */
    c->front_sonar = 1;
    c->rear_sonar = mo->nsonar > 8;
    c->low_battery = 115;
    c->rev_count = 16384;
    c->watchdog = (uint16_t)(WATCHDOG * 1000);
    c->p2mpacs = 1;
    c->stall_val = 200;
    c->stall_count = 100;
    c->joy_vel = 300;
    c->joy_rvel = 40;
    c->rot_vel_max = u16(p->rot_vel_max);
    c->trans_vel_max = u16(p->trans_vel_max);
    c->rot_accel = u16(p->rot_accel);
    c->rot_decel = u16(p->rot_decel);
    c->rot_kp = 40;
    c->rot_kv = 20;
    c->trans_accel = u16(p->trans_accel);
    c->trans_decel = u16(p->trans_decel);
    c->trans_kp = 40;
    c->trans_kv = 20;
    c->front_bumps = mo->front_bumpers;
    c->rear_bumps = mo->rear_bumpers;
    c->sonar_cycle = (uint8_t)(SIP_PERIOD * 1000 / SONARS_PER_SIP);
    c->ticks_mm = TICKS_PER_MM;
    c->shutdown_voltage = 110;
    c->nfields = BW_P2OS_CONFIG_FIELDS;
    send_msg(d, &m);
}

static double tick_time(const p2os_dev_t *p, unsigned long tick)
{
    return p->t0 + (double)tick * CONTROL_PERIOD;
}

static void send_simstat(bw_device_t *d)
{
    const bw_pose_t *t = &d->sim.body.pose;
    bw_p2os_msg_t m;
    bw_p2os_msg_init(&m, BW_P2OS_SIMSTAT_PAC);
    bw_p2os_simstat_t *s = &m.u.simstat;
    s->flags = BW_P2OS_SIMSTAT_MAP;
    /* MobileSim's cycle is its SIP cycle: what it reports as the simulated
     * interval; the real and last intervals are the gap the SIPs truly
     * came at (the same in virtual time, longer when the machine lags). */
    const p2os_dev_t *p = P(d);
    s->sim_interval = (uint16_t)lround(SIP_PERIOD * 1000);
    s->real_interval = s->last_interval =
        (uint16_t)lround((p->sip_gap > 0 ? fmin(p->sip_gap, 60.0) : SIP_PERIOD) * 1000);
    s->true_x = (int32_t)lround(t->x * 1000);
    s->true_y = (int32_t)lround(t->y * 1000);
    s->true_th = (int32_t)lround(t->theta * 180 / BW_PI);
    s->gps_dop = -1; /* no georeference */
    s->nfields = BW_P2OS_SIMSTAT_FIELDS;
    send_msg(d, &m);
}

/* The host moved the robot by hand (SIM_SET_POSE, SIM_RESET): wherever it
 * says, as MobileSim does. 0, 1 when that is off the map or in a wall. */
static int place(bw_device_t *d, bw_pose_t pose)
{
    int rc = bw_sim_place_anywhere(&d->sim, pose);
    if (rc >= 0) {
        reset_motion(P(d));
        P(d)->v = P(d)->w = 0;
    }
    return rc;
}

static bool is_motion(uint8_t cmd)
{
    switch (cmd) {
    case BW_P2OS_MOVE: case BW_P2OS_ROTATE: case BW_P2OS_RVEL: case BW_P2OS_VEL:
    case BW_P2OS_HEAD: case BW_P2OS_DHEAD: case BW_P2OS_DCHEAD: case BW_P2OS_STOP:
    case BW_P2OS_ESTOP: case BW_P2OS_VEL2:
        return true;
    default: return false;
    }
}

/* A command in an open session; body is the frame's body as it came. */
static void command(bw_device_t *d, const bw_p2os_command_t *c, const uint8_t *body, size_t len,
                    double now)
{
    p2os_dev_t *p = P(d);
    double arg = c->argkind == BW_P2OS_INTARG ? c->value : 0;
    p->last_cmd = now;
    if (is_motion(c->cmd))
        p->last_motion = now;
    switch (c->cmd) {
    case BW_P2OS_PULSE: break;
    case BW_P2OS_OPEN: break; /* already open */
    case BW_P2OS_CLOSE: end_session(d); break;
    case BW_P2OS_ENABLE: p->motors = arg != 0; break;
    case BW_P2OS_SETA:
        if (arg > 0)
            p->trans_accel = fmin(arg, TRANS_ACC_TOP);
        else if (arg < 0)
            p->trans_decel = fmin(-arg, TRANS_ACC_TOP);
        break;
    case BW_P2OS_SETV: p->trans_vel_max = fmin(fabs(arg), TRANS_VEL_TOP); break;
    case BW_P2OS_SETO:
        p->x = p->y = p->th = 0;
        break;
    case BW_P2OS_MOVE:
        p->vel2 = false;
        p->move_mode = true;
        p->move_start_x = p->x;
        p->move_start_y = p->y;
        p->move_heading = p->th;
        p->move_dist = arg;
        break;
    case BW_P2OS_ROTATE:
    case BW_P2OS_RVEL:
        p->vel2 = false;
        p->head_mode = false;
        p->rvel_target = arg;
        break;
    case BW_P2OS_SETRV: p->rot_vel_max = fmin(fabs(arg), ROT_VEL_TOP); break;
    case BW_P2OS_VEL:
        p->vel2 = p->move_mode = false;
        p->vel_target = arg;
        break;
    case BW_P2OS_HEAD:
        p->vel2 = false;
        p->head_mode = true;
        p->head_target = bw_angle_norm(arg * BW_PI / 180);
        break;
    case BW_P2OS_DHEAD:
        p->vel2 = false;
        p->head_mode = true;
        p->head_target = bw_angle_norm(p->th + arg * BW_PI / 180);
        break;
    case BW_P2OS_DCHEAD:
        p->vel2 = false;
        p->head_target = bw_angle_norm((p->head_mode ? p->head_target : p->th) +
                                       arg * BW_PI / 180);
        p->head_mode = true;
        break;
    case BW_P2OS_SETRA:
        if (arg > 0)
            p->rot_accel = fmin(arg, ROT_ACC_TOP);
        else if (arg < 0)
            p->rot_decel = fmin(-arg, ROT_ACC_TOP);
        break;
    case BW_P2OS_SONAR: p->sonar_on = arg != 0; break;
    case BW_P2OS_STOP:
        reset_motion(p);
        break;
    case BW_P2OS_ESTOP:
        reset_motion(p);
        p->v = p->w = 0;
        bw_sim_set_wheels(&d->sim, 0, 0);
        break;
    case BW_P2OS_VEL2: {
        /* Left wheel in the high byte, right in the low, signed, 20 mm/s. */
        uint16_t u = (uint16_t)(int32_t)arg;
        p->vel2 = true;
        p->move_mode = p->head_mode = false;
        p->vel2_left = (int8_t)(u >> 8) * 20.0;
        p->vel2_right = (int8_t)(u & 0xFF) * 20.0;
        break;
    }
    case BW_P2OS_CONFIG: send_config(d); break;
    case BW_P2OS_ENCODER: p->encoder_mode = (int)arg; break;
    case BW_P2OS_DIGOUT: {
        /* High byte selects the bits to change, low byte their values. */
        uint16_t u = (uint16_t)(int32_t)arg;
        uint8_t mask = (uint8_t)(u >> 8), bits = (uint8_t)u;
        p->digout = (uint16_t)((p->digout & ~mask) | (bits & mask));
        break;
    }
    /* The simulator's own commands, as MobileSim and AMRISim take them. */
    case BW_P2OS_SIM_SET_POSE: {
        int32_t x, y, th;
        if (bw_p2os_sim_set_pose_of(body, len, &x, &y, &th) < 0) {
            bw_device_malformed(d);
            break;
        }
        int rc = place(d, (bw_pose_t){ x / 1000.0, y / 1000.0, th * BW_PI / 180 });
        if (rc > 0)
            p->placed_off_map++;
        bw_device_notice(d, "client moved the robot to (%d mm, %d mm, %d deg)%s", (int)x, (int)y,
                         (int)th,
                         rc > 0 ? ": off the map or inside a wall, moved there all the same, as "
                                  "MobileSim does"
                                : "");
        break;
    }
    case BW_P2OS_SIM_RESET:
        (void)place(d, p->start); /* where it started: free by construction */
        p->x = p->y = p->th = 0;
        bw_device_notice(d, "client reset the robot to its start pose");
        break;
    case BW_P2OS_SIM_STAT:
        /* No argument is one packet, as the simulator's documentation has it. */
        if (c->argkind == BW_P2OS_NOARG || arg == 1)
            send_simstat(d);
        else if (arg == 0 || arg == 2)
            p->simstat_mode = (int)arg;
        else
            bw_device_ignored(d, c->cmd);
        break;
    case BW_P2OS_SIM_MESSAGE: {
        char text[BW_P2OS_MAX_BODY + 1];
        size_t n = c->argkind == BW_P2OS_STRARG ? c->len : 0;
        for (size_t i = 0; i < n; i++)
            text[i] = c->str[i] >= 0x20 && c->str[i] < 0x7F ? (char)c->str[i] : '?';
        text[n] = 0;
        bw_device_notice(d, "message from client: %s", text);
        break;
    }
    case BW_P2OS_SIM_EXIT:
        /* The simulators take the magnitude, whatever the sign byte says. */
        end_session(d);
        d->exit_requested = true;
        d->exit_status = (int)fabs(arg) & 0xFF;
        bw_device_notice(d, "client asked the simulator to exit with status %d", d->exit_status);
        break;
    default:
        /* Known and left alone (POLLING, SAY, JOYINFO, BATTERYINFO, SOUNDTOG,
         * the simulated laser, ...), or a number nobody defined: counted
         * either way. */
        if (bw_p2os_command_name(c->cmd))
            bw_device_ignored(d, c->cmd);
        else
            bw_device_unknown(d, c->cmd);
        break;
    }
}

/* The handshake: each SYNC echoed; anything out of order starts it over. */
static void handshake(bw_device_t *d, const bw_p2os_command_t *c, double now)
{
    p2os_dev_t *p = P(d);
    bool bare = c->argkind == BW_P2OS_NOARG;
    if (bare && c->cmd == 0) {
        send_sync(d, 0);
        p->session = WAIT_SYNC1;
        return;
    }
    switch (p->session) {
    case WAIT_SYNC1:
        if (bare && c->cmd == 1) {
            send_sync(d, 1);
            p->session = WAIT_SYNC2;
            return;
        }
        break;
    case WAIT_SYNC2:
        if (bare && c->cmd == 2) {
            send_sync(d, 2);
            p->session = WAIT_OPEN;
            return;
        }
        break;
    case WAIT_OPEN:
        if (c->cmd == BW_P2OS_OPEN) {
            /* OPEN starts the robot's servers: sonar on, motors still off
             * (P2OS and AROS manuals; ARIA never sends SONAR 1 itself). */
            p->session = OPEN;
            p->sonar_on = true;
            p->last_cmd = p->last_motion = now;
            p->sip_tick = p->ticks + (unsigned long)lround(SIP_PERIOD / CONTROL_PERIOD);
            /* The robot's odometry restarts with the session. */
            p->x = p->y = p->th = 0;
            p->last_left = d->sim.body.odo_left;
            p->last_right = d->sim.body.odo_right;
            return;
        }
        bw_device_ignored(d, c->cmd); /* nothing else before OPEN */
        return;
    case WAIT_SYNC0:
        bw_device_ignored(d, c->cmd); /* no session: a command for none */
        return;
    default: break;
    }
    p->session = WAIT_SYNC0;
}

static void input(bw_device_t *d, const uint8_t *data, size_t n, double now)
{
    p2os_dev_t *p = P(d);
    bw_p2os_frame_t f;
    int rc;
    while ((rc = bw_p2os_parse(&p->parser, &data, &n, &f)) != 0) {
        if (rc < 0)
            continue;
        bw_p2os_msg_t m;
        if (bw_p2os_decode(BW_P2OS_FROM_HOST, f.body, f.len, &m) < 0) {
            bw_device_malformed(d);
            continue;
        }
        if (p->session == OPEN)
            command(d, &m.u.command, f.body, f.len, now);
        else
            handshake(d, &m.u.command, now);
    }
    bw_device_link_stats(d, &p->parser.stats);
}

static double approach(double cur, double target, double up, double down, double dt)
{
    /* Speeding up (same sign, larger) uses the acceleration, everything else
     * the deceleration. */
    bool faster = fabs(target) > fabs(cur) && cur * target >= 0;
    double step = (faster ? up : down) * dt;
    if (target > cur)
        return fmin(target, cur + step);
    return fmax(target, cur - step);
}

/* The robot's odometry from its encoders, as P2OS keeps it. */
static void integrate_odometry(bw_device_t *d)
{
    p2os_dev_t *p = P(d);
    const bw_body_t *b = &d->sim.body;
    double dl = (b->odo_left - p->last_left) * 1000, dr = (b->odo_right - p->last_right) * 1000;
    p->last_left = b->odo_left;
    p->last_right = b->odo_right;
    double ds = (dl + dr) / 2, dth = (dr - dl) / p->wheelbase_mm;
    p->x += ds * cos(p->th + dth / 2);
    p->y += ds * sin(p->th + dth / 2);
    p->th = bw_angle_norm(p->th + dth);
}

/* Where the velocity loop's setpoint starts from when the wheels are held
 * still (against a wall, over a drop): a slower target has no speed to
 * shed, so the setpoint drops to it at once, and to 0 first for a reverse,
 * instead of running down the deceleration ramp. It is what drives the
 * motors' current, and the stall bits follow the current: they clear in
 * the SIP after the host's VEL 0 / RVEL 0, as on a P2OS robot, not 0.4-1 s
 * later. Faster targets still ramp up (and strain) as before. */
static double from_held(double setpoint, double target)
{
    if (setpoint * target <= 0)
        return 0;
    return fabs(target) < fabs(setpoint) ? target : setpoint;
}

static void control(bw_device_t *d, double now)
{
    p2os_dev_t *p = P(d);
    const double dt = CONTROL_PERIOD;
    integrate_odometry(d);
    const bw_body_t *b = &d->sim.body;
    bool held = b->blocked || b->drop_left || b->drop_right;
    bool by_velocity = (!p->move_mode && p->vel_target != 0) ||
                       (!p->head_mode && p->rvel_target != 0) ||
                       (p->vel2 && (p->vel2_left != 0 || p->vel2_right != 0));
    bool moving = p->v != 0 || p->w != 0 || p->vel2;
    if (p->session == OPEN && moving && now - p->last_cmd > WATCHDOG) {
        if (by_velocity || p->move_mode || p->head_mode)
            bw_device_notice(d, "watchdog: no command for %.1f s, robot stopped", WATCHDOG);
        reset_motion(p); /* the host went quiet */
    } else if (p->session == OPEN && by_velocity && now - p->last_motion > MOTION_LEASE) {
        /* Only keep-alives since: a client that died while driving, and
         * another one syncing (SYNC0 is PULSE) on the same line. */
        reset_motion(p);
        bw_device_notice(d, "no motion command for %.1f s, only keep-alives: robot stopped",
                         MOTION_LEASE);
    }
    if (!p->motors || p->session != OPEN) {
        p->v = p->w = 0;
        bw_sim_set_wheels(&d->sim, 0, 0);
        return;
    }
    if (p->vel2) {
        /* Each wheel within the translational limits. */
        double l = d->sim.body.cmd_left * 1000, r = d->sim.body.cmd_right * 1000;
        if (held) {
            l = from_held(l, p->vel2_left);
            r = from_held(r, p->vel2_right);
        }
        l = approach(l, p->vel2_left, p->trans_accel, p->trans_decel, dt);
        r = approach(r, p->vel2_right, p->trans_accel, p->trans_decel, dt);
        p->v = (l + r) / 2;
        p->w = (r - l) / p->wheelbase_mm * 180 / BW_PI;
        bw_sim_set_wheels(&d->sim, l / 1000, r / 1000);
        return;
    }
    double vt = p->vel_target;
    if (p->move_mode) {
        double along = (p->x - p->move_start_x) * cos(p->move_heading) +
                       (p->y - p->move_start_y) * sin(p->move_heading);
        double left = p->move_dist - along;
        if (fabs(left) < 1.0) {
            p->move_mode = false;
            p->vel_target = vt = 0;
        } else {
            vt = copysign(fmin(p->trans_vel_max, sqrt(2 * p->trans_decel * fabs(left))), left);
        }
    }
    vt = fmax(-p->trans_vel_max, fmin(p->trans_vel_max, vt));
    double wt = p->rvel_target;
    if (p->head_mode) {
        double err = bw_angle_diff(p->head_target, p->th) * 180 / BW_PI;
        wt = fabs(err) < HEAD_DEADBAND * 180 / BW_PI
                 ? 0
                 : copysign(fmin(p->rot_vel_max, sqrt(2 * p->rot_decel * fabs(err))), err);
    }
    wt = fmax(-p->rot_vel_max, fmin(p->rot_vel_max, wt));
    if (held) {
        p->v = from_held(p->v, vt);
        p->w = from_held(p->w, wt);
    }
    p->v = approach(p->v, vt, p->trans_accel, p->trans_decel, dt);
    p->w = approach(p->w, wt, p->rot_accel, p->rot_decel, dt);
    bw_sim_set_twist(&d->sim, p->v / 1000, p->w * BW_PI / 180);
}

/* Front ring across the front half, rear ring across the back half, each
 * switch numbered from the robot's left: bit 1 is the leftmost. */
static uint16_t bumper_bits(const p2os_dev_t *p, const bw_body_t *b)
{
    if (!b->contact)
        return 0;
    double a = b->contact_angle; /* 0 ahead, +pi/2 left */
    if (fabs(a) <= BW_PI / 2 && p->model->front_bumpers) {
        unsigned n = p->model->front_bumpers;
        unsigned i = (unsigned)fmin(n - 1, floor((BW_PI / 2 - a) / (BW_PI / n)));
        return (uint16_t)(0x0200u << i);
    }
    if (fabs(a) > BW_PI / 2 && p->model->rear_bumpers) {
        unsigned n = p->model->rear_bumpers;
        double from_left = a > 0 ? a - BW_PI / 2 : a + 1.5 * BW_PI; /* 0..pi, left to right */
        unsigned i = (unsigned)fmin(n - 1, floor(from_left / (BW_PI / n)));
        return (uint16_t)(0x0002u << i);
    }
    return 0;
}

static int16_t heading_units(const p2os_dev_t *p, double rad)
{
    double u = bw_angle_norm(rad) / p->model->angle_conv;
    if (u < 0)
        u += 4096;
    return (int16_t)(lround(u) % 4096);
}

static void send_sip(bw_device_t *d)
{
    p2os_dev_t *p = P(d);
    const bw_body_t *b = &d->sim.body;
    const bw_p2os_model_t *mo = p->model;
    bw_p2os_msg_t m;
    bw_p2os_msg_init(&m, BW_P2OS_SIP);
    bw_p2os_sip_t *s = &m.u.sip;
    s->moving = b->left != 0 || b->right != 0;
    m.id = s->moving ? BW_P2OS_PAC_SIP_MOVING : BW_P2OS_PAC_SIP_STOPPED;
    s->xpos = (uint16_t)((unsigned long)lround(p->x / mo->dist_conv) & 0x7FFF);
    s->ypos = (uint16_t)((unsigned long)lround(p->y / mo->dist_conv) & 0x7FFF);
    s->thpos = heading_units(p, p->th);
    s->lvel = (int16_t)lround(b->left * 1000 / mo->vel_conv);
    s->rvel = (int16_t)lround(b->right * 1000 / mo->vel_conv);
    s->battery = (uint8_t)lround(b->battery * 10);
    /* The motors strain against a wall, and with a wheel over a drop (the
     * Pioneer has no cliff sensors: tipped on its chassis at the edge, its
     * wheels cannot carry it on): the stall bits are how P2OS says so. */
    bool stuck = b->blocked || b->drop_left || b->drop_right;
    bool straining = stuck && (p->v != 0 || p->w != 0); /* VEL2 sets v and w too */
    s->stall_bump = (uint16_t)((straining ? BW_P2OS_STALL_LEFT | BW_P2OS_STALL_RIGHT : 0) |
                               bumper_bits(p, b));
    s->control = p->head_mode ? heading_units(p, p->head_target) : s->thpos;
    s->flags = (uint16_t)((p->motors ? BW_P2OS_FLAG_MOTORS : 0) |
                          (p->sonar_on ? BW_P2OS_FLAG_SONAR : 0));
    /* A compass reads where the robot truly points (its world heading,
     * degrees CCW from the world's x axis here), not the odometry, which
     * restarts at 0 with each session and drifts. */
    double deg = bw_angle_norm(b->pose.theta) * 180 / BW_PI;
    s->compass = (uint8_t)((lround(deg < 0 ? deg + 360 : deg) / 2) % 180);
    if (p->sonar_on) {
        for (unsigned k = 0; k < SONARS_PER_SIP && k < mo->nsonar; k++) {
            const bw_p2os_sonar_pose_t *sp = &mo->sonar[p->sonar_next];
            bw_pose_t mount = { sp->x / 1000.0, sp->y / 1000.0, sp->heading * BW_PI / 180 };
            double mm = bw_sim_range(&d->sim, mount, SONAR_MAX_MM / 1000) * 1000;
            s->sonar[s->nsonar].number = (uint8_t)p->sonar_next;
            s->sonar[s->nsonar].range = (uint16_t)lround(mm / mo->range_conv);
            s->nsonar++;
            p->sonar_next = (p->sonar_next + 1) % mo->nsonar;
        }
    }
    s->ntrailing = 4;
    s->digout = (uint8_t)p->digout;
    send_msg(d, &m);

    if (p->encoder_mode > 0) {
        bw_p2os_msg_init(&m, BW_P2OS_ENCODER_PAC);
        m.u.encoder.left = (int32_t)lround(b->odo_left * 1000 * TICKS_PER_MM);
        m.u.encoder.right = (int32_t)lround(b->odo_right * 1000 * TICKS_PER_MM);
        send_msg(d, &m);
        if (p->encoder_mode == 1)
            p->encoder_mode = 0;
    }
}

static void step(bw_device_t *d, double now)
{
    p2os_dev_t *p = P(d);
    for (double t; (t = tick_time(p, p->ticks + 1)) <= now + 1e-9;) {
        p->ticks++;
        bw_sim_step_to(&d->sim, t);
        control(d, t);
        if (p->session == OPEN && p->ticks >= p->sip_tick) {
            /* The gap the SIPs really come at, on the caller's clock (a
             * catch-up sends several at one time: the gap before them holds). */
            if (p->last_sip > 0 && now - p->last_sip > 1e-3)
                p->sip_gap = now - p->last_sip;
            p->last_sip = now;
            if (p->simstat_mode == 2)
                send_simstat(d);
            send_sip(d);
            p->sip_tick += (unsigned long)lround(SIP_PERIOD / CONTROL_PERIOD);
        }
    }
    bw_sim_step_to(&d->sim, now);
}

static double next_deadline(const bw_device_t *d)
{
    const p2os_dev_t *p = P(d);
    /* Output only comes with SIPs (and answers to input), so outside a
     * session nothing is due until the host speaks. */
    return p->session == OPEN ? tick_time(p, p->sip_tick) : INFINITY;
}

static void reset_line(bw_device_t *d)
{
    p2os_dev_t *p = P(d);
    bw_p2os_frame_t f;
    while (bw_p2os_parser_finish(&p->parser, &f) != 0)
        ; /* frames the held bytes still give belong to whoever sent them */
    bw_device_link_stats(d, &p->parser.stats);
}

static void link(bw_device_t *d, bool connected, double now)
{
    (void)now;
    if (!connected)
        end_session(d);
}

static const char *command_name(unsigned id) { return bw_p2os_command_name((uint8_t)id); }

static bool in_session(const bw_device_t *d) { return P(d)->session == OPEN; }

const bw_device_ops_t bw_p2os_device_ops = {
    .family = "p2os",
    .size = sizeof(p2os_dev_t),
    .init = init,
    .input = input,
    .step = step,
    .next_deadline = next_deadline,
    .reset_line = reset_line,
    .link = link,
    .in_session = in_session,
    .command_name = command_name,
};

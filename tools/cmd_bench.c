/* `botwire bench`: codec throughput, one JSON line per protocol and frame shape. */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "../bench/bench.h"
#include "../bench/fleet.h"
#include "cli.h"
#include "commands.h"

static const bench_proto_t *const benches[] = {
    &bench_kobuki,
    &bench_p2os,
    &bench_lobot,
    &bench_create,
    &bench_rbsm,
    &bench_rflex,
};

static void usage(FILE *f)
{
    fprintf(f, "usage: botwire bench [--proto P] [--shape S] [--seconds S]\n"
               "       botwire bench --fleet N [--seconds S] [--port P]\n"
               "\n"
               "Measures parser throughput on the frame shapes each protocol's clients make its\n"
               "robot send, recorded from its emulated robot driving squares (and, where a shape\n"
               "is not what the emulated robot sends, the recorded values encoded again into\n"
               "that shape by the codec), in reads of 4 KiB, pass after pass for S seconds;\n"
               "the rates are the fastest pass's (on a shared machine, the code's speed when it\n"
               "had its core). One JSON line per shape: proto, shape, framing_mb_s (framing and\n"
               "checksum only), decode_mb_s, frames_per_s and messages_per_s (full decode:\n"
               "every message of every frame into its struct), stream_bytes, heap_allocs\n"
               "during the runs; the first shape of a protocol also has sim_hour_s: wall\n"
               "seconds for one hour of robot time (emulated robot and driver through the\n"
               "protocol, in virtual time).\n"
               "\n"
               "  --proto P        only this protocol (default: all)\n"
               "  --shape S        only this shape (default: all)\n"
               "  --seconds S      time per measurement (default 1; 10 with --fleet)\n"
               "\n"
               "The shapes:\n");
    for (size_t i = 0; i < sizeof benches / sizeof benches[0]; i++)
        for (size_t k = 0; k < benches[i]->nshapes; k++)
            fprintf(f, "  %-7s %-10s %s\n", k ? "" : benches[i]->name,
                    benches[i]->shapes[k].name, benches[i]->shapes[k].what);
    fprintf(f, "\n"
               "--fleet N: how many emulated P2OS robots one core serves in real time. A\n"
               "`botwire sim p2os --robots K` on the first core serves K robots in one world\n"
               "on TCP ports from P (default 20101); this process, on the second core,\n"
               "drives each in a slow circle through the host driver and counts its SIPs.\n"
               "K goes up in steps to N; a line each: server_cpu (cores), cpu_per_robot_ms_s\n"
               "(ms of CPU per robot per second), sips of expected, late (robots with a gap\n"
               "over 150 ms), real_time (every SIP, none late). It stops at the first K that\n"
               "does not hold. Then drive_cpu_s_per_hour: the CPU a `botwire drive` process\n"
               "spends on a 50 Hz Kobuki link (an emulated Kobuki on a pty), per hour.\n"
               "  -h, --help       this help\n");
}

/* One decimal: the JSON line's MB/s. */
static double round1(double x) { return (double)(long long)(x * 10) / 10; }

static void fleet_line(void *ctx, const bench_fleet_result_t *r)
{
    (void)ctx;
    printf("{\"fleet\":%zu,\"seconds\":%g,\"server_cpu\":%.3f,\"cpu_per_robot_ms_s\":%.3f,"
           "\"sips\":%llu,\"expected\":%llu,\"late\":%llu,\"max_gap_ms\":%.1f,\"real_time\":%s}\n",
           r->robots, r->seconds, r->server_cpu, r->server_cpu * 1000 / (double)r->robots,
           (unsigned long long)r->sips, (unsigned long long)r->expected,
           (unsigned long long)r->late, r->max_gap * 1000, r->real_time ? "true" : "false");
    fflush(stdout);
}

static int fleet_bench(size_t n, double seconds, int port)
{
    if (port + (int)n - 1 > 65535) {
        cli_error("bench", "%zu robots from port %d go beyond port 65535", n, port);
        return 2;
    }
    fprintf(stderr, "botwire bench: fleets of emulated P2OS robots up to %zu, %g s each, on "
                    "ports from %d ...\n", n, seconds, port);
    if (bench_fleet(n, seconds, port, fleet_line, NULL) < 0)
        return 1;
    fprintf(stderr, "botwire bench: a drive process on a 50 Hz Kobuki link, %g s ...\n", seconds);
    double per_hour;
    if (bench_drive_cpu(seconds, &per_hour) < 0) {
        cli_error("bench", "the Kobuki drive run failed");
        return 1;
    }
    printf("{\"drive\":\"kobuki\",\"link_hz\":50,\"drive_cpu_s_per_hour\":%.2f}\n", per_hour);
    return 0;
}

int cmd_bench(int argc, char **argv)
{
    static const struct option opts[] = {
        { "proto", required_argument, NULL, 'p' },
        { "shape", required_argument, NULL, 'S' },
        { "seconds", required_argument, NULL, 's' },
        { "fleet", required_argument, NULL, 'f' },
        { "port", required_argument, NULL, 'P' },
        { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 },
    };
    const char *proto = NULL, *shape = NULL;
    double seconds = 0, fleet = 0, port = 20101;
    int c;
    optind = 0;
    while ((c = cli_getopt("bench", argc, argv, "h", opts)) != -1) {
        switch (c) {
        case 'p': proto = optarg; break;
        case 'S': shape = optarg; break;
        case 's': {
            char *end;
            seconds = strtod(optarg, &end);
            if (*end || !(seconds > 0 && seconds <= 600)) {
                cli_error("bench", "--seconds must be a number in (0, 600], not \"%s\"", optarg);
                return 2;
            }
            break;
        }
        case 'f':
            if (cli_number("bench", "--fleet", optarg, 1, BW_FLEET_MAX, &fleet) < 0)
                return 2;
            break;
        case 'P':
            if (cli_number("bench", "--port", optarg, 1024, 65535, &port) < 0)
                return 2;
            break;
        case 'h': usage(stdout); return 0;
        default: return 2;
        }
    }
    if (optind < argc) {
        cli_error("bench", "unexpected argument \"%s\"", argv[optind]);
        return 2;
    }
    if (proto) {
        bool known = false;
        char names[160] = "";
        size_t n = 0;
        for (size_t i = 0; i < sizeof benches / sizeof benches[0]; i++) {
            known |= strcmp(proto, benches[i]->name) == 0;
            if (n < sizeof names)
                n += (size_t)snprintf(names + n, sizeof names - n, "%s%s", i ? ", " : "",
                                      benches[i]->name);
        }
        if (!known) {
            cli_error("bench", "no benchmark for protocol \"%s\" (known: %s)", proto, names);
            return 2;
        }
    }
    if (shape) {
        /* Known among the protocols picked: a bad name lists theirs. */
        bool known = false;
        char names[400] = "";
        size_t n = 0;
        for (size_t i = 0; i < sizeof benches / sizeof benches[0]; i++) {
            if (proto && strcmp(proto, benches[i]->name) != 0)
                continue;
            for (size_t k = 0; k < benches[i]->nshapes; k++) {
                const char *name = benches[i]->shapes[k].name;
                known |= strcmp(shape, name) == 0;
                if (n < sizeof names)
                    n += (size_t)snprintf(names + n, sizeof names - n, "%s%s", n ? ", " : "",
                                          name);
            }
        }
        if (!known) {
            cli_error("bench", "no shape \"%s\"%s%s (known: %s)", shape, proto ? " for " : "",
                      proto ? proto : "", names);
            return 2;
        }
    }
    if (fleet > 0)
        return fleet_bench((size_t)fleet, seconds > 0 ? seconds : 10, (int)port);
    if (seconds == 0)
        seconds = 1.0;
    bool any = false;
    for (size_t i = 0; i < sizeof benches / sizeof benches[0]; i++) {
        const bench_proto_t *b = benches[i];
        if (proto && strcmp(proto, b->name) != 0)
            continue;
        for (size_t k = 0; k < b->nshapes; k++) {
            const bench_shape_t *sh = &b->shapes[k];
            if (shape && strcmp(shape, sh->name) != 0)
                continue;
            any = true;
            fprintf(stderr,
                    "botwire bench: %s %s: recording a stream from its emulated robot, then "
                    "framing and full decode%s (%g s each) ...\n",
                    b->name, sh->name, k == 0 ? " and an hour of robot time" : "", seconds);
            bench_result_t r;
            if (bench_run(b, sh, seconds, &r) < 0) {
                cli_error("bench", "%s %s: could not record a stream from its emulated robot",
                          b->name, sh->name);
                return 1;
            }
            double hour = k == 0 ? bench_sim_hour(b) : -1;
            json_t *o = json_object();
            json_object_set_new(o, "proto", json_string(r.proto));
            json_object_set_new(o, "shape", json_string(r.shape));
            json_object_set_new(o, "framing_mb_s", json_real(round1(r.framing_mb_s)));
            json_object_set_new(o, "decode_mb_s", json_real(round1(r.decode_mb_s)));
            json_object_set_new(o, "frames_per_s", json_integer((json_int_t)r.frames_per_s));
            json_object_set_new(o, "messages_per_s", json_integer((json_int_t)r.messages_per_s));
            json_object_set_new(o, "stream_bytes", json_integer((json_int_t)r.stream_bytes));
            json_object_set_new(o, "heap_allocs",
                                r.heap_allocs < 0 ? json_null() : json_integer(r.heap_allocs));
            if (hour >= 0)
                json_object_set_new(o, "sim_hour_s",
                                    json_real((double)(long long)(hour * 1000) / 1000));
            json_dumpf(o, stdout, JSON_COMPACT | JSON_REAL_PRECISION(10));
            json_decref(o);
            putchar('\n');
            int out = cli_flush_out("bench");
            if (out)
                return out;
        }
    }
    return any ? 0 : 2;
}

/* `botwire bench`: codec throughput, one JSON line per protocol. */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "../bench/bench.h"
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
    fprintf(f, "usage: botwire bench [--proto P] [--seconds S]\n"
               "\n"
               "Measures parser throughput on a stream recorded from each protocol's emulated\n"
               "robot driving squares, and prints\n"
               "one JSON line per protocol: framing_mb_s (framing and checksum only),\n"
               "decode_mb_s and frames_per_s (full decode), heap_allocs during the runs,\n"
               "and sim_hour_s: wall seconds for one hour of robot time (emulated robot and\n"
               "driver through the protocol, in virtual time).\n"
               "\n"
               "  --proto P        only this protocol (default: all)\n"
               "  --seconds S      time per measurement (default 1)\n"
               "  -h, --help       this help\n");
}

int cmd_bench(int argc, char **argv)
{
    static const struct option opts[] = {
        { "proto", required_argument, NULL, 'p' },
        { "seconds", required_argument, NULL, 's' },
        { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 },
    };
    const char *proto = NULL;
    double seconds = 1.0;
    int c;
    optind = 0;
    while ((c = cli_getopt("bench", argc, argv, "h", opts)) != -1) {
        switch (c) {
        case 'p': proto = optarg; break;
        case 's': {
            char *end;
            seconds = strtod(optarg, &end);
            if (*end || !(seconds > 0 && seconds <= 600)) {
                cli_error("bench", "--seconds must be a number in (0, 600], not \"%s\"", optarg);
                return 2;
            }
            break;
        }
        case 'h': usage(stdout); return 0;
        default: return 2;
        }
    }
    if (optind < argc) {
        cli_error("bench", "unexpected argument \"%s\"", argv[optind]);
        return 2;
    }
    bool any = false;
    for (size_t i = 0; i < sizeof benches / sizeof benches[0]; i++) {
        if (proto && strcmp(proto, benches[i]->name) != 0)
            continue;
        any = true;
        fprintf(stderr,
                "botwire bench: %s: recording a stream from its emulated robot, then framing, "
                "full decode and an hour of robot time (%g s each) ...\n",
                benches[i]->name, seconds);
        bench_result_t r;
        if (bench_run(benches[i], seconds, &r) < 0) {
            cli_error("bench", "%s: could not record a stream from its emulated robot",
                      benches[i]->name);
            return 1;
        }
        json_t *o = json_object();
        json_object_set_new(o, "proto", json_string(r.proto));
        json_object_set_new(o, "framing_mb_s", json_real((double)(long long)(r.framing_mb_s * 10) / 10));
        json_object_set_new(o, "decode_mb_s", json_real((double)(long long)(r.decode_mb_s * 10) / 10));
        json_object_set_new(o, "frames_per_s", json_integer((json_int_t)r.frames_per_s));
        json_object_set_new(o, "stream_bytes", json_integer((json_int_t)r.stream_bytes));
        json_object_set_new(o, "heap_allocs", r.heap_allocs < 0 ? json_null() : json_integer(r.heap_allocs));
        if (r.sim_hour_s >= 0)
            json_object_set_new(o, "sim_hour_s", json_real((double)(long long)(r.sim_hour_s * 1000) / 1000));
        json_dumpf(o, stdout, JSON_COMPACT | JSON_REAL_PRECISION(10));
        json_decref(o);
        putchar('\n');
        fflush(stdout);
    }
    if (!any) {
        cli_error("bench", "no benchmark for protocol \"%s\"", proto);
        return 2;
    }
    return 0;
}

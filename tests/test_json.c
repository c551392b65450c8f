/* libbotwire_json (botwire/json.h): the text of `botwire decode` from a
 * library, in any split, raw bytes and record files; `botwire encode`'s
 * frames and its one-line reasons. The same lines the README shows the
 * command writing. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "botwire/botwire.h"
#include "botwire/json.h"

/* Everything a decoder writes for `in`, pushed in pieces of `step` bytes. */
static void decode_all(const char *proto, const char *from, const uint8_t *in, size_t n,
                       size_t step, char *out, size_t cap)
{
    bw_json_decoder_t *d;
    char err[256];
    assert_int_equal(bw_json_decoder_new(&d, proto, NULL, from, false, err, sizeof err), 0);
    size_t used = 0, len;
    for (size_t at = 0; at < n; at += step) {
        assert_int_equal(bw_json_decoder_push(d, in + at, at + step <= n ? step : n - at), 0);
        const char *text = bw_json_decoder_text(d, &len);
        assert_true(used + len < cap);
        memcpy(out + used, text, len);
        used += len;
    }
    assert_int_equal(bw_json_decoder_finish(d), 0);
    const char *text = bw_json_decoder_text(d, &len);
    assert_true(used + len < cap);
    memcpy(out + used, text, len);
    out[used + len] = 0;
    assert_int_equal(bw_json_decoder_push(d, in, 1), BW_ESTATE);
    bw_json_decoder_free(d);
}

/* README: echo 'aa 55 04 09 02 0b 00 04' | botwire decode --proto kobuki --from host --hex */
static void test_decode_as_the_command(void **state)
{
    (void)state;
    static const uint8_t frame[] = { 0xaa, 0x55, 0x04, 0x09, 0x02, 0x0b, 0x00, 0x04 };
    static const char want[] =
        "{\"type\":\"request_extra\",\"flags\":11}\n"
        "{\"type\":\"stats\",\"frames\":1,\"checksum_errors\":0,\"length_errors\":0,"
        "\"skipped_bytes\":0,\"unknown\":0}\n";
    char out[1024];
    for (size_t step = 1; step <= sizeof frame; step++) {
        decode_all("kobuki", "host", frame, sizeof frame, step, out, sizeof out);
        assert_string_equal(out, want);
    }
    /* From the robot (the default for raw bytes) the same bytes are unknown. */
    decode_all("KOBUKI", NULL, frame, sizeof frame, 8, out, sizeof out);
    assert_non_null(strstr(out, "\"unknown\":1}"));
}

/* A record: both sides, each message with its chunk's "t" and "from", the
 * damaged line counted and passed over (docs/record-format.md). */
static void test_decode_record(void **state)
{
    (void)state;
    static const char rec[] =
        "{\"botwire_record\":1,\"url\":\"kobuki:/dev/x\",\"family\":\"kobuki\"}\n"
        "{\"t\":0.5,\"from\":\"host\",\"data\":\"aa5504090"
        "20b0004\"}\n"
        "{\"t\":0.25,\"from\":\"rob\n"
        "{\"t\":1,\"from\":\"host\",\"data\":\"aa55060104640000006"
        "7\"}\n";
    char out[2048];
    decode_all("kobuki", NULL, (const uint8_t *)rec, sizeof rec - 1, 7, out, sizeof out);
    assert_string_equal(out,
        "{\"type\":\"request_extra\",\"flags\":11,\"t\":0.5,\"from\":\"host\"}\n"
        "{\"type\":\"base_control\",\"speed\":100,\"radius\":0,\"t\":1.0,\"from\":\"host\"}\n"
        "{\"type\":\"stats\",\"frames\":2,\"checksum_errors\":0,\"length_errors\":0,"
        "\"skipped_bytes\":0,\"unknown\":0,\"damaged_lines\":1}\n");
    bw_json_decoder_t *d;
    char err[256], warning[160];
    assert_int_equal(bw_json_decoder_new(&d, "kobuki", NULL, NULL, false, err, sizeof err), 0);
    assert_int_equal(bw_json_decoder_push(d, (const uint8_t *)rec, sizeof rec - 1), 0);
    assert_int_equal(bw_json_decoder_next_warning(d, warning, sizeof warning), 1);
    assert_non_null(strstr(warning, "line 3: malformed JSON"));
    assert_int_equal(bw_json_decoder_next_warning(d, warning, sizeof warning), 0);
    bw_json_decoder_free(d);
}

/* README: echo '{"type":"base_control","speed":100,"radius":0}' | botwire encode --proto kobuki */
static void test_encode(void **state)
{
    (void)state;
    static const char line[] = "{\"type\":\"base_control\",\"speed\":100,\"radius\":0}";
    static const uint8_t want[] = { 0xaa, 0x55, 0x06, 0x01, 0x04, 0x64, 0x00, 0x00, 0x00, 0x67 };
    uint8_t out[64];
    size_t n;
    char err[256];
    assert_int_equal(bw_json_encode("kobuki", line, strlen(line), out, sizeof out, &n, err,
                                    sizeof err), 0);
    assert_int_equal(n, sizeof want);
    assert_memory_equal(out, want, sizeof want);
    assert_int_equal(bw_json_encode("kobuki", line, strlen(line), out, 4, &n, err, sizeof err),
                     BW_ENOSPC);
    assert_int_equal(n, sizeof want);
    static const char stats[] = "{\"type\":\"stats\",\"frames\":1}";
    assert_int_equal(bw_json_encode("kobuki", stats, strlen(stats), out, sizeof out, &n, err,
                                    sizeof err), 1);
    static const char bad[] = "{\"type\":\"base_control\",\"speed\":100000,\"radius\":0}";
    assert_int_equal(bw_json_encode("kobuki", bad, strlen(bad), out, sizeof out, &n, err,
                                    sizeof err), BW_EINVAL);
    assert_non_null(strstr(err, "\"speed\": 100000 is out of range"));
    assert_int_equal(bw_json_encode("roomba", line, strlen(line), out, sizeof out, &n, err,
                                    sizeof err), BW_EUNKNOWN);
    assert_non_null(strstr(err, "one of: kobuki, p2os"));
}

static void test_bad_decoder(void **state)
{
    (void)state;
    bw_json_decoder_t *d;
    char err[256];
    assert_int_equal(bw_json_decoder_new(&d, "kobuki", NULL, "both", false, err, sizeof err),
                     BW_EINVAL);
    assert_null(d);
    assert_int_equal(bw_json_decoder_new(&d, "rbsm", "nonsense", NULL, false, err, sizeof err),
                     BW_EINVAL);
    assert_int_equal(bw_json_decoder_new(&d, "hal", NULL, NULL, false, err, sizeof err),
                     BW_EUNKNOWN);
    assert_non_null(strstr(err, "unknown protocol \"hal\""));
    assert_string_equal(bw_json_protocols(), "kobuki, p2os, lobot, create, rbsm, rflex");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_decode_as_the_command),
        cmocka_unit_test(test_decode_record),
        cmocka_unit_test(test_encode),
        cmocka_unit_test(test_bad_decoder),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

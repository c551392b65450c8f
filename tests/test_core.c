/* Core: errors, byte order, checksums, statistics, field descriptors. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "botwire/wire.h"

/* Every byte value: the 22 hexadecimal digits and nothing else. */
static void test_hex_value_every_byte(void **state)
{
    (void)state;
    int digits = 0;
    for (int c = 0; c < 256; c++) {
        int v = bw_hex_value(c);
        if (c >= '0' && c <= '9')
            assert_int_equal(v, c - '0');
        else if (c >= 'a' && c <= 'f')
            assert_int_equal(v, c - 'a' + 10);
        else if (c >= 'A' && c <= 'F')
            assert_int_equal(v, c - 'A' + 10);
        else
            assert_int_equal(v, -1);
        digits += v >= 0;
    }
    assert_int_equal(digits, 22);
    assert_int_equal(bw_hex_value(-1), -1);
}

static void test_strerror_every_code(void **state)
{
    (void)state;
    const char *seen[16] = { 0 };
    for (int e = 0; e >= BW_ESTATE; e--) {
        const char *s = bw_strerror(e);
        assert_non_null(s);
        assert_string_not_equal(s, "unknown error");
        for (int k = 0; k < -e; k++)
            assert_string_not_equal(s, seen[k]); /* every code has its own text */
        seen[-e] = s;
    }
    assert_string_equal(bw_strerror(-1000), "unknown error");
    assert_string_equal(bw_strerror(0), "ok");
}

static void test_byte_order(void **state)
{
    (void)state;
    const uint8_t b[4] = { 0xDD, 0xCC, 0xBB, 0xAA };
    assert_int_equal(bw_get_le32(b), 0xAABBCCDDu); /* the seed's LSB-first example */
    assert_int_equal(bw_get_be32(b), 0xDDCCBBAAu);
    assert_int_equal(bw_get_le16(b), 0xCCDDu);
    assert_int_equal(bw_get_be16(b), 0xDDCCu);
    uint8_t o[4];
    bw_put_le32(o, 2864434397u);
    assert_memory_equal(o, b, 4);
    bw_put_be32(o, 0x01020304u);
    assert_int_equal(o[0], 1);
    assert_int_equal(o[3], 4);
    bw_put_le16(o, 0x1234);
    assert_int_equal(o[0], 0x34);
    bw_put_be16(o, 0x1234);
    assert_int_equal(o[0], 0x12);
}

static void test_wrap_delta16(void **state)
{
    (void)state;
    assert_int_equal(bw_wrap_delta16(5, 65530), 11);
    assert_int_equal(bw_wrap_delta16(65530, 5), -11);
    assert_int_equal(bw_wrap_delta16(100, 100), 0);
    assert_int_equal(bw_wrap_delta16(0x8000, 0), -32768);
    assert_int_equal(bw_wrap_delta16(0x7FFF, 0), 32767);
}

static void test_xor8_matches_bytewise(void **state)
{
    (void)state;
    uint8_t buf[64];
    for (size_t i = 0; i < sizeof buf; i++)
        buf[i] = (uint8_t)(i * 37 + 11);
    for (size_t n = 0; n <= sizeof buf; n++) {
        for (size_t start = 0; start < 8 && start + n <= sizeof buf; start++) {
            uint8_t x = 0;
            for (size_t i = 0; i < n; i++)
                x ^= buf[start + i];
            assert_int_equal(bw_xor8(buf + start, n), x);
        }
    }
}

static void test_sum16_pairs_golden(void **state)
{
    (void)state;
    /* P2OS checksums from PROTOCOL-NOTES.md. */
    const uint8_t sync0[] = { 0x00 };
    const uint8_t open1[] = { 0x01, 0x3B, 0x01, 0x00 };
    const uint8_t vel_neg[] = { 0x0B, 0x1B, 0xC8, 0x00 };
    const uint8_t odd[] = { 0x0F, 0x2B, 0x02, 0x61, 0x62 };
    assert_int_equal(bw_sum16_pairs(sync0, 1), 0x0000);
    assert_int_equal(bw_sum16_pairs(open1, 4), 0x023B);
    assert_int_equal(bw_sum16_pairs(vel_neg, 4), 0xD31B);
    assert_int_equal(bw_sum16_pairs(odd, 5), 0x11EE);
    /* Carries out of 16 bits are dropped. */
    const uint8_t big[] = { 0xFF, 0xFF, 0x00, 0x02 };
    assert_int_equal(bw_sum16_pairs(big, 4), 0x0001);
}

/* The sum as the notes define it, a pair at a time. */
static uint16_t sum16_reference(const uint8_t *p, size_t n)
{
    uint16_t sum = 0;
    size_t i = 0;
    for (; i + 1 < n; i += 2)
        sum = (uint16_t)(sum + (p[i] << 8 | p[i + 1]));
    if (i < n)
        sum ^= p[i];
    return sum;
}

/* The word-at-a-time sum against the pair-at-a-time one: every length up to
 * 1200 bytes (past a round of 64 words, where the lanes are emptied), from
 * every alignment, on all-0xFF bytes (the lanes' worst case: a round that
 * held more words would carry between lanes) and on random ones. */
static void test_sum16_pairs_every_length(void **state)
{
    (void)state;
    static uint8_t ff[1208], rnd[1208];
    memset(ff, 0xFF, sizeof ff);
    uint32_t x = 12345;
    for (size_t i = 0; i < sizeof rnd; i++) {
        x = x * 1103515245u + 12345u;
        rnd[i] = (uint8_t)(x >> 16);
    }
    for (size_t at = 0; at < 8; at++)
        for (size_t n = 0; n + at <= 1200; n++) {
            assert_int_equal(bw_sum16_pairs(ff + at, n), sum16_reference(ff + at, n));
            assert_int_equal(bw_sum16_pairs(rnd + at, n), sum16_reference(rnd + at, n));
        }
}

static void test_stats_add(void **state)
{
    (void)state;
    bw_parse_stats_t a = { 1, 2, 3, 4, 5, 6 }, b = { 10, 20, 30, 40, UINT32_MAX + 1ull, 60 };
    bw_parse_stats_add(&a, &b);
    assert_int_equal(a.frames, 11);
    assert_int_equal(a.checksum_errors, 22);
    assert_int_equal(a.length_errors, 33);
    assert_int_equal(a.skipped_bytes, 44);
    assert_true(a.unknown == UINT32_MAX + 6ull); /* 64-bit counters */
    assert_int_equal(a.implausible, 66);
}

typedef struct {
    uint8_t u8;
    int8_t i8;
    uint16_t u16;
    int16_t i16[2];
    uint32_t u32;
    int32_t i32;
} sample_t;

static const bw_field_t sample_fields[] = {
    { "u8", BW_FT_U8, 1, offsetof(sample_t, u8) },
    { "i8", BW_FT_I8, 1, offsetof(sample_t, i8) },
    { "pad", BW_FT_PAD, 2, 0 },
    { "u16", BW_FT_U16, 1, offsetof(sample_t, u16) },
    { "i16", BW_FT_I16, 2, offsetof(sample_t, i16) },
    { "u32", BW_FT_U32, 1, offsetof(sample_t, u32) },
    { "i32", BW_FT_I32, 1, offsetof(sample_t, i32) },
};

static void test_descriptor_le_and_be(void **state)
{
    (void)state;
    sample_t s = { 0xFE, -2, 0x1234, { -1, 0x7FFF }, 0xA1B2C3D4u, -5 };
    bw_msgdesc_t le = { "sample", sample_fields, 7, 18, BW_ORDER_LE };
    bw_msgdesc_t be = le;
    be.order = BW_ORDER_BE;
    uint8_t w[18];
    memset(w, 0x99, sizeof w);
    bw_desc_encode(&le, &s, w);
    const uint8_t want_le[18] = { 0xFE, 0xFE, 0, 0, 0x34, 0x12, 0xFF, 0xFF, 0xFF, 0x7F,
                                  0xD4, 0xC3, 0xB2, 0xA1, 0xFB, 0xFF, 0xFF, 0xFF };
    assert_memory_equal(w, want_le, 18);
    sample_t back;
    memset(&back, 0, sizeof back);
    bw_desc_decode(&le, w, &back);
    assert_memory_equal(&back, &s, sizeof s);

    bw_desc_encode(&be, &s, w);
    const uint8_t want_be[18] = { 0xFE, 0xFE, 0, 0, 0x12, 0x34, 0xFF, 0xFF, 0x7F, 0xFF,
                                  0xA1, 0xB2, 0xC3, 0xD4, 0xFF, 0xFF, 0xFF, 0xFB };
    assert_memory_equal(w, want_be, 18);
    memset(&back, 0, sizeof back);
    bw_desc_decode(&be, w, &back);
    assert_memory_equal(&back, &s, sizeof s);

    assert_int_equal(bw_field_get(&s, &sample_fields[1], 0), -2);
    assert_int_equal(bw_field_get(&s, &sample_fields[4], 1), 0x7FFF);
    bw_field_set(&s, &sample_fields[6], 0, INT32_MIN);
    assert_int_equal(s.i32, INT32_MIN);
}

static void test_ftype_ranges(void **state)
{
    (void)state;
    assert_int_equal(bw_ftype_min(BW_FT_I8), -128);
    assert_int_equal(bw_ftype_max(BW_FT_I8), 127);
    assert_int_equal(bw_ftype_max(BW_FT_U8), 255);
    assert_int_equal(bw_ftype_min(BW_FT_U16), 0);
    assert_int_equal(bw_ftype_max(BW_FT_U16), 65535);
    assert_int_equal(bw_ftype_min(BW_FT_I16), -32768);
    assert_true(bw_ftype_max(BW_FT_U32) == 4294967295ll);
    assert_true(bw_ftype_min(BW_FT_I32) == -2147483648ll);
    assert_int_equal(bw_ftype_size(BW_FT_U32), 4);
    assert_int_equal(bw_ftype_size(BW_FT_I16), 2);
    assert_int_equal(bw_ftype_size(BW_FT_PAD), 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_strerror_every_code),
        cmocka_unit_test(test_hex_value_every_byte),
        cmocka_unit_test(test_byte_order),
        cmocka_unit_test(test_sum16_pairs_every_length),
        cmocka_unit_test(test_wrap_delta16),
        cmocka_unit_test(test_xor8_matches_bytewise),
        cmocka_unit_test(test_sum16_pairs_golden),
        cmocka_unit_test(test_stats_add),
        cmocka_unit_test(test_descriptor_le_and_be),
        cmocka_unit_test(test_ftype_ranges),
    };
    return cmocka_run_group_tests_name("core", tests, NULL, NULL);
}

/* Kobuki conversions between wire units and SI. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "botwire/kobuki.h"

static bw_kobuki_base_control_t bc(double v, double w)
{
    return bw_kobuki_base_control_from_twist(v, w);
}

static void test_pure_translation(void **state)
{
    (void)state;
    assert_int_equal(bc(0.1, 0).speed, 100);
    assert_int_equal(bc(0.1, 0).radius, 0);
    assert_int_equal(bc(-0.25, 0).speed, -250);
    assert_int_equal(bc(0.1, 0.00005).radius, 0); /* below epsilon: straight */
    assert_int_equal(bc(40.0, 0).speed, INT16_MAX); /* saturates */
    assert_int_equal(bc(-40.0, 0).speed, INT16_MIN);
}

static void test_pure_rotation(void **state)
{
    (void)state;
    /* speed = w * b / 2 in mm/s, b = 230 mm, radius 1 */
    assert_int_equal(bc(0, 1.0).radius, 1);
    assert_int_equal(bc(0, 1.0).speed, 115);
    assert_int_equal(bc(0, -2.0).speed, -230);
    /* |R| <= 1 mm counts as rotation in place. */
    assert_int_equal(bc(0.0005, 1.0).radius, 1);
}

static void test_arc(void **state)
{
    (void)state;
    /* R = 1000 v / w; speed = (R + 115) w for R > 0, (R - 115) w for R < 0. */
    bw_kobuki_base_control_t a = bc(0.2, 0.5);
    assert_int_equal(a.radius, 400);
    assert_int_equal(a.speed, 258); /* 257.5 rounded away from zero */
    a = bc(0.2, -0.5);
    assert_int_equal(a.radius, -400);
    assert_int_equal(a.speed, 258);
    a = bc(-0.2, 0.5);
    assert_int_equal(a.radius, -400);
    assert_int_equal(a.speed, -258);
    a = bc(-0.2, -0.5);
    assert_int_equal(a.radius, 400);
    assert_int_equal(a.speed, -258);
    /* A near-straight arc whose radius saturates keeps its forward speed. */
    a = bc(0.5, 0.001);
    assert_int_equal(a.radius, INT16_MAX);
    double v, w;
    bw_kobuki_base_control_to_twist(a, &v, &w);
    assert_true(fabs(v - 0.5) < 0.002);
}

static void test_twist_roundtrip(void **state)
{
    (void)state;
    const double vs[] = { -0.7, -0.2, 0, 0.05, 0.3, 0.7 };
    const double ws[] = { -3.0, -0.5, 0, 0.1, 1.0, 3.0 };
    for (size_t i = 0; i < sizeof vs / sizeof vs[0]; i++) {
        for (size_t k = 0; k < sizeof ws / sizeof ws[0]; k++) {
            double v, w;
            bw_kobuki_base_control_to_twist(bc(vs[i], ws[k]), &v, &w);
            /* Rounding to whole mm/s and mm bounds the error. */
            assert_true(fabs(v - vs[i]) < 0.003);
            assert_true(fabs(w - ws[k]) < 0.01);
        }
    }
}

static void test_wheels(void **state)
{
    (void)state;
    double l, r;
    bw_kobuki_base_control_to_wheels((bw_kobuki_base_control_t){ 100, 0 }, &l, &r);
    assert_true(fabs(l - 100) < 1e-9 && fabs(r - 100) < 1e-9);
    /* Rotation in place: the wheels turn at `speed` in opposite senses. */
    bw_kobuki_base_control_to_wheels((bw_kobuki_base_control_t){ 115, 1 }, &l, &r);
    assert_true(fabs(l + 115) < 1e-9 && fabs(r - 115) < 1e-9);
    bw_kobuki_base_control_to_wheels((bw_kobuki_base_control_t){ 115, -1 }, &l, &r);
    assert_true(fabs(l - 115) < 1e-9 && fabs(r + 115) < 1e-9);
    /* On an arc to the left the right wheel is the outer one, at `speed`. */
    bw_kobuki_base_control_to_wheels((bw_kobuki_base_control_t){ 258, 400 }, &l, &r);
    assert_true(fabs(r - 258) < 1e-9);
    assert_true(fabs(l - 258.0 * 285.0 / 515.0) < 1e-9);
}

static void test_ticks_and_angles(void **state)
{
    (void)state;
    assert_true(fabs(bw_kobuki_ticks_to_m(11724) - 1.0) < 1e-4); /* 11724.41658 ticks/m */
    assert_true(fabs(bw_kobuki_ticks_to_m(-11724) + 1.0) < 1e-4);
    assert_true(fabs(bw_kobuki_centideg_to_rad(18000) - M_PI) < 1e-12);
    assert_true(fabs(bw_kobuki_centideg_to_rad(-9000) + M_PI / 2) < 1e-12);
    /* Encoders wrap at 16 bits. */
    assert_int_equal(bw_wrap_delta16(20, 65516), 40);
}

static void test_gyro_axes(void **state)
{
    (void)state;
    const int16_t raw[3] = { 1000, 2000, -3000 };
    double dps[3];
    bw_kobuki_gyro_to_dps(raw, dps);
    assert_true(fabs(dps[0] - (-2000 * 0.00875)) < 1e-12); /* x = -raw_y */
    assert_true(fabs(dps[1] - (1000 * 0.00875)) < 1e-12);  /* y = raw_x */
    assert_true(fabs(dps[2] - (-3000 * 0.00875)) < 1e-12); /* z = raw_z */
}

static void test_sound_notes(void **state)
{
    (void)state;
    /* note = 1 / (f * 0.00000275) */
    assert_int_equal(bw_kobuki_note_from_hz(440.0), 826);
    assert_true(fabs(bw_kobuki_note_to_hz(826) - 440.0) < 1.0);
    assert_int_equal(bw_kobuki_note_from_hz(0), 0);
    assert_int_equal(bw_kobuki_note_from_hz(-5), 0);
    assert_int_equal(bw_kobuki_note_from_hz(1.0), 0); /* too low to encode */
    assert_true(bw_kobuki_note_to_hz(0) == 0.0);
}

static void test_legacy_version(void **state)
{
    (void)state;
    bw_kobuki_version_t v = bw_kobuki_version_from_legacy(104);
    assert_int_equal(v.major, 1);
    assert_int_equal(v.minor, 0);
    assert_int_equal(v.patch, 4);
    assert_true(v.legacy);
    v = bw_kobuki_version_from_legacy(65535);
    assert_int_equal(v.major, 655);
    assert_int_equal(v.minor, 3);
    assert_int_equal(v.patch, 5);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pure_translation),
        cmocka_unit_test(test_pure_rotation),
        cmocka_unit_test(test_arc),
        cmocka_unit_test(test_twist_roundtrip),
        cmocka_unit_test(test_wheels),
        cmocka_unit_test(test_ticks_and_angles),
        cmocka_unit_test(test_gyro_axes),
        cmocka_unit_test(test_sound_notes),
        cmocka_unit_test(test_legacy_version),
    };
    return cmocka_run_group_tests_name("kobuki conversions", tests, NULL, NULL);
}

/*
 * The Create's own commands and state, from a base opened on a create: URL
 * (a Create 1, or ?model=create2), beside the one robot API of base.h: what
 * a pycreate2 or libcreate program asks of the Open Interface that every
 * other base does not have. Each call is BW_ENOTSUP on a base of another
 * family (a lobot's Create is driven through its Command Module's program,
 * which has none of these), BW_EINVAL for a value out of the OI's range,
 * BW_ECLOSED while the link is down.
 *
 *     bw_create_base_drive_direct(b, 0.1, 0.3, now);   left, right wheel: m/s
 *     bw_create_base_mode(b, "passive", now);          the robot stands, deaf to drives
 *     double v; bw_create_base_value(b, "light_bumper", &v);
 *
 * Units: wheel speeds in m/s; the rest as the OI has them (its packet
 * names and wire units: mA, mV, 0..4095 signals, IR characters).
 */
#ifndef BOTWIRE_CREATE_BASE_H
#define BOTWIRE_CREATE_BASE_H
#include <stddef.h>
#include <stdint.h>
#include "botwire/base.h"
#ifdef __cplusplus
extern "C" {
#endif

/* Each wheel at its own speed, m/s (Drive Direct, -0.5..0.5): it lasts as
 * bw_base_drive does (the command timeout stops it) and is the same
 * command: a twist of (left + right) / 2 and (right - left) / wheelbase. */
int bw_create_base_drive_direct(bw_base_t *base, double left, double right, double now);
/* The OI mode, while running: "passive" (Start: the robot stands and
 * obeys no drive until the mode is "safe" or "full" again), "safe" (it
 * stops itself and falls to Passive at a cliff, a wheel drop or the
 * charger) or "full". The base asks it until a frame shows it (state.mode
 * says it), as it does the URL's ?mode=. */
int bw_create_base_mode(bw_base_t *base, const char *mode, double now);
/* Song `number` (a Create 1's 0..15, a Create 2's 0..4, as their OIs
 * say) as `n` notes (1..16): MIDI note numbers (31..127; others rest) and
 * their lengths in seconds (up to 255/64 s each). */
int bw_create_base_song(bw_base_t *base, unsigned number, const uint8_t *notes,
                        const double *seconds, size_t n, double now);
/* Plays song `number` (as above). */
int bw_create_base_play(bw_base_t *base, unsigned number, double now);
/* The LEDs: the bits of LEDs (opcode 139: a Create 1's Play 2, Advance 8;
 * a Create 2's Debris 1, Spot 2, Dock 4, Check Robot 8), the power LED's
 * colour (0 green .. 255 red) and intensity (0 off .. 255). */
int bw_create_base_leds(bw_base_t *base, unsigned bits, unsigned colour, unsigned intensity,
                        double now);
/* A Create 2's four-digit display, up to 4 printable ASCII characters
 * (Digit LEDs ASCII, opcode 164; shorter text is padded with spaces). */
int bw_create_base_digits(bw_base_t *base, const char *text, double now);
/* The last frame's value of a sensor packet by its OI name (the members of
 * bw_create_sensors_t: "light_bumper", "infrared_byte", "infrared_left",
 * "left_motor_current", "buttons", ...), in the OI's units: 0, BW_ECLOSED
 * before the first frame, BW_EUNKNOWN for a name the model does not
 * stream (a Create 1 has no light bumper). */
int bw_create_base_value(const bw_base_t *base, const char *name, double *value);

#ifdef __cplusplus
}
#endif
#endif

/*
 * The base's hardware: everything firmware/base needs to know of a
 * home-built two-wheeled base on an Arduino Mega 2560 (ATmega2560, 16 MHz).
 * Edit this file for yours; README.md in this folder shows the wiring.
 * Pins are given as the chip names them, with the Mega's pin in brackets.
 */
#ifndef BOTWIRE_BASE_HARDWARE_H
#define BOTWIRE_BASE_HARDWARE_H

#include <avr/io.h>

/* ---- the geometry -------------------------------------------------------- */
/* Encoder counts per turn of the wheel, all four edges of both channels
 * counted (a 11-line motor encoder behind a 30:1 gearbox: 11 * 4 * 30). */
#define BASE_COUNTS_PER_TURN 1320L
#define BASE_WHEEL_DIAMETER_UM 65000L /* micrometres */
#define BASE_TRACK_UM 200000L         /* between the wheels' contact points */
/* Set to 1 where a wheel's motor or encoder is mounted the other way round
 * (forward would drive its direction pin low, or count down). */
#define BASE_LEFT_MOTOR_REVERSED 0
#define BASE_RIGHT_MOTOR_REVERSED 0
#define BASE_LEFT_ENCODER_REVERSED 0
#define BASE_RIGHT_ENCODER_REVERSED 0

/* ---- the wheel speed loop (wheels.h) ------------------------------------- */
#define BASE_LOOP_HZ 100           /* control periods a second */
#define BASE_KP 40                 /* PWM/256 per count/s of error */
#define BASE_KI 12                 /* PWM/256 per count/s, each period */
#define BASE_ACCEL_MM_S2 1500      /* how fast a wheel's speed may change */
#define BASE_MAX_MM_S 700          /* the most a wheel is asked for */

/* ---- the motor driver: PWM and a direction pin per motor ----------------- */
/* Timer 4, fast PWM with TOP = ICR4: 16 MHz / 800 = 20 kHz, out of earshot. */
#define BASE_PWM_TOP 799
#define BASE_PWM_DDR DDRH
#define BASE_PWM_LEFT_BIT PH3      /* OC4A [D6] */
#define BASE_PWM_RIGHT_BIT PH4     /* OC4B [D7] */
#define BASE_DIR_PORT PORTH
#define BASE_DIR_DDR DDRH
#define BASE_DIR_LEFT_BIT PH5      /* [D8], high: forward */
#define BASE_DIR_RIGHT_BIT PH6     /* [D9], high: forward */

/* ---- the encoders: both channels on external interrupts, any edge -------- */
#define BASE_ENC_LEFT_PIN PINE
#define BASE_ENC_LEFT_A_BIT PE4    /* INT4 [D2] */
#define BASE_ENC_LEFT_B_BIT PE5    /* INT5 [D3] */
#define BASE_ENC_RIGHT_PIN PIND
#define BASE_ENC_RIGHT_A_BIT PD2   /* INT2 [D19] */
#define BASE_ENC_RIGHT_B_BIT PD3   /* INT3 [D18] */

/* ---- bumpers, cliff sensors, wheel drops: port A [D22..D29] -------------- */
#define BASE_SENSE_PIN PINA
#define BASE_SENSE_PORT PORTA
#define BASE_BUMP_RIGHT_BIT PA0    /* [D22] microswitch to ground: low when pressed */
#define BASE_BUMP_CENTRE_BIT PA1   /* [D23] */
#define BASE_BUMP_LEFT_BIT PA2     /* [D24] */
#define BASE_CLIFF_RIGHT_BIT PA3   /* [D25] a floor sensor's output: high over a drop */
#define BASE_CLIFF_CENTRE_BIT PA4  /* [D26] */
#define BASE_CLIFF_LEFT_BIT PA5    /* [D27] */
#define BASE_DROP_RIGHT_BIT PA6    /* [D28] switch to ground: low while the wheel hangs */
#define BASE_DROP_LEFT_BIT PA7     /* [D29] */

/* ---- the battery: ADC0 [A0] through a divider ---------------------------- */
#define BASE_BATTERY_ADC 0
#define BASE_BATTERY_DIVIDER 4     /* 16.8 V reads 4.2 V */
#define BASE_BATTERY_FULL_MV 16800 /* a 4-cell lithium pack: charged, */
#define BASE_BATTERY_EMPTY_MV 12800 /* and empty */
#define BASE_BATTERY_MAH 2600      /* its capacity (Create 2: packets 25, 26) */

/* ---- the Create 2 build ---------------------------------------------------- */
/* A command timeout the Open Interface does not have: 0 drives on after
 * the host has gone, as a Create 2 does (pycreate2 programs that sleep
 * between commands rely on it); N stops the wheels N ms after the last
 * command of any kind, and then the host must send one at least that
 * often while it drives (botwire's driver, streaming, sends a Drive only
 * when the speed changes: it would be stopped). */
#ifndef BASE_OI_WATCHDOG_MS
#define BASE_OI_WATCHDOG_MS 0
#endif

/* ---- the host: USART0, the Mega's USB port [D0, D1] ---------------------- */
#define BASE_UBRR_115200 16        /* with U2X: 16 MHz / (8 * 17) = 117647 baud, 2.1 % fast */

/* ---- a lamp: the Mega's LED, PB7 [D13], lit while a loop computes -------- */
#define BASE_LED_BIT PB7

#endif

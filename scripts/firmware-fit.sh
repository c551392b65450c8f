#!/bin/sh
# Fails (exit 1, one line) when a firmware ELF takes more flash or static
# RAM than its budget; else prints what it takes.
# usage: firmware-fit.sh FIRMWARE.elf FLASH_BUDGET RAM_BUDGET   (bytes)
set -eu
elf=$1 flash_budget=$2 ram_budget=$3
avr-size -A "$elf" | awk -v f="$flash_budget" -v r="$ram_budget" -v elf="$(basename "$elf")" '
    $1 == ".text" { flash += $2 }
    $1 == ".data" { flash += $2; ram += $2 }
    $1 == ".bss" || $1 == ".noinit" { ram += $2 }
    END {
        if (flash > f || ram > r) {
            printf "%s: %d bytes of flash (budget %d), %d of static RAM (budget %d): over budget\n", elf, flash, f, ram, r > "/dev/stderr"
            exit 1
        }
        printf "%s: %d bytes of flash (budget %d), %d of static RAM (budget %d)\n", elf, flash, f, ram, r
    }'

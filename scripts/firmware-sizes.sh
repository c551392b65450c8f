#!/bin/sh
# What each family's device side costs a firmware: every codec-core source
# and firmware/size/FAMILY.c built -Os for two AVRs and two Cortex-Ms, linked
# with --gc-sections, measured with the targets' size tools. Built as a
# robot's firmware builds the codec (wire.h, "firmware builds"): its side
# of the link only (BW_DEVICE_SIDE), no names, 32-bit counters, framers that
# hold 64 bytes, the small paths that -Os selects. Prints the
# table; fails on a warning, a failed build, or an AVR budget exceeded
# (2 KB of flash, 128 bytes of RAM for each family's device side, beyond
# the stub's own buffers and the C runtime: an empty program is taken off).
# usage: firmware-sizes.sh [OUTPUT_DIR]   (default build/firmware)
#
# With --base, the base firmwares (firmware/base) whole, run in the
# simulated chip (botwire-avr, the driver at 0.3 m/s and 1 rad/s for 3 s of
# the chip's time): flash and static RAM from the ELF, the stack's
# high-water mark and the longest control period measured in the run, each
# against its budget; a table row each, and exit 1 when one is over.
# usage: firmware-sizes.sh --base BOTWIRE_AVR FIRMWARE.elf...
set -eu
if [ "${1:-}" = --base ]; then
    avr=$2
    shift 2
    # flash and static RAM: the Makefile's budget (firmware-fit.sh); the
    # stack: what the 8 KB leave is far more, 1 KB keeps room for growth;
    # the period: half of the 10 ms between periods
    flash_budget=32768 ram_budget=2048 stack_budget=1024 loop_budget=5000
    fail=0
    printf '| firmware | flash | static RAM | stack (high-water) | longest period |\n'
    printf '|---|---|---|---|---|\n'
    for elf in "$@"; do
        name=$(basename "$elf" .elf)
        # shellcheck disable=SC2046
        set -- $(avr-size -A "$elf" | awk '
            $1 == ".text" { flash += $2 }
            $1 == ".data" { flash += $2; ram += $2 }
            $1 == ".bss" || $1 == ".noinit" { ram += $2 }
            END { print flash, ram }')
        flash=$1 ram=$2
        run=$("$avr" "$name" "$elf" --drive 0.3 1.0 3) || { echo "firmware sizes: $name did not run" >&2; exit 1; }
        stack=$(echo "$run" | sed -n 's/.*stack: \([0-9]*\) bytes at most.*/\1/p')
        loop=$(echo "$run" | sed -n 's/.*cycles min \/ mean \/ max ([0-9.]* \/ [0-9.]* \/ \([0-9]*\)\.[0-9] us.*/\1/p')
        [ -n "$stack" ] && [ -n "$loop" ] || { echo "firmware sizes: $name: no stack or loop figure in: $run" >&2; exit 1; }
        printf '| %s | %s / %s B | %s / %s B | %s / %s B | %s / %s us |\n' "$name" "$flash" "$flash_budget" \
            "$ram" "$ram_budget" "$stack" "$stack_budget" "$loop" "$loop_budget"
        if [ "$flash" -gt "$flash_budget" ] || [ "$ram" -gt "$ram_budget" ] ||
            [ "$stack" -gt "$stack_budget" ] || [ "$loop" -gt "$loop_budget" ]; then
            echo "firmware sizes: $name is over a budget" >&2
            fail=1
        fi
    done
    exit $fail
fi
cd "$(dirname "$0")/.."
out=${1:-build/firmware}
mkdir -p "$out"
families="kobuki p2os lobot create rbsm rflex"
flash_budget=2048
ram_budget=128
warn="-Wall -Wextra -Wconversion -Wsign-conversion -Werror"
common="-Os -flto -std=gnu11 $warn -ffunction-sections -fdata-sections -Iinclude -Ifirmware/size -DBW_DEVICE_SIDE -DBW_NO_NAMES -DBW_COUNT_T=uint32_t -DBW_FRAMER_MAX=64"
fail=0

# The sources a family's device side draws on: the core, its own codec, and
# for lobot the Create's (its program speaks OI).
sources() {
    s="src/core/wire.c src/core/framer.c"
    for part in proto convert program; do
        [ -f "src/robots/$1/$part.c" ] && s="$s src/robots/$1/$part.c"
    done
    [ "$1" = lobot ] && s="$s src/robots/create/proto.c"
    echo "$s"
}

# size FAMILY TARGET CC SIZE FLAGS...: "flash ram" of the family's stub
measure() {
    fam=$1 target=$2 cc=$3 size=$4
    shift 4
    elf=$out/$fam-$target.elf
    # shellcheck disable=SC2046
    if ! $cc "$@" $common -Wl,--gc-sections firmware/size/"$fam".c firmware/size/regs.c \
        $(sources "$fam") -o "$elf" 2>"$out/$fam-$target.log"; then
        cat "$out/$fam-$target.log" >&2
        echo "firmware sizes: $fam for $target does not build" >&2
        return 1
    fi
    $size -A "$elf" | awk '
        $1 == ".text" || $1 == ".rodata" { flash += $2 }
        $1 == ".data" { flash += $2; ram += $2 }
        $1 == ".bss" { ram += $2 }
        END { print flash, ram }'
}

# The floor: an empty program with the stub's registers (runtime, vectors).
floor() {
    target=$1 cc=$2 size=$3
    shift 3
    echo 'int main(void) { for (;;) ; }' >"$out/empty.c"
    $cc "$@" -Os -Wl,--gc-sections "$out/empty.c" firmware/size/regs.c -Ifirmware/size -o "$out/empty-$target.elf"
    $size -A "$out/empty-$target.elf" | awk '
        $1 == ".text" || $1 == ".rodata" { flash += $2 }
        $1 == ".data" { flash += $2; ram += $2 }
        $1 == ".bss" { ram += $2 }
        END { print flash, ram }'
}

targets="atmega168 atmega2560 cortex-m0plus cortex-m4"
flags() {
    case $1 in
    atmega*) echo "-mmcu=$1 -Waddr-space-convert" ;;
    cortex-m0plus) echo "-mcpu=cortex-m0plus -mthumb -specs=nano.specs -specs=nosys.specs" ;;
    cortex-m4) echo "-mcpu=cortex-m4 -mthumb -mfloat-abi=soft -specs=nano.specs -specs=nosys.specs" ;;
    esac
}
tools() {
    case $1 in
    atmega*) echo "avr-gcc avr-size" ;;
    *) echo "arm-none-eabi-gcc arm-none-eabi-size" ;;
    esac
}

# The table goes to stdout and to OUTPUT_DIR/table.txt; OUTPUT_DIR/sizes.txt
# has a line "family target flash ram" each, and is left only when every
# family built within the budget (the build's mark that the check passed).
table=$out/sizes.txt
human=$out/table.txt
: >"$human"
rm -f "$table"
say() { printf "$@" | tee -a "$human"; }

# The floor of each target: an empty program with the stub's registers.
for t in $targets; do
    set -- $(tools "$t")
    # shellcheck disable=SC2046
    floor "$t" "$1" "$2" $(flags "$t") >"$out/floor-$t.txt"
done

say '%-8s' family
for t in $targets; do say ' %22s' "$t"; done
say '\n'
for fam in $families; do
    say '%-8s' "$fam"
    for t in $targets; do
        set -- $(tools "$t")
        cc=$1 sz=$2
        base=$(cat "$out/floor-$t.txt")
        # shellcheck disable=SC2046
        got=$(measure "$fam" "$t" "$cc" "$sz" $(flags "$t")) || { fail=1; say ' %22s' failed; continue; }
        flash=$(( ${got% *} - ${base% *} ))
        ram=$(( ${got#* } - ${base#* } ))
        say ' %13s B %4s B' "$flash" "$ram"
        echo "$fam $t $flash $ram" >>"$table.new"
        case $t in
        atmega*)
            if [ "$flash" -gt "$flash_budget" ] || [ "$ram" -gt "$ram_budget" ]; then
                echo >&2
                echo "firmware sizes: $fam on $t: $flash B flash, $ram B RAM, over the budget of $flash_budget and $ram_budget" >&2
                fail=1
            fi ;;
        esac
    done
    say '\n'
done
say '%s\n' "(flash and RAM of each family's device side: the codec a firmware links, beyond an empty program)"
if [ "$fail" = 0 ]; then
    mv "$table.new" "$table"
else
    rm -f "$table.new"
fi
exit $fail

/* What every libFuzzer harness checks with: a broken invariant aborts, and
 * libFuzzer keeps the input that did it. */
#ifndef BOTWIRE_FUZZ_CHECK_H
#define BOTWIRE_FUZZ_CHECK_H

#include <stdlib.h>

#define CHECK(c)     \
    do {             \
        if (!(c))    \
            abort(); \
    } while (0)

#endif

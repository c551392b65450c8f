/* Counts heap allocations, so a benchmark can show that the codec makes none.
 * Wraps glibc's allocator by interposition; sanitizer builds bring their own
 * allocator, so there the count is reported as unavailable. */
#include "bench.h"

#include <stddef.h>

#if defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(memory_sanitizer) || \
    __has_feature(thread_sanitizer)
#define BENCH_NO_ALLOC_COUNT 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define BENCH_NO_ALLOC_COUNT 1
#endif

#if defined(BENCH_NO_ALLOC_COUNT) || !defined(__GLIBC__)

long bench_alloc_count(void) { return -1; }

#else

static unsigned long allocs;

void *__libc_malloc(size_t n);
void *__libc_calloc(size_t n, size_t size);
void *__libc_realloc(void *p, size_t n);

void *malloc(size_t n);
void *calloc(size_t n, size_t size);
void *realloc(void *p, size_t n);

void *malloc(size_t n)
{
    __atomic_fetch_add(&allocs, 1, __ATOMIC_RELAXED);
    return __libc_malloc(n);
}

void *calloc(size_t n, size_t size)
{
    __atomic_fetch_add(&allocs, 1, __ATOMIC_RELAXED);
    return __libc_calloc(n, size);
}

void *realloc(void *p, size_t n)
{
    __atomic_fetch_add(&allocs, 1, __ATOMIC_RELAXED);
    return __libc_realloc(p, n);
}

long bench_alloc_count(void) { return (long)__atomic_load_n(&allocs, __ATOMIC_RELAXED); }

#endif

/* malloc_shim: an LD_PRELOAD library that counts the heap bytes a process
 * holds, for tools/measure_peak.py (issue 19). Every allocation entry point
 * of glibc is wrapped; the bytes of a block are what malloc_usable_size
 * says (what the block really occupies, rounding included). `live` is the
 * sum over blocks not yet freed, `peak` its maximum since the last
 * tpf_shim_reset_peak(). The counters are atomics: torch's intra-op
 * threads allocate too. Build: cc -O2 -shared -fPIC -o shim.so malloc_shim.c
 * Read through ctypes: tpf_shim_live(), tpf_shim_peak(), tpf_shim_reset_peak().
 */
#define _GNU_SOURCE
#include <errno.h>
#include <malloc.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

/* glibc's own entry points: calling them needs no dlsym (which itself
 * allocates before the wrappers could be resolved). */
extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
extern void *__libc_memalign(size_t, size_t);
extern void __libc_free(void *);

static _Atomic int64_t live_bytes;
static _Atomic int64_t peak_bytes;

static void *counted(void *p) {
  if (p) {
    int64_t now = atomic_fetch_add(&live_bytes, (int64_t)malloc_usable_size(p)) + (int64_t)malloc_usable_size(p);
    int64_t old = atomic_load(&peak_bytes);
    while (now > old && !atomic_compare_exchange_weak(&peak_bytes, &old, now)) {
    }
  }
  return p;
}

static void uncount(void *p) {
  if (p) atomic_fetch_sub(&live_bytes, (int64_t)malloc_usable_size(p));
}

void *malloc(size_t n) { return counted(__libc_malloc(n)); }
void *calloc(size_t k, size_t n) { return counted(__libc_calloc(k, n)); }
void free(void *p) {
  uncount(p);
  __libc_free(p);
}
void *realloc(void *p, size_t n) {
  /* The old block's bytes leave before the new block's arrive; a realloc
   * that moves briefly holds both, which this misses by design (small). */
  size_t old = p ? malloc_usable_size(p) : 0;
  void *q = __libc_realloc(p, n);
  if (!q && n) return q; /* failed: the old block is still there */
  atomic_fetch_sub(&live_bytes, (int64_t)old);
  return counted(q);
}
void *memalign(size_t a, size_t n) { return counted(__libc_memalign(a, n)); }
void *aligned_alloc(size_t a, size_t n) { return counted(__libc_memalign(a, n)); }
void *valloc(size_t n) { return counted(__libc_memalign(4096, n)); }
int posix_memalign(void **out, size_t a, size_t n) {
  if (a % sizeof(void *) || (a & (a - 1))) return EINVAL;
  void *p = __libc_memalign(a, n);
  if (!p && n) return ENOMEM;
  *out = counted(p);
  return 0;
}

int64_t tpf_shim_live(void) { return atomic_load(&live_bytes); }
int64_t tpf_shim_peak(void) { return atomic_load(&peak_bytes); }
void tpf_shim_reset_peak(void) { atomic_store(&peak_bytes, atomic_load(&live_bytes)); }

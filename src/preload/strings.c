#include "preload/strings.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "preload/tracebuf.h"
#include "streamcheck/trace_format.h"

typedef struct sc_string_entry {
    uint64_t hash;
    uint32_t id;
    char *text;
} sc_string_entry;

static pthread_mutex_t sc_strings_lock = PTHREAD_MUTEX_INITIALIZER;
static sc_string_entry *sc_strings_table;   /* open addressing, power-of-two size */
static size_t sc_strings_size, sc_strings_used;
static uint32_t sc_strings_next_id = 1;

static uint64_t sc_fnv1a(const char *s)
{
    uint64_t h = 1469598103934665603ull;
    while (*s) h = (h ^ (uint8_t)*s++) * 1099511628211ull;
    return h;
}

static int sc_strings_grow(void)
{
    size_t size = sc_strings_size ? sc_strings_size * 2 : 1024;
    sc_string_entry *t = calloc(size, sizeof *t);
    if (!t) return -1;
    for (size_t i = 0; i < sc_strings_size; i++) {
        sc_string_entry *e = &sc_strings_table[i];
        if (!e->text) continue;
        size_t j = e->hash & (size - 1);
        while (t[j].text) j = (j + 1) & (size - 1);
        t[j] = *e;
    }
    free(sc_strings_table);
    sc_strings_table = t;
    sc_strings_size = size;
    return 0;
}

/* CUPTI hands the same name pointer for every launch of a kernel: a small cache keyed by
 * the pointer answers most lookups without hashing the (long, mangled) text. Only the
 * activity thread calls this in bulk; the cache is per thread, so it needs no lock. */
enum { SC_STRING_CACHE = 64 };
static __thread struct {
    const char *ptr;
    const char *interned;   /* our copy: the text is compared, so a reused pointer is safe */
    uint32_t id;
} sc_string_cache[SC_STRING_CACHE];

static uint32_t sc_string_lookup(const char *text, const char **interned);

uint32_t sc_string_id(const char *text)
{
    if (!text) return 0;
    size_t slot = ((uintptr_t)text >> 4) % SC_STRING_CACHE;
    if (sc_string_cache[slot].ptr == text && strcmp(sc_string_cache[slot].interned, text) == 0)
        return sc_string_cache[slot].id;
    const char *interned = NULL;
    uint32_t id = sc_string_lookup(text, &interned);
    if (id) {
        sc_string_cache[slot].ptr = text;
        sc_string_cache[slot].interned = interned;
        sc_string_cache[slot].id = id;
    }
    return id;
}

static uint32_t sc_string_lookup(const char *text, const char **interned)
{
    uint64_t h = sc_fnv1a(text);
    uint32_t id = 0;
    pthread_mutex_lock(&sc_strings_lock);
    if (sc_strings_used * 2 >= sc_strings_size && sc_strings_grow() != 0) goto out;
    size_t j = h & (sc_strings_size - 1);
    for (; sc_strings_table[j].text; j = (j + 1) & (sc_strings_size - 1)) {
        if (sc_strings_table[j].hash == h && strcmp(sc_strings_table[j].text, text) == 0) {
            id = sc_strings_table[j].id;
            *interned = sc_strings_table[j].text;
            goto out;
        }
    }
    char *copy = strdup(text);
    if (!copy) goto out;
    id = sc_strings_next_id++;
    sc_strings_table[j] = (sc_string_entry){h, id, copy};
    *interned = copy;
    sc_strings_used++;
    /* Written under the lock, so the STRING record precedes any record that uses the id
     * in the same thread's buffer; the reader resolves ids after loading anyway. */
    size_t len = strlen(text);
    if (len > SC_TBUF_MAX_RECORD - 64) len = SC_TBUF_MAX_RECORD - 64;
    char *tail = malloc(len + 1);
    if (tail) {
        memcpy(tail, text, len);
        tail[len] = '\0';
        sc_rec_string r = {.id = id};
        sc_tbuf_put(SC_REC_STRING, &r, sizeof r, tail, len + 1);
        free(tail);
    }
out:
    pthread_mutex_unlock(&sc_strings_lock);
    return id;
}

void sc_strings_reset(void)
{
    pthread_mutex_init(&sc_strings_lock, NULL);
    sc_strings_table = NULL;
    sc_strings_size = sc_strings_used = 0;
    sc_strings_next_id = 1;
}

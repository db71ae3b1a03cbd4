#include "preload/modules.h"

#include <elf.h>
#include <link.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "preload/tracebuf.h"
#include "streamcheck/trace_format.h"
#include "trace/grow.h"

static pthread_mutex_t sc_modules_lock = PTHREAD_MUTEX_INITIALIZER;
static unsigned long long sc_modules_seen_adds = ~0ull;
static uint64_t *sc_modules_written;    /* lo addresses of modules already written */
static size_t sc_modules_count, sc_modules_cap;

static bool sc_modules_known(uint64_t lo)
{
    for (size_t i = 0; i < sc_modules_count; i++)
        if (sc_modules_written[i] == lo) return true;
    return false;
}

static void sc_modules_remember(uint64_t lo)
{
    if (!SC_GROW(sc_modules_written, sc_modules_cap, sc_modules_count + 1, 128)) return;
    sc_modules_written[sc_modules_count++] = lo;
}

/* The GNU build id from a PT_NOTE segment, to check later that the file on disk is the
 * binary that ran. */
static void sc_build_id(const struct dl_phdr_info *info, const ElfW(Phdr) *ph, sc_rec_module *m)
{
    const uint8_t *p = (const uint8_t *)(info->dlpi_addr + ph->p_vaddr);
    const uint8_t *end = p + ph->p_memsz;
    while (p + sizeof(ElfW(Nhdr)) <= end) {
        const ElfW(Nhdr) *n = (const ElfW(Nhdr) *)p;
        const uint8_t *name = p + sizeof *n;
        const uint8_t *desc = name + ((n->n_namesz + 3) & ~3u);
        if (n->n_type == NT_GNU_BUILD_ID && n->n_namesz == 4 && memcmp(name, "GNU", 4) == 0) {
            m->build_id_size = n->n_descsz < sizeof m->build_id ? n->n_descsz : sizeof m->build_id;
            memcpy(m->build_id, desc, m->build_id_size);
            return;
        }
        p = desc + ((n->n_descsz + 3) & ~3u);
    }
}

static int sc_modules_visit(struct dl_phdr_info *info, size_t size, void *arg)
{
    (void)size;
    (void)arg;
    sc_rec_module m = {.bias = info->dlpi_addr, .lo = UINT64_MAX, .hi = 0};
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type == PT_LOAD) {
            uint64_t lo = info->dlpi_addr + ph->p_vaddr, hi = lo + ph->p_memsz;
            if (lo < m.lo) m.lo = lo;
            if (hi > m.hi) m.hi = hi;
        } else if (ph->p_type == PT_NOTE && !m.build_id_size) {
            sc_build_id(info, ph, &m);
        }
    }
    if (m.lo >= m.hi || sc_modules_known(m.lo)) return 0;
    char exe[4096];
    const char *path = info->dlpi_name;
    if (!path || !*path) {
        /* The main program has no name in the list; the vdso has none either, but it has
         * no file to read symbols from, so it is recorded without a path. */
        ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
        exe[n > 0 ? n : 0] = '\0';
        path = sc_modules_count == 0 ? exe : "";
    }
    sc_tbuf_put(SC_REC_MODULE, &m, sizeof m, path, strlen(path) + 1);
    sc_modules_remember(m.lo);
    return 0;
}

/* dl_iterate_phdr reports how many objects were ever loaded; if that did not change,
 * nothing new can be there. */
static int sc_modules_adds(struct dl_phdr_info *info, size_t size, void *arg)
{
    (void)size;
    *(unsigned long long *)arg = info->dlpi_adds;
    return 1;
}

void sc_modules_update(void)
{
    pthread_mutex_lock(&sc_modules_lock);
    unsigned long long adds = 0;
    dl_iterate_phdr(sc_modules_adds, &adds);
    if (adds != sc_modules_seen_adds) {
        sc_modules_seen_adds = adds;
        dl_iterate_phdr(sc_modules_visit, NULL);
    }
    pthread_mutex_unlock(&sc_modules_lock);
}

void sc_modules_reset(void)
{
    pthread_mutex_init(&sc_modules_lock, NULL);
    sc_modules_count = 0;
    sc_modules_seen_adds = ~0ull;
}

#include "report/dynlib.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

static bool load(sc_dynlib *lib)
{
    const char *file = lib->env ? getenv(lib->env) : NULL;
    if (!file || !file[0])
        file = lib->soname;
    void *h = dlopen(file, RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        const char *e = dlerror();
        snprintf(lib->why, sizeof lib->why, "%s", e ? e : file);
        return false;
    }
    for (size_t i = 0; i < lib->n; i++) {
        lib->slots[i] = dlsym(h, lib->names[i]);
        if (!lib->slots[i]) {
            snprintf(lib->why, sizeof lib->why, "%s: no symbol %s", file, lib->names[i]);
            dlclose(h);
            return false;
        }
    }
    return true;            /* the handle stays open for the life of the process */
}

bool sc_dynlib_get(sc_dynlib *lib)
{
    /* A lock per call: callers ask once per module or per document, not per frame. */
    pthread_mutex_lock(&lock);
    if (lib->state == 0)
        lib->state = load(lib) ? 1 : -1;
    bool ok = lib->state == 1;
    pthread_mutex_unlock(&lock);
    return ok;
}

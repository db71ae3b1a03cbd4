/* Calls a loop re-does: see loop_calls.h. */
#include "analyze/loop_calls.h"

#include <stdlib.h>

int sc_loop_family(uint16_t call_class)
{
    switch (call_class) {
    case SC_CALL_MALLOC: case SC_CALL_FREE: return SC_LOOP_DEVICE_MEMORY;
    case SC_CALL_HOST_ALLOC: case SC_CALL_HOST_FREE:
    case SC_CALL_HOST_REGISTER: case SC_CALL_HOST_UNREGISTER: return SC_LOOP_PINNED;
    case SC_CALL_MEMCPY: return SC_LOOP_MEMCPY;
    case SC_CALL_MEMSET: return SC_LOOP_MEMSET;
    case SC_CALL_SET_LIMIT: return SC_LOOP_LIMITS;
    default: return SC_LOOP_NONE;
    }
}

bool sc_loop_releases(uint16_t call_class)
{
    return call_class == SC_CALL_FREE || call_class == SC_CALL_HOST_FREE ||
           call_class == SC_CALL_HOST_UNREGISTER;
}

const sc_loop_scope *sc_loop_in_scope(const sc_trace *t, const sc_loop_scope *scopes, size_t n,
                                      const sc_api_call *call)
{
    int family = sc_loop_family(sc_call_class_id(t, call));
    uint32_t tid = family != SC_LOOP_NONE ? sc_call_tid(t, call) : 0;
    for (size_t k = 0; family != SC_LOOP_NONE && k < n; k++)
        if (scopes[k].tid == tid && scopes[k].family == family)
            return &scopes[k];
    return NULL;
}

int sc_loop_moved(const sc_trace *t, const uint32_t *calls, size_t n_calls,
                  const sc_loop_scope *scopes, size_t n, bool *moved)
{
    bool *seen = calloc(2 * (n + 1), sizeof *seen);
    if (!seen)
        return -1;
    for (size_t i = 0; i < n_calls; i++) {     /* acquisitions after a release */
        const sc_api_call *c = &t->calls[calls[i]];
        const sc_loop_scope *s = sc_loop_in_scope(t, scopes, n, c);
        if (!s)
            continue;
        size_t k = (size_t)(s - scopes);
        bool limits = s->family == SC_LOOP_LIMITS;
        bool releases = sc_loop_releases(sc_call_class_id(t, c));
        if (limits || !releases)
            moved[i] = seen[k];
        seen[k] = seen[k] || limits || releases;
    }
    bool *acquired = seen + n + 1;
    for (size_t i = n_calls; i-- > 0;) {       /* releases before an acquisition */
        const sc_api_call *c = &t->calls[calls[i]];
        const sc_loop_scope *s = sc_loop_in_scope(t, scopes, n, c);
        if (!s || s->family == SC_LOOP_LIMITS)
            continue;
        size_t k = (size_t)(s - scopes);
        if (sc_loop_releases(sc_call_class_id(t, c)))
            moved[i] = acquired[k];
        else
            acquired[k] = true;
    }
    free(seen);
    return 0;
}

#include "report/host_calls.h"

#include <stdlib.h>

static int sc_u32_cmp(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

int sc_host_calls_init(sc_host_calls *h, const sc_trace *t)
{
    h->t = t;
    h->n_pageable = 0;
    h->pageable = malloc((t->n_copies ? t->n_copies : 1) * sizeof *h->pageable);
    if (!h->pageable)
        return -1;
    for (size_t i = 0; i < t->n_copies; i++) {
        const sc_copy_shape *c = sc_copy_shape_of(t, &t->copies[i]);
        if (t->copies[i].correlation_id &&
            (c->src_kind == SC_MEM_PAGEABLE || c->dst_kind == SC_MEM_PAGEABLE))
            h->pageable[h->n_pageable++] = t->copies[i].correlation_id;
    }
    qsort(h->pageable, h->n_pageable, sizeof *h->pageable, sc_u32_cmp);
    return 0;
}

void sc_host_calls_free(sc_host_calls *h)
{
    free(h->pageable);
    h->pageable = NULL;
    h->n_pageable = 0;
}

static const char *sc_class_words(uint16_t call_class)
{
    switch (call_class) {
    case SC_CALL_MEMCPY: return "synchronous copy";
    case SC_CALL_MEMSET: return "synchronous memset";
    case SC_CALL_MALLOC: return "device allocation";
    case SC_CALL_FREE: return "device free";
    case SC_CALL_HOST_ALLOC: return "pinned host allocation";
    case SC_CALL_HOST_FREE: return "pinned host free";
    case SC_CALL_HOST_REGISTER: return "host register";
    case SC_CALL_HOST_UNREGISTER: return "host unregister";
    case SC_CALL_EVENT_SYNC: return "event synchronize";
    case SC_CALL_STREAM_SYNC: return "stream synchronize";
    case SC_CALL_DEVICE_SYNC: return "device synchronize";
    default: return NULL;
    }
}

bool sc_host_call_class_blocks(uint16_t call_class)
{
    return sc_class_words(call_class) != NULL;
}

bool sc_host_call_pageable(const sc_host_calls *h, uint32_t correlation_id)
{
    return correlation_id && h->n_pageable &&
           bsearch(&correlation_id, h->pageable, h->n_pageable, sizeof correlation_id,
                   sc_u32_cmp);
}

const char *sc_host_call_words(const sc_host_calls *h, const sc_api_call *c)
{
    uint8_t cls = sc_call_class_id(h->t, c);
    const char *words = sc_class_words(cls);
    if (words)
        return words;
    if (cls == SC_CALL_MEMCPY_ASYNC &&
        sc_host_call_pageable(h, c->rec.correlation_id))
        return "async copy of pageable memory";     /* the driver stages it meanwhile */
    return NULL;
}

bool sc_host_call_held(const sc_host_calls *h, const sc_api_call *c)
{
    return sc_host_call_words(h, c) != NULL;
}

#include <string.h>

#include "streamcheck/analysis.h"

bool sc_pyframe_is_library(const char *file)
{
    if (!file || !*file || file[0] == '<')
        return true;    /* <frozen runpy>, <string>, and names the trace lacks */
    return strstr(file, "/site-packages/") || strstr(file, "/dist-packages/") ||
           strstr(file, "/lib/python3");
}

const sc_pyframe *sc_pystack_user_frame(const sc_pystack *s)
{
    if (!s || s->n_frames == 0)
        return NULL;
    for (uint16_t i = 0; i < s->n_frames; i++)
        if (!sc_pyframe_is_library(s->frames[i].file))
            return &s->frames[i];
    return &s->frames[s->n_frames - 1];
}

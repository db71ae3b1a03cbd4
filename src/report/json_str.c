#include "report/json_str.h"

#include <stdlib.h>
#include <string.h>

json_t *sc_json_lossy_string(const char *s)
{
    json_t *j = json_string(s);
    if (j)
        return j;
    char *copy = strdup(s);
    if (!copy)
        return NULL;
    for (char *c = copy; *c; c++)
        if ((unsigned char)*c >= 0x80)
            *c = '?';
    j = json_string(copy);
    free(copy);
    return j;
}

json_t *sc_json_str(const char *s)
{
    json_t *j = s ? sc_json_lossy_string(s) : NULL;
    return j ? j : json_null();
}

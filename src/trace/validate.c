/* The checks of validate.h. Their order is part of the contract: the loader's and the dump's
 * messages name the first rule a record breaks, so both must meet the rules in one order. */
#include "trace/validate.h"

enum sc_header_fault sc_header_check(const uint8_t *data, size_t size, sc_file_header *h)
{
    if (size < sizeof *h) return SC_HEADER_TOO_SHORT;
    if (memcmp(data, SC_TRACE_MAGIC, sizeof SC_TRACE_MAGIC) != 0) return SC_HEADER_BAD_MAGIC;
    memcpy(h, data, sizeof *h);
    if (h->version_major < SC_TRACE_OLDEST_MAJOR || h->version_major > SC_TRACE_VERSION_MAJOR)
        return SC_HEADER_VERSION;
    if (h->header_size < sizeof *h || h->header_size > size || h->header_size % 8)
        return SC_HEADER_BAD_SIZE;
    return SC_HEADER_OK;
}

#define SC_KIND(least, text, frames, own_rule) \
    {(least), (text), (frames), (own_rule), (text) || (frames) || (own_rule) ? UINT32_MAX : (least)}

const sc_kind_traits sc_kind_table[SC_REC_KIND_LAST + 1] = {
    [SC_REC_PROCESS] = SC_KIND(sizeof(sc_rec_process), true, false, false),
    [SC_REC_MODULE] = SC_KIND(sizeof(sc_rec_module), true, false, false),
    [SC_REC_DEVICE] = SC_KIND(sizeof(sc_rec_device), true, false, false),
    [SC_REC_STRING] = SC_KIND(sizeof(sc_rec_string), true, false, true),
    [SC_REC_CALL_NAME] = SC_KIND(sizeof(sc_rec_call_name), true, false, false),
    [SC_REC_API] = SC_KIND(sizeof(sc_rec_api), false, true, true),
    [SC_REC_KERNEL] = SC_KIND(sizeof(sc_rec_kernel), false, false, false),
    [SC_REC_MEMCPY] = SC_KIND(sizeof(sc_rec_memcpy), false, false, false),
    [SC_REC_MEMSET] = SC_KIND(sizeof(sc_rec_memset), false, false, false),
    [SC_REC_STREAM] = SC_KIND(sizeof(sc_rec_stream), false, false, false),
    [SC_REC_SYNC] = SC_KIND(sizeof(sc_rec_sync), false, false, false),
    [SC_REC_NOTE] = SC_KIND(sizeof(sc_rec_note), true, false, false),
    [SC_REC_ENV] = SC_KIND(0, true, false, false),
    [SC_REC_RANGE] = SC_KIND(sizeof(sc_rec_range), false, false, false),
    [SC_REC_END] = SC_KIND(sizeof(sc_rec_end), false, false, false),
    [SC_REC_OVERHEAD] = SC_KIND(sizeof(sc_rec_overhead), false, false, false),
    [SC_REC_LOSS] = SC_KIND(sizeof(sc_rec_loss), false, false, false),
    [SC_REC_UNIFIED] = SC_KIND(sizeof(sc_rec_unified), false, false, false),
    [SC_REC_PYSTACK] = SC_KIND(sizeof(sc_rec_pystack), false, true, true),
    [SC_REC_SCOPE] = SC_KIND(sizeof(sc_rec_scope), true, false, false),
    [SC_REC_SCOPE_WINDOW] = SC_KIND(sizeof(sc_rec_scope_window), false, false, false),
    [SC_REC_TIME_BASE] = SC_KIND(sizeof(sc_rec_time_base), false, false, false),
    [SC_REC_KERNEL_SHAPE] = SC_KIND(sizeof(sc_rec_kernel_shape), false, false, true),
    [SC_REC_KERNEL_COMPACT] = SC_KIND(sizeof(sc_rec_kernel_compact), false, false, false),
    [SC_REC_CALL_SITE] = SC_KIND(sizeof(sc_rec_call_site), false, false, true),
    [SC_REC_CALL_COMPACT] = SC_KIND(sizeof(sc_rec_call_compact), false, false, false),
};
#undef SC_KIND

const char *sc_record_text(const uint8_t *payload, size_t fixed, size_t n)
{
    if (n <= fixed) return "";
    const char *s = (const char *)payload + fixed;
    return memchr(s, '\0', n - fixed) ? s : NULL;
}

void sc_text_tame(char *s)
{
    unsigned char *c = (unsigned char *)s;
    while (*c) {
        size_t n = sc_text_control_at(c);
        if (n)
            memset(c, '?', n);
        c += n ? n : 1;
    }
}

/* The rules of one kind's payload, once its header is known to be sound. */
static enum sc_record_fault sc_payload_check(const sc_record_header *h, const uint8_t *p,
                                             size_t n)
{
    uint16_t kind = h->kind;
    sc_kind_traits traits = sc_kind(kind);
    size_t least = traits.least;
    if (h->fixed &&
        (h->fixed > n || h->fixed < least || (traits.frames && h->fixed % sizeof(uint64_t))))
        return SC_RECORD_BAD_FIXED;
    if (n < least) return SC_RECORD_SHORT;
    /* sc_record_fixed_part */
    size_t fixed = h->fixed ? h->fixed : traits.text || traits.frames ? least : n;
    if (traits.text && !sc_record_text(p, fixed, n)) return SC_RECORD_UNTERMINATED;
    if (!traits.own_rule) return SC_RECORD_OK;
    if (kind == SC_REC_API) {
        sc_rec_api a;
        SC_RECORD_COPY_FIXED(a, p, fixed);
        /* The frames follow the fixed part, where the loader and the dump read them. */
        if ((size_t)a.n_frames * sizeof(uint64_t) > n - fixed) return SC_RECORD_FRAMES_OVERRUN;
    }
    if (kind == SC_REC_PYSTACK) {
        sc_rec_pystack s;
        SC_RECORD_COPY_FIXED(s, p, fixed);
        if ((size_t)s.n_frames * sizeof(sc_py_frame) > n - fixed)
            return SC_RECORD_FRAMES_OVERRUN;
    }
    if (kind == SC_REC_STRING) {
        sc_rec_string s;
        SC_RECORD_COPY_FIXED(s, p, n);
        if (s.id == 0 || s.id > SC_RECORD_MAX_STRING_ID) return SC_RECORD_BAD_STRING_ID;
    }
    if (kind == SC_REC_KERNEL_SHAPE) {
        sc_rec_kernel_shape s;
        SC_RECORD_COPY_FIXED(s, p, fixed);
        if (s.id == 0 || s.id > SC_COMPACT_MAX_ID) return SC_RECORD_BAD_COMPACT_ID;
    }
    if (kind == SC_REC_CALL_SITE) {
        sc_rec_call_site s;
        SC_RECORD_COPY_FIXED(s, p, fixed);
        if (s.id == 0) return SC_RECORD_BAD_COMPACT_ID;     /* 16 bits: never above the max */
    }
    return SC_RECORD_OK;
}

enum sc_record_fault sc_record_check(const uint8_t *data, size_t size, size_t off,
                                     bool after_end, sc_record_header *h)
{
    size_t left = size - off;
    if (left < sizeof *h) return SC_RECORD_STRAY;
    memcpy(h, data + off, sizeof *h);
    if (h->size < sizeof *h || h->size % 8) return SC_RECORD_BAD_SIZE;
    if (h->size > left) return SC_RECORD_CUT_SHORT;
    if (after_end) return SC_RECORD_AFTER_END;
    return sc_payload_check(h, data + off + sizeof *h, h->size - sizeof *h);
}

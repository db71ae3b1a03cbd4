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

size_t sc_record_fixed_size(uint16_t kind)
{
    switch (kind) {
    case SC_REC_PROCESS: return sizeof(sc_rec_process);
    case SC_REC_MODULE: return sizeof(sc_rec_module);
    case SC_REC_DEVICE: return sizeof(sc_rec_device);
    case SC_REC_STRING: return sizeof(sc_rec_string);
    case SC_REC_CALL_NAME: return sizeof(sc_rec_call_name);
    case SC_REC_API: return sizeof(sc_rec_api);
    case SC_REC_KERNEL: return sizeof(sc_rec_kernel);
    case SC_REC_MEMCPY: return sizeof(sc_rec_memcpy);
    case SC_REC_MEMSET: return sizeof(sc_rec_memset);
    case SC_REC_STREAM: return sizeof(sc_rec_stream);
    case SC_REC_SYNC: return sizeof(sc_rec_sync);
    case SC_REC_NOTE: return sizeof(sc_rec_note);
    case SC_REC_ENV: return 0;  /* all text */
    case SC_REC_RANGE: return sizeof(sc_rec_range);
    case SC_REC_END: return sizeof(sc_rec_end);
    case SC_REC_OVERHEAD: return sizeof(sc_rec_overhead);
    case SC_REC_LOSS: return sizeof(sc_rec_loss);
    case SC_REC_UNIFIED: return sizeof(sc_rec_unified);
    case SC_REC_PYSTACK: return sizeof(sc_rec_pystack);
    case SC_REC_SCOPE: return sizeof(sc_rec_scope);
    case SC_REC_SCOPE_WINDOW: return sizeof(sc_rec_scope_window);
    case SC_REC_TIME_BASE: return sizeof(sc_rec_time_base);
    case SC_REC_KERNEL_SHAPE: return sizeof(sc_rec_kernel_shape);
    case SC_REC_KERNEL_COMPACT: return sizeof(sc_rec_kernel_compact);
    case SC_REC_CALL_SITE: return sizeof(sc_rec_call_site);
    case SC_REC_CALL_COMPACT: return sizeof(sc_rec_call_compact);
    default: return 0;
    }
}

bool sc_record_has_frames(uint16_t kind)
{
    return kind == SC_REC_API || kind == SC_REC_PYSTACK;
}

bool sc_record_has_text(uint16_t kind)
{
    switch (kind) {
    case SC_REC_PROCESS:
    case SC_REC_MODULE:
    case SC_REC_DEVICE:
    case SC_REC_STRING:
    case SC_REC_CALL_NAME:
    case SC_REC_NOTE:
    case SC_REC_ENV:
    case SC_REC_SCOPE:
        return true;
    default:
        return false;
    }
}

size_t sc_record_fixed_part(const sc_record_header *h, size_t n)
{
    if (h->fixed) return h->fixed;
    if (sc_record_has_text(h->kind) || sc_record_has_frames(h->kind))
        return sc_record_fixed_size(h->kind);
    return n;
}

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
    size_t least = sc_record_fixed_size(kind);
    if (h->fixed && (h->fixed > n || h->fixed < least ||
                     (sc_record_has_frames(kind) && h->fixed % sizeof(uint64_t))))
        return SC_RECORD_BAD_FIXED;
    if (n < least) return SC_RECORD_SHORT;
    size_t fixed = sc_record_fixed_part(h, n);
    if (sc_record_has_text(kind) && !sc_record_text(p, fixed, n)) return SC_RECORD_UNTERMINATED;
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

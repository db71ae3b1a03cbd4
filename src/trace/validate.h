/* The rules a trace file must meet to be read, in one place: the loader (reader.c) and
 * streamcheck-report --dump apply the same checks in the same order, so a file the dump
 * calls corrupt is exactly one the report refuses. The checks return what is wrong as a
 * code; each caller puts it in its own words (the loader tersely, the dump with values).
 *
 * Also here: taking a checked payload apart (its fixed part, its text), which relies on
 * what the checks guarantee. */
#ifndef SC_TRACE_VALIDATE_H
#define SC_TRACE_VALIDATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "streamcheck/trace_format.h"

enum sc_header_fault {
    SC_HEADER_OK,
    SC_HEADER_TOO_SHORT,        /* shorter than a file header: not a trace */
    SC_HEADER_BAD_MAGIC,        /* not a trace */
    SC_HEADER_VERSION,          /* a major version this reader does not read */
    SC_HEADER_BAD_SIZE,         /* header_size too small, past the file or not 8-aligned */
};

/* Checks the file header of a file of `size` bytes. *h receives the header whenever there is
 * one to read (every fault but TOO_SHORT and BAD_MAGIC), so callers can name its version.
 * Major versions SC_TRACE_OLDEST_MAJOR to SC_TRACE_VERSION_MAJOR are read. */
enum sc_header_fault sc_header_check(const uint8_t *data, size_t size, sc_file_header *h);

/* In the order they are checked. STRAY and CUT_SHORT mean the file ends inside a record (a
 * process stopped while writing: truncated, the records before it are kept); every other
 * fault makes the file corrupt. */
enum sc_record_fault {
    SC_RECORD_OK,
    SC_RECORD_STRAY,            /* fewer bytes left than a record header */
    SC_RECORD_BAD_SIZE,         /* size below a record header's or not a multiple of 8 */
    SC_RECORD_CUT_SHORT,        /* the record runs past the end of the file */
    SC_RECORD_AFTER_END,        /* a record follows the END record */
    SC_RECORD_BAD_FIXED,        /* 1.3: the fixed part it gives is past its payload, shorter
                                   than the kind's 1.0 part, or (API) leaves its frames
                                   unaligned */
    SC_RECORD_SHORT,            /* payload shorter than its kind's fixed part in format 1.0 */
    SC_RECORD_UNTERMINATED,     /* a kind with text whose text has no NUL */
    SC_RECORD_FRAMES_OVERRUN,   /* API: n_frames return addresses do not fit the payload */
    SC_RECORD_BAD_STRING_ID,    /* STRING: id 0 (none) or above SC_RECORD_MAX_STRING_ID */
    SC_RECORD_BAD_COMPACT_ID,   /* KERNEL_SHAPE, CALL_SITE: id 0 or above SC_COMPACT_MAX_ID */
    /* Not found by sc_record_check, which looks at one record: a compact record before its
     * TIME_BASE or its id's declaration (compact_read.h finds it, for the loader and the
     * dump alike). */
    SC_RECORD_UNDECLARED,
};

/* Ids beyond this are refused rather than trusted to size the loader's table. */
#define SC_RECORD_MAX_STRING_ID (1u << 26)

/* Checks the record at byte off (< size) of data; *h receives its header whenever one fits
 * (every fault but STRAY). after_end: the END record came before it. The payload of an OK
 * record is data + off + sizeof *h, h->size - sizeof *h bytes. */
enum sc_record_fault sc_record_check(const uint8_t *data, size_t size, size_t off,
                                     bool after_end, sc_record_header *h);

/* What the checks need of each kind this version knows, by kind (kinds it does not know
 * have none of it): its fixed part in format 1.0 (0 for ENV, all text), whether a text or
 * frames follow it, whether it has a rule of its own (a count of frames, an id). */
typedef struct sc_kind_traits {
    uint16_t least;
    bool text, frames, own_rule;
    /* least for a kind with none of the three, else UINT32_MAX (above any payload's size):
     * what sc_record_check_inline tests, in one comparison */
    uint32_t plain_least;
} sc_kind_traits;
extern const sc_kind_traits sc_kind_table[SC_REC_KIND_LAST + 1];

/* Whether the frames of an API record (n payload bytes at p, the fixed part `fixed` bytes,
 * both sound) fit the payload after the fixed part: the one rule of an API record that its
 * header does not settle. */
static inline bool sc_record_api_frames_fit(const uint8_t *p, size_t fixed, size_t n)
{
    uint16_t n_frames;
    memcpy(&n_frames, p + offsetof(sc_rec_api, n_frames), sizeof n_frames);
    return (size_t)n_frames * sizeof(uint64_t) <= n - fixed;
}

/* An API record's payload (n bytes at p, its header h sound) that breaks no rule: its fixed
 * part's and its frames' (sc_payload_check's rules for the kind, in one expression). */
static inline bool sc_record_api_ok(const sc_record_header *h, const uint8_t *p, size_t n)
{
    size_t least = sizeof(sc_rec_api), fixed = h->fixed ? h->fixed : least;
    if (n < least || fixed > n || fixed < least || fixed % sizeof(uint64_t))
        return false;
    return sc_record_api_frames_fit(p, fixed, n);
}

/* sc_record_check, inline for a record of a kind without text, frames or rules of its own
 * (nearly every record of a trace: kernels, calls without a stack, copies, compact records),
 * or an API record, that breaks no rule; any other record is judged by sc_record_check, so
 * the result is its result, fault for fault. For such a kind the rules are the header's and
 * the fixed part's. */
static inline enum sc_record_fault sc_record_check_inline(const uint8_t *data, size_t size,
                                                          size_t off, bool after_end,
                                                          sc_record_header *h)
{
    if (size - off >= sizeof *h && !after_end) {
        memcpy(h, data + off, sizeof *h);
        if (h->kind <= SC_REC_KIND_LAST && h->size >= sizeof *h && h->size % 8 == 0 &&
            h->size <= size - off) {
            uint32_t least = sc_kind_table[h->kind].plain_least;
            size_t n = h->size - sizeof *h;
            if (n >= least && (!h->fixed || (h->fixed <= n && h->fixed >= least)))
                return SC_RECORD_OK;
            if (h->kind == SC_REC_API && sc_record_api_ok(h, data + off + sizeof *h, n))
                return SC_RECORD_OK;
        }
    }
    return sc_record_check(data, size, off, after_end, h);
}

/* Record headers already found sound, for a loop over many records: a record of a kind
 * without text, frames or rules of its own whose header is one of them, that fits where it
 * lies and comes before the END record, breaks no rule (its header says all the rules look
 * at); an API record, when its frames fit too (sc_header_memo_keep). Each header in the
 * entry of its kind's low five bits; an entry starts with a value whose low bits name
 * another entry, so that no header matches it. */
typedef struct sc_header_memo {
    uint64_t seen[32];
} sc_header_memo;

static inline void sc_header_memo_init(sc_header_memo *m)
{
    for (uint64_t i = 0; i < 32; i++)
        m->seen[i] = i ^ 1;
}

static inline uint64_t sc_header_word(const sc_record_header *h)
{
    uint64_t w;
    memcpy(&w, h, sizeof w);
    return w;
}

/* Whether header h (of a record that fits where it lies, before the END record) is one the
 * memo holds. */
static inline bool sc_header_memo_has(const sc_header_memo *m, const sc_record_header *h)
{
    uint64_t w = sc_header_word(h);
    return m->seen[w % 32] == w;
}

/* Keeps header h, which sc_record_check_inline (or sc_record_check) found sound, when its
 * kind has no rule beyond the header's, or is API: all of an API record's rules but its
 * frames' fit are the header's, so a held API header is of a record that breaks no rule
 * when sc_record_api_frames_fit says its frames fit (its user tests that per record). A
 * trace's calls with a stack, or with bytes, are full API records, many of one size. */
static inline void sc_header_memo_keep(sc_header_memo *m, const sc_record_header *h)
{
    if (h->kind <= SC_REC_KIND_LAST &&
        (sc_kind_table[h->kind].plain_least != UINT32_MAX || h->kind == SC_REC_API)) {
        uint64_t w = sc_header_word(h);
        m->seen[w % 32] = w;
    }
}

/* A kind's traits; none for a kind this version does not know. Inline, as the four below:
 * the loader asks for every record. */
static inline sc_kind_traits sc_kind(uint16_t kind)
{
    return kind <= SC_REC_KIND_LAST ? sc_kind_table[kind] : (sc_kind_traits){0};
}

/* The fixed part of each kind in format 1.0: shorter is corrupt, longer is a newer minor
 * version's appended fields. Variable parts (text, frames) start right after it. 0 for
 * kinds without one (ENV) and kinds this version does not know. */
static inline size_t sc_record_fixed_size(uint16_t kind)
{
    return sc_kind(kind).least;
}

/* Whether the kind's fixed part is followed by a NUL-terminated text. */
static inline bool sc_record_has_text(uint16_t kind)
{
    return sc_kind(kind).text;
}

/* Whether it is followed by frames (API: return addresses; PYSTACK: Python frames). */
static inline bool sc_record_has_frames(uint16_t kind)
{
    return sc_kind(kind).frames;
}

/* Where a payload of n bytes ends its fixed part (its text or frames start there): the size
 * its header gives (1.3), else the kind's first size for kinds with a text or frames, else n.
 * For a record sc_record_check accepted it is at most n. */
static inline size_t sc_record_fixed_part(const sc_record_header *h, size_t n)
{
    if (h->fixed) return h->fixed;
    sc_kind_traits k = sc_kind(h->kind);
    return k.text || k.frames ? k.least : n;
}

/* The text after a payload's fixed part of `fixed` bytes: "" when there is none, NULL when
 * it is not NUL-terminated (never, for a record sc_record_check accepted). */
const char *sc_record_text(const uint8_t *payload, size_t fixed, size_t n);

/* Whether the byte at s starts a terminal control: a C0 control or DEL, or a C1 control in
 * UTF-8 (0xC2 0x80 .. 0xC2 0x9F, CSI among them). Returns its length (1 or 2), or 0. */
static inline size_t sc_text_control_at(const unsigned char *s)
{
    if (*s < 0x20 || *s == 0x7f)
        return 1;
    return s[0] == 0xc2 && s[1] >= 0x80 && s[1] <= 0x9f ? 2 : 0;
}

/* A trace's names (kernels, ranges, modules, devices, the executable, ...) are shown on
 * terminals and in files: every control character becomes '?', in place, so that no name
 * can move the cursor, retitle the window or start a line of its own. */
void sc_text_tame(char *s);

/* Copies a fixed part into a zeroed struct: fields an older writer lacked read as 0, fields a
 * newer one appended are ignored. Inline: the loader calls it for every record. */
static inline void sc_record_copy_fixed(void *dst, size_t dst_size, const uint8_t *payload,
                                        size_t n)
{
    /* The usual case, a fixed part as long as the struct or longer, first: a copy of a size
     * known when compiled, which the compiler does in a few moves instead of two calls. */
    if (n >= dst_size) {
        memcpy(dst, payload, dst_size);
        return;
    }
    memset(dst, 0, dst_size);
    memcpy(dst, payload, n);
}

#define SC_RECORD_COPY_FIXED(dst, payload, n) \
    sc_record_copy_fixed(&(dst), sizeof(dst), (payload), (n))

#endif

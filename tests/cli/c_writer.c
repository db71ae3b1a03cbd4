/* Writes a small trace with the C writer (src/trace/writer.c, trace/record.h), so that the
 * Python reader in sctrace.py is checked against the bytes the library itself produces, not
 * only against its own writer. Built and run by test_sctrace_read.py.
 *
 * Usage: c_writer DIR  ->  DIR/cw-7.sctrace */
#include <stdio.h>
#include <string.h>

#include "streamcheck/trace_format.h"
#include "trace/record.h"
#include "trace/writer.h"

static int put(sc_writer *w, uint16_t kind, const void *fixed, size_t fixed_size,
               const void *tail, size_t tail_size)
{
    uint8_t buf[1024];
    size_t n = sc_record_encode(buf, kind, fixed, fixed_size, tail, tail_size);
    return sc_writer_append(w, buf, n);
}

static int put_text(sc_writer *w, uint16_t kind, const void *fixed, size_t fixed_size,
                    const char *text)
{
    return put(w, kind, fixed, fixed_size, text, strlen(text) + 1);
}

int main(int argc, char **argv)
{
    char err[512];
    sc_writer w;
    if (argc != 2 || sc_writer_open(&w, argv[1], "cw", 7, err, sizeof err) != 0) {
        fprintf(stderr, "c_writer: %s\n", argc == 2 ? err : "usage: c_writer DIR");
        return 1;
    }
    sc_rec_process p = {.pid = 7, .ppid = 1, .start_ns = 1000, .start_unix_ns = 5,
                        .attach = SC_ATTACH_INJECTION};
    sc_rec_string s = {.id = 1};
    sc_rec_call_name cn = {.domain = 2, .cbid = 211};
    uint64_t frames[3] = {0x401000, 0x401234, 0x7f0000001000};
    sc_rec_api a = {.start_ns = 1500, .end_ns = 1600, .stream = 0x5000, .tid = 77,
                    .correlation_id = 1, .context_id = 1, .domain = 2, .cbid = 211,
                    .call_class = SC_CALL_LAUNCH, .n_frames = 3};
    sc_rec_kernel k = {.start_ns = 2000, .end_ns = 4000, .device = 0, .context_id = 1,
                       .stream_id = 7, .correlation_id = 1, .grid_x = 8, .grid_y = 1,
                       .grid_z = 1, .block_x = 128, .block_y = 1, .block_z = 1,
                       .registers_per_thread = 20, .name_id = 1};
    sc_rec_stream st = {.device = UINT32_MAX, .context_id = 1, .stream_id = 7,
                        .flag = SC_STREAM_FLAG_NON_BLOCKING, .priority = -2};
    sc_rec_note note = {.code = SC_NOTE_INFO};
    sc_rec_end e = {.end_ns = 9000, .dropped_records = 0, .api_records = 1,
                    .activity_records = 2, .reason = SC_END_EXIT};
    int rc = put_text(&w, SC_REC_PROCESS, &p, sizeof p, "/opt/app") |
             put_text(&w, SC_REC_STRING, &s, sizeof s, "_Z4spinv") |
             put_text(&w, SC_REC_CALL_NAME, &cn, sizeof cn, "cudaLaunchKernel") |
             put(&w, SC_REC_API, &a, sizeof a, frames, sizeof frames) |
             put(&w, SC_REC_KERNEL, &k, sizeof k, NULL, 0) |
             put(&w, SC_REC_STREAM, &st, sizeof st, NULL, 0) |
             put_text(&w, SC_REC_NOTE, &note, sizeof note, "hello") |
             put_text(&w, SC_REC_ENV, NULL, 0, "CUDA_MODULE_LOADING=LAZY") |
             put(&w, SC_REC_END, &e, sizeof e, NULL, 0);
    if (rc != 0 || sc_writer_finish(&w, err, sizeof err) != 0) {
        fprintf(stderr, "c_writer: %s\n", rc ? "append failed" : err);
        return 1;
    }
    return 0;
}

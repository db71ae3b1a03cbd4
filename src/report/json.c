/* JSON report built with jansson. Key rules (the schema promises them): integer times are
 * nanoseconds with an _ns suffix, absolute times on the trace's CUPTI clock; addresses and
 * stream handles are "0x..." strings (they do not always fit a double); unknown values are
 * null rather than absent, so consumers can rely on every key being there. */
#include "report/scope.h"
#include "report/json.h"

#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report/demangle.h"
#include "report/json_out.h"
#include "report/json_str.h"
#include "report/merge.h"
#include "report/names.h"
#include "report/pysite.h"
#include "report/text.h"

static json_t *jint(uint64_t v)
{
    return json_integer((json_int_t)v);
}

static json_t *jreal(double v)
{
    return isfinite(v) ? json_real(v) : json_null();
}

static json_t *jhex(uint64_t v)
{
    char buf[24];
    snprintf(buf, sizeof buf, "0x%llx", (unsigned long long)v);
    return json_string(buf);
}

/* ---- frames, calls, sites ----------------------------------------------------------- */

static json_t *frame_json(const sc_frame *f)
{
    json_t *o = json_object();
    json_object_set_new(o, "addr", jhex(f->addr));
    json_object_set_new(o, "module", sc_json_str(f->module));
    json_object_set_new(o, "module_offset", f->module ? jhex(f->module_offset) : json_null());
    json_object_set_new(o, "function", sc_json_str(f->function));
    json_object_set_new(o, "offset", f->function ? jint(f->offset) : json_null());
    json_object_set_new(o, "file", sc_json_str(f->file));
    json_object_set_new(o, "line", f->line ? jint(f->line) : json_null());
    json_object_set_new(o, "internal", json_boolean(sc_frame_is_internal(f)));
    return o;
}

static json_t *frames_json(const sc_trace *t, const sc_api_call *call,
                           const sc_json_options *opt)
{
    json_t *a = json_array();
    for (size_t i = 0; call && i < sc_call_n_frames(t, call); i++) {
        sc_frame f;
        sc_frame_resolve(opt->resolve, opt->resolve_ctx, t, sc_call_frames(t, call)[i], &f);
        json_array_append_new(a, frame_json(&f));
    }
    return a;
}

/* The Python stack of a call (format 1.4), null when the trace has none for it: "state"
 * ("frames", "no-python": a thread without Python, "unreadable"), "frames" innermost first,
 * each with "library" (site-packages, the standard library: pysite.h), and "site", the
 * index of the frame shown first, with its source line's "text" when the file is here. */
static json_t *python_json(const sc_trace *t, const sc_api_call *call)
{
    const sc_pystack *s = call ? sc_trace_pystack(t, call->rec.correlation_id) : NULL;
    if (!s)
        return json_null();
    json_t *o = json_object();
    json_object_set_new(o, "state", json_string(s->state == SC_PY_FRAMES     ? "frames"
                                                : s->state == SC_PY_NO_PYTHON ? "no-python"
                                                                              : "unreadable"));
    json_t *frames = json_array();
    for (uint16_t i = 0; i < s->n_frames; i++) {
        const sc_pyframe *f = &s->frames[i];
        json_t *j = json_object();
        json_object_set_new(j, "file", sc_json_str(f->file));
        json_object_set_new(j, "line", jint(f->line));
        json_object_set_new(j, "function", sc_json_str(f->function));
        json_object_set_new(j, "library", json_boolean(sc_pyframe_is_library(f->file)));
        json_array_append_new(frames, j);
    }
    json_object_set_new(o, "frames", frames);
    const sc_pyframe *site = sc_pystack_user_frame(s);
    json_object_set_new(o, "site", site ? jint(site - s->frames) : json_null());
    char text[400];
    const char *src = site ? sc_pysite_source(site->file, site->line, text, sizeof text) : NULL;
    json_object_set_new(o, "text", sc_json_str(src));
    const sc_range *r = site ? NULL : sc_pysite_enclosing_range(t, call);
    json_object_set_new(o, "nvtx_range", r ? sc_json_str(r->name) : json_null());
    return o;
}

/* The call that caused something: what it was, where it came from (call_site is the first
 * frame outside CUDA/CUPTI/streamcheck; frames is the full stack, innermost first). */
/* A call; its site (call_site, frames) from `site`, the call whose stack it shares (itself
 * when its own stack was taken). */
static json_t *call_json(const sc_trace *t, const sc_api_call *call, const sc_api_call *site_call,
                         const sc_json_options *opt)
{
    if (!call)
        return json_null();
    if (!site_call)
        site_call = call;
    json_t *o = json_object();
    json_object_set_new(o, "api", sc_json_str(sc_call_name(t, call)));
    json_object_set_new(o, "start_ns", jint(call->rec.start_ns));
    json_object_set_new(o, "end_ns", jint(sc_call_end(t, call)));
    json_object_set_new(o, "tid", jint(sc_call_tid(t, call)));
    uint64_t stream = sc_call_stream_handle(t, call);
    json_object_set_new(o, "stream", stream == SC_STREAM_NONE ? json_null() : jhex(stream));
    json_object_set_new(o, "bytes", jint(sc_call_bytes(t, call)));
    json_object_set_new(o, "correlation_id", jint(call->rec.correlation_id));
    sc_frame site;
    long idx = sc_frame_call_site(opt->resolve, opt->resolve_ctx, t, site_call, &site);
    json_object_set_new(o, "call_site", idx < 0 ? json_null() : frame_json(&site));
    json_object_set_new(o, "call_site_index", idx < 0 ? json_null() : json_integer(idx));
    json_object_set_new(o, "frames", frames_json(t, site_call, opt));
    json_object_set_new(o, "python", python_json(t, site_call));
    return o;
}

static json_t *evidence_json(const sc_evidence *ev, size_t n)
{
    json_t *o = json_object();
    for (size_t i = 0; i < n; i++)
        if (ev[i].key)
            json_object_set_new(o, ev[i].key, jreal(ev[i].value));
    return o;
}

static json_t *instance_json(const sc_trace *t, const sc_instance *in,
                             const sc_json_options *opt)
{
    json_t *o = json_object();
    json_object_set_new(o, "start_ns", jint(in->start_ns));
    json_object_set_new(o, "end_ns", jint(in->end_ns));
    json_object_set_new(o, "cost_ns", jint(in->cost_ns));
    json_object_set_new(o, "text", sc_json_str(in->text));
    json_object_set_new(o, "evidence", evidence_json(in->evidence, in->n_evidence));
    json_object_set_new(o, "call", call_json(t, in->call, in->site, opt));
    return o;
}

static json_t *finding_json(const sc_trace *t, const sc_finding *f, const sc_json_options *opt)
{
    json_t *o = json_object();
    json_object_set_new(o, "rule", sc_json_str(f->rule));
    json_object_set_new(o, "severity", json_string(sc_severity_name(f->severity)));
    json_object_set_new(o, "title", sc_json_str(f->title));
    json_object_set_new(o, "fix", sc_json_str(f->fix));
    json_object_set_new(o, "count", jint(f->count));
    json_object_set_new(o, "cost_ns", jint(f->cost_ns));
    json_object_set_new(o, "share", jreal(f->share));
    json_object_set_new(o, "waited_ns", jint(f->waited_ns));
    json_object_set_new(o, "join", json_boolean(f->join));
    json_object_set_new(o, "same_wait_as", f->same_wait_as ? sc_json_str(f->same_wait_as)
                                                           : json_null());
    json_object_set_new(o, "totals", evidence_json(f->totals, f->n_totals));
    json_object_set_new(o, "first", instance_json(t, &f->first, opt));
    json_object_set_new(o, "worst", instance_json(t, &f->worst, opt));
    json_t *sites = json_array();
    for (size_t i = 0; i < f->n_sites; i++) {
        json_t *s = json_object();
        json_object_set_new(s, "count", jint(f->sites[i].count));
        json_object_set_new(s, "cost_ns", jint(f->sites[i].cost_ns));
        json_object_set_new(s, "call", call_json(t, f->sites[i].call, NULL, opt));
        json_array_append_new(sites, s);
    }
    json_object_set_new(o, "sites", sites);
    return o;
}

/* ---- overlap, devices, streams ------------------------------------------------------ */

/* The overlap metrics as members, listed once for both kinds of object that carry them:
 * jansson's (devices, streams) and those written directly (ranges, json_out.h). */
typedef struct overlap_member {
    const char *key;            /* an identifier (SC_JSON_OUT_KEY's kind of key) */
    size_t key_len;
    enum { OV_INT, OV_REAL, OV_NULL } kind;
    json_int_t i;
    double d;
} overlap_member;

enum { OVERLAP_MEMBERS = 16 };

static void overlap_members(const sc_overlap *ov, overlap_member m[OVERLAP_MEMBERS])
{
    size_t k = 0;
#define OV_INT_MEMBER(name, v) \
    m[k++] = (overlap_member){name, sizeof(name) - 1, OV_INT, (json_int_t)(v), 0.0}
    OV_INT_MEMBER("first_ns", ov->first_ns);
    OV_INT_MEMBER("last_ns", ov->last_ns);
    OV_INT_MEMBER("span_ns", ov->last_ns > ov->first_ns ? ov->last_ns - ov->first_ns : 0);
    OV_INT_MEMBER("busy_ns", ov->busy_ns);
    OV_INT_MEMBER("kernel_sum_ns", ov->kernel_sum_ns);
    OV_INT_MEMBER("kernel_count", ov->kernel_count);
    m[k++] = (overlap_member){"concurrency", sizeof "concurrency" - 1,
                              isfinite(ov->concurrency) ? OV_REAL : OV_NULL, 0, ov->concurrency};
    OV_INT_MEMBER("overlap_ns", ov->overlap_ns);
    OV_INT_MEMBER("solo_sum_ns", ov->solo_sum_ns);
    OV_INT_MEMBER("solo_known", ov->solo_known);
    /* null when not every kernel's solo time is known: no number the data cannot support */
    m[k++] = (overlap_member){"speedup", sizeof "speedup" - 1,
                              ov->speedup > 0.0 && isfinite(ov->speedup) ? OV_REAL : OV_NULL, 0,
                              ov->speedup};
    OV_INT_MEMBER("copy_busy_ns", ov->copy_busy_ns);
    OV_INT_MEMBER("copy_compute_ns", ov->copy_compute_ns);
    OV_INT_MEMBER("idle_ns", ov->idle_ns);
    OV_INT_MEMBER("gap_count", ov->gap_count);
    OV_INT_MEMBER("longest_gap_ns", ov->longest_gap_ns);
#undef OV_INT_MEMBER
}

static void overlap_into(json_t *o, const sc_overlap *ov)
{
    overlap_member m[OVERLAP_MEMBERS];
    overlap_members(ov, m);
    for (size_t k = 0; k < OVERLAP_MEMBERS; k++)
        json_object_set_new(o, m[k].key, m[k].kind == OV_INT    ? json_integer(m[k].i)
                                         : m[k].kind == OV_REAL ? json_real(m[k].d)
                                                                : json_null());
}

static void overlap_out(sc_json_out *w, const sc_overlap *ov)
{
    overlap_member m[OVERLAP_MEMBERS];
    overlap_members(ov, m);
    for (size_t k = 0; k < OVERLAP_MEMBERS; k++) {
        sc_json_out_key_plain(w, m[k].key, m[k].key_len);
        if (m[k].kind == OV_INT)
            sc_json_out_int(w, m[k].i);
        else if (m[k].kind == OV_REAL)
            sc_json_out_real(w, m[k].d);
        else
            sc_json_out_null(w);
    }
}

static json_t *kernel_json(const sc_trace *t, size_t idx)
{
    if (idx >= t->n_kernels)
        return json_null();
    const sc_kernel *k = &t->kernels[idx];
    json_t *o = json_object();
    const char *name = sc_kernel_name(t, k);
    char *dem = sc_demangle(name);
    json_object_set_new(o, "name", sc_json_str(name));
    json_object_set_new(o, "demangled", sc_json_str(dem ? dem : name));
    free(dem);
    json_object_set_new(o, "stream_id", jint(sc_kernel_stream(t, k)));
    json_object_set_new(o, "start_ns", jint(k->rec.start_ns));
    json_object_set_new(o, "end_ns", jint(k->rec.end_ns));
    return o;
}

static json_t *device_json(const sc_trace *t, const sc_device_summary *d)
{
    json_t *o = json_object();
    json_object_set_new(o, "device", jint(d->device));
    json_object_set_new(o, "name", d->info ? sc_json_str(d->info->name) : json_null());
    json_object_set_new(o, "sm_count", d->info ? jint(d->info->rec.sm_count) : json_null());
    if (d->info) {
        char cc[16];
        snprintf(cc, sizeof cc, "%u.%u", d->info->rec.cc_major, d->info->rec.cc_minor);
        json_object_set_new(o, "compute_capability", json_string(cc));
    } else {
        json_object_set_new(o, "compute_capability", json_null());
    }
    overlap_into(o, &d->overlap);
    json_t *comm = json_object();      /* NCCL kernels, left out of the overlap above */
    json_object_set_new(comm, "kernels", jint(d->comm.kernel_count));
    json_object_set_new(comm, "kernel_time_ns", jint(d->comm.kernel_sum_ns));
    json_object_set_new(comm, "busy_ns", jint(d->comm.busy_ns));
    json_object_set_new(comm, "overlapped_ns", jint(d->comm.overlapped_ns));
    json_object_set_new(comm, "exposed_ns", jint(d->comm.exposed_ns));
    json_object_set_new(o, "comm", comm);
    static const char *const dirs[SC_COPY_DIRS] = {"htod", "dtoh", "peer"};
    json_t *copies = json_object();    /* bandwidth per direction (analysis.h) */
    for (int dir = 0; dir < SC_COPY_DIRS; dir++) {
        const sc_copy_rate *r = &d->copy_rates[dir];
        json_t *j = json_object();
        json_object_set_new(j, "count", jint(r->count));
        json_object_set_new(j, "bytes", jint(r->bytes));
        json_object_set_new(j, "time_ns", jint(r->time_ns));
        json_object_set_new(j, "bytes_per_s", json_real(r->bytes_per_s));
        json_object_set_new(copies, dirs[dir], j);
    }
    json_object_set_new(o, "copies", copies);
    json_object_set_new(o, "intervals_total", jint(d->n_intervals_total));
    json_t *ivs = json_array();
    for (size_t i = 0; i < d->n_intervals; i++) {
        const sc_overlap_interval *iv = &d->intervals[i];
        json_t *j = json_object();
        json_object_set_new(j, "start_ns", jint(iv->start_ns));
        json_object_set_new(j, "end_ns", jint(iv->end_ns));
        json_object_set_new(j, "duration_ns", jint(iv->end_ns - iv->start_ns));
        json_object_set_new(j, "max_kernels", jint(iv->max_kernels));
        json_object_set_new(j, "kernel_a", kernel_json(t, iv->kernel_a));
        json_object_set_new(j, "kernel_b", kernel_json(t, iv->kernel_b));
        json_array_append_new(ivs, j);
    }
    json_object_set_new(o, "intervals", ivs);
    return o;
}

static json_t *stream_json(const sc_trace *t, const sc_stream_summary *s,
                           const sc_json_options *opt)
{
    json_t *o = json_object();
    json_object_set_new(o, "device", jint(s->device));
    json_object_set_new(o, "context_id", jint(s->context_id));
    json_object_set_new(o, "stream_id", jint(s->stream_id));
    json_object_set_new(o, "kind", json_string(s->per_thread ? "per-thread"
                                                             : sc_report_stream_kind(s->flag)));
    json_object_set_new(o, "priority", json_integer(s->priority));
    json_object_set_new(o, "copy_count", jint(s->copy_count));
    json_object_set_new(o, "memset_count", jint(s->memset_count));
    json_object_set_new(o, "idle", json_boolean(sc_text_stream_idle(s)));
    overlap_into(o, &s->overlap);
    json_object_set_new(o, "created_by", call_json(t, s->created_by, NULL, opt));
    return o;
}

/* ---- NVTX ranges -------------------------------------------------------------------- */

/* The ranges are the bulk of a long trace's report (one object per NVTX range): they are
 * written directly while the document is written, not built as jansson values first. */
static void range_findings_out(sc_json_out *w, const sc_analysis *a, const sc_range_finding *f,
                               size_t n)
{
    sc_json_out_begin_array(w);
    for (size_t i = 0; i < n; i++) {
        sc_json_out_begin_object(w);
        SC_JSON_OUT_KEY(w, "rule");
        sc_json_out_string(w, sc_range_finding_rule(a, &f[i]));
        SC_JSON_OUT_KEY(w, "severity");
        sc_json_out_string(w, sc_severity_name(f[i].severity));
        SC_JSON_OUT_KEY(w, "count");
        sc_json_out_int(w, (json_int_t)f[i].count);
        SC_JSON_OUT_KEY(w, "cost_ns");
        sc_json_out_int(w, (json_int_t)f[i].cost_ns);
        SC_JSON_OUT_KEY(w, "finding");
        sc_json_out_int(w, (json_int_t)f[i].finding);
        sc_json_out_end_object(w);
    }
    sc_json_out_end_array(w);
}

/* What a range, or the ranges of a name, issued: the members both objects end with. */
static void range_work_out(sc_json_out *w, const sc_analysis *a, uint64_t calls,
                           uint64_t copies, uint64_t memsets, const sc_overlap *ov,
                           const sc_range_finding *findings, size_t n)
{
    SC_JSON_OUT_KEY(w, "call_count");
    sc_json_out_int(w, (json_int_t)calls);
    SC_JSON_OUT_KEY(w, "copy_count");
    sc_json_out_int(w, (json_int_t)copies);
    SC_JSON_OUT_KEY(w, "memset_count");
    sc_json_out_int(w, (json_int_t)memsets);
    overlap_out(w, ov);
    SC_JSON_OUT_KEY(w, "findings");
    range_findings_out(w, a, findings, n);
}

static void int_or_null_out(sc_json_out *w, bool known, uint64_t v)
{
    if (known)
        sc_json_out_int(w, (json_int_t)v);
    else
        sc_json_out_null(w);
}

static void range_out(sc_json_out *w, const sc_analysis *a, const sc_range_summary *r)
{
    const sc_rec_range *rec = &r->range->rec;
    bool any_thread = rec->depth == UINT32_MAX;     /* start/end: not bound to a thread */
    sc_json_out_begin_object(w);
    SC_JSON_OUT_KEY(w, "name");
    sc_json_out_string(w, r->range->name);
    SC_JSON_OUT_KEY(w, "domain");
    sc_json_out_string(w, r->range->domain);
    SC_JSON_OUT_KEY(w, "kind");
    sc_json_out_string(w, any_thread ? "start-end" : "push-pop");
    SC_JSON_OUT_KEY(w, "tid");
    sc_json_out_int(w, (json_int_t)rec->tid);
    SC_JSON_OUT_KEY(w, "depth");
    int_or_null_out(w, !any_thread, rec->depth);
    SC_JSON_OUT_KEY(w, "start_ns");
    sc_json_out_int(w, (json_int_t)rec->start_ns);
    SC_JSON_OUT_KEY(w, "end_ns");
    sc_json_out_int(w, (json_int_t)rec->end_ns);
    SC_JSON_OUT_KEY(w, "wall_ns");
    sc_json_out_int(w, (json_int_t)r->wall_ns);
    SC_JSON_OUT_KEY(w, "replay_wall_ns");
    int_or_null_out(w, r->replay_wall_ns, r->replay_wall_ns);
    SC_JSON_OUT_KEY(w, "fixed_wall_ns");
    int_or_null_out(w, r->replay_wall_ns, r->fixed_wall_ns);
    range_work_out(w, a, r->call_count, r->copy_count, r->memset_count, &r->overlap,
                   r->findings, r->n_findings);
    sc_json_out_end_object(w);
}

static void ranges_fill(sc_json_out *w, const void *arg)
{
    const sc_analysis *a = arg;
    for (size_t i = 0; i < a->n_ranges; i++)
        range_out(w, a, &a->ranges[i]);
}

static json_t *replay_json(const sc_replay_summary *r)
{
    if (!r->done)
        return json_null();
    json_t *o = json_object();
    json_object_set_new(o, "recorded_span_ns", jint(r->recorded_span_ns));
    json_object_set_new(o, "replay_span_ns", jint(r->replay_span_ns));
    json_object_set_new(o, "error", jreal(r->error));
    json_object_set_new(o, "trusted", json_boolean(r->trusted));
    json_object_set_new(o, "tool_ns", jint(r->tool_ns));
    json_object_set_new(o, "tool_calls", jint(r->tool_calls));
    json_object_set_new(o, "tracer_ns", jint(r->tracer_ns));
    json_object_set_new(o, "tracer_calls", jint(r->tracer_calls));
    json_object_set_new(o, "plain_span_ns", jint(r->plain_span_ns));
    json_object_set_new(o, "fixed_span_ns", jint(r->fixed_span_ns));
    json_object_set_new(o, "operations", jint(r->ops));
    json_object_set_new(o, "host_items", jint(r->calls));
    json_object_set_new(o, "held", jint(r->held));
    json_object_set_new(o, "unexplained", jint(r->unexplained));
    json_object_set_new(o, "unexplained_ns", jint(r->unexplained_ns));
    return o;
}

static void range_name_out(sc_json_out *w, const sc_analysis *a,
                           const sc_range_name_summary *r)
{
    sc_json_out_begin_object(w);
    SC_JSON_OUT_KEY(w, "name");
    sc_json_out_string(w, r->name);
    SC_JSON_OUT_KEY(w, "domain");
    sc_json_out_string(w, r->domain);
    SC_JSON_OUT_KEY(w, "count");
    sc_json_out_int(w, (json_int_t)r->count);
    SC_JSON_OUT_KEY(w, "wall_ns");
    sc_json_out_int(w, (json_int_t)r->wall_ns);
    SC_JSON_OUT_KEY(w, "mean_wall_ns");
    sc_json_out_int(w, (json_int_t)(r->count ? r->wall_ns / r->count : 0));
    SC_JSON_OUT_KEY(w, "max_wall_ns");
    sc_json_out_int(w, (json_int_t)r->max_wall_ns);
    range_work_out(w, a, r->call_count, r->copy_count, r->memset_count, &r->overlap,
                   r->findings, r->n_findings);
    sc_json_out_end_object(w);
}

static void range_names_fill(sc_json_out *w, const void *arg)
{
    const sc_analysis *a = arg;
    for (size_t i = 0; i < a->n_range_names; i++)
        range_name_out(w, a, &a->range_names[i]);
}

/* ---- process and document ----------------------------------------------------------- */

/* The capture scope the trace was recorded with (format 1.5), null when recorded whole. */
static json_t *scope_json(const sc_trace *t)
{
    if (!t->has_scope) return json_null();
    json_t *o = json_object();
    json_object_set_new(o, "mode", json_string(sc_report_scope_mode_name(t->scope.mode)));
    json_object_set_new(o, "range", t->scope.mode == SC_SCOPE_NVTX_RANGE
                                        ? sc_json_str(t->scope_name) : json_null());
    json_object_set_new(o, "skip", jint(t->scope.skip));
    json_object_set_new(o, "recorded_ns", jint(sc_trace_scope_ns(t)));
    json_t *windows = json_array();
    for (size_t i = 0; i < t->n_scope_windows; i++) {
        const sc_rec_scope_window *w = &t->scope_windows[i];
        json_t *j = json_object();
        json_object_set_new(j, "open_ns", jint(w->open_ns));
        json_object_set_new(j, "close_ns", jint(w->close_ns));
        json_object_set_new(j, "occurrence", jint(w->occurrence));
        json_object_set_new(j, "open_at_end", json_boolean(w->flags & SC_SCOPE_OPEN_AT_END));
        json_array_append_new(windows, j);
    }
    json_object_set_new(o, "windows", windows);
    char text[600];
    json_object_set_new(o, "text", sc_json_str(sc_report_scope_text(t, text, sizeof text)));
    return o;
}

static json_t *process_json(sc_json_out *w, const sc_analysis *a, size_t suppressed,
                            const sc_json_options *opt)
{
    const sc_trace *t = a->trace;
    json_t *o = json_object();
    char ver[16];
    snprintf(ver, sizeof ver, "%u.%u", t->version_major, t->version_minor);
    json_object_set_new(o, "path", sc_json_str(t->path));
    json_object_set_new(o, "exe", sc_json_str(t->exe));
    json_object_set_new(o, "pid", t->has_process ? jint(t->process.pid) : json_null());
    json_object_set_new(o, "ppid", t->has_process ? jint(t->process.ppid) : json_null());
    json_object_set_new(o, "attach", t->has_process ? json_string(sc_report_attach_name(
                                                          t->process.attach))
                                                    : json_null());
    json_object_set_new(o, "start_unix_ns", t->has_process ? jint(t->process.start_unix_ns)
                                                           : json_null());
    json_object_set_new(o, "trace_version", json_string(ver));
    json_object_set_new(o, "status", json_string(sc_report_status_name(t->status)));
    json_object_set_new(o, "status_detail", t->status == SC_TRACE_COMPLETE
                                                ? json_null() : sc_json_str(t->status_detail));
    json_object_set_new(o, "dropped_records", t->has_end ? jint(t->end.dropped_records)
                                                         : json_null());
    json_object_set_new(o, "impossible_times", jint(t->impossible_times));
    /* what streamcheck could not record, by cause (format 1.1; null for older traces) */
    json_t *losses = t->n_losses ? json_object() : json_null();
    for (size_t i = 0; i < t->n_losses; i++)
        json_object_set_new(losses, sc_loss_cause_name(t->losses[i].cause),
                            jint(t->losses[i].count));
    json_object_set_new(o, "losses", losses);
    json_object_set_new(o, "scope", scope_json(t));
    json_object_set_new(o, "run_start_ns", jint(a->run_start_ns));
    json_object_set_new(o, "run_end_ns", jint(a->run_end_ns));
    json_object_set_new(o, "span_ns", jint(a->run_end_ns > a->run_start_ns
                                               ? a->run_end_ns - a->run_start_ns : 0));
    json_t *counts = json_object();
    json_object_set_new(counts, "kernels", jint(t->n_kernels));
    json_object_set_new(counts, "copies", jint(t->n_copies));
    json_object_set_new(counts, "memsets", jint(t->n_memsets));
    json_object_set_new(counts, "api_calls", jint(t->n_calls));
    json_object_set_new(o, "counts", counts);

    json_t *notes = json_array();
    for (size_t i = 0; i < t->n_notes; i++) {
        json_t *n = json_object();
        json_object_set_new(n, "code", json_string(sc_report_note_name(t->notes[i].code)));
        json_object_set_new(n, "text", sc_json_str(t->notes[i].text));
        json_array_append_new(notes, n);
    }
    json_object_set_new(o, "notes", notes);
    json_t *env = json_array();
    for (size_t i = 0; i < t->n_env; i++)
        json_array_append_new(env, sc_json_str(t->env[i]));
    json_object_set_new(o, "env", env);

    json_t *devs = json_array(), *streams = json_array(), *findings = json_array();
    for (size_t i = 0; i < a->n_devices; i++)
        json_array_append_new(devs, device_json(t, &a->devices[i]));
    for (size_t i = 0; i < a->n_streams; i++)
        json_array_append_new(streams, stream_json(t, &a->streams[i], opt));
    for (size_t i = 0; i < a->n_findings; i++)
        json_array_append_new(findings, finding_json(t, &a->findings[i], opt));
    json_object_set_new(o, "devices", devs);
    json_object_set_new(o, "streams", streams);
    json_object_set_new(o, "findings", findings);
    json_object_set_new(o, "suppressed", jint(suppressed));
    /* left empty here, filled while written */
    json_t *ranges = json_array(), *names = json_array();
    sc_json_out_defer(w, ranges, ranges_fill, a);
    sc_json_out_defer(w, names, range_names_fill, a);
    json_object_set_new(o, "ranges", ranges);
    json_object_set_new(o, "range_names", names);
    json_object_set_new(o, "replay", replay_json(&a->replay));
    return o;
}

static json_t *summary_json(const sc_analysis *const *as, size_t n, size_t n_errors)
{
    json_t *o = json_object();
    size_t nr = 0;
    sc_rule_total *rules = sc_report_merge_rules(as, n, &nr);
    int worst = -1;
    uint64_t kernels = 0;
    json_t *arr = json_array();
    for (size_t k = 0; k < nr; k++) {
        json_t *r = json_object();
        json_object_set_new(r, "rule", json_string(rules[k].rule));
        json_object_set_new(r, "severity", json_string(sc_severity_name(rules[k].severity)));
        json_object_set_new(r, "count", jint(rules[k].count));
        json_object_set_new(r, "cost_ns", jint(rules[k].cost_ns));
        json_object_set_new(r, "processes", jint(rules[k].processes));
        json_array_append_new(arr, r);
        if ((int)rules[k].severity > worst)
            worst = (int)rules[k].severity;
    }
    free(rules);
    for (size_t i = 0; i < n; i++)
        kernels += as[i]->trace->n_kernels;
    json_object_set_new(o, "processes", jint(n));
    json_object_set_new(o, "unreadable", jint(n_errors));
    json_object_set_new(o, "kernels", jint(kernels));
    json_object_set_new(o, "worst_severity",
                        worst < 0 ? json_null() : json_string(sc_severity_name(worst)));
    json_object_set_new(o, "findings", arr);
    return o;
}

/* The verdicts of --expect, in the order given: what a CI job reads back. */
static json_t *expectations_json(const sc_expect_result *r, size_t n)
{
    json_t *arr = json_array();
    for (size_t i = 0; i < n; i++) {
        json_t *o = json_object();
        json_object_set_new(o, "expectation", sc_json_str(r[i].text));
        json_object_set_new(o, "passed", json_boolean(r[i].pass));
        json_object_set_new(o, "measured", sc_json_str(r[i].detail));
        json_array_append_new(arr, o);
    }
    return arr;
}

int sc_json_write(FILE *out, const sc_analysis *const *as, size_t n,
                  const sc_json_error *errors, size_t n_errors, const sc_json_options *opt)
{
    /* the writer first: the ranges are written by it as it meets their places */
    sc_json_out *w = sc_json_out_new(out);
    json_t *doc = w ? json_object() : NULL;
    if (!doc) {
        sc_json_out_finish(w);
        json_decref(opt->ranks);
        return -1;
    }
    json_object_set_new(doc, "schema", json_string(SC_JSON_SCHEMA));
    json_t *tool = json_object();
    json_object_set_new(tool, "name", json_string("streamcheck-report"));
    json_object_set_new(tool, "version", sc_json_str(opt->tool_version));
    json_object_set_new(doc, "tool", tool);
    json_t *procs = json_array();
    for (size_t i = 0; i < n; i++)
        json_array_append_new(procs, process_json(w, as[i], opt->suppressed ? opt->suppressed[i]
                                                                            : 0, opt));
    json_object_set_new(doc, "processes", procs);
    json_t *errs = json_array();
    for (size_t i = 0; i < n_errors; i++) {
        json_t *e = json_object();
        json_object_set_new(e, "path", sc_json_str(errors[i].path));
        json_object_set_new(e, "message", sc_json_str(errors[i].message));
        json_array_append_new(errs, e);
    }
    json_object_set_new(doc, "errors", errs);
    json_object_set_new(doc, "summary", summary_json(as, n, n_errors));
    if (opt->ranks)
        json_object_set_new(doc, "ranks", opt->ranks);
    if (opt->n_expectations)
        json_object_set_new(doc, "expectations",
                            expectations_json(opt->expectations, opt->n_expectations));

    sc_json_out_value(w, doc);
    int rc = sc_json_out_finish(w);
    if (rc == 0 && fputc('\n', out) == EOF)
        rc = -1;
    json_decref(doc);
    return rc;
}

#include "report/names.h"

#include <string.h>

const char *sc_report_stream_kind(uint32_t flag)
{
    switch (flag) {
    case SC_STREAM_FLAG_BLOCKING: return "blocking";
    case SC_STREAM_FLAG_NON_BLOCKING: return "non-blocking";
    case SC_STREAM_FLAG_LEGACY: return "legacy";
    default: return "unknown";
    }
}

const char *sc_report_status_name(enum sc_trace_status status)
{
    switch (status) {
    case SC_TRACE_COMPLETE: return "complete";
    case SC_TRACE_PARTIAL: return "partial";
    case SC_TRACE_TRUNCATED: return "truncated";
    }
    return "unknown";
}

const char *sc_report_note_name(uint32_t code)
{
    switch (code) {
    case SC_NOTE_INFO: return "info";
    case SC_NOTE_CUPTI_UNAVAILABLE: return "cupti-unavailable";
    case SC_NOTE_CUPTI_TAKEN: return "cupti-taken";
    case SC_NOTE_ACTIVITY_FAILED: return "activity-failed";
    case SC_NOTE_WRITE_FAILED: return "write-failed";
    case SC_NOTE_FORKED: return "forked";
    case SC_NOTE_EXIT_SYNC_TIMEOUT: return "exit-sync-timeout";
    case SC_NOTE_PYTHON_UNREAD: return "python-unread";
    default: return "unknown";
    }
}

const char *sc_report_attach_name(uint32_t attach)
{
    switch (attach) {
    case SC_ATTACH_PRELOAD: return "preload";
    case SC_ATTACH_INJECTION: return "injection";
    default: return "unknown";
    }
}

const char *sc_report_copy_kind(unsigned kind, const char *beyond)
{
    static const char *const names[] = {"unknown", "HtoD", "DtoH", "HtoA", "AtoH", "AtoA",
                                        "AtoD",    "DtoA", "DtoD", "HtoH", "PtoP"};
    return kind < sizeof names / sizeof names[0] ? names[kind] : beyond;
}

const char *sc_report_memory_kind(unsigned kind, const char *beyond)
{
    static const char *const names[] = {"unknown", "pageable", "pinned", "device", "array",
                                        "managed", "device-static", "managed-static"};
    return kind < sizeof names / sizeof names[0] ? names[kind] : beyond;
}

int sc_report_parse_severity(const char *name)
{
    static const sc_severity all[] = {SC_SEV_NOTE, SC_SEV_WARNING, SC_SEV_ERROR};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        if (strcmp(name, sc_severity_name(all[i])) == 0)
            return (int)all[i];
    return -1;
}

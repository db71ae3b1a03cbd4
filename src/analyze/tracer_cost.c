#include "analyze/tracer_cost.h"

#include "streamcheck/trace_format.h"

uint64_t sc_tracer_cost_ns(uint16_t call_class)
{
    switch (call_class) {   /* tracer_cost.h says where each comes from */
    case SC_CALL_LAUNCH:
        return 1664;
    case SC_CALL_MEMCPY_ASYNC:
        return 655;
    case SC_CALL_EVENT_RECORD:
        return 458;
    case SC_CALL_EVENT_WAIT:
        return 802;
    case SC_CALL_EVENT_QUERY:
    case SC_CALL_STREAM_QUERY:
        return 830;
    default:
        return 0;
    }
}

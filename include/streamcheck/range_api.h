/* Ranges without NVTX: two functions libstreamcheck.so exports for a program (or a test
 * runner's plugin, tools/pytest_streamcheck.py) that wants its work attributed to named
 * ranges where NVTX (libnvToolsExt, the nvtx package) is not there.
 *
 * They write the RANGE records NVTX push/pop ranges write (a range of the default domain,
 * on the calling thread), so every report treats both alike. Look them up at run time
 * (dlsym(RTLD_DEFAULT, "streamcheck_range_push"), ctypes.CDLL(None)): without the library
 * loaded they are not there, and nothing needs to be called.
 *
 * A range may open before the program starts CUDA: it then counts from the moment capture
 * started (nothing CUDA did can come before that). A process that never starts CUDA writes
 * nothing. Ranges nest up to 32 deep per thread; one still open at exit is not written. */
#ifndef STREAMCHECK_RANGE_API_H
#define STREAMCHECK_RANGE_API_H

/* Opens a range named `name` (copied; NULL: "(unnamed range)") on the calling thread. */
void streamcheck_range_push(const char *name);
/* Closes the calling thread's innermost range opened by streamcheck_range_push. */
void streamcheck_range_pop(void);

#endif

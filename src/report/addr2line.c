#include "report/addr2line.h"

#include <fcntl.h>
#include <spawn.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

/* Addresses go on the command line, so a batch is bounded to stay far below ARG_MAX. */
#define BATCH 512

/* "src/app.cu:57", "src/app.cu:57 (discriminator 2)", "??:0", "app.cu:?" */
static void parse_line(const char *text, char **file, uint32_t *line)
{
    *file = NULL;
    *line = 0;
    const char *colon = strrchr(text, ':');
    if (!colon || colon == text || strncmp(text, "??", 2) == 0)
        return;
    unsigned long l = strtoul(colon + 1, NULL, 10);
    if (l == 0)
        return;
    *file = strndup(text, (size_t)(colon - text));
    *line = (uint32_t)l;
}

static int run_batch(const char *path, const uint64_t *vaddrs, size_t n, char **files,
                     uint32_t *lines)
{
    char **argv = calloc(n + 7, sizeof *argv);
    char *hex = malloc(n * 20);
    int fds[2] = {-1, -1};
    int rc = -1;
    if (!argv || !hex || pipe2(fds, O_CLOEXEC) != 0)
        goto out;
    size_t k = 0;
    argv[k++] = "addr2line";
    argv[k++] = "-a";   /* each address's block starts with the address itself ... */
    argv[k++] = "-i";   /* ... then its inlined frames, innermost first, the caller's last */
    argv[k++] = "-e";
    argv[k++] = (char *)path;
    for (size_t i = 0; i < n; i++) {
        snprintf(hex + i * 20, 20, "0x%llx", (unsigned long long)vaddrs[i]);
        argv[k++] = hex + i * 20;
    }
    argv[k] = NULL;

    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_adddup2(&fa, fds[1], 1);
    posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
    pid_t pid;
    int err = posix_spawnp(&pid, "addr2line", &fa, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    close(fds[1]);
    fds[1] = -1;
    if (err != 0)
        goto out;

    FILE *in = fdopen(fds[0], "r");
    if (!in) {
        waitpid(pid, NULL, 0);
        goto out;
    }
    fds[0] = -1;
    /* A call inlined from a header (the CUDA runtime's C++ wrappers) resolves to the header's
     * line first: the last line of a block is the function the user wrote it in. */
    char *text = NULL;
    size_t cap = 0;
    size_t i = 0;
    bool started = false;
    while (getline(&text, &cap, in) > 0) {
        if (strncmp(text, "0x", 2) == 0) {
            if (started && ++i >= n)
                break;
            started = true;
            continue;
        }
        text[strcspn(text, " \n")] = '\0';    /* drop " (discriminator N)" */
        char *file;
        uint32_t line;
        parse_line(text, &file, &line);
        if (file && started) {
            free(files[i]);
            files[i] = file;
            lines[i] = line;
        } else {
            free(file);
        }
    }
    free(text);
    fclose(in);
    int status = 0;
    waitpid(pid, &status, 0);
    rc = WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : -1;
out:
    if (fds[0] >= 0)
        close(fds[0]);
    if (fds[1] >= 0)
        close(fds[1]);
    free(argv);
    free(hex);
    return rc;
}

int sc_sym_addr2line(const char *path, const uint64_t *vaddrs, size_t n, char **files,
                     uint32_t *lines)
{
    memset(files, 0, n * sizeof *files);
    memset(lines, 0, n * sizeof *lines);
    for (size_t i = 0; i < n; i += BATCH) {
        size_t m = n - i < BATCH ? n - i : BATCH;
        if (run_batch(path, vaddrs + i, m, files + i, lines + i) != 0)
            return -1;
    }
    return 0;
}

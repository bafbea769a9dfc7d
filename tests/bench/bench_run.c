/* Runs one command for `make bench` and measures it: wall time, the child's peak RSS (getrusage via wait4) and
 * the bytes it wrote to stdout (read from a pipe and dropped). Prints "SECONDS MAXRSS_KIB OUT_BYTES STATUS".
 * Usage: bench_run CMD [ARG...] */
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: bench_run CMD [ARG...]\n");
        return 2;
    }
    int fds[2];
    if (pipe(fds) != 0) return 2;
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    pid_t pid = fork();
    if (pid < 0) return 2;
    if (pid == 0) {
        dup2(fds[1], 1);
        close(fds[0]);
        close(fds[1]);
        execvp(argv[1], argv + 1);
        _exit(127);
    }
    close(fds[1]);
    static char chunk[1 << 20];
    unsigned long long bytes = 0;
    ssize_t got;
    while ((got = read(fds[0], chunk, sizeof chunk)) > 0) bytes += (unsigned long long)got;
    int status = 0;
    struct rusage ru;
    if (wait4(pid, &status, 0, &ru) < 0) return 2;
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double s = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
    printf("%.4f %ld %llu %d\n", s, ru.ru_maxrss, bytes, WIFEXITED(status) ? WEXITSTATUS(status) : 128);
    return 0;
}

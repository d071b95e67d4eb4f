/* iolens-bench-clock: prints CLOCK_MONOTONIC in nanoseconds and exits. Run under
 * a tracer that holds its command until the probes are live, the printed time
 * minus the tracer's launch time is the tracer's time to attach (tools/bench). */
#include <stdio.h>
#include <time.h>

int main(void) {
    struct timespec ts;

    if (clock_gettime(CLOCK_MONOTONIC, &ts) != 0) {
        perror("iolens-bench-clock: clock_gettime");
        return 1;
    }
    printf("mono_ns=%lld\n", (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec);
    return 0;
}

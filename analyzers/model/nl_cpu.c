/* nl_cpu — see nl_cpu.h. */
#include "nl_cpu.h"

#include <sched.h>
#include <unistd.h>

unsigned nl_cpu_count(void)
{
    cpu_set_t set;
    long n = -1;
    if (sched_getaffinity(0, sizeof set, &set) == 0)
        n = CPU_COUNT(&set);
    if (n < 1)
        n = sysconf(_SC_NPROCESSORS_ONLN);
    return n < 1 ? 1u : (unsigned)n;
}

unsigned nl_cpu_threads(unsigned requested, unsigned max)
{
    unsigned n = requested ? requested : nl_cpu_count();
    if (n > max)
        n = max;
    return n ? n : 1u;
}

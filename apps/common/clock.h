/* SPDX-License-Identifier: MIT */
/* The applications' one clock: monotonic seconds (each application
 * defines _POSIX_C_SOURCE before its includes). */
#ifndef APPS_CLOCK_H
#define APPS_CLOCK_H

#include <time.h>

static inline double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

#endif

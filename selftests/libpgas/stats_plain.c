// SPDX-License-Identifier: MIT
/* stats_plain - stats.c built without PGAS_INSTRUMENT: the inline calls
 * are not noted, everything the library does out of line is. */
#define STATS_PLAIN
#include "stats.c"

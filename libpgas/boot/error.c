// SPDX-License-Identifier: MIT
/* error.c - one place where failures are worded, recorded and reported. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "boot.h"

/* pgas_fast.h's guard: what every unit built with its inline path refers
 * to.  Here, in the lowest layer, so that every layer's reference stays
 * inside what it may call. */
const unsigned char PGAS__FAST_SYM = PGAS__FAST_ABI;
const unsigned char PGAS__FAST_SYM_(2, PGAS__FAST_RING) = 2;

static _Thread_local char last_error[512];

const char *pgas_strerror(int err)
{
	switch (err) {
	case PGAS_OK: return "success";
	case PGAS_ERR_INVAL: return "invalid argument";
	case PGAS_ERR_RANK: return "rank out of range";
	case PGAS_ERR_BOUNDS: return "address range outside the segment";
	case PGAS_ERR_HANDLER: return "bad handler index";
	case PGAS_ERR_STATE: return "call not allowed in this state";
	case PGAS_ERR_NOMEM: return "out of memory";
	case PGAS_ERR_SYS: return "system call failed";
	case PGAS_ERR_NOT_READY: return "not complete yet";
	case PGAS_ERR_BARRIER_MISMATCH: return "barrier mismatch";
	case PGAS_ERR_SIZE: return "size over a limit";
	case PGAS_ERR_GONE: return "a rank or endpoint it needs has left the job";
	case PGAS_ERR_RESOURCE: return "no endpoint left (PGAS_EP_MAX)";
	}
	return "unknown error";
}

const char *pgas_last_error(void)
{
	return last_error;
}

static int report_rank = -1;

void pgas__err_set_rank(int rank)
{
	report_rank = rank;
}

static void emit(const char *prefix, const char *text)
{
	/* One write so that lines of several ranks do not interleave. */
	char line[640];
	int n;

	if (report_rank >= 0)
		n = snprintf(line, sizeof(line), "pgas[%d]: %s%s\n", report_rank, prefix, text);
	else
		n = snprintf(line, sizeof(line), "pgas: %s%s\n", prefix, text);
	if (n > (int)sizeof(line) - 1)
		n = (int)sizeof(line) - 1;
	if (write(STDERR_FILENO, line, (size_t)n) < 0)
		return;
}

int pgas__err(int err, const char *call, const char *fmt, ...)
{
	char text[400];
	va_list ap;

	if (!pgas__cfg_loaded) {	/* a call before pgas_init */
		char ignored[256];

		pgas__config_load(ignored, sizeof(ignored));
	}
	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	snprintf(last_error, sizeof(last_error), "%s: %s", call, text);
	if (pgas__cfg.error_mode != PGAS_ERRMODE_QUIET)
		emit("", last_error);
	if (pgas__cfg.error_mode == PGAS_ERRMODE_ABORT)
		abort();
	return err;
}

/* emit(prefix, the formatted text). */
static void emit_fmt(const char *prefix, const char *fmt, va_list ap)
{
	char text[400];

	vsnprintf(text, sizeof(text), fmt, ap);
	emit(prefix, text);
}

void pgas__warn(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	emit_fmt("warning: ", fmt, ap);
	va_end(ap);
}

void pgas__fatal(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	emit_fmt("fatal: ", fmt, ap);
	va_end(ap);
	/* pgasrun sees the non-zero exit and ends the other ranks. */
	_exit(70);
}

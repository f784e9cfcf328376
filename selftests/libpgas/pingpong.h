/* SPDX-License-Identifier: MIT */
/*
 * pingpong.h - the AM ping/pong pair that tests and benchmarks share:
 * a ping (handler H_PING) is answered by a pong (H_PONG) carrying the
 * same arguments; pongs counts the pongs received.
 */
#ifndef PGAS_PINGPONG_H
#define PGAS_PINGPONG_H

#include "pgas.h"

#define H_PING 1
#define H_PONG 2
#define PINGPONG_HANDLERS { H_PING, h_ping }, { H_PONG, h_pong }

static volatile unsigned pongs;

static inline void h_ping(pgas_token_t t, void *b, size_t n, const uint32_t *a, unsigned na)
{
	(void)b; (void)n;
	pgas_am_reply_short(t, H_PONG, a, na);
}

static inline void h_pong(pgas_token_t t, void *b, size_t n, const uint32_t *a, unsigned na)
{
	(void)t; (void)b; (void)n; (void)a; (void)na;
	pongs++;
}

#endif /* PGAS_PINGPONG_H */

/* SPDX-License-Identifier: MIT */
/*
 * wire.h - the header of every message the ofi conduit sends (ofi.c,
 * docs/ofi.md).  Shared with the intruder test (selftests/ofi/intruder.c),
 * which sends messages of this layout with a wrong key.
 */
#ifndef PGAS_OFI_WIRE_H
#define PGAS_OFI_WIRE_H

#include <stdint.h>

/* What travels: this header, the message body, a Medium's bounce bytes. */
enum { WIRE_AM = 1, WIRE_BARRIER = 2, WIRE_NOTIFY = 3 };
enum { WIRE_PING = 16, WIRE_PONG, WIRE_BYE };	/* liveness: header only */

struct wire {
	/* The job key: 64 random bits made by rank 0 at open, spread with
	 * the fabric addresses.  An arrival without it is dropped before
	 * anything reads the rest: whoever reaches the endpoint (any local
	 * user, a stale peer of an earlier job) cannot inject into the job. */
	uint64_t key;
	uint64_t status;	/* the first slot's (or notification's) status word, lap 0 */
	uint32_t eid;		/* the target endpoint (a rank, for a barrier) */
	uint32_t src_rank;	/* the sending rank: whose bounce buffers */
	uint32_t extra;		/* bounce bytes after the body / barrier round*2+parity */
	uint16_t chan;
	uint16_t kind;
};

/* WIRE_BARRIER and WIRE_NOTIFY: the header and a word (the flag word;
 * size and tag), which an AM does not carry: its header stays 32 bytes,
 * as before the key (tcp;ofi_rxm's inject size is 64). */
struct wire_word {
	struct wire h;
	uint64_t word;
};

#endif

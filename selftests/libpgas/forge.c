// SPDX-License-Identifier: MIT
/*
 * forge - a rank forges, in a peer's ring region, what pgas.ko used to
 * write there (ABI 1): the peers_gone word of the control page and a
 * PEER_GONE notification saying the forger died.  Both words are writable
 * by every rank of the job (peers produce into the ring region), so the
 * victim must not trust them: it must neither end itself ("peer endpoint(s)
 * of this job died") nor report a death to the application.  Over pgas.ko
 * what the kernel says lives on the read-only kernel page (ABI 2); over
 * shm nobody says it.  Two ranks or more; rank 1 forges against rank 0.
 */
#define _GNU_SOURCE
#include <stdatomic.h>
#include <stddef.h>
#include <unistd.h>
#include "tap.h"

int main(int argc, char **argv)
{
	unsigned me, n;

	if (pgas_init(&argc, &argv))
		return 1;
	me = pgas_rank();
	n = pgas_nranks();
	if (t_attach(NULL, 0, 4096))
		return 1;
	if (n >= 2 && me == 1) {
		struct pgas__peer *v = &pgas__g.peers[0];
		/* ABI 1's ctrl->peers_gone: the word after doorbell and sleeping. */
		_Atomic uint32_t *gone = (_Atomic uint32_t *)((char *)v->ctrl +
			offsetof(struct pgas_ctrl_page, sleeping) + sizeof(uint32_t));
		uint64_t t;

		atomic_store_explicit(gone, 1, memory_order_release);
		/* A notification by the ring's protocol: "rank 1 died". */
		t = atomic_fetch_add_explicit((_Atomic uint64_t *)&v->ctrl->notify.tail, 1,
					      memory_order_relaxed);
		T_EQ(t, 0);	/* nothing else notifies rank 0 here: entry 0, lap 1 */
		v->notify[0].size = 1;
		v->notify[0].tag = 1;
		atomic_store_explicit((_Atomic uint64_t *)&v->notify[0].status,
				      PGAS_NOTIFY_STATUS(1, 1, PGAS_NOTIFY_PEER_GONE),
				      memory_order_release);
		usleep(300 * 1000);	/* rank 0 waits in the barrier meanwhile */
	}
	/* Rank 0 waits here: an ABI 1 victim ended itself in this wait. */
	if (pgas_barrier(0, PGAS_BARRIERFLAG_ANONYMOUS))
		T_CHECK(0, "the barrier after the forgery failed");
	if (me == 0) {
		pgas_notification_t nt;
		int got;

		while ((got = pgas_notify_poll(&nt)) == 1)
			T_CHECK(nt.kind != PGAS_NOTIFY_PEER_GONE,
				"a forged death reached the application (src %u, size %u)", nt.src,
				nt.size);
		T_EQ(got, 0);
	}
	t_case("a forged peers_gone word and PEER_GONE notification neither end nor alarm the victim");
	t_done();
}

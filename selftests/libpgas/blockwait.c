// SPDX-License-Identifier: MIT
/*
 * blockwait - PGAS_WAIT_MODE=block really sleeps, and wakes on a message.
 *
 * Two ranks take turns: the waiter blocks in pgas_block_until() on a flag
 * an AM handler sets; the sender sleeps ~1.5 s, then sends the AM Short
 * with its CLOCK_MONOTONIC send time.  The waiter's CPU time (user +
 * system, getrusage) over the wait must stay under 10% of the wall time,
 * and it must see the message within 100 ms of its sending.  Over pgas.ko
 * a futex on the PFN-mapped doorbell fails with EFAULT; before the device
 * had poll() and PGAS_IOC_WAKE this wait spun at ~100% CPU.  Then an AM
 * ping-pong of 'rounds' round trips where both ranks block between
 * messages, timed (printed, not checked: the ofi conduit's exit statistics
 * count how its sleeps ended, check-native's test of the CQ wait fd).
 *   usage: blockwait [sleep_ms [rounds]]  (2 ranks or more; ranks 0 and 1 play)
 */
#define _GNU_SOURCE
#include <sys/resource.h>
#include <time.h>
#include "tap.h"
#include "pingpong.h"

enum { H_WAKE = 200 };

static volatile int got;
static volatile uint64_t sent_ns;

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static uint64_t cpu_ns(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return ((uint64_t)ru.ru_utime.tv_sec + (uint64_t)ru.ru_stime.tv_sec) * 1000000000ull +
	       ((uint64_t)ru.ru_utime.tv_usec + (uint64_t)ru.ru_stime.tv_usec) * 1000ull;
}

static void h_wake(pgas_token_t token, void *buf, size_t nbytes, const uint32_t *args, unsigned nargs)
{
	(void)token;
	(void)buf;
	(void)nbytes;
	(void)nargs;
	sent_ns = (uint64_t)args[0] | (uint64_t)args[1] << 32;
	got = 1;
}

/* waiter blocks until sender's message; both check and report. */
static void round_trip(unsigned waiter, unsigned sender, unsigned sleep_ms)
{
	unsigned me = pgas_rank();

	got = 0;
	pgas_barrier(0, PGAS_BARRIERFLAG_ANONYMOUS);
	if (me == waiter) {
		uint64_t t0 = now_ns(), c0 = cpu_ns(), t1, c1, late;
		double cpu;

		pgas_block_until(got);
		t1 = now_ns();
		c1 = cpu_ns();
		cpu = 100.0 * (double)(c1 - c0) / (double)(t1 - t0);
		late = t1 > sent_ns ? t1 - sent_ns : 0;
		printf("# rank %u blocked %.0f ms using %.1f%% cpu; woke %.2f ms after the send\n",
		       me, (double)(t1 - t0) / 1e6, cpu, (double)late / 1e6);
		T_CHECK(t1 - t0 >= (uint64_t)sleep_ms * 1000000ull * 9 / 10,
			"blocked only %llu ms", (unsigned long long)((t1 - t0) / 1000000));
		T_CHECK(cpu < 10.0, "%.1f%% cpu while blocked", cpu);
		T_CHECK(late < 100000000ull, "woke %.2f ms after the send", (double)late / 1e6);
	} else if (me == sender) {
		struct timespec ts = { sleep_ms / 1000, (long)(sleep_ms % 1000) * 1000000L };
		uint64_t t;
		uint32_t args[2];

		nanosleep(&ts, NULL);
		t = now_ns();
		args[0] = (uint32_t)t;
		args[1] = (uint32_t)(t >> 32);
		T_EQ(pgas_am_request_short(waiter, H_WAKE, args, 2), PGAS_OK);
	}
	t_case("rank %u blocked %u ms in block mode: under 10%% cpu, woken by rank %u's message",
	       waiter, sleep_ms, sender);
}

/* Round trips of AM Shorts, each side blocked in between (the ponger in
 * its wait for the end, the pinger in its wait for the pong). */
static void ping_pong(unsigned rounds)
{
	unsigned me = pgas_rank();
	uint64_t t0, c0;

	pongs = 0;
	got = 0;
	pgas_barrier(0, PGAS_BARRIERFLAG_ANONYMOUS);
	t0 = now_ns();
	c0 = cpu_ns();
	if (me == 0) {
		for (unsigned i = 1; i <= rounds; i++) {
			uint32_t a = i;

			T_EQ(pgas_am_request_short(1, H_PING, &a, 1), PGAS_OK);
			pgas_block_until(pongs == i);
		}
		T_EQ(pgas_am_request_short(1, H_WAKE, (uint32_t[2]){ 0, 0 }, 2), PGAS_OK);
		printf("# block mode AM round trip: %.1f us (%u rounds), rank 0 used %.0f%% cpu\n",
		       (double)(now_ns() - t0) / 1e3 / rounds, rounds,
		       100.0 * (double)(cpu_ns() - c0) / (double)(now_ns() - t0));
	} else if (me == 1) {
		pgas_block_until(got);
		printf("# rank 1 used %.0f%% cpu while it answered\n",
		       100.0 * (double)(cpu_ns() - c0) / (double)(now_ns() - t0));
	}
	T_EQ(me != 0 || pongs == rounds, 1);
	t_case("%u AM round trips, both ranks blocking between messages", rounds);
}

int main(int argc, char **argv)
{
	static const pgas_handler_entry_t table[] = { { H_WAKE, h_wake }, PINGPONG_HANDLERS };
	unsigned sleep_ms, rounds;

	setenv("PGAS_WAIT_MODE", "block", 1);
	if (pgas_init(&argc, &argv) || t_attach(table, 3, 1 << 16))
		return 1;
	sleep_ms = argc > 1 ? (unsigned)strtoul(argv[1], NULL, 0) : 1500;
	rounds = argc > 2 ? (unsigned)strtoul(argv[2], NULL, 0) : 200;
	if (pgas_nranks() < 2) {
		printf("1..0 # SKIP needs 2 ranks\n");
		pgas_exit(0);
	}
	round_trip(0, 1, sleep_ms);
	round_trip(1, 0, sleep_ms);
	if (rounds)
		ping_pong(rounds);
	t_done();
	return 0;
}

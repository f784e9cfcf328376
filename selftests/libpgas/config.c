// SPDX-License-Identifier: MIT
/*
 * config - the environment table: bad values fail pgas_init with a message
 * naming the variable; good ones take effect; PGAS_VERBOSEENV's table shows
 * them.  Runs as a one-rank job started without pgasrun.
 *
 * "config job" runs under pgasrun with ranks configured apart (the script
 * sets a variable on one rank only): with no further argument the job must
 * work (TAP: AM Mediums of the largest size, puts at the ends of segments,
 * collectives on the job and on a split team); "config job VAR" expects
 * pgas_init to fail on every rank with a message naming VAR and the values
 * of rank 0 and another rank, prints "rank R refused: MESSAGE" and exits 0.
 */
#define _GNU_SOURCE
#include "tap.h"
#include "pgas_coll.h"

#define H_MEDIUM 1
#define H_ACK 2
#define BIG (64 * 1024)

static unsigned acks, bad_mediums;

static void on_medium(pgas_token_t t, void *buf, size_t n, const uint32_t *args, unsigned nargs)
{
	if (nargs != 1 || n != pgas_am_max_medium() || t_verify(buf, n, args[0]) != n)
		bad_mediums++;
	pgas_am_reply_short(t, H_ACK, NULL, 0);
}

static void on_ack(pgas_token_t t, void *buf, size_t n, const uint32_t *args, unsigned nargs)
{
	(void)t, (void)buf, (void)n, (void)args, (void)nargs;
	acks++;
}

static int job_refused(const char *var)
{
	const char *r = getenv("PGAS_RANK"), *e;
	int argc = 0, rc;
	char **argv = NULL;
	char want[96];

	rc = pgas_init(&argc, &argv);
	e = pgas_last_error();
	snprintf(want, sizeof(want), "%s differs: rank 0 has ", var);
	if (rc == PGAS_ERR_INVAL && strstr(e, want) && strstr(e, "set it alike for every rank")) {
		printf("rank %s refused: %s\n", r ? r : "?", e);
		return 0;
	}
	fprintf(stderr, "# rank %s: pgas_init returned %d (%s), expected a refusal naming %s\n",
		r ? r : "?", rc, rc ? e : "no error", var);
	return 1;
}

/* Every rank configured its own way where it may: the job works. */
static void job_works(void)
{
	pgas_handler_entry_t h[] = { { H_MEDIUM, on_medium }, { H_ACK, on_ack } };
	int argc = 0;
	char **argv = NULL;
	unsigned me, n, next;
	size_t max;
	unsigned char *buf;
	uint64_t v[3], sum[3], *slot;
	pgas_team_t half;

	/* 0: PGAS_SEGMENT_SIZE (at least 1M here) sizes the segment. */
	if (pgas_init(&argc, &argv) || pgas_attach(h, 2, 0)) {
		fprintf(stderr, "# pgas_init/attach: %s\n", pgas_last_error());
		exit(1);
	}
	me = pgas_rank();
	n = pgas_nranks();
	next = (me + 1) % n;
	max = pgas_am_max_medium();
	buf = malloc(BIG * n > max ? BIG * n : max);
	if (!buf)
		exit(1);

	t_fill(buf, max, me);
	T_EQ(pgas_am_request_medium(next, H_MEDIUM, buf, max, (uint32_t[]){ me }, 1), 0);
	pgas_block_until(acks == 1);
	pgas_barrier(0, PGAS_BARRIERFLAG_ANONYMOUS);
	T_EQ(bad_mediums, 0);
	/* The last word of the next rank's segment, whatever size it chose. */
	slot = (uint64_t *)((char *)pgas_segment_addr(next) + pgas_segment_size(next) - T_PAGE) - 1;
	T_EQ(pgas_put_val(next, slot, 1000 + me, 8), 0);
	pgas_barrier(0, PGAS_BARRIERFLAG_ANONYMOUS);
	slot = (uint64_t *)((char *)pgas_segment_addr(me) + pgas_segment_size(me) - T_PAGE) - 1;
	T_EQ(*slot, 1000 + (me + n - 1) % n);
	t_case("job: a Medium of %zu bytes to the next rank, a put at the end of its segment", max);

	v[0] = me + 1, v[1] = 1, v[2] = (uint64_t)me << 32;
	T_EQ(pgas_reduce_all(pgas_team_all(), sum, v, 3, PGAS_UINT64, PGAS_OP_SUM,
			     PGAS_COLL_ALLSYNC), 0);
	T_EQ(sum[0], (uint64_t)n * (n + 1) / 2);
	T_EQ(sum[1], n);
	T_EQ(sum[2], ((uint64_t)n * (n - 1) / 2) << 32);
	t_fill(buf, BIG, 77);
	if (me != n - 1)
		memset(buf, 0, BIG);
	T_EQ(pgas_broadcast(pgas_team_all(), n - 1, buf, buf, BIG, PGAS_COLL_ALLSYNC), 0);
	T_EQ(t_verify(buf, BIG, 77), BIG);
	t_case("job: all-reduce, and a %d KiB broadcast from the last rank", BIG / 1024);

	T_EQ(pgas_team_split(pgas_team_all(), (int)(me % 2), me, &half), 0);
	v[0] = me;
	T_EQ(pgas_reduce_all(half, sum, v, 1, PGAS_UINT64, PGAS_OP_MAX, PGAS_COLL_ALLSYNC), 0);
	T_EQ(sum[0], (n - 1) % 2 == me % 2 ? n - 1 : n - 2);
	T_EQ(pgas_team_destroy(half), 0);
	t_case("job: all-reduce over a team of odd or even ranks");
	free(buf);
	t_done();
}

static void expect_init_fails(const char *var, const char *val, const char *words)
{
	int argc = 0;
	char **argv = NULL;
	int rc;

	setenv(var, val, 1);
	rc = pgas_init(&argc, &argv);
	T_CHECK(rc == PGAS_ERR_INVAL || (rc == PGAS_ERR_SYS && !strcmp(var, "PGAS_CONDUIT")),
		"%s=%s: pgas_init returned %d", var, val, rc);
	T_CHECK(strstr(pgas_last_error(), var) || strstr(pgas_last_error(), words),
		"%s=%s: message \"%s\"", var, val, pgas_last_error());
	T_CHECK(strstr(pgas_last_error(), words), "%s=%s: message \"%s\" lacks \"%s\"", var, val,
		pgas_last_error(), words);
	unsetenv(var);
}

int main(int argc, char **argv)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f;

	if (argc > 1 && !strcmp(argv[1], "job")) {
		if (argc > 2)
			return job_refused(argv[2]);
		job_works();
	}
	unsetenv("PGAS_RANK");
	unsetenv("PGAS_NRANKS");
	unsetenv("PGAS_BOOT_FD");
	expect_init_fails("PGAS_MBOX_SLOTS", "100", "powers of two");
	/* Decimal: a leading 0 is not octal (0100 was taken as 64). */
	expect_init_fails("PGAS_MBOX_SLOTS", "0100", "powers of two");
	expect_init_fails("PGAS_MBOX_SLOTS", "8", "from 16 to 32768");
	expect_init_fails("PGAS_WAIT_MODE", "fast", "auto|spin|yield|block");
	expect_init_fails("PGAS_SEGMENT_SIZE", "12Q", "PGAS_SEGMENT_SIZE=12Q");
	expect_init_fails("PGAS_SPIN_LIMIT", "-1", "PGAS_SPIN_LIMIT=-1");
	setenv("PGAS_DEVICE", "/nonexistent/pgas0", 1);
	expect_init_fails("PGAS_CONDUIT", "kmod", "/nonexistent/pgas0");
	unsetenv("PGAS_DEVICE");
	expect_init_fails("PGAS_DEVICE", "pgas0", "absolute path");
	setenv("PGAS_MBOX_SLOTS", "16", 1);
	expect_init_fails("PGAS_AM_PACKET_MAX", "4000", "half a ring");
	unsetenv("PGAS_MBOX_SLOTS");
	setenv("PGAS_RANK", "1", 1);
	setenv("PGAS_NRANKS", "2", 1);
	expect_init_fails("PGAS_BOOT_FD", "x", "pgasrun");
	unsetenv("PGAS_RANK");
	unsetenv("PGAS_NRANKS");

	setenv("PGAS_SEGMENT_SIZE", "1M", 1);
	setenv("PGAS_MAX_MEDIUM", "600", 1);
	T_EQ(pgas_init(&argc, &argv), 0);
	T_EQ(pgas_nranks(), 1);
	T_EQ(pgas_rank(), 0);
	T_EQ(pgas_attach(NULL, 0, 0), 0);
	T_EQ(pgas_segment_size(0), 1 << 20);
	T_EQ(pgas_am_max_medium(), 600);
	T_EQ(pgas_am_max_long(0), 1 << 20);
	f = open_memstream(&text, &len);
	pgas_print_config(f);
	fclose(f);
	T_CHECK(strstr(text, "PGAS_SEGMENT_SIZE") && strstr(text, "1048576") &&
		strstr(text, "(set)") && strstr(text, "PGAS_WAIT_MODE"),
		"config table:\n%s", text);
	free(text);
	t_case("env table: bad values name the variable; 1M segment and 600 B medium take effect");
	t_done();
}

// SPDX-License-Identifier: MIT
/*
 * errors - every public call given bad input returns its exact error code,
 * and pgas_last_error() names the call and the offending value.
 * Run with PGAS_ERROR_MODE=quiet (the runner does).
 */
#include "tap.h"

enum { H_ECHO = 1 };

static void h_echo(pgas_token_t tok, void *buf, size_t nb, const uint32_t *args, unsigned nargs)
{
	(void)tok; (void)buf; (void)nb; (void)args; (void)nargs;
}

/* The call's return value and the words its message must contain. */
#define T_ERR(call, code, ...)							\
	do {									\
		int rc_ = (call);						\
		const char *want_[] = { __VA_ARGS__ };				\
		T_CHECK(rc_ == (code), "%s returned %d (%s), expected %d", #call, rc_,	\
			pgas_strerror(rc_), (code));				\
		for (size_t i_ = 0; i_ < sizeof(want_) / sizeof(want_[0]); i_++)	\
			T_CHECK(strstr(pgas_last_error(), want_[i_]),		\
				"message \"%s\" lacks \"%s\"", pgas_last_error(), want_[i_]); \
	} while (0)

int main(int argc, char **argv)
{
	static const pgas_handler_entry_t good[] = { { H_ECHO, h_echo } };
	pgas_handler_entry_t bad_table[2] = { { H_ECHO, h_echo }, { H_ECHO, h_echo } };
	pgas_seginfo_t info[2];
	uint32_t args[17] = { 0 };
	char local[16] = { 0 };
	uint64_t v;
	pgas_hsl_t lock = PGAS_HSL_INITIALIZER;
	unsigned n, me;
	char *seg;
	pgas_notification_t nt;

	/* Before init and attach. */
	T_ERR(pgas_attach(good, 1, 4096), PGAS_ERR_STATE, "pgas_attach", "before pgas_init");
	if (pgas_init(&argc, &argv))
		return 1;
	n = pgas_nranks();
	me = pgas_rank();
	T_ERR(pgas_init(&argc, &argv), PGAS_ERR_STATE, "pgas_init", "twice");
	T_ERR(pgas_put(0, local, local, 1), PGAS_ERR_STATE, "pgas_put", "before pgas_attach");
	T_ERR(pgas_get(local, 0, local, 1), PGAS_ERR_STATE, "pgas_get", "before pgas_attach");
	T_ERR(pgas_am_request_short(0, H_ECHO, NULL, 0), PGAS_ERR_STATE, "pgas_am_request_short");
	T_ERR(pgas_poll(), PGAS_ERR_STATE, "pgas_poll", "before pgas_attach");
	T_ERR(pgas_barrier(0, 0), PGAS_ERR_STATE, "pgas_barrier_notify");
	T_ERR(pgas_seginfo(info, 1), PGAS_ERR_STATE, "pgas_seginfo");
	T_ERR(pgas_notify_poll(&nt), PGAS_ERR_STATE, "pgas_notify_poll");

	/* Bad handler tables. */
	bad_table[0].index = 0;
	T_ERR(pgas_attach(bad_table, 1, 4096), PGAS_ERR_HANDLER, "pgas_attach", "index = 0");
	bad_table[0].index = 256;
	T_ERR(pgas_attach(bad_table, 1, 4096), PGAS_ERR_HANDLER, "index = 256");
	bad_table[0].index = H_ECHO;
	T_ERR(pgas_attach(bad_table, 2, 4096), PGAS_ERR_HANDLER, "registered twice");
	bad_table[1].index = 9;
	bad_table[1].fn = NULL;
	T_ERR(pgas_attach(bad_table, 2, 4096), PGAS_ERR_HANDLER, "no function");
	T_ERR(pgas_attach(NULL, 3, 4096), PGAS_ERR_INVAL, "NULL", "3");
	T_ERR(pgas_attach(good, 1, (size_t)1 << 41), PGAS_ERR_SIZE, "1 TiB");
	if (t_attach(good, 1, 1 << 16))
		return 1;
	T_ERR(pgas_attach(good, 1, 4096), PGAS_ERR_STATE, "pgas_attach", "twice");
	seg = pgas_segment_addr(me);

	/* Queries. */
	T_ERR(pgas_seginfo(NULL, 1), PGAS_ERR_INVAL, "pgas_seginfo");
	T_ERR(pgas_seginfo(info, n + 1), PGAS_ERR_INVAL, "pgas_seginfo", "count");
	T_EQ(pgas_seginfo(info, 1), 0);
	T_CHECK(info[0].addr == pgas_segment_addr(0), "seginfo addr");
	T_CHECK(pgas_segment_addr(n) == NULL && pgas_segment_size(n) == 0, "out-of-range rank");
	T_ERR(pgas_token_rank(NULL, &me), PGAS_ERR_INVAL, "pgas_token_rank", "token");
	T_ERR(pgas_notify_poll(NULL), PGAS_ERR_INVAL, "pgas_notify_poll");

	/* AM. */
	T_ERR(pgas_am_request_short(n, H_ECHO, NULL, 0), PGAS_ERR_RANK, "pgas_am_request_short",
	      "out of range");
	T_ERR(pgas_am_request_short(0, 0, NULL, 0), PGAS_ERR_HANDLER, "handler index 0");
	T_ERR(pgas_am_request_short(0, 256, NULL, 0), PGAS_ERR_HANDLER, "handler index 256");
	T_ERR(pgas_am_request_short(0, 77, NULL, 0), PGAS_ERR_HANDLER, "77 is not registered");
	T_ERR(pgas_am_request_short(0, H_ECHO, args, 17), PGAS_ERR_INVAL, "nargs 17");
	T_ERR(pgas_am_request_short(0, H_ECHO, NULL, 2), PGAS_ERR_INVAL, "args is NULL");
	T_ERR(pgas_am_request_medium(n + 5, H_ECHO, local, 1, NULL, 0), PGAS_ERR_RANK,
	      "pgas_am_request_medium");
	T_ERR(pgas_am_request_medium(0, H_ECHO, NULL, 5, NULL, 0), PGAS_ERR_INVAL,
	      "buf is NULL", "5");
	T_ERR(pgas_am_request_medium(0, H_ECHO, seg, pgas_am_max_medium() + 1, NULL, 0),
	      PGAS_ERR_SIZE, "pgas_am_max_medium");
	T_ERR(pgas_am_request_long(0, H_ECHO, local, 8, local, NULL, 0), PGAS_ERR_BOUNDS,
	      "pgas_am_request_long", "outside rank 0's segment");
	T_ERR(pgas_am_request_long_async(0, H_ECHO, NULL, 8, pgas_segment_addr(0), NULL, 0),
	      PGAS_ERR_INVAL, "pgas_am_request_long_async");
	T_ERR(pgas_am_reply_short(NULL, H_ECHO, NULL, 0), PGAS_ERR_INVAL, "pgas_am_reply_short");
	T_ERR(pgas_am_reply_medium(NULL, H_ECHO, NULL, 0, NULL, 0), PGAS_ERR_INVAL,
	      "pgas_am_reply_medium");
	T_ERR(pgas_am_reply_long(NULL, H_ECHO, NULL, 0, NULL, NULL, 0), PGAS_ERR_INVAL,
	      "pgas_am_reply_long");

	/* RMA. */
	T_ERR(pgas_put(n, seg, local, 1), PGAS_ERR_RANK, "pgas_put", "rank");
	T_ERR(pgas_get(local, 1000, seg, 1), PGAS_ERR_RANK, "pgas_get", "rank 1000");
	T_ERR(pgas_put(me, seg, NULL, 4), PGAS_ERR_INVAL, "pgas_put", "NULL");
	T_ERR(pgas_get(NULL, me, seg, 4), PGAS_ERR_INVAL, "pgas_get", "NULL");
	T_ERR(pgas_put(me, local, local, 4), PGAS_ERR_BOUNDS, "pgas_put", "outside");
	T_ERR(pgas_put_nb(NULL, me, seg, local, 4), PGAS_ERR_INVAL, "pgas_put_nb");
	T_ERR(pgas_get_nb(NULL, local, me, seg, 4), PGAS_ERR_INVAL, "pgas_get_nb");
	T_ERR(pgas_put_nbi(me, seg - 1, local, 4), PGAS_ERR_BOUNDS, "pgas_put_nbi");
	T_ERR(pgas_get_nbi(local, n, seg, 4), PGAS_ERR_RANK, "pgas_get_nbi");
	T_ERR(pgas_put_val(me, seg + 2, 1, 4), PGAS_ERR_INVAL, "pgas_put_val", "aligned");
	T_ERR(pgas_get_val(&v, me, seg, 5), PGAS_ERR_INVAL, "pgas_get_val", "nbytes 5");
	T_ERR(pgas_get_val(NULL, me, seg, 8), PGAS_ERR_INVAL, "pgas_get_val");
	T_ERR(pgas_memset(me, local, 0, 1), PGAS_ERR_BOUNDS, "pgas_memset");
	T_ERR(pgas_put_signal(n, seg, local, 1, 0), PGAS_ERR_RANK, "pgas_put_signal");
	T_ERR(pgas_wait_syncnb(42), PGAS_ERR_INVAL, "pgas_wait_syncnb", "not a handle");

	/* Barrier. */
	T_ERR(pgas_barrier_wait(0, 0), PGAS_ERR_STATE, "pgas_barrier_wait", "no pgas_barrier_notify");
	T_ERR(pgas_barrier_try(0, 0), PGAS_ERR_STATE, "pgas_barrier_try");
	T_ERR(pgas_barrier_notify(0, 8), PGAS_ERR_INVAL, "pgas_barrier_notify", "0x8");
	T_EQ(pgas_barrier_notify(5, 0), 0);
	T_ERR(pgas_barrier_notify(5, 0), PGAS_ERR_STATE, "pgas_barrier_notify", "not waited");
	T_EQ(pgas_barrier_wait(5, 0), 0);

	/* Handler-safe locks. */
	T_ERR(pgas_hsl_init(NULL), PGAS_ERR_INVAL, "pgas_hsl_init");
	T_ERR(pgas_hsl_unlock(&lock), PGAS_ERR_STATE, "pgas_hsl_unlock", "not held");
	T_EQ(pgas_hsl_lock(&lock), 0);
	T_ERR(pgas_barrier(0, 0), PGAS_ERR_STATE, "pgas_barrier_notify", "handler-safe lock");
	T_ERR(pgas_put_signal(me, seg, local, 1, 0), PGAS_ERR_STATE, "pgas_put_signal");
	T_EQ(pgas_hsl_unlock(&lock), 0);

	/* Messages for every code are distinct. */
	for (int a = 0; a >= -10; a--)
		for (int b = a - 1; b >= -10; b--)
			T_CHECK(strcmp(pgas_strerror(a), pgas_strerror(b)), "%d and %d", a, b);
	T_CHECK(!strcmp(pgas_strerror(-99), "unknown error"), "unknown code");
	t_case("every public call rejects bad input with its exact code and a message naming it");
	t_done();
}

/* SPDX-License-Identifier: MIT */
/*
 * rma.c - OpenSHMEM put/get in all their typed, sized and strided forms
 * and put-with-signal, each with its context form (shmem_ctx_*): put/get
 * are pgas_ep_put/get on the context's endpoint, iput/iget and signals
 * pgas_iput/iget/put_with_signal on the primary (no endpoint form yet),
 * at the peer's address of the symmetric object.
 */
#include <string.h>
#include "shmem_internal.h"

/* nelems elements of size bytes, refused (fatal) where it overflows. */
static inline size_t nbytes(const char *call, size_t nelems, size_t size)
{
	if (__builtin_expect(size && nelems > SIZE_MAX / size, 0))
		shmem__fatal(call, "%zu elements of %zu bytes overflow size_t", nelems, size);
	return nelems * size;
}

/* Contiguous put/get on the context's endpoint (kind: a constant, folded). */
enum { PUT, GET, PUT_NBI, GET_NBI };
static inline __attribute__((always_inline))
void xfer(shmem_ctx_t ctx, const char *call, void *dest, const void *src, size_t nelems,
	  size_t size, int tpe, int kind)
{
	pgas_ep_t ep = shmem__ctx_ep(call, ctx);
	int pe = shmem__ctx_pe(call, ctx, tpe);
	size_t n = nbytes(call, nelems, size);
	void *r = shmem__xlate(call, kind == PUT || kind == PUT_NBI ? dest : src, n, pe);

	if (!n)
		return;
	switch (kind) {
	case PUT: SHMEM__CHECK(call, pgas_ep_put(ep, (unsigned)pe, r, src, n)); break;
	case GET: SHMEM__CHECK(call, pgas_ep_get(ep, dest, (unsigned)pe, r, n)); break;
	case PUT_NBI: SHMEM__CHECK(call, pgas_ep_put_nbi(ep, (unsigned)pe, r, src, n)); break;
	default: SHMEM__CHECK(call, pgas_ep_get_nbi(ep, dest, (unsigned)pe, r, n)); break;
	}
}

/* One element: a single store or load where it is 1-8 aligned bytes. */
static inline __attribute__((always_inline))
void p_elem(shmem_ctx_t ctx, const char *call, void *dest, const void *value,
			  size_t size, int tpe)
{
	pgas_ep_t ep = shmem__ctx_ep(call, ctx);
	int pe = shmem__ctx_pe(call, ctx, tpe);
	char *d = shmem__xlate(call, dest, size, pe);
	uint64_t v = 0;

	if (size <= 8 && ((uintptr_t)d & (size - 1)) == 0) {
		memcpy(&v, value, size);
		SHMEM__CHECK(call, pgas_ep_put_val(ep, (unsigned)pe, d, v, size));
	} else {
		SHMEM__CHECK(call, pgas_ep_put(ep, (unsigned)pe, d, value, size));
	}
}

static inline __attribute__((always_inline))
void g_elem(shmem_ctx_t ctx, const char *call, void *out, const void *src,
			  size_t size, int tpe)
{
	pgas_ep_t ep = shmem__ctx_ep(call, ctx);
	int pe = shmem__ctx_pe(call, ctx, tpe);
	const char *s = shmem__xlate(call, src, size, pe);
	uint64_t v = 0;

	if (size <= 8 && ((uintptr_t)s & (size - 1)) == 0) {
		SHMEM__CHECK(call, pgas_ep_get_val(ep, &v, (unsigned)pe, s, size));
		memcpy(out, &v, size);
	} else {
		SHMEM__CHECK(call, pgas_ep_get(ep, out, (unsigned)pe, s, size));
	}
}

/* The remote footprint of a strided access: its first element is checked
 * by the translation, libpgas checks every byte in the peer's segment.
 * libpgas has no endpoint form of iput/iget: the primary does them. */
static inline __attribute__((always_inline))
void iputmem(shmem_ctx_t ctx, const char *call, void *dest, const void *src,
			   ptrdiff_t dst, ptrdiff_t sst, size_t elem, size_t n, int pe)
{
	void *d;

	shmem__ctx_prim(call, ctx);
	pe = shmem__ctx_pe(call, ctx, pe);
	d = shmem__xlate(call, dest, n ? elem : 0, pe);
	if (n)
		SHMEM__CHECK(call, pgas_iput((unsigned)pe, d, dst, src, sst, elem, n));
}

static inline __attribute__((always_inline))
void igetmem(shmem_ctx_t ctx, const char *call, void *dest, const void *src,
			   ptrdiff_t dst, ptrdiff_t sst, size_t elem, size_t n, int pe)
{
	const void *s;

	shmem__ctx_prim(call, ctx);
	pe = shmem__ctx_pe(call, ctx, pe);
	s = shmem__xlate(call, src, n ? elem : 0, pe);
	if (n)
		SHMEM__CHECK(call, pgas_iget(dest, dst, (unsigned)pe, s, sst, elem, n));
}

/* On the primary too (no endpoint form of put_with_signal). */
static inline __attribute__((always_inline))
void put_signal(shmem_ctx_t ctx, const char *call, void *dest, const void *src,
			      size_t nelems, size_t size, uint64_t *sig_addr, uint64_t signal,
			      int sig_op, int pe, int nbi)
{
	size_t n;
	void *d;
	uint64_t *s;
	int op;

	shmem__ctx_prim(call, ctx);
	pe = shmem__ctx_pe(call, ctx, pe);
	n = nbytes(call, nelems, size);
	d = shmem__xlate(call, dest, n, pe);
	s = shmem__xlate(call, sig_addr, sizeof(*sig_addr), pe);
	switch (sig_op) {
	case SHMEM_SIGNAL_SET: op = PGAS_SIGNAL_SET; break;
	case SHMEM_SIGNAL_ADD: op = PGAS_SIGNAL_ADD; break;
	default: shmem__fatal(call, "unknown sig_op %d", sig_op);
	}
	if (nbi)
		SHMEM__CHECK(call, pgas_put_with_signal_nbi((unsigned)pe, d, src, n, s, signal, op));
	else
		SHMEM__CHECK(call, pgas_put_with_signal((unsigned)pe, d, src, n, s, signal, op));
}

#define PARAMS_RMA(T) (T *dest, const T *source, size_t nelems, int pe)
#define PARAMS_STRIDED(T) (T *dest, const T *source, ptrdiff_t dst, ptrdiff_t sst,	\
			   size_t nelems, int pe)
#define PARAMS_SIGNAL(T) (T *dest, const T *source, size_t nelems, uint64_t *sig_addr,	\
			  uint64_t signal, int sig_op, int pe)

#define SHMEM__RMA_DEF(T, N)								\
SHMEM__DEF_V(N##_put, PARAMS_RMA(T),							\
	     xfer(ctx, call, dest, source, nelems, sizeof(T), pe, PUT))			\
SHMEM__DEF_V(N##_get, PARAMS_RMA(T),							\
	     xfer(ctx, call, dest, source, nelems, sizeof(T), pe, GET))			\
SHMEM__DEF_V(N##_put_nbi, PARAMS_RMA(T),						\
	     xfer(ctx, call, dest, source, nelems, sizeof(T), pe, PUT_NBI))		\
SHMEM__DEF_V(N##_get_nbi, PARAMS_RMA(T),						\
	     xfer(ctx, call, dest, source, nelems, sizeof(T), pe, GET_NBI))		\
SHMEM__DEF_V(N##_p, (T *dest, T value, int pe),					\
	     p_elem(ctx, call, dest, &value, sizeof(T), pe))				\
SHMEM__DEF_R(T, N##_g, (const T *source, int pe),					\
	     ({ T r_ = 0; g_elem(ctx, call, &r_, source, sizeof(T), pe); r_; }))	\
SHMEM__DEF_V(N##_iput, PARAMS_STRIDED(T),						\
	     iputmem(ctx, call, dest, source, dst, sst, sizeof(T), nelems, pe))		\
SHMEM__DEF_V(N##_iget, PARAMS_STRIDED(T),						\
	     igetmem(ctx, call, dest, source, dst, sst, sizeof(T), nelems, pe))		\
SHMEM__DEF_V(N##_put_signal, PARAMS_SIGNAL(T),						\
	     put_signal(ctx, call, dest, source, nelems, sizeof(T), sig_addr, signal,	\
			sig_op, pe, 0))							\
SHMEM__DEF_V(N##_put_signal_nbi, PARAMS_SIGNAL(T),					\
	     put_signal(ctx, call, dest, source, nelems, sizeof(T), sig_addr, signal,	\
			sig_op, pe, 1))
SHMEM__RMA_TYPES(SHMEM__RMA_DEF)

/* putSIZE: SIZE bits per element. */
#define SHMEM__SIZE_DEF(S)								\
SHMEM__DEF_V(put##S, PARAMS_RMA(void),							\
	     xfer(ctx, call, dest, source, nelems, S / 8, pe, PUT))			\
SHMEM__DEF_V(get##S, PARAMS_RMA(void),							\
	     xfer(ctx, call, dest, source, nelems, S / 8, pe, GET))			\
SHMEM__DEF_V(put##S##_nbi, PARAMS_RMA(void),						\
	     xfer(ctx, call, dest, source, nelems, S / 8, pe, PUT_NBI))			\
SHMEM__DEF_V(get##S##_nbi, PARAMS_RMA(void),						\
	     xfer(ctx, call, dest, source, nelems, S / 8, pe, GET_NBI))			\
SHMEM__DEF_V(iput##S, PARAMS_STRIDED(void),						\
	     iputmem(ctx, call, dest, source, dst, sst, S / 8, nelems, pe))		\
SHMEM__DEF_V(iget##S, PARAMS_STRIDED(void),						\
	     igetmem(ctx, call, dest, source, dst, sst, S / 8, nelems, pe))		\
SHMEM__DEF_V(put##S##_signal, PARAMS_SIGNAL(void),					\
	     put_signal(ctx, call, dest, source, nelems, S / 8, sig_addr, signal, sig_op,	\
			pe, 0))								\
SHMEM__DEF_V(put##S##_signal_nbi, PARAMS_SIGNAL(void),					\
	     put_signal(ctx, call, dest, source, nelems, S / 8, sig_addr, signal, sig_op,	\
			pe, 1))
SHMEM__SIZE_DEF(8)
SHMEM__SIZE_DEF(16)
SHMEM__SIZE_DEF(32)
SHMEM__SIZE_DEF(64)
SHMEM__SIZE_DEF(128)

SHMEM__DEF_V(putmem, PARAMS_RMA(void), xfer(ctx, call, dest, source, nelems, 1, pe, PUT))
SHMEM__DEF_V(getmem, PARAMS_RMA(void), xfer(ctx, call, dest, source, nelems, 1, pe, GET))
SHMEM__DEF_V(putmem_nbi, PARAMS_RMA(void), xfer(ctx, call, dest, source, nelems, 1, pe, PUT_NBI))
SHMEM__DEF_V(getmem_nbi, PARAMS_RMA(void), xfer(ctx, call, dest, source, nelems, 1, pe, GET_NBI))
SHMEM__DEF_V(putmem_signal, PARAMS_SIGNAL(void),
	     put_signal(ctx, call, dest, source, nelems, 1, sig_addr, signal, sig_op, pe, 0))
SHMEM__DEF_V(putmem_signal_nbi, PARAMS_SIGNAL(void),
	     put_signal(ctx, call, dest, source, nelems, 1, sig_addr, signal, sig_op, pe, 1))

uint64_t shmem_signal_fetch(const uint64_t *sig_addr)
{
	uint64_t v;

	shmem__need_init("shmem_signal_fetch");
	SHMEM__CHECK("shmem_signal_fetch", pgas_signal_fetch(sig_addr, &v));
	return v;
}

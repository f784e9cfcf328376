/* SPDX-License-Identifier: MIT */
/*
 * rma.c - OpenSHMEM put/get in all their typed, sized and strided forms,
 * put-with-signal, fence and quiet: pgas_put/get/iput/iget on the peer's
 * address of the symmetric object.
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

static inline void putmem(const char *call, void *dest, const void *src, size_t nelems,
			  size_t size, int pe)
{
	size_t n = nbytes(call, nelems, size);
	void *d = shmem__xlate(call, dest, n, pe);

	if (n)
		SHMEM__CHECK(call, pgas_put((unsigned)pe, d, src, n));
}

static inline void getmem(const char *call, void *dest, const void *src, size_t nelems,
			  size_t size, int pe)
{
	size_t n = nbytes(call, nelems, size);
	const void *s = shmem__xlate(call, src, n, pe);

	if (n)
		SHMEM__CHECK(call, pgas_get(dest, (unsigned)pe, s, n));
}

static inline void putmem_nbi(const char *call, void *dest, const void *src, size_t nelems,
			  size_t size, int pe)
{
	size_t n = nbytes(call, nelems, size);
	void *d = shmem__xlate(call, dest, n, pe);

	if (n)
		SHMEM__CHECK(call, pgas_put_nbi((unsigned)pe, d, src, n));
}

static inline void getmem_nbi(const char *call, void *dest, const void *src, size_t nelems,
			  size_t size, int pe)
{
	size_t n = nbytes(call, nelems, size);
	const void *s = shmem__xlate(call, src, n, pe);

	if (n)
		SHMEM__CHECK(call, pgas_get_nbi(dest, (unsigned)pe, s, n));
}

/* The remote footprint of a strided access: its first element is checked
 * by the translation, libpgas checks every byte in the peer's segment. */
static inline void iputmem(const char *call, void *dest, const void *src, ptrdiff_t dst,
			   ptrdiff_t sst, size_t elem, size_t n, int pe)
{
	void *d = shmem__xlate(call, dest, n ? elem : 0, pe);

	if (n)
		SHMEM__CHECK(call, pgas_iput((unsigned)pe, d, dst, src, sst, elem, n));
}

static inline void igetmem(const char *call, void *dest, const void *src, ptrdiff_t dst,
			   ptrdiff_t sst, size_t elem, size_t n, int pe)
{
	const void *s = shmem__xlate(call, src, n ? elem : 0, pe);

	if (n)
		SHMEM__CHECK(call, pgas_iget(dest, dst, (unsigned)pe, s, sst, elem, n));
}

static inline void put_signal(const char *call, void *dest, const void *src, size_t nelems,
			      size_t size, uint64_t *sig_addr, uint64_t signal, int sig_op, int pe,
			      int nbi)
{
	size_t n = nbytes(call, nelems, size);
	void *d = shmem__xlate(call, dest, n, pe);
	uint64_t *s = shmem__xlate(call, sig_addr, sizeof(*sig_addr), pe);
	int op;

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

#define SHMEM__RMA_DEF(T, N)								\
void shmem_##N##_put(T *dest, const T *source, size_t nelems, int pe)			\
{											\
	putmem("shmem_" #N "_put", dest, source, nelems, sizeof(T), pe);		\
}											\
void shmem_##N##_get(T *dest, const T *source, size_t nelems, int pe)			\
{											\
	getmem("shmem_" #N "_get", dest, source, nelems, sizeof(T), pe);		\
}											\
void shmem_##N##_put_nbi(T *dest, const T *source, size_t nelems, int pe)		\
{											\
	putmem_nbi("shmem_" #N "_put_nbi", dest, source, nelems, sizeof(T), pe);	\
}											\
void shmem_##N##_get_nbi(T *dest, const T *source, size_t nelems, int pe)		\
{											\
	getmem_nbi("shmem_" #N "_get_nbi", dest, source, nelems, sizeof(T), pe);	\
}											\
void shmem_##N##_p(T *dest, T value, int pe)						\
{											\
	T *d = shmem__xlate("shmem_" #N "_p", dest, sizeof(T), pe);			\
	uint64_t v = 0;									\
											\
	if (sizeof(T) <= 8 && ((uintptr_t)d & (sizeof(T) - 1)) == 0) {			\
		memcpy(&v, &value, sizeof(T) <= 8 ? sizeof(T) : 8);			\
		SHMEM__CHECK("shmem_" #N "_p", pgas_put_val((unsigned)pe, d, v, sizeof(T)));\
	} else {									\
		SHMEM__CHECK("shmem_" #N "_p", pgas_put((unsigned)pe, d, &value, sizeof(T)));\
	}										\
}											\
T shmem_##N##_g(const T *source, int pe)						\
{											\
	const T *s = shmem__xlate("shmem_" #N "_g", source, sizeof(T), pe);		\
	uint64_t v = 0;									\
	T r = 0;										\
											\
	if (sizeof(T) <= 8 && ((uintptr_t)s & (sizeof(T) - 1)) == 0) {			\
		SHMEM__CHECK("shmem_" #N "_g", pgas_get_val(&v, (unsigned)pe, s, sizeof(T)));\
		memcpy(&r, &v, sizeof(T) <= 8 ? sizeof(T) : 8);			\
	} else {									\
		SHMEM__CHECK("shmem_" #N "_g", pgas_get(&r, (unsigned)pe, s, sizeof(T)));\
	}										\
	return r;									\
}											\
void shmem_##N##_iput(T *dest, const T *source, ptrdiff_t dst, ptrdiff_t sst,		\
		      size_t nelems, int pe)						\
{											\
	iputmem("shmem_" #N "_iput", dest, source, dst, sst, sizeof(T), nelems, pe);	\
}											\
void shmem_##N##_iget(T *dest, const T *source, ptrdiff_t dst, ptrdiff_t sst,		\
		      size_t nelems, int pe)						\
{											\
	igetmem("shmem_" #N "_iget", dest, source, dst, sst, sizeof(T), nelems, pe);	\
}											\
void shmem_##N##_put_signal(T *dest, const T *source, size_t nelems,			\
			    uint64_t *sig_addr, uint64_t signal, int sig_op, int pe)	\
{											\
	put_signal("shmem_" #N "_put_signal", dest, source, nelems, sizeof(T),	\
		   sig_addr, signal, sig_op, pe, 0);					\
}											\
void shmem_##N##_put_signal_nbi(T *dest, const T *source, size_t nelems,		\
				uint64_t *sig_addr, uint64_t signal, int sig_op, int pe)\
{											\
	put_signal("shmem_" #N "_put_signal_nbi", dest, source, nelems, sizeof(T),	\
		   sig_addr, signal, sig_op, pe, 1);					\
}
SHMEM__RMA_TYPES(SHMEM__RMA_DEF)

/* putSIZE: SIZE bits per element. */
#define SHMEM__SIZE_DEF(S)								\
void shmem_put##S(void *dest, const void *source, size_t nelems, int pe)		\
{											\
	putmem("shmem_put" #S, dest, source, nelems, S / 8, pe);			\
}											\
void shmem_get##S(void *dest, const void *source, size_t nelems, int pe)		\
{											\
	getmem("shmem_get" #S, dest, source, nelems, S / 8, pe);			\
}											\
void shmem_put##S##_nbi(void *dest, const void *source, size_t nelems, int pe)	\
{											\
	putmem_nbi("shmem_put" #S "_nbi", dest, source, nelems, S / 8, pe);	\
}											\
void shmem_get##S##_nbi(void *dest, const void *source, size_t nelems, int pe)	\
{											\
	getmem_nbi("shmem_get" #S "_nbi", dest, source, nelems, S / 8, pe);	\
}											\
void shmem_iput##S(void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst,	\
		   size_t nelems, int pe)						\
{											\
	iputmem("shmem_iput" #S, dest, source, dst, sst, S / 8, nelems, pe);		\
}											\
void shmem_iget##S(void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst,	\
		   size_t nelems, int pe)						\
{											\
	igetmem("shmem_iget" #S, dest, source, dst, sst, S / 8, nelems, pe);		\
}
SHMEM__SIZE_DEF(8)
SHMEM__SIZE_DEF(16)
SHMEM__SIZE_DEF(32)
SHMEM__SIZE_DEF(64)
SHMEM__SIZE_DEF(128)

void shmem_putmem(void *dest, const void *source, size_t nelems, int pe)
{
	putmem("shmem_putmem", dest, source, nelems, 1, pe);
}

void shmem_getmem(void *dest, const void *source, size_t nelems, int pe)
{
	getmem("shmem_getmem", dest, source, nelems, 1, pe);
}

void shmem_putmem_nbi(void *dest, const void *source, size_t nelems, int pe)
{
	putmem_nbi("shmem_putmem_nbi", dest, source, nelems, 1, pe);
}

void shmem_getmem_nbi(void *dest, const void *source, size_t nelems, int pe)
{
	getmem_nbi("shmem_getmem_nbi", dest, source, nelems, 1, pe);
}

void shmem_putmem_signal(void *dest, const void *source, size_t nelems,
			 uint64_t *sig_addr, uint64_t signal, int sig_op, int pe)
{
	put_signal("shmem_putmem_signal", dest, source, nelems, 1, sig_addr, signal, sig_op, pe, 0);
}

void shmem_putmem_signal_nbi(void *dest, const void *source, size_t nelems,
			     uint64_t *sig_addr, uint64_t signal, int sig_op, int pe)
{
	put_signal("shmem_putmem_signal_nbi", dest, source, nelems, 1, sig_addr, signal, sig_op,
		   pe, 1);
}

uint64_t shmem_signal_fetch(const uint64_t *sig_addr)
{
	uint64_t v;

	shmem__need_init("shmem_signal_fetch");
	SHMEM__CHECK("shmem_signal_fetch", pgas_signal_fetch(sig_addr, &v));
	return v;
}

void shmem_fence(void)
{
	pgas_fence();
}

void shmem_quiet(void)
{
	SHMEM__CHECK("shmem_quiet", pgas_quiet());
}

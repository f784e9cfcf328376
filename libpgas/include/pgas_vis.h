/* SPDX-License-Identifier: MIT */
/*
 * pgas_vis.h - non-contiguous RMA: strided, indexed and vector put/get
 * (included by pgas.h).
 *
 * As GASNet-EX's VIS calls (gex_VIS_StridedPut/Get, gex_VIS_IndexedPut/Get,
 * gex_VIS_VectorPut/Get, each blocking, NB and NBI), with the argument
 * order and naming of pgas_put/pgas_get: the rank stands just before the
 * remote side's arguments, and the _nb form takes its handle first.
 * pgas_iput/pgas_iget are OpenSHMEM's shmem_iput/shmem_iget (strides in
 * elements) for any element size.
 *
 * Strided: elements of elemsz bytes in an N-d array of
 * count[0] x count[1] x ... x count[stridelevels-1] elements; element
 * (i0, i1, ...) is at dst + i0*dststrides[0] + i1*dststrides[1] + ... on
 * the destination and at the same sum of srcstrides on the source.  Strides
 * are in bytes (dimension 0 is the one that varies fastest; strides[0] is
 * the distance between two elements) and may be any value: negative,
 * zero, not ordered.  stridelevels 0 is one element of elemsz bytes (count
 * and the strides are not read).  stridelevels is at most
 * PGAS_VIS_MAX_STRIDELEVELS.  The elements of the destination must not
 * overlap each other (not checked: which value an overlapped byte ends with
 * is unspecified); source elements may (a zero source stride replicates
 * one element).
 *
 * Indexed: dstcount regions of dstlen bytes each at dstlist[], and
 * srccount regions of srclen bytes at srclist[]; the bytes of the source
 * regions, in list order, fill the destination regions in list order.
 * dstcount * dstlen must equal srccount * srclen.  Vector: the same with
 * regions of any length (pgas_memvec_t lists); the two totals must be
 * equal.  Regions of length 0 are skipped (their address is not read).
 *
 * For every form:
 *  - the destination must not overlap the source (as memcpy), nor the
 *    call's own lists, count or strides arrays, which must not change
 *    until it returns.  A list found changed while copying (it is read
 *    again then) stops the copy with PGAS_ERR_INVAL, part of it done, but
 *    no byte goes outside rank's segment;
 *  - the remote side (destination of a put, source of a get) is checked in
 *    full before anything is copied: every byte of every element or region
 *    must lie in rank's segment, else the call fails with PGAS_ERR_BOUNDS
 *    and nothing was written.  A call is either copied whole or refused;
 *  - a total of 0 bytes (a count of 0, empty lists or regions all of
 *    length 0) is a no-op that returns PGAS_OK: no address or stride is
 *    looked at (the rank, the _nb handle and, with entries, a list itself
 *    still are);
 *  - extents that overflow size_t (count products, stride times count,
 *    footprint sizes, list totals) are refused with PGAS_ERR_SIZE, never
 *    wrapped; elemsz 0, stridelevels over the maximum, a NULL count array
 *    (stridelevels > 0), and a NULL list, strides array or local address
 *    where bytes are to move are PGAS_ERR_INVAL; totals of the two lists
 *    that differ are PGAS_ERR_INVAL;
 *  - completion, ordering and threads as pgas_put/pgas_get (pgas.h): on
 *    shm and pgas.ko the calling thread copies each contiguous run once,
 *    straight between the source and the destination (no packing), so the
 *    _nb forms return PGAS_HANDLE_DONE and the _nbi forms are complete on
 *    return; code must not rely on that.  Safe at PGAS_THREAD_MULTIPLE
 *    and in handlers, like pgas_put.
 */
#ifndef PGAS_VIS_H
#define PGAS_VIS_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The most dimensions a strided call may describe. */
#define PGAS_VIS_MAX_STRIDELEVELS 16

/* One region of a vector call (gex_Memvec_t). */
typedef struct {
	void *addr;
	size_t len;		/* bytes */
} pgas_memvec_t;

/* ---- strided ---------------------------------------------------------- */

int pgas_put_strided(unsigned rank, void *dst, const ptrdiff_t dststrides[],
		     const void *src, const ptrdiff_t srcstrides[],
		     size_t elemsz, const size_t count[], size_t stridelevels);
int pgas_put_strided_nb(pgas_handle_t *handle, unsigned rank, void *dst,
			const ptrdiff_t dststrides[], const void *src,
			const ptrdiff_t srcstrides[], size_t elemsz, const size_t count[],
			size_t stridelevels);
int pgas_put_strided_nbi(unsigned rank, void *dst, const ptrdiff_t dststrides[],
			 const void *src, const ptrdiff_t srcstrides[],
			 size_t elemsz, const size_t count[], size_t stridelevels);

int pgas_get_strided(void *dst, const ptrdiff_t dststrides[], unsigned rank,
		     const void *src, const ptrdiff_t srcstrides[],
		     size_t elemsz, const size_t count[], size_t stridelevels);
int pgas_get_strided_nb(pgas_handle_t *handle, void *dst, const ptrdiff_t dststrides[],
			unsigned rank, const void *src, const ptrdiff_t srcstrides[],
			size_t elemsz, const size_t count[], size_t stridelevels);
int pgas_get_strided_nbi(void *dst, const ptrdiff_t dststrides[], unsigned rank,
			 const void *src, const ptrdiff_t srcstrides[],
			 size_t elemsz, const size_t count[], size_t stridelevels);

/*
 * shmem_iput / shmem_iget: nelems elements of elemsz bytes, dst_stride and
 * src_stride elements apart (any sign).  A strided call of one level;
 * blocking only (as OpenSHMEM).  The strides in bytes must fit ptrdiff_t
 * (else PGAS_ERR_SIZE) when nelems is 2 or more; with 0 or 1 element they
 * are not used.
 */
int pgas_iput(unsigned rank, void *dst, ptrdiff_t dst_stride, const void *src,
	      ptrdiff_t src_stride, size_t elemsz, size_t nelems);
int pgas_iget(void *dst, ptrdiff_t dst_stride, unsigned rank, const void *src,
	      ptrdiff_t src_stride, size_t elemsz, size_t nelems);

/* ---- indexed ---------------------------------------------------------- */

int pgas_put_indexed(unsigned rank, size_t dstcount, void *const dstlist[], size_t dstlen,
		     size_t srccount, const void *const srclist[], size_t srclen);
int pgas_put_indexed_nb(pgas_handle_t *handle, unsigned rank, size_t dstcount,
			void *const dstlist[], size_t dstlen, size_t srccount,
			const void *const srclist[], size_t srclen);
int pgas_put_indexed_nbi(unsigned rank, size_t dstcount, void *const dstlist[],
			 size_t dstlen, size_t srccount, const void *const srclist[],
			 size_t srclen);

int pgas_get_indexed(size_t dstcount, void *const dstlist[], size_t dstlen, unsigned rank,
		     size_t srccount, const void *const srclist[], size_t srclen);
int pgas_get_indexed_nb(pgas_handle_t *handle, size_t dstcount, void *const dstlist[],
			size_t dstlen, unsigned rank, size_t srccount,
			const void *const srclist[], size_t srclen);
int pgas_get_indexed_nbi(size_t dstcount, void *const dstlist[], size_t dstlen,
			 unsigned rank, size_t srccount, const void *const srclist[],
			 size_t srclen);

/* ---- vector ----------------------------------------------------------- */

int pgas_put_vector(unsigned rank, size_t dstcount, const pgas_memvec_t dstlist[],
		    size_t srccount, const pgas_memvec_t srclist[]);
int pgas_put_vector_nb(pgas_handle_t *handle, unsigned rank, size_t dstcount,
		       const pgas_memvec_t dstlist[], size_t srccount,
		       const pgas_memvec_t srclist[]);
int pgas_put_vector_nbi(unsigned rank, size_t dstcount, const pgas_memvec_t dstlist[],
			size_t srccount, const pgas_memvec_t srclist[]);

int pgas_get_vector(size_t dstcount, const pgas_memvec_t dstlist[], unsigned rank,
		    size_t srccount, const pgas_memvec_t srclist[]);
int pgas_get_vector_nb(pgas_handle_t *handle, size_t dstcount, const pgas_memvec_t dstlist[],
		       unsigned rank, size_t srccount, const pgas_memvec_t srclist[]);
int pgas_get_vector_nbi(size_t dstcount, const pgas_memvec_t dstlist[], unsigned rank,
			size_t srccount, const pgas_memvec_t srclist[]);

#ifdef __cplusplus
}
#endif

#endif /* PGAS_VIS_H */

/* SPDX-License-Identifier: MIT */
/*
 * setup.c - OpenSHMEM setup, exit and query; the symmetric heap.
 *
 * The heap is this PE's libpgas segment, whole (pgas_attach's segsize:
 * SHMEM_SYMMETRIC_SIZE, else libpgas's PGAS_SEGMENT_SIZE).  Its allocator
 * keeps its block list in private memory, never in the segment, and is
 * deterministic: PEs that run the same sequence of collective calls get
 * the same offsets, so a symmetric object is at the same offset in every
 * PE's segment.  Each collective allocation call checks that every PE
 * passed the same arguments (one reduction, which is the call's barrier).
 */
#define _GNU_SOURCE
#include <elf.h>
#include <errno.h>
#include <link.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "shmem_internal.h"
#include "shmemx.h"

struct shmem__state shmem__s;
struct shmem__heap_view shmem__hv;	/* shmem.h's inline fast paths */
const unsigned char SHMEM__FAST_SYM = SHMEM__FAST_ABI;

void shmem__fatal(const char *call, const char *fmt, ...)
{
	char msg[1024];
	int len;
	va_list ap;

	/* One write, so that the PEs' messages do not interleave. */
	len = snprintf(msg, sizeof(msg), "shmem: PE %d: %s: ",
		       shmem__s.initialised ? shmem__s.me : -1, call);
	va_start(ap, fmt);
	if (len >= 0 && (size_t)len < sizeof(msg))
		vsnprintf(msg + len, sizeof(msg) - (size_t)len, fmt, ap);
	va_end(ap);
	fprintf(stderr, "%s\n", msg);
	fflush(stderr);
	pgas_global_exit(1);
}

/* ---- setup ----------------------------------------------------------------- */

/*
 * SHMEM_SYMMETRIC_SIZE (else the deprecated SMA_SYMMETRIC_SIZE): a number
 * of bytes, decimal, integer or floating point, with an optional K, M, G or
 * T suffix (powers of 1024, as the spec's example "3.1m" = 3250586).  A
 * value that is not a positive size, or that overflows, ends the job.
 */
static size_t heap_size_env(const char **name)
{
	const char *s = getenv(*name = "SHMEM_SYMMETRIC_SIZE");
	long double v, scale = 1;
	char *end;

	if (!s || !*s)
		s = getenv(*name = "SMA_SYMMETRIC_SIZE");
	if (!s || !*s)
		return 0;	/* libpgas's PGAS_SEGMENT_SIZE */
	errno = 0;
	v = strtold(s, &end);	/* decimal: "010M" is 10 MiB, not octal */
	switch (*end) {
	case 'k': case 'K': scale = 0x1p10L; end++; break;
	case 'm': case 'M': scale = 0x1p20L; end++; break;
	case 'g': case 'G': scale = 0x1p30L; end++; break;
	case 't': case 'T': scale = 0x1p40L; end++; break;
	default: break;
	}
	v *= scale;
	/* Digits and a point only: strtold would also take hex, inf and nan. */
	if (errno || *end || end == s || strspn(s, "0123456789.") != (size_t)(end - s - (scale > 1)) ||
	    !(v >= 1) || v > (long double)(SIZE_MAX / 2))
		shmem__fatal("shmem_init", "%s=%s is not a size", *name, s);
	if (v > (long double)(size_t)v)	/* "3.1m": round up */
		v = (long double)(size_t)v + 1;
	return (size_t)v;
}

static void heap_reset(void);

/* ---- .data and .bss as symmetric objects ------------------------------------ */

struct data_range {
	uintptr_t lo, hi;
};

/*
 * The first object dl_iterate_phdr reports is the executable (a static
 * one too).  Its last writable PT_LOAD holds .data and .bss (and, first,
 * what RELRO makes read-only after relocation: cut off).  The kernel maps
 * it from the page of its start to the page end of .bss, which is all
 * this segment's (brk starts at or after the next page).
 */
static int data_phdr(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct data_range *r = arg;
	uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE), relro = 0, below = 0;

	(void)size;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		uintptr_t lo = info->dlpi_addr + ph->p_vaddr;

		if (ph->p_type == PT_LOAD && (ph->p_flags & PF_W) && ph->p_memsz && lo >= r->lo) {
			r->lo = lo;
			r->hi = lo + ph->p_memsz;
		} else if (ph->p_type == PT_GNU_RELRO) {
			relro = lo + ph->p_memsz;
		}
	}
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		uintptr_t lo = info->dlpi_addr + ph->p_vaddr;

		if (ph->p_type == PT_LOAD && lo < r->lo && lo + ph->p_memsz > below)
			below = lo + ph->p_memsz;
	}
	/* glibc protects RELRO up to its end's page start: the rest is writable. */
	if (r->hi && relro > r->lo && relro <= r->hi)
		r->lo = relro;
	/* A first page that another segment shares (text and data in one page,
	 * ld -N) keeps its mapping: the range starts after it. */
	if (((below + page - 1) & ~(page - 1)) > (r->lo & ~(page - 1)))
		r->lo = (r->lo + page - 1) & ~(page - 1);
	r->lo &= ~(page - 1);
	r->hi = (r->hi + page - 1) & ~(page - 1);
	return 1;	/* the executable only */
}

/* Why globals are not symmetric, for the message of an access to one. */
static char data_why[320] = "";

/*
 * Registers this PE's data with libpgas (collective) and learns every
 * PE's.  They must be the same size (one program on every PE); else
 * globals are not symmetric and stay refused.  A failed registration
 * (pgas.ko: RLIMIT_MEMLOCK below a large .bss) fails every PE's alike:
 * programs that use only the heap still run.
 */
static void data_setup(const char *call)
{
	struct data_range r = { 0, 0 };
	pgas_seginfo_t info;
	int rc;

	(void)dl_iterate_phdr(data_phdr, &r);
	if (r.hi <= r.lo)
		r.lo = r.hi = 0;
	shmem__s.datas = calloc((size_t)shmem__s.npes, sizeof(*shmem__s.datas));
	if (!shmem__s.datas)
		shmem__fatal(call, "out of memory");
	/* No other thread may touch the program's data meanwhile (shm remaps it). */
	rc = pgas_segment_register((void *)r.lo, r.hi - r.lo);
	if (rc < 0) {
		snprintf(data_why, sizeof(data_why), " (registering it at shmem_init failed: %s)",
			 pgas_last_error());
		return;
	}
	for (int pe = 0; pe < shmem__s.npes; pe++) {
		SHMEM__CHECK(call, pgas_region_info((unsigned)pe, &info));
		shmem__s.datas[pe] = info.addr;
		if (info.size != r.hi - r.lo) {
			snprintf(data_why, sizeof(data_why), " (PE %d's is %zu bytes, this PE's "
				 "%zu: different programs?)", pe, info.size, (size_t)(r.hi - r.lo));
			return;
		}
	}
	shmem__s.data = (char *)r.lo;
	shmem__s.data_size = r.hi - r.lo;
}

static int in_data(uintptr_t a, size_t nbytes)
{
	uintptr_t d = (uintptr_t)shmem__s.data;

	return a >= d && a - d <= shmem__s.data_size && nbytes <= shmem__s.data_size - (a - d) &&
	       shmem__s.data_size;
}

void *shmem__xlate_data(const char *call, const void *addr, size_t nbytes, int pe)
{
	uintptr_t a = (uintptr_t)addr;

	/* Nothing is accessed: any address (NULL too) will do, and the peer's
	 * heap start satisfies libpgas's own check of a zero-byte access. */
	if (nbytes == 0 && !in_data(a, 0))
		return shmem__s.bases[pe];
	if (!in_data(a, nbytes))
		shmem__fatal(call, "%p (%zu bytes) is not symmetric: not in the heap [%p, +%zu) "
			     "nor in the program's data [%p, +%zu)%s",
			     addr, nbytes, (void *)shmem__s.base, shmem__s.size,
			     (void *)shmem__s.data, shmem__s.data_size, data_why);
	return shmem__s.datas[pe] + (a - (uintptr_t)shmem__s.data);
}

#define HEAP_ALIGN ((size_t)64)	/* every block: a cache line (max_align_t is 16) */
#define HEAP_START ((size_t)64 << 10)	/* the heap's alignment in every PE */
/* do_init keeps a heap of at least HEAP_ALIGN bytes: the inline paths'
 * one-compare range check needs SHMEM__HEAP_MIN. */
_Static_assert(HEAP_ALIGN >= SHMEM__HEAP_MIN, "the heap is never below SHMEM__HEAP_MIN");

/* The operations the AMOs use (pgas_atomic.h's public set). */
#define AOPS_FP (PGAS_AOP_GET | PGAS_AOP_SET | PGAS_AOP_SWAP)
#define AOPS_INT (AOPS_FP | PGAS_AOP_FCAS | PGAS_AOP_ADD | PGAS_AOP_FADD | PGAS_AOP_INC |	\
		  PGAS_AOP_FINC | PGAS_AOP_AND | PGAS_AOP_FAND | PGAS_AOP_OR | PGAS_AOP_FOR |	\
		  PGAS_AOP_XOR | PGAS_AOP_FXOR)

/*
 * The segment: the size asked for plus what aligning the heap's start can
 * lose and the collectives' scratch (at the heap's end), so that the heap
 * is at least as large as SHMEM_SYMMETRIC_SIZE.
 */
static int attach_heap(size_t scratch)
{
	const char *name;
	size_t want = heap_size_env(&name);

	if (want && getenv("SHMEM_DEBUG"))
		fprintf(stderr, "shmem: %s=%zu bytes (and %zu for the collectives)\n", name, want,
			scratch);
	return pgas_attach(NULL, 0, want ? want + HEAP_START + scratch : 0);
}

/* The spec's SHMEM_VERSION and SHMEM_INFO: printed by PE 0 at start-up. */
static void print_env_info(void)
{
	static const char *const vars[][2] = {
		{ "SHMEM_SYMMETRIC_SIZE", "bytes of the symmetric heap (K, M, G, T; 3.1M)" },
		{ "SMA_SYMMETRIC_SIZE", "the same, deprecated (when the above is unset)" },
		{ "SHMEM_VERSION", "print the library version at start-up" },
		{ "SHMEM_INFO", "print this text at start-up" },
		{ "SHMEM_DEBUG", "print what the library decides at start-up" },
	};

	if (getenv("SHMEM_VERSION") || getenv("SHMEM_INFO"))
		fprintf(stderr, "shmem: %s, OpenSHMEM %d.%d, %d PEs, heap %zu bytes\n",
			SHMEM_VENDOR_STRING, SHMEM_MAJOR_VERSION, SHMEM_MINOR_VERSION,
			shmem__s.npes, shmem__s.size);
	if (!getenv("SHMEM_INFO"))
		return;
	for (size_t i = 0; i < sizeof(vars) / sizeof(vars[0]); i++) {
		const char *v = getenv(vars[i][0]);

		fprintf(stderr, "shmem:   %-22s %s (%s)\n", vars[i][0], vars[i][1],
			v ? v : "unset");
	}
	fprintf(stderr, "shmem:   and libpgas's PGAS_* variables (docs/libpgas.md)\n");
}

/*
 * The inline paths' view (shmem.h): the heap and data of every PE, where
 * they are in its address space and where this process maps them, so
 * that an inline call translates once (libpgas keeps its mappings from
 * attach to exit, and the data's region is registered once).
 */
static void heap_view(const char *call)
{
	char **maps = calloc((size_t)shmem__s.npes, sizeof(*maps));
	char **dmaps = calloc((size_t)shmem__s.npes, sizeof(*dmaps));

	if (!maps || !dmaps)
		shmem__fatal(call, "out of memory");
	if (shmem__s.size < SHMEM__HEAP_MIN)	/* do_init refuses it before */
		shmem__fatal(call, "the heap (%zu bytes) is below %d", shmem__s.size,
			     SHMEM__HEAP_MIN);
	for (int pe = 0; pe < shmem__s.npes; pe++) {
		maps[pe] = pgas__xlate((unsigned)pe, shmem__s.bases[pe], shmem__s.size);
		if (shmem__s.data_size)
			dmaps[pe] = pgas__xlate((unsigned)pe, shmem__s.datas[pe],
						shmem__s.data_size);
	}
	shmem__hv = (struct shmem__heap_view){ shmem__s.base, shmem__s.size, shmem__s.bases,
					       shmem__s.npes, shmem__s.data, shmem__s.data_size,
					       shmem__s.datas, shmem__s.ad_u32, shmem__s.ad_u64,
					       maps, dmaps };
}

static int do_init(const char *call, int requested, int *provided)
{
	int rc, got = 0;

	if (shmem__s.initialised) {	/* again: no effect (as most implementations) */
		if (provided)
			*provided = pgas_query_thread();
		return 0;
	}
	if (shmem__s.finalised)
		shmem__fatal(call, "called after shmem_finalize");
	if (requested < SHMEM_THREAD_SINGLE || requested > SHMEM_THREAD_MULTIPLE)
		shmem__fatal(call, "unknown thread level %d", requested);
	size_t scratch = 0;

	rc = pgas_init_thread(NULL, NULL, requested, &got);
	if (rc == 0) {
		/* The collectives' scratch comes on top of an asked-for heap. */
		scratch = shmem__coll_scratch((int)pgas_nranks());
		rc = attach_heap(scratch);
	}
	if (rc)
		shmem__fatal(call, "%s", pgas_last_error());
	shmem__s.me = (int)pgas_rank();
	shmem__s.npes = (int)pgas_nranks();
	shmem__s.bases = calloc((size_t)shmem__s.npes, sizeof(*shmem__s.bases));
	shmem__s.sizes = calloc((size_t)shmem__s.npes, sizeof(*shmem__s.sizes));
	if (!shmem__s.bases || !shmem__s.sizes)
		shmem__fatal(call, "out of memory");
	for (int r = 0; r < shmem__s.npes; r++) {
		shmem__s.bases[r] = pgas_segment_addr((unsigned)r);
		shmem__s.sizes[r] = pgas_segment_size((unsigned)r);
	}
	/*
	 * The heap of PE q starts at its segment's first HEAP_START-aligned
	 * address, so that an offset aligned to up to HEAP_START is aligned in
	 * every PE's address space (segments need only be page-aligned), and
	 * is as long as the shortest of them.
	 */
	size_t len = SIZE_MAX;

	for (int r = 0; r < shmem__s.npes; r++) {
		uintptr_t b = (uintptr_t)shmem__s.bases[r];
		size_t pad = (size_t)(((b + HEAP_START - 1) & ~(uintptr_t)(HEAP_START - 1)) - b);

		shmem__s.bases[r] += pad;
		shmem__s.sizes[r] = shmem__s.sizes[r] > pad ? shmem__s.sizes[r] - pad : 0;
		if (shmem__s.sizes[r] < len)
			len = shmem__s.sizes[r];
	}
	if (len < scratch + HEAP_ALIGN)
		shmem__fatal(call, "the heap (%zu bytes) has no room for the collectives' %zu",
			     len, scratch);
	shmem__s.base = shmem__s.bases[shmem__s.me];
	shmem__s.coll_len = scratch;
	shmem__s.coll_off = (len - scratch) & ~(HEAP_ALIGN - 1);
	shmem__s.size = shmem__s.coll_off;
	data_setup(call);
	/* Integers of one size share a domain (the bits of int and unsigned
	 * add alike), so that mixing them on a word stays atomic. */
	if ((rc = pgas_ad_create(&shmem__s.ad_u32, PGAS_DT_U32, AOPS_INT, 0)) ||
	    (rc = pgas_ad_create(&shmem__s.ad_u64, PGAS_DT_U64, AOPS_INT, 0)) ||
	    (rc = pgas_ad_create(&shmem__s.ad_flt, PGAS_DT_FLT,
				 AOPS_FP, 0)) ||
	    (rc = pgas_ad_create(&shmem__s.ad_dbl, PGAS_DT_DBL,
				 AOPS_FP, 0)))
		shmem__fatal(call, "%s", pgas_last_error());
	heap_reset();
	shmem__coll_init();
	shmem__team_init();
	shmem__s.initialised = 1;
	heap_view(call);
	if (provided)
		*provided = got;
	if (shmem__s.me == 0)
		print_env_info();
	/* Every PE's heap exists before any PE returns. */
	SHMEM__CHECK(call, pgas_barrier(0, PGAS_BARRIERFLAG_ANONYMOUS));
	return 0;
}

void shmem_init(void)
{
	do_init("shmem_init", SHMEM_THREAD_SINGLE, NULL);
}

int shmem_init_thread(int requested, int *provided)
{
	return do_init("shmem_init_thread", requested, provided);
}

void start_pes(int npes)
{
	(void)npes;
	do_init("start_pes", SHMEM_THREAD_SINGLE, NULL);
}

void shmem_query_thread(int *provided)
{
	shmem__need_init("shmem_query_thread");
	if (!provided)
		shmem__fatal("shmem_query_thread", "provided is NULL");
	*provided = pgas_query_thread();
}

/*
 * The spec's finalize returns, and the process may go on without
 * OpenSHMEM; libpgas's pgas_exit(0) does not return.  So: complete this
 * PE's communication, wait for every PE (a barrier, as the spec says), and
 * leave the libpgas finalize to the process's exit (libpgas's exit hook:
 * exit(0) or a return from main is pgas_exit(0)).
 */
void shmem_finalize(void)
{
	if (shmem__s.finalised)	/* again: no effect (undefined in the spec) */
		return;
	shmem__need_init("shmem_finalize");
	shmem__ctx_finalize();
	SHMEM__CHECK("shmem_finalize", pgas_quiet());
	SHMEM__CHECK("shmem_finalize", pgas_barrier(0, PGAS_BARRIERFLAG_ANONYMOUS));
	shmem__hv.npes = 0;	/* the inline paths call the library, which refuses */
	shmem__s.initialised = 0;
	shmem__s.finalised = 1;
}

void shmem_global_exit(int status)
{
	fflush(NULL);
	pgas_global_exit(status);
}

int shmem_my_pe(void)
{
	shmem__need_init("shmem_my_pe");
	return shmem__s.me;
}

int shmem_n_pes(void)
{
	shmem__need_init("shmem_n_pes");
	return shmem__s.npes;
}

int _my_pe(void)
{
	return shmem_my_pe();
}

int _num_pes(void)
{
	return shmem_n_pes();
}

int shmem_pe_accessible(int pe)
{
	shmem__need_init("shmem_pe_accessible");
	return pe >= 0 && pe < shmem__s.npes;
}

int shmem_addr_accessible(const void *addr, int pe)
{
	uintptr_t a = (uintptr_t)addr, b = (uintptr_t)shmem__s.base;

	shmem__need_init("shmem_addr_accessible");
	return pe >= 0 && pe < shmem__s.npes &&
	       ((a >= b && a - b < shmem__s.size) || in_data(a, 1));
}

void *shmem_ptr(const void *dest, int pe)
{
	uintptr_t a = (uintptr_t)dest, b = (uintptr_t)shmem__s.base;

	shmem__need_init("shmem_ptr");
	if (pe < 0 || pe >= shmem__s.npes)
		return NULL;
	if (a >= b && a - b < shmem__s.size)
		return pgas_ptr((unsigned)pe, shmem__s.bases[pe] + (a - b));
	if (in_data(a, 1))
		return pgas_ptr((unsigned)pe, shmem__s.datas[pe] + (a - (uintptr_t)shmem__s.data));
	return NULL;
}

void shmem_info_get_version(int *major, int *minor)
{
	if (major)
		*major = SHMEM_MAJOR_VERSION;
	if (minor)
		*minor = SHMEM_MINOR_VERSION;
}

void shmem_info_get_name(char *name)
{
	/* The string and its terminator only: the caller's buffer may be
	 * shorter than SHMEM_MAX_NAME_LEN (strncpy would pad it all). */
	if (name)
		memcpy(name, SHMEM_VENDOR_STRING, sizeof(SHMEM_VENDOR_STRING));
}

void shmem_pcontrol(const int level, ...)
{
	(void)level;
}

/* ---- the symmetric heap ---------------------------------------------------- */

/* Blocks in address order, covering the heap; neighbours are never both free. */
struct blk {
	size_t off, len;
	int used;
	struct blk *prev, *next;
};
static struct blk *heap_head;

static void heap_reset(void)
{
	while (heap_head) {
		struct blk *n = heap_head->next;

		free(heap_head);
		heap_head = n;
	}
	heap_head = calloc(1, sizeof(*heap_head));
	if (!heap_head)
		shmem__fatal("shmem_init", "out of memory");
	heap_head->off = 0;
	heap_head->len = shmem__s.size & ~(HEAP_ALIGN - 1);
}

static struct blk *blk_new(size_t off, size_t len, int used)
{
	struct blk *b = calloc(1, sizeof(*b));

	if (!b)
		shmem__fatal("shmem_malloc", "out of memory (heap bookkeeping)");
	b->off = off;
	b->len = len;
	b->used = used;
	return b;
}

static void blk_insert_after(struct blk *at, struct blk *b)
{
	b->prev = at;
	b->next = at->next;
	if (at->next)
		at->next->prev = b;
	at->next = b;
}

static void blk_unlink_free(struct blk *b)
{
	if (b->prev)
		b->prev->next = b->next;
	else
		heap_head = b->next;
	if (b->next)
		b->next->prev = b->prev;
	free(b);
}

/* A free block: merged with free neighbours. */
static void blk_release(struct blk *b)
{
	b->used = 0;
	if (b->next && !b->next->used) {
		b->len += b->next->len;
		blk_unlink_free(b->next);
	}
	if (b->prev && !b->prev->used) {
		b->prev->len += b->len;
		blk_unlink_free(b);
	}
}

/* Splits used block b at len: the tail becomes free. */
static void blk_trim(struct blk *b, size_t len)
{
	if (b->len > len) {
		struct blk *t = blk_new(b->off + len, b->len - len, 0);

		blk_insert_after(b, t);
		b->len = len;
		if (t->next && !t->next->used) {
			t->len += t->next->len;
			blk_unlink_free(t->next);
		}
	}
}

static size_t round_len(size_t size)
{
	return (size + HEAP_ALIGN - 1) & ~(HEAP_ALIGN - 1);
}

/* First fit; NULL when nothing fits. */
static struct blk *heap_alloc(size_t size, size_t align)
{
	size_t len = round_len(size);

	if (len < size)
		return NULL;
	for (struct blk *b = heap_head; b; b = b->next) {
		size_t start, pad;

		if (b->used)
			continue;
		start = (b->off + align - 1) & ~(align - 1);
		pad = start - b->off;
		if (start < b->off || pad > b->len || b->len - pad < len)
			continue;
		if (pad) {	/* the padding stays a free block before it */
			struct blk *a = blk_new(start, b->len - pad, 0);

			b->len = pad;
			blk_insert_after(b, a);
			b = a;
		}
		b->used = 1;
		blk_trim(b, len);
		return b;
	}
	return NULL;
}

static struct blk *heap_find(const char *call, const void *ptr)
{
	uintptr_t a = (uintptr_t)ptr, base = (uintptr_t)shmem__s.base;

	if (a >= base && a - base < shmem__s.size)
		for (struct blk *b = heap_head; b; b = b->next)
			if (b->off == a - base && b->used)
				return b;
	shmem__fatal(call, "%p was not returned by shmem_malloc (or was freed)", ptr);
}

/*
 * The collective check and barrier of an allocation call: every PE passed
 * the same (a, b, c).  One reduction of the values and their complements
 * with MAX: they agree iff max(v) == ~max(~v), which every PE computes
 * alike.  It completes this PE's RMA first, as shmem_barrier_all does.
 */
static int agree(const char *call, uint64_t a, uint64_t b, uint64_t c)
{
	uint64_t v[6] = { a, b, c, ~a, ~b, ~c }, m[6];

	SHMEM__CHECK(call, pgas_quiet());
	SHMEM__CHECK(call, pgas_reduce_all(pgas_team_all(), m, v, 6, PGAS_UINT64, PGAS_OP_MAX,
					   PGAS_COLL_ALLSYNC));
	for (int i = 0; i < 3; i++)
		if (m[i] != ~m[i + 3]) {
			if (shmem__s.me == 0)
				fprintf(stderr, "shmem: %s: the PEs passed different arguments "
					"(argument %d from %llu to %llu): every PE returns NULL\n",
					call, i + 1, (unsigned long long)~m[i + 3],
					(unsigned long long)m[i]);
			return 0;
		}
	return 1;
}

static void barrier(const char *call)
{
	SHMEM__CHECK(call, pgas_quiet());
	SHMEM__CHECK(call, pgas_barrier(0, PGAS_BARRIERFLAG_ANONYMOUS));
}

static void *alloc_call(const char *call, size_t size, size_t align, uint64_t kind)
{
	struct blk *b;

	shmem__need_init(call);
	if (!agree(call, size, align, kind))
		return NULL;
	if (size == 0)
		return NULL;
	if (align == 0 || (align & (align - 1)))
		return NULL;	/* the same on every PE (they agreed) */
	if (align > HEAP_START)
		for (int r = 0; r < shmem__s.npes; r++)
			if ((uintptr_t)shmem__s.bases[r] & (align - 1)) {
				/* The same answer on every PE: bases are known to all. */
				if (shmem__s.me == 0)
					fprintf(stderr, "shmem: %s: alignment %zu: PE %d's heap "
						"is not so aligned (%zu is): NULL\n", call, align,
						r, (size_t)PGAS_SEGMENT_ALIGN);
				return NULL;
			}
	b = heap_alloc(size, align < HEAP_ALIGN ? HEAP_ALIGN : align);
	/* The same on every PE: their heaps have the same history. */
	return b ? shmem__s.base + b->off : NULL;
}

void *shmem_malloc(size_t size)
{
	return alloc_call("shmem_malloc", size, HEAP_ALIGN, 1);
}

void *shmem_malloc_with_hints(size_t size, long hints)
{
	/* Hints only advise; the PEs must still agree on them. */
	return alloc_call("shmem_malloc_with_hints", size, HEAP_ALIGN, 2 + (uint64_t)hints);
}

void *shmem_align(size_t alignment, size_t size)
{
	return alloc_call("shmem_align", size, alignment, 1);
}

void *shmem_calloc(size_t count, size_t size)
{
	void *p;

	if (size && count > SIZE_MAX / size) {
		shmem__need_init("shmem_calloc");
		(void)agree("shmem_calloc", SIZE_MAX, SIZE_MAX, 3);
		return NULL;
	}
	p = alloc_call("shmem_calloc", count * size, HEAP_ALIGN, 3);
	if (p) {
		memset(p, 0, count * size);
		/* Nobody puts into it before every PE has zeroed it. */
		barrier("shmem_calloc");
	}
	return p;
}

void shmem_free(void *ptr)
{
	uint64_t off = ptr ? (uint64_t)((char *)ptr - shmem__s.base) : UINT64_MAX;

	shmem__need_init("shmem_free");
	if (ptr)
		(void)heap_find("shmem_free", ptr);
	/* The barrier at entry: no PE frees what a peer still accesses. */
	if (!agree("shmem_free", off, 0, 4))
		return;
	if (ptr)
		blk_release(heap_find("shmem_free", ptr));
}

/*
 * In place when it fits (shrinking, or growing into a free block behind
 * it), else a new block, the old contents copied (min of the sizes), the
 * old one freed.  Barriers at entry (the check) and exit.
 */
void *shmem_realloc(void *ptr, size_t size)
{
	const char *call = "shmem_realloc";
	uint64_t off = ptr ? (uint64_t)((char *)ptr - shmem__s.base) : UINT64_MAX;
	struct blk *b, *nb;
	size_t len = round_len(size), old;
	void *p;

	shmem__need_init(call);
	b = ptr ? heap_find(call, ptr) : NULL;
	if (!agree(call, off, size, 5))
		return NULL;
	if (!ptr) {
		nb = size ? heap_alloc(size, HEAP_ALIGN) : NULL;
		p = nb ? shmem__s.base + nb->off : NULL;
		goto out;
	}
	if (size == 0) {	/* as free */
		blk_release(b);
		p = NULL;
		goto out;
	}
	if (len < size) {	/* rounding wrapped: too large, the old block stays */
		p = NULL;
		goto out;
	}
	old = b->len;
	if (len <= old) {
		blk_trim(b, len);
		p = ptr;
	} else if (b->next && !b->next->used && b->next->len >= len - old) {
		struct blk *n = b->next;

		b->len += n->len;
		blk_unlink_free(n);
		blk_trim(b, len);
		p = ptr;
	} else if ((nb = heap_alloc(size, HEAP_ALIGN))) {
		p = shmem__s.base + nb->off;
		memcpy(p, ptr, old);
		blk_release(b);
	} else {
		p = NULL;	/* the old block stays, as realloc */
	}
out:
	barrier(call);
	return p;
}

/* ---- deprecated names ------------------------------------------------------- */

/* The 1.2 allocation names: the 1.5 calls under another name. */
void *shmalloc(size_t size)
{
	return shmem_malloc(size);
}

void shfree(void *ptr)
{
	shmem_free(ptr);
}

void *shrealloc(void *ptr, size_t size)
{
	return shmem_realloc(ptr, size);
}

void *shmemalign(size_t alignment, size_t size)
{
	return shmem_align(alignment, size);
}

/* Cache management: every PE's view of memory is coherent here. */
void shmem_set_cache_inv(void)
{
}

void shmem_set_cache_line_inv(void *dest)
{
	(void)dest;
}

void shmem_clear_cache_inv(void)
{
}

void shmem_clear_cache_line_inv(void *dest)
{
	(void)dest;
}

void shmem_udcflush(void)
{
}

void shmem_udcflush_line(void *dest)
{
	(void)dest;
}

/* ---- extensions (shmemx.h) -------------------------------------------------- */

double shmemx_wtime(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

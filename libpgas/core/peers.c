// SPDX-License-Identifier: MIT
/*
 * peers.c - an endpoint's table of peer entries, one per eid of the job
 * (struct pgas__peer, pgas_fast.h): the ranks' primaries first, then every
 * eid an endpoint may be created with, unresolved until this endpoint
 * meets it (ep.c).
 *
 * An unresolved entry must be valid for the inline calls, which index the
 * table without asking: its ring control is a dummy whose tail takes
 * tickets, and its credit cache sends every such ticket out of line, where
 * the eid is resolved.  Every unresolved entry is the same 128 bytes, and
 * there are nranks * (PGAS_EP_MAX - 1) of them in every table of every
 * rank: 2 MiB per rank at 1024 ranks, 2 GiB on the host, the one part of a
 * rank's memory that grew with the job's size squared.
 *
 * So the table's whole pages of unresolved entries are private mappings of
 * one template (a memfd of TEMPLATE_BYTES of unresolved entries, made once
 * per process): reading them costs one copy in the page cache, and a page
 * becomes this process's own, copy on write, only where an entry on it is
 * resolved.  The template is sealed (no write, truncation or growth):
 * a page not yet copied shows what the file holds, so nothing may change
 * it; and each table checks, before mapping it, that the descriptor is
 * still the template.  Where the template cannot be made or mapped, the
 * entries are written as before.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include "internal.h"

/* The template's size: a table maps it every TEMPLATE_BYTES (VMAs: 32 per
 * table at 1024 ranks and PGAS_EP_MAX 16), and each process keeps one copy. */
#define TEMPLATE_BYTES ((size_t)64 << 10)

/* Every unresolved entry's ring control: its tail takes dummy tickets. */
static struct pgas_ctrl_page dummy_ctrl __attribute__((aligned(PGAS_CACHELINE)));

void pgas__peer_unresolved(struct pgas__peer *p)
{
	memset(p, 0, sizeof(*p));
	p->ctrl = &dummy_ctrl;
	/* t - head_seen > mbox_mask for every dummy ticket t. */
	for (unsigned ch = 0; ch < PGAS_NCHAN; ch++)
		p->head_seen[ch] = (uint64_t)1 << 63;
	p->owner = ~0u;
	p->state = PGAS__PEER_UNRESOLVED;
}

static int template_fd = -1;
static dev_t template_dev;
static ino_t template_ino;
static pthread_mutex_t template_lock = PTHREAD_MUTEX_INITIALIZER;

#ifndef MFD_NOEXEC_SEAL
#define MFD_NOEXEC_SEAL 0x0008U	/* Linux 6.3; older kernels say EINVAL */
#endif

/*
 * A sealable memfd, not executable (a kernel with vm.memfd_noexec=2
 * refuses one that may be), at descriptor 3 or above: a process started
 * with 0-2 closed must not read or print through it.
 */
static int template_create(void)
{
	int fd = memfd_create("pgas-peers", MFD_CLOEXEC | MFD_ALLOW_SEALING | MFD_NOEXEC_SEAL);

	if (fd < 0 && errno == EINVAL)
		fd = memfd_create("pgas-peers", MFD_CLOEXEC | MFD_ALLOW_SEALING);
	if (fd >= 0 && fd < 3) {
		int high = fcntl(fd, F_DUPFD_CLOEXEC, 3);

		close(fd);
		fd = high;
	}
	return fd;
}

/* Fills and seals a new template; false where it cannot (by pwrite: a
 * shared writable mapping would make the seal fail across a fork). */
static bool template_fill(int fd)
{
	struct pgas__peer *t = malloc(TEMPLATE_BYTES);
	struct stat st;
	bool ok;

	if (!t)
		return false;
	for (size_t i = 0; i < TEMPLATE_BYTES / sizeof(*t); i++)
		pgas__peer_unresolved(&t[i]);
	ok = pwrite(fd, t, TEMPLATE_BYTES, 0) == (ssize_t)TEMPLATE_BYTES &&
	     !fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE | F_SEAL_SEAL) &&
	     !fstat(fd, &st);
	free(t);
	if (ok) {
		template_dev = st.st_dev;
		template_ino = st.st_ino;
	}
	return ok;
}

/*
 * The template's descriptor, made on first use; -1 where it cannot be
 * (or is no longer ours: then every later table is written by hand).
 */
static int template(void)
{
	static bool tried;
	struct stat st;
	int fd;

	pthread_mutex_lock(&template_lock);
	if (!tried) {
		tried = true;
		fd = template_create();
		if (fd >= 0 && !template_fill(fd))
			close(fd);
		else
			template_fd = fd;
	}
	fd = template_fd;
	/* Still ours?  (A close by someone else, its number reused.) */
	if (fd >= 0 && (fstat(fd, &st) || st.st_dev != template_dev || st.st_ino != template_ino ||
			st.st_size != (off_t)TEMPLATE_BYTES))
		fd = template_fd = -1;
	pthread_mutex_unlock(&template_lock);
	return fd;
}

static size_t table_bytes(unsigned ntargets)
{
	return PGAS__ALIGN_UP((size_t)ntargets * sizeof(struct pgas__peer),
			      (size_t)sysconf(_SC_PAGESIZE));
}

/* What a template page must hold where it was mapped (its first entry). */
static bool is_unresolved(const struct pgas__peer *p)
{
	return p->ctrl == &dummy_ctrl && p->head_seen[0] == (uint64_t)1 << 63 &&
	       p->owner == ~0u && p->state == PGAS__PEER_UNRESOLVED;
}

/* Maps [from, bytes) of t to the template: 1 done, 0 no template (nothing
 * mapped), -1 a mapping failed or holds something else. */
static int map_template(char *t, size_t from, size_t bytes)
{
	int fd = template();

	if (fd < 0)
		return 0;
	for (size_t off = from; off < bytes; off += TEMPLATE_BYTES) {
		size_t len = bytes - off < TEMPLATE_BYTES ? bytes - off : TEMPLATE_BYTES;

		/* The number checked by template() may have changed hands
		 * since: what was mapped is checked too. */
		if (mmap(t + off, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_FIXED, fd, 0) ==
			    MAP_FAILED ||
		    !is_unresolved((const struct pgas__peer *)(t + off)))
			return -1;
	}
	return 1;
}

struct pgas__peer *pgas__peer_table_new(unsigned ntargets, unsigned nranks)
{
	size_t bytes = table_bytes(ntargets);
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	/* The first whole page past the primaries' entries. */
	size_t from = PGAS__ALIGN_UP((size_t)nranks * sizeof(struct pgas__peer), page);
	unsigned first = (unsigned)(from / sizeof(struct pgas__peer));
	struct pgas__peer *t = mmap(NULL, bytes, PROT_READ | PROT_WRITE,
				    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (t == MAP_FAILED)
		return NULL;
	if (first > ntargets)
		first = ntargets;
	for (unsigned i = nranks; i < first; i++)
		pgas__peer_unresolved(&t[i]);
	switch (from < bytes ? map_template((char *)t, from, bytes) : 1) {
	case 0:		/* no template: the entries by hand, in place */
		for (unsigned i = first; i < ntargets; i++)
			pgas__peer_unresolved(&t[i]);
		break;
	case -1:	/* a fresh table, written by hand */
		munmap(t, bytes);
		t = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (t == MAP_FAILED)
			return NULL;
		for (unsigned i = nranks; i < ntargets; i++)
			pgas__peer_unresolved(&t[i]);
		break;
	}
	return t;
}

void pgas__peer_table_free(struct pgas__peer *t, unsigned ntargets)
{
	if (t)
		munmap(t, table_bytes(ntargets));
}

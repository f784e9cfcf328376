// SPDX-License-Identifier: MIT
/*
 * stencil - Jacobi iteration of the 2-D Laplace equation (the 5-point
 * stencil) on an N x N grid with zero boundary, tiles on a px x py grid of
 * ranks, halos exchanged by put + signal (docs/apps.md):
 *
 *   u'(i,j) = (u(i-1,j) + u(i+1,j) + u(i,j-1) + u(i,j+1)) / 4
 *
 * Verification needs no reference run: m_ab(i,j) = sin(a pi (i+1) / (N+1))
 * sin(b pi (j+1) / (N+1)) is an eigenvector of the iteration with the
 * eigenvalue l_ab = (cos(a pi / (N+1)) + cos(b pi / (N+1))) / 2, so from
 * u0 = m_11 + m_22 / 2 the grid after K steps is l_11^K m_11 + l_22^K m_22 / 2
 * everywhere.  m_22 (odd about the centre lines) makes it asymmetric: with
 * m_11 alone, a tile edge on either centre line equals the halo it
 * receives, and a run that moves no data verifies.  A halo missing, misplaced or stale at every step moves
 * points away from it by at least ~pi^2 / 8 (N+1)^2 of their value, above
 * the check's 1e-10 of the largest value for N up to 16384 (the bound); a
 * one-off error at large N may diffuse below it by the end.  K is bounded
 * so that l_11^K stays a normal number.
 *
 * The same source over libpgas, our OpenSHMEM and MPI (apps/common/comm.h).
 */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/clock.h"
#include "../common/comm.h"

const char comm_program[] = "stencil";

enum { WEST, EAST, SOUTH, NORTH };	/* x-1, x+1, y-1, y+1 */

struct st {
	size_t n, iters;
	unsigned me, nranks, px, py, rx, ry;
	size_t x0, y0, w, h;		/* my tile: [x0, x0+w) x [y0, y0+h) */
	size_t wmax, hmax, stride;	/* the largest tile; a grid row's length */
	int nb[4];			/* neighbour rank, or -1 at the boundary */
	char *area;
	size_t grid_off[2];		/* two grids of (hmax+2) rows, halos included */
	size_t col_off[2][2];		/* [parity][WEST/EAST]: received columns */
	size_t sig_off[4];		/* deliveries from each side, cumulative */
	double *col_send[2][2];		/* [parity][side]: packed columns (local) */
	double t_init, t_done;
};

/* [lo, hi) of block i of n split into p. */
static size_t block_lo(size_t n, unsigned p, unsigned i)
{
	return n * i / p;
}

static double *grid(struct st *s, unsigned g)
{
	return (double *)(s->area + s->grid_off[g]);
}

/* The row of the grid at y (0: the south halo, h+1: the north one). */
static size_t row_off(const struct st *s, unsigned g, size_t y)
{
	return s->grid_off[g] + y * s->stride * sizeof(double);
}

/* The height of the tile of the rank at (rx, ry). */
static size_t tile_h(const struct st *s, unsigned ry)
{
	return block_lo(s->n, s->py, ry + 1) - block_lo(s->n, s->py, ry);
}

/* Posts the receives (MPI; nothing for the one-sided libraries) of grid g's
 * halos, in the order the neighbours send them. */
static void expect_halos(struct st *s, unsigned g, unsigned parity)
{
	double t = now();

	if (s->nb[SOUTH] >= 0)
		comm_expect((unsigned)s->nb[SOUTH], row_off(s, g, 0) + sizeof(double), s->w * 8);
	if (s->nb[NORTH] >= 0)
		comm_expect((unsigned)s->nb[NORTH], row_off(s, g, s->h + 1) + sizeof(double), s->w * 8);
	if (s->nb[WEST] >= 0)
		comm_expect((unsigned)s->nb[WEST], s->col_off[parity][WEST], s->h * 8);
	if (s->nb[EAST] >= 0)
		comm_expect((unsigned)s->nb[EAST], s->col_off[parity][EAST], s->h * 8);
	s->t_init += now() - t;
}

/* Grid g's boundary rows and columns into the neighbours' halos of g; the
 * columns through their received-column buffers of this parity. */
static void send_halos(struct st *s, unsigned g, unsigned parity)
{
	double *u = grid(s, g), t;
	size_t st = s->stride;

	for (unsigned side = WEST; side <= EAST; side++) {
		size_t x = side == WEST ? 1 : s->w;

		if (s->nb[side] < 0)
			continue;
		for (size_t y = 0; y < s->h; y++)
			s->col_send[parity][side][y] = u[(y + 1) * st + x];
	}
	t = now();
	if (s->nb[SOUTH] >= 0)	/* my first row: the south one's north halo */
		comm_put_signal((unsigned)s->nb[SOUTH],
				row_off(s, g, tile_h(s, s->ry - 1) + 1) + sizeof(double),
				&u[st + 1], s->w * 8, s->sig_off[NORTH]);
	if (s->nb[NORTH] >= 0)
		comm_put_signal((unsigned)s->nb[NORTH], row_off(s, g, 0) + sizeof(double),
				&u[s->h * st + 1], s->w * 8, s->sig_off[SOUTH]);
	if (s->nb[WEST] >= 0)	/* my west column: the west one's east column */
		comm_put_signal((unsigned)s->nb[WEST], s->col_off[parity][EAST],
				s->col_send[parity][WEST], s->h * 8, s->sig_off[EAST]);
	if (s->nb[EAST] >= 0)
		comm_put_signal((unsigned)s->nb[EAST], s->col_off[parity][WEST],
				s->col_send[parity][EAST], s->h * 8, s->sig_off[WEST]);
	s->t_init += now() - t;
}

/* Waits for the k-th delivery from every neighbour, then puts the
 * received columns into grid g's halo columns. */
static void receive_halos(struct st *s, unsigned g, unsigned parity, uint64_t k)
{
	size_t sigs[4];
	unsigned n = 0;
	double *u = grid(s, g), t = now();

	for (unsigned side = 0; side < 4; side++)
		if (s->nb[side] >= 0)
			sigs[n++] = s->sig_off[side];
	comm_wait_signals(sigs, n, k);
	s->t_done += now() - t;
	for (unsigned side = WEST; side <= EAST; side++) {
		const double *c = (const double *)(s->area + s->col_off[parity][side]);
		size_t x = side == WEST ? 0 : s->w + 1;

		if (s->nb[side] < 0)
			continue;
		for (size_t y = 0; y < s->h; y++)
			u[(y + 1) * s->stride + x] = c[y];
	}
}

static void sweep(struct st *s, unsigned from)
{
	const double *u = grid(s, from);
	double *v = grid(s, from ^ 1);
	size_t st = s->stride;

	for (size_t y = 1; y <= s->h; y++)
		for (size_t x = 1; x <= s->w; x++)
			v[y * st + x] = 0.25 * (u[y * st + x - 1] + u[y * st + x + 1] +
						u[(y - 1) * st + x] + u[(y + 1) * st + x]);
}

#define PI 3.141592653589793238

static double eigenvalue(const struct st *s, double a, double b)
{
	double k = PI / (double)(s->n + 1);

	return (cos(a * k) + cos(b * k)) / 2;
}

/* The grid at (gx, gy) after t steps: l_11^t m_11 + l_22^t m_22 / 2. */
static double exact(const struct st *s, size_t gx, size_t gy, double t)
{
	double k = PI / (double)(s->n + 1), x = (double)(gx + 1), y = (double)(gy + 1);

	return pow(eigenvalue(s, 1, 1), t) * sin(k * x) * sin(k * y) +
	       pow(eigenvalue(s, 2, 2), t) * sin(2 * k * x) * sin(2 * k * y) / 2;
}

static void usage_fail(const char *msg)
{
	comm_fail("stencil", msg);
}

static void parse(struct st *s, int argc, char **argv)
{
	char msg[160], *end;

	s->n = 1024;
	s->iters = 200;
	for (int i = 1; i < argc; i++) {
		unsigned long long v = 0, max;

		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			if (comm_rank() == 0)
				printf("usage: stencil [--n N] [--iters K]\n"
				       "Jacobi 5-point stencil on N x N (default 1024), K steps (200),\n"
				       "halos by put + signal over %s; exits 0 only when it verifies.\n",
				       comm_name);
			comm_finish(0);
		}
		if ((strcmp(argv[i], "--n") && strcmp(argv[i], "--iters")) || i + 1 == argc) {
			snprintf(msg, sizeof(msg), "unknown or incomplete argument '%s' (--help)", argv[i]);
			usage_fail(msg);
		}
		/* Bounds that keep a one-step-stale halo (a relative error of
		 * pi^2 / 8 (N+1)^2) well above the rounding of K steps. */
		max = strcmp(argv[i], "--n") ? 100000 : 16384;
		v = strtoull(argv[i + 1], &end, 10);
		if (*end || argv[i + 1][0] == '-' || v == 0 || v > max) {
			snprintf(msg, sizeof(msg), "%s '%s': a number from 1 to %llu", argv[i],
				 argv[i + 1], max);
			usage_fail(msg);
		}
		if (!strcmp(argv[i], "--n"))
			s->n = v;
		else
			s->iters = v;
		i++;
	}
}

int main(int argc, char **argv)
{
	struct st s = { 0 };
	size_t gsize, off = 0;
	double t0, t, err = 0, peak = 0, sum = 0, res[3];
	char msg[200];

	comm_init(&argc, &argv);
	s.me = comm_rank();
	s.nranks = comm_size();
	parse(&s, argc, argv);
	/* The most nearly square px x py. */
	for (unsigned p = 1; p * p <= s.nranks; p++)
		if (s.nranks % p == 0)
			s.px = p;
	s.py = s.nranks / s.px;
	if (s.n < 4 || -log(eigenvalue(&s, 1, 1)) * (double)s.iters > 600) {
		snprintf(msg, sizeof(msg), "--n %zu --iters %zu: N from 4, and K at most %.0f for "
			 "this N (the answer decays below normal numbers)", s.n, s.iters,
			 s.n < 4 ? 0 : floor(600 / -log(eigenvalue(&s, 1, 1))));
		usage_fail(msg);
	}
	if (s.n < s.px || s.n < s.py) {
		snprintf(msg, sizeof(msg), "--n %zu: too small for %u x %u ranks", s.n, s.px, s.py);
		usage_fail(msg);
	}
	s.rx = s.me % s.px;
	s.ry = s.me / s.px;
	s.x0 = block_lo(s.n, s.px, s.rx);
	s.y0 = block_lo(s.n, s.py, s.ry);
	s.w = block_lo(s.n, s.px, s.rx + 1) - s.x0;
	s.h = tile_h(&s, s.ry);
	s.wmax = (s.n + s.px - 1) / s.px;
	s.hmax = (s.n + s.py - 1) / s.py;
	s.stride = s.wmax + 2;
	s.nb[WEST] = s.rx > 0 ? (int)(s.me - 1) : -1;
	s.nb[EAST] = s.rx + 1 < s.px ? (int)(s.me + 1) : -1;
	s.nb[SOUTH] = s.ry > 0 ? (int)(s.me - s.px) : -1;
	s.nb[NORTH] = s.ry + 1 < s.py ? (int)(s.me + s.px) : -1;

	/* The area: the same offsets on every rank (sized for the largest tile). */
	gsize = (s.hmax + 2) * s.stride * sizeof(double);
	for (unsigned g = 0; g < 2; g++, off += gsize)
		s.grid_off[g] = off;
	for (unsigned p = 0; p < 2; p++)
		for (unsigned c = 0; c < 2; c++, off += s.hmax * sizeof(double))
			s.col_off[p][c] = off;
	for (unsigned d = 0; d < 4; d++, off += 64)	/* a line each */
		s.sig_off[d] = off;
	s.area = comm_area(off);
	memset(s.area, 0, off);	/* zero halos: the boundary; zero counts */
	for (unsigned p = 0; p < 2; p++)
		for (unsigned c = 0; c < 2; c++) {
			s.col_send[p][c] = malloc(s.hmax * sizeof(double) + 1);
			if (!s.col_send[p][c])
				usage_fail("no memory for the column buffers");
		}
	for (size_t y = 0; y < s.h; y++)
		for (size_t x = 0; x < s.w; x++)
			grid(&s, 0)[(y + 1) * s.stride + x + 1] = exact(&s, s.x0 + x, s.y0 + y, 0);
	comm_barrier();	/* every area zeroed before any halo arrives */

	if (s.me == 0)
		printf("\n stencil: Jacobi 5-point, %zu x %zu grid, %zu steps, %u ranks (%u x %u) "
		       "over %s\n", s.n, s.n, s.iters, s.nranks, s.px, s.py, comm_name);
	t0 = now();
	expect_halos(&s, 0, 0);
	send_halos(&s, 0, 0);
	for (size_t k = 0; k < s.iters; k++) {
		unsigned g = k & 1;

		receive_halos(&s, g, g, k + 1);
		expect_halos(&s, g ^ 1, g ^ 1);
		sweep(&s, g);
		send_halos(&s, g ^ 1, g ^ 1);
	}
	receive_halos(&s, s.iters & 1, s.iters & 1, s.iters + 1);
	t = now() - t0;

	for (size_t y = 0; y < s.h; y++)
		for (size_t x = 0; x < s.w; x++) {
			double want = exact(&s, s.x0 + x, s.y0 + y, (double)s.iters);
			double got = grid(&s, s.iters & 1)[(y + 1) * s.stride + x + 1];

			err = fmax(err, fabs(got - want));
			peak = fmax(peak, fabs(want));
			sum += got;
		}
	res[0] = err;
	res[1] = peak;
	res[2] = t;
	comm_max(res, 3);
	comm_sum(&sum, 1);
	{
		double c[2] = { s.t_init, s.t_done };
		int ok = res[0] <= 1e-10 * res[1];

		comm_sum(c, 2);
		if (s.me == 0) {
			printf(" Sum of the grid  = %22.12E\n", sum);
			printf(" Largest error    = %22.3E (of %.6E)\n", res[0], res[1]);
			printf(" Time in seconds  = %22.4f\n", res[2]);
			printf(" Mpoint updates/s = %22.2f\n",
			       1e-6 * (double)s.n * (double)s.n * (double)s.iters / res[2]);
			printf(" Comm initiation  = %22.6f\n", c[0] / s.nranks);
			printf(" Comm completion  = %22.6f\n", c[1] / s.nranks);
			printf(" Library          = %22s\n", comm_name);
			printf(" Verification     = %22s\n", ok ? "SUCCESSFUL" : "UNSUCCESSFUL");
			fflush(stdout);
		}
		for (unsigned p = 0; p < 2; p++)
			for (unsigned c2 = 0; c2 < 2; c2++)
				free(s.col_send[p][c2]);
		comm_finish(ok ? 0 : 1);
	}
}

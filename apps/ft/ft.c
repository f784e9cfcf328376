// SPDX-License-Identifier: MIT
/*
 * ft - NAS FT (NPB 3): the time-stepping of the heat equation by 3-D
 * complex FFTs, written from the benchmark's definition, with the 1-D
 * FFTs by FFTW and three ways to move the transposes' data (the overlap
 * paper, ../shared/papers/003; docs/apps.md):
 *
 *   exchange  every row FFT of a transpose first, then one all-to-all
 *   slabs     each plane's block for a rank sent as soon as it is done
 *   pencils   each row sent as soon as it is done
 *
 * This file is the whole program but for the library's calls, which are
 * behind comm.h: the same source makes ft (libpgas), ft-shmem (our
 * OpenSHMEM) and ft-mpi.
 *
 * Layouts (x fastest; T ranks, rank r):
 *   S  space:     [z in r's nz/T planes][y][x]      the initial data, the
 *                                                  inverse's result
 *   F  frequency: [z][y in r's ny/T][x]             the forward's result, u0
 *   W  work:      F's layout, u0 * twiddle^t, the inverse's input
 *   X  the exchange variant's packing buffer
 * All four are in the symmetric area: F and S are written by peers, W and
 * X are the all-to-all's source and destination.
 */
#define _POSIX_C_SOURCE 200809L
#include <complex.h>	/* first: fftw_complex is then complex double */
#include <fftw3.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/clock.h"
#include "../common/comm.h"
#include "../common/npb_rand.h"

const char comm_program[] = "ft";

enum variant { EXCHANGE, SLABS, PENCILS };
static const char *const variant_name[] = { "exchange", "slabs", "pencils" };

/* NPB 3's classes and their published checksums (real, imaginary). */
struct ft_class {
	char name;
	unsigned nx, ny, nz, niter;
	double sums[20][2];
};
static const struct ft_class classes[] = {
	{ 'S', 64, 64, 64, 6, {
		{ 554.6087004964, 484.5363331978 }, { 554.6385409189, 486.5304269511 },
		{ 554.6148406171, 488.3910722336 }, { 554.5423607415, 490.1273169046 },
		{ 554.4255039624, 491.7475857993 }, { 554.2683411902, 493.2597244941 } } },
	{ 'W', 128, 128, 32, 6, {
		{ 567.3612178944, 529.3246849175 }, { 563.1436885271, 528.2149986629 },
		{ 559.4024089970, 527.0996558037 }, { 556.0698047020, 526.0027904925 },
		{ 553.0898991250, 524.9400845633 }, { 550.4159734538, 523.9212247086 } } },
	{ 'A', 256, 256, 128, 6, {
		{ 504.6735008193, 511.4047905510 }, { 505.9412319734, 509.8809666433 },
		{ 506.9376896287, 509.8144042213 }, { 507.7892868474, 510.1336130759 },
		{ 508.5233095391, 510.4914655194 }, { 509.1487099959, 510.7917842803 } } },
	{ 'B', 512, 256, 256, 20, {
		{ 517.7643571579, 507.7803458597 }, { 515.4521291263, 508.8249431599 },
		{ 514.6409228649, 509.6208912659 }, { 514.2378756213, 510.1023387619 },
		{ 513.9626667737, 510.3976610617 }, { 513.7423460082, 510.5948019802 },
		{ 513.5547056878, 510.7404165783 }, { 513.3910925466, 510.8576573661 },
		{ 513.2470705390, 510.9577278523 }, { 513.1197729984, 511.0460304483 },
		{ 513.0070319283, 511.1252433800 }, { 512.9070537032, 511.1968077718 },
		{ 512.8182883502, 511.2616233064 }, { 512.7393733383, 511.3203605551 },
		{ 512.6691062020, 511.3735928093 }, { 512.6064276004, 511.4218460548 },
		{ 512.5504076570, 511.4656139760 }, { 512.5002331720, 511.5053595966 },
		{ 512.4551951846, 511.5415130407 }, { 512.4146770029, 511.5744692211 } } },
};

#define FT_SEED 314159265u
#define FT_ALPHA 1.0e-6
#define FT_EPSILON 1.0e-12

struct ft {
	const struct ft_class *cls;
	enum variant variant;
	size_t nx, ny, nz, nzl, nyl, nloc;	/* nloc: elements of each array */
	unsigned me, nranks;
	fftw_complex *area, *S, *F, *W, *X;
	size_t s_off, f_off, w_off, x_off;	/* element offsets in the area */
	double *twiddle;		/* [z][y_loc][x]: exp(ap |k|^2) */
	fftw_plan y_fwd, y_bwd;		/* one plane of S along y */
	fftw_plan x_fwd, x_bwd;		/* one row along x */
	fftw_plan z_fwd, z_bwd;		/* F (W) along z */
	int fft_on;			/* 0: the transposes' data movement alone */
	double t_init, t_done;		/* communication: initiation, completion */
	complex double sums[20];
};

static void fft_row(struct ft *f, fftw_plan p, fftw_complex *row)
{
	if (f->fft_on)
		fftw_execute_dft(p, row, row);
}

/* n elements at src to rank's area at element offset off; a copy to self. */
static void send(struct ft *f, unsigned rank, size_t off, const fftw_complex *src, size_t n)
{
	double t;

	if (rank == f->me) {
		memcpy(f->area + off, src, n * sizeof(*src));
		return;
	}
	t = now();
	comm_put(rank, off * sizeof(*src), src, n * sizeof(*src));
	f->t_init += now() - t;
}

static void expect(struct ft *f, unsigned rank, size_t off, size_t n)
{
	double t = now();

	comm_expect(rank, off * sizeof(fftw_complex), n * sizeof(fftw_complex));
	f->t_init += now() - t;
}

static void complete(struct ft *f)
{
	double t = now();

	comm_complete();
	f->t_done += now() - t;
}

static void exchange(struct ft *f, size_t dst_off, size_t src_off)
{
	double t = now();

	comm_exchange(dst_off * sizeof(fftw_complex), src_off * sizeof(fftw_complex),
		      f->nzl * f->nyl * f->nx * sizeof(fftw_complex));
	f->t_done += now() - t;
}

/*
 * Forward transpose: the x FFT of every row of S (whose y FFTs are done),
 * each row (z, y) going to F[z][y - q nyl] of q, the owner of y.  The
 * receives are posted first, in the order each sender sends.
 */
static void transpose_fwd(struct ft *f)
{
	size_t nx = f->nx, ny = f->ny, nyl = f->nyl, nzl = f->nzl, z0 = f->me * nzl;

	if (f->variant != EXCHANGE)
		for (unsigned s = 0; s < f->nranks; s++)
			for (size_t zl = 0; s != f->me && zl < nzl; zl++) {
				size_t z = s * nzl + zl;

				if (f->variant == SLABS)
					expect(f, s, f->f_off + z * nyl * nx, nyl * nx);
				else
					for (size_t yl = 0; yl < nyl; yl++)
						expect(f, s, f->f_off + (z * nyl + yl) * nx, nx);
			}
	for (size_t zl = 0; zl < nzl; zl++) {
		size_t z = z0 + zl;

		for (unsigned q = 0; q < f->nranks; q++) {
			fftw_complex *slab = f->S + (zl * ny + q * nyl) * nx;

			for (size_t yl = 0; yl < nyl; yl++) {
				fft_row(f, f->x_fwd, slab + yl * nx);
				if (f->variant == PENCILS)
					send(f, q, f->f_off + (z * nyl + yl) * nx, slab + yl * nx, nx);
			}
			if (f->variant == SLABS)
				send(f, q, f->f_off + z * nyl * nx, slab, nyl * nx);
		}
	}
	if (f->variant != EXCHANGE) {
		complete(f);
		return;
	}
	/* X[q] = [zl][yl][x] of q's rows: F[q] takes it as it is. */
	for (unsigned q = 0; q < f->nranks; q++)
		for (size_t zl = 0; zl < nzl; zl++)
			memcpy(f->X + (q * nzl + zl) * nyl * nx, f->S + (zl * ny + q * nyl) * nx,
			       nyl * nx * sizeof(fftw_complex));
	exchange(f, f->f_off, f->x_off);
}

/*
 * Inverse transpose: the x FFT of every row of W (whose z FFTs are done),
 * each row (z, y_loc) going to S[z - d nzl][me nyl + y_loc] of d, the owner
 * of z.
 */
static void transpose_inv(struct ft *f)
{
	size_t nx = f->nx, ny = f->ny, nyl = f->nyl, nzl = f->nzl, y0 = f->me * nyl;

	if (f->variant != EXCHANGE)
		for (unsigned s = 0; s < f->nranks; s++)
			for (size_t zl = 0; s != f->me && zl < nzl; zl++) {
				size_t at = f->s_off + (zl * ny + s * nyl) * nx;

				if (f->variant == SLABS)
					expect(f, s, at, nyl * nx);
				else
					for (size_t yl = 0; yl < nyl; yl++)
						expect(f, s, at + yl * nx, nx);
			}
	for (size_t z = 0; z < f->nz; z++) {
		unsigned d = (unsigned)(z / nzl);
		size_t at = f->s_off + ((z - d * nzl) * ny + y0) * nx;
		fftw_complex *slab = f->W + z * nyl * nx;

		for (size_t yl = 0; yl < nyl; yl++) {
			fft_row(f, f->x_bwd, slab + yl * nx);
			if (f->variant == PENCILS)
				send(f, d, at + yl * nx, slab + yl * nx, nx);
		}
		if (f->variant == SLABS)
			send(f, d, at, slab, nyl * nx);
	}
	if (f->variant != EXCHANGE) {
		complete(f);
		return;
	}
	/* W's block for d is contiguous; X[s] arrives as [zl][yl][x]. */
	exchange(f, f->x_off, f->w_off);
	for (unsigned s = 0; s < f->nranks; s++)
		for (size_t zl = 0; zl < nzl; zl++)
			memcpy(f->S + (zl * ny + s * nyl) * nx, f->X + (s * nzl + zl) * nyl * nx,
			       nyl * nx * sizeof(fftw_complex));
}

static void fft_forward(struct ft *f)
{
	for (size_t zl = 0; zl < f->nzl; zl++)
		fftw_execute_dft(f->y_fwd, f->S + zl * f->ny * f->nx, f->S + zl * f->ny * f->nx);
	transpose_fwd(f);
	fftw_execute(f->z_fwd);
}

static void fft_inverse(struct ft *f)
{
	fftw_execute(f->z_bwd);
	transpose_inv(f);
	for (size_t zl = 0; zl < f->nzl; zl++)
		fftw_execute_dft(f->y_bwd, f->S + zl * f->ny * f->nx, f->S + zl * f->ny * f->nx);
}

/* NPB's initial conditions: the stream from the seed fills x, then y,
 * then z, two numbers (real, imaginary) per element. */
static void initial_conditions(struct ft *f)
{
	size_t plane = f->nx * f->ny;
	uint64_t a_plane = npb_pow46(NPB_A, 2 * plane);
	uint64_t x = npb_mul46(FT_SEED, npb_pow46(NPB_A, 2 * plane * f->me * f->nzl));

	for (size_t zl = 0; zl < f->nzl; zl++) {
		uint64_t x0 = x;

		npb_vranlc(2 * plane, &x0, NPB_A, (double *)(f->S + zl * plane));
		x = npb_mul46(x, a_plane);
	}
}

/* exp(-4 alpha pi^2 |k|^2) with k the signed frequencies of F's element. */
static void compute_twiddle(struct ft *f)
{
	const double pi = 3.141592653589793238, ap = -4.0 * FT_ALPHA * pi * pi;
	size_t i = 0;

	for (size_t z = 0; z < f->nz; z++) {
		long kz = (long)((z + f->nz / 2) % f->nz) - (long)(f->nz / 2);

		for (size_t yl = 0; yl < f->nyl; yl++) {
			size_t y = f->me * f->nyl + yl;
			long ky = (long)((y + f->ny / 2) % f->ny) - (long)(f->ny / 2);

			for (size_t x = 0; x < f->nx; x++, i++) {
				long kx = (long)((x + f->nx / 2) % f->nx) - (long)(f->nx / 2);

				f->twiddle[i] = exp(ap * (double)(kx * kx + ky * ky + kz * kz));
			}
		}
	}
}

/* u0 *= twiddle; W = u0. */
static void evolve(struct ft *f)
{
	for (size_t i = 0; i < f->nloc; i++)
		f->W[i] = f->F[i] *= f->twiddle[i];
}

/* NPB's checksum: 1024 elements spread over the cube, summed on every
 * rank, over the number of elements (the inverse FFT is unnormalised). */
static complex double checksum(struct ft *f)
{
	complex double sum = 0;
	double s[2];
	size_t z0 = f->me * f->nzl;

	for (size_t j = 1; j <= 1024; j++) {
		size_t x = j % f->nx, y = 3 * j % f->ny, z = 5 * j % f->nz;

		if (z >= z0 && z < z0 + f->nzl)
			sum += f->S[((z - z0) * f->ny + y) * f->nx + x];
	}
	s[0] = creal(sum);
	s[1] = cimag(sum);
	comm_sum(s, 2);
	return CMPLX(s[0], s[1]) / (double)(f->nx * f->ny * f->nz);
}

static int verify(const struct ft *f)
{
	for (unsigned t = 0; t < f->cls->niter; t++) {
		complex double want = CMPLX(f->cls->sums[t][0], f->cls->sums[t][1]);

		if (!(cabs((f->sums[t] - want) / want) <= FT_EPSILON))
			return 0;
	}
	return 1;
}

static void make_plans(struct ft *f)
{
	int nx = (int)f->nx, ny = (int)f->ny, nz = (int)f->nz;
	int zn = (int)(f->nyl * f->nx);
	unsigned fl = FFTW_ESTIMATE;

	f->y_fwd = fftw_plan_many_dft(1, &ny, nx, f->S, NULL, nx, 1, f->S, NULL, nx, 1,
				      FFTW_FORWARD, fl);
	f->y_bwd = fftw_plan_many_dft(1, &ny, nx, f->S, NULL, nx, 1, f->S, NULL, nx, 1,
				      FFTW_BACKWARD, fl);
	f->x_fwd = fftw_plan_dft_1d(nx, f->S, f->S, FFTW_FORWARD, fl);
	f->x_bwd = fftw_plan_dft_1d(nx, f->W, f->W, FFTW_BACKWARD, fl);
	f->z_fwd = fftw_plan_many_dft(1, &nz, zn, f->F, NULL, zn, 1, f->F, NULL, zn, 1,
				      FFTW_FORWARD, fl);
	f->z_bwd = fftw_plan_many_dft(1, &nz, zn, f->W, NULL, zn, 1, f->W, NULL, zn, 1,
				      FFTW_BACKWARD, fl);
	if (!f->y_fwd || !f->y_bwd || !f->x_fwd || !f->x_bwd || !f->z_fwd || !f->z_bwd)
		comm_fail("fftw_plan_many_dft", "FFTW made no plan");
}

static void usage(FILE *to)
{
	fprintf(to, "usage: ft --class S|W|A|B --variant exchange|slabs|pencils\n"
		"NAS FT (NPB 3) over %s; exits 0 only when the checksums verify.\n", comm_name);
}

static void parse(struct ft *f, int argc, char **argv)
{
	const char *cls = NULL, *var = NULL;
	char msg[160];

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			if (comm_rank() == 0)
				usage(stdout);
			comm_finish(0);
		} else if (!strcmp(argv[i], "--class") && i + 1 < argc) {
			cls = argv[++i];
		} else if (!strcmp(argv[i], "--variant") && i + 1 < argc) {
			var = argv[++i];
		} else {
			snprintf(msg, sizeof(msg), "unknown or incomplete argument '%s' (--help)",
				 argv[i]);
			comm_fail("ft", msg);
		}
	}
	f->cls = NULL;
	for (size_t c = 0; cls && c < sizeof(classes) / sizeof(classes[0]); c++)
		if (cls[0] == classes[c].name && !cls[1])
			f->cls = &classes[c];
	if (!f->cls) {
		snprintf(msg, sizeof(msg), "--class '%s': one of S, W, A, B", cls ? cls : "(none)");
		comm_fail("ft", msg);
	}
	f->variant = (enum variant)3;
	for (unsigned v = 0; var && v < 3; v++)
		if (!strcmp(var, variant_name[v]))
			f->variant = (enum variant)v;
	if (f->variant > PENCILS) {
		snprintf(msg, sizeof(msg), "--variant '%s': one of exchange, slabs, pencils",
			 var ? var : "(none)");
		comm_fail("ft", msg);
	}
}

int main(int argc, char **argv)
{
	struct ft f = { 0 };
	double t0, t, comm[3], tmax;
	char msg[160];
	int ok;

	comm_init(&argc, &argv);
	f.me = comm_rank();
	f.nranks = comm_size();
	parse(&f, argc, argv);
	f.nx = f.cls->nx;
	f.ny = f.cls->ny;
	f.nz = f.cls->nz;
	if (f.ny % f.nranks || f.nz % f.nranks) {
		snprintf(msg, sizeof(msg), "class %c (%zux%zux%zu) needs a rank count dividing %zu "
			 "and %zu, not %u", f.cls->name, f.nx, f.ny, f.nz, f.ny, f.nz, f.nranks);
		comm_fail("ft", msg);
	}
	f.nzl = f.nz / f.nranks;
	f.nyl = f.ny / f.nranks;
	f.nloc = f.nzl * f.ny * f.nx;
	f.area = comm_area(4 * f.nloc * sizeof(fftw_complex));
	f.s_off = 0;
	f.f_off = f.nloc;
	f.w_off = 2 * f.nloc;
	f.x_off = 3 * f.nloc;
	f.S = f.area + f.s_off;
	f.F = f.area + f.f_off;
	f.W = f.area + f.w_off;
	f.X = f.area + f.x_off;
	f.twiddle = fftw_malloc(f.nloc * sizeof(double));
	if (!f.twiddle)
		comm_fail("ft", "no memory for the twiddle factors");
	make_plans(&f);

	if (f.me == 0)
		printf("\n\n NAS Parallel Benchmarks (NPB 3 definition) - FT Benchmark over %s\n\n"
		       " Size                : %4zux%4zux%4zu\n"
		       " Iterations          : %13u\n"
		       " Number of processes : %13u\n"
		       " Variant             : %13s\n\n",
		       comm_name, f.nx, f.ny, f.nz, f.cls->niter, f.nranks,
		       variant_name[f.variant]);

	/* As NPB: one untimed pass of the set-up and the forward FFT (pages
	 * touched, plans warm), then the timed run from the twiddle on. */
	f.fft_on = 1;
	initial_conditions(&f);
	fft_forward(&f);
	f.t_init = f.t_done = 0;
	comm_barrier();
	t0 = now();
	compute_twiddle(&f);
	initial_conditions(&f);
	fft_forward(&f);
	for (unsigned it = 0; it < f.cls->niter; it++) {
		evolve(&f);
		fft_inverse(&f);
		f.sums[it] = checksum(&f);
		if (f.me == 0)
			printf(" T = %4u     Checksum = %22.12E %22.12E\n", it + 1,
			       creal(f.sums[it]), cimag(f.sums[it]));
	}
	t = now() - t0;
	ok = verify(&f);
	comm[0] = f.t_init;
	comm[1] = f.t_done;

	/* The same transposes without their FFTs: what the communication
	 * costs when nothing hides it. */
	f.fft_on = 0;
	f.t_init = f.t_done = 0;
	comm_barrier();
	transpose_fwd(&f);
	for (unsigned it = 0; it < f.cls->niter; it++) {
		comm_barrier();	/* as the checksum's sum: S is free again */
		transpose_inv(&f);
	}
	comm[2] = f.t_init + f.t_done;
	comm_sum(comm, 3);
	tmax = t;
	comm_max(&tmax, 1);

	if (f.me == 0) {
		double n = (double)(f.nx * f.ny * f.nz);
		double mops = 1e-6 * n * (14.8157 + 7.19641 * log(n) +
					  (5.23518 + 7.21113 * log(n)) * f.cls->niter) / tmax;
		double init = comm[0] / f.nranks, done = comm[1] / f.nranks;
		double alone = comm[2] / f.nranks, hidden = 0;

		if (alone > 0 && init + done < alone)
			hidden = 1 - (init + done) / alone;
		printf(" Result verification %s\n", ok ? "successful" : "failed");
		printf(" class = %c\n\n\n FT Benchmark Completed.\n", f.cls->name);
		printf(" Class           = %24c\n", f.cls->name);
		printf(" Size            =          %4zux%4zux%4zu\n", f.nx, f.ny, f.nz);
		printf(" Iterations      = %24u\n", f.cls->niter);
		printf(" Time in seconds = %24.4f\n", tmax);
		printf(" Total processes = %24u\n", f.nranks);
		printf(" Mop/s total     = %24.2f\n", mops);
		printf(" Mop/s/process   = %24.2f\n", mops / f.nranks);
		printf(" Operation type  = %24s\n", "floating point");
		printf(" Verification    = %24s\n", ok ? "SUCCESSFUL" : "UNSUCCESSFUL");
		printf(" Library         = %24s\n", comm_name);
		printf(" Variant         = %24s\n", variant_name[f.variant]);
		/* The paper's Figure 9: what initiating and completing the
		 * transfers cost, per process, inside the timed run. */
		printf(" Comm initiation = %24.6f\n", init);
		printf(" Comm completion = %24.6f\n", done);
		printf(" Comm share      = %23.1f%%\n", 100 * (init + done) / tmax);
		printf(" Comm alone      = %24.6f\n", alone);
		printf(" Comm hidden     = %23.1f%%\n", 100 * hidden);
		fflush(stdout);
	}
	fftw_destroy_plan(f.y_fwd);
	fftw_destroy_plan(f.y_bwd);
	fftw_destroy_plan(f.x_fwd);
	fftw_destroy_plan(f.x_bwd);
	fftw_destroy_plan(f.z_fwd);
	fftw_destroy_plan(f.z_bwd);
	fftw_free(f.twiddle);
	fftw_cleanup();
	comm_finish(ok ? 0 : 1);
}

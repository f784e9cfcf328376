/* SPDX-License-Identifier: MIT */
/*
 * fork - a PE that forks after shmem_init stays a PE: the child's writes to
 * the program's data (symmetric since shmem_init; libpgas's own state is
 * there too) do not reach the parent, whether the child ends with _exit or
 * exit (which runs the exit handlers in the child), and the parent goes on
 * with contexts (libpgas refuses endpoints to a forked child: a flag the
 * child's fork handler sets was the parent's too) and a clean finalize.
 */
#define _GNU_SOURCE
#include <sys/wait.h>
#include <unistd.h>
#include "stap.h"

static int g = 1;		/* .data */
static long box[4];		/* .bss, symmetric */

static int child_of(int how)
{
	pid_t pid = fork();
	int st = -1;

	if (pid == 0) {
		g = 99;
		box[0] = 99;
		if (how)
			exit(0);
		_exit(0);
	}
	if (pid < 0 || waitpid(pid, &st, 0) != pid)
		return -1;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

int main(void)
{
	shmem_init();
	st_init();
	int me = shmem_my_pe(), n = shmem_n_pes();

	for (int how = 0; how < 2; how++) {
		T_EQ(child_of(how), 0);
		T_EQ(g, 1);
		T_EQ(box[0], 0);
		shmem_ctx_t ctx;

		T_EQ(shmem_ctx_create(SHMEM_CTX_PRIVATE, &ctx), 0);
		shmem_ctx_long_p(ctx, &box[1 + how], me + 10, (me + 1) % n);
		shmem_ctx_quiet(ctx);
		shmem_ctx_destroy(ctx);
		shmem_barrier_all();
		T_EQ(box[1 + how], (me + n - 1) % n + 10);
	}
	st_case("fork after shmem_init (child _exit, then exit): the parent's data and contexts intact");
	return st_done();
}

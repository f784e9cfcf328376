// SPDX-License-Identifier: MIT
/*
 * nosyscall - proves the fast path makes no system calls.
 *
 * After init, attach and a warm-up, every rank installs a seccomp filter
 * that kills the process on any system call but write and exit; then it
 * runs 8-byte puts, gets and nbi puts with their sync, AM Short round trips
 * and barriers with its neighbours, and leaves with pgas_exit(0).  One system call anywhere on that path
 * ends the job with SIGSYS.  Needs PGAS_WAIT_MODE=spin (sleeping is a
 * system call by definition).
 */
#define _GNU_SOURCE
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "tap.h"
#include "pingpong.h"


static int forbid_syscalls(void)
{
	struct sock_filter filter[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 1, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_write, 3, 0),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_exit_group, 2, 0),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_exit, 1, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = { sizeof(filter) / sizeof(filter[0]), filter };

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0))
		return -1;
	return (int)syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog);
}

int main(int argc, char **argv)
{
	static const pgas_handler_entry_t table[] = { PINGPONG_HANDLERS };
	const unsigned iters = argc > 1 ? (unsigned)strtoul(argv[1], NULL, 0) : 20000;
	unsigned me, n, right;
	uint64_t v = 0, *slot;
	int rc = 0;

	setenv("PGAS_WAIT_MODE", "spin", 1);
	if (pgas_init(&argc, &argv) || t_attach(table, 2, 1 << 16))
		return 1;
	me = pgas_rank();
	n = pgas_nranks();
	right = (me + 1) % n;
	slot = (uint64_t *)pgas_segment_addr(right) + me;
	printf("# rank %u: forbidding system calls\n", me);	/* stdio set up before */
	fflush(stdout);
	pgas_barrier(0, 0);
	if (forbid_syscalls()) {
		T_CHECK(0, "seccomp filter not installed");
		t_case("no system calls on the fast path");
		t_done();
	}
	for (unsigned i = 0; i < iters; i++) {
		uint32_t arg = i;

		rc |= pgas_put(right, slot, &i, sizeof(i));
		rc |= pgas_get(&v, right, slot, 8);
		rc |= pgas_put_nbi(right, slot, &v, 8);
		rc |= pgas_wait_syncnbi_puts();
		rc |= pgas_am_request_short(right, H_PING, &arg, 1);
		pgas_block_until(pongs == i + 1);
		if (i % 64 == 0)
			rc |= pgas_barrier(i, 0);
	}
	T_EQ(rc, 0);
	T_EQ(pongs, iters);
	/* t_case is puts, a barrier and printf: no system call but write. */
	t_case("no system call in %u rounds of put, get, nbi put+sync, AM round trip, barrier", iters);
	if (me == 0)
		printf("1..1\n");
	fflush(stdout);
	/* pgas_exit(0) drains, then tells pgasrun with write(2): allowed. */
	pgas_exit(0);
}

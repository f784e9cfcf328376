// SPDX-License-Identifier: MIT
/*
 * pgasrun - starts an N-rank job on this host.
 *
 *   pgasrun -n N [-t SECONDS] [-v] [--] program [args...]   (pgasrun --help)
 *
 * Relays the bootstrap all-gather (libpgas/boot/bootstrap.h), forwards
 * SIGINT/SIGTERM/SIGHUP/SIGQUIT to the ranks, and when a rank exits with a
 * non-zero code or dies of a signal, names it, ends the others (SIGTERM,
 * then SIGKILL after a grace period) and exits non-zero.  Ranks die with
 * the launcher (PR_SET_PDEATHSIG), so no rank outlives it.
 *
 * A rank that joined the job (pgas_init: it sent a bootstrap message) must
 * leave it through pgas_exit(0), exit(0) or a return from main, which tell
 * pgasrun (PGAS_BOOT_FINI): an exit with 0 without that (_exit(0), a crash
 * path) counts as a failure, since ranks may be waiting for it.  A rank that
 * left (PGAS_BOOT_LEAVING) or ended while others wait for it in a bootstrap
 * exchange ends the job too.  Programs that never call pgas_init are free.
 * A rank that ends because pgas.ko reported a peer's death says so first
 * (PGAS_BOOT_PEER_DIED); its end is judged up to a second later, so that
 * the peer that died, usually reaped after it, is the one named.
 *
 * When the conduit the configuration selects (PGAS_CONDUIT) creates jobs
 * (pgas.ko: PGAS_DEVICE), the launcher lets it create the job, passes what
 * it says to the ranks' environment, and holds the job until it ends.
 * pgasrun --version lists the conduits of this build.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "pgas.h"
#include "../conduit/conduit.h"
#include "boot.h"
#include "bootstrap.h"

#define GRACE_MS 2000
#define PGAS_MAX_ENDPOINTS_LAUNCH 1024u

struct rank {
	pid_t pid;
	int sock;		/* our end; -1 once closed */
	bool running;
	bool sent;		/* contributed to the current all-gather */
	bool joined;		/* sent any message: called pgas_init */
	bool left;		/* began pgas_exit(0) */
	bool fini;		/* finalized: may exit with 0 */
	bool peer_died;		/* ends because pgas.ko reported a peer's death */
	bool deferred;		/* its exit waits for the cause to be named */
	bool batch;		/* reads relays in packets (PGAS_BOOT_TAKES_BATCH) */
	int status;		/* that exit's status */
	struct pgas_boot_msg msg;
	int fd;			/* descriptor it sent with msg, or -1 */
};

static struct rank *ranks;
static unsigned nranks, nrunning, round_count;
static bool verbose, aborting;
static int exit_code;
static struct pgas_conduit_job job;	/* the conduit's job: its variables, or none */
static long long kill_deadline_ms;
static long long defer_deadline_ms;	/* when a deferred exit is judged alone */

/* How long a rank that ends because a peer died waits for that peer's exit. */
#define DEFER_MS 1000

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000LL + ts.tv_nsec / 1000000;
}

#define TIME_LIMIT_MAX (366u * 86400)	/* -t: seconds */

static void usage(FILE *f)
{
	fprintf(f,
		"usage: pgasrun -n N [-t SECONDS] [-v] [--] program [args...]\n"
		"       pgasrun --help | --version | --env[=roff]\n"
		"Starts N ranks of program on this host (libpgas %d.%d).\n"
		"  -n N, -np N, --np=N      number of ranks (1..%u)\n"
		"  -t SECONDS, --timeout=S  end the job (exit 124) if it runs longer\n"
		"  -v, --verbose            report each rank's start and exit\n"
		"  --oversubscribe          accepted (ranks may outnumber cores anyway)\n"
		"  --                       ends the options\n"
		"  -h, --help               this text;  --version: the conduits built in\n"
		"  --env                    libpgas's environment variables (libpgas(7))\n"
		"Exit status: 0 when every rank ended with 0; else the first failing\n"
		"rank's code, 128+N if a signal N killed it; 124 when -t ended the job;\n"
		"127 when the program cannot be run; 2 for a usage error; 1 when the\n"
		"launcher itself failed.\n",
		PGAS_VERSION_MAJOR, PGAS_VERSION_MINOR, PGAS_MAX_ENDPOINTS_LAUNCH);
}

/*
 * The spellings users bring from mpirun and oshrun that mean the same here:
 * "-np N" is "-n N" (getopt would read it as -n p), "-np=N" is "--np=N"
 * (oshrun's spellings).  Only before the
 * program: its own arguments are left alone.
 */
static void mpirun_spellings(int argc, char **argv)
{
	static char dash_n[] = "-n";
	char *np;

	for (int i = 1; i < argc && argv[i][0] == '-' && strcmp(argv[i], "--"); i++) {
		if (!strcmp(argv[i], "-np"))
			argv[i] = dash_n;
		else if (!strncmp(argv[i], "-np=", 4) && (np = malloc(strlen(argv[i]) + 2))) {
			sprintf(np, "-%s", argv[i]);	/* --np=N */
			argv[i] = np;
		}
		if (!strcmp(argv[i], "-n") || !strcmp(argv[i], "-t") || !strcmp(argv[i], "--np") ||
		    !strcmp(argv[i], "--timeout"))
			i++;	/* its value */
	}
}

static void signal_all(int sig)
{
	for (unsigned r = 0; r < nranks; r++)
		if (ranks[r].running)
			kill(ranks[r].pid, sig);
}

/* Ends the job after a failure; the first failure decides the exit code. */
static void abort_job(int code)
{
	if (aborting)
		return;
	aborting = true;
	exit_code = code;
	signal_all(SIGTERM);
	kill_deadline_ms = now_ms() + GRACE_MS;
}

/*
 * A rank called pgas_global_exit(code): every other rank _exits with code
 * from libpgas's handler of PGAS_BOOT_EXIT_SIGNAL (a rank that blocks it
 * is killed after the grace period), and the job ends with code.
 */
static void global_exit(unsigned from, int code)
{
	union sigval v = { .sival_int = PGAS_BOOT_EXIT_VALUE(code) };

	if (aborting)
		return;
	if (verbose || code)
		fprintf(stderr, "pgasrun: rank %u called pgas_global_exit(%d); ending the job\n",
			from, code);
	aborting = true;
	exit_code = code;
	/* 'from' too, and last: the caller waits for its own signal before it
	 * _exits (pgas_global_exit), so that every other rank's is queued
	 * before pgas.ko can count the caller's death on their kernel pages
	 * (a rank that read the death first ended with 70, not with code).
	 * The caller may also be a process the rank forked (it holds the
	 * rank's socket); it _exits with code either way. */
	for (unsigned i = 1; i <= nranks; i++) {
		unsigned r = (from + i) % nranks;

		if (ranks[r].running)
			sigqueue(ranks[r].pid, PGAS_BOOT_EXIT_SIGNAL, v);
	}
	kill_deadline_ms = now_ms() + GRACE_MS;
}

static void close_sock(struct rank *rk)
{
	if (rk->sock >= 0)
		close(rk->sock);
	rk->sock = -1;
}

static void reset_round(void)
{
	for (unsigned r = 0; r < nranks; r++) {
		if (ranks[r].fd >= 0)
			close(ranks[r].fd);
		ranks[r].fd = -1;
		ranks[r].sent = false;
	}
	round_count = 0;
}

/* Every rank's message to every rank: in packets of PGAS_BOOT_BATCH to a rank that takes them. */
static void relay_round(void)
{
	const struct pgas_boot_msg *m[PGAS_BOOT_BATCH];
	int fds[PGAS_BOOT_BATCH];

	for (unsigned dst = 0; dst < nranks; dst++) {
		unsigned per = ranks[dst].batch ? PGAS_BOOT_BATCH : 1;

		if (ranks[dst].sock < 0)
			continue;
		for (unsigned src = 0; src < nranks; src += per) {
			unsigned k = nranks - src < per ? nranks - src : per;
			int rc;

			for (unsigned i = 0; i < k; i++) {
				m[i] = &ranks[src + i].msg;
				fds[i] = ranks[src + i].fd;
			}
			rc = pgas_boot_send_batch(ranks[dst].sock, m, fds, k);
			if (rc < 0 && rc != -EPIPE && rc != -ECONNRESET) {
				fprintf(stderr, "pgasrun: relaying to rank %u: %s\n", dst,
					strerror(-rc));
				abort_job(1);
				return;
			}
		}
	}
	reset_round();
}

static void on_message(unsigned r);

/* Messages already sent, read before an exit is judged (FINI comes first). */
static void drain_messages(void)
{
	for (unsigned r = 0; r < nranks; r++) {
		struct pollfd p = { .fd = ranks[r].sock, .events = POLLIN };

		while (ranks[r].sock >= 0 && poll(&p, 1, 0) > 0 && p.revents)
			on_message(r);
	}
}

/* After a failure: which ranks had left the job and were draining. */
static void name_leavers(unsigned failed)
{
	for (unsigned q = 0; q < nranks; q++)
		if (q != failed && ranks[q].left)
			fprintf(stderr, "pgasrun: rank %u had left the job (pgas_exit(0) or exit(0)) before that\n",
				q);
}

/* A bootstrap exchange that some rank waits in but a gone rank will never join. */
static void check_round(void)
{
	unsigned waiter = 0;

	if (!round_count || aborting)
		return;
	while (!ranks[waiter].sent)
		waiter++;
	for (unsigned q = 0; q < nranks; q++) {
		if (ranks[q].sent || (ranks[q].running && !ranks[q].left))
			continue;
		if (ranks[q].left)
			fprintf(stderr, "pgasrun: rank %u left the job (pgas_exit) while rank %u waits for it in a bootstrap exchange (pgas_init, pgas_attach); ending the job\n",
				q, waiter);
		else
			fprintf(stderr, "pgasrun: rank %u has exited while rank %u waits for it in a bootstrap exchange (pgas_init, pgas_attach); ending the job\n",
				q, waiter);
		abort_job(1);
		return;
	}
}

static void on_message(unsigned r)
{
	struct rank *rk = &ranks[r];
	struct pgas_boot_msg m;
	int fd, rc = pgas_boot_recv(rk->sock, &m, &fd);

	if (rc == 0 || rc == -ECONNRESET) {	/* the rank closed its end */
		close_sock(rk);
		return;
	}
	if (rc > 0 && m.magic != PGAS_BOOT_MAGIC) {	/* a notice: LEAVING or FINI */
		if (fd >= 0)
			close(fd);
		rk->joined = true;
		if (m.magic == PGAS_BOOT_GLOBAL_EXIT) {
			global_exit(r, m.len == 1 ? m.blob[0] : 1);
			return;
		}
		if (m.magic == PGAS_BOOT_PEER_DIED) {
			rk->peer_died = true;
			return;
		}
		rk->left = true;
		if (m.magic == PGAS_BOOT_FINI)
			rk->fini = true;
		if (verbose)
			fprintf(stderr, "pgasrun: rank %u %s\n", r,
				rk->fini ? "finalized" : "is leaving (pgas_exit)");
		check_round();
		return;
	}
	if (rc < 0 || rk->sent) {
		if (fd >= 0)
			close(fd);
		fprintf(stderr, "pgasrun: rank %u broke the bootstrap protocol (%s)\n", r,
			rc < 0 ? strerror(-rc) : "two messages in one exchange");
		close_sock(rk);
		abort_job(1);
		return;
	}
	m.src = r;
	/* What the relay says of a descriptor is what came, not what was claimed. */
	rk->batch = m.has_fd & PGAS_BOOT_TAKES_BATCH;
	m.has_fd = fd >= 0 ? PGAS_BOOT_HAS_FD : 0;
	rk->msg = m;
	rk->fd = fd;
	rk->sent = true;
	rk->joined = true;
	if (++round_count == nranks)
		relay_round();
	else
		check_round();
}

/* Names the first abnormal end and ends the job; later ones only with -v. */
static void judge_exit(unsigned r, pid_t pid, int status)
{
	if (WIFSIGNALED(status)) {
		int sig = WTERMSIG(status);

		if (!aborting) {
			fprintf(stderr, "pgasrun: rank %u (pid %d) was killed by signal %d (%s); ending the job\n",
				r, (int)pid, sig, strsignal(sig));
			abort_job(128 + sig);
			name_leavers(r);
		} else if (verbose) {
			fprintf(stderr, "pgasrun: rank %u ended by signal %d\n", r, sig);
		}
	} else {
		int code = WEXITSTATUS(status);

		if (code && !aborting) {
			fprintf(stderr, "pgasrun: rank %u (pid %d) exited with code %d; ending the job\n",
				r, (int)pid, code);
			abort_job(code);
			name_leavers(r);
		} else if (!code && ranks[r].joined && !ranks[r].fini && !aborting) {
			fprintf(stderr, "pgasrun: rank %u (pid %d) exited with code 0 without pgas_exit while the job was running; ending the job\n",
				r, (int)pid);
			abort_job(1);
			name_leavers(r);
		} else if (!code && round_count && !ranks[r].sent && !aborting) {
			fprintf(stderr, "pgasrun: rank %u exited during a bootstrap exchange the others wait in; ending the job\n",
				r);
			abort_job(1);
		} else if (verbose) {
			fprintf(stderr, "pgasrun: rank %u exited with code %d\n", r, code);
		}
	}
	check_round();
}

static void on_exit_status(pid_t pid, int status)
{
	unsigned r;

	for (r = 0; r < nranks && ranks[r].pid != pid; r++)
		;
	if (r == nranks)
		return;
	ranks[r].running = false;
	nrunning--;
	drain_messages();
	/*
	 * A rank that ends because pgas.ko told it a peer died may be reaped
	 * before that peer: name the peer, if its end comes within DEFER_MS.
	 */
	if (ranks[r].peer_died && !aborting && status != 0) {
		ranks[r].deferred = true;
		ranks[r].status = status;
		if (!defer_deadline_ms)
			defer_deadline_ms = now_ms() + DEFER_MS;
		return;
	}
	judge_exit(r, pid, status);
}

/* The deferred exits, once their time is up or every rank has ended. */
static void judge_deferred(void)
{
	defer_deadline_ms = 0;
	for (unsigned r = 0; r < nranks; r++)
		if (ranks[r].deferred) {
			ranks[r].deferred = false;
			judge_exit(r, ranks[r].pid, ranks[r].status);
		}
}

static struct rlimit nofile;	/* RLIMIT_NOFILE as pgasrun found it: the ranks' */

static void spawn(unsigned r, char **argv, const sigset_t *oldmask, int sv_child)
{
	pid_t launcher = getpid();
	pid_t pid = fork();
	char buf[32];

	if (pid < 0) {
		perror("pgasrun: fork");
		abort_job(1);
		return;
	}
	if (pid > 0) {
		ranks[r].pid = pid;
		ranks[r].running = true;
		nrunning++;
		if (verbose)
			fprintf(stderr, "pgasrun: rank %u is pid %d\n", r, (int)pid);
		return;
	}
	/* child */
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != launcher)
		_exit(1);
	sigprocmask(SIG_SETMASK, oldmask, NULL);
	setrlimit(RLIMIT_NOFILE, &nofile);
	if (fcntl(sv_child, F_SETFD, 0) < 0)
		_exit(127);
	snprintf(buf, sizeof(buf), "%u", r);
	setenv(PGAS_ENV_RANK, buf, 1);
	snprintf(buf, sizeof(buf), "%u", nranks);
	setenv(PGAS_ENV_NRANKS, buf, 1);
	snprintf(buf, sizeof(buf), "%d", sv_child);
	setenv(PGAS_ENV_BOOT_FD, buf, 1);
	snprintf(buf, sizeof(buf), "%d", (int)launcher);
	setenv(PGAS_ENV_LAUNCHER, buf, 1);
	if (job.env[0][0]) {
		for (unsigned i = 0; i < 2; i++)
			if (job.env[i][0])
				putenv(job.env[i]);
	} else {
		unsetenv(PGAS_ENV_JOB_ID);
		unsetenv(PGAS_ENV_JOB_KEY);
	}
	execvp(argv[0], argv);
	fprintf(stderr, "pgasrun: cannot run %s: %s\n", argv[0], strerror(errno));
	_exit(127);
}

int main(int argc, char **argv)
{
	unsigned long n = 0, limit_s = 0;
	long long deadline_ms = 0;
	sigset_t mask, oldmask;
	struct pollfd *pfd;
	int opt, sfd, *child_socks;
	char *end;

	static const struct option longs[] = {
		{ "np", required_argument, NULL, 'n' },
		{ "timeout", required_argument, NULL, 't' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ "oversubscribe", no_argument, NULL, 'O' },
		{ "env", optional_argument, NULL, 'E' },
		{ NULL, 0, NULL, 0 }
	};

	mpirun_spellings(argc, argv);
	while ((opt = getopt_long(argc, argv, "+n:t:vh", longs, NULL)) != -1) {
		switch (opt) {
		case 'V':
			printf("pgasrun (libpgas %d.%d)\nconduits: %s\n", PGAS_VERSION_MAJOR,
			       PGAS_VERSION_MINOR, pgas_conduit_list());
			if (*pgas_conduit_missing())
				printf("not built: %s\n", pgas_conduit_missing());
			return 0;
		case 'O':
			break;
		case 'E':	/* the variables' table (libpgas(7) is made of --env=roff) */
			if (optarg && strcmp(optarg, "roff")) {
				fprintf(stderr, "pgasrun: --env=%s: --env or --env=roff\n", optarg);
				return 2;
			}
			pgas__config_doc(stdout, optarg != NULL);
			return 0;
		case 'n':
			errno = 0;
			n = strtoul(optarg, &end, 10);
			if (errno || *end || n == 0 || n > PGAS_MAX_ENDPOINTS_LAUNCH) {
				fprintf(stderr, "pgasrun: -n %s: expected 1..%u ranks\n", optarg,
					PGAS_MAX_ENDPOINTS_LAUNCH);
				return 2;
			}
			break;
		case 't':
			/* Digits only (strtoul takes "-1" and " 2"); a year at most. */
			errno = 0;
			limit_s = optarg[0] >= '0' && optarg[0] <= '9' ? strtoul(optarg, &end, 10) : 0;
			if (errno || !limit_s || *end || limit_s > TIME_LIMIT_MAX) {
				fprintf(stderr, "pgasrun: -t %s: expected a number of seconds, 1..%u\n",
					optarg, TIME_LIMIT_MAX);
				return 2;
			}
			break;
		case 'v':
			verbose = true;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:	/* getopt named the option */
			fprintf(stderr, "pgasrun: see pgasrun --help\n");
			return 2;
		}
	}
	if (!n || optind >= argc) {
		fprintf(stderr, "pgasrun: %s\n", !n ? "how many ranks? (-n N)" : "no program to run");
		usage(stderr);
		return 2;
	}
	nranks = (unsigned)n;
	/* Two socket ends and a relayed descriptor per rank; the ranks get the
	 * limit as it was (pgas_boot_join raises theirs as their job needs). */
	if (getrlimit(RLIMIT_NOFILE, &nofile)) {
		perror("pgasrun: getrlimit");
		return 1;
	}
	/* As far as the hard limit: it also bounds, per user, the descriptors
	 * in flight to ranks that have not read them yet (bootstrap.c). */
	pgas_boot_nofile(~0ul);
	ranks = calloc(nranks, sizeof(*ranks));
	child_socks = calloc(nranks, sizeof(int));
	pfd = calloc(nranks + 1, sizeof(*pfd));
	if (!ranks || !child_socks || !pfd) {
		fprintf(stderr, "pgasrun: out of memory for %u ranks\n", nranks);
		return 1;
	}

	{
		char msg[256];

		if (pgas_conduit_job_create(nranks, &job, msg, sizeof(msg))) {
			fprintf(stderr, "pgasrun: cannot create the job: %s\n", msg);
			return 1;
		}
		if (verbose && job.what[0])
			fprintf(stderr, "pgasrun: %s\n", job.what);
	}

	sigemptyset(&mask);
	sigaddset(&mask, SIGCHLD);
	sigaddset(&mask, SIGINT);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGHUP);
	sigaddset(&mask, SIGQUIT);
	sigprocmask(SIG_BLOCK, &mask, &oldmask);
	sfd = signalfd(-1, &mask, SFD_CLOEXEC);
	if (sfd < 0) {
		perror("pgasrun: signalfd");
		return 1;
	}
	for (unsigned r = 0; r < nranks; r++) {
		int sv[2];

		if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) < 0) {
			perror("pgasrun: socketpair");
			return 1;
		}
		ranks[r].sock = sv[0];
		ranks[r].fd = -1;
		child_socks[r] = sv[1];
	}
	for (unsigned r = 0; r < nranks && !aborting; r++)
		spawn(r, argv + optind, &oldmask, child_socks[r]);
	for (unsigned r = 0; r < nranks; r++)
		close(child_socks[r]);
	if (limit_s)
		deadline_ms = now_ms() + (long long)limit_s * 1000;

	while (nrunning) {
		unsigned np = 0;
		int timeout = -1;
		long long t = now_ms();

		if (deadline_ms && t >= deadline_ms && !aborting) {
			fprintf(stderr, "pgasrun: time limit of %lu s reached; ending the job\n",
				limit_s);
			abort_job(124);
			signal_all(SIGKILL);
		}
		if (defer_deadline_ms && (t >= defer_deadline_ms || aborting))
			judge_deferred();
		if (aborting && t >= kill_deadline_ms)
			signal_all(SIGKILL);
		if (aborting)
			timeout = (int)(kill_deadline_ms > t ? kill_deadline_ms - t : 100);
		else if (deadline_ms)	/* poll's int: a day at most per wait */
			timeout = (int)(deadline_ms - t < 86400000 ? deadline_ms - t : 86400000);
		if (defer_deadline_ms && (timeout < 0 || timeout > defer_deadline_ms - t))
			timeout = (int)(defer_deadline_ms > t ? defer_deadline_ms - t : 0);

		pfd[np].fd = sfd;
		pfd[np++].events = POLLIN;
		for (unsigned r = 0; r < nranks; r++)
			if (ranks[r].sock >= 0) {
				pfd[np].fd = ranks[r].sock;
				pfd[np++].events = POLLIN;
			}
		if (poll(pfd, np, timeout) < 0 && errno != EINTR) {
			perror("pgasrun: poll");
			abort_job(1);
			signal_all(SIGKILL);
		}
		for (unsigned i = 1; i < np; i++) {
			if (!pfd[i].revents)
				continue;
			for (unsigned r = 0; r < nranks; r++)
				if (ranks[r].sock == pfd[i].fd) {
					on_message(r);
					break;
				}
		}
		if (pfd[0].revents & POLLIN) {
			struct signalfd_siginfo si;

			while (read(sfd, &si, sizeof(si)) == sizeof(si)) {
				if (si.ssi_signo == SIGCHLD)
					break;
				fprintf(stderr, "pgasrun: got signal %u (%s); passing it to the ranks\n",
					si.ssi_signo, strsignal((int)si.ssi_signo));
				if (aborting) {
					signal_all(SIGKILL);
				} else {
					signal_all((int)si.ssi_signo);
					aborting = true;
					exit_code = 128 + (int)si.ssi_signo;
					kill_deadline_ms = now_ms() + GRACE_MS;
				}
				break;
			}
		}
		for (;;) {
			int status;
			pid_t pid = waitpid(-1, &status, WNOHANG);

			if (pid <= 0)
				break;
			on_exit_status(pid, status);
		}
	}
	judge_deferred();
	reset_round();
	for (unsigned r = 0; r < nranks; r++)
		close_sock(&ranks[r]);
	if (job.fd >= 0)
		close(job.fd);
	free(ranks);
	free(child_socks);
	free(pfd);
	return exit_code;
}

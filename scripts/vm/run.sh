#!/bin/bash
# VM tier (make check-vm): boots each of Debian's stock kernels (6.1 and 6.12)
# in qemu-system-x86_64 under TCG (q35, 2 vCPUs) with panic_on_warn=1
# oops=panic and an initramfs of busybox-static, pgas.ko and static test
# binaries; reads the serial console; any failed test, or any kernel
# WARNING/BUG/Oops/panic, fails the tier.  Ends with "N passed, N failed".
#
# The mpirun part: libpgas jobs under Open MPI's mpirun over pgas.ko
# (scripts/vm/mpirun.sh); VM_MPIRUN=newest (default), all or 0;
# VM_MODE=mpirun runs it alone.
#
# For development: VM_TESTS=kmod runs only the kselftests (no pgasctl or
# libpgas suites); VM_MODULE=path boots with that pgas.ko instead of the
# one built here (to show that a new test fails against an old module).
# For other kernels (scripts/debugvm/run.sh): VM_KERNEL=bzImage boots that,
# VM_OUT=dir instead of build/vm, VM_APPEND=args adds to the command line,
# VM_BAD=regex replaces the console patterns that fail the tier, and
# VM_EXTRA=script runs in the VM after the suites (as /tests/vm-extra.sh);
# with VM_MODE=extra it runs alone, right after insmod (a fuzzer replay:
# VM_APPEND="PGAS_FUZZ_SEED=S PGAS_FUZZ_EPISODE=E" and a script that runs
# /tests/pgas_fuzz), on KVER's kernel or the newest.
#
# The soft-RoCE part (scripts/vm/rxe.sh): the ofi conduit over libfabric's
# verbs provider on Debian's rdma_rxe, with the dynamic programs of build/
# (scripts/vm/rxe-root.sh); VM_RXE=newest (default: only on the newest
# stock kernel, it adds minutes under TCG), all, or 0; VM_MODE=rxe runs it
# alone (VM_APPEND=RXE_FULL=1 adds coll and shmem/amo).
#
# Which stock kernel: KVER=release boots /boot/vmlinuz-KVER with pgas.ko
# built against its headers; with VM_MODULE, the kernel the module was
# built for (its vermagic).  Neither given: every installed stock kernel in
# turn (Debian 12's 6.1 and 6.12 must both be there: scripts/deps.sh vm),
# each into VM_OUT/KVER, and one "vm: N passed, N failed" for all.
set -u
cd "$(dirname "$0")/../.."
OUT=${VM_OUT:-build/vm}
if [ -z "${KVER:-}" ] && [ -z "${VM_KERNEL:-}" ] && [ -z "${VM_MODULE:-}" ] &&
	[ "${VM_MODE:-test}" = test ]; then
	pass=0
	failn=0
	kvers=
	for d in /lib/modules/*; do
		k=${d##*/}
		[ -r "/boot/vmlinuz-$k" ] && [ -f "$d/build/Makefile" ] && kvers+=" $k"
	done
	for series in 6.1 6.12; do
		case " $kvers" in
		*" $series".*) ;;
		*) echo "not ok - vm: no $series kernel (image and headers; scripts/deps.sh vm)"
		   failn=$((failn + 1)) ;;
		esac
	done
	for k in $kvers; do
		echo "# vm: Debian's $k"
		res=$(mktemp)
		KVER=$k VM_OUT=$OUT/$k "$0" | tee "$res"
		line=$(grep -E '^vm: [0-9]+ passed, [0-9]+ failed$' "$res" | tail -n 1)
		rm -f "$res"
		if [ -z "$line" ]; then
			echo "not ok - vm: $k printed no result line"
			failn=$((failn + 1))
			continue
		fi
		pass=$((pass + $(echo "$line" | sed -E 's/^vm: ([0-9]+) passed.*/\1/')))
		failn=$((failn + $(echo "$line" | sed -E 's/.* ([0-9]+) failed$/\1/')))
	done
	echo "vm: every stock kernel:$kvers"
	echo "vm: $pass passed, $failn failed"
	[ "$failn" -eq 0 ]
	exit
fi
if [ -z "${KVER:-}" ] && [ -n "${VM_MODULE:-}" ]; then
	KVER=$(modinfo -F vermagic "$VM_MODULE" 2>/dev/null | cut -d' ' -f1)
	[ -d "/lib/modules/$KVER" ] || KVER=
fi
KVER=${KVER:-$(ls /lib/modules 2>/dev/null | sort -V | tail -n 1)}
KERNEL=${VM_KERNEL:-/boot/vmlinuz-$KVER}
BAD=${VM_BAD:-'WARNING:|BUG:|Oops|Kernel panic|general protection fault|Call Trace'}
LOG=$OUT/console.log
fail() { echo "not ok - vm: $*"; echo "vm: 0 passed, 1 failed"; exit 1; }

[ -n "$KVER" ] && [ -r "$KERNEL" ] || fail "no kernel image for '$KVER' in /boot (scripts/deps.sh vm)"
command -v qemu-system-x86_64 >/dev/null || fail "qemu-system-x86_64 missing (scripts/deps.sh vm)"
[ -x /bin/busybox ] || fail "busybox-static missing (scripts/deps.sh vm)"

mkdir -p "$OUT"
make -s modules KVER="$KVER" >"$OUT.build.log" 2>&1 || { cat "$OUT.build.log"; fail "building pgas.ko for $KVER"; }
make -s STATIC=1 tests tools examples vmtests >>"$OUT.build.log" 2>&1 || { cat "$OUT.build.log"; fail "building static tests"; }

rm -rf "$OUT/root"
mkdir -p "$OUT/root"/{bin,sbin,proc,sys,dev,tmp,tests}
cp /bin/busybox "$OUT/root/bin/"
for applet in $(/bin/busybox --list); do
	[ -e "$OUT/root/bin/$applet" ] || ln -s busybox "$OUT/root/bin/$applet"
done
cp scripts/vm/init "$OUT/root/init"
cp scripts/vm/el.sh "$OUT/root/tests/vm-el.sh"
cp "${VM_MODULE:-kmod/pgas.ko}" "$OUT/root/pgas.ko" || fail "no module ${VM_MODULE:-}"
find build/static/tests -maxdepth 1 -type f -exec cp {} "$OUT/root/tests/" \;
cp build/static/bin/pgasrun build/static/examples/demo "$OUT/root/tests/"
mv "$OUT/root/tests/pgasrun" "$OUT/root/bin/"
cp build/static/bin/pgasctl "$OUT/root/bin/"
if [ "${VM_TESTS:-all}" != kmod ]; then
	cp scripts/vm/ctl.sh "$OUT/root/tests/vm-ctl.sh"
	cp scripts/vm/libpgas.sh "$OUT/root/tests/vm-libpgas.sh"
	cp scripts/check-lifecycle.sh "$OUT/root/tests/check-lifecycle.sh"
fi
[ -z "${VM_EXTRA:-}" ] || cp "$VM_EXTRA" "$OUT/root/tests/vm-extra.sh" || fail "no $VM_EXTRA"
rxe=${VM_RXE:-newest}
[ "$rxe" = newest ] && { [ "$KVER" = "$(ls /lib/modules | sort -V | tail -n 1)" ] || rxe=0; }
[ "${VM_MODE:-test}" = rxe ] && rxe=all && : >"$OUT/root/tests/rxe-only"
[ "${VM_MODE:-test}" = mpirun ] && rxe=0
if [ "$rxe" != 0 ] && [ -z "${VM_KERNEL:-}" ] && [ "${VM_MODE:-test}" != bench ] &&
	[ "${VM_TESTS:-all}" != kmod ]; then
	# Dynamic programs (the static build leaves the ofi conduit out).
	if ! make -s lib tools tests shmem >>"$OUT.build.log" 2>&1; then
		fail "building the dynamic tests for the rxe part"
	elif ! build/bin/pgasrun --version 2>&1 | grep -q '^conduits:.* ofi'; then
		echo "ok - rxe part # SKIP the ofi conduit is not built (no libfabric-dev)"
	elif msg=$(scripts/vm/rxe-root.sh "$KVER" "$OUT/root" 2>&1); then
		cp scripts/vm/rxe.sh "$OUT/root/tests/vm-rxe.sh"
	else
		echo "ok - rxe part # SKIP $msg"
	fi
fi
# The mpirun part (scripts/vm/mpirun.sh): libpgas jobs under Open MPI's
# mpirun (the PMIx boot) over pgas.ko, with the dynamic programs of build/
# (scripts/vm/mpirun-root.sh); VM_MPIRUN=newest (default: only on the
# newest stock kernel), all, or 0; VM_MODE=mpirun runs it alone.
mpi=${VM_MPIRUN:-newest}
[ "$mpi" = newest ] && { [ "$KVER" = "$(ls /lib/modules | sort -V | tail -n 1)" ] || mpi=0; }
[ "${VM_MODE:-test}" = mpirun ] && mpi=all && : >"$OUT/root/tests/mpirun-only"
[ "${VM_MODE:-test}" = rxe ] && mpi=0
if [ "$mpi" != 0 ] && [ -z "${VM_KERNEL:-}" ] && [ "${VM_MODE:-test}" != bench ] &&
	[ "${VM_TESTS:-all}" != kmod ]; then
	if ! make -s lib tools tests >>"$OUT.build.log" 2>&1; then
		fail "building the dynamic tests for the mpirun part"
	elif msg=$(scripts/vm/mpirun-root.sh "$OUT/root" 2>&1); then
		cp scripts/vm/mpirun.sh "$OUT/root/tests/vm-mpirun.sh"
	else
		echo "ok - mpirun part # SKIP $msg"
	fi
fi
if [ "${VM_MODE:-test}" = extra ]; then	# VM_EXTRA's script alone
	[ -n "${VM_EXTRA:-}" ] || fail "VM_MODE=extra without VM_EXTRA"
	: >"$OUT/root/tests/extra-only"
fi
# GUPS (issue 12): bench/gups verifies its own updates; libpgas.sh runs it.
make -s STATIC=1 build/static/bench/gups >>"$OUT.build.log" 2>&1 &&
	cp build/static/bench/gups "$OUT/root/tests/" || fail "building the static gups"
# OpenSHMEM (docs/shmem.md): the conformance programs, as /tests/shmem_NAME.
make -s STATIC=1 shmem >>"$OUT.build.log" 2>&1 || fail "building the static OpenSHMEM tests"
for t in build/static/tests/shmem/*; do
	cp "$t" "$OUT/root/tests/shmem_${t##*/}"
done
# The applications (apps/, docs/apps.md) over pgas.ko: libpgas.sh runs
# /tests/NAME and /tests/NAME_shmem.
make -s STATIC=1 apps >>"$OUT.build.log" 2>&1 || fail "building the static applications"
for p in ft stencil isort; do
	cp build/static/apps/$p "$OUT/root/tests/$p" &&
		cp build/static/apps/$p-shmem "$OUT/root/tests/${p}_shmem" ||
		fail "no static $p (NAS FT: FFTW, scripts/deps.sh vm)"
done
if [ "${VM_MODE:-test}" = bench ]; then	# scripts/bench.sh: measure only
	make -s STATIC=1 benches >>"$OUT.build.log" 2>&1 || fail "building static benchmarks"
	cp build/static/bench/pgas_bench "$OUT/root/tests/"
	cp scripts/vm/bench.sh "$OUT/root/tests/vm-bench.sh"
fi
(cd "$OUT/root" && find . | cpio -o -H newc --quiet | gzip -1) >"$OUT/initramfs.gz"

# The fuzzer's budget (scripts/vm/init): 30 s on each stock kernel, where
# only a WARN/BUG/Oops shows (a new seed each run; a 60 s run under TCG
# had 85 episodes, its first 30 s all four kinds: seq, race, members,
# memlock); debugvm gives its own (60 s: KASAN and lockdep see what the
# episodes do there).  VM_FUZZ_SECONDS=N for longer runs by hand.
# tsc=reliable: no clocksource watchdog.  Under TCG on a loaded host it
# found the TSC "unstable" mid-run (102 s in, 6.12), and marking sched_clock
# unstable patches kernel text (a static key, by int3) while the other
# vCPU runs it: an int3 Oops in sched_clock_cpu, the tier lost (CI, seen
# once).  TCG's TSC comes from the host's clock, the same on every vCPU.
append="console=ttyS0 panic_on_warn=1 oops=panic panic=-1 loglevel=4 tsc=reliable"
case " ${VM_APPEND:-}" in
*" PGAS_FUZZ_SECONDS="*) ;;
*) append="$append PGAS_FUZZ_SECONDS=${VM_FUZZ_SECONDS:-30}" ;;
esac
append="$append ${VM_APPEND:-}"

start=$(date +%s)
# A kernel that dies before userspace (before /init's "vm: booted" line,
# so before pgas.ko or any test could run: a TCG boot flake, e.g. an int3
# Oops while the kernel patches its own text) is booted once more; the
# first console is kept as $LOG.boot1 and the retry is said on stdout.
for boot in 1 2; do
: >"$LOG"	# before qemu starts: the watch below must not read an old log
timeout "${VM_TIMEOUT:-1500}" qemu-system-x86_64 -machine q35 -accel tcg -smp 2 -m 2048 \
	-kernel "$KERNEL" -initrd "$OUT/initramfs.gz" \
	-append "$append" \
	-nographic -no-reboot </dev/null >"$LOG" 2>&1 &
qemu=$!
# Once the guest says it is done it powers off; a kernel that only halts
# (no working ACPI) would keep qemu until the timeout: 30 s, then it goes.
while kill -0 "$qemu" 2>/dev/null; do
	if grep -qaE '^vm: (tests|bench) done' "$LOG"; then
		for _ in $(seq 30); do
			kill -0 "$qemu" 2>/dev/null || break
			sleep 1
		done
		kill "$qemu" 2>/dev/null && echo "# vm: the guest did not power off; qemu stopped"
		break
	fi
	sleep 2
done
wait "$qemu"
rc=$?
tr -d '\r' <"$LOG" >"$LOG.txt"
if [ $boot = 1 ] && ! grep -qa 'vm: booted [0-9]' "$LOG.txt" && grep -qaE "$BAD" "$LOG.txt"; then
	echo "# vm: the kernel died before userspace (pgas.ko not loaded yet): booting again"
	grep -aE -m 3 "$BAD|RIP:" "$LOG.txt" | sed 's/^/#   /'
	cp "$LOG.txt" "$LOG.boot1"
	continue
fi
break
done
took=$(($(date +%s) - start))
if [ "${VM_MODE:-test}" = bench ]; then
	grep '^RESULT ' "$LOG.txt"
	grep -q '^vm: bench done' "$LOG.txt" || { tail -n 20 "$LOG.txt" >&2; exit 1; }
	exit 0
fi

pass=$(grep -c '^ok ' "$LOG.txt")
failn=$(grep -c '^not ok ' "$LOG.txt")
# Where the time went (the guest's "# N.N s" lines, scripts/vm/el.sh): the
# boot, each kselftest and part, and the slowest result lines.
sed -n -E 's/.*vm: booted .*, ([0-9]+ s after the kernel started)$/# time: userspace \1/p' "$LOG.txt"
grep -E '^# [^:]+: [0-9]+\.[0-9] s$' "$LOG.txt" | sed 's/^# /# time: /'
scripts/tap-times.sh -n "${VM_SLOWEST:-15}" "$LOG.txt" 2>&1 | sed 's/^/# slowest: /'
grep -E '^(ok|not ok) ' "$LOG.txt" | grep -v '^ok ' || true
if grep -qE "$BAD" "$LOG.txt"; then
	echo "not ok - kernel warning/oops on the console:"
	grep -E -A20 "$BAD" "$LOG.txt" | head -n 60
	failn=$((failn + 1))
else
	echo "ok - no kernel WARNING/BUG/Oops/panic in the VM log"
	pass=$((pass + 1))
fi
if ! grep -q '^vm: tests done' "$LOG.txt"; then
	echo "not ok - the VM did not finish its tests (qemu exit $rc after ${took}s); console tail:"
	tail -n 30 "$LOG.txt"
	failn=$((failn + 1))
fi
echo "vm: booted kernel ${VM_KERNEL:-$KVER} under TCG, ${took}s"
echo "vm: $pass passed, $failn failed"
[ "$failn" -eq 0 ]

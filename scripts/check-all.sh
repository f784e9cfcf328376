#!/bin/bash
# The whole test suite (`make check`): every tier that exists, each ending
# with its own "N passed, N failed"; this script adds them up and ends with
# the total on a line of its own.
#
#   native        libpgas over the shm conduit (plain -O2 build)
#   native-asan   the same under AddressSanitizer + UndefinedBehaviorSanitizer
#   native-tsan   the same under ThreadSanitizer (1-3 ranks)
#   kmod-style    pgas.ko warning-free against 6.1 and 6.12 headers, sparse-clean
#                 (-Wsparse-all), checkpatch-clean
#   dkms          dkms add/build/install/remove of pgas.ko on the host, every kernel
#   deb           the Debian packages: built, lintian-clean, their contents, used unpacked,
#                 then installed, used and purged in qemu on each stock kernel
#   vm            qemu (TCG) boots Debian's kernels (6.1, 6.12): kselftests, the
#                 fuzzer and libpgas over /dev/pgas; on the newest, the ofi conduit
#                 over verbs;ofi_rxm on soft-RoCE (rdma_rxe)
#   debugvm       the same on a debug kernel (lockdep, KASAN, DEBUG_VM, fault
#                 injection) built once from linux-source-6.1 and cached
#   kunit         KUnit suites of pgas.ko's internals in user-mode-linux
#   multihost     PMIx boot under mpirun; the namespace bed: mpirun, libfabric
#                 and libpgas across 2-3 "hosts" (network namespaces)
set -u
cd "$(dirname "$0")/.."
total_pass=0
total_fail=0

# tier NAME CMD...: runs one tier, echoes its output, adds its counts.
tier() {
	local name=$1 out line p f t0=$SECONDS
	shift
	echo "=== tier $name"
	out=$(mktemp)
	"$@" 2>&1 | tee "$out"
	echo "# tier $name took $((SECONDS - t0)) s"
	# Its 5 slowest result lines (the VM tiers print their guest's own).
	scripts/tap-times.sh -n 5 "$out" 2>/dev/null | sed "s/^/# slowest in $name: /"
	line=$(grep -E '[0-9]+ passed, [0-9]+ failed' "$out" | tail -n 1)
	if [ -z "$line" ]; then
		echo "not ok - tier $name printed no result line"
		total_fail=$((total_fail + 1))
	else
		p=$(echo "$line" | sed -E 's/.*\b([0-9]+) passed.*/\1/')
		f=$(echo "$line" | sed -E 's/.*\b([0-9]+) failed.*/\1/')
		total_pass=$((total_pass + p))
		total_fail=$((total_fail + f))
	fi
	rm -f "$out"
}

build_or_fail() {
	if ! make -s -j2 "$@" all >/dev/null; then
		echo "not ok - make $* failed"
		total_fail=$((total_fail + 1))
		return 1
	fi
}

# The kernels of the debugvm and kunit tiers (cold: ~15.5 and ~8.7
# CPU-minutes, then cached outside the tree; docs/testing.md "Cost") are
# built from the start, one after the other, at the lowest priority
# (SCHED_IDLE, nice 19): on CPU time that the tiers before theirs leave
# idle (block-mode waits, liveness time-outs, launches).  Their tiers wait
# for them (both builders hold a lock).  PGAS_TEST_EARLY_KERNELS=0: built
# by their tiers, as before.
if [ "${PGAS_TEST_EARLY_KERNELS:-1}" = 1 ]; then
	mkdir -p build
	idle="nice -n 19"
	chrt -i 0 true 2>/dev/null && idle="chrt -i 0 $idle"
	$idle sh -c 'scripts/debugvm/kernel.sh; scripts/kunit/run.sh build' >build/early-kernels.log 2>&1 &
	echo "# the debugvm and kunit kernels: building in the background if not cached (build/early-kernels.log)"
fi

build_or_fail && tier native scripts/check-native.sh build
build_or_fail SAN=asan && PGAS_TEST_RANKS="1 2 3 4" tier native-asan scripts/check-native.sh build/asan
build_or_fail SAN=tsan && PGAS_TEST_RANKS="1 2 3" tier native-tsan scripts/check-native.sh build/tsan
tier kmod-style scripts/check-kmod-style.sh
tier dkms scripts/check-dkms.sh
tier deb scripts/check-deb.sh
tier vm scripts/vm/run.sh
tier debugvm scripts/debugvm/run.sh
tier kunit scripts/kunit/run.sh
tier multihost scripts/check-multihost.sh build

echo
echo "$total_pass passed, $total_fail failed"
[ "$total_fail" -eq 0 ]

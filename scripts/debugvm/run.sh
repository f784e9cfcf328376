#!/bin/bash
# debugvm tier (make check-debugvm): the VM tier (scripts/vm/run.sh: the
# kselftests, the fuzzer for PGAS_FUZZ_SECONDS (default 60), pgasctl and the
# libpgas suite over /dev/pgas) on a debug kernel: lockdep (PROVE_LOCKING),
# KASAN, DEBUG_VM, DEBUG_ATOMIC_SLEEP, DEBUG_LIST, the hung-task detector
# and fault injection (debug.config), built once by scripts/debugvm/kernel.sh
# and cached outside the tree.  After the suites, scripts/debugvm/guest.sh
# runs a fault-injection pass and checks that lockdep is still on.  Any
# lockdep or KASAN report, WARN, BUG or hung task on the console fails the
# tier.  Ends with "debugvm: N passed, N failed".  Notes and numbers:
# docs/testing.md.
#
# DEBUGVM_KMOD_TREE=dir builds pgas.ko from dir/kmod (and dir/uapi) instead
# of this tree's (to show that the tier catches an old module's bug):
#   git worktree add /tmp/old 163a380^ &&
#   DEBUGVM_KMOD_TREE=/tmp/old VM_TESTS=kmod scripts/debugvm/run.sh
# DEBUGVM_KDIR=dir boots a debug kernel built elsewhere (a kernel build tree
# with arch/x86/boot/bzImage) instead of the cached one.  PGAS_FUZZ_SECONDS
# (default 60) bounds the fuzzer; VM_TESTS=kmod, VM_TIMEOUT as for the vm tier.
set -u
cd "$(dirname "$0")/../.."
OUT=build/debugvm
fail() { echo "not ok - debugvm: $*"; echo "debugvm: 0 passed, 1 failed"; exit 1; }
mkdir -p "$OUT"

start=$(date +%s)
if [ -n "${DEBUGVM_KDIR:-}" ]; then	# a debug kernel built elsewhere
	KDIR=$DEBUGVM_KDIR
	[ -r "$KDIR/arch/x86/boot/bzImage" ] || fail "no $KDIR/arch/x86/boot/bzImage"
else
	KDIR=$(scripts/debugvm/kernel.sh) || fail "building the debug kernel (log: $OUT/kernel-build.log)"
fi
echo "# debug kernel: $KDIR (built in $(cat "$KDIR/.pgas-build-seconds" 2>/dev/null)s when cold)"

# pgas.ko for the debug kernel, built in a copy: kmod/ holds the objects
# for Debian's kernel (the VM and dkms tiers, other people's builds).
tree=${DEBUGVM_KMOD_TREE:-$PWD}
rm -rf "$OUT/src"
mkdir -p "$OUT/src"
cp -r "$tree/kmod" "$tree/uapi" "$OUT/src/" || fail "copying $tree/kmod"
make -C "$KDIR" M="$PWD/$OUT/src/kmod" W=1 modules >"$OUT/kmod-build.log" 2>&1 ||
	{ tail -n 30 "$OUT/kmod-build.log"; fail "building pgas.ko against the debug kernel"; }

# Reports of the debug options, WARN and BUG, and the hung-task detector's.
# Not "Call Trace" alone: a vmalloc failure that the fault-injection pass
# provokes prints one (warn_alloc) and is no bug.
# Only the kernel's own lines (printk time stamps): the tests' TAP lines may
# name these words ("ok 2 - no WARNING, BUG, KASAN or lockdep report").
bad='WARNING:|BUG:|Oops|Kernel panic|general protection fault|KASAN|UBSAN'
bad+='|possible circular locking dependency|possible recursive locking|inconsistent lock state'
bad+='|turning off the locking correctness validator|sleeping function called from invalid context'
bad+='|INFO: task .* blocked'
bad="\[ *[0-9]+\.[0-9]+\] .*($bad)"
# loglevel=5: lockdep prints its reports at KERN_WARNING, which loglevel=4 hides.
VM_KERNEL=$KDIR/arch/x86/boot/bzImage VM_MODULE=$OUT/src/kmod/pgas.ko VM_OUT=$OUT/vm \
	VM_BAD=$bad VM_EXTRA=scripts/debugvm/guest.sh VM_TIMEOUT=${VM_TIMEOUT:-1200} \
	VM_APPEND="loglevel=5 PGAS_FUZZ_SECONDS=${PGAS_FUZZ_SECONDS:-60}" \
	scripts/vm/run.sh | sed -E 's/^vm: ([0-9]+ passed, [0-9]+ failed)$/debugvm: \1/'
rc=${PIPESTATUS[0]}
echo "# debugvm: $(($(date +%s) - start))s in all"
exit "$rc"

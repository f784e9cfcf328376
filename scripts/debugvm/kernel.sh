#!/bin/bash
# Builds (once) the debugvm tier's kernel: Debian's linux-source-6.1, x86_64
# allnoconfig + scripts/debugvm/debug.config (lockdep, KASAN, DEBUG_VM,
# DEBUG_ATOMIC_SLEEP, fault injection).  The build tree (bzImage and what
# out-of-tree modules are built against: Module.symvers, the prepared
# headers) is cached outside the repository in
# $PGAS_DEBUGVM_CACHE/<key> (default /var/cache/pgas-debugvm), the key a
# hash of the fragment, the source package's version and the compiler.
# Prints that directory; cold, the build takes 15.5 CPU-minutes (about 8
# minutes on an idle 2-core machine; docs/testing.md).
set -u
cd "$(dirname "$0")/../.."
SRC=${PGAS_KSRC:-/usr/src/linux-source-6.1}
CACHE=${PGAS_DEBUGVM_CACHE:-/var/cache/pgas-debugvm}
FRAG=$PWD/scripts/debugvm/debug.config
LOG=$PWD/build/debugvm/kernel-build.log
mkdir -p build/debugvm "$CACHE" || exit 1

if [ ! -f "$SRC/Makefile" ]; then
	[ -f /usr/src/linux-source-6.1.tar.xz ] || { echo "linux-source-6.1 missing (scripts/deps.sh debugvm)" >&2; exit 1; }
	tar -C /usr/src -xf /usr/src/linux-source-6.1.tar.xz || exit 1
fi
key=$({ cat "$FRAG"; dpkg-query -W -f='${Version}' linux-source-6.1 2>/dev/null; gcc --version | head -n 1; } |
	sha256sum | cut -c1-16)
DIR=$CACHE/$key
# One builder at a time (two checkouts on one machine share the cache).
exec 9>"$CACHE/.lock"
flock 9
if [ ! -f "$DIR/.pgas-complete" ]; then
	echo "# building the debug kernel in $DIR (cold: about 8 minutes on 2 idle cores)" >&2
	start=$(date +%s)
	rm -rf "$DIR"
	mkdir -p "$DIR"
	{
		(cd "$SRC" && ARCH=x86_64 scripts/kconfig/merge_config.sh -n -O "$DIR" "$FRAG") &&
		# Every option of the fragment must have survived the merge.
		{ missing=$(grep -E '^CONFIG_' "$FRAG" | grep -vxF -f "$DIR/.config")
		  [ -z "$missing" ] || { echo "debugvm: not in .config: $missing"; false; }; } &&
		make -C "$SRC" O="$DIR" ARCH=x86_64 -j"$(nproc)" bzImage modules &&
		make -C "$SRC" O="$DIR" ARCH=x86_64 modules_prepare
	} >"$LOG" 2>&1 || { tail -n 30 "$LOG" >&2; echo "debugvm: building the kernel failed (log: $LOG)" >&2; exit 1; }
	echo "$(($(date +%s) - start))" >"$DIR/.pgas-build-seconds"
	touch "$DIR/.pgas-complete"
	echo "# debug kernel built in $(cat "$DIR/.pgas-build-seconds")s" >&2
fi
echo "$DIR"

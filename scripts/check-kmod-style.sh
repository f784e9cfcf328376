#!/bin/bash
# Kernel code hygiene: pgas.ko builds without a warning (W=1, -Werror)
# against the headers of every installed kernel (Debian 12's 6.1 and 6.12
# at least: scripts/deps.sh vm installs both; a missing one fails), sparse
# with every warning (-Wsparse-all) finds nothing in kmod/ and uapi/
# against each of them, and checkpatch.pl from Debian's linux-source-6.1
# finds nothing there either.  KDIRS="dir ..." builds against those kernel
# build trees instead.
set -u
cd "$(dirname "$0")/.."
SRC=${PGAS_KSRC:-/usr/src/linux-source-6.1}
pass=0
fail=0
. scripts/tap.sh

if [ ! -x "$SRC/scripts/checkpatch.pl" ] && [ -f /usr/src/linux-source-6.1.tar.xz ]; then
	tar -C /usr/src -xf /usr/src/linux-source-6.1.tar.xz
fi

if [ -z "${KDIRS:-}" ]; then
	KDIRS=
	for d in /lib/modules/*/build; do
		[ -f "$d/Makefile" ] && KDIRS+=" $d"
	done
fi
# kver DIR: the kernel release a build tree is for (its /lib/modules name).
kver() {
	case "$1" in
	/lib/modules/*/build) basename "$(dirname "$1")" ;;
	*) make -s -C "$1" kernelrelease 2>/dev/null | tail -n 1 ;;
	esac
}
for series in 6.1 6.12; do
	found=
	for d in $KDIRS; do
		case "$(kver "$d")" in "$series".*) found=1 ;; esac
	done
	[ -n "$found" ] || notok "no $series kernel headers in /lib/modules (scripts/deps.sh vm installs them)"
done

# sparse's warnings about pgas.ko's own code (kmod/, uapi/, copied to
# $tmp), one per line: what the kernel's headers warn about in themselves
# is theirs, and so is the one warning that 6.12's module_init() and
# module_exit() raise on every module, at the module's line
# (-Wconstexpr-not-const: ___ADDRESSABLE's (uintptr_t) cast).
sparse_own() {
	local at file line
	grep -E "^$tmp/[^:]+:[0-9]+:[0-9]+: (warning|error):" "$1" | sort -u |
		while IFS= read -r at; do
			file=${at%%:*}
			line=${at#*:}
			line=${line%%:*}
			case "$at" in
			*"non-constant initializer for static object")
				sed -n "${line}p" "$file" | grep -qE '^module_(init|exit)\(' && continue ;;
			esac
			echo "${at#"$tmp"/}"
		done
}

# Each build in a copy of kmod/ and uapi/: kmod/ keeps what other tiers built.
log=$(mktemp)
tmp=$(mktemp -d)
have_sparse=$(command -v sparse)
[ -n "$have_sparse" ] || notok "sparse not found (scripts/deps.sh vm installs it)"
for d in $KDIRS; do
	v=$(kver "$d")
	rm -rf "${tmp:?}"/*
	cp -r kmod uapi "$tmp/"
	if make -C "$d" M="$tmp/kmod" W=1 KCFLAGS=-Werror modules >"$log" 2>&1 &&
		! grep -qi "warning" "$log"; then
		ok "pgas.ko builds warning-free (W=1 -Werror) against ${v:-$d}"
	else
		notok "pgas.ko build against ${v:-$d}:"; sed 's/^/    /' "$log" | tail -n 30
		continue
	fi
	[ -n "$have_sparse" ] || continue
	# C=2: every source through sparse, built or not.
	if ! make -C "$d" M="$tmp/kmod" C=2 CF=-Wsparse-all modules >"$log" 2>&1; then
		notok "sparse -Wsparse-all against ${v:-$d} did not run:"; sed 's/^/    /' "$log" | tail -n 30
	elif [ -n "$(sparse_own "$log")" ]; then
		notok "sparse -Wsparse-all finds pgas.ko's own code wanting against ${v:-$d}:"
		sparse_own "$log" | sed 's/^/    /' | head -n 30
	else
		ok "sparse -Wsparse-all: nothing in kmod/ or uapi/ against ${v:-$d}"
	fi
done
rm -rf "$tmp"
if [ -x "$SRC/scripts/checkpatch.pl" ]; then
	for f in kmod/*.[ch] kmod/tests/*.[ch] uapi/pgas_abi.h; do
		[ -f "$f" ] || continue
		case "$f" in *.mod.c) continue ;; esac
		if "$SRC/scripts/checkpatch.pl" --no-tree --strict -q -f "$f" >"$log" 2>&1; then
			ok "checkpatch --strict: $f"
		else
			notok "checkpatch --strict: $f"; sed 's/^/    /' "$log" | head -n 30
		fi
	done
else
	notok "checkpatch.pl not found under $SRC (scripts/deps.sh vm installs linux-source-6.1)"
fi
rm -f "$log"
echo "kmod-style: $pass passed, $fail failed"
[ "$fail" -eq 0 ]

#!/bin/bash
# The OpenSHMEM profiling interface (docs/shmem.md, "Profiling"): every
# routine of the layer's objects is renamed pshmem_X (shmemx_X:
# pshmemx_X; the deprecated start_pes, shmalloc, ... : pstart_pes,
# pshmalloc, ...), and X stays as a weak alias of it.  The layer's own
# calls of X are renamed too, so a profiling library that defines X (and
# calls pshmem_X) sees the program's calls only, once each.
#
#   scripts/pshmem-alias.sh OUTDIR OBJ...     writes OUTDIR/<basename of OBJ>
#
# and OUTDIR/libshmem.map, the shared library's exports: the routines under
# both names and what the inline fast paths of <shmem.h> reach, nothing
# else.
set -eu
out=$1
shift
mkdir -p "$out"
OBJCOPY=${OBJCOPY:-objcopy}
READELF=${READELF:-readelf}
legacy='start_pes|shmalloc|shfree|shrealloc|shmemalign|_my_pe|_num_pes'
# The routines: global functions the objects define.
funcs() {
	"$READELF" -sW "$1" | awk -v re="^(shmemx?_[a-z0-9]|($legacy)\$)" \
		'$4 == "FUNC" && $5 == "GLOBAL" && $7 != "UND" && $8 ~ re { print $2, $7, $8 }'
}
map=$(mktemp)
trap 'rm -f "$map"' EXIT
for o in "$@"; do
	# LTO bytecode would keep the old names: the objects must be machine code.
	if "$READELF" -SW "$o" | grep -q '\.gnu\.lto_'; then
		echo "pshmem-alias.sh: $o holds LTO bytecode (compile it with -fno-lto)" >&2
		exit 1
	fi
	funcs "$o"
done | awk '{ print $3 }' | sort -u | while read -r f; do
	echo "$f p$f"
done >"$map"
[ -s "$map" ] || { echo "pshmem-alias.sh: no routine found in $*" >&2; exit 1; }
for o in "$@"; do
	# Section index -> name, for the aliases' places.
	declare -A sec=()
	while read -r idx name; do
		sec[$idx]=$name
	done < <("$READELF" -SW "$o" | sed -n 's/^ *\[ *\([0-9]*\)\] \([^ ]*\) .*/\1 \2/p')
	args=()
	while read -r value ndx f; do
		args+=(--add-symbol "$f=${sec[$ndx]}:0x$value,function,weak")
	done < <(funcs "$o")
	"$OBJCOPY" --redefine-syms="$map" "${args[@]}" "$o" "$out/$(basename "$o")"
	unset sec
done
{
	echo "LIBSHMEM_0 {"
	echo "	global:"
	awk '{ print "\t\t" $1 ";\n\t\t" $2 ";" }' "$map"
	# <shmem.h>'s inline paths.
	for s in shmem__hv shmem__i_fail shmem__ctx_default shmem__team_world shmem__team_shared; do
		echo "		$s;"
	done
	echo "		shmem__fast_abi_*;"
	echo "	local:"
	echo "		*;"
	echo "};"
} >"$out/libshmem.map"

#!/bin/bash
# modules.sh KVER DIR MODULE...: copies into DIR the modules of Debian's
# KVER that load MODULE... (each with its dependencies, in the load order of
# modprobe's own resolution of KVER's modules.dep), decompressed since
# busybox's insmod reads plain .ko, and lists their file names in DIR/order.
# A module built into the kernel needs nothing.  Exits non-zero, naming it,
# when a module is missing.
set -eu
KVER=$1 DIR=$2
shift 2
mkdir -p "$DIR"
: >"$DIR/order"
deps=
for m; do
	if ! d=$(/sbin/modprobe -S "$KVER" --show-depends "$m" 2>&1); then
		echo "modules.sh: modprobe finds no $m for $KVER: $d" >&2
		exit 1
	fi
	deps+=$(echo "$d" | awk '$1 == "insmod" {print $2}')$'\n'
done
echo -n "$deps" | awk 'NF && !seen[$0]++' | while read -r ko; do
	[ -f "$ko" ] || { echo "modules.sh: no module $ko" >&2; exit 1; }
	name=$(basename "$ko")
	case "$ko" in
	*.xz) name=${name%.xz}; xz -dc "$ko" >"$DIR/$name" ;;
	*.zst) name=${name%.zst}; zstd -qdc "$ko" >"$DIR/$name" ;;
	*.gz) name=${name%.gz}; gzip -dc "$ko" >"$DIR/$name" ;;
	*) cp "$ko" "$DIR/$name" ;;
	esac
	echo "$name" >>"$DIR/order"
done

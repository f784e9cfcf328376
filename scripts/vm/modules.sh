#!/bin/bash
# modules.sh KVER DIR MODULE...: copies into DIR the modules of Debian's
# KVER that load MODULE... (each with its dependencies, in the load order of
# modprobe's own resolution of KVER's modules.dep), decompressed since
# busybox's insmod reads plain .ko, and lists their file names in DIR/order.
# Exits non-zero, naming it, when a module is missing.
set -eu
KVER=$1 DIR=$2
shift 2
mkdir -p "$DIR"
: >"$DIR/order"
for m; do
	/sbin/modprobe -S "$KVER" --show-depends "$m" 2>/dev/null | awk '$1 == "insmod" {print $2}'
done | awk '!seen[$0]++' | while read -r ko; do
	[ -f "$ko" ] || { echo "modules.sh: no module $ko" >&2; exit 1; }
	name=$(basename "$ko"); name=${name%.xz}
	case "$ko" in
	*.xz) xz -dc "$ko" >"$DIR/$name" ;;
	*) cp "$ko" "$DIR/$name" ;;
	esac
	echo "$name" >>"$DIR/order"
done

#!/bin/bash
# bed.sh - a test bed of 2 to 4 "hosts" on one machine, for multi-host jobs
# (docs/testing.md, "The namespace bed").
#
#   bed.sh up [N]               N hosts h1..hN (default 2)
#   bed.sh down                 ends every process of the bed, removes it
#   bed.sh exec HOST CMD...     runs CMD on HOST (in its namespaces, this cwd)
#   bed.sh run-mpirun ARGS...   mpirun ARGS on h1, its other hosts reached
#                               through bed.sh's agent (no ssh)
#   bed.sh status               the hosts, their addresses, what runs there
#   bed.sh hosts                "h1,h2,..." (for mpirun --host)
#
# Each host is a network namespace "<BED_NAME>-hK" (ip netns) with one
# veth "bed0" at 10.222.0.K/24 (BED_NET), its own UTS hostname hK, its own
# mount namespace with a private /dev/shm (tmpfs) and /etc/hosts naming
# the bed's hosts, and its own IPC namespace; a keeper process (sleep)
# holds those.  The veths' other ends join a bridge "br0" that lives in a
# namespace "<BED_NAME>-sw" of its own.  Nothing is added to the root
# network namespace: no link, no bridge, no address, no route.  Traffic
# stays on loopback or inside the bed's namespaces.
#
# Root only (ip netns, nsenter).  Every wait is bounded; `down` is
# idempotent and is what the check script's trap runs on every exit path.
set -u
BED_NAME=${BED_NAME:-pgasbed}
BED_NET=${BED_NET:-10.222.0}
STATE=${BED_STATE:-/run/$BED_NAME}
SELF=$(readlink -f "$0")

die() { echo "bed.sh: $*" >&2; exit 1; }

need_root() {
	[ "$(id -u)" = 0 ] || die "needs root (ip netns, nsenter)"
	for t in ip nsenter unshare; do
		command -v "$t" >/dev/null || die "needs $t (iproute2, util-linux)"
	done
}

nhosts() { cat "$STATE/nhosts" 2>/dev/null || echo 0; }

keeper_pid() {
	local p
	p=$(cat "$STATE/$1.pid" 2>/dev/null) || die "no host $1 (bed.sh up first)"
	kill -0 "$p" 2>/dev/null || die "host $1's keeper ($p) is gone"
	echo "$p"
}

# A command in HOST's namespaces: network, UTS, mount, IPC.
in_host() {
	local host=$1 pid
	shift
	pid=$(keeper_pid "$host") || exit 1
	exec nsenter -t "$pid" -n -u -m -i --wd="$PWD" -- "$@"
}

up() {
	local n=${1:-2} k ns
	need_root
	case $n in 2|3|4) ;; *) die "up: 2 to 4 hosts, not '$n'" ;; esac
	[ -e "$STATE/nhosts" ] && die "a bed is up ($STATE): bed.sh down first"
	mkdir -p "$STATE" || die "cannot create $STATE"
	echo "$n" >"$STATE/nhosts"
	{
		echo "127.0.0.1 localhost"
		for k in $(seq 1 "$n"); do echo "$BED_NET.$k h$k"; done
	} >"$STATE/hosts"
	# The switch: a namespace with a bridge.
	ip netns add "$BED_NAME-sw" || { down; die "ip netns add $BED_NAME-sw failed"; }
	ip -n "$BED_NAME-sw" link add br0 type bridge &&
	ip -n "$BED_NAME-sw" link set br0 up &&
	ip -n "$BED_NAME-sw" link set lo up || { down; die "bridge setup failed"; }
	for k in $(seq 1 "$n"); do
		ns=$BED_NAME-h$k
		ip netns add "$ns" || { down; die "ip netns add $ns failed"; }
		# Both ends are created in their namespaces (ip -n): never in root's.
		ip -n "$BED_NAME-sw" link add "p-h$k" type veth peer name bed0 netns "$ns" &&
		ip -n "$BED_NAME-sw" link set "p-h$k" master br0 &&
		ip -n "$BED_NAME-sw" link set "p-h$k" up &&
		ip -n "$ns" link set lo up &&
		ip -n "$ns" addr add "$BED_NET.$k/24" dev bed0 &&
		ip -n "$ns" link set bed0 up || { down; die "links of h$k failed"; }
		# The keeper: UTS, mount and IPC namespaces inside the netns.
		rm -f "$STATE/h$k.pid"
		setsid ip netns exec "$ns" unshare --uts --mount --ipc --propagation private \
			sh -c 'hostname "$1" && mount -t tmpfs -o mode=1777,size=1g tmpfs /dev/shm &&
				mount --bind "$2/hosts" /etc/hosts && echo $$ >"$2/$1.pid.new" &&
				mv "$2/$1.pid.new" "$2/$1.pid" && exec sleep infinity' \
			keeper "h$k" "$STATE" </dev/null >/dev/null 2>"$STATE/h$k.err" &
	done
	for k in $(seq 1 "$n"); do
		for _ in $(seq 1 100); do
			[ -s "$STATE/h$k.pid" ] && break
			sleep 0.05
		done
		[ -s "$STATE/h$k.pid" ] || { cat "$STATE/h$k.err" >&2; down; die "h$k's keeper did not start"; }
	done
	# The agent mpirun runs instead of ssh: "agent [opts] HOST CMD..." runs
	# CMD (a shell command line, as ssh runs it) on HOST.
	cat >"$STATE/agent" <<-EOF
	#!/bin/sh
	while [ \$# -gt 0 ]; do case \$1 in -*) shift ;; *) break ;; esac; done
	host=\$1
	shift
	BED_NAME=$BED_NAME BED_NET=$BED_NET BED_STATE=$STATE exec "$SELF" exec "\$host" sh -c "\$*"
	EOF
	chmod 755 "$STATE/agent"
	# h1 reaches every other host: a TCP connection to a closed port is
	# refused (a reset came back) rather than timed out (bounded: 20 tries).
	for k in $(seq 2 "$n"); do
		for _ in $(seq 1 20); do
			reach h1 "$BED_NET.$k" && break
			sleep 0.1
		done
		reach h1 "$BED_NET.$k" || { down; die "h1 cannot reach h$k ($BED_NET.$k)"; }
	done
	echo "bed.sh: $n hosts up: $(hosts_list) ($BED_NET.1-$n, bridge in $BED_NAME-sw)"
}

# reach HOST ADDR: HOST gets an answer from ADDR (port 9, closed: refused).
reach() {
	"$SELF" exec "$1" timeout 2 bash -c "exec 3<>/dev/tcp/$2/9" 2>&1 | grep -q refused
}

hosts_list() {
	local n k out=
	n=$(nhosts)
	for k in $(seq 1 "$n"); do out=${out:+$out,}h$k; done
	echo "$out"
}

# Ends every process in the bed's namespaces (bounded), then the namespaces.
down() {
	local ns pids k
	need_root
	for ns in $(ip netns list 2>/dev/null | awk '{print $1}' | grep -E "^$BED_NAME-(h[0-9]+|sw)\$"); do
		for sig in TERM KILL; do
			pids=$(ip netns pids "$ns" 2>/dev/null)
			[ -n "$pids" ] || break
			kill -s "$sig" $pids 2>/dev/null
			for _ in $(seq 1 20); do
				[ -z "$(ip netns pids "$ns" 2>/dev/null)" ] && break
				sleep 0.05
			done
		done
		ip netns del "$ns" 2>/dev/null || echo "bed.sh: could not remove $ns" >&2
	done
	# Keepers whose netns went first (they cannot be: belt and braces).
	for k in "$STATE"/h*.pid; do
		[ -s "$k" ] && kill -KILL "$(cat "$k")" 2>/dev/null
	done
	rm -rf "$STATE"
	return 0
}

status() {
	local n k p
	n=$(nhosts)
	[ "$n" -gt 0 ] || { echo "bed.sh: no bed up"; return 1; }
	for k in $(seq 1 "$n"); do
		p=$(cat "$STATE/h$k.pid" 2>/dev/null)
		echo "h$k: $BED_NET.$k keeper $p, processes: $(ip netns pids "$BED_NAME-h$k" | wc -l)"
	done
}

cmd=${1:-}
[ $# -gt 0 ] && shift
case $cmd in
up) up "$@" ;;
down) down ;;
exec)
	[ $# -ge 2 ] || die "exec HOST CMD..."
	need_root
	in_host "$@" ;;
run-mpirun)
	need_root
	command -v mpirun >/dev/null || die "needs mpirun (openmpi-bin)"
	[ "$(nhosts)" -gt 0 ] || die "no bed up"
	# Runs on h1; the daemons talk over the bed's subnet only.  No
	# binding: every host's daemon sees all the machine's cores and would
	# bind each host's first rank to core 0 (ranks that poll then share
	# one core: 10x slower jobs across hosts, measured).
	in_host h1 env OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 \
		OMPI_MCA_plm_rsh_agent="$STATE/agent" \
		OMPI_MCA_oob_tcp_if_include="$BED_NET.0/24" \
		OMPI_MCA_btl_tcp_if_include="$BED_NET.0/24" \
		OMPI_MCA_rmaps_base_oversubscribe=1 \
		OMPI_MCA_hwloc_base_binding_policy=none \
		mpirun "$@" ;;
status) status ;;
hosts) hosts_list ;;
*) sed -n '2,/^$/s/^# \{0,1\}//p' "$SELF" >&2; exit 2 ;;
esac

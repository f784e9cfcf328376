#!/bin/sh
# Inside the VM (busybox sh): the ofi conduit over libfabric's verbs
# provider (verbs;ofi_rxm) on Debian's soft-RoCE (rdma_rxe) over a veth
# pair of this VM's own: the path of InfiniBand/RoCE clusters (provider
# keys, FI_MR_LOCAL, rdmacm connections).  scripts/vm/rxe-root.sh put the
# modules, libraries and dynamic test programs under /rxe.
# busybox sh runs its own applets (ip) before PATH: iproute2 by full path.
export PATH=/rxe/bin:$PATH
check() {	# check LABEL CMD...: one result line for a command
	label=$1
	shift
	if "$@" >/tmp/rxe.out 2>&1; then
		echo "ok - $label [rxe]"
	else
		echo "not ok - $label (exit $?) [rxe]"
		tail -n 20 /tmp/rxe.out | sed 's/^/# /'
		return 1
	fi
}
loadmods() {
	while read -r m; do
		grep -q "^${m%.ko} " /proc/modules || insmod "/rxe/mod/$m" || return 1
	done </rxe/mod/order
}
check "insmod $(tr '\n' ' ' </rxe/mod/order)" loadmods || exit 0
setup() {
	/rxe/bin/ip link set lo up &&
	/rxe/bin/ip link add rxv0 type veth peer name rxv1 &&
	/rxe/bin/ip addr add 10.77.0.1/24 dev rxv0 &&
	/rxe/bin/ip addr add 10.77.0.2/24 dev rxv1 &&
	/rxe/bin/ip link set rxv0 up && /rxe/bin/ip link set rxv1 up &&
	rdma link add rxe0 type rxe netdev rxv0 &&
	rdma link show
}
# librdmacm resolves the node's name (getaddrinfo): without /etc/hosts
# that fails EAI_AGAIN and fi_getinfo finds no verbs RDM endpoint.
hostname rxevm
printf '127.0.0.1 localhost\n10.77.0.1 rxevm\n' >/etc/hosts
echo 'hosts: files' >/etc/nsswitch.conf
check "veth pair rxv0/rxv1 (10.77.0.1, .2), rdma link add rxe0 on rxv0" setup || exit 0
# The port comes up with the veth's carrier.
i=0
while ! rdma link show rxe0/1 | grep -q 'state ACTIVE' && [ $i -lt 50 ]; do
	sleep 0.2
	i=$((i + 1))
done
check "fi_info -p verbs lists rxe0's RDM endpoint (verbs;ofi_rxm)" \
	sh -c 'fi_info -p "verbs;ofi_rxm" -t FI_EP_RDM && fi_info -p "verbs;ofi_rxm" -t FI_EP_RDM | grep -q "domain: rxe0"' || exit 0
sed "s/^/# /" /tmp/rxe.out | head -n 6
export PGAS_CONDUIT=ofi PGAS_MAP_PEERS=none FI_PROVIDER=verbs PGAS_ERROR_MODE=quiet
run() {	# run LABEL CMD...
	label=$1
	shift
	t0=$(date +%s)
	"$@" >/tmp/run.out 2>/tmp/run.err
	rc=$?
	grep -E '^(ok|not ok) ' /tmp/run.out | sed "s/\$/ [rxe]/"
	if [ $rc -eq 0 ]; then
		echo "ok - $label exits 0 ($(($(date +%s) - t0)) s)"
	else
		echo "not ok - $label exits $rc"
		grep -v '^  PGAS_' /tmp/run.err | tail -n 15 | sed 's/^/# /'
		# A crash: where (the kernel's line names the library and offset).
		dmesg | grep ' segfault at ' | tail -n 2 | sed 's/^/# /'
	fi
}
# Each run is 2 ranks of one host on rxe0: rxm connects them through
# rdmacm, RMA is RDMA write/read with provider keys, local buffers are
# registered or bounced (FI_MR_LOCAL).  Under TCG a round trip costs
# milliseconds: the counts are cut where a test takes them (about 2.5 min
# in all on a quiet host; RXE_FULL=1 on the kernel command line adds coll
# and shmem/amo, about 3.5 min more).
PGAS_VERBOSEENV=1 run "am -n 2 over verbs;ofi_rxm on rxe0" pgasrun -n 2 -t 300 /rxe/bin/am
grep '^pgas: ofi conduit: ' /tmp/run.err | sed 's/^/# /'
for t in rma signal; do
	run "$t -n 2 over verbs;ofi_rxm on rxe0" pgasrun -n 2 -t 300 /rxe/bin/$t
done
run "barrier -n 2 over verbs;ofi_rxm on rxe0 (200 rounds)" pgasrun -n 2 -t 300 /rxe/bin/barrier 200
# Atomics go by AM round trips (docs/ofi.md): 200 of each per rank, not 2000.
run "atomics -n 2 over verbs;ofi_rxm on rxe0 (200 each)" pgasrun -n 2 -t 300 /rxe/bin/atomics 200
run "shmem/rma -n 2 over verbs;ofi_rxm on rxe0" pgasrun -n 2 -t 300 /rxe/shmem/rma
# Exits right after the peer's (libfabric 1.17's rxm crashed closing its
# endpoint then, 1 in 5 to 14 runs; docs/testing.md): 8 short jobs.
exits() {
	for i in 1 2 3 4 5 6 7 8; do
		pgasrun -n 2 -t 120 /rxe/bin/barrier 10 >/dev/null 2>/tmp/exit.err ||
			{ echo "run $i: exit $?"; grep -v '^  PGAS_' /tmp/exit.err | tail -n 5
			  dmesg | grep ' segfault at ' | tail -n 1; return 1; }
	done
}
check "exits: 8 jobs of barrier 10 over verbs;ofi_rxm, no rank crashes after its peer left" exits
if [ -n "${RXE_FULL:-}" ]; then
	run "coll -n 2 over verbs;ofi_rxm on rxe0 (quick)" pgasrun -n 2 -t 600 /rxe/bin/coll quick
	run "shmem/amo -n 2 over verbs;ofi_rxm on rxe0" pgasrun -n 2 -t 300 /rxe/shmem/amo
fi

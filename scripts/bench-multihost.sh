#!/bin/bash
# make bench-multihost: libpgas across the namespace bed (scripts/multihost/
# bed.sh), in one run, against raw libfabric on the same provider, Open MPI,
# MPICH and Open MPI's oshmem (issue 22, "Benchmarks"):
#
#   scripts/bench-multihost.sh [BUILD_DIR]      (default: build; root only)
#
# 2 hosts (h1:1,h2:1): pgas_bench (lat am rate barrier bw) over the ofi
#   conduit (PGAS_CONDUIT=ofi, FI_PROVIDER=tcp on the bed's links),
#   bench/peers/fi_raw (raw libfabric, same provider and endpoint setup),
#   mpi_bench under Open MPI and MPICH, shmem_bench under oshmem.
# 2 and 3 hosts: the collectives (pgas-tune --bench --choice, mpi_coll,
#   shmem_coll) on barrier, broadcast, gather_all, exchange, reduce_all.
# One host: callgrind counts of the remote put (nbi), sync and AM Short over
#   ofi with PGAS_MAP_PEERS=none (libfabric's calls included), beside the
#   SFI paper's 16 / 11 / 106.
#
# Which path each peer takes (no peer here can take another):
#   Open MPI  --mca pml cm --mca mtl ofi (libfabric tcp, FI_TCP_IFACE=bed0);
#             one-sided through osc pt2pt over that pml (osc rdma wants a BTL
#             with RDMA: btl ofi refuses the tcp provider, measured)
#   MPICH     Debian's is built ch4:ucx (mpichversion): no libfabric path;
#             UCX's tcp transport on bed0 (UCX_TLS=tcp,self); hydra reaches
#             the other hosts through bed.sh's agent (-launcher-exec)
#   oshmem    spml ucx is the only spml Debian ships: UCX tcp on bed0
#
# Writes build/bench-multihost/results.txt (RESULT lines), report.txt and
# report.json (scripts/bench_multihost_report.py).  PGAS_BENCH_SCALE divides
# every program's iteration counts so that the run stays near 15 minutes
# on a loaded 2-core machine: LAT_SCALE (default 10000: 20 raw round trips
# a repetition) with LAT_REPS repetitions (default 50: the best kept, so
# that it misses the bursts of other work) for the latency sections of
# libpgas (call, pingpong, am) and fi_raw, P2P_SCALE (1000) for the rest of
# the 2-host programs, COLL_SCALE (50) for the collectives.  The 2-host
# libpgas and raw sections run BENCH_ROUNDS times (default 3), alternated,
# and the report keeps the best of each.  Every job is
# bounded (BENCH_TIMEOUT seconds, default 120); pgas_bench runs a job per
# section; a job that fails or times out is a NOTE, its columns "skipped".
# The bed goes down on every exit path.
set -u
cd "$(dirname "$0")/.." || exit 1
B=$(cd "${1:-build}" && pwd) || exit 1
OUT=$B/bench-multihost
BED=scripts/multihost/bed.sh
TL=${BENCH_TIMEOUT:-120}
LAT_SCALE=${LAT_SCALE:-10000}
LAT_REPS=${LAT_REPS:-50}
P2P_SCALE=${P2P_SCALE:-1000}
COLL_SCALE=${COLL_SCALE:-50}
ROUNDS=${BENCH_ROUNDS:-3}
export PGAS_BENCH_SCALE=$P2P_SCALE PGAS_BENCH_REPS=5
export BED_NAME=${BED_NAME:-pgasmb$$}
export BED_STATE=/run/$BED_NAME
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
COLLS="barrier broadcast gather_all exchange reduce_all"
mkdir -p "$OUT/peers"
raw=$OUT/results.txt
: >"$raw"
bed_up=
tmp=$(mktemp -d)
cleanup() {
	[ -n "$bed_up" ] && "$BED" down >/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT TERM HUP

note() { echo "NOTE $*" >>"$raw"; echo "bench-multihost: $*" >&2; }
die() { echo "bench-multihost: $*" >&2; exit 1; }
# run LABEL CMD...: appends the job's RESULT lines (as scripts/bench.sh).
run() {
	local label=$1 rc
	shift
	echo "bench-multihost: $label" >&2
	# In the background: a signal's trap runs at once, not after the job.
	"$@" >"$tmp/out" 2>"$tmp/err" </dev/null &
	wait $!
	rc=$?
	if [ $rc -ne 0 ]; then
		grep -q '^RESULT ' "$tmp/out" || {
			note "$label: failed (exit $rc): $(grep -v '^$' "$tmp/err" | tail -n 2 | cut -c1-160 | tr '\n' ' ')"
			return
		}
		note "$label: exit $rc ignored (results were printed before it$([ $rc = 124 ] && echo "; timed out after ${TL}s, later ones missing"))"
	fi
	grep '^RESULT ' "$tmp/out" >>"$raw"
}

[ "$(id -u)" = 0 ] || die "needs root (the namespace bed)"
for t in ip nsenter unshare mpirun.openmpi; do
	command -v $t >/dev/null || die "needs $t (scripts/deps.sh multihost)"
done
make -s all || exit 1
"$B/bin/pgasrun" --version | grep -q '^conduits:.* ofi' ||
	die "the ofi conduit is not built (libfabric-dev; scripts/deps.sh multihost)"
# The peers.  Open MPI by its own names: mpicc/mpirun may be either MPI.
cc -std=c11 -O2 -Wall -Wextra -Werror -o "$OUT/peers/fi_raw" bench/peers/fi_raw.c -lfabric ||
	die "bench/peers/fi_raw.c did not build (libfabric-dev)"
for p in mpi_bench mpi_coll; do
	mpicc.openmpi -O2 -o "$OUT/peers/${p}_openmpi" bench/peers/$p.c 2>"$tmp/err" ||
		note "Open MPI: $p did not build: $(head -n 1 "$tmp/err")"
	if command -v mpicc.mpich >/dev/null && command -v mpirun.mpich >/dev/null; then
		mpicc.mpich -O2 -o "$OUT/peers/${p}_mpich" bench/peers/$p.c 2>"$tmp/err" ||
			note "MPICH: $p did not build: $(head -n 1 "$tmp/err")"
	fi
done
command -v mpirun.mpich >/dev/null || note "MPICH: skipped (mpich not installed: scripts/deps.sh bench)"
for p in shmem_bench shmem_coll; do
	command -v oshcc >/dev/null && oshcc -O2 -o "$OUT/peers/$p" bench/peers/$p.c 2>"$tmp/err" ||
		note "oshmem: $p skipped (oshcc missing or did not build)"
done

OFI_ENV="-x FI_PROVIDER=tcp -x FI_TCP_IFACE=bed0 -x PGAS_BENCH_SCALE -x PGAS_BENCH_REPS"
# The latency sections: many short repetitions, the best kept (bench.h).
lat_env() { export PGAS_BENCH_SCALE=$LAT_SCALE PGAS_BENCH_REPS=$LAT_REPS; }
p2p_env() { export PGAS_BENCH_SCALE=$P2P_SCALE PGAS_BENCH_REPS=5; }
UCX_ENV="-x UCX_TLS=tcp,self -x UCX_NET_DEVICES=bed0 -x PGAS_BENCH_SCALE"
OMPI_OFI="--mca pml cm --mca mtl ofi --mca mtl_ofi_provider_include tcp --mca osc pt2pt"
# mpirun (Open MPI) across HOSTS (h1,h2 or h1,h2,h3), one rank a host;
# bounded (timeout signals mpirun itself: bed.sh execs it).
on_bed() {
	local hosts=$1
	shift
	timeout "$TL" "$BED" run-mpirun --host "$hosts" -n "$(echo "$hosts" | tr ',' '\n' | wc -l)" "$@"
}
# MPICH's hydra on h1, the other hosts reached through the bed's agent.
mpich_on_bed() {
	local hosts=$1
	shift
	timeout "$TL" "$BED" exec h1 env UCX_TLS=tcp,self UCX_NET_DEVICES=bed0 PGAS_BENCH_SCALE="$PGAS_BENCH_SCALE" \
		mpirun.mpich -launcher ssh -launcher-exec "$BED_STATE/agent" -iface bed0 \
		-genvall -hosts "$hosts" -n "$(echo "$hosts" | tr ',' '\n' | wc -l)" "$@"
}

for nh in 2 3; do
	hosts=$(seq -s, -f 'h%g' 1 $nh)
	bed_up=1
	timeout 60 "$BED" up $nh >/dev/null || die "bed.sh up $nh failed"
	if [ $nh = 2 ]; then
		# libpgas and raw libfabric in alternated rounds (BENCH_ROUNDS),
		# the best of each kept (scripts/bench_results.py): on a loaded
		# machine a burst of other work then hits both sides alike.
		# Spinning waits, as make bench's latency runs; a job per section.
		for round in $(seq "$ROUNDS"); do
			for sec in call pingpong am rate barrier bw; do
				case $sec in call|pingpong|am) lat_env ;; esac
				run "libpgas (ofi conduit, tcp), 2 hosts: $sec (round $round)" on_bed $hosts $OFI_ENV \
					-x PGAS_CONDUIT=ofi -x PGAS_WAIT_MODE=spin "$B/bench/pgas_bench" $sec
				p2p_env
			done
			for sec in lat "bw rate"; do
				[ "$sec" = lat ] && lat_env
				rm -f "$tmp"/addr.*
				run "raw libfabric (fi_raw, tcp), 2 hosts: $sec (round $round)" on_bed $hosts $OFI_ENV \
					"$OUT/peers/fi_raw" "$tmp" $sec
				p2p_env
			done
		done
		[ -x "$OUT/peers/mpi_bench_openmpi" ] && run "Open MPI (pml cm, mtl ofi: tcp), 2 hosts" \
			on_bed $hosts $OFI_ENV $OMPI_OFI "$OUT/peers/mpi_bench_openmpi" openmpi
		[ -x "$OUT/peers/mpi_bench_mpich" ] && run "MPICH (ch4:ucx, tcp), 2 hosts" \
			mpich_on_bed $hosts "$OUT/peers/mpi_bench_mpich" mpich
		# oshmem prints before shmem_finalize, which crashes in this build.
		[ -x "$OUT/peers/shmem_bench" ] && run "oshmem (spml ucx, tcp), 2 hosts" \
			on_bed $hosts $UCX_ENV "$OUT/peers/shmem_bench"
	fi
	# Collectives: the tuner's choice (no tuning file: the model), every
	# rank on a host of its own; default waits (3 spinning ranks on 2 cores
	# starve each other).
	export PGAS_BENCH_SCALE=$COLL_SCALE
	run "libpgas collectives, $nh hosts" on_bed $hosts $OFI_ENV -x PGAS_CONDUIT=ofi \
		"$B/bin/pgas-tune" --bench --choice $COLLS
	[ -x "$OUT/peers/mpi_coll_openmpi" ] && run "Open MPI collectives, $nh hosts" \
		on_bed $hosts $OFI_ENV $OMPI_OFI "$OUT/peers/mpi_coll_openmpi" openmpi $COLLS
	[ -x "$OUT/peers/mpi_coll_mpich" ] && run "MPICH collectives, $nh hosts" \
		mpich_on_bed $hosts "$OUT/peers/mpi_coll_mpich" mpich $COLLS
	[ -x "$OUT/peers/shmem_coll" ] && run "oshmem collectives, $nh hosts" \
		on_bed $hosts $UCX_ENV "$OUT/peers/shmem_coll"
	export PGAS_BENCH_SCALE=$P2P_SCALE
	"$BED" down >/dev/null
	bed_up=
done

# Instruction counts of the remote paths: one host, the peer unmapped
# (PGAS_MAP_PEERS=none: every AM and RMA crosses libfabric, tcp on lo).
# bench/icount under callgrind as scripts/icount.sh runs it over shm (whose
# counts are printed beside).  The calls enqueue into the peer's proxy ring;
# libfabric's fi_inject/fi_send run when progress ships the message, so
# their inclusive cost (libfabric and the tcp;ofi_rxm provider) per message
# shipped is counted apart (icount_ofi.fabric_send) and added to put and AM
# Short (one message each) for the "with libfabric" rows.
if command -v valgrind >/dev/null; then
	echo "bench-multihost: instruction counts over ofi (callgrind)" >&2
	PGAS_CONDUIT=ofi PGAS_MAP_PEERS=none FI_PROVIDER=tcp FI_TCP_IFACE=lo PGAS_VERBOSEENV=1 \
		timeout 300 "$B/bin/pgasrun" -n 2 -t 300 valgrind --tool=callgrind \
		--callgrind-out-file="$tmp/callgrind.%q{PGAS_RANK}" "$B/bench/icount" \
		>/dev/null 2>"$tmp/icount.err"
	shipped=$(sed -n 's/^pgas\[0\]: ofi conduit: \([0-9]*\) messages shipped.*/\1/p' "$tmp/icount.err")
	if [ -s "$tmp/callgrind.0" ] && [ -n "$shipped" ]; then
		callgrind_annotate --inclusive=yes "$tmp/callgrind.0" 2>/dev/null >"$tmp/ann"
		sed -n 's/^ *\([0-9,]*\) .*=> .*:ic_\([a-z_0-9]*\) (\([0-9,]*\)x)$/\1 \2 \3/p' "$tmp/ann" |
			tr -d , | awk '{ printf "RESULT icount_ofi.%s %g instr\n", $2, $1 / $3 }' >>"$raw"
		# The inline fi_inject/fi_send of ship_ring (rdma/fi_endpoint.h's
		# lines): their calls into libfabric, per message shipped.
		awk -v n="$shipped" 'NF >= 2 && $NF ~ /fi_endpoint\.h:ship_ring$/ {
			gsub(",", "", $1); s += $1 } END { if (s && n) printf "RESULT icount_ofi.fabric_send %g instr\n", s / n }' \
			"$tmp/ann" >>"$raw"
		echo "NOTE icount over ofi: rank 0 shipped $shipped messages" >>"$raw"
	else
		note "instruction counts over ofi: failed: $(tail -n 2 "$tmp/icount.err" | tr '\n' ' ')"
	fi
	timeout 300 scripts/icount.sh "$B" >"$tmp/ic" 2>&1 &&
		awk '{ print "RESULT icount.shm." $1, $2, "instr" }' "$tmp/ic" >>"$raw" ||
		note "instruction counts over shm: failed"
else
	note "instruction counts: skipped (valgrind missing)"
fi
echo "NOTE machine: $(nproc) cores, $(uname -n), load average $(cut -d' ' -f1-3 /proc/loadavg) at the end; LAT_SCALE=$LAT_SCALE LAT_REPS=$LAT_REPS P2P_SCALE=$P2P_SCALE COLL_SCALE=$COLL_SCALE BENCH_ROUNDS=$ROUNDS (libpgas and raw alternated, best of each)" >>"$raw"
python3 scripts/bench_multihost_report.py "$raw" "$OUT/report.txt" "$OUT/report.json" &&
	cat "$OUT/report.txt"

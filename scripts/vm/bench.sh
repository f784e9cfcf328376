#!/bin/sh
# Inside the VM (make bench): the core benchmarks over the shm conduit and
# over pgas.ko in the same boot, alternating twice; RESULT lines renamed
# vm_shm.* / vm_kmod.* (the report keeps each metric's best run).
export PGAS_WAIT_MODE=spin PGAS_BENCH_SCALE=${PGAS_BENCH_SCALE:-40}
for round in 1 2; do
	for c in shm kmod; do
		PGAS_CONDUIT=$c pgasrun -n 2 -t 1500 /tests/pgas_bench lat am barrier |
			sed -n "s/^RESULT pgas\./RESULT vm_$c./p"
	done
done

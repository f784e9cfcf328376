/* SPDX-License-Identifier: MIT */
/*
 * hpcc_random.h - HPC Challenge RandomAccess's random stream (HPCC 1.5,
 * RandomAccess/utility.c), shared by bench/gups.c and its OpenSHMEM peer
 * bench/peers/shmem_gups.c.  Plain C11: the peers build it with oshcc.
 *
 *   ran = (ran << 1) ^ ((int64_t)ran < 0 ? POLY : 0), POLY 7,
 *   PERIOD 1317624576693539401; hpcc_starts(n) is the n-th value.
 */
#ifndef PGAS_HPCC_RANDOM_H
#define PGAS_HPCC_RANDOM_H

#include <stdint.h>

#define HPCC_POLY 0x0000000000000007ULL
#define HPCC_PERIOD 1317624576693539401LL

/* The next value of the stream. */
static inline uint64_t hpcc_next(uint64_t ran)
{
	return (ran << 1) ^ ((int64_t)ran < 0 ? HPCC_POLY : 0);
}

/* HPCC_starts: the n-th value of the stream, in O(log n). */
static inline uint64_t hpcc_starts(int64_t n)
{
	uint64_t m2[64], temp, ran;
	int i, j;

	while (n < 0)
		n += HPCC_PERIOD;
	while (n > HPCC_PERIOD)
		n -= HPCC_PERIOD;
	if (n == 0)
		return 1;
	temp = 1;
	for (i = 0; i < 64; i++) {
		m2[i] = temp;
		temp = hpcc_next(hpcc_next(temp));
	}
	for (i = 62; i >= 0; i--)
		if ((n >> i) & 1)
			break;
	ran = 2;
	while (i > 0) {
		temp = 0;
		for (j = 0; j < 64; j++)
			if ((ran >> j) & 1)
				temp ^= m2[j];
		ran = temp;
		i--;
		if ((n >> i) & 1)
			ran = hpcc_next(ran);
	}
	return ran;
}

#endif /* PGAS_HPCC_RANDOM_H */

/* SPDX-License-Identifier: MIT */
/*
 * spec_types.h - OpenSHMEM 1.5's type tables, as the specification lists
 * them (the spec's TYPE and TYPENAME columns; the fixed-width and other
 * typedefs as written there, whatever standard type they are here), for
 * generics.c.  Written from the spec, not from shmem.h, so that a type the
 * header's _Generic lists lack fails to compile.  X(TYPE, TYPENAME).
 */
#ifndef SPEC_TYPES_H
#define SPEC_TYPES_H

#include <stddef.h>
#include <stdint.h>

/* Table 5, standard RMA types: put, get, p, g, iput, iget, put_nbi,
 * get_nbi, put_signal(_nbi); and broadcast, collect, fcollect, alltoall(s). */
#define SPEC_RMA_TYPES(X)								\
	X(float, float) X(double, double) X(long double, longdouble) X(char, char)	\
	X(signed char, schar) X(short, short) X(int, int) X(long, long)			\
	X(long long, longlong) X(unsigned char, uchar) X(unsigned short, ushort)	\
	X(unsigned int, uint) X(unsigned long, ulong) X(unsigned long long, ulonglong)	\
	X(int8_t, int8) X(int16_t, int16) X(int32_t, int32) X(int64_t, int64)		\
	X(uint8_t, uint8) X(uint16_t, uint16) X(uint32_t, uint32) X(uint64_t, uint64)	\
	X(size_t, size) X(ptrdiff_t, ptrdiff)

/* Table 6, standard AMO types: inc, fetch_inc, add, fetch_add,
 * compare_swap and their _nbi forms. */
#define SPEC_AMO_TYPES(X)								\
	X(int, int) X(long, long) X(long long, longlong) X(unsigned int, uint)		\
	X(unsigned long, ulong) X(unsigned long long, ulonglong) X(int32_t, int32)	\
	X(int64_t, int64) X(uint32_t, uint32) X(uint64_t, uint64) X(size_t, size)	\
	X(ptrdiff_t, ptrdiff)

/* Table 7, extended AMO types: fetch, set, swap and their _nbi forms. */
#define SPEC_EXT_AMO_TYPES(X) X(float, float) X(double, double) SPEC_AMO_TYPES(X)

/* Table 8, bitwise AMO types: and, or, xor, fetch_and/or/xor (+ _nbi). */
#define SPEC_BIT_AMO_TYPES(X)								\
	X(unsigned int, uint) X(unsigned long, ulong) X(unsigned long long, ulonglong)	\
	X(int32_t, int32) X(int64_t, int64) X(uint32_t, uint32) X(uint64_t, uint64)

/* Table 9 (point-to-point synchronization): wait_until, test and their
 * _all/_any/_some and _vector forms. */
#define SPEC_P2P_TYPES(X)								\
	X(short, short) X(int, int) X(long, long) X(long long, longlong)		\
	X(unsigned short, ushort) X(unsigned int, uint) X(unsigned long, ulong)		\
	X(unsigned long long, ulonglong) X(int32_t, int32) X(int64_t, int64)		\
	X(uint32_t, uint32) X(uint64_t, uint64) X(size_t, size) X(ptrdiff_t, ptrdiff)

/* The reduction types table, by the operations each row lists:
 * AND, OR, XOR (the unsigned and fixed-width types); MAX, MIN (every
 * integer and real type); SUM, PROD (those and the complex types). */
#define SPEC_REDUCE_BIT_TYPES(X)							\
	X(unsigned char, uchar) X(unsigned short, ushort) X(unsigned int, uint)		\
	X(unsigned long, ulong) X(unsigned long long, ulonglong) X(int8_t, int8)	\
	X(int16_t, int16) X(int32_t, int32) X(int64_t, int64) X(uint8_t, uint8)		\
	X(uint16_t, uint16) X(uint32_t, uint32) X(uint64_t, uint64) X(size_t, size)
#define SPEC_REDUCE_CMP_TYPES(X)							\
	X(char, char) X(signed char, schar) X(short, short) X(int, int) X(long, long)	\
	X(long long, longlong) X(ptrdiff_t, ptrdiff) SPEC_REDUCE_BIT_TYPES(X)		\
	X(float, float) X(double, double) X(long double, longdouble)
#define SPEC_REDUCE_ARITH_TYPES(X)							\
	SPEC_REDUCE_CMP_TYPES(X) X(double _Complex, complexd) X(float _Complex, complexf)

#endif /* SPEC_TYPES_H */

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Innova hardware model: portability shim.
 *
 * The engine core (the sources module/hw/sources.mk lists) builds unchanged
 * both in the kernel module and on the host (unit tests, differential
 * tests, fuzzing).  This header is the only place that differs between the
 * two: fixed-width types, errno values, memory helpers and big-endian
 * load/store helpers written in plain C.
 */
#ifndef INNOVA_HW_PORT_H
#define INNOVA_HW_PORT_H

#ifdef __KERNEL__
#include <linux/types.h>
#include <linux/stddef.h>
#include <linux/string.h>
#include <linux/errno.h>
#include <linux/compiler.h>
#include <linux/bitops.h>	/* 6.12's net/checksum.h uses ror32() */
#include <net/checksum.h>

static inline void hw_memzero_explicit(void *p, size_t n)
{
	memzero_explicit(p, n);
}

/* One's complement sum of p[0..len) as 16-bit words, not folded. */
static inline u64 hw_csum_partial(const u8 *p, u32 len)
{
	return (__force u32)csum_partial(p, len, 0);
}

#else /* host */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <errno.h>

/* The kernel's names for the fixed-width types, from the compiler's own. */
typedef __UINT8_TYPE__ u8;
typedef __UINT16_TYPE__ u16;
typedef __UINT32_TYPE__ u32;
typedef __UINT64_TYPE__ u64;
typedef __INT32_TYPE__ s32;
typedef __INT64_TYPE__ s64;

#ifndef likely
#define likely(x)	__builtin_expect(!!(x), 1)
#define unlikely(x)	__builtin_expect(!!(x), 0)
#endif
#ifndef fallthrough
#define fallthrough	__attribute__((__fallthrough__))
#endif

/* One's complement sum of p[0..len) as 16-bit words, not folded. */
u64 hw_csum_partial(const u8 *p, u32 len);

static inline void hw_memzero_explicit(void *p, size_t n)
{
	memset(p, 0, n);
	/* keep the compiler from eliding the stores */
	__asm__ __volatile__("" : : "r"(p) : "memory");
}
#endif /* __KERNEL__ */

/* Big-endian helpers on byte pointers (no alignment assumptions). */
static inline u16 hw_get_be16(const u8 *p)
{
	return (u16)((u16)p[0] << 8 | p[1]);
}

static inline u32 hw_get_be32(const u8 *p)
{
	return (u32)p[0] << 24 | (u32)p[1] << 16 | (u32)p[2] << 8 | p[3];
}

static inline u64 hw_get_be64(const u8 *p)
{
	return (u64)hw_get_be32(p) << 32 | hw_get_be32(p + 4);
}

static inline void hw_put_be16(u8 *p, u16 v)
{
	p[0] = (u8)(v >> 8);
	p[1] = (u8)v;
}

static inline void hw_put_be32(u8 *p, u32 v)
{
	p[0] = (u8)(v >> 24);
	p[1] = (u8)(v >> 16);
	p[2] = (u8)(v >> 8);
	p[3] = (u8)v;
}

static inline void hw_put_be64(u8 *p, u64 v)
{
	hw_put_be32(p, (u32)(v >> 32));
	hw_put_be32(p + 4, (u32)v);
}

#endif /* INNOVA_HW_PORT_H */

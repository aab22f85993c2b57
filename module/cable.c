// SPDX-License-Identifier: GPL-2.0
/*
 * Innova cable: seeded, reproducible faults on one direction of the wire.
 *
 * Every port owns the direction it transmits on (struct innova_cable,
 * port->cable); nothing outside this file touches it. A frame put on the
 * cable (innova_cable_xmit()) goes through, in this order:
 *
 *   drop -> corrupt -> duplicate -> reorder (hold) -> delay -> peer RX ring
 *
 * and leaves it through innova_rx_enqueue() (main.c), the peer's RX DMA.
 * That is the one call back into main.c: the hold and delay timers release
 * frames on their own, so the cable end has to push them to the RX side.
 *
 * Decisions come from a splitmix64 PRNG reset by the "seed" knob, so a run
 * with the same seed, knobs and frame sequence hits the same frames. With
 * tcp_only=1 (default) only TCP frames carrying payload are eligible, so
 * ARP/ND, handshakes and pure ACKs pass untouched.
 *
 * Reorder holds one frame at a time; it is released after reorder_gap more
 * frames have passed, or by a timer after hold_ms. Delay keeps frames in a
 * FIFO and releases them in order from a soft hrtimer.
 *
 * Two more faults for the NIC's own rules: dup_mangle makes duplicates
 * that a NIC must not take for the flow (addressed to another host, or
 * carrying an 802.1Q tag) and sends them first; inject_ahead sends one copy
 * of a data segment far ahead in sequence that the receiving TCP discards
 * (its ACK covers data never sent) but a NIC sees; forge_ppm sends such
 * TCP-dropped copies at random, of four kinds, with forged TLS bytes.
 *
 * Two traffic patterns for the evaluation (docs/evaluation.md): tail_loss
 * loses frames that end a TLS record (the cable follows each connection's
 * record framing from its SYN, as a middlebox would), and stall stops the
 * direction for stall_ms, so that a stall past the sender's RTO makes TCP
 * send the window again: the receiver then gets a window of data twice.
 *
 * The knobs and counters live in debugfs (innova_cable_debugfs_add()):
 * writes outside a knob's range fail with -EINVAL and change nothing. The
 * counters' names (innova_cable_stat_names) are used by debugfs and, with
 * INNOVA_CABLE_STAT_PREFIX, by "ethtool -S" and the "counters" file.
 *
 * Locking: cable->lock protects the PRNG, the held frame and the delay
 * queue; it is taken from ndo_start_xmit (BH off) and the soft hrtimers
 * (softirq), with _bh from process context. Frames leaving the wire are
 * collected under the lock and handed to the peer after dropping it.
 */
#include <linux/debugfs.h>
#include <linux/etherdevice.h>
#include <linux/if_ether.h>
#include <linux/if_vlan.h>
#include <linux/ip.h>
#include <linux/jhash.h>
#include <linux/ipv6.h>
#include <linux/tcp.h>
#include <net/checksum.h>
#include <net/ip.h>
#include <net/ip6_checksum.h>
#include <net/tcp.h>

#include "innova.h"

#define INNOVA_CABLE_PPM		1000000U
#define INNOVA_CABLE_MAX_DELAY	10000U
#define INNOVA_CABLE_MANGLE_VID	7	/* no sub-interface uses it */

enum innova_cable_dup_mangle {
	INNOVA_CABLE_MANGLE_NONE,
	INNOVA_CABLE_MANGLE_OTHERHOST,
	INNOVA_CABLE_MANGLE_VLAN,
	INNOVA_CABLE_MANGLE_MAX = INNOVA_CABLE_MANGLE_VLAN,
};

struct innova_cable_cb {
	ktime_t due;
};

#define INNOVA_CABLE_CB(skb)	((struct innova_cable_cb *)(skb)->cb)

/* Offsets of a TCP segment inside a linear Ethernet frame. */
struct innova_cable_tcp {
	unsigned int l3;
	unsigned int l4;
	unsigned int payload;
	unsigned int end;	/* end of the IP datagram (before padding) */
	bool v6;
};

static u64 innova_cable_prng(struct innova_cable *c)
{
	u64 z = (c->prng += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static u32 innova_cable_below(struct innova_cable *c, u32 n)
{
	return (u32)(innova_cable_prng(c) >> 32) % n;
}

static bool innova_cable_roll(struct innova_cable *c, u32 ppm)
{
	if (!ppm)
		return false;
	return innova_cable_below(c, INNOVA_CABLE_PPM) < ppm;
}

/*
 * The burst model's step for one frame: true, lose it. Good -> bad with
 * probability p, bad -> good with r = 1 / burst_len; the bad state's
 * share of frames, p / (p + r), is the mean loss L: p = r L / (1 - L).
 *
 * A burst also ends when the link has been idle for
 * INNOVA_CABLE_BURST_IDLE_MS: the chain is clocked by frames, so a sender
 * that a burst put into RTO backoff would otherwise meet the same burst
 * with each single retransmission, seconds apart, and back off for
 * minutes (a 2 MiB transfer at 5 % in bursts of 8 stalled for over 7
 * minutes). A queue overflow or a fade does not outlast a silent link.
 */
#define INNOVA_CABLE_BURST_IDLE_MS	20

static bool innova_cable_burst_lost(struct innova_cable *c, u32 loss_ppm,
				    u32 burst_len)
{
	u64 r = INNOVA_CABLE_PPM / max(burst_len, 1U), p;
	ktime_t now = ktime_get();

	if (c->burst_bad &&
	    ktime_ms_delta(now, c->burst_last) > INNOVA_CABLE_BURST_IDLE_MS)
		c->burst_bad = false;
	if (c->burst_bad) {
		c->burst_last = now;
		if (innova_cable_roll(c, r))
			c->burst_bad = false;
		return true;
	}
	if (loss_ppm >= INNOVA_CABLE_PPM)
		p = INNOVA_CABLE_PPM;
	else
		p = div64_u64(r * loss_ppm, INNOVA_CABLE_PPM - loss_ppm);
	if (!innova_cable_roll(c, min_t(u64, p, INNOVA_CABLE_PPM)))
		return false;
	c->burst_bad = true;
	c->burst_last = now;
	atomic64_inc(&c->cnt[INNOVA_CABLE_LOSS_BURSTS]);
	/* a burst entered here loses this frame */
	if (innova_cable_roll(c, r))
		c->burst_bad = false;
	return true;
}

static bool innova_cable_parse_tcp(const struct sk_buff *skb,
				   struct innova_cable_tcp *f)
{
	const struct ethhdr *eth = (const struct ethhdr *)skb->data;
	const struct tcphdr *th;
	unsigned int len = skb_headlen(skb);

	if (len < ETH_HLEN)
		return false;
	f->l3 = ETH_HLEN;

	if (eth->h_proto == htons(ETH_P_IP)) {
		const struct iphdr *iph;
		unsigned int ihl, tot;

		if (len < f->l3 + sizeof(*iph))
			return false;
		iph = (const struct iphdr *)(skb->data + f->l3);
		ihl = iph->ihl * 4;
		tot = ntohs(iph->tot_len);
		if (iph->version != 4 || ihl < sizeof(*iph) || tot < ihl ||
		    f->l3 + tot > len)
			return false;
		if (iph->protocol != IPPROTO_TCP || ip_is_fragment(iph))
			return false;
		f->l4 = f->l3 + ihl;
		f->end = f->l3 + tot;
		f->v6 = false;
	} else if (eth->h_proto == htons(ETH_P_IPV6)) {
		const struct ipv6hdr *ip6h;

		if (len < f->l3 + sizeof(*ip6h))
			return false;
		ip6h = (const struct ipv6hdr *)(skb->data + f->l3);
		if (ip6h->version != 6 || ip6h->nexthdr != IPPROTO_TCP)
			return false;
		f->l4 = f->l3 + sizeof(*ip6h);
		f->end = f->l4 + ntohs(ip6h->payload_len);
		if (f->end > len)
			return false;
		f->v6 = true;
	} else {
		return false;
	}

	if (f->end < f->l4 + sizeof(*th))
		return false;
	th = (const struct tcphdr *)(skb->data + f->l4);
	f->payload = f->l4 + th->doff * 4;
	return th->doff >= 5 && f->payload <= f->end;
}

/* ---- tail loss: the frames that end a TLS record (cable lock held) ---- */

static u32 innova_cable_tuple_key(const struct sk_buff *skb,
				  const struct innova_cable_tcp *f)
{
	const struct tcphdr *th = (const struct tcphdr *)(skb->data + f->l4);
	u32 ports = ((u32)ntohs(th->source) << 16) | ntohs(th->dest);
	u32 key;

	if (f->v6)
		key = jhash(&((const struct ipv6hdr *)(skb->data + f->l3))->saddr,
			    2 * sizeof(struct in6_addr), ports);
	else
		key = jhash(&((const struct iphdr *)(skb->data + f->l3))->saddr,
			    2 * sizeof(__be32), ports);
	return key ?: 1;
}

/* A TLS record header as any version puts it on the wire */
static bool innova_cable_tls_hdr_ok(const u8 *h)
{
	u16 len = (h[3] << 8) | h[4];

	return h[0] >= 20 && h[0] <= 24 && h[1] == 3 && len &&
	       len <= 16384 + 2048;
}

/*
 * Follow a TCP frame through its connection's records: true if it carries
 * the last byte of one. New data only, in the order the sender sent it
 * (the cable sees it before any fault); a retransmission's old bytes are
 * not followed again, a gap or a header no TLS version writes ends the
 * follow (the connection is not TLS, or no longer followable).
 */
static bool innova_cable_follow_tls(struct innova_cable *c,
				    const struct sk_buff *skb,
				    const struct innova_cable_tcp *f)
{
	const struct tcphdr *th = (const struct tcphdr *)(skb->data + f->l4);
	u32 key = innova_cable_tuple_key(skb, f);
	struct innova_cable_follow *fl;
	u32 seq = ntohl(th->seq), end, pos, n;
	bool tail = false;

	fl = &c->follow[key % INNOVA_CABLE_FOLLOW_N];
	if (th->syn) {
		memset(fl, 0, sizeof(*fl));
		fl->key = key;
		fl->on = true;
		fl->next_seq = seq + 1;
		fl->hdr_seq = seq + 1;
		return false;
	}
	end = seq + (f->end - f->payload);
	if (fl->key != key || !fl->on || !after(end, fl->next_seq))
		return false;
	if (after(seq, fl->next_seq)) {
		fl->on = false;
		return false;
	}
	for (pos = fl->next_seq; before(pos, end);) {
		if (fl->hdr_n < sizeof(fl->hdr)) {
			n = min_t(u32, sizeof(fl->hdr) - fl->hdr_n, end - pos);
			if (skb_copy_bits(skb, f->payload + (pos - seq),
					  fl->hdr + fl->hdr_n, n)) {
				fl->on = false;
				return false;
			}
			fl->hdr_n += n;
			pos += n;
			if (fl->hdr_n < sizeof(fl->hdr))
				break;
			if (!innova_cable_tls_hdr_ok(fl->hdr)) {
				fl->on = false;
				return false;
			}
			fl->rec_end = fl->hdr_seq + sizeof(fl->hdr) +
				      ((fl->hdr[3] << 8) | fl->hdr[4]);
			continue;
		}
		if (after(fl->rec_end, end))
			break;
		pos = fl->rec_end;
		tail = true;
		fl->hdr_seq = pos;
		fl->hdr_n = 0;
	}
	fl->next_seq = end;
	return tail;
}

static bool innova_cable_has_payload(const struct sk_buff *skb)
{
	struct innova_cable_tcp f;

	return innova_cable_parse_tcp(skb, &f) && f.payload < f.end;
}

/* What a broken middlebox does after mangling the payload. */
static void innova_cable_fix_csum(struct sk_buff *skb,
				  const struct innova_cable_tcp *f)
{
	struct tcphdr *th = (struct tcphdr *)(skb->data + f->l4);
	unsigned int tcplen = f->end - f->l4;
	__wsum csum;

	th->check = 0;
	csum = csum_partial(th, tcplen, 0);
	if (f->v6) {
		const struct ipv6hdr *ip6h =
			(const struct ipv6hdr *)(skb->data + f->l3);

		th->check = csum_ipv6_magic(&ip6h->saddr, &ip6h->daddr,
					    tcplen, IPPROTO_TCP, csum);
	} else {
		const struct iphdr *iph =
			(const struct iphdr *)(skb->data + f->l3);

		th->check = csum_tcpudp_magic(iph->saddr, iph->daddr,
					      tcplen, IPPROTO_TCP, csum);
	}
}

/* Flip one byte of the TCP payload (any byte past L2 for other frames). */
static void innova_cable_corrupt(struct innova_cable *c, struct sk_buff *skb,
				 bool fix_csum)
{
	u8 flip = (u8)innova_cable_below(c, 255) + 1;
	struct innova_cable_tcp f;
	unsigned int off;

	if (innova_cable_parse_tcp(skb, &f) && f.payload < f.end) {
		off = f.payload + innova_cable_below(c, f.end - f.payload);
		skb->data[off] ^= flip;
		if (fix_csum)
			innova_cable_fix_csum(skb, &f);
		return;
	}
	if (skb->len > ETH_HLEN) {
		off = ETH_HLEN + innova_cable_below(c, skb->len - ETH_HLEN);
		skb->data[off] ^= flip;
	}
}

/*
 * A copy the NIC must leave alone: a unicast frame for another host, or
 * the frame tagged with a VLAN nobody configured. The receiving stack
 * drops both (PACKET_OTHERHOST). false: leave the duplicate unsent.
 */
static bool innova_cable_mangle(struct sk_buff *skb, u32 how)
{
	struct ethhdr *eth = (struct ethhdr *)skb->data;

	switch (how) {
	case INNOVA_CABLE_MANGLE_OTHERHOST:
		eth->h_dest[ETH_ALEN - 1] ^= 0x40;	/* still unicast */
		return true;
	case INNOVA_CABLE_MANGLE_VLAN:
		/* frees skb on failure */
		return vlan_insert_tag(skb, htons(ETH_P_8021Q),
				       INNOVA_CABLE_MANGLE_VID) != NULL;
	}
	return true;
}

/*
 * A copy of a TCP data frame, ahead bytes further in sequence, with an ACK
 * of data the receiver never sent: its TCP discards the segment (RFC 793
 * 3.9) after checking the checksum, which stays valid, so only a NIC that
 * believes any sequence number sees it as the stream.
 */
static struct sk_buff *innova_cable_ahead_copy(struct sk_buff *frame,
					       u32 ahead)
{
	struct innova_cable_tcp f;
	struct sk_buff *skb;
	struct tcphdr *th;

	if (!innova_cable_parse_tcp(frame, &f) || f.payload >= f.end)
		return NULL;
	skb = skb_copy(frame, GFP_ATOMIC);
	if (!skb)
		return NULL;
	th = (struct tcphdr *)(skb->data + f.l4);
	th->seq = htonl(ntohl(th->seq) + ahead);
	th->ack_seq = htonl(ntohl(th->ack_seq) + (1U << 30));
	innova_cable_fix_csum(skb, &f);
	return skb;
}

/*
 * A forged copy of a TCP data frame, sent before it, that the receiving TCP
 * drops whatever its payload: it acknowledges data never sent (RFC 5961
 * 5.2), lacks the ACK flag (RFC 9293 3.10.7.4), lies 16 MiB back (long
 * acknowledged) or 2^30 ahead (beyond any window). From a random offset on,
 * the payload is a plausible TLS header with a random length, then random
 * bytes: a NIC that takes the copy for the stream frames and decrypts the
 * wrong bytes. The checksum is valid, as an injector's would be.
 */
enum innova_cable_forge_kind {
	INNOVA_CABLE_FORGE_BAD_ACK,
	INNOVA_CABLE_FORGE_NO_ACK,
	INNOVA_CABLE_FORGE_OLD,
	INNOVA_CABLE_FORGE_FAR,
	INNOVA_CABLE_FORGE_KINDS,
};

static struct sk_buff *innova_cable_forged_copy(struct innova_cable *c,
						struct sk_buff *frame,
						const struct innova_cable_tcp *f)
{
	u32 plen = f->end - f->payload, off, i, len;
	struct sk_buff *skb;
	struct tcphdr *th;
	u8 *p;

	skb = skb_copy(frame, GFP_ATOMIC);
	if (!skb)
		return NULL;
	th = (struct tcphdr *)(skb->data + f->l4);
	switch (innova_cable_below(c, INNOVA_CABLE_FORGE_KINDS)) {
	case INNOVA_CABLE_FORGE_BAD_ACK:
		th->ack_seq = htonl(ntohl(th->ack_seq) + (1U << 30));
		break;
	case INNOVA_CABLE_FORGE_NO_ACK:
		th->ack = 0;
		break;
	case INNOVA_CABLE_FORGE_OLD:
		th->seq = htonl(ntohl(th->seq) - (1U << 24));
		break;
	default:
		th->seq = htonl(ntohl(th->seq) + (1U << 30));
		break;
	}
	p = skb->data + f->payload;
	off = innova_cable_below(c, plen);
	if (plen - off >= 5) {
		/* application data (any version's outer type), 24..16401 */
		len = 24 + innova_cable_below(c, 16384 + 17 - 24 + 1);
		p[off] = 0x17;
		p[off + 1] = 3;
		p[off + 2] = 3;
		p[off + 3] = len >> 8;
		p[off + 4] = len & 0xff;
		off += 5;
	}
	for (i = off; i < plen; i++)
		p[i] = (u8)innova_cable_prng(c);
	innova_cable_fix_csum(skb, f);
	return skb;
}

static void innova_cable_deliver(struct innova_port *port,
				 struct sk_buff_head *out)
{
	struct sk_buff *skb;

	while ((skb = __skb_dequeue(out)))
		innova_rx_enqueue(port, skb);
}

/* ---- delay stage (cable lock held) ---- */

/*
 * Frames the queue releases at once (a stall's whole window) go no faster
 * than the peer's RX ring drains: the cable stops at half the ring and
 * goes on INNOVA_CABLE_PACE_US later, as a switch port that holds frames
 * honours the receiver's flow control. Without it a stall's release
 * overflowed the ring (521 drops where the stall was to lose nothing).
 */
#define INNOVA_CABLE_PACE_US	200

static u32 innova_cable_peer_room(struct innova_cable *c)
{
	struct innova_port *port = container_of(c, struct innova_port, cable);
	struct innova_port *to;
	u32 room = U32_MAX, half, qlen;

	rcu_read_lock();
	to = rcu_dereference(port->peer);
	if (to) {
		half = READ_ONCE(to->ring_size) / 2;
		qlen = skb_queue_len_lockless(&to->rx_ring);
		room = qlen < half ? half - qlen : 0;
	}
	rcu_read_unlock();
	return room;
}

static void innova_cable_delay_release(struct innova_cable *c, ktime_t now,
				       struct sk_buff_head *out)
{
	u32 room = innova_cable_peer_room(c);
	struct sk_buff *skb;

	c->paced = false;
	while ((skb = skb_peek(&c->delayq)) &&
	       ktime_compare(INNOVA_CABLE_CB(skb)->due, now) <= 0) {
		if (!room--) {
			c->paced = true;
			break;
		}
		__skb_unlink(skb, &c->delayq);
		__skb_queue_tail(out, skb);
	}
}

static void innova_cable_delay_arm(struct innova_cable *c)
{
	struct sk_buff *head = skb_peek(&c->delayq);
	ktime_t due;

	if (!head)
		return;
	due = INNOVA_CABLE_CB(head)->due;
	if (c->paced)
		due = ktime_add_us(ktime_get(), INNOVA_CABLE_PACE_US);
	if (!hrtimer_is_queued(&c->delay_timer) ||
	    ktime_compare(hrtimer_get_expires(&c->delay_timer), due))
		hrtimer_start(&c->delay_timer, due, HRTIMER_MODE_ABS_SOFT);
}

static void innova_cable_delay_stage(struct innova_cable *c,
				     struct sk_buff *skb,
				     struct sk_buff_head *out)
{
	u32 delay = min(READ_ONCE(c->cfg.delay_ms), INNOVA_CABLE_MAX_DELAY);
	ktime_t now, due;

	/* Frames still queued keep their place even when delay is now 0. */
	if (!delay && skb_queue_empty(&c->delayq) && !c->stall_until) {
		__skb_queue_tail(out, skb);
		return;
	}
	now = ktime_get();
	due = ktime_add_ms(now, delay);
	/* a stall holds every frame until it ends; due times stay ordered */
	if (c->stall_until && ktime_after(c->stall_until, due))
		due = c->stall_until;
	else if (c->stall_until && ktime_compare(c->stall_until, now) <= 0)
		c->stall_until = 0;
	INNOVA_CABLE_CB(skb)->due = due;
	if (delay)
		atomic64_inc(&c->cnt[INNOVA_CABLE_DELAYED]);
	__skb_queue_tail(&c->delayq, skb);
	innova_cable_delay_release(c, now, out);
	innova_cable_delay_arm(c);
}

/* ---- reorder stage (cable lock held) ---- */

static void innova_cable_release_held(struct innova_cable *c,
				      struct sk_buff_head *out)
{
	struct sk_buff *held = c->held;

	c->held = NULL;
	innova_cable_delay_stage(c, held, out);
}

static void innova_cable_reorder_stage(struct innova_cable *c,
				       struct sk_buff *skb, bool may_hold,
				       struct sk_buff_head *out)
{
	u32 hold_ms;

	if (c->held) {
		innova_cable_delay_stage(c, skb, out);
		if (++c->held_passed >= max(READ_ONCE(c->cfg.reorder_gap), 1U)) {
			hrtimer_try_to_cancel(&c->hold_timer);
			innova_cable_release_held(c, out);
		}
		return;
	}

	if (may_hold && innova_cable_roll(c, READ_ONCE(c->cfg.reorder_ppm))) {
		hold_ms = clamp(READ_ONCE(c->cfg.hold_ms), 1U,
				INNOVA_CABLE_MAX_DELAY);
		c->held = skb;
		c->held_passed = 0;
		c->held_due = ktime_add_ms(ktime_get(), hold_ms);
		atomic64_inc(&c->cnt[INNOVA_CABLE_REORDERED]);
		hrtimer_start(&c->hold_timer, c->held_due,
			      HRTIMER_MODE_ABS_SOFT);
		return;
	}

	innova_cable_delay_stage(c, skb, out);
}

void innova_cable_xmit(struct innova_port *port, struct sk_buff *frame)
{
	struct innova_cable *c = &port->cable;
	const struct innova_cable_cfg *cfg = &c->cfg;
	u32 drop = READ_ONCE(cfg->drop_ppm);
	u32 corrupt = READ_ONCE(cfg->corrupt_ppm);
	u32 dup_ppm = READ_ONCE(cfg->dup_ppm);
	u32 reorder = READ_ONCE(cfg->reorder_ppm);
	u32 mangle = READ_ONCE(cfg->dup_mangle);
	u32 ahead = READ_ONCE(cfg->inject_ahead);
	u32 burst = READ_ONCE(cfg->burst_loss_ppm);
	u32 tail_ppm = READ_ONCE(cfg->tail_loss_ppm);
	u32 stall = READ_ONCE(cfg->stall_ppm);
	u32 forge = READ_ONCE(cfg->forge_ppm);
	struct sk_buff *dup = NULL, *inj = NULL, *forged = NULL;
	struct innova_cable_tcp tcp;
	struct sk_buff_head out;
	bool hit = false, lost, tail = false, is_tcp = false;

	/* one shot: whoever clears the knob sends the copy */
	if (unlikely(ahead) && innova_cable_has_payload(frame) &&
	    cmpxchg(&c->cfg.inject_ahead, ahead, 0) == ahead) {
		inj = innova_cable_ahead_copy(frame, ahead);
		if (inj)
			atomic64_inc(&c->cnt[INNOVA_CABLE_INJECTED]);
	}

	if (drop | corrupt | dup_ppm | reorder | burst | tail_ppm | stall |
	    forge) {
		is_tcp = innova_cable_parse_tcp(frame, &tcp);
		hit = !READ_ONCE(cfg->tcp_only) ||
		      (is_tcp && tcp.payload < tcp.end);
	}

	__skb_queue_head_init(&out);
	spin_lock(&c->lock);

	/* every TCP frame: a SYN starts a connection's record framing */
	if (tail_ppm && is_tcp)
		tail = innova_cable_follow_tls(c, frame, &tcp);
	if (inj)
		innova_cable_delay_stage(c, inj, &out);
	/* ahead of the frame, lost or not: the injector does not see loss */
	if (is_tcp && tcp.payload < tcp.end && innova_cable_roll(c, forge)) {
		forged = innova_cable_forged_copy(c, frame, &tcp);
		if (forged) {
			atomic64_inc(&c->cnt[INNOVA_CABLE_FORGED]);
			innova_cable_delay_stage(c, forged, &out);
		}
	}
	lost = hit && (innova_cable_roll(c, drop) ||
		       (burst && innova_cable_burst_lost(c, burst,
							 READ_ONCE(cfg->burst_len))));
	if (hit && !lost && tail && innova_cable_roll(c, tail_ppm)) {
		atomic64_inc(&c->cnt[INNOVA_CABLE_TAIL_LOST]);
		lost = true;
	}
	if (lost) {
		atomic64_inc(&c->cnt[INNOVA_CABLE_DROPPED]);
		spin_unlock(&c->lock);
		kfree_skb(frame);
		innova_cable_deliver(port, &out);
		return;
	}
	if (hit && innova_cable_roll(c, corrupt)) {
		innova_cable_corrupt(c, frame, READ_ONCE(cfg->corrupt_fix_csum));
		atomic64_inc(&c->cnt[INNOVA_CABLE_CORRUPTED]);
	}
	if (hit && innova_cable_roll(c, dup_ppm)) {
		dup = skb_copy(frame, GFP_ATOMIC);
		if (dup && mangle && !innova_cable_mangle(dup, mangle))
			dup = NULL;
		if (dup)
			atomic64_inc(&c->cnt[INNOVA_CABLE_DUPLICATED]);
	}

	if (hit && innova_cable_roll(c, stall)) {
		c->stall_until = ktime_add_ms(ktime_get(),
					      clamp(READ_ONCE(cfg->stall_ms), 1U,
						    INNOVA_CABLE_MAX_DELAY));
		atomic64_inc(&c->cnt[INNOVA_CABLE_STALLS]);
	}

	/* a mangled copy first: a NIC that takes it for the flow then sees
	 * the real frame as a retransmission
	 */
	if (dup && mangle)
		innova_cable_reorder_stage(c, dup, false, &out);
	innova_cable_reorder_stage(c, frame, hit, &out);
	if (dup && !mangle)
		innova_cable_reorder_stage(c, dup, false, &out);

	spin_unlock(&c->lock);
	innova_cable_deliver(port, &out);
}

static enum hrtimer_restart innova_cable_hold_timer_fn(struct hrtimer *t)
{
	struct innova_port *port = container_of(t, struct innova_port,
						cable.hold_timer);
	struct innova_cable *c = &port->cable;
	struct sk_buff_head out;

	__skb_queue_head_init(&out);
	spin_lock(&c->lock);
	if (c->held) {
		/* A frame held after this expiry was queued waits its turn. */
		if (ktime_compare(c->held_due, ktime_get()) <= 0)
			innova_cable_release_held(c, &out);
		else
			hrtimer_start(&c->hold_timer, c->held_due,
				      HRTIMER_MODE_ABS_SOFT);
	}
	spin_unlock(&c->lock);
	innova_cable_deliver(port, &out);
	return HRTIMER_NORESTART;
}

static enum hrtimer_restart innova_cable_delay_timer_fn(struct hrtimer *t)
{
	struct innova_port *port = container_of(t, struct innova_port,
						cable.delay_timer);
	struct innova_cable *c = &port->cable;
	struct sk_buff_head out;

	__skb_queue_head_init(&out);
	spin_lock(&c->lock);
	innova_cable_delay_release(c, ktime_get(), &out);
	innova_cable_delay_arm(c);
	spin_unlock(&c->lock);
	innova_cable_deliver(port, &out);
	return HRTIMER_NORESTART;
}

void innova_cable_init(struct innova_port *port)
{
	struct innova_cable *c = &port->cable;

	spin_lock_init(&c->lock);
	__skb_queue_head_init(&c->delayq);
	hrtimer_init(&c->hold_timer, CLOCK_MONOTONIC, HRTIMER_MODE_ABS_SOFT);
	c->hold_timer.function = innova_cable_hold_timer_fn;
	hrtimer_init(&c->delay_timer, CLOCK_MONOTONIC, HRTIMER_MODE_ABS_SOFT);
	c->delay_timer.function = innova_cable_delay_timer_fn;

	c->cfg.reorder_gap = 3;
	c->cfg.hold_ms = 10;
	c->cfg.tcp_only = 1;
}

/*
 * Drop what is on our direction of the cable. The caller guarantees no
 * concurrent xmit (device stopped or being unregistered).
 */
void innova_cable_flush(struct innova_port *port)
{
	struct innova_cable *c = &port->cable;
	struct sk_buff_head q;
	struct sk_buff *held;

	/* hold first: its callback may arm the delay timer. */
	hrtimer_cancel(&c->hold_timer);
	hrtimer_cancel(&c->delay_timer);

	__skb_queue_head_init(&q);
	spin_lock_bh(&c->lock);
	held = c->held;
	c->held = NULL;
	skb_queue_splice_init(&c->delayq, &q);
	spin_unlock_bh(&c->lock);

	kfree_skb(held);
	__skb_queue_purge(&q);
}

void innova_cable_reseed(struct innova_port *port, u64 seed)
{
	struct innova_cable *c = &port->cable;

	spin_lock_bh(&c->lock);
	c->seed = seed;
	c->prng = seed;
	c->burst_bad = false;
	c->stall_until = 0;
	memset(c->follow, 0, sizeof(c->follow));
	spin_unlock_bh(&c->lock);
}

void innova_cable_reset_counters(struct innova_port *port)
{
	int i;

	for (i = 0; i < INNOVA_CABLE_STAT_NUM; i++)
		atomic64_set(&port->cable.cnt[i], 0);
}

/* The counters in enum innova_cable_stat order (ethtool, debugfs). */
void innova_cable_stats(struct innova_port *port,
			u64 out[INNOVA_CABLE_STAT_NUM])
{
	int i;

	for (i = 0; i < INNOVA_CABLE_STAT_NUM; i++)
		out[i] = atomic64_read(&port->cable.cnt[i]);
}

/*
 * One name per counter: the debugfs file; "ethtool -S" and the debugfs
 * "counters" file put INNOVA_CABLE_STAT_PREFIX in front of it.
 */
const char * const innova_cable_stat_names[] = {
	[INNOVA_CABLE_DROPPED]		= "dropped",
	[INNOVA_CABLE_DUPLICATED]	= "duplicated",
	[INNOVA_CABLE_REORDERED]	= "reordered",
	[INNOVA_CABLE_CORRUPTED]	= "corrupted",
	[INNOVA_CABLE_DELAYED]		= "delayed",
	[INNOVA_CABLE_INJECTED]		= "injected",
	[INNOVA_CABLE_LOSS_BURSTS]	= "loss_bursts",
	[INNOVA_CABLE_TAIL_LOST]	= "tail_lost",
	[INNOVA_CABLE_STALLS]		= "stalls",
	[INNOVA_CABLE_FORGED]		= "forged",
};

static_assert(ARRAY_SIZE(innova_cable_stat_names) == INNOVA_CABLE_STAT_NUM);

/* ---- debugfs: knobs (range-checked) and counters ---- */

struct innova_cable_knob {
	const char	*name;
	size_t		off;	/* in struct innova_cable_cfg */
	u32		max;
};

#define INNOVA_KNOB(f, m) { #f, offsetof(struct innova_cable_cfg, f), m }
static const struct innova_cable_knob innova_cable_knobs[] = {
	INNOVA_KNOB(drop_ppm, INNOVA_CABLE_PPM),
	INNOVA_KNOB(dup_ppm, INNOVA_CABLE_PPM),
	INNOVA_KNOB(reorder_ppm, INNOVA_CABLE_PPM),
	INNOVA_KNOB(reorder_gap, 1000),
	INNOVA_KNOB(hold_ms, INNOVA_CABLE_MAX_DELAY),
	INNOVA_KNOB(corrupt_ppm, INNOVA_CABLE_PPM),
	INNOVA_KNOB(corrupt_fix_csum, 1),
	INNOVA_KNOB(delay_ms, INNOVA_CABLE_MAX_DELAY),
	INNOVA_KNOB(tcp_only, 1),
	INNOVA_KNOB(dup_mangle, INNOVA_CABLE_MANGLE_MAX),
	/* forward only: a jump below 2^31 is "ahead" in TCP's arithmetic */
	INNOVA_KNOB(inject_ahead, S32_MAX),
	INNOVA_KNOB(burst_loss_ppm, INNOVA_CABLE_PPM - 1),
	INNOVA_KNOB(burst_len, 1000),
	INNOVA_KNOB(tail_loss_ppm, INNOVA_CABLE_PPM),
	INNOVA_KNOB(stall_ppm, INNOVA_CABLE_PPM),
	INNOVA_KNOB(stall_ms, INNOVA_CABLE_MAX_DELAY),
	INNOVA_KNOB(forge_ppm, INNOVA_CABLE_PPM),
};

static_assert(ARRAY_SIZE(innova_cable_knobs) == INNOVA_CABLE_NUM_KNOBS);

static u32 *innova_cable_knob_ptr(struct innova_cable_knob_ref *r)
{
	return (u32 *)((u8 *)&r->port->cable.cfg +
		       innova_cable_knobs[r->knob].off);
}

static int innova_cable_knob_get(void *data, u64 *val)
{
	*val = READ_ONCE(*innova_cable_knob_ptr(data));
	return 0;
}

static int innova_cable_knob_set(void *data, u64 val)
{
	struct innova_cable_knob_ref *r = data;

	if (val > innova_cable_knobs[r->knob].max)
		return -EINVAL;
	WRITE_ONCE(*innova_cable_knob_ptr(r), val);
	return 0;
}
DEFINE_DEBUGFS_ATTRIBUTE(innova_cable_knob_fops, innova_cable_knob_get,
			 innova_cable_knob_set, "%llu\n");

static int innova_cable_seed_get(void *data, u64 *val)
{
	struct innova_port *port = data;

	spin_lock_bh(&port->cable.lock);
	*val = port->cable.seed;
	spin_unlock_bh(&port->cable.lock);
	return 0;
}

static int innova_cable_seed_set(void *data, u64 val)
{
	innova_cable_reseed(data, val);
	return 0;
}
DEFINE_DEBUGFS_ATTRIBUTE(innova_cable_seed_fops, innova_cable_seed_get,
			 innova_cable_seed_set, "%llu\n");

static int innova_cable_reset_set(void *data, u64 val)
{
	innova_cable_reset_counters(data);
	return 0;
}
DEFINE_DEBUGFS_ATTRIBUTE(innova_cable_reset_fops, NULL, innova_cable_reset_set,
			 "%llu\n");

static int innova_cable_cnt_get(void *data, u64 *val)
{
	*val = atomic64_read((atomic64_t *)data);
	return 0;
}
DEFINE_DEBUGFS_ATTRIBUTE(innova_cable_cnt_fops, innova_cable_cnt_get, NULL,
			 "%llu\n");

/* Fault knobs and counters of the direction this port transmits on. */
void innova_cable_debugfs_add(struct innova_port *port, struct dentry *dir)
{
	struct innova_cable *c = &port->cable;
	unsigned int i;

	debugfs_create_file_unsafe("seed", 0600, dir, port,
				   &innova_cable_seed_fops);
	for (i = 0; i < INNOVA_CABLE_NUM_KNOBS; i++) {
		c->knob_ref[i].port = port;
		c->knob_ref[i].knob = i;
		debugfs_create_file_unsafe(innova_cable_knobs[i].name, 0600,
					   dir, &c->knob_ref[i],
					   &innova_cable_knob_fops);
	}
	for (i = 0; i < INNOVA_CABLE_STAT_NUM; i++)
		debugfs_create_file_unsafe(innova_cable_stat_names[i], 0400, dir,
					   &c->cnt[i], &innova_cable_cnt_fops);
	debugfs_create_file_unsafe("reset_counters", 0200, dir, port,
				   &innova_cable_reset_fops);
}

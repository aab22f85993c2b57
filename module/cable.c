// SPDX-License-Identifier: GPL-2.0
/*
 * Innova cable: seeded, reproducible faults on one direction of the wire.
 *
 * Every port owns the direction it transmits on (struct innova_wire). A
 * frame put on the cable goes through, in this order:
 *
 *   drop -> corrupt -> duplicate -> reorder (hold) -> delay -> peer RX ring
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
 * Locking: wire->lock protects the PRNG, the held frame and the delay
 * queue; it is taken from ndo_start_xmit (BH off) and the soft hrtimers
 * (softirq), with _bh from process context. Frames leaving the wire are
 * collected under the lock and handed to the peer after dropping it.
 */
#include <linux/if_ether.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/tcp.h>
#include <net/checksum.h>
#include <net/ip.h>
#include <net/ip6_checksum.h>

#include "innova.h"

#define INNOVA_PPM		1000000U
#define INNOVA_MAX_DELAY_MS	10000U

struct innova_wire_cb {
	ktime_t due;
};

#define INNOVA_WIRE_CB(skb)	((struct innova_wire_cb *)(skb)->cb)

/* Offsets of a TCP segment inside a linear Ethernet frame. */
struct innova_tcp_frame {
	unsigned int l3;
	unsigned int l4;
	unsigned int payload;
	unsigned int end;	/* end of the IP datagram (before padding) */
	bool v6;
};

static u64 innova_prng_next(struct innova_wire *w)
{
	u64 z = (w->prng += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static u32 innova_prng_below(struct innova_wire *w, u32 n)
{
	return (u32)(innova_prng_next(w) >> 32) % n;
}

static bool innova_roll(struct innova_wire *w, u32 ppm)
{
	if (!ppm)
		return false;
	return innova_prng_below(w, INNOVA_PPM) < ppm;
}

static bool innova_parse_tcp(const struct sk_buff *skb,
			     struct innova_tcp_frame *f)
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

static bool innova_tcp_with_payload(const struct sk_buff *skb)
{
	struct innova_tcp_frame f;

	return innova_parse_tcp(skb, &f) && f.payload < f.end;
}

/* What a broken middlebox does after mangling the payload. */
static void innova_tcp_fix_csum(struct sk_buff *skb,
				const struct innova_tcp_frame *f)
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
static void innova_corrupt(struct innova_wire *w, struct sk_buff *skb,
			   bool fix_csum)
{
	u8 flip = (u8)innova_prng_below(w, 255) + 1;
	struct innova_tcp_frame f;
	unsigned int off;

	if (innova_parse_tcp(skb, &f) && f.payload < f.end) {
		off = f.payload + innova_prng_below(w, f.end - f.payload);
		skb->data[off] ^= flip;
		if (fix_csum)
			innova_tcp_fix_csum(skb, &f);
		return;
	}
	if (skb->len > ETH_HLEN) {
		off = ETH_HLEN + innova_prng_below(w, skb->len - ETH_HLEN);
		skb->data[off] ^= flip;
	}
}

static void innova_deliver_list(struct innova_port *port,
				struct sk_buff_head *out)
{
	struct sk_buff *skb;

	while ((skb = __skb_dequeue(out)))
		innova_wire_deliver(port, skb);
}

/* ---- delay stage (wire->lock held) ---- */

static void innova_delay_release(struct innova_wire *w, ktime_t now,
				 struct sk_buff_head *out)
{
	struct sk_buff *skb;

	while ((skb = skb_peek(&w->delayq)) &&
	       ktime_compare(INNOVA_WIRE_CB(skb)->due, now) <= 0) {
		__skb_unlink(skb, &w->delayq);
		__skb_queue_tail(out, skb);
	}
}

static void innova_delay_arm(struct innova_wire *w)
{
	struct sk_buff *head = skb_peek(&w->delayq);
	ktime_t due;

	if (!head)
		return;
	due = INNOVA_WIRE_CB(head)->due;
	if (!hrtimer_is_queued(&w->delay_timer) ||
	    ktime_compare(hrtimer_get_expires(&w->delay_timer), due))
		hrtimer_start(&w->delay_timer, due, HRTIMER_MODE_ABS_SOFT);
}

static void innova_delay_stage(struct innova_wire *w, struct sk_buff *skb,
			       struct sk_buff_head *out)
{
	u32 delay = min(READ_ONCE(w->cfg.delay_ms), INNOVA_MAX_DELAY_MS);
	ktime_t now;

	/* Frames still queued keep their place even when delay is now 0. */
	if (!delay && skb_queue_empty(&w->delayq)) {
		__skb_queue_tail(out, skb);
		return;
	}
	now = ktime_get();
	INNOVA_WIRE_CB(skb)->due = ktime_add_ms(now, delay);
	if (delay)
		atomic64_inc(&w->cnt[INNOVA_CABLE_DELAYED]);
	__skb_queue_tail(&w->delayq, skb);
	innova_delay_release(w, now, out);
	innova_delay_arm(w);
}

/* ---- reorder stage (wire->lock held) ---- */

static void innova_release_held(struct innova_wire *w,
				struct sk_buff_head *out)
{
	struct sk_buff *held = w->held;

	w->held = NULL;
	innova_delay_stage(w, held, out);
}

static void innova_reorder_stage(struct innova_wire *w, struct sk_buff *skb,
				 bool may_hold, struct sk_buff_head *out)
{
	u32 hold_ms;

	if (w->held) {
		innova_delay_stage(w, skb, out);
		if (++w->held_passed >= max(READ_ONCE(w->cfg.reorder_gap), 1U)) {
			hrtimer_try_to_cancel(&w->hold_timer);
			innova_release_held(w, out);
		}
		return;
	}

	if (may_hold && innova_roll(w, READ_ONCE(w->cfg.reorder_ppm))) {
		hold_ms = clamp(READ_ONCE(w->cfg.hold_ms), 1U,
				INNOVA_MAX_DELAY_MS);
		w->held = skb;
		w->held_passed = 0;
		w->held_due = ktime_add_ms(ktime_get(), hold_ms);
		atomic64_inc(&w->cnt[INNOVA_CABLE_REORDERED]);
		hrtimer_start(&w->hold_timer, w->held_due,
			      HRTIMER_MODE_ABS_SOFT);
		return;
	}

	innova_delay_stage(w, skb, out);
}

void innova_cable_xmit(struct innova_port *port, struct sk_buff *frame)
{
	struct innova_wire *w = &port->wire;
	const struct innova_fault_cfg *c = &w->cfg;
	u32 drop = READ_ONCE(c->drop_ppm);
	u32 corrupt = READ_ONCE(c->corrupt_ppm);
	u32 dup_ppm = READ_ONCE(c->dup_ppm);
	u32 reorder = READ_ONCE(c->reorder_ppm);
	struct sk_buff *dup = NULL;
	struct sk_buff_head out;
	bool hit = false;

	if (drop | corrupt | dup_ppm | reorder)
		hit = !READ_ONCE(c->tcp_only) || innova_tcp_with_payload(frame);

	__skb_queue_head_init(&out);
	spin_lock(&w->lock);

	if (hit && innova_roll(w, drop)) {
		atomic64_inc(&w->cnt[INNOVA_CABLE_DROPPED]);
		spin_unlock(&w->lock);
		kfree_skb(frame);
		return;
	}
	if (hit && innova_roll(w, corrupt)) {
		innova_corrupt(w, frame, READ_ONCE(c->corrupt_fix_csum));
		atomic64_inc(&w->cnt[INNOVA_CABLE_CORRUPTED]);
	}
	if (hit && innova_roll(w, dup_ppm)) {
		dup = skb_copy(frame, GFP_ATOMIC);
		if (dup)
			atomic64_inc(&w->cnt[INNOVA_CABLE_DUPLICATED]);
	}

	innova_reorder_stage(w, frame, hit, &out);
	if (dup)
		innova_reorder_stage(w, dup, false, &out);

	spin_unlock(&w->lock);
	innova_deliver_list(port, &out);
}

static enum hrtimer_restart innova_hold_timer_fn(struct hrtimer *t)
{
	struct innova_port *port = container_of(t, struct innova_port,
						wire.hold_timer);
	struct innova_wire *w = &port->wire;
	struct sk_buff_head out;

	__skb_queue_head_init(&out);
	spin_lock(&w->lock);
	if (w->held) {
		/* A frame held after this expiry was queued waits its turn. */
		if (ktime_compare(w->held_due, ktime_get()) <= 0)
			innova_release_held(w, &out);
		else
			hrtimer_start(&w->hold_timer, w->held_due,
				      HRTIMER_MODE_ABS_SOFT);
	}
	spin_unlock(&w->lock);
	innova_deliver_list(port, &out);
	return HRTIMER_NORESTART;
}

static enum hrtimer_restart innova_delay_timer_fn(struct hrtimer *t)
{
	struct innova_port *port = container_of(t, struct innova_port,
						wire.delay_timer);
	struct innova_wire *w = &port->wire;
	struct sk_buff_head out;

	__skb_queue_head_init(&out);
	spin_lock(&w->lock);
	innova_delay_release(w, ktime_get(), &out);
	innova_delay_arm(w);
	spin_unlock(&w->lock);
	innova_deliver_list(port, &out);
	return HRTIMER_NORESTART;
}

void innova_wire_init(struct innova_port *port)
{
	struct innova_wire *w = &port->wire;

	spin_lock_init(&w->lock);
	__skb_queue_head_init(&w->delayq);
	hrtimer_init(&w->hold_timer, CLOCK_MONOTONIC, HRTIMER_MODE_ABS_SOFT);
	w->hold_timer.function = innova_hold_timer_fn;
	hrtimer_init(&w->delay_timer, CLOCK_MONOTONIC, HRTIMER_MODE_ABS_SOFT);
	w->delay_timer.function = innova_delay_timer_fn;

	w->cfg.reorder_gap = 3;
	w->cfg.hold_ms = 10;
	w->cfg.tcp_only = 1;
}

/*
 * Drop what is on our direction of the cable. The caller guarantees no
 * concurrent xmit (device stopped or being unregistered).
 */
void innova_wire_flush(struct innova_port *port)
{
	struct innova_wire *w = &port->wire;
	struct sk_buff_head q;
	struct sk_buff *held;

	/* hold first: its callback may arm the delay timer. */
	hrtimer_cancel(&w->hold_timer);
	hrtimer_cancel(&w->delay_timer);

	__skb_queue_head_init(&q);
	spin_lock_bh(&w->lock);
	held = w->held;
	w->held = NULL;
	skb_queue_splice_init(&w->delayq, &q);
	spin_unlock_bh(&w->lock);

	kfree_skb(held);
	__skb_queue_purge(&q);
}

void innova_wire_reseed(struct innova_port *port, u64 seed)
{
	struct innova_wire *w = &port->wire;

	spin_lock_bh(&w->lock);
	w->seed = seed;
	w->prng = seed;
	spin_unlock_bh(&w->lock);
}

void innova_wire_reset_counters(struct innova_port *port)
{
	int i;

	for (i = 0; i < INNOVA_CABLE_STAT_NUM; i++)
		atomic64_set(&port->wire.cnt[i], 0);
}

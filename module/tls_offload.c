// SPDX-License-Identifier: GPL-2.0
/*
 * Innova driver: kTLS RX offload glue.
 *
 * The only code that touches kernel TLS structures. It turns tlsdev_ops
 * into "firmware commands" for the port's hardware engine (module/hw/),
 * runs the engine on every received frame in NAPI and maps its completion
 * to skb->decrypted, the checksum state, counters and resync requests.
 *
 * Locking: one spinlock per port serialises every engine call (NAPI in
 * softirq, tls_dev_resync in softirq, add/del/debugfs in process context
 * with BH disabled). Crypto keys are created and freed outside it because
 * that may sleep.
 *
 * Socket lifetime: a flow keeps a plain pointer to its socket. The core
 * calls tls_dev_del() before the socket can go away, and del removes the
 * flow under the port lock, so the pointer is only used under that lock
 * while the flow is installed. tls_dev_resync() finds the flow through the
 * TLS context inside the core's RCU read section, so a deleted flow is
 * freed after a grace period (call_rcu), never waited for.
 */
#include <linux/debugfs.h>
#include <linux/delay.h>
#include <linux/etherdevice.h>
#include <linux/rcupdate.h>
#include <linux/ipv6.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>
#include <linux/workqueue.h>
#include <net/inet_sock.h>
#include <net/ipv6.h>
#include <net/tcp.h>
#include <net/tls.h>

#include <innova/hw_engine.h>

#include "compat.h"
#include "innova.h"

#define CREATE_TRACE_POINTS
#include "trace.h"

static unsigned int max_flows = 256;
module_param(max_flows, uint, 0444);
MODULE_PARM_DESC(max_flows, "TLS RX flow table entries per port (default 256)");

/* Frames are at most MTU + Ethernet header (+ VLAN tag). */
#define INNOVA_TLS_SCRATCH	(INNOVA_MAX_MTU + VLAN_ETH_HLEN)

/*
 * How a port gets back in sync (README, "tls_resync_mode"): each real NIC family
 * uses one of the core's modes. Chosen per port, applies to new flows.
 */
enum innova_resync_mode {
	INNOVA_RESYNC_DRIVER_REQ,	/* Innova: stream scan + request */
	INNOVA_RESYNC_CORE_NEXT_HINT,	/* nfp: the core resyncs on its own */
	INNOVA_RESYNC_DRIVER_REQ_ASYNC,	/* ConnectX-6 Dx: start, log, end */
};

static const char * const innova_resync_mode_names[] = {
	[INNOVA_RESYNC_DRIVER_REQ]	= "driver_req",
	[INNOVA_RESYNC_CORE_NEXT_HINT]	= "core_next_hint",
	[INNOVA_RESYNC_DRIVER_REQ_ASYNC] = "driver_req_async",
};

struct innova_tls_flow {
	struct list_head	node;		/* innova_tls_port.flows */
	struct rcu_head		rcu;
	struct sock		*sk;
	u32			handle;		/* engine flow handle */
	enum innova_resync_mode	mode;
	bool			refresh;	/* key refresh pending */
	unsigned int		keylen;
	u8			key[TLS_CIPHER_AES_GCM_256_KEY_SIZE];
	/* nonce material for key updates: salt | iv (hw_engine.h) */
	u8			iv[HW_TLS_IV_LEN];
	u8			version;	/* enum hw_tls_version */
	u32			walk_end;	/* end of the records counted at add */

	/*
	 * DRIVER_REQ_ASYNC: the core logs the headers it parses from the
	 * frame named in async_request_start() until the NIC answers with
	 * the header it found (async_request_end), like mlx5's GET_PSV
	 * firmware query; here a work item plays the firmware round trip.
	 */
	struct tls_offload_resync_async	resync_async;
	struct work_struct	async_work;
	struct innova_tls_port	*tp;
	/*
	 * A query is outstanding from _start until the core consumes the
	 * answer in tls_dev_resync(): a new _start before that would wipe
	 * the pending answer (the core keeps one request per socket).
	 */
	bool			async_busy;
	bool			async_answered;	/* _end sent, not consumed */
	u32			async_hw_seq;	/* header start the NIC found */
};

/* A deleted flow, as the add that replaces it at a key update needs it */
struct innova_tls_end {
	const struct sock	*sk;
	unsigned long		when;		/* jiffies */
	u32			auth_fail_run;
	u32			walk_end;	/* its add's walk ended here */
	/*
	 * It followed the records it had no key for from nokey_seq: the
	 * first nokey_recs of them, up to next_seq, passed before their key.
	 */
	bool			nokey_known;
	u32			nokey_seq;
	u32			nokey_recs;
	u32			next_seq;
};

struct innova_tls_port {
	spinlock_t		lock;	/* engine, flows, scratch */
	struct hw_engine	*eng;
	void			*eng_mem;
	size_t			eng_size;
	u8			*scratch;	/* engine output ("RX DMA") */
	/*
	 * The driver's half of each installed flow (socket, mode, key copy),
	 * under lock. Needed beside the engine's table, which holds no driver
	 * data: a completion names a flow only by its handle, so NAPI (resync
	 * request, key refresh) and the async work (still installed?) look
	 * it up here, and the refresh work walks it. Searched on those
	 * events only, never per frame.
	 */
	struct list_head	flows;
	atomic_t		fail_next_add;	/* injected firmware errors */
	unsigned int		add_delay_ms;	/* a slow add command (tests) */
	unsigned int		rx_up_delay_us;	/* a slow way up after the engine (tests) */
	unsigned int		add_wait_max;	/* waits for data on its way up */
	enum innova_resync_mode	resync_mode;	/* for new flows */
	struct work_struct	refresh_work;
	struct innova_port	*port;
	/*
	 * The last flows deleted, under lock: a TLS 1.3 key update deletes a
	 * socket's flow and adds the next one at once, and the add counts the
	 * records the old flow failed to authenticate at its end (records
	 * under the next key it met first) and starts where the old flow's
	 * records without a key end.
	 */
	struct innova_tls_end	ended[8];
	unsigned int		ended_next;
	/* flow commands done and their time, under lock (debugfs tls_cmd_time) */
	u64			add_ns, del_ns;
	u64			adds, dels;
};

static void innova_tls_async_work(struct work_struct *work);

static struct innova_tls_flow **innova_tls_state(struct tls_context *ctx)
{
	BUILD_BUG_ON(sizeof(struct innova_tls_flow *) > TLS_DRIVER_STATE_SIZE_RX);
	return __tls_driver_ctx(ctx, TLS_OFFLOAD_CTX_DIR_RX);
}

static struct innova_tls_flow *innova_tls_find(struct innova_tls_port *tp,
					       u32 handle)
{
	struct innova_tls_flow *flow;

	lockdep_assert_held(&tp->lock);
	list_for_each_entry(flow, &tp->flows, node)
		if (flow->handle == handle)
			return flow;
	return NULL;
}

/* Received frames come from the peer: its address is the frame's source. */
static int innova_tls_tuple(struct sock *sk, struct hw_flow_tuple *t)
{
	struct inet_sock *inet = inet_sk(sk);

	memset(t, 0, sizeof(*t));
	t->sport = ntohs(inet->inet_dport);
	t->dport = ntohs(inet->inet_sport);
	if (sk->sk_family == AF_INET) {
		t->family = 4;
		memcpy(t->saddr, &inet->inet_daddr, 4);
		memcpy(t->daddr, &inet->inet_rcv_saddr, 4);
		return 0;
	}
#if IS_ENABLED(CONFIG_IPV6)
	if (sk->sk_family == AF_INET6) {
		if (ipv6_addr_v4mapped(&sk->sk_v6_daddr)) {
			t->family = 4;
			memcpy(t->saddr, &sk->sk_v6_daddr.s6_addr32[3], 4);
			memcpy(t->daddr, &sk->sk_v6_rcv_saddr.s6_addr32[3], 4);
			return 0;
		}
		t->family = 6;
		memcpy(t->saddr, &sk->sk_v6_daddr, 16);
		memcpy(t->daddr, &sk->sk_v6_rcv_saddr, 16);
		return 0;
	}
#endif
	return -EOPNOTSUPP;
}

/*
 * What the NIC passed before the flow existed: the receive queue holds
 * [copied_seq, rcv_nxt), and the backlog the segments softirq appended
 * while the caller (setsockopt) held the socket. Backlog skbs are raw,
 * not yet TCP-processed: only the in-order run after rcv_nxt counts, and
 * only segments TCP will take, as far as that can be told now.
 */
struct innova_tls_stream {
	struct sock	*sk;
	u32		rcv_nxt;	/* end of the receive queue */
	u32		end;		/* end of the contiguous data */
	struct sk_buff	*stop;		/* first backlog skb not in the run */
	struct sk_buff	*qpos, *bpos;	/* read cursors */
	/* records the walk passed whose header lies at or after fresh_from */
	u32		fresh_from;
	u64		fresh;
};

/*
 * A backlog skb still starts with its TCP header (tcp_add_backlog()).
 * false: no payload, or a segment TCP drops before it reads the data
 * (SYN, RST, no ACK, an ACK of data never sent or too old to be one).
 */
static bool innova_tls_backlog_data(struct sock *sk, const struct sk_buff *skb,
				    u32 *seq, u32 *off, u32 *len)
{
	const struct tcphdr *th = (const struct tcphdr *)skb->data;
	const struct tcp_sock *tp = tcp_sk(sk);
	u8 flags = TCP_SKB_CB(skb)->tcp_flags;
	u32 ack = TCP_SKB_CB(skb)->ack_seq;

	if ((flags & (TCPHDR_SYN | TCPHDR_RST)) || !(flags & TCPHDR_ACK))
		return false;
	if (after(ack, tp->snd_nxt) ||
	    before(ack, tp->snd_una - tp->max_window))
		return false;
	*off = th->doff * 4;
	if (skb->len <= *off)
		return false;
	*seq = TCP_SKB_CB(skb)->seq;
	*len = skb->len - *off;
	return true;
}

/*
 * The end of the contiguous data from copied_seq: the receive queue, then
 * backlog segments in list order, the way TCP will process them. A
 * segment wholly before the end is a duplicate (the first copy wins); the
 * first one beyond it, or beyond the window, ends the run.
 */
static void innova_tls_stream_init(struct innova_tls_stream *st,
				   struct sock *sk)
{
	const struct tcp_sock *tp = tcp_sk(sk);
	u32 wnd_end = tp->rcv_wup + tp->rcv_wnd;
	struct sk_buff *skb;
	u32 seq, off, len;

	memset(st, 0, sizeof(*st));
	st->sk = sk;
	st->rcv_nxt = tp->rcv_nxt;
	st->end = st->rcv_nxt;
	for (skb = sk->sk_backlog.head; skb; skb = skb->next) {
		if (!innova_tls_backlog_data(sk, skb, &seq, &off, &len))
			continue;
		if (!after(seq + len, st->end))
			continue;
		if (after(seq, st->end) || !before(seq, wnd_end))
			break;
		st->end = seq + len;
	}
	st->stop = skb;
}

/*
 * Copy len bytes at TCP seq from the receive queue, starting the search
 * at st->qpos (NULL: the head) and leaving it at the skb that held the
 * last byte, so a walk over increasing seqs visits each skb once.
 */
static int innova_tls_queue_read(struct innova_tls_stream *st, u32 seq,
				 u8 *buf, u32 len)
{
	struct sk_buff_head *q = &st->sk->sk_receive_queue;
	struct sk_buff *skb = st->qpos ? st->qpos : skb_peek(q);

	for (; skb && skb != (struct sk_buff *)q; skb = skb->next) {
		u32 start = TCP_SKB_CB(skb)->seq, off, n;

		if (!before(seq, start + skb->len))
			continue;
		if (before(seq, start))
			return -EINVAL;
		off = seq - start;
		n = min(len, skb->len - off);
		if (skb_copy_bits(skb, off, buf, n))
			return -EFAULT;
		st->qpos = skb;
		buf += n;
		seq += n;
		len -= n;
		if (!len)
			return 0;
	}
	return -ENODATA;
}

/*
 * The same from the backlog's run: each byte from the first segment in
 * list order that holds it, the copy TCP keeps. That segment never lies
 * before the one that held the byte before it, so the cursor only moves
 * on.
 */
static int innova_tls_backlog_read(struct innova_tls_stream *st, u32 seq,
				   u8 *buf, u32 len)
{
	struct sk_buff *skb = st->bpos ? st->bpos : st->sk->sk_backlog.head;
	u32 start, off, n, avail;

	for (; skb && skb != st->stop; skb = skb->next) {
		if (!innova_tls_backlog_data(st->sk, skb, &start, &off, &avail))
			continue;
		if (before(seq, start) || !before(seq, start + avail))
			continue;
		n = min(len, start + avail - seq);
		if (skb_copy_bits(skb, off + seq - start, buf, n))
			return -EFAULT;
		st->bpos = skb;
		buf += n;
		seq += n;
		len -= n;
		if (!len)
			return 0;
	}
	return -ENODATA;
}

static int innova_tls_stream_read(struct innova_tls_stream *st, u32 seq,
				  u8 *buf, u32 len)
{
	u32 n;
	int err;

	if (before(seq, st->rcv_nxt)) {
		n = min(len, st->rcv_nxt - seq);
		err = innova_tls_queue_read(st, seq, buf, n);
		if (err || n == len)
			return err;
		seq += n;
		buf += n;
		len -= n;
	}
	return innova_tls_backlog_read(st, seq, buf, len);
}

/*
 * The data from copied_seq to st->end went past the NIC untouched, and
 * the core decrypts it in software. Its record headers say where the
 * first record at or after st->end begins, and its number: the engine
 * starts in sync there (ahead of st->end: the engine follows the stream
 * to it) instead of stream-scanning and asking for a resync. A header is
 * readable as long as its 5 bytes are in the data, even when its record
 * runs past the end. false: a header straddles the end, or one does not
 * look like one of the version's; the flow starts unsynced, still
 * anchored at the end.
 */
static bool innova_tls_next_record(struct innova_tls_stream *st,
				   enum hw_tls_version version, u32 seq,
				   u64 rn, u32 *next_seq, u64 *next_rn)
{
	u8 hdr[TLS_HEADER_SIZE];

	while (before(seq, st->end)) {
		if (st->end - seq < TLS_HEADER_SIZE ||
		    innova_tls_stream_read(st, seq, hdr, sizeof(hdr)))
			return false;
		/* the same header test the engine follows records with */
		if (!hw_tls_hdr_plausible(version, hdr))
			return false;
		if (!before(seq, st->fresh_from))
			st->fresh++;
		seq += TLS_HEADER_SIZE + get_unaligned_be16(hdr + 3);
		rn++;
	}
	*next_seq = seq;
	*next_rn = rn;
	return true;
}

/* Under tp->lock, before the engine forgets the flow */
static void innova_tls_note_end(struct innova_tls_port *tp,
				struct innova_tls_flow *flow)
{
	unsigned int i = tp->ended_next++ % ARRAY_SIZE(tp->ended);
	struct innova_tls_end *e = &tp->ended[i];
	struct hw_flow_info info;

	memset(e, 0, sizeof(*e));
	e->sk = flow->sk;
	e->when = jiffies;
	e->walk_end = flow->walk_end;
	if (hw_engine_flow_info(tp->eng, flow->handle, &info))
		return;
	e->auth_fail_run = info.auth_fail_run;
	/*
	 * Records it followed without a key: those before the current one,
	 * and the current one too once its header is read (its length says
	 * where the next starts).
	 */
	if (info.nokey_known && info.record_num >= info.nokey_rn &&
	    info.record_num - info.nokey_rn < U32_MAX) {
		e->nokey_known = true;
		e->nokey_seq = info.nokey_seq;
		e->nokey_recs = info.record_num - info.nokey_rn;
		e->next_seq = info.record_seq;
		if (info.record_pos >= TLS_HEADER_SIZE && info.record_len) {
			e->nokey_recs++;
			e->next_seq += info.record_len;
		}
	}
}

/*
 * Under tp->lock, at an add that replaces sk's context: its previous
 * flow, deleted just now (a second at most: the key update's del and add
 * run back to back): the records it failed to authenticate at its end,
 * where the data its own add walked ended (the records before that were
 * counted then), and the records it followed without a key. false: not
 * found.
 */
static bool innova_tls_take_end(struct innova_tls_port *tp,
				const struct sock *sk, struct innova_tls_end *end)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(tp->ended); i++) {
		if (tp->ended[i].sk != sk ||
		    time_after(jiffies, tp->ended[i].when + HZ))
			continue;
		*end = tp->ended[i];
		tp->ended[i].sk = NULL;
		return true;
	}
	return false;
}

/*
 * Whether data the NIC passed before the flow existed is still on its way
 * up (GRO, the stack) while the driver reads the socket: the engine's
 * furthest end for the connection lies beyond all the socket holds (the
 * receive queue, the out-of-order queue, the backlog) yet inside the
 * window, so TCP will take it. Frames arrive in order from one NAPI poll,
 * so once the furthest is in the socket, those before it are too.
 */
static bool innova_tls_data_in_flight(struct innova_tls_port *tp,
				      struct sock *sk,
				      const struct hw_flow_tuple *tuple)
{
	const struct tcp_sock *tcp = tcp_sk(sk);
	u32 wnd_end = tcp->rcv_wup + tcp->rcv_wnd;
	u32 end, held = tcp->rcv_nxt, seq, off, len;
	struct sk_buff *skb;

	if (!hw_engine_untracked_end(tp->eng, tuple, &end) ||
	    !after(end, held))
		return false;
	skb = skb_rb_last(&tcp->out_of_order_queue);
	if (skb && after(TCP_SKB_CB(skb)->end_seq, held))
		held = TCP_SKB_CB(skb)->end_seq;
	for (skb = sk->sk_backlog.head; skb; skb = skb->next) {
		if (innova_tls_backlog_data(sk, skb, &seq, &off, &len) &&
		    after(seq + len, held))
			held = seq + len;
	}
	return after(end, held) && !after(end, wnd_end);
}

/* Waits of 1-2 ms for data still on its way up, before installing anyway */
#define INNOVA_TLS_ADD_WAITS	20

/*
 * The largest receive window the socket can ever advertise: the window
 * never exceeds the receive buffer, which autotuning grows up to
 * tcp_rmem[2] and SO_RCVBUF sets up to 2 * rmem_max. Data further ahead
 * of the stream than that is dropped by TCP, so the engine ignores it.
 */
static u32 innova_tls_max_ahead(struct sock *sk)
{
	u64 lim = max_t(u64, READ_ONCE(sock_net(sk)->ipv4.sysctl_tcp_rmem[2]),
			2ULL * READ_ONCE(sysctl_rmem_max));

	lim = max_t(u64, lim, READ_ONCE(sk->sk_rcvbuf));
	/* a window is at most 2^30 (scale 14); keep clear of seq wrap */
	return (u32)min_t(u64, lim, 1U << 30);
}

static int innova_tls_dev_add(struct net_device *netdev, struct sock *sk,
			      enum tls_offload_ctx_dir direction,
			      struct tls_crypto_info *crypto_info,
			      u32 start_offload_tcp_sn)
{
	struct innova_port *port = netdev_priv(netdev);
	struct innova_tls_port *tp = port->tls;
	struct tls12_crypto_info_aes_gcm_256 *gcm256;
	struct tls12_crypto_info_aes_gcm_128 *gcm128;
	struct hw_flow_params params = {};
	struct innova_tls_end prev = {};
	struct innova_tls_stream st;
	struct innova_tls_flow *flow;
	const u8 *key, *salt, *iv, *rec_seq;
	enum hw_tls_version version;
	u64 t0 = ktime_get_ns();
	unsigned int keylen, delay, waits, wait_max;
	bool in_flight, rekey;
	u32 walk_seq, nokey_recs = 0;
	u64 walk_rn;
	int err;

	if (direction != TLS_OFFLOAD_CTX_DIR_RX || !tp)
		return -EOPNOTSUPP;
	/*
	 * TLS 1.3 only reaches us on a kernel that offloads it to drivers
	 * that opt in (innova_tlsdev_ops.caps); the check keeps a kernel
	 * that would not ask from getting a format the NIC does not parse.
	 */
	if (crypto_info->version == TLS_1_2_VERSION)
		version = HW_TLS_1_2;
	else if (INNOVA_TLS13_RX && crypto_info->version == TLS_1_3_VERSION)
		version = HW_TLS_1_3;
	else
		return -EOPNOTSUPP;

	switch (crypto_info->cipher_type) {
	case TLS_CIPHER_AES_GCM_128:
		gcm128 = (struct tls12_crypto_info_aes_gcm_128 *)crypto_info;
		key = gcm128->key;
		keylen = sizeof(gcm128->key);
		salt = gcm128->salt;
		iv = gcm128->iv;
		rec_seq = gcm128->rec_seq;
		break;
	case TLS_CIPHER_AES_GCM_256:
		gcm256 = (struct tls12_crypto_info_aes_gcm_256 *)crypto_info;
		key = gcm256->key;
		keylen = sizeof(gcm256->key);
		salt = gcm256->salt;
		iv = gcm256->iv;
		rec_seq = gcm256->rec_seq;
		break;
	default:
		return -EOPNOTSUPP;
	}

	/* debugfs fail_next_add: behave like a firmware command error. */
	if (atomic_add_unless(&tp->fail_next_add, -1, 0)) {
		innova_tls_stat_inc(port, INNOVA_TLS_ERR);
		return -EIO;
	}

	err = innova_tls_tuple(sk, &params.tuple);
	if (err)
		return err;

	flow = kzalloc(sizeof(*flow), GFP_KERNEL);
	if (!flow)
		return -ENOMEM;
	flow->sk = sk;
	flow->tp = tp;
	INIT_WORK(&flow->async_work, innova_tls_async_work);
	flow->mode = READ_ONCE(tp->resync_mode);
	flow->keylen = keylen;
	memcpy(flow->key, key, keylen);
	flow->version = version;
	memcpy(flow->iv, salt, 4);
	memcpy(flow->iv + 4, iv, 8);

	err = hw_crypto_key_new(key, keylen, &params.key);
	if (err)
		goto err_free;

	params.max_ahead = innova_tls_max_ahead(sk);
	params.start_seq = start_offload_tcp_sn;
	params.start_rn = be64_to_cpu(get_unaligned((__be64 *)rec_seq));
	/* a socket already on the device: a key update replaces its context */
	rekey = tls_get_ctx(sk)->rx_conf == TLS_HW;
	params.version = version;
	memcpy(params.salt, salt, sizeof(params.salt));
	memcpy(params.iv, iv, sizeof(params.iv));

	/*
	 * debugfs tls_add_delay_ms: a slow firmware command. The socket is
	 * owned meanwhile, so a sender's segments pile up in its backlog,
	 * past the NIC before the flow exists, as under load.
	 */
	delay = READ_ONCE(tp->add_delay_ms);
	if (delay)
		msleep(delay);

	/*
	 * The caller owns the socket, so the receive queue stays as it is,
	 * but softirq keeps appending to the backlog under the socket's
	 * spinlock. The port lock, held from the look at the data to the
	 * install, means every frame the engine passes meanwhile either is
	 * in that data or meets the flow. The socket's lock comes first:
	 * tls_dev_resync() takes the port lock under it. A frame the engine
	 * passed just before may still be on its way up, neither in that
	 * data nor to be seen again by the NIC: if a record starts in it,
	 * the flow would start out of sync. Give it time to reach the
	 * backlog.
	 */
	sock_owned_by_me(sk);
	wait_max = READ_ONCE(tp->add_wait_max);
	for (waits = 0;; waits++) {
		spin_lock_bh(&sk->sk_lock.slock);
		spin_lock(&tp->lock);
		in_flight = innova_tls_data_in_flight(tp, sk, &params.tuple);
		if (!in_flight || waits >= wait_max)
			break;
		spin_unlock(&tp->lock);
		spin_unlock_bh(&sk->sk_lock.slock);
		usleep_range(1000, 2000);
	}
	innova_tls_stream_init(&st, sk);
	/* a key update's records the old flow's add walked are counted */
	st.fresh_from = start_offload_tcp_sn;
	walk_seq = start_offload_tcp_sn;
	walk_rn = params.start_rn;
	if (rekey && innova_tls_take_end(tp, sk, &prev)) {
		if (after(prev.walk_end, st.fresh_from))
			st.fresh_from = prev.walk_end;
		/*
		 * The old flow followed the next key's first records without
		 * the key, from the one the kernel starts the new key at: the
		 * walk goes on after them. They may no longer be in the
		 * receive queue (the record parser copies a record it cannot
		 * take in place out of it), or not yet (still on their way up).
		 */
		if (prev.nokey_known && prev.nokey_seq == start_offload_tcp_sn) {
			nokey_recs = prev.nokey_recs;
			walk_seq = prev.next_seq;
			walk_rn += nokey_recs;
		}
	}
	/* the records counted here end there (or where the handover's did) */
	flow->walk_end = after(walk_seq, st.end) ? walk_seq : st.end;
	params.stream_seq = st.end;
	params.stream_known = true;
	/* under the socket's spinlock: no transmission races this read */
	params.snd_nxt = tcp_sk(sk)->snd_nxt;
	params.snd_known = true;
	params.peer_wscale = tcp_sk(sk)->rx_opt.snd_wscale;
	params.peer_wscale_known = true;
	/* the window's edge as last advertised; later ones pass innova_tls_tx() */
	params.rcv_edge = tcp_sk(sk)->rcv_wup + tcp_sk(sk)->rcv_wnd;
	params.rcv_wscale = tcp_sk(sk)->rx_opt.rcv_wscale;
	params.rcv_edge_known = true;
	params.start_synced = innova_tls_next_record(&st, version, walk_seq,
						     walk_rn, &params.start_seq,
						     &params.start_rn);
	err = hw_engine_flow_add(tp->eng, &params, &flow->handle);
	if (!err) {
		list_add_tail(&flow->node, &tp->flows);
		tp->adds++;
		tp->add_ns += ktime_get_ns() - t0;
	}
	spin_unlock(&tp->lock);
	spin_unlock_bh(&sk->sk_lock.slock);
	trace_innova_tls_flow_add(port->index, flow->handle, params.start_seq,
				  params.start_rn, params.start_synced,
				  params.stream_seq - start_offload_tcp_sn,
				  params.stream_seq - st.rcv_nxt,
				  params.start_synced ?
				  params.start_seq - params.stream_seq : 0, err);
	if (err) {
		hw_crypto_key_free(params.key);
		goto err_free;
	}

	switch (flow->mode) {
	case INNOVA_RESYNC_CORE_NEXT_HINT:
		tls_offload_rx_resync_set_type(sk, TLS_OFFLOAD_SYNC_TYPE_CORE_NEXT_HINT);
		break;
	case INNOVA_RESYNC_DRIVER_REQ_ASYNC:
		/* no helper sets the pointer (mlx5 does the same) */
		tls_offload_ctx_rx(tls_get_ctx(sk))->resync_async = &flow->resync_async;
		tls_offload_rx_resync_set_type(sk, TLS_OFFLOAD_SYNC_TYPE_DRIVER_REQ_ASYNC);
		break;
	default:
		tls_offload_rx_resync_set_type(sk, TLS_OFFLOAD_SYNC_TYPE_DRIVER_REQ);
		break;
	}
	*innova_tls_state(tls_get_ctx(sk)) = flow;
	atomic_inc(&innova_objects.flows);
	innova_tls_stat_inc(port, INNOVA_TLS_CTX);
	if (rekey) {
		innova_tls_stat_inc(port, INNOVA_TLS_CTX_REKEY);
		innova_tls_stat_add(port, INNOVA_TLS_REKEY_AUTH_FAIL,
				    prev.auth_fail_run);
		/*
		 * The records that passed before the key: software's. Those
		 * a later KeyUpdate in the walked data put under yet another
		 * key count too: they passed before their key as well.
		 */
		innova_tls_stat_add(port, INNOVA_TLS_REKEY_SW_RECORDS,
				    nokey_recs + st.fresh);
	}
	if (params.start_synced)
		innova_tls_stat_inc(port, INNOVA_TLS_START_SYNC);
	if (waits)
		innova_tls_stat_inc(port, INNOVA_TLS_ADD_WAIT);
	if (in_flight)
		innova_tls_stat_inc(port, INNOVA_TLS_ADD_IN_FLIGHT);
	return 0;

err_free:
	kfree_sensitive(flow);
	return err;
}

static void innova_tls_flow_free_rcu(struct rcu_head *head)
{
	kfree_sensitive(container_of(head, struct innova_tls_flow, rcu));
	atomic_dec(&innova_objects.flows);
}

static void innova_tls_dev_del(struct net_device *netdev,
			       struct tls_context *tls_ctx,
			       enum tls_offload_ctx_dir direction)
{
	struct innova_port *port = netdev_priv(netdev);
	struct innova_tls_port *tp = port->tls;
	struct hw_key_reap reap = {};
	struct innova_tls_flow *flow;
	u64 t0 = ktime_get_ns();

	if (direction != TLS_OFFLOAD_CTX_DIR_RX || !tp)
		return;
	flow = *innova_tls_state(tls_ctx);
	if (!flow)
		return;
	*innova_tls_state(tls_ctx) = NULL;

	spin_lock_bh(&tp->lock);
	innova_tls_note_end(tp, flow);
	hw_engine_flow_del(tp->eng, flow->handle, &reap);
	list_del(&flow->node);
	spin_unlock_bh(&tp->lock);
	trace_innova_tls_flow_del(port->index, flow->handle);

	/*
	 * The async work embeds in the flow: cancel it before the free. It
	 * never sleeps (one spinlock), so a running instance is waited for
	 * briefly; a pending one is just dropped (it would find the flow
	 * gone and do nothing).
	 */
	cancel_work_sync(&flow->async_work);
	hw_key_reap_free(&reap);
	memzero_explicit(flow->key, sizeof(flow->key));
	memzero_explicit(flow->iv, sizeof(flow->iv));
	/* tls_dev_resync() may still hold flow inside an RCU read section */
	call_rcu(&flow->rcu, innova_tls_flow_free_rcu);
	innova_tls_stat_inc(port, INNOVA_TLS_DEL);
	spin_lock_bh(&tp->lock);
	tp->dels++;
	tp->del_ns += ktime_get_ns() - t0;
	spin_unlock_bh(&tp->lock);
}

/* softirq (strparser) or process context: must not sleep. */
static int innova_tls_dev_resync(struct net_device *netdev, struct sock *sk,
				 u32 seq, u8 *rcd_sn,
				 enum tls_offload_ctx_dir direction)
{
	struct innova_port *port = netdev_priv(netdev);
	struct innova_tls_port *tp = port->tls;
	struct innova_tls_flow *flow;
	u64 rn;
	int err;

	if (direction != TLS_OFFLOAD_CTX_DIR_RX || !tp)
		return -EOPNOTSUPP;
	flow = *innova_tls_state(tls_get_ctx(sk));
	if (!flow) {
		innova_tls_stat_inc(port, INNOVA_TLS_RESYNC_RES_SKIP);
		return 0;
	}
	rn = be64_to_cpu(get_unaligned((__be64 *)rcd_sn));

	/*
	 * DRIVER_REQ: the core echoes our request, header start + 4.
	 * CORE_NEXT_HINT: seq is the start of the record numbered rcd_sn.
	 * DRIVER_REQ_ASYNC: seq is the header start we sent with _end.
	 */
	if (flow->mode == INNOVA_RESYNC_DRIVER_REQ)
		seq -= 4;
	spin_lock_bh(&tp->lock);
	err = hw_engine_flow_resync(tp->eng, flow->handle, seq, rn);
	/*
	 * The core consumed our answer: the next query may start. Only for
	 * the answer in flight: an older one, replaced once the application
	 * had read past it, can still reach here after NAPI started a newer
	 * query, which then must keep its answer coming.
	 */
	if (flow->mode == INNOVA_RESYNC_DRIVER_REQ_ASYNC &&
	    flow->async_answered && seq == flow->async_hw_seq) {
		flow->async_busy = false;
		flow->async_answered = false;
	}
	spin_unlock_bh(&tp->lock);
	trace_innova_tls_resync_confirm(port->index, flow->handle, seq, rn, err);

	/*
	 * mlx5's meaning: res_ok when the NIC took the confirmation (numbers
	 * applied, or agreeing with what it follows); a seq ahead of the
	 * stream is remembered as a hint (the engine's resync_hint counts it,
	 * res_ok follows when it is reached); anything else is res_skip.
	 */
	if (err == HW_RESYNC_APPLIED)
		innova_tls_stat_inc(port, INNOVA_TLS_RESYNC_RES_OK);
	else if (err != HW_RESYNC_HINT)
		innova_tls_stat_inc(port, INNOVA_TLS_RESYNC_RES_SKIP);
	return 0;
}

const struct tlsdev_ops innova_tlsdev_ops = {
	.tls_dev_add	= innova_tls_dev_add,
	.tls_dev_del	= innova_tls_dev_del,
	.tls_dev_resync	= innova_tls_dev_resync,
#if INNOVA_TLS13_RX
	/* a kernel with the project's TLS 1.3 RX series (kernel/patches) */
	.caps		= TLSDEV_CAP_RX_TLS_1_3,
#endif
};

/*
 * An answered query the core can no longer consume: the application has
 * read past the answered header, so the record parser went past it
 * without a match (it only moves forward). Then a new query may replace
 * it. A cleared req alone does not make it stale: the parser clears req
 * when it matches, just before it calls tls_dev_resync() to consume it.
 */
static bool innova_tls_async_stale(struct innova_tls_flow *flow,
				   struct sock *sk)
{
	return flow->async_answered &&
	       after(READ_ONCE(tcp_sk(sk)->copied_seq), flow->async_hw_seq);
}

/*
 * The engine gave up the record chain an async query is about: it lost
 * sync, gave up the candidate chain it asked about, took a forward jump
 * back, or moved to a far run of frames. The query's header may be one
 * TCP never delivers (a spoofed segment), so the core might never consume
 * the answer, and every later request would be held back until the
 * application reads past that seq. Drop it so the next request starts a
 * query at once.
 */
#define INNOVA_ASYNC_CANCEL_EVENTS \
	(HW_EV_SYNC_LOST | HW_EV_LOST_GAP | HW_EV_LOST_BAD_HEADER | \
	 HW_EV_LOST_TAG | HW_EV_LOST_CRYPTO | HW_EV_LOST_CONFLICT | \
	 HW_EV_REARMED | HW_EV_REANCHORED | HW_EV_CHAIN_DROPPED)

static void innova_tls_async_cancel(struct innova_port *port,
				    struct innova_tls_port *tp, u32 handle)
{
	struct innova_tls_flow *flow = innova_tls_find(tp, handle);

	if (!flow || flow->mode != INNOVA_RESYNC_DRIVER_REQ_ASYNC ||
	    !flow->async_busy)
		return;
	/* a pending work item finds the flow idle and sends no answer */
	innova_resync_async_cancel(&flow->resync_async);
	flow->async_busy = false;
	flow->async_answered = false;
	innova_tls_stat_inc(port, INNOVA_TLS_RESYNC_ASYNC_CANCEL);
}

/*
 * The engine asks for a confirmation of a header in this frame: pass it to
 * the core before the frame goes up, but only for a socket that is really
 * device-offloaded by this flow (the helpers share a union with other
 * resync types, and a software-only context has no offload area at all).
 */
static void innova_tls_resync_request(struct innova_port *port,
				      struct innova_tls_port *tp,
				      const struct hw_rx_completion *c)
{
	struct innova_tls_flow *flow = innova_tls_find(tp, c->flow);
	struct sock *sk = flow ? flow->sk : NULL;
	u32 hdr, start;

	/* In CORE_NEXT_HINT mode the core resyncs without being asked. */
	if (flow && flow->mode == INNOVA_RESYNC_CORE_NEXT_HINT)
		return;
	innova_tls_stat_inc(port, INNOVA_TLS_RESYNC_REQ_PKT);
	if (!sk || !tls_is_sk_rx_device_offloaded(sk) ||
	    *innova_tls_state(tls_get_ctx(sk)) != flow ||
	    (sk->sk_shutdown & RCV_SHUTDOWN)) {
		innova_tls_stat_inc(port, INNOVA_TLS_RESYNC_REQ_SKIP);
		trace_innova_tls_resync_req(port->index, c->flow, c->resync_seq,
					    false);
		return;
	}
	if (flow->mode == INNOVA_RESYNC_DRIVER_REQ_ASYNC) {
		/*
		 * One query in flight per flow: a new _start would wipe the
		 * core's log, or its answer, under the pending one. The
		 * engine asks again later if this one does not bring sync
		 * back.
		 */
		if (flow->async_busy) {
			if (!innova_tls_async_stale(flow, sk)) {
				innova_tls_stat_inc(port, INNOVA_TLS_RESYNC_REQ_SKIP);
				return;
			}
			/*
			 * Every _end is either consumed by the core (its
			 * TlsRxDeviceResync) or counted here: the test of
			 * "no live answer overwritten" is that sum.
			 */
			innova_tls_stat_inc(port, INNOVA_TLS_RESYNC_ASYNC_REPLACED);
		}
		/* DRIVER_REQ's header start + 4 back to the header's start */
		hdr = c->resync_seq - 4;
		/* the header may begin in the previous frame (carried bytes) */
		start = before(c->tcp_seq, hdr) ? c->tcp_seq : hdr;
		innova_resync_async_start(sk, &flow->resync_async, htonl(start),
					  c->tcp_seq + c->payload_len - start);
		flow->async_busy = true;
		flow->async_answered = false;
		flow->async_hw_seq = hdr;
		schedule_work(&flow->async_work);
	} else {
		tls_offload_rx_resync_request(sk, htonl(c->resync_seq));
	}
	trace_innova_tls_resync_req(port->index, c->flow, c->resync_seq, true);
	innova_tls_stat_inc(port, INNOVA_TLS_RESYNC_REQ_START);
}

/*
 * The "firmware" answers an async resync query with the header it found:
 * async_request_end() with its first byte. The flow is looked up again
 * under the lock: after tls_dev_del() removed it, nothing is sent.
 */
static void innova_tls_async_work(struct work_struct *work)
{
	struct innova_tls_flow *flow = container_of(work, struct innova_tls_flow,
						    async_work);
	struct innova_tls_port *tp = flow->tp;
	bool sent = false;

	spin_lock_bh(&tp->lock);
	if (innova_tls_find(tp, flow->handle) == flow && flow->async_busy &&
	    !flow->async_answered) {
		innova_resync_async_end(flow->sk, &flow->resync_async,
					htonl(flow->async_hw_seq));
		flow->async_answered = true;	/* busy until consumed */
		sent = true;
	}
	spin_unlock_bh(&tp->lock);
	if (sent)
		innova_tls_stat_inc(tp->port, INNOVA_TLS_RESYNC_REQ_END);
}

/*
 * Transmit: the engine learns the host's send sequence of its flows from
 * the frames it carries out (frame: linear, checksums final).
 */
void innova_tls_tx(struct innova_port *port, const struct sk_buff *frame)
{
	struct innova_tls_port *tp = port->tls;

	if (!tp)
		return;
	spin_lock(&tp->lock);
	hw_engine_tx(tp->eng, frame->data, frame->len);
	spin_unlock(&tp->lock);
}

/*
 * NAPI: run the hardware engine over one received frame. skb is linear,
 * private to us (the cable copied it) and skb->data is the Ethernet header.
 */
void innova_tls_rx(struct innova_port *port, struct sk_buff *skb)
{
	struct innova_tls_port *tp = port->tls;
	struct hw_rx_completion c;
	unsigned int up_delay;
	bool decrypted;
	u64 t0, dev_ns;

	if (!tp || skb->len > INNOVA_TLS_SCRATCH)
		return;

	spin_lock(&tp->lock);
	/*
	 * Device time: the engine and its write-back of the plaintext ("DMA")
	 * are the NIC's work, which real hardware does off the host CPU.
	 * Lock waits and the kernel calls below are the driver's.
	 */
	t0 = local_clock();
	hw_engine_rx(tp->eng, skb->data, skb->len, tp->scratch, &c);
	decrypted = hw_rx_decrypted(&c);
	if (decrypted)
		memcpy(skb->data, tp->scratch, skb->len);
	dev_ns = local_clock() - t0;
	/* before a request in the same frame, which may start a new query */
	if (c.events & INNOVA_ASYNC_CANCEL_EVENTS)
		innova_tls_async_cancel(port, tp, c.flow);
	if (c.resync_req)
		innova_tls_resync_request(port, tp, &c);
	if (c.events & HW_EV_KEY_REFRESH_NEEDED) {
		struct innova_tls_flow *flow = innova_tls_find(tp, c.flow);

		if (flow) {
			flow->refresh = true;
			schedule_work(&tp->refresh_work);
		}
	}
	spin_unlock(&tp->lock);

	innova_tls_stat_add(port, INNOVA_TLS_DEVICE_NS, dev_ns);
	if (decrypted) {
		/* The payload changed: the original checksum was checked. */
		skb->decrypted = 1;
		skb->ip_summed = CHECKSUM_UNNECESSARY;
		innova_tls_stat_inc(port, INNOVA_TLS_DECRYPTED_PACKETS);
		innova_tls_stat_add(port, INNOVA_TLS_DECRYPTED_BYTES,
				    c.payload_len);
	} else if (c.csum_ok && (port->dev->features & NETIF_F_RXCSUM)) {
		skb->ip_summed = CHECKSUM_UNNECESSARY;
	}
	if (c.auth_fail)
		innova_tls_stat_inc(port, INNOVA_TLS_AUTH_FAIL);
	if (c.events & HW_EV_CRYPTO_ERR)
		innova_tls_stat_inc(port, INNOVA_TLS_ERR);
	if (c.auth_fail || c.events)
		trace_innova_tls_frame_event(port->index, c.flow, c.tcp_seq,
					     c.events, c.auth_fail);
	/* debugfs tls_rx_up_delay_us: the frame's way up takes this long */
	up_delay = READ_ONCE(tp->rx_up_delay_us);
	if (unlikely(up_delay))
		udelay(up_delay);
}

/*
 * Install a key for a flow from record rn on: the key the core gave us
 * (refresh) or a deliberately wrong one (fault injection). Process context.
 */
static int innova_tls_key_install(struct innova_tls_port *tp, u32 handle,
				  bool use_rn, u64 rn, bool wrong)
{
	struct innova_tls_flow *flow;
	struct hw_key_reap reap = {};
	struct hw_flow_info info;
	struct hw_crypto_key *key;
	u8 kbuf[TLS_CIPHER_AES_GCM_256_KEY_SIZE];
	u8 iv[HW_TLS_IV_LEN];
	unsigned int keylen;
	int err;

	spin_lock_bh(&tp->lock);
	flow = innova_tls_find(tp, handle);
	if (!flow) {
		spin_unlock_bh(&tp->lock);
		return -ENOENT;
	}
	keylen = flow->keylen;
	memcpy(kbuf, flow->key, keylen);
	memcpy(iv, flow->iv, sizeof(iv));
	spin_unlock_bh(&tp->lock);

	if (wrong)
		kbuf[0] ^= 0x5a;
	err = hw_crypto_key_new(kbuf, keylen, &key);
	memzero_explicit(kbuf, sizeof(kbuf));
	if (err)
		return err;

	spin_lock_bh(&tp->lock);
	if (!use_rn) {
		/* Refresh: effective from the current record (a late update). */
		err = hw_engine_flow_info(tp->eng, handle, &info);
		rn = info.record_num;
	} else {
		err = 0;
	}
	if (!err)
		err = hw_engine_flow_key_update(tp->eng, handle, key, iv, rn,
						&reap);
	spin_unlock_bh(&tp->lock);
	if (err)
		hw_crypto_key_free(key);
	hw_key_reap_free(&reap);
	return err;
}

static void innova_tls_refresh_work(struct work_struct *work)
{
	struct innova_tls_port *tp = container_of(work, struct innova_tls_port,
						  refresh_work);
	struct innova_tls_flow *flow;
	u32 handle;

	for (;;) {
		handle = 0;
		spin_lock_bh(&tp->lock);
		list_for_each_entry(flow, &tp->flows, node) {
			if (flow->refresh) {
				flow->refresh = false;
				handle = flow->handle;
				break;
			}
		}
		spin_unlock_bh(&tp->lock);
		if (!handle)
			return;
		innova_tls_key_install(tp, handle, false, 0, false);
	}
}

/* ---- debugfs: flow table, injected add failures, key updates ---- */

static void innova_tls_show_tuple(struct seq_file *m,
				  const struct hw_flow_tuple *t)
{
	if (t->family == 4)
		seq_printf(m, "%pI4:%u -> %pI4:%u", t->saddr, t->sport,
			   t->daddr, t->dport);
	else
		seq_printf(m, "[%pI6c]:%u -> [%pI6c]:%u", t->saddr, t->sport,
			   t->daddr, t->dport);
}

static int innova_tls_flows_show(struct seq_file *m, void *v)
{
	struct innova_tls_port *tp = m->private;
	struct hw_flow_info info;
	u32 handle = 0;
	int err;

	seq_puts(m, "# handle tuple state expected_seq record_seq record_num decrypted_records enc_records shadow_ok shadow_fail auth_fail holes resync_req resync_ok resync_skip\n");
	for (;;) {
		spin_lock_bh(&tp->lock);
		handle = hw_engine_flow_next(tp->eng, handle);
		err = handle ? hw_engine_flow_info(tp->eng, handle, &info) : -ENOENT;
		spin_unlock_bh(&tp->lock);
		if (err)
			break;
		seq_printf(m, "%u ", handle);
		innova_tls_show_tuple(m, &info.tuple);
		seq_printf(m, " %s %u %u %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu\n",
			   hw_flow_state_name(info.state), info.expected_seq,
			   info.record_seq, info.record_num,
			   info.stats.decrypted_records, info.stats.enc_records,
			   info.stats.shadow_ok, info.stats.shadow_fail,
			   info.stats.auth_fail, info.stats.holes,
			   info.stats.resync_req, info.stats.resync_ok,
			   info.stats.resync_skip);
	}
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(innova_tls_flows);

static int innova_tls_fail_get(void *data, u64 *val)
{
	struct innova_tls_port *tp = data;

	*val = atomic_read(&tp->fail_next_add);
	return 0;
}

static int innova_tls_fail_set(void *data, u64 val)
{
	struct innova_tls_port *tp = data;

	if (val > INT_MAX)
		return -EINVAL;
	atomic_set(&tp->fail_next_add, val);
	return 0;
}
DEFINE_DEBUGFS_ATTRIBUTE(innova_tls_fail_fops, innova_tls_fail_get,
			 innova_tls_fail_set, "%llu\n");

/*
 * A test knob of the port in debugfs: an unsigned int field of struct
 * innova_tls_port read locklessly, written up to max:
 * innova_tls_NAME_fops.
 */
static unsigned int *innova_tls_knob(void *data, size_t off)
{
	return (unsigned int *)((u8 *)data + off);
}

#define INNOVA_TLS_KNOB(name, field, max)				\
static const size_t innova_tls_##name##_off =				\
	offsetof(struct innova_tls_port, field);			\
static int innova_tls_##name##_get(void *data, u64 *val)		\
{									\
	*val = READ_ONCE(*innova_tls_knob(data, innova_tls_##name##_off)); \
	return 0;							\
}									\
static int innova_tls_##name##_set(void *data, u64 val)		\
{									\
	if (val > (max))						\
		return -EINVAL;						\
	WRITE_ONCE(*innova_tls_knob(data, innova_tls_##name##_off), val); \
	return 0;							\
}									\
DEFINE_DEBUGFS_ATTRIBUTE(innova_tls_##name##_fops, innova_tls_##name##_get, \
			 innova_tls_##name##_set, "%llu\n")

/* up to 10 s: the add runs in the caller's setsockopt() */
INNOVA_TLS_KNOB(add_delay, add_delay_ms, 10000);
/* up to 2 ms per frame, busy-waited in NAPI */
INNOVA_TLS_KNOB(rx_up_delay, rx_up_delay_us, 2000);
/* up to 100 waits of 1-2 ms in setsockopt() */
INNOVA_TLS_KNOB(add_wait_max, add_wait_max, 100);

/*
 * An engine switch of the port in debugfs (0 or 1), read and written under
 * the port lock: innova_tls_NAME_fops around the engine's getter/setter.
 */
#define INNOVA_TLS_ENGINE_SWITCH(name, get_fn, set_fn)			\
static int innova_tls_##name##_get(void *data, u64 *val)		\
{									\
	struct innova_tls_port *tp = data;				\
									\
	spin_lock_bh(&tp->lock);					\
	*val = get_fn(tp->eng);						\
	spin_unlock_bh(&tp->lock);					\
	return 0;							\
}									\
									\
static int innova_tls_##name##_set(void *data, u64 val)		\
{									\
	struct innova_tls_port *tp = data;				\
									\
	if (val > 1)							\
		return -EINVAL;						\
	spin_lock_bh(&tp->lock);					\
	set_fn(tp->eng, val);						\
	spin_unlock_bh(&tp->lock);					\
	return 0;							\
}									\
DEFINE_DEBUGFS_ATTRIBUTE(innova_tls_##name##_fops,			\
			 innova_tls_##name##_get,			\
			 innova_tls_##name##_set, "%llu\n")

/* 0: every lost sync goes through the kernel's resync (DRIVER_REQ). */
INNOVA_TLS_ENGINE_SWITCH(recovery, hw_engine_reorder_recovery,
			 hw_engine_set_reorder_recovery);
/* 0: frames TCP drops for their ACK reach the framing (tests only). */
INNOVA_TLS_ENGINE_SWITCH(ack_check, hw_engine_ack_check,
			 hw_engine_set_ack_check);
/* 0: frames beyond the advertised window may move the stream (tests). */
INNOVA_TLS_ENGINE_SWITCH(window_check, hw_engine_window_check,
			 hw_engine_set_window_check);

static int innova_tls_crypto_fail_get(void *data, u64 *val)
{
	struct innova_tls_port *tp = data;

	spin_lock_bh(&tp->lock);
	*val = hw_engine_crypto_fail_pending(tp->eng);
	spin_unlock_bh(&tp->lock);
	return 0;
}

/* The next N whole-block CTR calls of the engine fail (backend error). */
static int innova_tls_crypto_fail_set(void *data, u64 val)
{
	struct innova_tls_port *tp = data;

	if (val > U32_MAX)
		return -EINVAL;
	spin_lock_bh(&tp->lock);
	hw_engine_inject_crypto_fail(tp->eng, val);
	spin_unlock_bh(&tp->lock);
	return 0;
}
DEFINE_DEBUGFS_ATTRIBUTE(innova_tls_crypto_fail_fops, innova_tls_crypto_fail_get,
			 innova_tls_crypto_fail_set, "%llu\n");

/* "HANDLE RECORD good|wrong": key update for a flow at record RECORD. */
static ssize_t innova_tls_key_update_write(struct file *file,
					   const char __user *ubuf,
					   size_t count, loff_t *ppos)
{
	struct innova_tls_port *tp = file->private_data;
	char buf[64], kind[8];
	unsigned long long rn;
	unsigned int handle;
	int err;

	if (count >= sizeof(buf))
		return -EINVAL;
	if (copy_from_user(buf, ubuf, count))
		return -EFAULT;
	buf[count] = '\0';
	if (sscanf(buf, "%u %llu %7s", &handle, &rn, kind) != 3)
		return -EINVAL;
	if (strcmp(kind, "good") && strcmp(kind, "wrong"))
		return -EINVAL;
	err = innova_tls_key_install(tp, handle, true, rn,
				     !strcmp(kind, "wrong"));
	return err ? err : count;
}

static ssize_t innova_tls_mode_read(struct file *file, char __user *ubuf,
				    size_t count, loff_t *ppos)
{
	struct innova_tls_port *tp = file->private_data;
	char buf[32];
	int len;

	len = scnprintf(buf, sizeof(buf), "%s\n",
			innova_resync_mode_names[READ_ONCE(tp->resync_mode)]);
	return simple_read_from_buffer(ubuf, count, ppos, buf, len);
}

static ssize_t innova_tls_mode_write(struct file *file,
				     const char __user *ubuf, size_t count,
				     loff_t *ppos)
{
	struct innova_tls_port *tp = file->private_data;
	char buf[32];
	int mode;

	if (count >= sizeof(buf))
		return -EINVAL;
	if (copy_from_user(buf, ubuf, count))
		return -EFAULT;
	buf[count] = '\0';
	/* sysfs_match_string() ignores a trailing newline, as from echo. */
	mode = sysfs_match_string(innova_resync_mode_names, buf);
	if (mode < 0)
		return mode;
	WRITE_ONCE(tp->resync_mode, mode);
	return count;
}

static const struct file_operations innova_tls_mode_fops = {
	.owner	= THIS_MODULE,
	.open	= simple_open,
	.read	= innova_tls_mode_read,
	.write	= innova_tls_mode_write,
	.llseek	= default_llseek,
};

static const struct file_operations innova_tls_key_update_fops = {
	.owner	= THIS_MODULE,
	.open	= simple_open,
	.write	= innova_tls_key_update_write,
	.llseek	= noop_llseek,
};

/*
 * The engine's resync latency histogram: "records count" lines, the last
 * one "31+ count". Writing 0 empties it.
 */
static int innova_tls_resync_latency_show(struct seq_file *m, void *v)
{
	struct innova_tls_port *tp = m->private;
	u32 hist[HW_RESYNC_HIST];
	int i;

	spin_lock_bh(&tp->lock);
	hw_engine_resync_hist(tp->eng, hist);
	spin_unlock_bh(&tp->lock);
	for (i = 0; i < HW_RESYNC_HIST - 1; i++)
		seq_printf(m, "%d %u\n", i, hist[i]);
	seq_printf(m, "%d+ %u\n", i, hist[i]);
	return 0;
}

static int innova_tls_resync_latency_open(struct inode *inode,
					  struct file *file)
{
	return single_open(file, innova_tls_resync_latency_show,
			   inode->i_private);
}

static ssize_t innova_tls_resync_latency_write(struct file *file,
					       const char __user *ubuf,
					       size_t count, loff_t *ppos)
{
	struct innova_tls_port *tp = file_inode(file)->i_private;
	unsigned int v;
	int err;

	err = kstrtouint_from_user(ubuf, count, 0, &v);
	if (err)
		return err;
	if (v)
		return -EINVAL;
	spin_lock_bh(&tp->lock);
	hw_engine_resync_hist_reset(tp->eng);
	spin_unlock_bh(&tp->lock);
	return count;
}

static const struct file_operations innova_tls_resync_latency_fops = {
	.owner		= THIS_MODULE,
	.open		= innova_tls_resync_latency_open,
	.read		= seq_read,
	.write		= innova_tls_resync_latency_write,
	.llseek		= seq_lseek,
	.release	= single_release,
};

/*
 * Flow commands (tls_dev_add with its key setup, tls_dev_del with its key
 * teardown) completed, and the nanoseconds they took: "add N ns" and
 * "del N ns". Rates at scale come from deltas of these.
 */
static int innova_tls_cmd_time_show(struct seq_file *m, void *v)
{
	struct innova_tls_port *tp = m->private;
	u64 adds, add_ns, dels, del_ns;

	spin_lock_bh(&tp->lock);
	adds = tp->adds;
	add_ns = tp->add_ns;
	dels = tp->dels;
	del_ns = tp->del_ns;
	spin_unlock_bh(&tp->lock);
	seq_printf(m, "add %llu %llu\ndel %llu %llu\n", adds, add_ns, dels,
		   del_ns);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(innova_tls_cmd_time);

/* rx_tls_device_ns per CPU: "cpuN ns" lines, for CPU accounting by CPU */
static int innova_tls_device_ns_show(struct seq_file *m, void *v)
{
	struct innova_port *port = m->private;
	unsigned int start;
	u64 ns;
	int cpu;

	for_each_possible_cpu(cpu) {
		const struct innova_pcpu_stats *s = per_cpu_ptr(port->stats, cpu);

		do {
			start = u64_stats_fetch_begin(&s->syncp);
			ns = u64_stats_read(&s->tls[INNOVA_TLS_DEVICE_NS]);
		} while (u64_stats_fetch_retry(&s->syncp, start));
		seq_printf(m, "cpu%d %llu\n", cpu, ns);
	}
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(innova_tls_device_ns);

void innova_tls_debugfs_add(struct innova_port *port, struct dentry *dir)
{
	struct innova_tls_port *tp = port->tls;

	if (!tp)
		return;
	/* live TCP and record sequence numbers: root only */
	debugfs_create_file("tls_flows", 0400, dir, tp, &innova_tls_flows_fops);
	debugfs_create_file_unsafe("tls_fail_next_add", 0600, dir, tp,
				   &innova_tls_fail_fops);
	debugfs_create_file_unsafe("tls_add_delay_ms", 0600, dir, tp,
				   &innova_tls_add_delay_fops);
	debugfs_create_file_unsafe("tls_rx_up_delay_us", 0600, dir, tp,
				   &innova_tls_rx_up_delay_fops);
	debugfs_create_file_unsafe("tls_add_wait_max", 0600, dir, tp,
				   &innova_tls_add_wait_max_fops);
	debugfs_create_file_unsafe("tls_crypto_fail_next", 0600, dir, tp,
				   &innova_tls_crypto_fail_fops);
	debugfs_create_file("tls_key_update", 0200, dir, tp,
			    &innova_tls_key_update_fops);
	debugfs_create_file("tls_resync_mode", 0600, dir, tp,
			    &innova_tls_mode_fops);
	debugfs_create_file_unsafe("tls_ack_check", 0600, dir, tp,
				   &innova_tls_ack_check_fops);
	debugfs_create_file_unsafe("tls_window_check", 0600, dir, tp,
				   &innova_tls_window_check_fops);
	debugfs_create_file_unsafe("tls_reorder_recovery", 0600, dir, tp,
				   &innova_tls_recovery_fops);
	debugfs_create_file("tls_device_ns", 0400, dir, port,
			    &innova_tls_device_ns_fops);
	debugfs_create_file("resync_latency", 0600, dir, tp,
			    &innova_tls_resync_latency_fops);
	debugfs_create_file("tls_cmd_time", 0400, dir, tp,
			    &innova_tls_cmd_time_fops);
}

void innova_tls_engine_stats(struct innova_port *port, struct hw_stats *st)
{
	struct innova_tls_port *tp = port->tls;

	memset(st, 0, sizeof(*st));
	if (!tp)
		return;
	spin_lock_bh(&tp->lock);
	hw_engine_stats(tp->eng, st);
	spin_unlock_bh(&tp->lock);
}

u32 innova_tls_flow_count(struct innova_port *port)
{
	struct innova_tls_port *tp = port->tls;
	u32 n;

	if (!tp)
		return 0;
	spin_lock_bh(&tp->lock);
	n = hw_engine_flow_count(tp->eng);
	spin_unlock_bh(&tp->lock);
	return n;
}

/* For measurement (module/bench.c): the driver's per-flow and per-port state. */
void innova_tls_mem(struct innova_tls_mem *m)
{
	m->flow = sizeof(struct innova_tls_flow);
	m->flow_slab = kmalloc_size_roundup(m->flow);
	m->max_flows = max_flows;
	m->port = sizeof(struct innova_tls_port);
	m->engine = hw_engine_mem_size(max_flows);
	m->scratch = INNOVA_TLS_SCRATCH;
}

int innova_tls_port_init(struct innova_port *port)
{
	struct innova_tls_port *tp;
	size_t size;

	if (!max_flows || max_flows > HW_ENGINE_MAX_FLOWS)
		return -EINVAL;
	tp = kzalloc(sizeof(*tp), GFP_KERNEL);
	if (!tp)
		return -ENOMEM;
	size = hw_engine_mem_size(max_flows);
	tp->eng_size = size;
	tp->eng_mem = kvzalloc(size, GFP_KERNEL);
	tp->scratch = kmalloc(INNOVA_TLS_SCRATCH, GFP_KERNEL);
	if (!tp->eng_mem || !tp->scratch)
		goto err;
	tp->eng = hw_engine_init(tp->eng_mem, size, max_flows);
	if (!tp->eng)
		goto err;
	spin_lock_init(&tp->lock);
	tp->add_wait_max = INNOVA_TLS_ADD_WAITS;
	INIT_LIST_HEAD(&tp->flows);
	INIT_WORK(&tp->refresh_work, innova_tls_refresh_work);
	tp->port = port;
	port->tls = tp;
	return 0;
err:
	kfree(tp->scratch);
	kvfree(tp->eng_mem);
	kfree(tp);
	return -ENOMEM;
}

/* After unregister: the core has deleted every flow (NETDEV_DOWN). */
void innova_tls_port_fini(struct innova_port *port)
{
	struct innova_tls_port *tp = port->tls;

	if (!tp)
		return;
	cancel_work_sync(&tp->refresh_work);
	WARN_ON_ONCE(!list_empty(&tp->flows));
	hw_engine_fini(tp->eng);
	kvfree_sensitive(tp->eng_mem, tp->eng_size);
	kfree_sensitive(tp->scratch);	/* last frame's plaintext */
	kfree(tp);
	port->tls = NULL;
}

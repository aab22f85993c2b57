/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Innova: an emulated NIC with kTLS RX crypto offload.
 *
 * Two "innova" ports are joined by an emulated cable. A frame sent by one
 * port is copied (the emulated DMA) into a fresh linear RX buffer for the
 * other port, passes the sending port's seeded cable faults (cable.c),
 * lands on the receiving port's RX ring (innova_rx_enqueue()) and is
 * delivered by that port's NAPI poll after the hardware engine has looked
 * at it (innova_tls_rx()). docs/design.md walks through the whole path.
 */
#ifndef _INNOVA_H
#define _INNOVA_H

#include <linux/debugfs.h>
#include <linux/ethtool.h>
#include <linux/hrtimer.h>
#include <linux/netdevice.h>
#include <linux/percpu.h>
#include <linux/skbuff.h>
#include <linux/spinlock.h>
#include <linux/u64_stats_sync.h>

#if !IS_ENABLED(CONFIG_TLS_DEVICE)
#error "innova needs a kernel with CONFIG_TLS_DEVICE"
#endif

#define INNOVA_DRV_NAME		"innova"

#define INNOVA_MIN_MTU		68
#define INNOVA_MAX_MTU		9000

#define INNOVA_RING_DEFAULT	1024
#define INNOVA_RING_MAX		16384
#define INNOVA_RING_MIN		16

/*
 * Port counters (per CPU). Names live in ethtool.c, see innova_tls_stat
 * for how they are checked.
 */
enum innova_port_stat {
	INNOVA_STAT_RX_PACKETS,
	INNOVA_STAT_RX_BYTES,
	INNOVA_STAT_TX_PACKETS,
	INNOVA_STAT_TX_BYTES,
	INNOVA_STAT_RX_RING_DROPS,	/* RX ring full: frame dropped */
	INNOVA_STAT_RX_LENGTH_ERRORS,	/* runt or longer than our MTU */
	INNOVA_STAT_TX_NO_LINK,		/* sent/released with no live peer */
	INNOVA_STAT_TX_ERRORS,		/* copy (emulated DMA) failed */
	INNOVA_STAT_TX_PAUSE,		/* XOFF sent: our RX ring filled up */
	INNOVA_STAT_RX_PAUSE,		/* XOFF honoured: our TX stopped */
	INNOVA_STAT_NUM
};

/*
 * TLS RX offload counters (per CPU), mlx5 names. The TLS driver code
 * (tls_offload.c and the engine completion path) fills them with
 * innova_tls_stat_add(). "ethtool -S" lists them in enum order, so add new
 * ones before INNOVA_TLS_STAT_NUM, with their name in ethtool.c. The name
 * tables are sized by their designated initialisers: a static_assert in
 * ethtool.c fails the build unless a table's last entry is the enum's last
 * counter, and module init refuses to load (with a WARN) if any name in
 * the tables is empty, i.e. one was skipped in the middle.
 */
enum innova_tls_stat {
	INNOVA_TLS_DECRYPTED_PACKETS,
	INNOVA_TLS_DECRYPTED_BYTES,
	INNOVA_TLS_CTX,
	INNOVA_TLS_DEL,
	INNOVA_TLS_RESYNC_REQ_PKT,
	INNOVA_TLS_RESYNC_REQ_START,
	INNOVA_TLS_RESYNC_REQ_END,
	INNOVA_TLS_RESYNC_REQ_SKIP,
	INNOVA_TLS_RESYNC_RES_OK,
	INNOVA_TLS_RESYNC_RES_SKIP,
	INNOVA_TLS_ERR,
	INNOVA_TLS_AUTH_FAIL,
	INNOVA_TLS_RESYNC_ASYNC_REPLACED,
	INNOVA_TLS_RESYNC_ASYNC_CANCEL,
	INNOVA_TLS_DEVICE_NS,	/* engine time: on real hardware, not the CPU's */
	INNOVA_TLS_CTX_REKEY,	/* adds that replace a socket's context (key update) */
	INNOVA_TLS_REKEY_AUTH_FAIL,	/* ... old flow's failed records at its end */
	INNOVA_TLS_REKEY_SW_RECORDS,	/* ... next key's records passed before it */
	INNOVA_TLS_START_SYNC,	/* adds whose flow starts in sync at a record */
	INNOVA_TLS_ADD_WAIT,	/* adds that waited for data on its way up */
	INNOVA_TLS_ADD_IN_FLIGHT, /* ... and installed with some still there */
	INNOVA_TLS_STAT_NUM
};

/*
 * Cable fault counters, per direction (i.e. per transmitting port). One
 * name each, in cable.c: the debugfs file name, and with
 * INNOVA_CABLE_STAT_PREFIX in front the "ethtool -S" and debugfs
 * "counters" name.
 */
enum innova_cable_stat {
	INNOVA_CABLE_DROPPED,
	INNOVA_CABLE_DUPLICATED,
	INNOVA_CABLE_REORDERED,
	INNOVA_CABLE_CORRUPTED,
	INNOVA_CABLE_DELAYED,
	INNOVA_CABLE_INJECTED,		/* far-ahead copies (inject_ahead) */
	INNOVA_CABLE_LOSS_BURSTS,	/* bad-state visits of the burst model */
	INNOVA_CABLE_TAIL_LOST,		/* record-end frames lost (tail_loss) */
	INNOVA_CABLE_STALLS,		/* stalls of the direction (stall) */
	INNOVA_CABLE_FORGED,		/* forged copies sent (forge_ppm) */
	INNOVA_CABLE_STAT_NUM
};

struct innova_pcpu_stats {
	u64_stats_t		port[INNOVA_STAT_NUM];
	u64_stats_t		tls[INNOVA_TLS_STAT_NUM];
	struct u64_stats_sync	syncp;
};

/*
 * Fault knobs for the frames one port transmits. Written by debugfs
 * (range-checked u32 files, cable.c), read locklessly with READ_ONCE() by
 * the TX path. Probabilities are in parts per million (0..1000000).
 */
struct innova_cable_cfg {
	u32	drop_ppm;
	u32	dup_ppm;
	u32	reorder_ppm;	/* probability to hold a frame */
	u32	reorder_gap;	/* release it after this many frames passed */
	u32	hold_ms;	/* ... or after this long (traffic stopped) */
	u32	corrupt_ppm;	/* flip one byte of the TCP payload */
	u32	corrupt_fix_csum; /* 1: recompute the TCP checksum after it */
	u32	delay_ms;	/* fixed one-way delay, order preserved */
	u32	tcp_only;	/* 1: only TCP frames with payload are hit */
	/*
	 * Duplicates go first, addressed to another host (1) or 802.1Q
	 * tagged (2): a NIC must not take them for the flow's frames.
	 */
	u32	dup_mangle;
	/* one shot: a copy of the next TCP data frame this far ahead */
	u32	inject_ahead;
	/*
	 * Bursty loss (Gilbert-Elliott): a good state that loses nothing and
	 * a bad one that loses every frame, left after burst_len frames on
	 * average, entered so that burst_loss_ppm of the frames are lost.
	 */
	u32	burst_loss_ppm;
	u32	burst_len;	/* mean burst length in frames (0 or 1: 1) */
	/*
	 * Tail loss: lose a data frame that carries the last byte of a TLS
	 * record with this probability (connections opened while it is set:
	 * the record framing is followed from the SYN).
	 */
	u32	tail_loss_ppm;
	/*
	 * Stall: with this probability a data frame stops the direction for
	 * stall_ms (it and every frame after it wait, order kept): past the
	 * sender's RTO, TCP times out and sends the window again.
	 */
	u32	stall_ppm;
	u32	stall_ms;
	/*
	 * Forgery: with this probability a data frame is preceded by a
	 * forged copy that the receiving TCP drops (an ACK of unsent data,
	 * no ACK flag, data long acknowledged or beyond any window), its
	 * payload rewritten from a random offset with a plausible TLS header
	 * and random bytes: an attacker who can inject but not drop.
	 */
	u32	forge_ppm;
};

/*
 * One connection's TLS record framing as the cable saw the sender send it
 * (tail_loss_ppm): followed in sequence from the SYN; a retransmission is
 * not followed, anything else unexpected ends the follow.
 */
struct innova_cable_follow {
	u32	key;		/* hash of the tuple; 0: slot free */
	bool	on;		/* still following */
	u32	next_seq;	/* the sender's next new byte */
	u32	hdr_seq;	/* where the record being read starts */
	u32	rec_end;	/* just past it, once its header is read */
	u8	hdr[5];
	u8	hdr_n;		/* header bytes read so far */
};

#define INNOVA_CABLE_FOLLOW_N	16

/* The fault knobs' debugfs files: name, field, largest value. */
#define INNOVA_CABLE_NUM_KNOBS	17
struct innova_cable_knob_ref {
	struct innova_port	*port;
	unsigned int		knob;	/* index in cable.c's table */
};

/*
 * One direction of the cable: the frames a port transmits, owned by that
 * port and only touched by cable.c.
 */
struct innova_cable {
	spinlock_t		lock;	/* PRNG, held frame, delay queue */
	struct innova_cable_cfg	cfg;
	u64			seed;
	u64			prng;
	bool			burst_bad;	/* in the burst model's bad state */
	ktime_t			burst_last;	/* its last frame lost */
	ktime_t			stall_until;	/* frames wait until then */
	bool			paced;		/* the queue waits for the peer's ring */
	struct innova_cable_follow follow[INNOVA_CABLE_FOLLOW_N];
	struct sk_buff		*held;
	u32			held_passed;
	ktime_t			held_due;
	struct hrtimer		hold_timer;
	struct sk_buff_head	delayq;
	struct hrtimer		delay_timer;
	atomic64_t		cnt[INNOVA_CABLE_STAT_NUM];
	struct innova_cable_knob_ref knob_ref[INNOVA_CABLE_NUM_KNOBS];
};

struct innova_port {
	struct net_device		*dev;
	struct innova_port __rcu	*peer;	/* written under RTNL */
	int				index;	/* module-global, "portN" */

	/* RX side: ring filled by the peer's TX, drained by our NAPI. */
	struct napi_struct		napi;
	struct sk_buff_head		rx_ring;
	u32				ring_size;
	bool				rx_active;

	/*
	 * 802.3x flow control ("ethtool -A"): with tx_pause on, a filling RX
	 * ring sends XOFF to the peer, which stops its TX queue if its
	 * rx_pause is on; draining the ring below the low mark sends XON.
	 */
	bool				tx_pause;
	bool				rx_pause;
	unsigned long			xoff_sent;	/* bit 0 */

	/* TX side: faults applied to what we put on the cable. */
	struct innova_cable		cable;

	struct innova_pcpu_stats __percpu *stats;

	spinlock_t			name_lock; /* ifname copy for debugfs */
	char				ifname[IFNAMSIZ];
	struct dentry			*dbg_dir;

	/* TLS RX offload: the port's hardware engine (tls_offload.c). */
	struct innova_tls_port		*tls;
};

/*
 * Add to a port counter (tls false) or a TLS counter (tls true) of this
 * CPU. Safe from any context (process, softirq, NAPI).
 */
static inline void innova_pcpu_stat_add(struct innova_port *port, bool tls,
					unsigned int idx, u64 val)
{
	struct innova_pcpu_stats *s = get_cpu_ptr(port->stats);
	unsigned long flags;

	flags = u64_stats_update_begin_irqsave(&s->syncp);
	u64_stats_add(tls ? &s->tls[idx] : &s->port[idx], val);
	u64_stats_update_end_irqrestore(&s->syncp, flags);
	put_cpu_ptr(port->stats);
}

static inline void innova_stat_add(struct innova_port *port,
				   enum innova_port_stat idx, u64 val)
{
	innova_pcpu_stat_add(port, false, idx, val);
}

static inline void innova_stat_inc(struct innova_port *port,
				   enum innova_port_stat idx)
{
	innova_stat_add(port, idx, 1);
}

static inline void innova_tls_stat_add(struct innova_port *port,
				       enum innova_tls_stat idx, u64 val)
{
	innova_pcpu_stat_add(port, true, idx, val);
}

static inline void innova_tls_stat_inc(struct innova_port *port,
				       enum innova_tls_stat idx)
{
	innova_tls_stat_add(port, idx, 1);
}

/*
 * Module-wide object accounting (debugfs innova/objects): what must be
 * back to zero once every port is gone, the leak check a stock kernel
 * allows; innova_exit() WARNs with the counts if any is still alive at
 * unload. Crypto keys are counted by the crypto backend itself.
 */
struct innova_object_counts {
	atomic_t	ports;
	atomic_t	engines;	/* port->tls, until innova_tls_port_fini() */
	atomic_t	flows;		/* driver flow objects, until freed */
};

extern struct innova_object_counts innova_objects;

/* main.c */
bool innova_is_port(const struct net_device *dev);
void innova_stats_fold(struct innova_port *port,
		       u64 port_out[INNOVA_STAT_NUM],
		       u64 tls_out[INNOVA_TLS_STAT_NUM]);
void innova_rx_enqueue(struct innova_port *from, struct sk_buff *skb);

/* cable.c */
#define INNOVA_CABLE_STAT_PREFIX	"tx_cable_"
extern const char * const innova_cable_stat_names[];	/* debugfs files */
void innova_cable_init(struct innova_port *port);
void innova_cable_flush(struct innova_port *port);
void innova_cable_reseed(struct innova_port *port, u64 seed);
void innova_cable_reset_counters(struct innova_port *port);
void innova_cable_stats(struct innova_port *port,
			u64 out[INNOVA_CABLE_STAT_NUM]);
void innova_cable_xmit(struct innova_port *port, struct sk_buff *frame);
void innova_cable_debugfs_add(struct innova_port *port, struct dentry *dir);

/* ethtool.c */
extern const struct ethtool_ops innova_ethtool_ops;
/* sized by their initialisers (see innova_tls_stat) */
extern const char innova_port_stat_names[][ETH_GSTRING_LEN];
extern const char innova_tls_stat_names[][ETH_GSTRING_LEN];
bool innova_stat_names_valid(void);

/* debugfs.c */
void innova_debugfs_init(void);
void innova_debugfs_exit(void);
void innova_debugfs_port_add(struct innova_port *port);
void innova_debugfs_port_del(struct innova_port *port);
void innova_port_set_name(struct innova_port *port, const char *name);

/* tls_offload.c */
struct hw_stats;
extern const struct tlsdev_ops innova_tlsdev_ops;
int innova_tls_port_init(struct innova_port *port);
void innova_tls_port_fini(struct innova_port *port);
void innova_tls_rx(struct innova_port *port, struct sk_buff *skb);
void innova_tls_tx(struct innova_port *port, const struct sk_buff *frame);
void innova_tls_debugfs_add(struct innova_port *port, struct dentry *dir);
void innova_tls_engine_stats(struct innova_port *port, struct hw_stats *st);
u32 innova_tls_flow_count(struct innova_port *port);

struct innova_tls_mem {
	size_t flow, flow_slab;		/* struct innova_tls_flow (kzalloc) */
	unsigned int max_flows;		/* engine flow slots per port */
	size_t port;			/* struct innova_tls_port */
	size_t engine;			/* engine memory per port (kvzalloc) */
	size_t scratch;			/* engine output buffer per port */
};

void innova_tls_mem(struct innova_tls_mem *m);

/* bench.c */
void innova_bench_debugfs_add(struct dentry *root);

#endif /* _INNOVA_H */

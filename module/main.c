// SPDX-License-Identifier: GPL-2.0
/*
 * Innova: an emulated NIC with kTLS RX crypto offload.
 *
 * This file is the netdev: rtnl_link_ops "innova" (ports and the cable
 * between them), the TX path onto the cable, the RX ring and NAPI, and the
 * hook where the hardware engine looks at every received frame.
 *
 *   ip link add innova0 type innova                 # unplugged port
 *   ip link add innova1 link innova0 type innova    # cabled to innova0
 *
 * Lifetimes: the cable is the pair of RCU pointers port->peer, written only
 * under RTNL (newlink/dellink). Senders (ndo_start_xmit and the cable
 * timers, all in BH context) look the peer up under RCU and only enqueue
 * into its RX ring while peer->rx_active; ndo_stop clears rx_active and
 * waits for an RCU grace period before disabling NAPI and purging the ring,
 * so nothing is enqueued to a stopped or deleted port afterwards.
 */
#include <linux/etherdevice.h>
#include <linux/idr.h>
#include <linux/if_vlan.h>
#include <linux/module.h>
#include <linux/netdevice.h>
#include <net/rtnetlink.h>

#include <innova/hw_crypto.h>

#include "innova.h"

#define INNOVA_FEATURES	(NETIF_F_SG | NETIF_F_HW_CSUM | NETIF_F_HIGHDMA | \
			 NETIF_F_RXCSUM | NETIF_F_HW_TLS_RX)

/* Per-port default cable seeds: reproducible unless the seed knob is set. */
#define INNOVA_SEED_BASE	0x1a0a7115eed5ULL

static DEFINE_IDA(innova_ida);
static const struct net_device_ops innova_netdev_ops;
static struct rtnl_link_ops innova_link_ops;

bool innova_is_port(const struct net_device *dev)
{
	return dev->netdev_ops == &innova_netdev_ops;
}

void innova_stats_fold(struct innova_port *port,
		       u64 port_out[INNOVA_STAT_NUM],
		       u64 tls_out[INNOVA_TLS_STAT_NUM])
{
	u64 p[INNOVA_STAT_NUM], t[INNOVA_TLS_STAT_NUM];
	unsigned int start, i;
	int cpu;

	if (port_out)
		memset(port_out, 0, sizeof(p));
	if (tls_out)
		memset(tls_out, 0, sizeof(t));

	for_each_possible_cpu(cpu) {
		const struct innova_pcpu_stats *s = per_cpu_ptr(port->stats, cpu);

		do {
			start = u64_stats_fetch_begin(&s->syncp);
			for (i = 0; i < INNOVA_STAT_NUM; i++)
				p[i] = u64_stats_read(&s->port[i]);
			for (i = 0; i < INNOVA_TLS_STAT_NUM; i++)
				t[i] = u64_stats_read(&s->tls[i]);
		} while (u64_stats_fetch_retry(&s->syncp, start));

		for (i = 0; port_out && i < INNOVA_STAT_NUM; i++)
			port_out[i] += p[i];
		for (i = 0; tls_out && i < INNOVA_TLS_STAT_NUM; i++)
			tls_out[i] += t[i];
	}
}

/* ---------------------------------------------------------------------- */
/* RX: ring, hardware engine hook, NAPI                                   */
/* ---------------------------------------------------------------------- */

/*
 * Flow control.  XOFF is sent when the RX ring reaches 3/4 of its size and
 * XON when NAPI has drained it below 1/4.  XOFF and XON race (TX and NAPI
 * run on different CPUs), so after stopping the queue the sender checks
 * again and wakes it itself if XON already came or the ring drained: a
 * stopped queue is never left without someone to wake it.
 */
static u32 innova_ring_low(const struct innova_port *port)
{
	return READ_ONCE(port->ring_size) / 4;
}

static void innova_pause_xon(struct innova_port *port)
{
	struct innova_port *peer;

	if (!test_and_clear_bit(0, &port->xoff_sent))
		return;
	rcu_read_lock();
	peer = rcu_dereference(port->peer);
	if (peer)
		netif_wake_queue(peer->dev);
	rcu_read_unlock();
}

static void innova_pause_xoff(struct innova_port *from, struct innova_port *to)
{
	if (!READ_ONCE(to->tx_pause) || !READ_ONCE(from->rx_pause) ||
	    test_and_set_bit(0, &to->xoff_sent))
		return;
	innova_stat_inc(to, INNOVA_STAT_TX_PAUSE);
	innova_stat_inc(from, INNOVA_STAT_RX_PAUSE);
	netif_stop_queue(from->dev);
	/*
	 * Stop, then re-read XON, the cable and the ring: pairs with the
	 * barrier in innova_dellink() and NAPI's test_and_clear_bit().
	 */
	smp_mb__after_atomic();
	if (!test_bit(0, &to->xoff_sent) ||
	    rcu_access_pointer(from->peer) != to ||
	    skb_queue_len_lockless(&to->rx_ring) < innova_ring_low(to)) {
		clear_bit(0, &to->xoff_sent);
		netif_wake_queue(from->dev);
	}
}

/*
 * The RX ring's producer: a frame leaves @from's direction of the cable
 * and goes onto the RX ring of @from's peer. Called by the cable (cable.c)
 * in BH context (ndo_start_xmit or a cable hrtimer) with the frame in a
 * fresh linear buffer that nobody else references: this is the emulated
 * RX DMA.
 */
void innova_rx_enqueue(struct innova_port *from, struct sk_buff *skb)
{
	struct innova_port *to;
	struct net_device *rxdev;
	u32 qlen, size;
	bool full;

	rcu_read_lock();
	to = rcu_dereference(from->peer);
	if (unlikely(!to || !READ_ONCE(to->rx_active))) {
		innova_stat_inc(from, INNOVA_STAT_TX_NO_LINK);
		kfree_skb(skb);
		goto out;
	}

	rxdev = to->dev;
	if (unlikely(skb->len > READ_ONCE(rxdev->mtu) + ETH_HLEN + VLAN_HLEN)) {
		innova_stat_inc(to, INNOVA_STAT_RX_LENGTH_ERRORS);
		kfree_skb(skb);
		goto out;
	}

	skb->dev = rxdev;
	size = READ_ONCE(to->ring_size);
	spin_lock(&to->rx_ring.lock);
	qlen = skb_queue_len(&to->rx_ring);
	full = qlen >= size;
	if (likely(!full))
		__skb_queue_tail(&to->rx_ring, skb);
	spin_unlock(&to->rx_ring.lock);

	if (unlikely(full)) {
		innova_stat_inc(to, INNOVA_STAT_RX_RING_DROPS);
		kfree_skb(skb);
		goto out;
	}
	napi_schedule(&to->napi);
	if (unlikely(qlen + 1 >= size - size / 4))
		innova_pause_xoff(from, to);
out:
	rcu_read_unlock();
}

static void innova_rx_frame(struct innova_port *port, struct sk_buff *skb)
{
	struct net_device *dev = port->dev;
	unsigned int len = skb->len;

	/*
	 * The TLS engine sees only frames addressed to this port, like a
	 * NIC's MAC filter in front of its RX pipeline: TCP accepts nothing
	 * else (PACKET_OTHERHOST is dropped), so another host's frame with
	 * the same 4-tuple must not move a flow's state. It decrypts in
	 * place (skb is linear and ours: the cable copied it), never drops
	 * or splits a frame, and maps the completion to skb->decrypted.
	 */
	if (len >= ETH_HLEN &&
	    ether_addr_equal(((struct ethhdr *)skb->data)->h_dest,
			     dev->dev_addr))
		innova_tls_rx(port, skb);

	skb->protocol = eth_type_trans(skb, dev);
	skb_record_rx_queue(skb, 0);

	innova_stat_inc(port, INNOVA_STAT_RX_PACKETS);
	innova_stat_add(port, INNOVA_STAT_RX_BYTES, len);

	napi_gro_receive(&port->napi, skb);
}

static int innova_poll(struct napi_struct *napi, int budget)
{
	struct innova_port *port = container_of(napi, struct innova_port, napi);
	struct sk_buff_head batch;
	struct sk_buff *skb;
	int done = 0;

	__skb_queue_head_init(&batch);

	spin_lock(&port->rx_ring.lock);
	while (done < budget) {
		skb = __skb_dequeue(&port->rx_ring);
		if (!skb)
			break;
		__skb_queue_tail(&batch, skb);
		done++;
	}
	spin_unlock(&port->rx_ring.lock);

	while ((skb = __skb_dequeue(&batch)))
		innova_rx_frame(port, skb);

	if (test_bit(0, &port->xoff_sent) &&
	    skb_queue_len_lockless(&port->rx_ring) < innova_ring_low(port))
		innova_pause_xon(port);

	if (done < budget)
		napi_complete_done(napi, done);

	return done;
}

/* ---------------------------------------------------------------------- */
/* TX: the emulated DMA onto the cable                                    */
/* ---------------------------------------------------------------------- */

/*
 * Copy the frame into a fresh linear buffer (the sender's pages are never
 * touched again), finishing a CHECKSUM_PARTIAL checksum on the copy and
 * padding runts to the Ethernet minimum.
 */
static struct sk_buff *innova_dma_copy(struct sk_buff *skb,
				       struct net_device *dev)
{
	unsigned int flen = max_t(unsigned int, skb->len, ETH_ZLEN);
	struct sk_buff *frame;

	if (unlikely(skb->len < ETH_HLEN || skb_is_gso(skb)))
		return NULL;

	frame = netdev_alloc_skb_ip_align(dev, flen);
	if (unlikely(!frame))
		return NULL;

	if (unlikely(skb_copy_bits(skb, 0, skb_put(frame, skb->len),
				   skb->len)))
		goto err;
	if (skb->len < flen)
		skb_put_zero(frame, flen - skb->len);

	if (skb->ip_summed == CHECKSUM_PARTIAL) {
		int start = skb_checksum_start_offset(skb);
		unsigned int off = start + skb->csum_offset;
		__sum16 *check;
		__wsum csum;

		if (unlikely(start < 0 || off + sizeof(__sum16) > skb->len))
			goto err;
		csum = csum_partial(frame->data + start, skb->len - start, 0);
		check = (__sum16 *)(frame->data + off);
		*check = csum_fold(csum) ?: CSUM_MANGLED_0;
	}
	return frame;
err:
	kfree_skb(frame);
	return NULL;
}

static netdev_tx_t innova_xmit(struct sk_buff *skb, struct net_device *dev)
{
	struct innova_port *port = netdev_priv(dev);
	struct sk_buff *frame;
	unsigned int len = skb->len;

	skb_tx_timestamp(skb);
	frame = innova_dma_copy(skb, dev);
	if (unlikely(!frame)) {
		innova_stat_inc(port, INNOVA_STAT_TX_ERRORS);
		dev_kfree_skb_any(skb);
		return NETDEV_TX_OK;
	}
	dev_consume_skb_any(skb);

	innova_stat_inc(port, INNOVA_STAT_TX_PACKETS);
	innova_stat_add(port, INNOVA_STAT_TX_BYTES, len);

	innova_tls_tx(port, frame);
	innova_cable_xmit(port, frame);
	return NETDEV_TX_OK;
}

/* ---------------------------------------------------------------------- */
/* netdev ops                                                             */
/* ---------------------------------------------------------------------- */

static void innova_update_carrier(struct innova_port *port)
{
	struct innova_port *peer = rtnl_dereference(port->peer);

	if (peer && netif_running(port->dev) && netif_running(peer->dev)) {
		netif_carrier_on(port->dev);
		netif_carrier_on(peer->dev);
	} else {
		netif_carrier_off(port->dev);
		if (peer)
			netif_carrier_off(peer->dev);
	}
}

static int innova_open(struct net_device *dev)
{
	struct innova_port *port = netdev_priv(dev);

	napi_enable(&port->napi);
	WRITE_ONCE(port->rx_active, true);
	netif_start_queue(dev);
	innova_update_carrier(port);
	return 0;
}

static int innova_stop(struct net_device *dev)
{
	struct innova_port *port = netdev_priv(dev);
	struct innova_port *peer;

	netif_stop_queue(dev);
	netif_carrier_off(dev);
	peer = rtnl_dereference(port->peer);
	if (peer)
		netif_carrier_off(peer->dev);

	/* No sender may still be filling our ring once we purge it. */
	WRITE_ONCE(port->rx_active, false);
	synchronize_net();
	napi_disable(&port->napi);
	skb_queue_purge(&port->rx_ring);
	innova_pause_xon(port);		/* the peer must not stay paused */

	/* Our own in-flight frames (held/delayed on the cable) are lost. */
	innova_cable_flush(port);
	return 0;
}

static int innova_dev_init(struct net_device *dev)
{
	struct innova_port *port = netdev_priv(dev);
	int idx, err;

	port->stats = netdev_alloc_pcpu_stats(struct innova_pcpu_stats);
	if (!port->stats)
		return -ENOMEM;

	idx = ida_alloc(&innova_ida, GFP_KERNEL);
	if (idx < 0) {
		err = idx;
		goto err_stats;
	}
	port->index = idx;
	innova_cable_reseed(port, INNOVA_SEED_BASE + idx);

	err = innova_tls_port_init(port);
	if (err)
		goto err_ida;

	atomic_inc(&innova_objects.engines);
	netif_napi_add(dev, &port->napi, innova_poll);
	innova_debugfs_port_add(port);
	atomic_inc(&innova_objects.ports);
	return 0;

err_ida:
	ida_free(&innova_ida, idx);
err_stats:
	free_percpu(port->stats);
	port->stats = NULL;
	return err;
}

/* After ndo_stop; also on a failed register_netdevice(). */
static void innova_dev_uninit(struct net_device *dev)
{
	struct innova_port *port = netdev_priv(dev);

	innova_debugfs_port_del(port);
	innova_cable_flush(port);
	skb_queue_purge(&port->rx_ring);
	netif_napi_del(&port->napi);
}

/* priv_destructor: runs once ndo_init succeeded, after ndo_uninit. */
static void innova_dev_free(struct net_device *dev)
{
	struct innova_port *port = netdev_priv(dev);

	innova_tls_port_fini(port);
	if (!port->tls)		/* what fini frees, it clears */
		atomic_dec(&innova_objects.engines);
	free_percpu(port->stats);
	ida_free(&innova_ida, port->index);
	atomic_dec(&innova_objects.ports);
}

static void innova_get_stats64(struct net_device *dev,
			       struct rtnl_link_stats64 *stats)
{
	struct innova_port *port = netdev_priv(dev);
	u64 p[INNOVA_STAT_NUM];

	innova_stats_fold(port, p, NULL);
	stats->rx_packets = p[INNOVA_STAT_RX_PACKETS];
	stats->rx_bytes = p[INNOVA_STAT_RX_BYTES];
	stats->tx_packets = p[INNOVA_STAT_TX_PACKETS];
	stats->tx_bytes = p[INNOVA_STAT_TX_BYTES];
	stats->rx_missed_errors = p[INNOVA_STAT_RX_RING_DROPS];
	stats->rx_length_errors = p[INNOVA_STAT_RX_LENGTH_ERRORS];
	stats->rx_errors = p[INNOVA_STAT_RX_LENGTH_ERRORS];
	stats->rx_dropped = p[INNOVA_STAT_RX_RING_DROPS];
	stats->tx_dropped = p[INNOVA_STAT_TX_NO_LINK] +
			    p[INNOVA_STAT_TX_ERRORS];
	stats->tx_errors = p[INNOVA_STAT_TX_ERRORS];
}

static int innova_get_iflink(const struct net_device *dev)
{
	struct innova_port *port = netdev_priv(dev);
	struct innova_port *peer;
	int iflink;

	rcu_read_lock();
	peer = rcu_dereference(port->peer);
	iflink = peer ? peer->dev->ifindex : dev->ifindex;
	rcu_read_unlock();

	return iflink;
}

static const struct net_device_ops innova_netdev_ops = {
	.ndo_init		= innova_dev_init,
	.ndo_uninit		= innova_dev_uninit,
	.ndo_open		= innova_open,
	.ndo_stop		= innova_stop,
	.ndo_start_xmit		= innova_xmit,
	.ndo_get_stats64	= innova_get_stats64,
	.ndo_set_mac_address	= eth_mac_addr,
	.ndo_validate_addr	= eth_validate_addr,
	.ndo_get_iflink		= innova_get_iflink,
};

/* ---------------------------------------------------------------------- */
/* rtnl_link_ops: ports and the cable                                     */
/* ---------------------------------------------------------------------- */

static void innova_setup(struct net_device *dev)
{
	struct innova_port *port = netdev_priv(dev);

	ether_setup(dev);

	dev->netdev_ops = &innova_netdev_ops;
	dev->ethtool_ops = &innova_ethtool_ops;
	/* Must be set before register_netdevice(): tls.ko's notifier checks. */
	dev->tlsdev_ops = &innova_tlsdev_ops;
	dev->needs_free_netdev = true;
	dev->priv_destructor = innova_dev_free;

	/*
	 * A real NIC: keep the default qdisc and tx_queue_len (no
	 * IFF_NO_QUEUE), so "tc qdisc add dev innovaX root netem ..." behaves
	 * as on hardware.
	 */
	dev->priv_flags |= IFF_LIVE_ADDR_CHANGE;
	dev->min_mtu = INNOVA_MIN_MTU;
	dev->max_mtu = INNOVA_MAX_MTU;

	dev->hw_features = INNOVA_FEATURES;
	dev->features |= INNOVA_FEATURES;
	dev->vlan_features = NETIF_F_SG | NETIF_F_HW_CSUM | NETIF_F_HIGHDMA;

	eth_hw_addr_random(dev);
	netif_carrier_off(dev);

	port->dev = dev;
	port->ring_size = INNOVA_RING_DEFAULT;
	port->tx_pause = true;
	port->rx_pause = true;
	skb_queue_head_init(&port->rx_ring);
	spin_lock_init(&port->name_lock);
	innova_cable_init(port);
}

static int innova_validate(struct nlattr *tb[], struct nlattr *data[],
			   struct netlink_ext_ack *extack)
{
	if (tb[IFLA_ADDRESS]) {
		if (nla_len(tb[IFLA_ADDRESS]) != ETH_ALEN) {
			NL_SET_ERR_MSG_ATTR(extack, tb[IFLA_ADDRESS],
					    "innova: invalid MAC address length");
			return -EINVAL;
		}
		if (!is_valid_ether_addr(nla_data(tb[IFLA_ADDRESS]))) {
			NL_SET_ERR_MSG_ATTR(extack, tb[IFLA_ADDRESS],
					    "innova: invalid MAC address");
			return -EADDRNOTAVAIL;
		}
	}
	return 0;
}

static int innova_newlink(struct net *src_net, struct net_device *dev,
			  struct nlattr *tb[], struct nlattr *data[],
			  struct netlink_ext_ack *extack)
{
	struct innova_port *port = netdev_priv(dev);
	struct innova_port *peer = NULL;
	int err;

	/*
	 * Ports are hardware: only the initial namespace's admin creates
	 * them (rtnetlink checked CAP_NET_ADMIN in the caller's own user
	 * namespace only, and any user namespace can autoload us).
	 */
	if (!capable(CAP_NET_ADMIN)) {
		NL_SET_ERR_MSG(extack,
			       "innova: needs CAP_NET_ADMIN in the initial user namespace");
		return -EPERM;
	}

	if (tb[IFLA_LINK]) {
		struct net_device *pdev;

		pdev = __dev_get_by_index(src_net, nla_get_u32(tb[IFLA_LINK]));
		if (!pdev) {
			NL_SET_ERR_MSG_ATTR(extack, tb[IFLA_LINK],
					    "innova: link device not found");
			return -ENODEV;
		}
		if (!innova_is_port(pdev)) {
			NL_SET_ERR_MSG_ATTR(extack, tb[IFLA_LINK],
					    "innova: link device is not an innova port");
			return -EINVAL;
		}
		peer = netdev_priv(pdev);
		if (rtnl_dereference(peer->peer)) {
			NL_SET_ERR_MSG_ATTR(extack, tb[IFLA_LINK],
					    "innova: link port is already cabled");
			return -EBUSY;
		}
	}

	err = register_netdevice(dev);
	if (err)
		return err;

	/* Plug the cable; nothing below can fail. */
	if (peer) {
		rcu_assign_pointer(port->peer, peer);
		rcu_assign_pointer(peer->peer, port);
		innova_update_carrier(port);
	}
	return 0;
}

/* Deleting a port unplugs the cable; the other port stays, carrier off. */
static void innova_dellink(struct net_device *dev, struct list_head *head)
{
	struct innova_port *port = netdev_priv(dev);
	struct innova_port *peer = rtnl_dereference(port->peer);

	if (peer) {
		/*
		 * Senders may still hold either pointer inside an RCU read
		 * section; ndo_stop()'s synchronize_net() waits for them and
		 * the netdev is not freed before a grace period.
		 */
		RCU_INIT_POINTER(peer->peer, NULL);
		RCU_INIT_POINTER(port->peer, NULL);
		netif_carrier_off(peer->dev);
		/* a pause we sent dies with the cable (see innova_pause_xoff) */
		smp_mb();
		clear_bit(0, &port->xoff_sent);
		if (netif_running(peer->dev))
			netif_wake_queue(peer->dev);
	}
	unregister_netdevice_queue(dev, head);
}

static struct net *innova_get_link_net(const struct net_device *dev)
{
	struct innova_port *port = netdev_priv(dev);
	struct innova_port *peer = rtnl_dereference(port->peer);

	return peer ? dev_net(peer->dev) : dev_net(dev);
}

static struct rtnl_link_ops innova_link_ops = {
	.kind		= INNOVA_DRV_NAME,
	.priv_size	= sizeof(struct innova_port),
	.setup		= innova_setup,
	.validate	= innova_validate,
	.newlink	= innova_newlink,
	.dellink	= innova_dellink,
	.get_link_net	= innova_get_link_net,
};

/* Keep the debugfs "ifname" copy current across renames and netns moves. */
static int innova_netdev_event(struct notifier_block *nb,
			       unsigned long event, void *ptr)
{
	struct net_device *dev = netdev_notifier_info_to_dev(ptr);

	if (!innova_is_port(dev))
		return NOTIFY_DONE;

	switch (event) {
	case NETDEV_REGISTER:
	case NETDEV_CHANGENAME:
		innova_port_set_name(netdev_priv(dev), dev->name);
		break;
	}
	return NOTIFY_DONE;
}

static struct notifier_block innova_notifier = {
	.notifier_call = innova_netdev_event,
};

static int __init innova_init(void)
{
	int err;

	/* "ethtool -S" names: a skipped one is a bug, not a counter */
	if (WARN_ON(!innova_stat_names_valid()))
		return -EINVAL;

	innova_debugfs_init();

	err = register_netdevice_notifier(&innova_notifier);
	if (err)
		goto err_debugfs;

	err = rtnl_link_register(&innova_link_ops);
	if (err)
		goto err_notifier;

	return 0;

err_notifier:
	unregister_netdevice_notifier(&innova_notifier);
err_debugfs:
	innova_debugfs_exit();
	return err;
}

/*
 * The leak check at unload, where debugfs innova/objects is gone with the
 * module: every port, engine, flow and key must be freed by now. Anything
 * alive is a WARN with the counts (the guest suite fails a test on a
 * "WARNING:" in its kernel log); the line after it says the check ran.
 */
static void __exit innova_exit_check(void)
{
	int ports = atomic_read(&innova_objects.ports);
	int engines = atomic_read(&innova_objects.engines);
	int flows = atomic_read(&innova_objects.flows);
	unsigned int keys = hw_crypto_key_count();
	unsigned long key_bytes = hw_crypto_key_bytes();

	WARN(ports || engines || flows || keys || key_bytes,
	     "innova: objects alive at exit: ports %d engines %d flows %d keys %u key_bytes %lu\n",
	     ports, engines, flows, keys, key_bytes);
	pr_info("innova: exit check: ports %d engines %d flows %d keys %u key_bytes %lu\n",
		ports, engines, flows, keys, key_bytes);
}

static void __exit innova_exit(void)
{
	/* Deletes every port (dellink + unregister, freed before return). */
	rtnl_link_unregister(&innova_link_ops);
	unregister_netdevice_notifier(&innova_notifier);
	/* flows are freed from RCU callbacks in this module's text */
	rcu_barrier();
	innova_exit_check();
	innova_debugfs_exit();
	ida_destroy(&innova_ida);
}

module_init(innova_init);
module_exit(innova_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("Innova: emulated NIC with kTLS RX crypto offload");
MODULE_ALIAS_RTNL_LINK(INNOVA_DRV_NAME);

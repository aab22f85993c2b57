// SPDX-License-Identifier: GPL-2.0
/*
 * Innova ethtool ops: drvinfo, link, ring size, pause, and "ethtool -S" counters
 * (port, this port's direction of the cable, TLS RX offload with the mlx5
 * names).
 */
#include <linux/ethtool.h>
#include <linux/netdevice.h>

#include <innova/hw_engine.h>

#include "innova.h"

/*
 * The name tables are sized by their designated initialisers, so the
 * static_asserts below fail the build unless each table ends exactly at
 * its enum's last counter; innova_stat_names_valid() catches a name
 * skipped in the middle (an empty string) when the module loads.
 */
const char innova_port_stat_names[][ETH_GSTRING_LEN] = {
	[INNOVA_STAT_RX_PACKETS]	= "rx_packets",
	[INNOVA_STAT_RX_BYTES]		= "rx_bytes",
	[INNOVA_STAT_TX_PACKETS]	= "tx_packets",
	[INNOVA_STAT_TX_BYTES]		= "tx_bytes",
	[INNOVA_STAT_RX_RING_DROPS]	= "rx_ring_drops",
	[INNOVA_STAT_RX_LENGTH_ERRORS]	= "rx_length_errors",
	[INNOVA_STAT_TX_NO_LINK]	= "tx_no_link",
	[INNOVA_STAT_TX_ERRORS]		= "tx_errors",
	[INNOVA_STAT_TX_PAUSE]		= "tx_pause_ctrl_phy",
	[INNOVA_STAT_RX_PAUSE]		= "rx_pause_ctrl_phy",
};

static_assert(ARRAY_SIZE(innova_port_stat_names) == INNOVA_STAT_NUM);

const char innova_tls_stat_names[][ETH_GSTRING_LEN] = {
	[INNOVA_TLS_DECRYPTED_PACKETS]	= "rx_tls_decrypted_packets",
	[INNOVA_TLS_DECRYPTED_BYTES]	= "rx_tls_decrypted_bytes",
	[INNOVA_TLS_CTX]		= "rx_tls_ctx",
	[INNOVA_TLS_DEL]		= "rx_tls_del",
	[INNOVA_TLS_RESYNC_REQ_PKT]	= "rx_tls_resync_req_pkt",
	[INNOVA_TLS_RESYNC_REQ_START]	= "rx_tls_resync_req_start",
	[INNOVA_TLS_RESYNC_REQ_END]	= "rx_tls_resync_req_end",
	[INNOVA_TLS_RESYNC_REQ_SKIP]	= "rx_tls_resync_req_skip",
	[INNOVA_TLS_RESYNC_RES_OK]	= "rx_tls_resync_res_ok",
	[INNOVA_TLS_RESYNC_RES_SKIP]	= "rx_tls_resync_res_skip",
	[INNOVA_TLS_ERR]		= "rx_tls_err",
	[INNOVA_TLS_AUTH_FAIL]		= "rx_tls_auth_fail",
	[INNOVA_TLS_RESYNC_ASYNC_REPLACED] = "rx_tls_resync_async_replaced",
	[INNOVA_TLS_RESYNC_ASYNC_CANCEL] = "rx_tls_resync_async_cancel",
	[INNOVA_TLS_DEVICE_NS]		= "rx_tls_device_ns",
	[INNOVA_TLS_CTX_REKEY]		= "rx_tls_ctx_rekey",
	[INNOVA_TLS_REKEY_AUTH_FAIL]	= "rx_tls_rekey_auth_fail",
	[INNOVA_TLS_REKEY_SW_RECORDS]	= "rx_tls_rekey_sw_records",
	[INNOVA_TLS_START_SYNC]		= "rx_tls_start_sync",
	[INNOVA_TLS_ADD_WAIT]		= "rx_tls_add_wait",
	[INNOVA_TLS_ADD_IN_FLIGHT]	= "rx_tls_add_in_flight",
};

static_assert(ARRAY_SIZE(innova_tls_stat_names) == INNOVA_TLS_STAT_NUM);

/* Every counter has a name (the cable's are in cable.c). */
bool innova_stat_names_valid(void)
{
	unsigned int i;

	for (i = 0; i < INNOVA_STAT_NUM; i++)
		if (!innova_port_stat_names[i][0])
			return false;
	for (i = 0; i < INNOVA_CABLE_STAT_NUM; i++)
		if (!innova_cable_stat_names[i] || !innova_cable_stat_names[i][0])
			return false;
	for (i = 0; i < INNOVA_TLS_STAT_NUM; i++)
		if (!innova_tls_stat_names[i][0])
			return false;
	return true;
}

/* The hardware engine's own counters: what it did with each record. */
struct innova_engine_stat {
	char name[ETH_GSTRING_LEN];
	size_t off;
};

#define INNOVA_ENGINE_STAT(n, f) { n, offsetof(struct hw_stats, f) }
static const struct innova_engine_stat innova_engine_stats[] = {
	INNOVA_ENGINE_STAT("rx_tls_records_decrypted", decrypted_records),
	INNOVA_ENGINE_STAT("rx_tls_records_encrypted", enc_records),
	INNOVA_ENGINE_STAT("rx_tls_records_followed", follow_records),
	INNOVA_ENGINE_STAT("rx_tls_records_unauth", unauth_records),
	INNOVA_ENGINE_STAT("rx_tls_records_nokey", nokey_records),
	INNOVA_ENGINE_STAT("rx_tls_shadow_ok", shadow_ok),
	INNOVA_ENGINE_STAT("rx_tls_shadow_fail", shadow_fail),
	INNOVA_ENGINE_STAT("rx_tls_holes", holes),
	INNOVA_ENGINE_STAT("rx_tls_sync_lost", sync_lost),
	INNOVA_ENGINE_STAT("rx_tls_old_frames", old_frames),
	INNOVA_ENGINE_STAT("rx_tls_overlap_frames", overlap_frames),
	INNOVA_ENGINE_STAT("rx_tls_bad_csum", bad_csum),
	INNOVA_ENGINE_STAT("rx_tls_resync_hint", resync_hint),
	INNOVA_ENGINE_STAT("rx_tls_key_update", key_updates),
	INNOVA_ENGINE_STAT("rx_tls_key_late", key_late),
	INNOVA_ENGINE_STAT("rx_tls_key_refresh", key_refresh),
	INNOVA_ENGINE_STAT("rx_tls_add_fail", add_fail),
	INNOVA_ENGINE_STAT("rx_tls_reorder_recovered", reorder_recovered),
	INNOVA_ENGINE_STAT("rx_tls_crypto_err", crypto_err),
	INNOVA_ENGINE_STAT("rx_tls_far_frames", far_frames),
	INNOVA_ENGINE_STAT("rx_tls_rearmed", rearmed),
	INNOVA_ENGINE_STAT("rx_tls_hdr_conflict", hdr_conflict),
	INNOVA_ENGINE_STAT("rx_tls_copy_mismatch", copy_mismatch),
	INNOVA_ENGINE_STAT("rx_tls_unanchored", unanchored),
	INNOVA_ENGINE_STAT("rx_tls_no_ack", no_ack_frames),
	INNOVA_ENGINE_STAT("rx_tls_bad_ack", bad_ack_frames),
	INNOVA_ENGINE_STAT("rx_tls13_records_decrypted", tls13_decrypted_records),
	INNOVA_ENGINE_STAT("rx_tls13_key_update", tls13_key_update),
	INNOVA_ENGINE_STAT("rx_tls13_inner_recheck", tls13_inner_recheck),
	INNOVA_ENGINE_STAT("rx_tls_far_reanchor", far_reanchor),
	INNOVA_ENGINE_STAT("rx_tls_out_of_window", out_of_window_frames),
	INNOVA_ENGINE_STAT("rx_tls_records_unmarked", unmarked_records),
};

#define INNOVA_NUM_ENGINE_STATS ARRAY_SIZE(innova_engine_stats)
/* + rx_tls_flows, the installed flow count. */
#define INNOVA_NUM_STATS \
	(INNOVA_STAT_NUM + INNOVA_CABLE_STAT_NUM + INNOVA_TLS_STAT_NUM + \
	 INNOVA_NUM_ENGINE_STATS + 1)

static void innova_get_drvinfo(struct net_device *dev,
			       struct ethtool_drvinfo *info)
{
	struct innova_port *port = netdev_priv(dev);

	strscpy(info->driver, INNOVA_DRV_NAME, sizeof(info->driver));
	snprintf(info->bus_info, sizeof(info->bus_info), "innova:port%d",
		 port->index);
}

static int innova_get_sset_count(struct net_device *dev, int sset)
{
	return sset == ETH_SS_STATS ? INNOVA_NUM_STATS : -EOPNOTSUPP;
}

static void innova_get_strings(struct net_device *dev, u32 sset, u8 *data)
{
	unsigned int i;

	if (sset != ETH_SS_STATS)
		return;

	memcpy(data, innova_port_stat_names, sizeof(innova_port_stat_names));
	data += sizeof(innova_port_stat_names);
	for (i = 0; i < INNOVA_CABLE_STAT_NUM; i++)
		ethtool_sprintf(&data, INNOVA_CABLE_STAT_PREFIX "%s",
				innova_cable_stat_names[i]);
	memcpy(data, innova_tls_stat_names, sizeof(innova_tls_stat_names));
	data += sizeof(innova_tls_stat_names);
	for (i = 0; i < INNOVA_NUM_ENGINE_STATS; i++) {
		memcpy(data, innova_engine_stats[i].name, ETH_GSTRING_LEN);
		data += ETH_GSTRING_LEN;
	}
	strscpy(data, "rx_tls_flows", ETH_GSTRING_LEN);
}

static void innova_get_ethtool_stats(struct net_device *dev,
				     struct ethtool_stats *stats, u64 *data)
{
	struct innova_port *port = netdev_priv(dev);
	struct hw_stats st;
	unsigned int i;

	innova_stats_fold(port, data, data + INNOVA_STAT_NUM +
			  INNOVA_CABLE_STAT_NUM);
	innova_cable_stats(port, data + INNOVA_STAT_NUM);
	data += INNOVA_STAT_NUM + INNOVA_CABLE_STAT_NUM + INNOVA_TLS_STAT_NUM;

	innova_tls_engine_stats(port, &st);
	for (i = 0; i < INNOVA_NUM_ENGINE_STATS; i++)
		*data++ = *(u64 *)((u8 *)&st + innova_engine_stats[i].off);
	*data = innova_tls_flow_count(port);
}

static void innova_get_ringparam(struct net_device *dev,
				 struct ethtool_ringparam *ring,
				 struct kernel_ethtool_ringparam *kring,
				 struct netlink_ext_ack *extack)
{
	struct innova_port *port = netdev_priv(dev);

	ring->rx_max_pending = INNOVA_RING_MAX;
	ring->rx_pending = READ_ONCE(port->ring_size);
}

static int innova_set_ringparam(struct net_device *dev,
				struct ethtool_ringparam *ring,
				struct kernel_ethtool_ringparam *kring,
				struct netlink_ext_ack *extack)
{
	struct innova_port *port = netdev_priv(dev);

	if (ring->rx_pending < INNOVA_RING_MIN) {
		NL_SET_ERR_MSG_MOD(extack, "RX ring too small");
		return -EINVAL;
	}
	/* A smaller ring keeps what is queued; new frames see the limit. */
	WRITE_ONCE(port->ring_size, ring->rx_pending);
	return 0;
}

static int innova_get_link_ksettings(struct net_device *dev,
				     struct ethtool_link_ksettings *cmd)
{
	cmd->base.speed = SPEED_100000;
	cmd->base.duplex = DUPLEX_FULL;
	cmd->base.port = PORT_DA;
	cmd->base.autoneg = AUTONEG_DISABLE;
	return 0;
}

static void innova_get_pauseparam(struct net_device *dev,
				  struct ethtool_pauseparam *pause)
{
	struct innova_port *port = netdev_priv(dev);

	pause->autoneg = AUTONEG_DISABLE;
	pause->rx_pause = READ_ONCE(port->rx_pause);
	pause->tx_pause = READ_ONCE(port->tx_pause);
}

static int innova_set_pauseparam(struct net_device *dev,
				 struct ethtool_pauseparam *pause)
{
	struct innova_port *port = netdev_priv(dev);

	if (pause->autoneg)
		return -EOPNOTSUPP;
	WRITE_ONCE(port->rx_pause, !!pause->rx_pause);
	WRITE_ONCE(port->tx_pause, !!pause->tx_pause);
	/* A pause in force is released by the next drain of the ring. */
	return 0;
}

static void innova_get_pause_stats(struct net_device *dev,
				   struct ethtool_pause_stats *stats)
{
	struct innova_port *port = netdev_priv(dev);
	u64 p[INNOVA_STAT_NUM];

	innova_stats_fold(port, p, NULL);
	stats->tx_pause_frames = p[INNOVA_STAT_TX_PAUSE];
	stats->rx_pause_frames = p[INNOVA_STAT_RX_PAUSE];
}

const struct ethtool_ops innova_ethtool_ops = {
	.get_drvinfo		= innova_get_drvinfo,
	.get_link		= ethtool_op_get_link,
	.get_ts_info		= ethtool_op_get_ts_info,
	.get_sset_count		= innova_get_sset_count,
	.get_strings		= innova_get_strings,
	.get_ethtool_stats	= innova_get_ethtool_stats,
	.get_ringparam		= innova_get_ringparam,
	.get_pauseparam		= innova_get_pauseparam,
	.set_pauseparam		= innova_set_pauseparam,
	.get_pause_stats	= innova_get_pause_stats,
	.set_ringparam		= innova_set_ringparam,
	.get_link_ksettings	= innova_get_link_ksettings,
};

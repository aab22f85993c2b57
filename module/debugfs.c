// SPDX-License-Identifier: GPL-2.0
/*
 * Innova debugfs: /sys/kernel/debug/innova/portN/
 *
 * N is a module-global port index, stable across renames and netns moves.
 *
 *   ifname, peer, netns      which netdev this is and what it is cabled to
 *   counters                 every counter, "name value" per line
 *   seed                     write: reset this direction's fault PRNG
 *   drop_ppm dup_ppm reorder_ppm reorder_gap hold_ms corrupt_ppm
 *   corrupt_fix_csum delay_ms tcp_only
 *                            fault knobs for frames THIS port transmits
 *   dropped duplicated reordered corrupted delayed
 *                            fault counters of that direction
 *   reset_counters           write anything: zero the fault counters
 *
 * Nothing here takes RTNL: ports remove their directory under RTNL and
 * debugfs_remove_recursive() waits for readers.
 */
#include <linux/debugfs.h>
#include <linux/seq_file.h>
#include <net/net_namespace.h>

#include "innova.h"

static struct dentry *innova_dbg_root;

void innova_port_set_name(struct innova_port *port, const char *name)
{
	spin_lock_bh(&port->name_lock);
	strscpy(port->ifname, name, sizeof(port->ifname));
	spin_unlock_bh(&port->name_lock);
}

static void innova_port_get_name(struct innova_port *port, char *buf)
{
	spin_lock_bh(&port->name_lock);
	memcpy(buf, port->ifname, IFNAMSIZ);
	spin_unlock_bh(&port->name_lock);
}

static int innova_dbg_ifname_show(struct seq_file *m, void *v)
{
	struct innova_port *port = m->private;
	char name[IFNAMSIZ];

	innova_port_get_name(port, name);
	seq_printf(m, "%s\n", name);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(innova_dbg_ifname);

static int innova_dbg_peer_show(struct seq_file *m, void *v)
{
	struct innova_port *port = m->private;
	struct innova_port *peer;
	char name[IFNAMSIZ];
	int idx = -1;

	rcu_read_lock();
	peer = rcu_dereference(port->peer);
	if (peer) {
		idx = peer->index;
		innova_port_get_name(peer, name);
	}
	rcu_read_unlock();

	if (idx < 0)
		seq_puts(m, "none\n");
	else
		seq_printf(m, "port%d %s\n", idx, name);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(innova_dbg_peer);

/* The netns inode, as in "readlink /proc/self/ns/net" -> net:[N]. */
static int innova_dbg_netns_show(struct seq_file *m, void *v)
{
	struct innova_port *port = m->private;
	unsigned int inum;

	rcu_read_lock();
	inum = dev_net(port->dev)->ns.inum;
	rcu_read_unlock();

	seq_printf(m, "%u\n", inum);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(innova_dbg_netns);

static int innova_dbg_counters_show(struct seq_file *m, void *v)
{
	struct innova_port *port = m->private;
	u64 p[INNOVA_STAT_NUM], t[INNOVA_TLS_STAT_NUM];
	int i;

	innova_stats_fold(port, p, t);
	for (i = 0; i < INNOVA_STAT_NUM; i++)
		seq_printf(m, "%s %llu\n", innova_port_stat_names[i], p[i]);
	for (i = 0; i < INNOVA_CABLE_STAT_NUM; i++)
		seq_printf(m, "%s %lld\n", innova_cable_stat_names[i],
			   (s64)atomic64_read(&port->wire.cnt[i]));
	for (i = 0; i < INNOVA_TLS_STAT_NUM; i++)
		seq_printf(m, "%s %llu\n", innova_tls_stat_names[i], t[i]);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(innova_dbg_counters);

static int innova_dbg_seed_get(void *data, u64 *val)
{
	struct innova_port *port = data;

	spin_lock_bh(&port->wire.lock);
	*val = port->wire.seed;
	spin_unlock_bh(&port->wire.lock);
	return 0;
}

static int innova_dbg_seed_set(void *data, u64 val)
{
	innova_wire_reseed(data, val);
	return 0;
}
DEFINE_DEBUGFS_ATTRIBUTE(innova_dbg_seed_fops, innova_dbg_seed_get,
			 innova_dbg_seed_set, "%llu\n");

static int innova_dbg_reset_set(void *data, u64 val)
{
	innova_wire_reset_counters(data);
	return 0;
}
DEFINE_DEBUGFS_ATTRIBUTE(innova_dbg_reset_fops, NULL, innova_dbg_reset_set,
			 "%llu\n");

static int innova_dbg_cnt_get(void *data, u64 *val)
{
	*val = atomic64_read((atomic64_t *)data);
	return 0;
}
DEFINE_DEBUGFS_ATTRIBUTE(innova_dbg_cnt_fops, innova_dbg_cnt_get, NULL,
			 "%llu\n");

static const char * const innova_dbg_cnt_names[INNOVA_CABLE_STAT_NUM] = {
	[INNOVA_CABLE_DROPPED]		= "dropped",
	[INNOVA_CABLE_DUPLICATED]	= "duplicated",
	[INNOVA_CABLE_REORDERED]	= "reordered",
	[INNOVA_CABLE_CORRUPTED]	= "corrupted",
	[INNOVA_CABLE_DELAYED]		= "delayed",
};

void innova_debugfs_port_add(struct innova_port *port)
{
	struct innova_fault_cfg *c = &port->wire.cfg;
	char name[16];
	struct dentry *d;
	int i;

	snprintf(name, sizeof(name), "port%d", port->index);
	d = debugfs_create_dir(name, innova_dbg_root);
	port->dbg_dir = d;

	debugfs_create_file("ifname", 0444, d, port, &innova_dbg_ifname_fops);
	debugfs_create_file("peer", 0444, d, port, &innova_dbg_peer_fops);
	debugfs_create_file("netns", 0444, d, port, &innova_dbg_netns_fops);
	debugfs_create_file("counters", 0444, d, port,
			    &innova_dbg_counters_fops);

	debugfs_create_file_unsafe("seed", 0644, d, port,
				   &innova_dbg_seed_fops);
	debugfs_create_u32("drop_ppm", 0644, d, &c->drop_ppm);
	debugfs_create_u32("dup_ppm", 0644, d, &c->dup_ppm);
	debugfs_create_u32("reorder_ppm", 0644, d, &c->reorder_ppm);
	debugfs_create_u32("reorder_gap", 0644, d, &c->reorder_gap);
	debugfs_create_u32("hold_ms", 0644, d, &c->hold_ms);
	debugfs_create_u32("corrupt_ppm", 0644, d, &c->corrupt_ppm);
	debugfs_create_u32("corrupt_fix_csum", 0644, d, &c->corrupt_fix_csum);
	debugfs_create_u32("delay_ms", 0644, d, &c->delay_ms);
	debugfs_create_u32("tcp_only", 0644, d, &c->tcp_only);

	for (i = 0; i < INNOVA_CABLE_STAT_NUM; i++)
		debugfs_create_file_unsafe(innova_dbg_cnt_names[i], 0444, d,
					   &port->wire.cnt[i],
					   &innova_dbg_cnt_fops);
	debugfs_create_file_unsafe("reset_counters", 0200, d, port,
				   &innova_dbg_reset_fops);
	innova_tls_debugfs_add(port, d);
}

void innova_debugfs_port_del(struct innova_port *port)
{
	debugfs_remove_recursive(port->dbg_dir);
	port->dbg_dir = NULL;
}

void innova_debugfs_init(void)
{
	innova_dbg_root = debugfs_create_dir(INNOVA_DRV_NAME, NULL);
}

void innova_debugfs_exit(void)
{
	debugfs_remove_recursive(innova_dbg_root);
	innova_dbg_root = NULL;
}

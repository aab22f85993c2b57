// SPDX-License-Identifier: GPL-2.0
/*
 * Innova debugfs: /sys/kernel/debug/innova/portN/
 *
 * N is a module-global port index, stable across renames and netns moves.
 *
 *   ifname, peer, netns      which netdev this is and what it is cabled to
 *   counters                 every counter, "name value" per line
 *   the cable's fault knobs and counters for frames THIS port transmits
 *                            (created by cable.c: innova_cable_debugfs_add())
 *   tls_*                    the TLS engine (tls_offload.c)
 *
 * and, module-wide, /sys/kernel/debug/innova/:
 *
 *   objects                  ports, engines, flows and keys alive (leak check)
 *   bench                    engine vs gcm(aes) micro-benchmark and
 *                            per-flow memory, on demand (bench.c)
 *
 * Nothing here takes RTNL: ports remove their directory under RTNL and
 * debugfs_remove_recursive() waits for readers.
 */
#include <linux/debugfs.h>
#include <linux/seq_file.h>
#include <net/net_namespace.h>

#include <innova/hw_crypto.h>

#include "innova.h"
#include "compat.h"

static struct dentry *innova_dbg_root;

struct innova_object_counts innova_objects;

static int innova_dbg_objects_show(struct seq_file *m, void *v)
{
	struct innova_tls_mem dm;

	innova_tls_mem(&dm);
	seq_printf(m, "ports %d\n", atomic_read(&innova_objects.ports));
	seq_printf(m, "engines %d\n", atomic_read(&innova_objects.engines));
	seq_printf(m, "flows %d\n", atomic_read(&innova_objects.flows));
	seq_printf(m, "keys %u\n", hw_crypto_key_count());
	/*
	 * What keys and driver flows hold, in kmalloc buckets, and the
	 * engines' flow tables, preallocated per port for max_flows slots
	 * (all 0 when nothing is alive, like the counts).
	 */
	seq_printf(m, "key_bytes %lu\n", hw_crypto_key_bytes());
	seq_printf(m, "flow_bytes %zu\n",
		   (size_t)atomic_read(&innova_objects.flows) * dm.flow_slab);
	seq_printf(m, "engine_bytes %zu\n",
		   (size_t)atomic_read(&innova_objects.ports) * dm.engine);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(innova_dbg_objects);

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

/* What this build offloads: tests pick their expectations from it. */
static int innova_dbg_caps_show(struct seq_file *m, void *v)
{
	seq_puts(m, "tls12_rx");
	if (INNOVA_TLS13_RX)
		seq_puts(m, " tls13_rx");
	seq_putc(m, '\n');
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(innova_dbg_caps);

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
	u64 c[INNOVA_CABLE_STAT_NUM];
	int i;

	innova_stats_fold(port, p, t);
	innova_cable_stats(port, c);
	for (i = 0; i < INNOVA_STAT_NUM; i++)
		seq_printf(m, "%s %llu\n", innova_port_stat_names[i], p[i]);
	for (i = 0; i < INNOVA_CABLE_STAT_NUM; i++)
		seq_printf(m, INNOVA_CABLE_STAT_PREFIX "%s %llu\n",
			   innova_cable_stat_names[i], c[i]);
	for (i = 0; i < INNOVA_TLS_STAT_NUM; i++)
		seq_printf(m, "%s %llu\n", innova_tls_stat_names[i], t[i]);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(innova_dbg_counters);

void innova_debugfs_port_add(struct innova_port *port)
{
	char name[16];
	struct dentry *d;

	snprintf(name, sizeof(name), "port%d", port->index);
	d = debugfs_create_dir(name, innova_dbg_root);
	port->dbg_dir = d;

	debugfs_create_file("ifname", 0400, d, port, &innova_dbg_ifname_fops);
	debugfs_create_file("peer", 0400, d, port, &innova_dbg_peer_fops);
	debugfs_create_file("netns", 0400, d, port, &innova_dbg_netns_fops);
	debugfs_create_file("counters", 0400, d, port,
			    &innova_dbg_counters_fops);

	innova_cable_debugfs_add(port, d);
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
	debugfs_create_file("objects", 0400, innova_dbg_root, NULL,
			    &innova_dbg_objects_fops);
	debugfs_create_file("caps", 0400, innova_dbg_root, NULL,
			    &innova_dbg_caps_fops);
	innova_bench_debugfs_add(innova_dbg_root);
}

void innova_debugfs_exit(void)
{
	debugfs_remove_recursive(innova_dbg_root);
	innova_dbg_root = NULL;
}

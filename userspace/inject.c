// SPDX-License-Identifier: GPL-2.0
/*
 * innova-inject: one forged IPv4 TCP segment on the wire, and a look at the
 * segments of a flow, for guest tests of what the NIC does with frames that
 * TCP drops (issue 20). The NIC parses every frame before TCP decides, so a
 * test needs segments the real stack would never send: any seq/ack/flags,
 * a TLS-looking header, an 802.1Q tag (VID 0 too). The stack's own sockets
 * cannot build those; a packet socket on the sender's port can.
 *
 *   innova-inject send --dev IF --src A:P --dst B:P --seq N [options]
 *   innova-inject peek --dev IF [--src A[:P]] [--dst B[:P]] [options]
 *
 * Output is one line of NAME=number pairs (eval-able in sh). Exit 0 ok,
 * 1 failure, 2 usage, 3 peek saw no matching frame before --timeout.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <linux/if_packet.h>
#include <net/ethernet.h>
#include <net/if.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define MAX_PAYLOAD	1460	/* one segment at MTU 1500 without options */
#define TLS_HDR_NONCE	13	/* 5-byte record header + 8-byte explicit nonce */

static void usage(FILE *f)
{
	fputs(
"usage: innova-inject send --dev IF --src ADDR:PORT --dst ADDR:PORT --seq N [options]\n"
"       innova-inject peek --dev IF [--src ADDR[:PORT]] [--dst ADDR[:PORT]] [options]\n"
"\n"
"send: one IPv4 TCP segment through a packet socket on IF (the sender's port),\n"
"with correct IPv4 and TCP checksums. Numbers take 0x for hex.\n"
"  --seq N             TCP sequence number (32-bit)\n"
"  --ack N             acknowledgment number (default 0)\n"
"  --flags F           letters of F S R P A U E C (default PA: data with ACK;\n"
"                      an established connection drops data without ACK)\n"
"  --win N             window (default 502)\n"
"  --ts VAL:ECR        add a TCP timestamp option (PAWS checks it when present)\n"
"  --payload HEX       payload bytes as hex (spaces and colons ignored)\n"
"  --forged-header [NONCE]\n"
"                      payload 17 03 03 40 18 (TLS 1.2 application data, length\n"
"                      16408: the largest AES-GCM record) + the 8-byte explicit\n"
"                      nonce NONCE (16 hex digits, default 0102030405060708)\n"
"  --pad N             append zero bytes up to N bytes of payload\n"
"  --vlan VID[:PCP]    802.1Q tag (VID 0 = priority tag)\n"
"  --dst-mac MAC       destination MAC (default: IF's neighbour entry for the\n"
"                      destination address, /proc/net/arp)\n"
"  --count N           send N copies (default 1)\n"
"  --qdisc             go through IF's qdisc (default: bypass it, so a test can\n"
"                      hold the sender's traffic in a plug qdisc and still inject)\n"
"  prints: sent=N bytes=FRAME_BYTES seq=N ack=N len=PAYLOAD_BYTES\n"
"\n"
"peek: watch IF for IPv4 TCP frames of a flow (both directions; PORT 0 or\n"
"absent matches any port) and describe them.\n"
"  --idle MS           keep watching until MS ms pass without a match (default:\n"
"                      stop at the first match)\n"
"  --count N           stop after N matches\n"
"  --data              only frames carrying payload\n"
"  --timeout S         give up after S seconds (default 10): exit 3 if none matched\n"
"  prints (last match, and over all matches): sport dport seq len ack flags\n"
"         tsval tsecr (0 without the option) vlan (-1 untagged, else VID)\n"
"         frames tagged max_end (largest seq+len, in sequence order)\n",
	      f);
}

static int parse_u32(const char *s, uint32_t *out)
{
	char *end;
	unsigned long long v;

	errno = 0;
	v = strtoull(s, &end, 0);
	if (!*s || *end || errno || v > 0xffffffffULL)
		return -1;
	*out = (uint32_t)v;
	return 0;
}

/* "1.2.3.4:80", "1.2.3.4" (port 0 = any, peek only) */
static int parse_ep(const char *s, struct in_addr *a, uint16_t *port, int need_port)
{
	char host[64];
	const char *c = strchr(s, ':');
	uint32_t p = 0;
	size_t n = c ? (size_t)(c - s) : strlen(s);

	if (n >= sizeof(host))
		return -1;
	memcpy(host, s, n);
	host[n] = 0;
	if (inet_pton(AF_INET, host, a) != 1)
		return -1;
	if (c && (parse_u32(c + 1, &p) || p > 65535))
		return -1;
	if (need_port && !p)
		return -1;
	*port = (uint16_t)p;
	return 0;
}

static int hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* hex into buf (at most cap bytes); returns the byte count or -1 */
static int parse_hex(const char *s, uint8_t *buf, size_t cap)
{
	size_t n = 0;
	int hi = -1;

	for (; *s; s++) {
		int v;

		if (*s == ' ' || *s == ':')
			continue;
		v = hexval((unsigned char)*s);
		if (v < 0)
			return -1;
		if (hi < 0) {
			hi = v;
			continue;
		}
		if (n == cap)
			return -1;
		buf[n++] = (uint8_t)(hi << 4 | v);
		hi = -1;
	}
	return hi < 0 ? (int)n : -1;
}

static int parse_flags(const char *s, uint8_t *out)
{
	static const char letters[] = "FSRPAUEC";
	uint8_t f = 0;

	for (; *s; s++) {
		const char *p = strchr(letters, *s);

		if (!p || !*s)
			return -1;
		f |= (uint8_t)(1u << (p - letters));
	}
	*out = f;
	return 0;
}

static int parse_mac(const char *s, uint8_t mac[6])
{
	unsigned int b[6];
	int i;

	if (sscanf(s, "%2x:%2x:%2x:%2x:%2x:%2x", &b[0], &b[1], &b[2], &b[3],
		   &b[4], &b[5]) != 6 || strlen(s) != 17)
		return -1;
	for (i = 0; i < 6; i++)
		mac[i] = (uint8_t)b[i];
	return 0;
}

/* The neighbour the kernel resolved for addr on dev (the test pinged it). */
static int arp_lookup(const char *dev, struct in_addr addr, uint8_t mac[6])
{
	char line[256], ip[64], hw[64], ifn[64];
	unsigned int type, flags;
	FILE *f = fopen("/proc/net/arp", "r");
	int found = -1;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		struct in_addr a;

		if (sscanf(line, "%63s 0x%x 0x%x %63s %*s %63s", ip, &type, &flags,
			   hw, ifn) != 5)
			continue;
		/* flags 0x2: complete entry */
		if (inet_pton(AF_INET, ip, &a) != 1 || a.s_addr != addr.s_addr ||
		    strcmp(ifn, dev) || !(flags & 2))
			continue;
		found = parse_mac(hw, mac);
		break;
	}
	fclose(f);
	return found;
}

static uint32_t sum16(uint32_t sum, const uint8_t *p, size_t len)
{
	while (len > 1) {
		sum += (uint32_t)p[0] << 8 | p[1];
		p += 2;
		len -= 2;
	}
	if (len)
		sum += (uint32_t)p[0] << 8;
	return sum;
}

static uint16_t fold(uint32_t sum)
{
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)~sum;
}

static void put16(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static void put32(uint8_t *p, uint32_t v)
{
	put16(p, v >> 16);
	put16(p + 2, v);
}

static uint32_t get16(const uint8_t *p)
{
	return (uint32_t)p[0] << 8 | p[1];
}

static uint32_t get32(const uint8_t *p)
{
	return get16(p) << 16 | get16(p + 2);
}

static int open_dev(const char *dev, int proto, struct sockaddr_ll *sll)
{
	int fd = socket(AF_PACKET, SOCK_RAW, htons(proto));

	if (fd < 0) {
		perror("innova-inject: socket(AF_PACKET)");
		return -1;
	}
	memset(sll, 0, sizeof(*sll));
	sll->sll_family = AF_PACKET;
	sll->sll_protocol = htons(proto);
	sll->sll_ifindex = (int)if_nametoindex(dev);
	if (!sll->sll_ifindex) {
		fprintf(stderr, "innova-inject: no interface %s in this netns\n", dev);
		close(fd);
		return -1;
	}
	if (bind(fd, (struct sockaddr *)sll, sizeof(*sll))) {
		perror("innova-inject: bind");
		close(fd);
		return -1;
	}
	return fd;
}

struct send_opts {
	const char *dev;
	struct in_addr saddr, daddr;
	uint16_t sport, dport;
	uint32_t seq, ack, win, tsval, tsecr, count;
	uint8_t flags;
	int have_ts, vlan, pcp, use_qdisc, have_mac;
	uint8_t dmac[6];
	uint8_t payload[MAX_PAYLOAD];
	size_t plen;
};

static size_t build_frame(const struct send_opts *o, const uint8_t smac[6],
			  uint8_t *fr)
{
	size_t l3 = 14, optlen = o->have_ts ? 12 : 0, tcplen, len;
	uint8_t *ip, *th;
	uint32_t sum;

	memcpy(fr, o->dmac, 6);
	memcpy(fr + 6, smac, 6);
	if (o->vlan >= 0) {
		put16(fr + 12, 0x8100);
		put16(fr + 14, (uint32_t)o->pcp << 13 | (uint32_t)o->vlan);
		l3 = 18;
	}
	put16(fr + l3 - 2, 0x0800);
	ip = fr + l3;
	th = ip + 20;
	tcplen = 20 + optlen + o->plen;

	memset(ip, 0, 20);
	ip[0] = 0x45;
	put16(ip + 2, (uint32_t)(20 + tcplen));
	put16(ip + 4, (uint32_t)rand() & 0xffff);
	put16(ip + 6, 0x4000);		/* DF, like the stack's own segments */
	ip[8] = 64;
	ip[9] = IPPROTO_TCP;
	memcpy(ip + 12, &o->saddr, 4);
	memcpy(ip + 16, &o->daddr, 4);
	put16(ip + 10, fold(sum16(0, ip, 20)));

	memset(th, 0, 20 + optlen);
	put16(th, o->sport);
	put16(th + 2, o->dport);
	put32(th + 4, o->seq);
	put32(th + 8, o->ack);
	th[12] = (uint8_t)((20 + optlen) / 4) << 4;
	th[13] = o->flags;
	put16(th + 14, o->win);
	if (o->have_ts) {
		/* NOP NOP TS, as Linux lays it out */
		th[20] = 1;
		th[21] = 1;
		th[22] = 8;
		th[23] = 10;
		put32(th + 24, o->tsval);
		put32(th + 28, o->tsecr);
	}
	memcpy(th + 20 + optlen, o->payload, o->plen);
	/* pseudo header: addresses, protocol, TCP length */
	sum = sum16(0, ip + 12, 8) + IPPROTO_TCP + (uint32_t)tcplen;
	put16(th + 16, fold(sum16(sum, th, tcplen)));

	len = l3 + 20 + tcplen;
	/* Ethernet minimum; the IP total length says where the segment ends */
	if (len < 60) {
		memset(fr + len, 0, 60 - len);
		len = 60;
	}
	return len;
}

static int do_send(struct send_opts *o)
{
	uint8_t frame[18 + 20 + 32 + MAX_PAYLOAD + 64], smac[6];
	struct sockaddr_ll sll;
	struct ifreq ifr;
	size_t len;
	uint32_t i, sent = 0;
	int fd, one = 1;

	if (!o->have_mac && arp_lookup(o->dev, o->daddr, o->dmac)) {
		fprintf(stderr, "innova-inject: no complete ARP entry for %s on %s (ping it first, or --dst-mac)\n",
			inet_ntoa(o->daddr), o->dev);
		return 1;
	}
	/* protocol 0: a send-only socket, it never queues received frames */
	fd = open_dev(o->dev, 0, &sll);
	if (fd < 0)
		return 1;
	memset(&ifr, 0, sizeof(ifr));
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", o->dev);
	if (ioctl(fd, SIOCGIFHWADDR, &ifr)) {
		perror("innova-inject: SIOCGIFHWADDR");
		close(fd);
		return 1;
	}
	memcpy(smac, ifr.ifr_hwaddr.sa_data, 6);
	if (!o->use_qdisc &&
	    setsockopt(fd, SOL_PACKET, PACKET_QDISC_BYPASS, &one, sizeof(one))) {
		perror("innova-inject: PACKET_QDISC_BYPASS");
		close(fd);
		return 1;
	}
	len = build_frame(o, smac, frame);
	sll.sll_halen = 6;
	memcpy(sll.sll_addr, o->dmac, 6);
	for (i = 0; i < o->count; i++) {
		ssize_t n = sendto(fd, frame, len, 0, (struct sockaddr *)&sll,
				   sizeof(sll));

		if (n != (ssize_t)len) {
			perror("innova-inject: sendto");
			break;
		}
		sent++;
	}
	close(fd);
	printf("sent=%u bytes=%zu seq=%u ack=%u len=%zu\n", sent, len, o->seq,
	       o->ack, o->plen);
	return sent == o->count ? 0 : 1;
}

struct peek_opts {
	const char *dev;
	struct in_addr saddr, daddr;	/* 0: any */
	uint16_t sport, dport;		/* 0: any */
	int idle_ms, timeout_s, data_only, have_src, have_dst;
	uint32_t count;
};

struct seg {
	uint32_t sport, dport, seq, len, ack, flags, tsval, tsecr;
	int vlan;
};

/* IPv4 TCP frame -> seg; 0 when it is something else */
static int parse_seg(const uint8_t *fr, size_t n, int aux_vlan, struct seg *s,
		     struct in_addr *sa, struct in_addr *da)
{
	size_t off = 14, ihl, doff, tot, o;
	const uint8_t *ip, *th;
	uint32_t et;

	if (n < 14)
		return 0;
	s->vlan = aux_vlan;
	et = get16(fr + 12);
	if (et == 0x8100 && n >= 18) {
		s->vlan = (int)(get16(fr + 14) & 0xfff);
		et = get16(fr + 16);
		off = 18;
	}
	if (et != 0x0800 || n < off + 20)
		return 0;
	ip = fr + off;
	ihl = (size_t)(ip[0] & 15) * 4;
	tot = get16(ip + 2);
	if ((ip[0] >> 4) != 4 || ip[9] != IPPROTO_TCP || ihl < 20 ||
	    tot < ihl + 20 || off + tot > n)
		return 0;
	th = ip + ihl;
	doff = (size_t)(th[12] >> 4) * 4;
	if (doff < 20 || ihl + doff > tot)
		return 0;
	memcpy(sa, ip + 12, 4);
	memcpy(da, ip + 16, 4);
	s->sport = get16(th);
	s->dport = get16(th + 2);
	s->seq = get32(th + 4);
	s->ack = get32(th + 8);
	s->flags = th[13];
	s->len = (uint32_t)(tot - ihl - doff);
	s->tsval = s->tsecr = 0;
	for (o = 20; o < doff;) {
		uint8_t kind = th[o];

		if (kind == 0)
			break;
		if (kind == 1) {
			o++;
			continue;
		}
		if (o + 1 >= doff || th[o + 1] < 2 || o + th[o + 1] > doff)
			break;
		if (kind == 8 && th[o + 1] == 10) {
			s->tsval = get32(th + o + 2);
			s->tsecr = get32(th + o + 6);
		}
		o += th[o + 1];
	}
	return 1;
}

static int ep_match(struct in_addr want, int have, uint16_t wport,
		    struct in_addr got, uint32_t gport)
{
	return (!have || want.s_addr == got.s_addr) && (!wport || wport == gport);
}

static long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000L + ts.tv_nsec / 1000000L;
}

static int do_peek(const struct peek_opts *o)
{
	uint8_t buf[65536], cbuf[CMSG_SPACE(sizeof(struct tpacket_auxdata))];
	long deadline = now_ms() + o->timeout_s * 1000L, last = 0;
	uint32_t frames = 0, tagged = 0, max_end = 0;
	struct sockaddr_ll sll;
	struct seg s, lastseg;
	int fd, one = 1;

	fd = open_dev(o->dev, ETH_P_ALL, &sll);
	if (fd < 0)
		return 1;
	/* the stack moves a received tag out of the frame: auxdata keeps it */
	if (setsockopt(fd, SOL_PACKET, PACKET_AUXDATA, &one, sizeof(one))) {
		perror("innova-inject: PACKET_AUXDATA");
		close(fd);
		return 1;
	}
	memset(&lastseg, 0, sizeof(lastseg));
	for (;;) {
		long t = now_ms(), wait = deadline - t;
		struct pollfd pfd = { .fd = fd, .events = POLLIN };
		struct iovec iov = { buf, sizeof(buf) };
		struct msghdr mh = { 0 };
		struct cmsghdr *cm;
		struct in_addr sa, da;
		int aux_vlan = -1;
		ssize_t n;

		if (frames && o->idle_ms && last + o->idle_ms - t < wait)
			wait = last + o->idle_ms - t;
		if (wait <= 0)
			break;
		if (poll(&pfd, 1, (int)wait) < 0) {
			perror("innova-inject: poll");
			close(fd);
			return 1;
		}
		if (!(pfd.revents & POLLIN))
			continue;
		mh.msg_iov = &iov;
		mh.msg_iovlen = 1;
		mh.msg_control = cbuf;
		mh.msg_controllen = sizeof(cbuf);
		n = recvmsg(fd, &mh, MSG_DONTWAIT);
		if (n < 0)
			continue;
		for (cm = CMSG_FIRSTHDR(&mh); cm; cm = CMSG_NXTHDR(&mh, cm)) {
			struct tpacket_auxdata aux;

			if (cm->cmsg_level != SOL_PACKET ||
			    cm->cmsg_type != PACKET_AUXDATA)
				continue;
			memcpy(&aux, CMSG_DATA(cm), sizeof(aux));
			if (aux.tp_status & TP_STATUS_VLAN_VALID)
				aux_vlan = aux.tp_vlan_tci & 0xfff;
		}
		if (!parse_seg(buf, (size_t)n, aux_vlan, &s, &sa, &da))
			continue;
		if (!ep_match(o->saddr, o->have_src, o->sport, sa, s.sport) ||
		    !ep_match(o->daddr, o->have_dst, o->dport, da, s.dport))
			continue;
		if (o->data_only && !s.len)
			continue;
		/* sequence order, as TCP compares: later if within 2^31 */
		if (!frames || (int32_t)(s.seq + s.len - max_end) > 0)
			max_end = s.seq + s.len;
		frames++;
		tagged += s.vlan >= 0;
		lastseg = s;
		last = now_ms();
		if ((!o->idle_ms && !o->count) || (o->count && frames >= o->count))
			break;
	}
	close(fd);
	if (!frames) {
		fprintf(stderr, "innova-inject: no matching frame on %s within %d s\n",
			o->dev, o->timeout_s);
		return 3;
	}
	printf("sport=%u dport=%u seq=%u len=%u ack=%u flags=%u tsval=%u tsecr=%u vlan=%d frames=%u tagged=%u max_end=%u\n",
	       lastseg.sport, lastseg.dport, lastseg.seq, lastseg.len,
	       lastseg.ack, lastseg.flags, lastseg.tsval, lastseg.tsecr,
	       lastseg.vlan, frames, tagged, max_end);
	return 0;
}

static int bad(const char *what, const char *arg)
{
	fprintf(stderr, "innova-inject: bad %s '%s'\n", what, arg ? arg : "");
	return 2;
}

int main(int argc, char **argv)
{
	struct send_opts so = { .win = 502, .count = 1, .flags = 0x18, .vlan = -1 };
	struct peek_opts po = { .timeout_s = 10 };
	int is_send, i, have_seq = 0, have_src = 0, have_dst = 0;
	uint32_t pad = 0;

	if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		usage(argc < 2 ? stderr : stdout);
		return argc < 2 ? 2 : 0;
	}
	if (strcmp(argv[1], "send") && strcmp(argv[1], "peek"))
		return bad("command", argv[1]);
	is_send = !strcmp(argv[1], "send");
	srand((unsigned int)(time(NULL) ^ getpid()));
	for (i = 2; i < argc; i++) {
		const char *k = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
		uint32_t u;

		/* options without a value */
		if (!strcmp(k, "--qdisc") && is_send) {
			so.use_qdisc = 1;
			continue;
		}
		if (!strcmp(k, "--data") && !is_send) {
			po.data_only = 1;
			continue;
		}
		if (!strcmp(k, "--forged-header") && is_send) {
			static const uint8_t hdr[5] = { 0x17, 0x03, 0x03, 0x40, 0x18 };
			static const uint8_t nonce[8] = { 1, 2, 3, 4, 5, 6, 7, 8 };

			memcpy(so.payload, hdr, 5);
			memcpy(so.payload + 5, nonce, 8);
			so.plen = TLS_HDR_NONCE;
			/* an optional nonce follows unless the next word is an option */
			if (v && strncmp(v, "--", 2)) {
				if (parse_hex(v, so.payload + 5, 8) != 8)
					return bad("nonce (16 hex digits)", v);
				i++;
			}
			continue;
		}
		if (!v) {
			usage(stderr);
			return 2;
		}
		i++;
		if (!strcmp(k, "--dev")) {
			so.dev = po.dev = v;
		} else if (!strcmp(k, "--src")) {
			if (parse_ep(v, is_send ? &so.saddr : &po.saddr,
				     is_send ? &so.sport : &po.sport, is_send))
				return bad("--src", v);
			have_src = po.have_src = 1;
		} else if (!strcmp(k, "--dst")) {
			if (parse_ep(v, is_send ? &so.daddr : &po.daddr,
				     is_send ? &so.dport : &po.dport, is_send))
				return bad("--dst", v);
			have_dst = po.have_dst = 1;
		} else if (!strcmp(k, "--count")) {
			if (parse_u32(v, &u) || !u)
				return bad("--count", v);
			so.count = po.count = u;
		} else if (is_send && !strcmp(k, "--seq")) {
			if (parse_u32(v, &so.seq))
				return bad("--seq", v);
			have_seq = 1;
		} else if (is_send && !strcmp(k, "--ack")) {
			if (parse_u32(v, &so.ack))
				return bad("--ack", v);
		} else if (is_send && !strcmp(k, "--flags")) {
			if (parse_flags(v, &so.flags))
				return bad("--flags", v);
		} else if (is_send && !strcmp(k, "--win")) {
			if (parse_u32(v, &so.win) || so.win > 65535)
				return bad("--win", v);
		} else if (is_send && !strcmp(k, "--ts")) {
			char tmp[32];
			char *c;

			snprintf(tmp, sizeof(tmp), "%s", v);
			c = strchr(tmp, ':');
			if (!c)
				return bad("--ts", v);
			*c = 0;
			if (parse_u32(tmp, &so.tsval) || parse_u32(c + 1, &so.tsecr))
				return bad("--ts", v);
			so.have_ts = 1;
		} else if (is_send && !strcmp(k, "--payload")) {
			int n = parse_hex(v, so.payload, MAX_PAYLOAD);

			if (n < 0)
				return bad("--payload", v);
			so.plen = (size_t)n;
		} else if (is_send && !strcmp(k, "--pad")) {
			if (parse_u32(v, &pad) || pad > MAX_PAYLOAD)
				return bad("--pad", v);
		} else if (is_send && !strcmp(k, "--vlan")) {
			uint32_t vid, pcp = 0;
			char tmp[32];
			char *c;

			snprintf(tmp, sizeof(tmp), "%s", v);
			c = strchr(tmp, ':');
			if (c)
				*c = 0;
			if (parse_u32(tmp, &vid) || vid > 4094 ||
			    (c && (parse_u32(c + 1, &pcp) || pcp > 7)))
				return bad("--vlan", v);
			so.vlan = (int)vid;
			so.pcp = (int)pcp;
		} else if (is_send && !strcmp(k, "--dst-mac")) {
			if (parse_mac(v, so.dmac))
				return bad("--dst-mac", v);
			so.have_mac = 1;
		} else if (!is_send && !strcmp(k, "--idle")) {
			if (parse_u32(v, &u) || !u || u > 600000)
				return bad("--idle", v);
			po.idle_ms = (int)u;
		} else if (!is_send && !strcmp(k, "--timeout")) {
			if (parse_u32(v, &u) || !u || u > 3600)
				return bad("--timeout", v);
			po.timeout_s = (int)u;
		} else {
			usage(stderr);
			return bad("option", k);
		}
	}
	if (!so.dev) {
		fprintf(stderr, "innova-inject: --dev is required\n");
		return 2;
	}
	if (!is_send)
		return do_peek(&po);
	if (!have_src || !have_dst || !have_seq) {
		fprintf(stderr, "innova-inject: send needs --src, --dst and --seq\n");
		return 2;
	}
	if (so.plen + (so.have_ts ? 12 : 0) > MAX_PAYLOAD)
		return bad("payload length", "too long with options");
	if (pad > so.plen) {
		memset(so.payload + so.plen, 0, pad - so.plen);
		so.plen = pad;
	}
	if (so.plen + (so.have_ts ? 12 : 0) > MAX_PAYLOAD)
		return bad("--pad", "too long with --ts");
	return do_send(&so);
}

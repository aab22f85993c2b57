/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Innova tracepoints (tracefs events/innova/): what the emulated NIC did
 * with a TLS flow, next to the core's own tls:* events. Never key bytes.
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM innova

#if !defined(_INNOVA_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define _INNOVA_TRACE_H

#include <linux/tracepoint.h>

#include <innova/hw_engine.h>

/*
 * passed: bytes from copied_seq the NIC let through before the flow
 * existed (receive queue and backlog); backlog: those in the backlog;
 * ahead: how far the start lies beyond them (a record straddled their end).
 */
TRACE_EVENT(innova_tls_flow_add,
	    TP_PROTO(int port, u32 handle, u32 start_seq, u64 start_rn,
		     bool synced, u32 passed, u32 backlog, u32 ahead, int err),
	    TP_ARGS(port, handle, start_seq, start_rn, synced, passed, backlog,
		    ahead, err),
	    TP_STRUCT__entry(__field(int, port)
			     __field(u32, handle)
			     __field(u32, start_seq)
			     __field(u64, start_rn)
			     __field(bool, synced)
			     __field(u32, passed)
			     __field(u32, backlog)
			     __field(u32, ahead)
			     __field(int, err)),
	    TP_fast_assign(__entry->port = port;
			   __entry->handle = handle;
			   __entry->start_seq = start_seq;
			   __entry->start_rn = start_rn;
			   __entry->synced = synced;
			   __entry->passed = passed;
			   __entry->backlog = backlog;
			   __entry->ahead = ahead;
			   __entry->err = err;),
	    TP_printk("port%d flow=%u start_seq=%u start_rn=%llu synced=%d err=%d passed=%u backlog=%u ahead=%u",
		      __entry->port, __entry->handle, __entry->start_seq,
		      __entry->start_rn, __entry->synced, __entry->err,
		      __entry->passed, __entry->backlog, __entry->ahead)
);

TRACE_EVENT(innova_tls_flow_del,
	    TP_PROTO(int port, u32 handle),
	    TP_ARGS(port, handle),
	    TP_STRUCT__entry(__field(int, port)
			     __field(u32, handle)),
	    TP_fast_assign(__entry->port = port;
			   __entry->handle = handle;),
	    TP_printk("port%d flow=%u", __entry->port, __entry->handle)
);

/* A resync request passed to the core (or skipped: issued=0). */
TRACE_EVENT(innova_tls_resync_req,
	    TP_PROTO(int port, u32 handle, u32 seq, bool issued),
	    TP_ARGS(port, handle, seq, issued),
	    TP_STRUCT__entry(__field(int, port)
			     __field(u32, handle)
			     __field(u32, seq)
			     __field(bool, issued)),
	    TP_fast_assign(__entry->port = port;
			   __entry->handle = handle;
			   __entry->seq = seq;
			   __entry->issued = issued;),
	    TP_printk("port%d flow=%u seq=%u issued=%d", __entry->port,
		      __entry->handle, __entry->seq, __entry->issued)
);

/* The core's tls_dev_resync, and whether the engine used it (err=0). */
TRACE_EVENT(innova_tls_resync_confirm,
	    TP_PROTO(int port, u32 handle, u32 seq, u64 rn, int err),
	    TP_ARGS(port, handle, seq, rn, err),
	    TP_STRUCT__entry(__field(int, port)
			     __field(u32, handle)
			     __field(u32, seq)
			     __field(u64, rn)
			     __field(int, err)),
	    TP_fast_assign(__entry->port = port;
			   __entry->handle = handle;
			   __entry->seq = seq;
			   __entry->rn = rn;
			   __entry->err = err;),
	    TP_printk("port%d flow=%u seq=%u rcd_sn=%llu err=%d",
		      __entry->port, __entry->handle, __entry->seq,
		      __entry->rn, __entry->err)
);

/*
 * Per-frame engine events: state changes and authentication failures.
 * events: the completion's HW_EV_* bits (include/innova/hw_engine.h) by
 * name, "|"-separated; gap, bad_header, tag and crypto are the
 * HW_EV_LOST_* reasons why the flow lost its record boundaries.
 */
TRACE_EVENT(innova_tls_frame_event,
	    TP_PROTO(int port, u32 handle, u32 tcp_seq, u32 events,
		     bool auth_fail),
	    TP_ARGS(port, handle, tcp_seq, events, auth_fail),
	    TP_STRUCT__entry(__field(int, port)
			     __field(u32, handle)
			     __field(u32, tcp_seq)
			     __field(u32, events)
			     __field(bool, auth_fail)),
	    TP_fast_assign(__entry->port = port;
			   __entry->handle = handle;
			   __entry->tcp_seq = tcp_seq;
			   __entry->events = events;
			   __entry->auth_fail = auth_fail;),
	    TP_printk("port%d flow=%u seq=%u auth_fail=%d events=%s",
		      __entry->port, __entry->handle, __entry->tcp_seq,
		      __entry->auth_fail,
		      __print_flags(__entry->events, "|",
				    { HW_EV_KEY_REFRESH_NEEDED, "key_refresh_needed" },
				    { HW_EV_SYNC_LOST, "sync_lost" },
				    { HW_EV_SYNCED, "synced" },
				    { HW_EV_KEY_SWITCHED, "key_switched" },
				    { HW_EV_REORDER_RECOVERED, "reorder_recovered" },
				    { HW_EV_LOST_GAP, "gap" },
				    { HW_EV_LOST_BAD_HEADER, "bad_header" },
				    { HW_EV_LOST_TAG, "tag" },
				    { HW_EV_LOST_CRYPTO, "crypto" },
				    { HW_EV_REARMED, "rearmed" },
				    { HW_EV_CRYPTO_ERR, "crypto_err" }))
);

#endif /* _INNOVA_TRACE_H */

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE trace
#include <trace/define_trace.h>

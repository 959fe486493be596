/*
 * The host firewall's native side: the netfilter queue (libnetfilter_queue), nftables' command
 * API (libnftables) and conntrack (libnetfilter_conntrack), through JNI, nothing hand-written
 * over netlink. Each function is a thin call into those libraries; what to do with a packet is
 * decided in Java. Errors are thrown as java.io.IOException with the system's reason.
 */
#include <jni.h>

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>
#include <linux/netfilter.h>

#include <libnetfilter_conntrack/libnetfilter_conntrack.h>
#include <libnetfilter_queue/libnetfilter_queue.h>
#include <nftables/libnftables.h>

#include "dev_portcullis_netfilter_NetfilterNative.h"

#define ABI_VERSION 4
#define PENDING 64   /* packets one recv may hand over before Java takes them */
#define MAX_COPY 256 /* the most of a packet copied to Java: its headers */
#define EVENTS 1024  /* flows the kernel admitted itself, held until Java takes them */
#define TUPLE 13     /* a flow: source, destination (4 each), protocol, ports (2 each) */

struct pending {
  uint32_t id;
  uint32_t mark; /* the packet's mark when queued (a verdict that sets a bit keeps the rest) */
  int len;
  unsigned char data[MAX_COPY];
};

struct pq {
  struct nfq_handle *h;
  struct nfq_q_handle *qh;
  int fd;
  int wake; /* an eventfd: another thread's wakeup() ends the reader's wait at once */
  int head, count;
  struct pending p[PENDING];
  int overflow; /* packets handed over with no room: dropped by verdict at once */
  /*
   * Conntrack's new-flow events for flows with the watched mark (queueWatch): the flows the
   * kernel admitted itself, with no packet queued. Read on the queue's thread (queueEvents).
   */
  struct nfct_handle *ev;
  uint32_t evmark;
  int evcount;
  int evlost; /* events not held (the kernel's ENOBUFS): the caller looks again */
  unsigned char evs[EVENTS][TUPLE];
  char buf[0x10000 + 4096] __attribute__((aligned));
};

static void throw_io(JNIEnv *env, const char *what, int err) {
  char m[256];
  snprintf(m, sizeof m, "%s: %s (errno %d)", what, strerror(err), err);
  jclass c = (*env)->FindClass(env, "java/io/IOException");
  if (c != NULL) {
    (*env)->ThrowNew(env, c, m);
  }
}

/* A conntrack entry's original direction as TUPLE bytes (addresses in network order). */
static void tuple_of(const struct nf_conntrack *ct, unsigned char *e) {
  uint32_t s = nfct_get_attr_u32(ct, ATTR_ORIG_IPV4_SRC);
  uint32_t d = nfct_get_attr_u32(ct, ATTR_ORIG_IPV4_DST);
  uint16_t sp = ntohs(nfct_get_attr_u16(ct, ATTR_ORIG_PORT_SRC));
  uint16_t dp = ntohs(nfct_get_attr_u16(ct, ATTR_ORIG_PORT_DST));
  memcpy(e, &s, 4);
  memcpy(e + 4, &d, 4);
  e[8] = nfct_get_attr_u8(ct, ATTR_ORIG_L4PROTO);
  e[9] = (unsigned char)(sp >> 8);
  e[10] = (unsigned char)sp;
  e[11] = (unsigned char)(dp >> 8);
  e[12] = (unsigned char)dp;
}

static int marked(const struct nf_conntrack *ct, uint32_t mark) {
  return nfct_get_attr_u8(ct, ATTR_L3PROTO) == AF_INET &&
         (nfct_get_attr_u32(ct, ATTR_MARK) & mark) == mark;
}

static int on_event(enum nf_conntrack_msg_type type, struct nf_conntrack *ct, void *data) {
  struct pq *q = data;
  if (type != NFCT_T_NEW || !marked(ct, q->evmark)) {
    return NFCT_CB_CONTINUE; /* the socket's filter lets only these through; checked again */
  }
  if (q->evcount == EVENTS) { /* never: reading stops when it fills (below); counted if it did */
    q->evlost++;
    return NFCT_CB_STOP;
  }
  tuple_of(ct, q->evs[q->evcount++]);
  /* the ring full: the next events wait in the socket until Java has taken these */
  return q->evcount == EVENTS ? NFCT_CB_STOP : NFCT_CB_CONTINUE;
}

static int on_packet(struct nfq_q_handle *qh, struct nfgenmsg *msg, struct nfq_data *nfa,
                     void *data) {
  (void)msg;
  struct pq *q = data;
  struct nfqnl_msg_packet_hdr *ph = nfq_get_msg_packet_hdr(nfa);
  if (ph == NULL) {
    return 0;
  }
  uint32_t id = ntohl(ph->packet_id);
  if (q->count == PENDING) {
    /* never leave a packet without a verdict: with no room, it is dropped (fail closed) */
    nfq_set_verdict(qh, id, NF_DROP, 0, NULL);
    q->overflow++;
    return 0;
  }
  unsigned char *payload = NULL;
  int len = nfq_get_payload(nfa, &payload);
  struct pending *p = &q->p[(q->head + q->count) % PENDING];
  p->id = id;
  p->mark = nfq_get_nfmark(nfa);
  p->len = len < 0 ? 0 : (len > MAX_COPY ? MAX_COPY : len);
  if (p->len > 0) {
    memcpy(p->data, payload, (size_t)p->len);
  }
  q->count++;
  return 0;
}

JNIEXPORT jint JNICALL Java_dev_portcullis_netfilter_NetfilterNative_abiVersion(JNIEnv *env,
                                                                               jclass c) {
  (void)env;
  (void)c;
  return ABI_VERSION;
}

JNIEXPORT jlong JNICALL Java_dev_portcullis_netfilter_NetfilterNative_queueOpen(
    JNIEnv *env, jclass c, jint num, jint maxLength, jint timeoutMs) {
  (void)c;
  struct pq *q = calloc(1, sizeof *q);
  if (q == NULL) {
    throw_io(env, "netfilter queue", ENOMEM);
    return 0;
  }
  q->h = nfq_open();
  if (q->h == NULL) {
    int e = errno;
    free(q);
    throw_io(env, "nfq_open", e);
    return 0;
  }
  q->qh = nfq_create_queue(q->h, (uint16_t)num, on_packet, q);
  if (q->qh == NULL) {
    int e = errno;
    nfq_close(q->h);
    free(q);
    throw_io(env, "nfq_create_queue (another reader has this queue number?)", e);
    return 0;
  }
  if (nfq_set_mode(q->qh, NFQNL_COPY_PACKET, MAX_COPY) < 0 ||
      nfq_set_queue_maxlen(q->qh, (uint32_t)maxLength) < 0) {
    int e = errno;
    nfq_destroy_queue(q->qh);
    nfq_close(q->h);
    free(q);
    throw_io(env, "nfq_set_mode", e);
    return 0;
  }
  q->fd = nfq_fd(q->h);
  (void)timeoutMs; /* each receive says how long it waits */
  q->wake = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
  if (q->wake < 0) {
    int e = errno;
    nfq_destroy_queue(q->qh);
    nfq_close(q->h);
    free(q);
    throw_io(env, "eventfd", e);
    return 0;
  }
  return (jlong)(intptr_t)q;
}

/*
 * The next queued packet into `into`: its id and its mark (4 bytes each, big-endian) then up to
 * MAX_COPY bytes of it; returns their count, 0 when none came within `timeoutMs` (0: none waiting
 * now), a wakeup() ended the wait or (`events`) conntrack events are waiting for queueEvents, -1
 * when the kernel dropped packets because this reader was behind (ENOBUFS; the socket goes on).
 */
JNIEXPORT jint JNICALL Java_dev_portcullis_netfilter_NetfilterNative_queueReceive(
    JNIEnv *env, jclass c, jlong handle, jbyteArray into, jint timeoutMs, jboolean events) {
  (void)c;
  struct pq *q = (struct pq *)(intptr_t)handle;
  int nfds = events && q->ev != NULL ? 3 : 2;
  while (q->count == 0) {
    struct pollfd fds[3] = {{.fd = q->fd, .events = POLLIN},
                            {.fd = q->wake, .events = POLLIN},
                            {.fd = q->ev != NULL ? nfct_fd(q->ev) : -1, .events = POLLIN}};
    int ready = poll(fds, (nfds_t)nfds, timeoutMs);
    if (ready < 0) {
      if (errno == EINTR) {
        return 0;
      }
      throw_io(env, "netfilter queue poll", errno);
      return 0;
    }
    if (fds[1].revents & POLLIN) {
      uint64_t woken;
      if (read(q->wake, &woken, sizeof woken) < 0) { /* EAGAIN: emptied already */
      }
    }
    if (!(fds[0].revents & POLLIN)) {
      return 0; /* woken, flows the kernel admitted, or the wait is over */
    }
    ssize_t n = recv(q->fd, q->buf, sizeof q->buf, MSG_DONTWAIT);
    if (n < 0) {
      if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR) {
        return 0;
      }
      if (errno == ENOBUFS) {
        return -1;
      }
      throw_io(env, "netfilter queue recv", errno);
      return 0;
    }
    nfq_handle_packet(q->h, q->buf, (int)n);
    if (q->count == 0) {
      return 0; /* a message that carried no packet */
    }
  }
  struct pending *p = &q->p[q->head];
  q->head = (q->head + 1) % PENDING;
  q->count--;
  jsize room = (*env)->GetArrayLength(env, into);
  if (room < 8 + p->len) {
    throw_io(env, "netfilter queue: the buffer given is too small", EINVAL);
    return 0;
  }
  jbyte head[8] = {(jbyte)(p->id >> 24),   (jbyte)(p->id >> 16),   (jbyte)(p->id >> 8),
                   (jbyte)p->id,           (jbyte)(p->mark >> 24), (jbyte)(p->mark >> 16),
                   (jbyte)(p->mark >> 8), (jbyte)p->mark};
  (*env)->SetByteArrayRegion(env, into, 0, 8, head);
  (*env)->SetByteArrayRegion(env, into, 8, p->len, (const jbyte *)p->data);
  return 8 + p->len;
}

JNIEXPORT jint JNICALL Java_dev_portcullis_netfilter_NetfilterNative_queueOverflow(JNIEnv *env,
                                                                                  jclass c,
                                                                                  jlong handle) {
  (void)env;
  (void)c;
  struct pq *q = (struct pq *)(intptr_t)handle;
  int n = q->overflow;
  q->overflow = 0;
  return n;
}

/* The verdict on packet `id`; a mark of 0 to 0xffffffff is set on it, -1 leaves it as it is. */
JNIEXPORT void JNICALL Java_dev_portcullis_netfilter_NetfilterNative_queueVerdict(
    JNIEnv *env, jclass c, jlong handle, jint id, jboolean accept, jlong mark) {
  (void)c;
  struct pq *q = (struct pq *)(intptr_t)handle;
  uint32_t v = accept ? NF_ACCEPT : NF_DROP;
  int rc = mark < 0 ? nfq_set_verdict(q->qh, (uint32_t)id, v, 0, NULL)
                    : nfq_set_verdict2(q->qh, (uint32_t)id, v, (uint32_t)mark, 0, NULL);
  if (rc < 0) {
    throw_io(env, "nfq_set_verdict", errno);
  }
}

/* Ends the reader's wait in queueReceive at once, from any thread. */
JNIEXPORT void JNICALL Java_dev_portcullis_netfilter_NetfilterNative_queueWakeup(JNIEnv *env,
                                                                                jclass c,
                                                                                jlong handle) {
  (void)env;
  (void)c;
  struct pq *q = (struct pq *)(intptr_t)handle;
  uint64_t one = 1;
  if (write(q->wake, &one, sizeof one) < 0) { /* the counter full: a wakeup is pending anyway */
  }
}

JNIEXPORT void JNICALL Java_dev_portcullis_netfilter_NetfilterNative_queueClose(JNIEnv *env,
                                                                               jclass c,
                                                                               jlong handle) {
  struct pq *q = (struct pq *)(intptr_t)handle;
  (void)env;
  (void)c;
  if (q == NULL) {
    return;
  }
  nfq_destroy_queue(q->qh);
  nfq_close(q->h);
  close(q->wake);
  if (q->ev != NULL) {
    nfct_close(q->ev);
  }
  free(q);
}

/*
 * Watches, on the queue's thread, for flows the kernel admits itself: conntrack's new-flow events
 * (in the calling thread's namespace) of entries whose mark has every bit of `mark`, filtered in
 * the kernel by a socket filter, the socket's buffer `bufferBytes`. queueEvents reads them, and
 * queueReceive, told to, returns when one is waiting.
 */
JNIEXPORT void JNICALL Java_dev_portcullis_netfilter_NetfilterNative_queueWatch(
    JNIEnv *env, jclass c, jlong handle, jint mark, jint bufferBytes) {
  (void)c;
  struct pq *q = (struct pq *)(intptr_t)handle;
  if (q->ev != NULL) {
    throw_io(env, "conntrack events: watched already", EALREADY);
    return;
  }
  struct nfct_handle *h = nfct_open(CONNTRACK, NF_NETLINK_CONNTRACK_NEW);
  if (h == NULL) {
    throw_io(env, "conntrack events: nfct_open", errno);
    return;
  }
  struct nfct_filter *f = nfct_filter_create();
  if (f == NULL) {
    nfct_close(h);
    throw_io(env, "conntrack events: nfct_filter_create", ENOMEM);
    return;
  }
  struct nfct_filter_dump_mark m = {.val = (uint32_t)mark, .mask = (uint32_t)mark};
  nfct_filter_add_attr(f, NFCT_FILTER_MARK, &m);
  int fd = nfct_fd(h);
  int rc = nfct_filter_attach(fd, f);
  int e = errno;
  nfct_filter_destroy(f);
  if (rc < 0 || fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK) < 0) {
    nfct_close(h);
    throw_io(env, "conntrack events: the socket's filter", rc < 0 ? e : errno);
    return;
  }
  int size = bufferBytes;
  if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &size, sizeof size) < 0) {
    setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, sizeof size); /* capped by rmem_max */
  }
  q->evmark = (uint32_t)mark;
  nfct_callback_register(h, NFCT_T_NEW, on_event, q);
  q->ev = h;
}

/*
 * The flows the kernel admitted since the last call, TUPLE bytes each, into `into` (as many as it
 * holds; the rest wait for the next call); their count. Reads the event socket first, without
 * waiting.
 */
JNIEXPORT jint JNICALL Java_dev_portcullis_netfilter_NetfilterNative_queueEvents(
    JNIEnv *env, jclass c, jlong handle, jbyteArray into) {
  (void)c;
  struct pq *q = (struct pq *)(intptr_t)handle;
  if (q->ev != NULL && q->evcount < EVENTS) {
    /* the fd is non-blocking: nfct_catch reads until it is empty (EAGAIN) or the ring is full */
    if (nfct_catch(q->ev) < 0 && errno == ENOBUFS) {
      q->evlost++; /* the kernel dropped events: this reader was behind */
    }
  }
  int n = (int)((*env)->GetArrayLength(env, into) / TUPLE);
  if (n > q->evcount) {
    n = q->evcount;
  }
  if (n == 0) {
    return 0;
  }
  (*env)->SetByteArrayRegion(env, into, 0, n * TUPLE, (const jbyte *)q->evs[0]);
  memmove(q->evs[0], q->evs[n], (size_t)(q->evcount - n) * TUPLE);
  q->evcount -= n;
  return n;
}

/* Events lost since the last call (the kernel's socket or the ring full): a count, then 0. */
JNIEXPORT jint JNICALL Java_dev_portcullis_netfilter_NetfilterNative_queueEventsLost(JNIEnv *env,
                                                                                    jclass c,
                                                                                    jlong handle) {
  (void)env;
  (void)c;
  struct pq *q = (struct pq *)(intptr_t)handle;
  int n = q->evlost;
  q->evlost = 0;
  return n;
}

struct dump {
  uint32_t mark;
  size_t count, room;
  unsigned char *tuples;
  int failed;
};

static int on_dumped(enum nf_conntrack_msg_type type, struct nf_conntrack *ct, void *data) {
  (void)type;
  struct dump *d = data;
  if (!marked(ct, d->mark)) {
    return NFCT_CB_CONTINUE;
  }
  if (d->count == d->room) {
    size_t room = d->room == 0 ? 256 : d->room * 2;
    unsigned char *more = realloc(d->tuples, room * TUPLE);
    if (more == NULL) {
      d->failed = ENOMEM;
      return NFCT_CB_STOP;
    }
    d->tuples = more;
    d->room = room;
  }
  tuple_of(ct, d->tuples + TUPLE * d->count++);
  return NFCT_CB_CONTINUE;
}

/*
 * The IPv4 flows whose conntrack entry's mark has every bit of `mark`, in the calling thread's
 * namespace (a dump the kernel filters by the mark): TUPLE bytes each.
 */
JNIEXPORT jbyteArray JNICALL Java_dev_portcullis_netfilter_NetfilterNative_conntrackMarked(
    JNIEnv *env, jclass c, jint mark) {
  (void)c;
  struct nfct_handle *h = nfct_open(CONNTRACK, 0);
  if (h == NULL) {
    throw_io(env, "conntrack: nfct_open", errno);
    return NULL;
  }
  struct nfct_filter_dump *f = nfct_filter_dump_create();
  if (f == NULL) {
    nfct_close(h);
    throw_io(env, "conntrack: nfct_filter_dump_create", ENOMEM);
    return NULL;
  }
  struct nfct_filter_dump_mark m = {.val = (uint32_t)mark, .mask = (uint32_t)mark};
  nfct_filter_dump_set_attr(f, NFCT_FILTER_DUMP_MARK, &m);
  nfct_filter_dump_set_attr_u8(f, NFCT_FILTER_DUMP_L3NUM, AF_INET);
  struct dump d = {.mark = (uint32_t)mark};
  nfct_callback_register(h, NFCT_T_ALL, on_dumped, &d);
  int rc = nfct_query(h, NFCT_Q_DUMP_FILTER, f);
  int e = errno;
  nfct_filter_dump_destroy(f);
  nfct_close(h);
  if (rc < 0 || d.failed) {
    free(d.tuples);
    throw_io(env, "conntrack: the dump", d.failed ? d.failed : e);
    return NULL;
  }
  jbyteArray out = (*env)->NewByteArray(env, (jsize)(d.count * TUPLE));
  if (out != NULL && d.count > 0) {
    (*env)->SetByteArrayRegion(env, out, 0, (jsize)(d.count * TUPLE), (const jbyte *)d.tuples);
  }
  free(d.tuples);
  return out;
}

/* An nft context kept for many commands (its netlink socket in the opener's namespace). */
JNIEXPORT jlong JNICALL Java_dev_portcullis_netfilter_NetfilterNative_nftOpen(JNIEnv *env,
                                                                             jclass c) {
  (void)c;
  struct nft_ctx *ctx = nft_ctx_new(NFT_CTX_DEFAULT);
  if (ctx == NULL) {
    throw_io(env, "nft_ctx_new", ENOMEM);
    return 0;
  }
  nft_ctx_buffer_output(ctx);
  nft_ctx_buffer_error(ctx);
  return (jlong)(intptr_t)ctx;
}

/* Runs nft commands on a kept context; null when they succeeded, else nft's error text. */
JNIEXPORT jstring JNICALL Java_dev_portcullis_netfilter_NetfilterNative_nftRunOn(
    JNIEnv *env, jclass c, jlong handle, jstring commands) {
  (void)c;
  struct nft_ctx *ctx = (struct nft_ctx *)(intptr_t)handle;
  const char *cmd = (*env)->GetStringUTFChars(env, commands, NULL);
  if (cmd == NULL) {
    return NULL;
  }
  int rc = nft_run_cmd_from_buffer(ctx, cmd);
  (*env)->ReleaseStringUTFChars(env, commands, cmd);
  const char *err = nft_ctx_get_error_buffer(ctx); /* read, and so emptied for the next */
  nft_ctx_get_output_buffer(ctx);
  if (rc == 0) {
    return NULL;
  }
  return (*env)->NewStringUTF(env, err != NULL && err[0] ? err : "nft: the commands failed");
}

JNIEXPORT void JNICALL Java_dev_portcullis_netfilter_NetfilterNative_nftClose(JNIEnv *env,
                                                                             jclass c,
                                                                             jlong handle) {
  (void)env;
  (void)c;
  if (handle != 0) {
    nft_ctx_free((struct nft_ctx *)(intptr_t)handle);
  }
}

/* Runs nft commands (nft's own syntax); null when they succeeded, else nft's error text. */
JNIEXPORT jstring JNICALL Java_dev_portcullis_netfilter_NetfilterNative_nftRun(JNIEnv *env,
                                                                              jclass c,
                                                                              jstring commands) {
  (void)c;
  const char *cmd = (*env)->GetStringUTFChars(env, commands, NULL);
  if (cmd == NULL) {
    return NULL;
  }
  struct nft_ctx *ctx = nft_ctx_new(NFT_CTX_DEFAULT);
  if (ctx == NULL) {
    (*env)->ReleaseStringUTFChars(env, commands, cmd);
    throw_io(env, "nft_ctx_new", ENOMEM);
    return NULL;
  }
  nft_ctx_buffer_output(ctx);
  nft_ctx_buffer_error(ctx);
  int rc = nft_run_cmd_from_buffer(ctx, cmd);
  (*env)->ReleaseStringUTFChars(env, commands, cmd);
  jstring out = NULL;
  if (rc != 0) {
    const char *err = nft_ctx_get_error_buffer(ctx);
    out = (*env)->NewStringUTF(env, err != NULL && err[0] ? err : "nft: the commands failed");
  }
  nft_ctx_free(ctx);
  return out;
}

/*
 * Deletes the IPv4 conntrack entries of `count` flows on one handle: each TUPLE bytes of `flows`,
 * source and destination address (4 each, network order), protocol, source and destination port
 * (2 each, big-endian), the original direction. Returns each one's 0 or errno (ENOENT: none); an
 * errno for all of them when no handle could be opened.
 */
JNIEXPORT jintArray JNICALL Java_dev_portcullis_netfilter_NetfilterNative_conntrackDelete(
    JNIEnv *env, jclass c, jbyteArray flows, jint count) {
  (void)c;
  if (count < 0 || (*env)->GetArrayLength(env, flows) < count * TUPLE) {
    return NULL;
  }
  jintArray out = (*env)->NewIntArray(env, count);
  if (out == NULL || count == 0) {
    return out;
  }
  jint *rcs = calloc((size_t)count, sizeof *rcs);
  unsigned char *b = malloc((size_t)count * TUPLE);
  if (rcs == NULL || b == NULL) {
    free(rcs);
    free(b);
    return NULL;
  }
  (*env)->GetByteArrayRegion(env, flows, 0, count * TUPLE, (jbyte *)b);
  struct nfct_handle *h = nfct_open(CONNTRACK, 0);
  struct nf_conntrack *ct = h == NULL ? NULL : nfct_new();
  int failed = h == NULL ? errno : (ct == NULL ? ENOMEM : 0);
  for (jint i = 0; i < count; i++) {
    if (failed) {
      rcs[i] = failed;
      continue;
    }
    const unsigned char *f = b + TUPLE * i;
    uint32_t s, d;
    memcpy(&s, f, 4); /* network order, as the bytes are */
    memcpy(&d, f + 4, 4);
    nfct_set_attr_u8(ct, ATTR_L3PROTO, AF_INET);
    nfct_set_attr_u32(ct, ATTR_IPV4_SRC, s);
    nfct_set_attr_u32(ct, ATTR_IPV4_DST, d);
    nfct_set_attr_u8(ct, ATTR_L4PROTO, f[8]);
    nfct_set_attr_u16(ct, ATTR_PORT_SRC, htons((uint16_t)(f[9] << 8 | f[10])));
    nfct_set_attr_u16(ct, ATTR_PORT_DST, htons((uint16_t)(f[11] << 8 | f[12])));
    rcs[i] = nfct_query(h, NFCT_Q_DESTROY, ct) < 0 ? errno : 0;
  }
  if (ct != NULL) {
    nfct_destroy(ct);
  }
  if (h != NULL) {
    nfct_close(h);
  }
  (*env)->SetIntArrayRegion(env, out, 0, count, rcs);
  free(rcs);
  free(b);
  return out;
}

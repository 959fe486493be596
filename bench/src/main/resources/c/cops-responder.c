/*
 * The anchor of PdpLoad's throughput figure: a COPS responder in C on epoll that answers every
 * message it frames with one fixed DEC, and does nothing else (no decoding, no policy).
 *
 *   cops-responder DEC-HEX [THREADS]
 *
 * Listens on 127.0.0.1, an ephemeral port, and prints "port N" on stdout once listening; serves
 * until stdin closes (the harness that started it ends). Each connection is framed by the COPS
 * common header's 32-bit length (RFC 2748 section 2.1); a length below 8 or above 64 KiB closes
 * the connection. Every read's complete messages are answered in one write; a write that the
 * socket does not take whole is finished when it is writable again.
 *
 * THREADS event loops (default 1), each with its own epoll set, share the listening socket
 * (EPOLLEXCLUSIVE), as a Netty server's workers do.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include "cops-frame.h"

#define MAX_MESSAGE 65536
#define IN_SIZE (256 * 1024)

struct conn {
  int fd;
  size_t in_len;
  unsigned char in[IN_SIZE];
  unsigned char *out;
  size_t out_len, out_cap, out_off;
};

static unsigned char *dec;
static size_t dec_len;
static int listener;

static void drop(int ep, struct conn *c) {
  epoll_ctl(ep, EPOLL_CTL_DEL, c->fd, NULL);
  close(c->fd);
  free(c->out);
  free(c);
}

/* Writes what is pending; 0 when all of it went, 1 when the socket is full, -1 on an error. */
static int flush_out(struct conn *c) {
  while (c->out_off < c->out_len) {
    ssize_t n = write(c->fd, c->out + c->out_off, c->out_len - c->out_off);
    if (n < 0) {
      return errno == EAGAIN ? 1 : -1;
    }
    c->out_off += (size_t)n;
  }
  c->out_off = c->out_len = 0;
  return 0;
}

/* Reads what there is, frames it, queues one DEC per complete message; -1 closes. */
static int on_readable(int ep, struct conn *c) {
  for (;;) {
    size_t room = IN_SIZE - c->in_len;
    ssize_t n = read(c->fd, c->in + c->in_len, room);
    if (n == 0) {
      return -1;
    }
    if (n < 0) {
      if (errno == EAGAIN) {
        break;
      }
      return -1;
    }
    c->in_len += (size_t)n;
    size_t off = 0, answers = 0;
    for (long len; (len = cops_frame(c->in + off, c->in_len - off, MAX_MESSAGE)) != 0;) {
      if (len < 0) {
        return -1;
      }
      off += (size_t)len;
      answers++;
    }
    memmove(c->in, c->in + off, c->in_len - off);
    c->in_len -= off;
    size_t need = c->out_len + answers * dec_len;
    if (need > c->out_cap) {
      size_t cap = need * 2;
      unsigned char *o = realloc(c->out, cap);
      if (o == NULL) {
        return -1;
      }
      c->out = o;
      c->out_cap = cap;
    }
    for (size_t i = 0; i < answers; i++) {
      memcpy(c->out + c->out_len, dec, dec_len);
      c->out_len += dec_len;
    }
    if ((size_t)n < room) {
      break; /* a short read: the socket is drained */
    }
  }
  int w = flush_out(c);
  if (w < 0) {
    return -1;
  }
  struct epoll_event ev = {.events = EPOLLIN | (w ? EPOLLOUT : 0), .data.ptr = c};
  epoll_ctl(ep, EPOLL_CTL_MOD, c->fd, &ev);
  return 0;
}

static void *loop(void *arg) {
  (void)arg;
  int ep = epoll_create1(0);
  struct epoll_event lev = {.events = EPOLLIN | EPOLLEXCLUSIVE, .data.ptr = NULL};
  if (ep < 0 || epoll_ctl(ep, EPOLL_CTL_ADD, listener, &lev) < 0) {
    perror("cops-responder: epoll");
    exit(1);
  }
  struct epoll_event events[64];
  for (;;) {
    int k = epoll_wait(ep, events, 64, -1);
    for (int i = 0; i < k; i++) {
      struct conn *c = events[i].data.ptr;
      if (c == NULL) {
        int fd = accept4(listener, NULL, NULL, SOCK_NONBLOCK);
        if (fd < 0) {
          continue;
        }
        int one = 1;
        setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
        c = calloc(1, sizeof *c);
        if (c == NULL) {
          close(fd);
          continue;
        }
        c->fd = fd;
        struct epoll_event ev = {.events = EPOLLIN, .data.ptr = c};
        epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev);
        continue;
      }
      if (events[i].events & (EPOLLERR | EPOLLHUP)) {
        drop(ep, c);
      } else if (events[i].events & EPOLLOUT && flush_out(c) < 0) {
        drop(ep, c);
      } else if (events[i].events & EPOLLIN && on_readable(ep, c) < 0) {
        drop(ep, c);
      } else if (events[i].events & EPOLLOUT && c->out_len == 0) {
        struct epoll_event ev = {.events = EPOLLIN, .data.ptr = c};
        epoll_ctl(ep, EPOLL_CTL_MOD, c->fd, &ev);
      }
    }
  }
  return NULL;
}

static int hex(char ch) {
  if (ch >= '0' && ch <= '9') return ch - '0';
  if (ch >= 'a' && ch <= 'f') return ch - 'a' + 10;
  if (ch >= 'A' && ch <= 'F') return ch - 'A' + 10;
  return -1;
}

int main(int argc, char **argv) {
  if (argc < 2 || argc > 3) {
    fprintf(stderr, "usage: cops-responder DEC-HEX [THREADS]\n");
    return 2;
  }
  size_t h = strlen(argv[1]);
  dec_len = h / 2;
  dec = malloc(dec_len + 1);
  for (size_t i = 0; i < dec_len; i++) {
    int a = hex(argv[1][2 * i]), b = hex(argv[1][2 * i + 1]);
    if (a < 0 || b < 0) {
      fprintf(stderr, "cops-responder: DEC-HEX: not hex at character %zu\n", 2 * i);
      return 2;
    }
    dec[i] = (unsigned char)(a << 4 | b);
  }
  if (h % 2 != 0 || dec_len < 8) {
    fprintf(stderr, "cops-responder: DEC-HEX: %zu hex digits, need an even number >= 16\n", h);
    return 2;
  }
  int threads = argc == 3 ? atoi(argv[2]) : 1;
  if (threads < 1 || threads > 64) {
    fprintf(stderr, "cops-responder: THREADS: %s, need 1 to 64\n", argv[2]);
    return 2;
  }
  listener = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
  struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = 0};
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t al = sizeof a;
  if (listener < 0 || bind(listener, (struct sockaddr *)&a, sizeof a) < 0 ||
      listen(listener, 512) < 0 || getsockname(listener, (struct sockaddr *)&a, &al) < 0) {
    perror("cops-responder: listen on 127.0.0.1");
    return 1;
  }
  for (int i = 0; i < threads; i++) {
    pthread_t t;
    pthread_create(&t, NULL, loop, NULL);
  }
  printf("port %d\n", ntohs(a.sin_port));
  fflush(stdout);
  char sink[64];
  while (read(0, sink, sizeof sink) > 0) {
  }
  return 0;
}

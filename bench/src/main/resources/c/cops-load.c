/*
 * PdpLoad's load generator in C, so that the generator is not what limits a fast responder:
 * CONNECTIONS connections to 127.0.0.1:PORT, each with OUTSTANDING requests in flight.
 *
 *   cops-load PORT OPN-HEX|- REQUESTS-HEX OUTSTANDING CONNECTIONS SETTLE-MS MEASURE-MS
 *
 * REQUESTS-HEX is OUTSTANDING pre-encoded requests of one length, one per handle. With an OPN
 * (anything but "-"), each connection sends it first and starts its requests when the first
 * answer (the Client-Accept) has come. Every answer, framed by the COPS common header's length,
 * is answered by the next request in turn (one in flight per handle), all of one read's in one
 * write. After SETTLE-MS of load it counts answers for MEASURE-MS and prints
 * "answers/s R total N" on stdout (N: all answers since the first connect, for a CPU cost per
 * answer over the whole run); a connection that fails ends the run with status 1.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "cops-frame.h"

#define IN_SIZE (256 * 1024)

struct conn {
  int fd;
  int open; /* the Client-Accept has come (or no OPN was sent) */
  size_t next;
  size_t in_len;
  unsigned char in[IN_SIZE];
  unsigned char *out;
  size_t out_len, out_cap, out_off;
};

static unsigned char *requests, *opn;
static size_t req_len, outstanding, opn_len;
static uint64_t answers;

static unsigned char *unhex(const char *h, size_t *len, const char *what) {
  size_t n = strlen(h);
  if (n % 2 != 0) {
    fprintf(stderr, "cops-load: %s: an odd number of hex digits\n", what);
    exit(2);
  }
  unsigned char *b = malloc(n / 2 + 1);
  for (size_t i = 0; i < n / 2; i++) {
    unsigned int v;
    if (sscanf(h + 2 * i, "%2x", &v) != 1) {
      fprintf(stderr, "cops-load: %s: not hex at character %zu\n", what, 2 * i);
      exit(2);
    }
    b[i] = (unsigned char)v;
  }
  *len = n / 2;
  return b;
}

static uint64_t now_ms(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (uint64_t)t.tv_sec * 1000 + (uint64_t)t.tv_nsec / 1000000;
}

static void queue(struct conn *c, const unsigned char *b, size_t n) {
  if (c->out_len + n > c->out_cap) {
    c->out_cap = (c->out_len + n) * 2;
    c->out = realloc(c->out, c->out_cap);
    if (c->out == NULL) {
      fprintf(stderr, "cops-load: out of memory\n");
      exit(1);
    }
  }
  memcpy(c->out + c->out_len, b, n);
  c->out_len += n;
}

static void queue_requests(struct conn *c, size_t k) {
  for (size_t i = 0; i < k; i++) {
    queue(c, requests + (c->next++ % outstanding) * req_len, req_len);
  }
}

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

static int on_readable(struct conn *c) {
  for (;;) {
    size_t room = IN_SIZE - c->in_len;
    ssize_t n = read(c->fd, c->in + c->in_len, room);
    if (n == 0 || (n < 0 && errno != EAGAIN)) {
      return -1;
    }
    if (n < 0) {
      break;
    }
    c->in_len += (size_t)n;
    size_t off = 0, done = 0;
    for (long len; (len = cops_frame(c->in + off, c->in_len - off, IN_SIZE)) != 0;) {
      if (len < 0) {
        return -1;
      }
      off += (size_t)len;
      if (c->open) {
        done++;
      } else {
        c->open = 1; /* the Client-Accept: start the requests */
        queue_requests(c, outstanding);
      }
    }
    memmove(c->in, c->in + off, c->in_len - off);
    c->in_len -= off;
    answers += done;
    queue_requests(c, done);
    if ((size_t)n < room) {
      break;
    }
  }
  return flush_out(c);
}

/* Follows a connection's pending output: EPOLLOUT while some waits for room. */
static void want_out(int ep, struct conn *c, int pending) {
  struct epoll_event ev = {.events = EPOLLIN | (pending ? EPOLLOUT : 0), .data.ptr = c};
  epoll_ctl(ep, EPOLL_CTL_MOD, c->fd, &ev);
}

int main(int argc, char **argv) {
  if (argc != 8) {
    fprintf(stderr,
            "usage: cops-load PORT OPN-HEX|- REQUESTS-HEX OUTSTANDING CONNECTIONS SETTLE-MS "
            "MEASURE-MS\n");
    return 2;
  }
  int port = atoi(argv[1]);
  outstanding = (size_t)atol(argv[4]);
  int connections = atoi(argv[5]);
  uint64_t settle = (uint64_t)atol(argv[6]), measure = (uint64_t)atol(argv[7]);
  size_t all;
  requests = unhex(argv[3], &all, "REQUESTS-HEX");
  if (port < 1 || port > 65535 || outstanding < 1 || connections < 1 || connections > 1024 ||
      all % outstanding != 0 || measure == 0) {
    fprintf(stderr, "cops-load: bad arguments (PORT 1-65535, OUTSTANDING requests in "
                    "REQUESTS-HEX, CONNECTIONS 1-1024, MEASURE-MS > 0)\n");
    return 2;
  }
  req_len = all / outstanding;
  if (strcmp(argv[2], "-") != 0) {
    opn = unhex(argv[2], &opn_len, "OPN-HEX");
  }
  int ep = epoll_create1(0);
  struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  for (int i = 0; i < connections; i++) {
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    if (fd < 0 || connect(fd, (struct sockaddr *)&a, sizeof a) < 0) {
      perror("cops-load: connect to 127.0.0.1");
      return 1;
    }
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    struct conn *c = calloc(1, sizeof *c);
    c->fd = fd;
    if (opn != NULL) {
      queue(c, opn, opn_len);
    } else {
      c->open = 1;
      queue_requests(c, outstanding);
    }
    if (flush_out(c) != 0) { /* still blocking: the first write goes whole */
      fprintf(stderr, "cops-load: the first write did not go whole\n");
      return 1;
    }
    fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
    struct epoll_event ev = {.events = EPOLLIN, .data.ptr = c};
    epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev);
  }
  uint64_t start = now_ms(), counted_from = 0, base = 0;
  struct epoll_event events[64];
  for (;;) {
    uint64_t t = now_ms();
    if (counted_from == 0 && t - start >= settle) {
      counted_from = t;
      base = answers;
    }
    if (counted_from != 0 && t - counted_from >= measure) {
      printf("answers/s %.0f total %llu\n",
             (double)(answers - base) * 1000.0 / (double)(t - counted_from),
             (unsigned long long)answers);
      return 0;
    }
    int k = epoll_wait(ep, events, 64, 10);
    for (int i = 0; i < k; i++) {
      struct conn *c = events[i].data.ptr;
      int r = events[i].events & (EPOLLERR | EPOLLHUP) ? -1
              : events[i].events & EPOLLIN           ? on_readable(c)
                                                     : flush_out(c);
      if (r < 0) {
        fprintf(stderr, "cops-load: a connection failed or was closed by the responder\n");
        return 1;
      }
      want_out(ep, c, r);
    }
  }
}

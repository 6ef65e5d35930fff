// bench/children/loadgen.c: the open loop of bench/loadgen in C, for tail latencies in the low milliseconds.
// The Node generator's own pauses (its collector, its timers, its event loop) reached 7–13 ms on a
// two-core machine, so a p99 under 5 ms could not be told from the generator's lag. This one keeps
// no heap beyond its buffers, sleeps on a timerfd set to the next due time (nanoseconds, not a
// millisecond poll) and is driven by bench/lib/load-c.ts, which prepares the requests and reads the
// results (the same LoadResult as the other clients).
//
//   loadgen-c HOST PORT CONNECTIONS RATE MEASURE_END_MS DRAIN_MS TIMEOUT_MS FILE
// FILE: u32 count, then count records of u32 length + the request's bytes (HTTP/1.1, keep-alive).
// Request k is due at k / RATE seconds from the start while that is before MEASURE_END_MS. A due
// request waits for a free connection (no pipelining) and its latency counts from when it was due,
// so a server that falls behind shows it as latency (no coordinated omission).
// stdout: one line per request "k due_ms latency_ms status" (status < 0: -1 timeout, -2 connection
// error, -3 unanswered when the drain ended), then "# lag_ms X": the generator's largest delay in
// putting a due request in its queue.
// Answers need a Content-Length (aloft's JSON answers); a chunked or closed one counts as an error.
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

typedef struct {
  int fd;
  long req;          // request in flight, -1 when idle
  double due;        // ms from the start
  size_t written;
  char *in;
  size_t in_len, in_cap;
} Conn;

static struct sockaddr_in addr;
static unsigned char *file_bytes;
static uint32_t count;
static uint64_t *offset;   // start of request k's bytes in file_bytes
static uint32_t *length;
static struct timespec t0;
static int ep;

static double now_ms (void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)(t.tv_sec - t0.tv_sec) * 1e3 + (double)(t.tv_nsec - t0.tv_nsec) / 1e6;
}

static void die (const char *what) {
  perror(what);
  exit(2);
}

static void report (long k, double due, double end, int status) {
  printf("%ld %.4f %.4f %d\n", k, due, end - due, status);
}

static void conn_open (Conn *c) {
  c->fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (c->fd < 0) die("socket");
  int one = 1;
  setsockopt(c->fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  if (connect(c->fd, (struct sockaddr *)&addr, sizeof addr) < 0 && errno != EINPROGRESS) die("connect");
  struct epoll_event ev = { .events = EPOLLIN, .data.ptr = c };
  if (epoll_ctl(ep, EPOLL_CTL_ADD, c->fd, &ev) < 0) die("epoll_ctl");
  c->req = -1;
  c->in_len = 0;
}

static void conn_reset (Conn *c) {
  close(c->fd);
  conn_open(c);
}

static void want_write (Conn *c, int on) {
  struct epoll_event ev = { .events = EPOLLIN | (on ? EPOLLOUT : 0), .data.ptr = c };
  epoll_ctl(ep, EPOLL_CTL_MOD, c->fd, &ev);
}

/** Writes what the socket takes; 0 when all is written, 1 when more is to come, -1 on error. */
static int conn_write (Conn *c) {
  const unsigned char *bytes = file_bytes + offset[c->req];
  while (c->written < length[c->req]) {
    ssize_t n = write(c->fd, bytes + c->written, length[c->req] - c->written);
    if (n < 0) return errno == EAGAIN || errno == EWOULDBLOCK || errno == ENOTCONN ? 1 : -1;
    c->written += (size_t)n;
  }
  return 0;
}

static void conn_fail (Conn *c, int status) {
  if (c->req >= 0) report(c->req, c->due, now_ms(), status);
  conn_reset(c);
}

static void conn_send (Conn *c, long k, double due) {
  c->req = k;
  c->due = due;
  c->written = 0;
  c->in_len = 0;
  int w = conn_write(c);
  if (w < 0) conn_fail(c, -2);
  else if (w > 0) want_write(c, 1);
}

/**
 * The answer's status once it is whole, 0 while more is to come, -2 when it cannot be read;
 * `closing`: the server said it closes the connection after it.
 */
static int answer_status (Conn *c, int *closing) {
  char *end = memmem(c->in, c->in_len, "\r\n\r\n", 4);
  if (end == NULL) return 0;
  size_t head = (size_t)(end - c->in) + 4;
  if (c->in_len < 12 || memcmp(c->in, "HTTP/1.", 7) != 0) return -2;
  int status = atoi(c->in + 9);
  long body = -1;
  for (char *p = c->in; p < end; p++) {
    if (*p != '\n') continue;
    if (strncasecmp(p + 1, "content-length:", 15) == 0) body = atol(p + 16);
    else if (strncasecmp(p + 1, "connection: close", 17) == 0) *closing = 1;
  }
  if (body < 0) return -2;
  return c->in_len >= head + (size_t)body ? status : 0;
}

static void conn_read (Conn *c) {
  int eof = 0;
  for (;;) {
    if (c->in_cap - c->in_len < 65536) {
      c->in_cap = c->in_cap * 2 + 65536;
      c->in = realloc(c->in, c->in_cap);
      if (c->in == NULL) die("realloc");
    }
    ssize_t n = read(c->fd, c->in + c->in_len, c->in_cap - c->in_len);
    if (n == 0) { eof = 1; break; }
    if (n < 0) {
      if (errno == EAGAIN || errno == EWOULDBLOCK) break;
      conn_fail(c, -2);
      return;
    }
    c->in_len += (size_t)n;
  }
  if (c->req < 0) { conn_reset(c); return; } // a close or bytes nobody asked for
  int closing = 0;
  int status = answer_status(c, &closing);
  if (status == 0 && !eof) return;
  if (status <= 0) { conn_fail(c, status == 0 ? -2 : status); return; }
  report(c->req, c->due, now_ms(), status);
  c->req = -1;
  c->in_len = 0;
  // the answer came whole before the close; a new request written now could meet the close
  if (closing || eof) conn_reset(c);
}

int main (int argc, char **argv) {
  if (argc != 9) {
    fprintf(stderr, "usage: loadgen-c HOST PORT CONNECTIONS RATE MEASURE_END_MS DRAIN_MS TIMEOUT_MS FILE\n");
    return 2;
  }
  addr.sin_family = AF_INET;
  addr.sin_port = htons((uint16_t)atoi(argv[2]));
  if (inet_pton(AF_INET, argv[1], &addr.sin_addr) != 1) { fprintf(stderr, "HOST: an IPv4 address\n"); return 2; }
  int connections = atoi(argv[3]);
  double rate = atof(argv[4]), end_ms = atof(argv[5]), drain_ms = atof(argv[6]), timeout_ms = atof(argv[7]);
  if (connections < 1 || rate <= 0) { fprintf(stderr, "CONNECTIONS and RATE must be positive\n"); return 2; }

  FILE *f = fopen(argv[8], "rb");
  if (f == NULL) die("FILE");
  fseek(f, 0, SEEK_END);
  long size = ftell(f);
  fseek(f, 0, SEEK_SET);
  file_bytes = malloc((size_t)size);
  if (file_bytes == NULL || fread(file_bytes, 1, (size_t)size, f) != (size_t)size) die("read FILE");
  fclose(f);
  memcpy(&count, file_bytes, 4);
  offset = malloc(sizeof *offset * count);
  length = malloc(sizeof *length * count);
  uint64_t at = 4;
  for (uint32_t k = 0; k < count; k++) {
    if (at + 4 > (uint64_t)size) { fprintf(stderr, "FILE is cut short\n"); return 2; }
    memcpy(&length[k], file_bytes + at, 4);
    offset[k] = at + 4;
    at += 4 + length[k];
  }

  ep = epoll_create1(EPOLL_CLOEXEC);
  if (ep < 0) die("epoll_create1");
  int timer = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
  if (timer < 0) die("timerfd_create");
  struct epoll_event tev = { .events = EPOLLIN, .data.ptr = NULL };
  epoll_ctl(ep, EPOLL_CTL_ADD, timer, &tev);
  Conn *conns = calloc((size_t)connections, sizeof *conns);
  for (int i = 0; i < connections; i++) conn_open(&conns[i]);
  // the due requests no connection was free for, oldest first (a ring: at most `count`)
  long *backlog = malloc(sizeof *backlog * (count > 0 ? count : 1));
  double *backlog_due = malloc(sizeof *backlog_due * (count > 0 ? count : 1));
  size_t head = 0, tail = 0;

  clock_gettime(CLOCK_MONOTONIC, &t0);
  double interval = 1e3 / rate, lag = 0;
  long next = 0;
  double drain_to = -1;
  struct epoll_event events[256];
  for (;;) {
    double now = now_ms();
    while (next < (long)count && next * interval < end_ms && next * interval <= now) {
      if (now - next * interval > lag) lag = now - next * interval;
      backlog[tail] = next;
      backlog_due[tail++] = next * interval;
      next++;
    }
    for (int i = 0; i < connections && head < tail; i++) {
      if (conns[i].req < 0) { conn_send(&conns[i], backlog[head], backlog_due[head]); head++; }
    }
    int busy = 0;
    for (int i = 0; i < connections; i++) {
      Conn *c = &conns[i];
      if (c->req >= 0 && now - c->due > timeout_ms) conn_fail(c, -1);
      if (c->req >= 0) busy = 1;
    }
    int scheduling = next < (long)count && next * interval < end_ms;
    if (!scheduling && head == tail && !busy) break;
    if (!scheduling && drain_to < 0) drain_to = now + drain_ms;
    if (drain_to >= 0 && now > drain_to) break;
    // sleep until the next due request, an answer, or at most 10 ms (timeouts, the drain's end)
    double wake = scheduling ? next * interval : now + 10;
    if (wake > now + 10) wake = now + 10;
    struct itimerspec its = { 0 };
    double abs_ms = wake > now ? wake : now + 0.001;
    double ns = (double)t0.tv_nsec + abs_ms * 1e6;
    its.it_value.tv_sec = t0.tv_sec + (time_t)(ns / 1e9);
    its.it_value.tv_nsec = (long)(ns - (double)(its.it_value.tv_sec - t0.tv_sec) * 1e9);
    timerfd_settime(timer, TFD_TIMER_ABSTIME, &its, NULL);
    int n = epoll_wait(ep, events, 256, -1);
    if (n < 0 && errno != EINTR) die("epoll_wait");
    for (int e = 0; e < n; e++) {
      Conn *c = events[e].data.ptr;
      if (c == NULL) {
        uint64_t fired;
        ssize_t r = read(timer, &fired, sizeof fired);
        (void)r;
        continue;
      }
      if (events[e].events & (EPOLLERR | EPOLLHUP)) {
        if (c->req >= 0) conn_fail(c, -2);
        else conn_reset(c);
        continue;
      }
      if ((events[e].events & EPOLLOUT) && c->req >= 0) {
        int w = conn_write(c);
        if (w < 0) { conn_fail(c, -2); continue; }
        if (w == 0) want_write(c, 0);
      }
      if (events[e].events & EPOLLIN) conn_read(c);
    }
  }
  double end = now_ms();
  for (int i = 0; i < connections; i++) if (conns[i].req >= 0) report(conns[i].req, conns[i].due, end, -3);
  for (; head < tail; head++) report(backlog[head], backlog_due[head], end, -3);
  printf("# lag_ms %.4f\n", lag);
  return 0;
}

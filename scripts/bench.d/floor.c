/* scripts/bench (i): the floor client. It opens one connection per arrival at a fixed rate and
 * does nothing else: socket, a blocking connect, one send, one read, close, then sleeps until the
 * next arrival (an absolute clock_nanosleep). No event loop, no timers, no statistics: its CPU is
 * what the kernel charges any client for the connections themselves on this machine (on loopback
 * that includes the server side's TCP receive path and waking the server), the least a client
 * can use at that rate.
 *
 * Usage: floor HOST PORT URI RATE CONNS
 * Prints one line: "replies N late N cpu_percent X" (CPU over the run, in % of one core; "late"
 * counts arrivals that found the previous connection still busy past their time). Exits 1 if a
 * connection failed or a reply was not an HTTP status line.
 *
 * Usage: floor sleep COUNT GAP_US
 * The machine's own wake-up lateness, with no client around it: COUNT absolute sleeps GAP_US
 * apart, each woken late by some amount. Prints "wakes N late_over_1ms N late_over_5ms N
 * max_late_ms X": the stalls every mode that sleeps inherits. */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

static double cpu_seconds(void) {
  struct rusage used;
  getrusage(RUSAGE_SELF, &used);
  return (double)(used.ru_utime.tv_sec + used.ru_stime.tv_sec) +
         (double)(used.ru_utime.tv_usec + used.ru_stime.tv_usec) / 1e6;
}

static long long now_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1000000000LL + t.tv_nsec;
}

static int sleep_test(long count, long long gap_ns) {
  long over1 = 0, over5 = 0;
  long long worst = 0, due = now_ns();
  for (long i = 0; i < count; i++) {
    due += gap_ns;
    struct timespec at = {due / 1000000000LL, due % 1000000000LL};
    clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &at, NULL);
    long long late = now_ns() - due;
    if (late > 1000000) over1++;
    if (late > 5000000) over5++;
    if (late > worst) worst = late;
  }
  printf("wakes %ld late_over_1ms %ld late_over_5ms %ld max_late_ms %.3f\n", count, over1, over5,
         (double)worst / 1e6);
  return 0;
}

int main(int argc, char **argv) {
  if (argc == 4 && strcmp(argv[1], "sleep") == 0 && atol(argv[2]) > 0 && atol(argv[3]) > 0)
    return sleep_test(atol(argv[2]), atoll(argv[3]) * 1000);
  if (argc != 6) {
    fprintf(stderr, "usage: floor HOST PORT URI RATE CONNS | floor sleep COUNT GAP_US\n");
    return 2;
  }
  struct sockaddr_in to = {.sin_family = AF_INET, .sin_port = htons((unsigned short)atoi(argv[2]))};
  double rate = atof(argv[4]);
  long conns = atol(argv[5]);
  if (inet_pton(AF_INET, argv[1], &to.sin_addr) != 1 || rate <= 0 || conns <= 0) {
    fprintf(stderr, "floor: bad HOST, RATE or CONNS\n");
    return 2;
  }
  char request[512];
  int length = snprintf(request, sizeof request, "GET %s HTTP/1.1\r\nHost: %s\r\n\r\n", argv[3],
                        argv[1]);
  char reply[4096];
  long replies = 0, late = 0;
  double cpu0 = cpu_seconds();
  long long start = now_ns(), step = (long long)(1e9 / rate);
  for (long i = 0; i < conns; i++) {
    long long due = start + i * step;
    if (now_ns() > due + step / 10) late++;
    struct timespec at = {due / 1000000000LL, due % 1000000000LL};
    clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &at, NULL);
    int s = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (s < 0 || connect(s, (struct sockaddr *)&to, sizeof to) != 0) {
      perror("floor: connect");
      return 1;
    }
    if (send(s, request, (size_t)length, MSG_NOSIGNAL) != length) {
      perror("floor: send");
      return 1;
    }
    ssize_t got = read(s, reply, sizeof reply);
    if (got > 12 && memcmp(reply, "HTTP/1.", 7) == 0) replies++;
    close(s);
  }
  double cpu = cpu_seconds() - cpu0, seconds = (double)(now_ns() - start) / 1e9;
  printf("replies %ld late %ld cpu_percent %.3f\n", replies, late, cpu / seconds * 100);
  return replies == conns ? 0 : 1;
}

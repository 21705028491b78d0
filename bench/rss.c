/* SPDX-License-Identifier: MIT */
/*
 * rss.c -- peak RSS building W5, one engine per child process.
 *
 * The children are forked before anything big is allocated: each builds W5 in
 * one engine only and reports getrusage(RUSAGE_SELF).ru_maxrss through a pipe;
 * a baseline child that builds nothing is subtracted.
 */
#define _POSIX_C_SOURCE 200809L

#include "bench.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

const char *const g_rss_name[N_RSS] = {"baseline", "grove", "jansson", "cJSON"};
rss_msg g_rss[N_RSS];

static void rss_child(const workload *w5, int which, int fd) {
  rss_msg m;
  memset(&m, 0, sizeof m);
  m.ok = 1;
  if (which == RSS_GROVE) {
    gv_arena *a = NULL;
    const gv_node *t = NULL;
    gv_stats st;
    if (gv_arena_new(NULL, &a) != GV_OK || g_build(a, w5, 0, &t, NULL) != GV_OK) {
      m.ok = 0;
    } else {
      gv_arena_stats(a, &st);
      m.arena_reserved = st.bytes_reserved;
    }
  } else if (which == RSS_JANSSON) {
    m.ok = j_build(w5) != NULL;
  } else if (which == RSS_CJSON) {
    m.ok = c_build(w5) != NULL;
  }
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  m.maxrss_kb = ru.ru_maxrss;
  ssize_t k = write(fd, &m, sizeof m);
  _exit(k == (ssize_t)sizeof m ? 0 : 1);
}

void measure_rss(const workload *w5) {
  fflush(stdout);
  fflush(stderr);
  for (int i = 0; i < N_RSS; i++) {
    int fds[2];
    memset(&g_rss[i], 0, sizeof g_rss[i]);
    if (pipe(fds) != 0) {
      fail("pipe: %s", strerror(errno));
      continue;
    }
    pid_t pid = fork();
    if (pid < 0) {
      fail("fork: %s", strerror(errno));
      close(fds[0]);
      close(fds[1]);
      continue;
    }
    if (pid == 0) {
      close(fds[0]);
      rss_child(w5, i, fds[1]);
    }
    close(fds[1]);
    rss_msg m;
    ssize_t k = read(fds[0], &m, sizeof m);
    close(fds[0]);
    int st = 0;
    waitpid(pid, &st, 0);
    if (k != (ssize_t)sizeof m || !WIFEXITED(st) || WEXITSTATUS(st) != 0 || !m.ok) {
      fail("RSS child %s failed", g_rss_name[i]);
      continue;
    }
    g_rss[i] = m;
  }
}

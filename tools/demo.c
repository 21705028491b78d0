/* SPDX-License-Identifier: MIT */
/* demo.c -- grove demo: a short tour of every operation on a few small trees. Its steps run
 * through the tool's own command line, which main.c hands in as a cli_run_fn: demo.c calls no
 * other file of the tool. */
#include "cli.h"

#include <stdio.h>
#include <string.h>

#define SAMPLE "[{'b': 1, 'a': [2, 3]}, (4, 5), 6]"

typedef struct demo_step {
  int expect; /* exit code */
  const char *argv[8];
} demo_step;

static const demo_step DEMO[] = {
    {0, {"flatten", SAMPLE}},
    {0, {"flatten-with-path", SAMPLE}},
    {0, {"structure", SAMPLE}},
    {0, {"is-nested", SAMPLE}},
    {1, {"is-nested", "'leaf'"}},
    {0, {"pack-sequence-as", SAMPLE, "[10, 20, 30, 40, 50, 60]"}},
    {0, {"map", "add", SAMPLE, SAMPLE}},
    {0, {"map", "type", "[None, True, 1, 2.5, 'x', b'y', &7, *]"}},
    {0, {"map", "str", "Point(x=1, y=(2, 'z'))"}},
    {0, {"map", "--none-is-leaf=false", "add", "[1, None]", "[10, None]"}},
    {0, {"map-up-to", "str", "[0, 0, 0]", SAMPLE}},
    {0, {"map-shape", "type", "{'shape': (2, 3), 'x': [1.5, ()]}"}},
    {0, {"traverse", "--replace", "tuple=0", SAMPLE}},
    {0, {"traverse", "--bottom-up", "--to-none", "tuple", SAMPLE}},
    {0, {"lists-to-tuples", SAMPLE}},
    {0, {"order", "{'b': {'d': 4, 'c': 3}, 'a': OrderedDict({'y': 1, 'x': 2})}"}},
    {0, {"order", "{'b': [1, 2], 'a': None}", "--json"}},
    {0, {"assert-same-structure", SAMPLE, "[{'a': [0, 0], 'b': None}, (0, 0), 'x']"}},
    {1, {"assert-same-structure", SAMPLE, "[{'b': 1, 'a': [2]}, (4, 5), 6]"}},
    {0, {"assert-same-paths", "[1, 2]", "(10, 20)"}},
    {1, {"assert-same-paths", "[1, [2]]", "{0: 1, 'k': 2}"}},
    {0, {"fingerprint", SAMPLE}},
    {0, {"convert", "--to", "json", "{'a': [1, 2.5, None], 'b': 'text'}"}},
    {0, {"stats", "[[1, 2], [1, 2], (3, [1, 2])]"}},
};

static void demo_show_cmd(const char *const *argv) {
  fputs("$ grove", stdout);
  for (size_t i = 0; argv[i]; i++) {
    const char *a = argv[i];
    int plain = *a != '\0';
    for (const char *p = a; *p; p++)
      if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_=.", *p))
        plain = 0;
    fputs(" ", stdout);
    if (plain) {
      fputs(a, stdout);
    } else {
      fputs("\"", stdout);
      fputs(a, stdout);
      fputs("\"", stdout);
    }
  }
  fputs("\n", stdout);
}

/* Runs the demo's command lines through run (the tool's own command line). */
int run_demo(cli_io *io, cli_run_fn *run) {
  fputs("grove demo: every operation on a few small trees (" GV_VERSION_STRING ")\n", stdout);
  fputs("sample: " SAMPLE "\n", stdout);
  int bad = 0;
  for (size_t k = 0; k < sizeof DEMO / sizeof DEMO[0]; k++) {
    const demo_step *st = &DEMO[k];
    size_t n = 0;
    while (n < 8 && st->argv[n])
      n++;
    fputs("\n", stdout);
    demo_show_cmd(st->argv);
    if (fflush(stdout) != 0) io->write_failed = 1;
    int rc = run(io, n, st->argv);
    if (rc != 0) printf("(exit %d)\n", rc);
    if (rc != st->expect) bad = 1;
    if (io->write_failed) return 2; /* already reported */
  }
  if (bad) {
    if (fflush(stdout) != 0) io->write_failed = 1;
    fputs("grove: error: demo: a step did not give its expected exit status\n", stderr);
    return 2;
  }
  return 0;
}

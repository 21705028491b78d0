/* SPDX-License-Identifier: MIT */
/* version.c -- the library's version, as compiled. */
#include "grove.h"

const char *gv_version(void) {
  return GV_VERSION_STRING;
}

/* SPDX-License-Identifier: MIT */
/* test_version.c -- gv_version() and the version macros agree with one another. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "support.h"

Test(version, library_matches_header) {
  cr_assert_str_eq(gv_version(), GV_VERSION_STRING);
}

Test(version, string_is_major_minor_patch) {
  char buf[64];
  snprintf(buf, sizeof buf, "%d.%d.%d", GV_VERSION_MAJOR, GV_VERSION_MINOR, GV_VERSION_PATCH);
  cr_assert_str_eq(buf, GV_VERSION_STRING);
}

Test(version, number_orders_versions) {
  cr_assert_eq(GV_VERSION_NUMBER,
               GV_VERSION_MAJOR * 10000 + GV_VERSION_MINOR * 100 + GV_VERSION_PATCH);
  cr_assert(GV_VERSION_MINOR < 100 && GV_VERSION_PATCH < 100, "the number needs two digits each");
#if GV_VERSION_NUMBER < 100
  cr_assert_fail("GV_VERSION_NUMBER usable in #if and at least 0.1.0");
#endif
}

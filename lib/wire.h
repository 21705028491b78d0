/* SPDX-License-Identifier: MIT */
/* wire.h -- the wire format's version and record tags, shared by encode.c and
 * decode.c (private; the format: docs/wire-format.md). */
#ifndef GROVE_WIRE_H
#define GROVE_WIRE_H

#include "internal.h"

#define GV__WIRE_VERSION 1u

/* Record tags (fixed by format version 1; not the gv_kind numbers). */
enum {
  W_NONE = 0x01,
  W_FALSE = 0x02,
  W_TRUE = 0x03,
  W_INT = 0x04,
  W_FLOAT = 0x05,
  W_STR = 0x06,
  W_BYTES = 0x07,
  W_HANDLE = 0x08,
  W_STAR = 0x09,
  W_LIST = 0x10,
  W_TUPLE = 0x11,
  W_DICT = 0x12,
  W_ODICT = 0x13,
  W_DDICT = 0x14,
  W_NAMEDTUPLE = 0x15,
  W_DEQUE = 0x16,
  W_CUSTOM = 0x17,
  W_KEYSET = 0x20,
  W_SCHEMA = 0x21,
  W_CTYPE = 0x22,
  W_HKEYSET = 0x23 /* a host-ordered keyset: the keys, then the order */
};

#endif /* GROVE_WIRE_H */

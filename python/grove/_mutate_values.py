# SPDX-License-Identifier: MIT
"""grove.mutate's values at and around boundaries (ints, floats, code points, strs, bytes)."""

import math
import struct
import sys

_INTS = [0, 1, -1, 2, -2, 3, 10, -10, 100, 1000, 65535, 10**6, 10**9, 10**18, 10**19, 10**38,
         10**100, -(10**100), 2**53 - 1, 2**53, 2**53 + 1, -(2**53) - 1, 2**55, 2**1000,
         10**4300 - 1, 10**4300, -(10**4300)]  # the last: Python's int <-> str digit limit
for _b in (7, 8, 15, 16, 31, 32, 63, 64, 127, 128):
    _INTS += [(1 << _b) - 1, 1 << _b, (1 << _b) + 1, -(1 << _b) - 1, -(1 << _b), -(1 << _b) + 1]


def _bits_float(u):
    return struct.unpack('<d', struct.pack('<Q', u & 0xFFFF_FFFF_FFFF_FFFF))[0]


def _float_bits(f):
    return struct.unpack('<Q', struct.pack('<d', f))[0]


_FLOATS = [math.nan, -math.nan, _bits_float(0x7FF0_0000_0000_0001), _bits_float(0x7FF8_0000_0000_0001),
           math.inf, -math.inf, 0.0, -0.0, 5e-324, -5e-324, _bits_float(0x000F_FFFF_FFFF_FFFF),
           sys.float_info.min, -sys.float_info.min, sys.float_info.max, -sys.float_info.max,
           sys.float_info.epsilon, 2.0**53, 2.0**53 + 2, -(2.0**53), 2.0**63, 2.0**64, 2.0**1023,
           0.1, 1 / 3, 0.5, 1.0, -1.0, 1e16, 1e-7, 1e300, 1e-300, 9007199254740993.0, 1e22]

# code points for str edits: controls, separators, marks, BOM, the ends of the planes, lone
# surrogates (halves of a pair too), astral ones, case-changers, and syntax characters
_CODEPOINTS = ('\x00', '\x01', '\x08', '\x1b', '\x1f', '\x7f', '\x80', '\x85', '\xa0', '\xff',
               '\u0100', '\u0301', '\u200b', '\u200d', '\u2028', '\u2029', '\u202e', '\ufeff',
               '\ufffd', '\uffff', '\ud800', '\udbff', '\udc00', '\udfff', '\U00010000',
               '\U0001f600', '\U000e0001', '\U0010ffff', '\u00df', '\u0130', '\ufb01', '\u03a3',
               '"', "'", '\\', '/', '{', '}', '[', ']', ':', ',', '%', '\n', '\r', '\t', ' ',
               '0', '9', 'a', 'Z', '_', '.', '-', '+', 'e', '\u00e9', '\u4e2d')
_STRS = ('', ' ', '0', '-0', '1', '1.0', '1e400', '-1e400', 'NaN', 'nan', 'Infinity', '-inf',
         'null', 'None', 'true', 'True', '__proto__', '__class__', '__init__', '\ud83d\ude00',
         '\U0001f600', 'e\u0301', '\ud800', '\x00', '%s%n%x', '../../etc', '${x}', '\u202eabc',
         'a' * 64, '\U0010ffff' * 3, '\r\n', '\\u0000', '0x10', '\u0661\u0662\u0663')
_BYTES = (b'', b'\x00', b'\xff', b'\xff' * 8, b'\x7f', b'\x80', b'\xc3\x28', b'\xed\xa0\x80',
          b'\xef\xbb\xbf', b'\xf4\x90\x80\x80', b'\xc0\x80', b'0', b'\x00' * 16, b'GRV\x01')
_INTERESTING_BYTES = (0, 1, 0x7F, 0x80, 0xFF, 0x20, 0x22, 0x5C, 0xC0, 0xED, 0xF4)

/* SPDX-License-Identifier: MIT */
/*
 * Escaping names for JSON strings and XML text. Frame names come from
 * binaries others wrote: any byte string, not necessarily UTF-8. Both
 * escapers decode UTF-8 strictly (no overlong forms, no surrogates,
 * nothing above U+10FFFF) and write each byte of an invalid sequence as
 * U+FFFD, so the output is always valid UTF-8 and valid JSON / XML.
 */
#ifndef RP_TEXT_ESCAPE_H
#define RP_TEXT_ESCAPE_H

#include <stddef.h>
#include <stdint.h>

#include "report/util.h"

/*
 * Decodes one UTF-8 character of s[0..len). Returns its length (1..4) and
 * sets *cp, or returns 0 when s does not start with a valid sequence
 * (len must be >= 1).
 */
size_t rp_utf8_decode(const unsigned char *s, size_t len, uint32_t *cp);

/* Appends str as a JSON string, quotes included: '"', '\\' and control
 * characters escaped, invalid UTF-8 as U+FFFD. */
void rp_json_str(struct rp_buf *b, const char *str);

/* Appends str as XML character data or an attribute value: & < > " '
 * as entities; characters XML 1.0 does not allow (controls other than tab
 * and newline, U+FFFE, U+FFFF) and invalid UTF-8 as U+FFFD. At most
 * max_chars characters are written (SIZE_MAX: all). */
void rp_xml_text(struct rp_buf *b, const char *str, size_t max_chars);

#endif /* RP_TEXT_ESCAPE_H */

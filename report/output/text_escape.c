// SPDX-License-Identifier: MIT
/* JSON and XML escaping of untrusted names (see text_escape.h). */
#include "report/output/text_escape.h"

#include <stdio.h>
#include <string.h>

size_t rp_utf8_decode(const unsigned char *s, size_t len, uint32_t *cp)
{
	unsigned char c = s[0];
	size_t n;
	uint32_t v, min;
	if (c < 0x80) {
		*cp = c;
		return 1;
	} else if (c >= 0xc2 && c <= 0xdf) {
		n = 2, v = c & 0x1f, min = 0x80;
	} else if (c >= 0xe0 && c <= 0xef) {
		n = 3, v = c & 0x0f, min = 0x800;
	} else if (c >= 0xf0 && c <= 0xf4) {
		n = 4, v = c & 0x07, min = 0x10000;
	} else {
		return 0; /* continuation byte, 0xc0/0xc1 (overlong) or 0xf5.. */
	}
	if (len < n)
		return 0;
	for (size_t i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		v = v << 6 | (s[i] & 0x3f);
	}
	if (v < min || v > 0x10ffff || (v >= 0xd800 && v <= 0xdfff))
		return 0;
	*cp = v;
	return n;
}

static const char replacement[] = "\xef\xbf\xbd"; /* U+FFFD */

void rp_json_str(struct rp_buf *b, const char *str)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t len = strlen(str);
	rp_buf_add(b, "\"", 1);
	for (size_t i = 0; i < len;) {
		uint32_t cp;
		size_t n = rp_utf8_decode(s + i, len - i, &cp);
		if (!n) {
			rp_buf_add(b, replacement, 3);
			i++;
			continue;
		}
		if (cp == '"' || cp == '\\') {
			char e[2] = { '\\', (char)cp };
			rp_buf_add(b, e, 2);
		} else if (cp < 0x20 || cp == 0x7f) {
			char e[8];
			snprintf(e, sizeof(e), "\\u%04x", (unsigned)cp);
			rp_buf_add(b, e, 6);
		} else {
			rp_buf_add(b, (const char *)s + i, n);
		}
		i += n;
	}
	rp_buf_add(b, "\"", 1);
}

void rp_xml_text(struct rp_buf *b, const char *str, size_t max_chars)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t len = strlen(str), chars = 0;
	for (size_t i = 0; i < len && chars < max_chars; chars++) {
		uint32_t cp;
		size_t n = rp_utf8_decode(s + i, len - i, &cp);
		if (!n) {
			rp_buf_add(b, replacement, 3);
			i++;
			continue;
		}
		switch (cp) {
		case '&': rp_buf_adds(b, "&amp;"); break;
		case '<': rp_buf_adds(b, "&lt;"); break;
		case '>': rp_buf_adds(b, "&gt;"); break;
		case '"': rp_buf_adds(b, "&quot;"); break;
		case '\'': rp_buf_adds(b, "&#39;"); break;
		/* kept, but as references: attribute values would fold them */
		case '\t': rp_buf_adds(b, "&#9;"); break;
		case '\n': rp_buf_adds(b, "&#10;"); break;
		case '\r': rp_buf_adds(b, "&#13;"); break;
		default:
			if (cp < 0x20 || cp == 0xfffe || cp == 0xffff)
				rp_buf_add(b, replacement, 3);
			else
				rp_buf_add(b, (const char *)s + i, n);
		}
		i += n;
	}
}

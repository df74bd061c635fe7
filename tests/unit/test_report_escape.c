// SPDX-License-Identifier: MIT
/*
 * The JSON and XML escapers of report/output/text_escape.c on the byte
 * strings binaries can hold: every UTF-8 form that must be refused
 * (overlong, surrogate, above U+10FFFF, truncated, stray continuation),
 * markup, quotes, control characters, and the character limit of labels.
 */
#include <stdio.h>
#include <string.h>

#include "report/output/text_escape.h"

static int failures;

static void check(int ok, const char *name)
{
	printf("%s: %s\n", ok ? "PASS" : "FAIL", name);
	if (!ok)
		failures++;
}

static int json_is(const char *in, const char *want)
{
	struct rp_buf b = { 0 };
	rp_json_str(&b, in);
	int ok = b.p && !strcmp(b.p, want);
	if (!ok)
		printf("  json(%s) = %s, want %s\n", in, b.p ? b.p : "(null)", want);
	rp_buf_free(&b);
	return ok;
}

static int xml_is(const char *in, size_t max, const char *want)
{
	struct rp_buf b = { 0 };
	rp_xml_text(&b, in, max);
	const char *got = b.p ? b.p : "";
	int ok = !strcmp(got, want);
	if (!ok)
		printf("  xml(%s) = %s, want %s\n", in, got, want);
	rp_buf_free(&b);
	return ok;
}

#define R "\xef\xbf\xbd" /* U+FFFD */

int main(void)
{
	uint32_t cp;
	check(rp_utf8_decode((const unsigned char *)"\xc3\xbc", 2, &cp) == 2 && cp == 0xfc,
	      "utf8: two bytes");
	check(rp_utf8_decode((const unsigned char *)"\xf0\x9f\x94\xa5", 4, &cp) == 4 && cp == 0x1f525,
	      "utf8: four bytes");
	check(rp_utf8_decode((const unsigned char *)"\xf4\x8f\xbf\xbf", 4, &cp) == 4 && cp == 0x10ffff,
	      "utf8: U+10FFFF");
	check(!rp_utf8_decode((const unsigned char *)"\xc0\xaf", 2, &cp), "utf8: overlong 2 refused");
	check(!rp_utf8_decode((const unsigned char *)"\xe0\x80\xaf", 3, &cp), "utf8: overlong 3 refused");
	check(!rp_utf8_decode((const unsigned char *)"\xf0\x80\x80\xaf", 4, &cp), "utf8: overlong 4 refused");
	check(!rp_utf8_decode((const unsigned char *)"\xed\xa0\x80", 3, &cp), "utf8: surrogate refused");
	check(!rp_utf8_decode((const unsigned char *)"\xf4\x90\x80\x80", 4, &cp), "utf8: above U+10FFFF refused");
	check(!rp_utf8_decode((const unsigned char *)"\xe2\x82", 2, &cp), "utf8: truncated refused");
	check(!rp_utf8_decode((const unsigned char *)"\x80", 1, &cp), "utf8: stray continuation refused");
	check(!rp_utf8_decode((const unsigned char *)"\xe2\x28\xa1", 3, &cp), "utf8: bad continuation refused");

	check(json_is("plain", "\"plain\""), "json: plain");
	check(json_is("a\"b\\c", "\"a\\\"b\\\\c\""), "json: quote and backslash");
	check(json_is("\x01\t\n\x1f\x7f", "\"\\u0001\\u0009\\u000a\\u001f\\u007f\""), "json: control characters");
	check(json_is("</script>&", "\"</script>&\""), "json: markup is just text");
	check(json_is("f\xc3\xbcr \xf0\x9f\x94\xa5", "\"f\xc3\xbcr \xf0\x9f\x94\xa5\""), "json: UTF-8 kept");
	check(json_is("a\xff" "b\xe2\x82" "c\xed\xa0\x80", "\"a" R "b" R R "c" R R R "\""),
	      "json: each byte of invalid UTF-8 as U+FFFD");
	check(json_is("", "\"\""), "json: empty");

	check(xml_is("a<b>&\"'", SIZE_MAX, "a&lt;b&gt;&amp;&quot;&#39;"), "xml: markup and quotes");
	check(xml_is("]]>", SIZE_MAX, "]]&gt;"), "xml: CDATA end");
	check(xml_is("\x01x\x1b", SIZE_MAX, R "x" R), "xml: controls XML forbids as U+FFFD");
	check(xml_is("\t\n\r", SIZE_MAX, "&#9;&#10;&#13;"), "xml: tab and newlines as references");
	check(xml_is("\xef\xbf\xbe\xef\xbf\xbf", SIZE_MAX, R R), "xml: U+FFFE and U+FFFF as U+FFFD");
	check(xml_is("\xc0\xaf\xfe", SIZE_MAX, R R R), "xml: invalid UTF-8 as U+FFFD");
	check(xml_is("f\xc3\xbc\xc3\xbc<x", 3, "f\xc3\xbc\xc3\xbc"), "xml: a limit counts characters");
	check(xml_is("<<<<", 2, "&lt;&lt;"), "xml: a limit counts escaped characters once");
	return failures ? 1 : 0;
}

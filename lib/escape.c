// SPDX-License-Identifier: MIT
#include "escape.h"

static bool printable(unsigned char c)
{
	return c >= 0x20 && c <= 0x7e;
}

char *wb_escape(char *out, size_t size, const char *in)
{
	static const char hex[] = "0123456789abcdef";
	size_t n = 0;

	for (; *in; in++) {
		unsigned char c = (unsigned char)*in;

		if (printable(c)) {
			if (n + 1 >= size)
				break;
			out[n++] = (char)c;
			continue;
		}
		if (n + 4 >= size)
			break;
		out[n++] = '\\';
		out[n++] = 'x';
		out[n++] = hex[c >> 4];
		out[n++] = hex[c & 15];
	}
	out[n] = 0;
	return out;
}

bool wb_printable(const char *in)
{
	for (; *in; in++)
		if (!printable((unsigned char)*in))
			return false;
	return true;
}

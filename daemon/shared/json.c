// SPDX-License-Identifier: GPL-2.0-only
#include "json.h"

void json_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			fprintf(f, "\\%c", *s);
		else if ((unsigned char)*s < 0x20)
			fprintf(f, "\\u%04x", *s);
		else
			fputc(*s, f);
	}
	fputc('"', f);
}

void json_attr(FILE *f, enum wq_attr a, const struct settings *s)
{
	char buf[300];

	switch (a) {
	case WA_NICE:
	case WA_RTPRIO:
	case WA_MAX_ACTIVE:
	case WA_NR_IDLE_EXTRA:
		fprintf(f, "%ld", s->val[a]);
		break;
	case WA_PRIVATE:
	case WA_AFFINITY_STRICT:
		fputs(s->val[a] ? "true" : "false", f);
		break;
	default:
		attr_format_human(a, s, buf, sizeof(buf));
		json_str(f, buf);
	}
}

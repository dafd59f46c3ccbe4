/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * JSON as wqrtctl's --json documents write it: strings escaped, an
 * attribute as a value of its type, and the version of the documents.
 */
#ifndef WQRT_JSON_H
#define WQRT_JSON_H

#include <stdio.h>

#include "attr.h"

/*
 * The version of every JSON document wqrtctl prints ("schema"): raised
 * when a field changes meaning or goes away, not when one is added.
 */
#define WQRT_JSON_SCHEMA 1

/* A JSON string, escaped */
void json_str(FILE *f, const char *s);
/*
 * Attribute a of s as a JSON value of its type: a number (nice, rtprio,
 * max_active, nr_idle_extra), true/false (private, affinity_strict) or a
 * string (policy, affinity_scope, cpumask as a cpulist).
 */
void json_attr(FILE *f, enum wq_attr a, const struct settings *s);

#endif

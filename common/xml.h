/* SPDX-License-Identifier: MIT */
/* Escaping text for XML, SVG and HTML output. */
#ifndef IOTAPE_COMMON_XML_H
#define IOTAPE_COMMON_XML_H

#include <stddef.h>
#include <stdio.h>

/*
 * Write s with &, <, >, " and ' escaped. Bytes that XML 1.0 forbids (control characters other
 * than tab, newline and carriage return) and malformed UTF-8 become U+FFFD, so text from a
 * manifest or a trace (process names, device names) can never break the document.
 */
void xml_puts(FILE *f, const char *s);
void xml_putn(FILE *f, const char *s, size_t len);

#endif

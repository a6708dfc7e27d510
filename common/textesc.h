/* SPDX-License-Identifier: MIT */
/* Escaping text for terminals, text files, Markdown and CSV: control bytes made visible. */
#ifndef IOTAPE_COMMON_TEXTESC_H
#define IOTAPE_COMMON_TEXTESC_H

#include <stddef.h>
#include <stdio.h>

/*
 * Strings from traces, captures and manifests (process names, host names, kernel strings,
 * labels) must not reach a terminal raw: an ESC sequence recolours it or sets its title, a
 * newline breaks a table. Every text renderer writes them through here:
 *   - C0 controls and DEL become \n, \t, \r or \xHH; malformed UTF-8 bytes \xHH;
 *   - C1 controls (U+0080-U+009F) and the bidirectional overrides and isolates (U+200E,
 *     U+200F, U+202A-U+202E, U+2066-U+2069, which reorder what a reader sees) \uHHHH;
 *   - everything else, valid UTF-8 included, is written as it is.
 */
void txt_puts(FILE *f, const char *s);
/* The same into buf (always terminated; cut at a whole escape); returns buf. */
char *txt_escape(const char *s, char *buf, size_t cap);
/* The same, allocated (NULL without memory). */
char *txt_strdup(const char *s);

/* A Markdown table cell: escaped as above, and | \ * _ ` with a backslash. */
void txt_md_puts(FILE *f, const char *s);

/*
 * A CSV field (RFC 4180): escaped as above, quoted when it holds a comma, quote or space at
 * either end, and neutralised against formula injection (OWASP): a field that starts with
 * =, +, -, @ (or a tab or carriage return, escaped anyway) gets a leading apostrophe, so a
 * spreadsheet shows it as text. For text fields; numbers we format ourselves go as they are.
 */
void txt_csv_puts(FILE *f, const char *s);
/* The same into memory at p, which has room for TXT_CSV_MAX(strlen(s)) bytes (an escape is
 * at most 4 bytes per byte, plus the quotes and the apostrophe); returns the end (no NUL). */
#define TXT_CSV_MAX(n) (4 * (size_t)(n) + 3)
char *txt_csv_put(char *p, const char *s);

#endif

/* references — Markdown knowledge files embedded in the binary at build time (embed_references.py) and
 * served by server/resources.c as MCP resources (text/markdown). Immutable; thread-safe. */
#ifndef NL_REFERENCES_H
#define NL_REFERENCES_H

#include <stddef.h>

typedef struct nl_reference {
    const char *name;        /* file stem; URI is neuronlens://references/<name> */
    const char *title;       /* first "# " heading */
    const char *description; /* first paragraph */
    const char *text;        /* whole file, UTF-8 */
    size_t size;             /* bytes of text */
} nl_reference;

extern const nl_reference nl_references[];
extern const unsigned nl_reference_count;

#endif

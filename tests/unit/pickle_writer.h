/* pickle_writer — test helper: hand-built pickles in Python's protocol-4 layout (tests/unit/test_pickle.c,
 * test_memory_snapshot.c). The buffer grows with realloc and aborts the test on failure; `memo` counts the
 * MEMOIZE opcodes written through pw_memoize / pw_dict / pw_list so memo reads can name their index. */
#ifndef NL_TEST_PICKLE_WRITER_H
#define NL_TEST_PICKLE_WRITER_H

#include <stddef.h>
#include <stdint.h>

typedef struct pw {
    unsigned char *b;
    size_t n, cap;
    uint32_t memo;
} pw;

void pw_raw(pw *w, const void *p, size_t n);
void pw_u8(pw *w, unsigned v);
void pw_le(pw *w, uint64_t v, unsigned n);
void pw_ops(pw *w, const char *ops);    /* opcode bytes as a C string */
void pw_str(pw *w, const char *s);      /* SHORT_BINUNICODE or BINUNICODE */
void pw_int(pw *w, int64_t v);          /* BININT1 / BININT2 / BININT / LONG1 as Python picks */
void pw_float(pw *w, double v);         /* BINFLOAT */
void pw_bool(pw *w, int v);             /* NEWTRUE / NEWFALSE */
void pw_proto(pw *w);                   /* PROTO 4 */
uint32_t pw_memoize(pw *w);             /* MEMOIZE; returns the index */
void pw_get(pw *w, uint32_t idx);       /* BINGET / LONG_BINGET */
uint32_t pw_dict(pw *w);                /* EMPTY_DICT MEMOIZE MARK; returns the dict's memo index */
void pw_dict_end(pw *w);                /* SETITEMS */
uint32_t pw_list(pw *w);                /* EMPTY_LIST MEMOIZE MARK */
void pw_list_end(pw *w);                /* APPENDS */
void pw_free(pw *w);

#endif

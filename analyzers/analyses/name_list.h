/* name_list — distinct names written as "a, b, c" into a caller's buffer, ending with ", …" when the buffer
 * is full: the accepted values that trace-extract's argument errors list (the `engines` of the timeline
 * adapters, timeline_kinds.h). Pure; the buffer is the only state. */
#ifndef NL_NAME_LIST_H
#define NL_NAME_LIST_H

#include <stdbool.h>
#include <stddef.h>

typedef struct name_list {
    char *buf;
    size_t cap, used;
    size_t reserve; /* a name is written only when this many bytes stay free after it */
    bool fold_case; /* names equal but for ASCII case count as one */
    bool full;      /* a name did not fit: nothing more is added */
} name_list;

/* Start an empty list in buf[0, cap). A buffer under 2 × reserve bytes starts full. */
void name_list_init(name_list *l, char *buf, size_t cap, size_t reserve, bool fold_case);
/* Append `name` unless it is NULL, empty, already listed or the list is full. */
void name_list_add(name_list *l, const char *name);

#endif

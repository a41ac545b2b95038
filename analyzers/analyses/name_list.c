/* name_list — see name_list.h. */
#include "name_list.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

#define NAME_LIST_MORE ", \xe2\x80\xa6" /* ", …" */

void name_list_init(name_list *l, char *buf, size_t cap, size_t reserve, bool fold_case)
{
    *l = (name_list){buf, cap, 0, reserve, fold_case, cap < 2 * reserve};
    if (cap)
        buf[0] = '\0';
}

static bool name_list_has(const name_list *l, const char *name)
{
    size_t n = strlen(name);
    for (const char *p = l->buf; p && *p;) {
        size_t len = strcspn(p, ",");
        if (len == n && !(l->fold_case ? strncasecmp(p, name, n) : strncmp(p, name, n)))
            return true;
        p += len;
        p += *p == ',' ? 2 : 0;
    }
    return false;
}

void name_list_add(name_list *l, const char *name)
{
    if (!name || !*name || l->full || name_list_has(l, name))
        return;
    int w = snprintf(l->buf + l->used, l->cap - l->used, "%s%s", l->used ? ", " : "", name);
    if (w < 0 || (size_t)w + l->reserve >= l->cap - l->used) {
        l->buf[l->used] = '\0';
        if (l->cap - l->used >= sizeof NAME_LIST_MORE)
            strcpy(l->buf + l->used, &NAME_LIST_MORE[l->used ? 0 : 2]); /* no ", " before the first name */
        l->full = true;
        return;
    }
    l->used += (size_t)w;
}

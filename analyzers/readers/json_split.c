/* json_split — see json_split.h.
 *
 * Why: cutting a 1 GB export between records needs to know, for a byte offset, whether it is inside a
 * string. Only a scan from the start can tell, so this scan must be much cheaper than parsing: it runs at
 * ~4 GB/s on the 2.3 GHz VM of issue 6 (0.25 s CPU for a 1.1 GB export, vs ~1.9 s for the full parse).
 *
 * Method (the first stage of simdjson, Langdale & Lemire 2019, in portable C with SSE2): for each block of
 * 64 bytes, build bit masks of backslashes, quotes and brackets ('{'/'[' and '}'/']', found together by
 * OR-ing 0x20: '[' | 0x20 == '{', ']' | 0x20 == '}'). Then
 *   escaped   = the characters preceded by an odd run of backslashes (find_escaped below; the run may
 *               continue from the previous block, carried in `prev_escaped`);
 *   quotes    = quote bits that are not escaped;
 *   in_string = prefix XOR of `quotes` (bit i set when an odd number of quotes precede or sit at i),
 *               flipped when the previous block ended inside a string;
 *   brackets outside strings = brackets & ~in_string.
 * Blocks without a structural bracket (most of them: a 900-byte instruction record has two) cost a few
 * dozen instructions; the others walk their bracket bits one by one to track the depth and report events.
 * The last partial block is copied into a 64-byte buffer padded with spaces. */
#include "json_split.h"

#include <string.h>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

typedef struct js_masks {
    uint64_t backslash, quote, open, close;
} js_masks;

#if defined(__SSE2__)
static inline uint64_t jsp_eq16(__m128i v, char c)
{
    return (uint64_t)(uint16_t)_mm_movemask_epi8(_mm_cmpeq_epi8(v, _mm_set1_epi8(c)));
}
#endif

static inline void jsp_block_masks(const unsigned char *p, js_masks *m)
{
#if defined(__SSE2__)
    m->backslash = m->quote = m->open = m->close = 0;
    for (int k = 0; k < 4; k++) {
        __m128i v = _mm_loadu_si128((const __m128i *)(const void *)(p + 16 * k));
        __m128i lower = _mm_or_si128(v, _mm_set1_epi8(0x20));
        m->backslash |= jsp_eq16(v, '\\') << (16 * k);
        m->quote |= jsp_eq16(v, '"') << (16 * k);
        m->open |= jsp_eq16(lower, '{') << (16 * k);
        m->close |= jsp_eq16(lower, '}') << (16 * k);
    }
#else
    m->backslash = m->quote = m->open = m->close = 0;
    for (int i = 0; i < 64; i++) {
        unsigned char c = p[i];
        uint64_t bit = (uint64_t)1 << i;
        if (c == '\\')
            m->backslash |= bit;
        else if (c == '"')
            m->quote |= bit;
        else if ((c | 0x20) == '{')
            m->open |= bit;
        else if ((c | 0x20) == '}')
            m->close |= bit;
    }
#endif
}

/* The characters escaped by a backslash (simdjson's find_escaped): runs of backslashes escape every other
 * character, and an odd run escapes the character after it. *prev_escaped (0 or 1) carries "the first byte
 * of this block is escaped" from the previous block. */
static inline uint64_t jsp_escaped(uint64_t backslash, uint64_t *prev_escaped)
{
    const uint64_t even_bits = 0x5555555555555555ull;
    backslash &= ~*prev_escaped;
    uint64_t follows_escape = backslash << 1 | *prev_escaped;
    uint64_t odd_sequence_starts = backslash & ~even_bits & ~follows_escape;
    uint64_t sequences_starting_on_even_bits;
    *prev_escaped = __builtin_add_overflow(odd_sequence_starts, backslash, &sequences_starting_on_even_bits);
    uint64_t invert_mask = sequences_starting_on_even_bits << 1;
    return (even_bits ^ invert_mask) & follows_escape;
}

static inline uint64_t jsp_prefix_xor(uint64_t x)
{
    x ^= x << 1;
    x ^= x << 2;
    x ^= x << 4;
    x ^= x << 8;
    x ^= x << 16;
    x ^= x << 32;
    return x;
}

static int jsp_is_ws(char c)
{
    return c == ' ' || c == '\n' || c == '\r' || c == '\t';
}

/* The member name before the '[' at `open`: `"name" ws : ws [`. Sets *key and *len (raw bytes between the
 * quotes) or leaves *key NULL when the bytes do not have that shape or the name is too long. */
static void jsp_key_before(const char *data, size_t open, const char **key, size_t *len)
{
    *key = NULL;
    *len = 0;
    size_t i = open;
    while (i > 0 && jsp_is_ws(data[i - 1]))
        i--;
    if (i == 0 || data[i - 1] != ':')
        return;
    i--;
    while (i > 0 && jsp_is_ws(data[i - 1]))
        i--;
    if (i == 0 || data[i - 1] != '"')
        return;
    size_t close = i - 1;
    for (size_t q = close; q > 0 && close - q <= JSON_SPLIT_KEY_MAX;) {
        q--;
        if (data[q] != '"')
            continue;
        size_t bs = 0;
        while (q > bs && data[q - 1 - bs] == '\\')
            bs++;
        if (bs % 2 == 0) {
            *key = data + q + 1;
            *len = close - q - 1;
            return;
        }
    }
}

typedef struct jsp_state {
    const char *data;
    json_split_fn fn;
    void *ctx;
    uint64_t depth;
    int top_is_object;
    int in_member_array; /* the container at depth 2 is an array member of the top-level object */
} jsp_state;

/* Track one structural bracket at `off`; nonzero return stops the scan (1) or reports imbalance (-1). */
static int jsp_bracket(jsp_state *s, size_t off, int is_open)
{
    char c = s->data[off];
    if (is_open) {
        switch (s->depth++) {
        case 0: s->top_is_object = c == '{'; return 0;
        case 1:
            s->in_member_array = s->top_is_object && c == '[';
            if (s->in_member_array) {
                const char *key;
                size_t len;
                jsp_key_before(s->data, off, &key, &len);
                return s->fn(s->ctx, JSON_SPLIT_ARRAY_OPEN, off, key, len) ? 1 : 0;
            }
            return 0;
        case 2: return s->in_member_array && s->fn(s->ctx, JSON_SPLIT_ELEMENT_OPEN, off, NULL, 0) ? 1 : 0;
        default: return 0;
        }
    }
    switch (s->depth) {
    case 0: return -1;
    case 3:
        s->depth--;
        return s->in_member_array && s->fn(s->ctx, JSON_SPLIT_ELEMENT_CLOSE, off, NULL, 0) ? 1 : 0;
    case 2:
        s->depth--;
        if (!s->in_member_array)
            return 0;
        s->in_member_array = 0;
        return s->fn(s->ctx, JSON_SPLIT_ARRAY_CLOSE, off, NULL, 0) ? 1 : 0;
    default: s->depth--; return 0;
    }
}

int json_split_scan(const char *data, size_t len, json_split_fn fn, void *ctx)
{
    jsp_state s = {.data = data, .fn = fn, .ctx = ctx};
    uint64_t prev_escaped = 0, prev_in_string = 0;
    size_t next_progress = JSON_SPLIT_PROGRESS_STEP;
    unsigned char tail[64];
    for (size_t base = 0; base < len; base += 64) {
        const unsigned char *p = (const unsigned char *)data + base;
        if (len - base < 64) {
            memset(tail, ' ', sizeof tail);
            memcpy(tail, p, len - base);
            p = tail;
        }
        js_masks m;
        jsp_block_masks(p, &m);
        uint64_t escaped = (m.backslash | prev_escaped) ? jsp_escaped(m.backslash, &prev_escaped) : 0;
        uint64_t in_string = jsp_prefix_xor(m.quote & ~escaped) ^ prev_in_string;
        prev_in_string = (uint64_t)((int64_t)in_string >> 63);
        uint64_t opens = m.open & ~in_string, closes = m.close & ~in_string;
        for (uint64_t b = opens | closes; b; b &= b - 1) {
            unsigned i = (unsigned)__builtin_ctzll(b);
            int rc = jsp_bracket(&s, base + i, (int)((opens >> i) & 1));
            if (rc)
                return rc;
        }
        if (base + 64 >= next_progress) {
            next_progress += JSON_SPLIT_PROGRESS_STEP;
            if (fn(ctx, JSON_SPLIT_PROGRESS, base + 64 < len ? base + 64 : len, NULL, 0))
                return 1;
        }
    }
    return s.depth == 0 ? 0 : -1;
}

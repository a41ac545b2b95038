/* json_split — see json_split.h.
 *
 * Why: cutting a 1 GB export between records needs to know, for a byte offset, whether it is inside a
 * string. Only a scan from the start can tell, so this scan must be much cheaper than parsing (several
 * times faster per byte; bench/RESULTS.md has the numbers).
 *
 * Method (the first stage of simdjson, Langdale & Lemire 2019; SSE2, or AVX2 + PCLMUL when the CPU has
 * them): for each block of 64 bytes, build bit masks of backslashes, quotes and brackets ('{'/'[' and '}'/']', found together by
 * OR-ing 0x20: '[' | 0x20 == '{', ']' | 0x20 == '}'). Then
 *   escaped   = the characters preceded by an odd run of backslashes (find_escaped below; the run may
 *               continue from the previous block, carried in `prev_escaped`);
 *   quotes    = quote bits that are not escaped;
 *   in_string = prefix XOR of `quotes` (bit i set when an odd number of quotes precede or sit at i),
 *               flipped when the previous block ended inside a string;
 *   brackets outside strings = brackets & ~in_string.
 * Blocks without a structural bracket (most of them: a 900-byte instruction record has two) cost a few
 * dozen instructions; the others walk their bracket bits one by one to track the depth and report events.
 * The last partial block is copied into a 64-byte buffer padded with spaces. The state between blocks (an
 * escape pending, inside a string, the depth) lives in json_split, so the text may come in pieces. */
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

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define JSP_AVX2 1
/* The same masks 32 bytes at a time where the CPU has AVX2 (checked at run time; the build targets the
 * x86-64 baseline). Halves the compare work. */
__attribute__((target("avx2,pclmul"))) static inline uint64_t jsp_eq32(__m256i v, char c)
{
    return (uint64_t)(uint32_t)_mm256_movemask_epi8(_mm256_cmpeq_epi8(v, _mm256_set1_epi8(c)));
}

__attribute__((target("avx2,pclmul"))) static inline void jsp_block_masks_avx2(const unsigned char *p, js_masks *m)
{
    __m256i lo = _mm256_loadu_si256((const __m256i *)(const void *)p);
    __m256i hi = _mm256_loadu_si256((const __m256i *)(const void *)(p + 32));
    __m256i case_bit = _mm256_set1_epi8(0x20);
    __m256i llo = _mm256_or_si256(lo, case_bit), lhi = _mm256_or_si256(hi, case_bit);
    m->backslash = jsp_eq32(lo, '\\') | jsp_eq32(hi, '\\') << 32;
    m->quote = jsp_eq32(lo, '"') | jsp_eq32(hi, '"') << 32;
    m->open = jsp_eq32(llo, '{') | jsp_eq32(lhi, '{') << 32;
    m->close = jsp_eq32(llo, '}') | jsp_eq32(lhi, '}') << 32;
}

/* Prefix XOR with one carry-less multiply by all ones. */
__attribute__((target("avx2,pclmul"))) static inline uint64_t jsp_prefix_xor_clmul(uint64_t x)
{
    __m128i v = _mm_set_epi64x(0, (long long)x);
    return (uint64_t)_mm_cvtsi128_si64(_mm_clmulepi64_si128(v, _mm_set1_epi8((char)0xFF), 0));
}
#else
#define JSP_AVX2 0
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

/* The member name before the '[' at data[open]: `"name" ws : ws [`, looking back no further than data[lo].
 * Sets *key and *len (raw bytes between the quotes) or leaves *key NULL when the bytes do not have that
 * shape within reach or the name is too long. */
static void jsp_key_before(const char *data, size_t lo, size_t open, const char **key, size_t *len)
{
    *key = NULL;
    *len = 0;
    size_t i = open;
    while (i > lo && jsp_is_ws(data[i - 1]))
        i--;
    if (i == lo || data[i - 1] != ':')
        return;
    i--;
    while (i > lo && jsp_is_ws(data[i - 1]))
        i--;
    if (i == lo || data[i - 1] != '"')
        return;
    size_t close = i - 1;
    for (size_t q = close; q > lo && close - q <= JSON_SPLIT_KEY_MAX;) {
        q--;
        if (data[q] != '"')
            continue;
        size_t bs = 0;
        while (q - bs > lo && data[q - 1 - bs] == '\\')
            bs++;
        if (q - bs == lo && bs > 0)
            return; /* the run of backslashes may continue before the window */
        if (bs % 2 == 0) {
            *key = data + q + 1;
            *len = close - q - 1;
            return;
        }
    }
}

/* Track one structural bracket at absolute offset `off`; nonzero return stops the scan (1) or reports
 * imbalance (-1). */
static int jsp_bracket(json_split *s, size_t off, int is_open)
{
    const char *at = s->win + (off - s->win_base);
    char c = *at;
    if (is_open) {
        switch (s->depth++) {
        case 0: s->top_is_object = c == '{'; return 0;
        case 1:
            s->in_member_array = s->top_is_object && c == '[';
            if (s->in_member_array) {
                const char *key;
                size_t len;
                const char *lo = s->win - s->win_before;
                jsp_key_before(lo, 0, (size_t)(at - lo), &key, &len);
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

/* The scan loop, instantiated twice below: with the AVX2 + PCLMUL block functions inlined (one carry-less
 * multiply does the prefix XOR), and with the baseline ones. A call per 64-byte block to a target-specific
 * function cost ~7% of a split read's samples (perf), hence the two instantiations. */
#define JSP_SIMD 0x100u /* json_split.flags: the CPU has AVX2 and PCLMUL, and JSON_SPLIT_PORTABLE is off */

#if JSP_AVX2
#define JSP_INLINE static inline __attribute__((always_inline))
#else
#define JSP_INLINE static inline
#endif

JSP_INLINE int jsp_scan(json_split *s, const char *data, size_t len, int simd)
{
    uint64_t prev_escaped = s->prev_escaped, prev_in_string = s->prev_in_string;
    unsigned char tail[64];
    int rc = 0;
    for (size_t i = 0; i < len && !rc; i += 64) {
        const unsigned char *p = (const unsigned char *)data + i;
        if (len - i < 64) {
            memset(tail, ' ', sizeof tail);
            memcpy(tail, p, len - i);
            p = tail;
        }
        js_masks m;
        uint64_t in_string;
#if JSP_AVX2
        if (simd) {
            jsp_block_masks_avx2(p, &m);
            uint64_t escaped = (m.backslash | prev_escaped) ? jsp_escaped(m.backslash, &prev_escaped) : 0;
            in_string = jsp_prefix_xor_clmul(m.quote & ~escaped) ^ prev_in_string;
        } else
#endif
        {
            (void)simd;
            jsp_block_masks(p, &m);
            uint64_t escaped = (m.backslash | prev_escaped) ? jsp_escaped(m.backslash, &prev_escaped) : 0;
            in_string = jsp_prefix_xor(m.quote & ~escaped) ^ prev_in_string;
        }
        prev_in_string = (uint64_t)((int64_t)in_string >> 63);
        uint64_t opens = m.open & ~in_string, closes = m.close & ~in_string;
        size_t base = s->scanned + i;
        for (uint64_t b = opens | closes; b && !rc; b &= b - 1) {
            unsigned k = (unsigned)__builtin_ctzll(b);
            rc = jsp_bracket(s, base + k, (int)((opens >> k) & 1));
        }
        size_t done = base + (len - i < 64 ? len - i : 64);
        if (!rc && done >= s->next_progress) {
            s->next_progress += JSON_SPLIT_PROGRESS_STEP;
            rc = s->fn(s->ctx, JSON_SPLIT_PROGRESS, done, NULL, 0) ? 1 : 0;
        }
    }
    s->prev_escaped = prev_escaped;
    s->prev_in_string = prev_in_string;
    return rc;
}

static int jsp_scan_baseline(json_split *s, const char *data, size_t len)
{
    return jsp_scan(s, data, len, 0);
}

#if JSP_AVX2
__attribute__((target("avx2,pclmul"))) static int jsp_scan_simd(json_split *s, const char *data, size_t len)
{
    return jsp_scan(s, data, len, 1);
}
#endif

void json_split_init(json_split *s, json_split_fn fn, void *ctx, unsigned flags)
{
    memset(s, 0, sizeof *s);
    s->fn = fn;
    s->ctx = ctx;
    s->flags = flags;
    s->next_progress = JSON_SPLIT_PROGRESS_STEP;
#if JSP_AVX2
    if (!(flags & JSON_SPLIT_PORTABLE) && __builtin_cpu_supports("avx2") && __builtin_cpu_supports("pclmul"))
        s->flags |= JSP_SIMD;
#endif
}

int json_split_feed(json_split *s, const char *data, size_t len, size_t before, int last)
{
    s->win = data;
    s->win_base = s->scanned;
    s->win_before = before < s->scanned ? before : s->scanned;
    int rc;
#if JSP_AVX2
    if (s->flags & JSP_SIMD)
        rc = jsp_scan_simd(s, data, len);
    else
#endif
        rc = jsp_scan_baseline(s, data, len);
    s->scanned += len;
    if (rc)
        return rc;
    return last && s->depth != 0 ? -1 : 0;
}

int json_split_scan(const char *data, size_t len, json_split_fn fn, void *ctx)
{
    return json_split_scan_with(data, len, fn, ctx, 0);
}

int json_split_scan_with(const char *data, size_t len, json_split_fn fn, void *ctx, unsigned flags)
{
    json_split s;
    json_split_init(&s, fn, ctx, flags);
    return json_split_feed(&s, data, len, 0, 1);
}

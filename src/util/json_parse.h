/* A small strict JSON (RFC 8259) reader: validates one document and reports every scalar leaf with its path
 * ("fields.Name", "fields.Arr[1].x"). Used to read JSON Lines baselines back (src/diff/) and by the tests;
 * the project's dependencies include no JSON library. Nesting is limited to 128 levels, paths to 4 KiB. */
#ifndef ETL_UTIL_JSON_PARSE_H
#define ETL_UTIL_JSON_PARSE_H

#include <stddef.h>

/* `value` is the decoded string (is_string = 1) or the literal text of a number/true/false/null. */
typedef void (*etl_json_leaf_fn)(const char *path, const char *value, int is_string, void *ctx);

/* Returns 0 when text[0..length) is exactly one valid JSON value (surrounding whitespace allowed). */
int etl_json_parse(const char *text, size_t length, etl_json_leaf_fn fn, void *ctx);

#endif

/* A small strict JSON (RFC 8259) reader for tests: validates one document and reports every scalar leaf
 * with its path ("fields.Name", "fields.Arr[1].x"). Written for the tests because the project's
 * dependencies include no JSON library. */
#ifndef TESTS_SUPPORT_JSON_PARSE_H
#define TESTS_SUPPORT_JSON_PARSE_H

#include <stddef.h>

/* `value` is the decoded string (is_string = 1) or the literal text of a number/true/false/null. */
typedef void (*json_leaf_fn)(const char *path, const char *value, int is_string, void *ctx);

/* Returns 0 when text[0..length) is exactly one valid JSON value (surrounding whitespace allowed). */
int json_parse(const char *text, size_t length, json_leaf_fn fn, void *ctx);

#endif

/* The tests' JSON reader is the library's (src/util/json_parse.h), under its old names. */
#ifndef TESTS_SUPPORT_JSON_PARSE_H
#define TESTS_SUPPORT_JSON_PARSE_H

#include "util/json_parse.h"

typedef etl_json_leaf_fn json_leaf_fn;
#define json_parse etl_json_parse

#endif

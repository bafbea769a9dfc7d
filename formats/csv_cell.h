/* One CSV cell (formats/csv.c): RFC 4180 quoting by libcsv's csv_write for a cell that holds a comma, quote,
 * CR, LF or a leading/trailing space or tab, or --csv-compat's form (", " separators, right-aligned to
 * `width`, CR/LF as spaces, nothing quoted). Malformed UTF-8 becomes U+FFFD. */
#ifndef ETL_FORMATS_CSV_CELL_H
#define ETL_FORMATS_CSV_CELL_H

#include "format_util.h"

/* Appends the separator (unless it is the line's first cell) and the cell. value NULL writes "". */
void fmt_csv_cell(fmt_line_writer *st, const char *value, int width);

/* The same through the general path only (validation, quoting decision, libcsv): fmt_csv_cell skips it for
 * plain ASCII text that provably needs none of it; tests/test_csv_cells.c checks both give the same bytes
 * on every corpus value. */
void fmt_csv_cell_general(fmt_line_writer *st, const char *value, int width);

#endif

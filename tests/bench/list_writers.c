/* Prints the name of every registered writer (formats/registry.c), one a line, for `make bench`. */
#include <stdio.h>

#include "etl/etl_writer.h"

int main(void)
{
    for (size_t i = 0; i < etl_writer_format_count(); i++) puts(etl_writer_format_at(i)->name);
    return 0;
}

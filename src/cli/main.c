/* etlconv — command-line converter (placeholder entry point until the CLI lands). */
#include <stdio.h>
#include <string.h>

#include "etl/etl.h"

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "--version") == 0) {
        printf("etlconv %s\n", ETL_VERSION_STRING);
        return 0;
    }
    fprintf(stderr, "etlconv: not implemented yet\n");
    return 2;
}

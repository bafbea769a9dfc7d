/* etlconv — command-line converter (placeholder entry point until the CLI lands). */
#include <stdio.h>
#include <string.h>

#include "cli/info.h"
#include "etl/etl.h"

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "--version") == 0) {
        printf("etlconv %s\n", ETL_VERSION_STRING);
        return 0;
    }
    if (argc > 2 && strcmp(argv[argc - 1], "--info") == 0) return etlconv_info(argc - 2, argv + 1, stdout);
    if (argc > 2 && strcmp(argv[1], "--info") == 0) return etlconv_info(argc - 2, argv + 2, stdout);
    fprintf(stderr, "etlconv: not implemented yet\n");
    return 2;
}

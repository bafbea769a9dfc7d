/* `etlconv diff OLD NEW`: parses the command line, wires the sides and writes the reports (src/diff/). */
#ifndef ETLCONV_DIFF_CMD_H
#define ETLCONV_DIFF_CMD_H

/* argv[0] is "diff". Returns 0 (same), 1 (different) or 2 (trouble, message printed). */
int etlconv_diff_main(int argc, char **argv);

#endif

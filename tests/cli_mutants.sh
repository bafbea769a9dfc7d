#!/bin/sh
# Mutation test (issue 11): damaged and hostile copies of corpus traces by class (tests/support/mutants.py says
# which); no signal, no sanitizer report, every damaged input reported with exit 1 or 2, output and memory
# bounded. Under `make sanitize` ETLCONV is the ASan+UBSan build.
. tests/tap_helpers.sh
python3 tests/support/mutants.py "$ETLCONV" "$T"

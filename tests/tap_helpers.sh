# Sourced by the tests/cli_*.sh scripts: TAP helpers and a scratch directory removed on exit.
ETLCONV=${ETLCONV:-build/etlconv}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
n=0
ok() { n=$((n+1)); if [ "$1" = 0 ]; then echo "ok $n - $2"; else echo "not ok $n - $2"; fi; }
check() { n=$((n+1)); if [ "$1" = "$2" ]; then echo "ok $n - $3"; else echo "not ok $n - $3: got '$1', want '$2'"; fi; }

#!/bin/sh
# Times an ETL reader you have installed next to etlconv on the same trace and prints the ratio.
#
#   tests/bench/peer_compare.sh [-r ROUNDS] [-f FORMAT] TRACE.etl PEER-COMMAND [ARG...]
#
# "{}" in the peer's arguments is replaced by the trace (appended when absent). Both programs write to a pipe
# that is counted and dropped; the median of ROUNDS (default 3) runs is reported: wall seconds, CPU seconds,
# peak RSS (getrusage) and the peer/etlconv wall-time ratio. Build a large input with
# `build/bench/gen_trace SOURCE.etl.gz OUT.etl --mb 1024` (or run `make bench`, which leaves its inputs in
# build/bench/data/). Peers are not fetched or built by this project; for example:
#   pip install etl-parser                       # airbus-cert's pure-Python reader; peer command: etl2xml -i {}
#     (without PyPI: apt-get install python3-construct, a git checkout of airbus-cert/etl-parser, and a wrapper
#     running PYTHONPATH=CHECKOUT python3 CHECKOUT/bin/etl2xml -i "$1" -o /dev/stdout; BENCHMARKS.md has a run)
#   (Windows) tracerpt {} -o out.xml -of XML -y  # to compare with the tool etlconv replaces
# Example: tests/bench/peer_compare.sh build/bench/data/net.4.5.2.x86.256MB.etl etl2xml -i {}
set -eu
BUILD=${BUILD:-build}
ETLCONV=${ETLCONV:-$BUILD/etlconv}
ROUNDS=3
FORMAT=xml
while [ $# -gt 0 ]; do
    case $1 in
    -r) ROUNDS=$2; shift 2 ;;
    -f) FORMAT=$2; shift 2 ;;
    *) break ;;
    esac
done
[ $# -ge 2 ] || { sed -n '2,15p' "$0"; exit 2; }
trace=$1
shift
[ -x "$BUILD/bench/bench_run" ] || make -s --no-print-directory "$BUILD/bench/bench_run"
command -v "$1" > /dev/null 2>&1 || { echo "peer_compare: '$1' is not installed" >&2; exit 2; }
has_placeholder=no
for a in "$@"; do
    if [ "$a" = "{}" ]; then has_placeholder=yes; fi
done
# measure CMD...: the median run as "wall cpu rss_kib output_bytes exit"
measure() {
    i=0
    : > "$tmp/runs"
    while [ $i -lt "$ROUNDS" ]; do
        /usr/bin/time -f '%U %S' -o "$tmp/cpu" "$BUILD/bench/bench_run" "$@" > "$tmp/one"
        read -r wall rss bytes status < "$tmp/one"
        cpu=$(awk '{ print $1 + $2 }' "$tmp/cpu")
        echo "$wall $cpu $rss $bytes $status" >> "$tmp/runs"
        i=$((i + 1))
    done
    sort -n "$tmp/runs" | awk '{ l[NR] = $0 } END { print l[int((NR + 1) / 2)] }'
}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
args=""
for a in "$@"; do
    if [ "$a" = "{}" ]; then a=$trace; fi
    args="$args $(printf '%s' "$a" | sed "s/'/'\\\\''/g; s/^/'/; s/\$/'/")"
done
[ "$has_placeholder" = yes ] || args="$args '$trace'"
mb=$(wc -c < "$trace" | awk '{ printf "%.1f", $1 / 1e6 }')
e=$(measure "$ETLCONV" -q -of "$FORMAT" "$trace")
eval "p=\$(measure $args)"
printf 'trace %s (%s MB), median of %s runs\n' "$trace" "$mb" "$ROUNDS"
printf '%-10s %9s %9s %10s %12s %s\n' program wall_s cpu_s rss_MiB output_MB exit
echo "$e" | awk '{ printf "%-10s %9.2f %9.2f %10.1f %12.1f %s\n", "etlconv", $1, $2, $3 / 1024, $4 / 1e6, $5 }'
echo "$p" | awk -v n="$1" '{ printf "%-10s %9.2f %9.2f %10.1f %12.1f %s\n", substr(n, 1, 10), $1, $2, $3 / 1024, $4 / 1e6, $5 }'
printf '%s\n%s\n' "$e" "$p" | awk 'NR == 1 { w = $1 } NR == 2 { printf "peer / etlconv wall time: %.2fx\n", $1 / w }'

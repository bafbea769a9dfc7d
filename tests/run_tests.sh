#!/bin/sh
# Runs every cmocka test binary given as arguments and every tests/cli_*.sh script, then prints one
# closing line "N passed, N failed". Exit status is non-zero when anything failed.
passed=0; failed=0; failed_names=""; timing=""; started=$(date +%s)
for t in "$@"; do
  [ -x "$t" ] || continue
  echo "== $t"
  t0=$(date +%s)
  out=$("$t" 2>&1); rc=$?
  timing="$timing$(( $(date +%s) - t0 )) s $t\n"
  printf '%s\n' "$out"
  n_pass=$(printf '%s\n' "$out" | sed -n 's/^\[  PASSED  \] \([0-9][0-9]*\) test.*/\1/p' | tail -1)
  n_fail=$(printf '%s\n' "$out" | sed -n 's/^\[  FAILED  \] \([0-9][0-9]*\) test.*/\1/p' | tail -1)
  passed=$((passed + ${n_pass:-0})); failed=$((failed + ${n_fail:-0}))
  if [ $rc -ne 0 ] && [ -z "$n_fail" ]; then failed=$((failed + 1)); fi
  [ $rc -ne 0 ] && failed_names="$failed_names $t"
done
for s in tests/cli_*.sh; do
  [ -f "$s" ] || continue
  echo "== $s"
  t0=$(date +%s)
  out=$(sh "$s" 2>&1); rc=$?
  timing="$timing$(( $(date +%s) - t0 )) s $s\n"
  printf '%s\n' "$out"
  n_pass=$(printf '%s\n' "$out" | grep -c '^ok ')
  n_fail=$(printf '%s\n' "$out" | grep -c '^not ok ')
  passed=$((passed + n_pass)); failed=$((failed + n_fail))
  if [ $rc -ne 0 ] && [ "$n_fail" -eq 0 ]; then failed=$((failed + 1)); fi
  [ $rc -ne 0 ] && failed_names="$failed_names $s"
done
# Wall seconds per test, slowest first: CI has 30 minutes for make check and make sanitize together.
echo "== slowest tests (wall s)"
printf "$timing" | sort -rn | head -12
echo "$(( $(date +%s) - started )) s in all"
[ -n "$failed_names" ] && echo "failing:$failed_names"
echo "$passed passed, $failed failed"
[ $failed -eq 0 ]

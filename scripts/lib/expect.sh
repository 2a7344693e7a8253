# Comparisons for the shell checks: each prints what it compared, and expect_summary exits
# non-zero when any of them failed.

EXPECT_PASSED=0 EXPECT_FAILED=0

expect_pass() { EXPECT_PASSED=$((EXPECT_PASSED + 1)); echo "ok    $1"; }
expect_fail() { EXPECT_FAILED=$((EXPECT_FAILED + 1)); echo "FAIL  $1"; }

expect_equal() {
  local what=$1 wanted=$2 got=$3
  if [ "$wanted" = "$got" ]; then expect_pass "$what: $got"; else expect_fail "$what: wanted '$wanted', got '$got'"; fi
}

expect_contains() {
  local what=$1 text=$2 wanted=$3
  if [[ "$text" == *"$wanted"* ]]; then
    expect_pass "$what: has '$wanted'"
  else
    expect_fail "$what: no '$wanted' in:"
    printf '%s\n' "$text" | sed 's/^/      /' | tail -20
  fi
}

expect_success() {
  local what=$1 output
  shift
  if output=$("$@" 2>&1); then
    expect_pass "$what"
  else
    expect_fail "$what (exit $?):"
    printf '%s\n' "$output" | sed 's/^/      /' | tail -20
  fi
}

expect_summary() {
  echo "$EXPECT_PASSED passed, $EXPECT_FAILED failed"
  [ "$EXPECT_FAILED" -eq 0 ]
}

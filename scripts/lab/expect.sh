# The one assertion library of the shell checks: each assertion prints what it compared, on a
# line of its own that starts with "ok" or "FAIL", and expect_summary closes the check with
# "N passed, N failed" and an exit status that is non-zero when anything failed.

EXPECT_PASSED=0 EXPECT_FAILED=0

expect_pass() { EXPECT_PASSED=$((EXPECT_PASSED + 1)); echo "ok    $1"; }
expect_fail() { EXPECT_FAILED=$((EXPECT_FAILED + 1)); echo "FAIL  $1"; }

# Output that explains a failure, indented under it and cut to its last lines.
expect_detail() { printf '%s\n' "$1" | sed 's/^/      /' | tail -"${2:-20}"; }

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
    expect_detail "$text"
  fi
}

# A command that must succeed; its output is shown only when it does not.
expect_success() {
  local what=$1 output status
  shift
  output=$("$@" 2>&1); status=$?
  if [ "$status" -eq 0 ]; then expect_pass "$what"; else expect_fail "$what (exit $status):"; expect_detail "$output"; fi
}

# A condition (a command run in this shell, so it may read and set the check's variables).
expect_true() {
  local what=$1
  shift
  if "$@"; then expect_pass "$what"; else expect_fail "$what"; fi
}

expect_summary() {
  echo "${1:+$1: }$EXPECT_PASSED passed, $EXPECT_FAILED failed"
  [ "$EXPECT_FAILED" -eq 0 ]
}

# Runs the real daemon in the gateway namespace and reads the history it writes (source after
# netns.sh). Recordings (audit sessions) are started and ended with tvctl, as a technician would.

DAEMON=${DAEMON:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)/.build/debug/tunnelvisiond}
TVCTL=${TVCTL:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)/.build/debug/tvctl}
# The development tool beside them that seeds a demo history.
TVFIXTURE=${TVFIXTURE:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)/.build/debug/tvfixture}
DAEMON_PID=
source "$(dirname "${BASH_SOURCE[0]}")/expect.sh"
source "$(dirname "${BASH_SOURCE[0]}")/readings.sh"

# Until the flow engine is merged the executable is a placeholder that cannot capture; a check
# says so and stands aside rather than failing on it. A missing build still fails.
require_daemon() {
  [ -x "$DAEMON" ] || { echo "no daemon at $DAEMON; build it first (swift build --product tunnelvisiond)"; exit 1; }
  [ -x "$TVCTL" ] || { echo "no tvctl at $TVCTL; build it first (swift build --product tvctl)"; exit 1; }
  if ! "$DAEMON" --version 2>/dev/null | grep -q '^tunnelvisiond '; then
    echo "skipped: $DAEMON is the placeholder (the flow engine is not merged yet)"
    exit 0
  fi
}

# SQL on the history, for the checks about the schema itself (a recovery after kill -9, a
# second writer's lock); every other check reads through tvctl --json or tvwire (readings.sh).
# Never creates the file: sqlite3 would leave an empty one, which the daemon refuses as a
# truncated history.
sql() {
  [ -e "$WORK/history.sqlite" ] || { echo "no history at $WORK/history.sqlite" >&2; return 1; }
  sqlite3 -batch -noheader -cmd '.timeout 15000' "$WORK/history.sqlite" "$@"
}

# Starts the daemon (extra arguments go to it) and waits for its first heartbeat.
daemon_start() {
  # The newest capture run before the daemon starts: read after, it could be the daemon's own.
  local before
  before=$(runs_py 'max([r["id"] for r in runs], default=0)' 2>/dev/null || echo 0)
  # Not through a shell function: $! must be the daemon itself (ip netns exec execs it).
  ip netns exec "$GATEWAY" "$DAEMON" --config "$WORK/tunnelvisiond.conf" --db "$WORK/history.sqlite" --captures "$WORK/captures" \
    "$@" >>"$WORK/daemon.log" 2>&1 &
  DAEMON_PID=$!
  daemon_wait_heartbeat "$before"
}

# Waits until the daemon's heartbeat names a capture session newer than any before.
daemon_wait_heartbeat() {
  local before=${1:-0} i
  for i in $(seq 100); do
    local session
    session=$(runs_py 'next((r["id"] for r in runs if r["inHeartbeat"]), "")' 2>/dev/null || true)
    [ -n "$session" ] && [ "$session" -gt "$before" ] && return 0
    kill -0 "$DAEMON_PID" 2>/dev/null || { echo "the daemon exited:"; tail -5 "$WORK/daemon.log"; return 1; }
    sleep 0.1
  done
  echo "no heartbeat from the daemon within 10 s"; tail -5 "$WORK/daemon.log"; return 1
}

daemon_stop() {
  [ -n "$DAEMON_PID" ] || return 0
  kill -TERM "$DAEMON_PID" 2>/dev/null || true
  wait "$DAEMON_PID" 2>/dev/null || true
  DAEMON_PID=
}

now_ns() { date +%s%N; }

tvctl() { "$TVCTL" --db "$WORK/history.sqlite" "$@"; }

# Opens a recording of a new project; prints its session id.
audit_session_start() {
  local project
  project=$(tvctl project create "Lab $LAB $(now_ns)" --json | jq -r .id) || return 1
  tvctl session start "$project" --baseline --device "lab phone" --os netns |
    sed -n 's/^Recording session \([0-9]*\),.*/\1/p'
}

audit_session_end() { tvctl session end "$1" >/dev/null; }

# Waits for the recorder's next commits (it flushes dirty flows at least once a second).
settle() { sleep "${1:-1.5}"; }

# Every capture file holds exactly the packets the history points into it: tshark's frames,
# whose offsets follow from their captured lengths, against the packet rows of that file.
expect_captures_match_rows() {
  local file sequence rows frames packets
  packets=$("$TVWIRE" packets "$WORK/history.sqlite")
  for file in "$WORK"/captures/tunnelvision-*.pcap; do
    [ -e "$file" ] || continue
    sequence=$(basename "$file" | cut -d- -f2 | sed 's/^0*//')
    rows=$(echo "$packets" | rows_py '"\n".join("%d %d" % (p["fileOffset"], p["timestamp"] // 1000)
      for p in sorted(rows, key=lambda p: p["fileOffset"]) if p["fileSequence"] == '"$sequence"')')
    frames=$(tshark -n -r "$file" -T fields -e frame.cap_len -e frame.time_epoch 2>/dev/null |
      awk 'BEGIN { offset = 24 } { split($2, t, "."); printf "%d %s%s\n", offset, t[1], substr(t[2] "000000", 1, 6); offset += 16 + $1 }')
    if [ "$rows" = "$frames" ]; then
      expect_pass "$(basename "$file"): tshark's $(echo "$frames" | grep -c .) frames are the history's rows (offset, µs)"
    else
      expect_fail "$(basename "$file"): tshark's frames and the history's rows differ (offset µs; < rows, > tshark):"
      expect_detail "$(diff <(echo "$rows") <(echo "$frames") | head -6)"
    fi
  done
}

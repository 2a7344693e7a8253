# What a check reads back from the history, through the interfaces a lab has (source after
# daemon.sh): tvctl's --json for what tvctl shows (status, phones, projects, recordings) and
# `tvwire history` for every flow of every capture session, in flows.json's shape. A check keeps
# SQL only where it is about the schema itself (the packet index's files and offsets, the lock).

TVWIRE=${TVWIRE:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)/.build/debug/tvwire}

# One value of `tvctl status --json`, by jq path (".traffic.packetsNotCaptured").
status_field() { tvctl status --json | jq -r "$1"; }

# Every flow the history holds, as a JSON array of flows.json's flows; with a capture run's id,
# only the flows of that run of the daemon.
history_flows() { "$TVWIRE" history "$WORK/history.sqlite" "$@"; }

# A Python expression over the JSON rows on standard input (`rows`), printed: exact integers
# (jq's doubles would round nanosecond instants), and True/False as 1/0 as a count compares.
rows_py() {
  python3 -c 'import json, sys
rows = json.load(sys.stdin)
value = eval("(" + sys.argv[1] + "\n)")
print(int(value) if isinstance(value, bool) else value)' "$1"
}

# The same over `tvwire capture-runs` (`runs`: id, input, endedAt, tapDrops {kernel, interface},
# inHeartbeat), over `tvwire packets` (`rows`: captureRun, flowID,
# timestamp, direction, fileSequence, fileOffset; file 0 is a row without bytes), and over
# `tvwire losses` (`losses`: packets by reason, as queueFull).
runs_py() { "$TVWIRE" capture-runs "$WORK/history.sqlite" | rows_py "(lambda runs: $1)(rows)"; }
packets_py() { "$TVWIRE" packets "$WORK/history.sqlite" | rows_py "$1"; }
losses_py() { "$TVWIRE" losses "$WORK/history.sqlite" | rows_py "(lambda losses: $1)(rows)"; }

# A Python expression over every flow of the history (`flows`, by id, in flows.json's shape as
# `tvwire history` writes them), printed. `ns(instant)` is an instant in nanoseconds; `at(f, ADDRESS)`
# and `on(f, PORT)` whether a peer of the flow has that address or port; `first(CONDITION, FIELDS[, N])`
# the first (or N-th from 0) flow the condition holds for, as its fields ("tlsStatus relay.decision")
# joined by '|' ('-' for one it does not have; "no flow" when none holds).
flows_py() { "$TVWIRE" history "$WORK/history.sqlite" | flows_eval "$1"; }

# The same over the flows of recording $1 as `tvctl flows --json` shows them.
recording_flows_py() { tvctl flows "$1" --json | jq .flows | flows_eval "$2"; }

flows_eval() {
  python3 -c 'import calendar, json, re, sys, time
flows = sorted(json.load(sys.stdin), key=lambda f: f["id"])
def ns(text): return calendar.timegm(time.strptime(text[:19], "%Y-%m-%dT%H:%M:%S")) * 10**9 + int(text[20:29])
def at(f, address): return any(p["address"] == address for p in f["peers"])
def on(f, port): return any(p["port"] == port for p in f["peers"])
def field(f, name):
    value = f
    for part in name.split("."): value = value.get(part) if isinstance(value, dict) else None
    return "-" if value is None else str(value).lower() if isinstance(value, bool) else str(value)
def first(condition, fields, n=0):
    rows = ["|".join(field(f, name) for name in fields.split()) for f in flows if condition(f)]
    return rows[n] if n < len(rows) else "no flow"
value = eval("(" + sys.argv[1] + "\n)")
print(int(value) if isinstance(value, bool) else value)' "$1"
}

# The ids of the flows tagged with recording $1, as a JSON array.
recording_flow_ids() { tvctl flows "$1" --json | jq -c '[.flows[].id]'; }

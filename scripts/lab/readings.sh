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

# The ids of the flows tagged with recording $1, as a JSON array.
recording_flow_ids() { tvctl flows "$1" --json | jq -c '[.flows[].id]'; }

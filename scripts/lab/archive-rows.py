#!/usr/bin/env python3
"""The archive's check, the parts that read two databases: whether the rows a gateway published are
its history's rows (compare), and a merged history made by hand from two gateways' (merge), for a
local diff to be set beside the archive's. psql answers the archive's side; nothing of tvctl's."""
import base64, json, sqlite3, subprocess, sys

def history_rows(path, sql, args=()):
    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    db.row_factory = sqlite3.Row
    rows = [dict(row) for row in db.execute(sql, args)]
    db.close()
    return rows

def archive_rows(connection, sql):
    out = subprocess.run(["psql", "-X", "-q", "-At", "-v", "ON_ERROR_STOP=1", connection, "-c", sql],
                         check=True, capture_output=True, text=True).stdout
    return [json.loads(line) for line in out.splitlines() if line]

def archived(value):
    """A history value as the archive's row JSON writes it."""
    if isinstance(value, bytes):
        return {"blob": base64.b64encode(value).decode()}
    if isinstance(value, float):
        return {"real": repr(value)}
    return value

def compare(history, connection, gateway, recording):
    where = (f"recording_id = (SELECT r.id FROM recordings r JOIN gateways g ON g.id = r.gateway_id "
             f"WHERE g.name = '{gateway}' AND r.local_id = {int(recording)})")
    pairs = {
        "recording": (history_rows(history, "SELECT * FROM audit_sessions WHERE id = ?", (recording,)),
                      archive_rows(connection, f"SELECT row FROM recordings WHERE {where.replace('recording_id', 'id')}")),
        "markers": (history_rows(history, "SELECT * FROM audit_markers WHERE session_id = ? ORDER BY id", (recording,)),
                    archive_rows(connection, f"SELECT row FROM markers WHERE {where} ORDER BY local_id")),
        "flows": (history_rows(history, "SELECT * FROM flows WHERE audit_session_id = ? ORDER BY id", (recording,)),
                  archive_rows(connection, f"SELECT row FROM flows WHERE {where} ORDER BY local_id")),
        "relay facts (key logs left behind)": (
            [dict(row, key_log="") for row in history_rows(
                history, "SELECT r.* FROM flow_relay r JOIN flows f ON f.id = r.flow_id WHERE f.audit_session_id = ? "
                         "ORDER BY r.flow_id", (recording,))],
            archive_rows(connection, f"SELECT relay FROM flows WHERE {where} AND relay IS NOT NULL ORDER BY local_id")),
    }
    failed = False
    for name, (local, remote) in pairs.items():
        local = [{key: archived(value) for key, value in row.items()} for row in local]
        if local == remote:
            print(f"ok    {gateway}:{recording} {name}: the archive's {len(remote)} rows are the history's")
        else:
            failed = True
            print(f"FAIL  {gateway}:{recording} {name}: {len(local)} rows in the history, {len(remote)} in the archive, differing")
            for left, right in zip(local, remote):
                if left != right:
                    print("      first difference:", {k: (left.get(k), right.get(k)) for k in set(left) | set(right)
                                                     if left.get(k) != right.get(k)})
                    break
    return failed

def merge(first, second, output):
    """first's history, then second's recordings appended: the project by name, a recording's and
    its flows' numbers moved past first's (the capture sessions stay as they were)."""
    source = sqlite3.connect(first)
    target = sqlite3.connect(output)
    source.backup(target)
    source.close()
    target.execute("ATTACH ? AS b", (second,))
    recording_offset = target.execute("SELECT MAX(id) FROM audit_sessions").fetchone()[0]
    flow_offset = target.execute("SELECT MAX(id) FROM flows").fetchone()[0]
    def columns(table):
        return [row[1] for row in target.execute(f"PRAGMA b.table_info({table})")]
    def copy(table, changes, where):
        names = columns(table)
        chosen = ", ".join(changes.get(name, name) for name in names)
        target.execute(f"INSERT INTO main.{table} ({', '.join(names)}) SELECT {chosen} FROM b.{table} {where}")
    project = ("(SELECT m.id FROM main.audit_projects m WHERE m.name = "
               "(SELECT p.name FROM b.audit_projects p WHERE p.id = project_id))")
    copy("audit_sessions", {"id": f"id + {recording_offset}", "project_id": project}, "WHERE ended_at IS NOT NULL")
    copy("audit_markers", {"id": "NULL", "session_id": f"session_id + {recording_offset}"}, "")
    copy("flows", {"id": f"id + {flow_offset}", "audit_session_id": f"audit_session_id + {recording_offset}"},
         "WHERE audit_session_id IS NOT NULL")
    copy("flow_relay", {"flow_id": f"flow_id + {flow_offset}"},
         "WHERE flow_id IN (SELECT id FROM b.flows WHERE audit_session_id IS NOT NULL)")
    target.commit()
    target.close()

if __name__ == "__main__":
    if sys.argv[1] == "compare":
        sys.exit(1 if compare(*sys.argv[2:6]) else 0)
    if sys.argv[1] == "merge":
        merge(*sys.argv[2:5])

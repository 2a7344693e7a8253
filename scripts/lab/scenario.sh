# The scenario of the 40-* checks (source after netns.sh, servers.sh and daemon.sh).

# The history's own columns, as the engine stored them (codes, not flows.json's names): the
# engine's reading of each scenario flow against tshark's, tagged or not by the recording.
flow_row() {  # name → "sni|dns_name|client_versions|server_version|server_cipher|stream_opening|tls_status|tag"
  sql "SELECT COALESCE(sni,'-') || '|' || COALESCE(dns_name,'-') || '|' || COALESCE(client_versions,'-') || '|' ||
              CASE WHEN server_answer IS NULL THEN '-|-' ELSE printf('%x|%04x', server_version, server_cipher) END || '|' ||
              COALESCE(stream_opening,'-') || '|' || tls_status || '|' || COALESCE(audit_session_id,'none')
       FROM flows WHERE protocol = 6 AND (b_address = '$1' OR a_address = '$1') AND first_seen >= $2 ORDER BY id LIMIT 1"
}

# tshark's reading of the server's answer (in all.pcap, the capture files merged) in the capture: negotiated version and cipher.
tshark_hello() {
  tshark -n -r "$WORK/all.pcap" -Y "tls.handshake.type == 2 && ip.src == $1" -T fields \
    -e tls.handshake.extensions.supported_version -e tls.handshake.version -e tls.handshake.ciphersuite 2>/dev/null | head -1
}

# The versions the phone offered, as tshark read its ClientHello to that address ("304 303 …").
tshark_offer() {
  tshark -n -r "$WORK/all.pcap" -Y "tls.handshake.type == 1 && ip.dst == $1" -T fields \
    -e tls.handshake.extensions.supported_version 2>/dev/null | head -1 | tr ',' '\n' | sed 's/^0x0*//' | paste -sd' '
}

# The cipher suite tshark read from the server's hello, as four hex digits.
tshark_cipher() { tshark_hello "$1" | awk -F'\t' '{ sub(/^0x/, "", $3); print tolower($3) }'; }

# One pass of the lab: resolver in the server or gateway namespace, phone on a plain link (veth)
# or behind WireGuard.
run_scenario() {
  local resolver_place=$1 link=$2 client_interface=g0
  echo "== phone over $link, resolver in the $resolver_place namespace"
  lab_up
  if [ "$link" = wireguard ]; then lab_wireguard_up "$WORK" || return 1; client_interface=$WG_GATEWAY; fi
  servers_up "$WORK" "$resolver_place"
  lab_config "$WORK/tunnelvisiond.conf" "$client_interface" >/dev/null
  local rules_before status_once
  rules_before=$(in_gateway ip rule show; in_gateway ip -6 rule show)
  in_gateway "$here/../gateway" up --config "$WORK/tunnelvisiond.conf" || { echo "gateway up failed"; return 1; }
  status_once=$(in_gateway "$here/../gateway" status --config "$WORK/tunnelvisiond.conf")
  in_gateway "$here/../gateway" up --config "$WORK/tunnelvisiond.conf" || { echo "gateway up (again) failed"; return 1; }
  expect_equal "gateway up twice leaves what up once left" "$status_once" "$(in_gateway "$here/../gateway" status --config "$WORK/tunnelvisiond.conf")"
  mkdir -p "$WORK/captures"
  daemon_start || return 1

  local before_start during_start after_start session
  before_start=$(now_ns)
  expect_equal "before the session: plain.lab answers" plain "$(phone_fetch http://plain.lab/)"
  settle
  session=$(audit_session_start)
  during_start=$(now_ns)
  tvctl status | sed 's/^/  tvctl status: /'
  expect_equal "TLS 1.3 answers" tls13 "$(phone_fetch https://tls13.lab/)"
  expect_equal "TLS 1.2 answers" tls12 "$(phone_fetch https://tls12.lab/)"
  expect_equal "plain HTTP answers" plain "$(phone_fetch http://plain.lab/)"
  expect_equal "TLS 1.0 answers" 0 "$(phone_fetch https://old.lab/ --tlsv1.0 --tls-max 1.0 --ciphers 'DEFAULT:@SECLEVEL=0' -o /dev/null -w '%{ssl_verify_result}')"
  expect_equal "plain HTTP over IPv6 answers" plain "$(phone_fetch "http://[${LAB_ADDRESS6}]/")"
  settle
  audit_session_end "$session"
  after_start=$(now_ns)
  expect_equal "after the session: plain.lab answers" plain "$(phone_fetch http://plain.lab/)"
  settle
  daemon_stop
  if [ "$link" = wireguard ]; then
    expect_equal "the phone's traffic came through WireGuard" 1 \
      "$(in_gateway wg show "$WG_GATEWAY" transfer | awk '{ print ($2 > 2000 && $3 > 2000) ? 1 : 0 }')"
  fi
  mergecap -F pcap -w "$WORK/all.pcap" "$WORK"/captures/*.pcap

  local s=$session
  #                                    sni|dns|offered|negotiated|cipher|opening|status|tag
  expect_equal "tls13.lab flow" "tls13.lab|tls13.lab|$(tshark_offer "${LAB_ADDRESS[tls13.lab]}")|304|$(tshark_cipher "${LAB_ADDRESS[tls13.lab]}")|0|1|$s" \
    "$(flow_row "${LAB_ADDRESS[tls13.lab]}" "$during_start")"
  expect_equal "tls12.lab flow" "tls12.lab|tls12.lab|$(tshark_offer "${LAB_ADDRESS[tls12.lab]}")|303|c02f|0|1|$s" "$(flow_row "${LAB_ADDRESS[tls12.lab]}" "$during_start")"
  expect_equal "plain.lab flow (named by DNS)" "-|plain.lab|-|-|-|1|0|$s" "$(flow_row "${LAB_ADDRESS[plain.lab]}" "$during_start")"
  expect_equal "old.lab flow" "old.lab|old.lab|301|301|$(tshark_cipher "${LAB_ADDRESS[old.lab]}")|0|1|$s" \
    "$(flow_row "${LAB_ADDRESS[old.lab]}" "$during_start")"
  expect_equal "IPv6 flow (unnamed, tagged)" "-|-|-|-|-|1|0|$s" "$(flow_row "$LAB_ADDRESS6" "$during_start")"
  expect_equal "before the session: untagged" "-|plain.lab|-|-|-|1|0|none" "$(flow_row "${LAB_ADDRESS[plain.lab]}" "$before_start")"
  expect_equal "after the session: untagged" "-|plain.lab|-|-|-|1|0|none" "$(flow_row "${LAB_ADDRESS[plain.lab]}" "$after_start")"
  expect_equal "the DNS flow of the session is tagged" 1 \
    "$(tvctl flows "$s" --json | jq '[.flows[] | select(.protocol == "udp" and any(.peers[]; .port == 53))] | if length > 0 then 1 else 0 end')"
  local dns_flows
  dns_flows=$(history_flows | jq -c '[.[] | select(.protocol == "udp" and any(.peers[]; .port == 53)) | .id]')
  expect_equal "the resolver's queries crossed the tap" 1 \
    "$(packets_py "any(p['direction'] == 'outbound' and p['flowID'] in $dns_flows for p in rows)")"
  expect_equal "tshark: TLS 1.3 server hello" "0x0304" "$(tshark_hello "${LAB_ADDRESS[tls13.lab]}" | awk '{print $1}')"
  expect_equal "every captured row is in a file, none lost" 0 "$(packets_py 'sum(p["fileSequence"] == 0 for p in rows)')"
  expect_captures_match_rows
  expect_equal "the capture session ended at the stop" 1 "$(runs_py 'runs[-1]["endedAt"] is not None')"

  in_gateway "$here/../gateway" down --config "$WORK/tunnelvisiond.conf"
  expect_equal "gateway down restores the rules it found" "$rules_before" "$(in_gateway ip rule show; in_gateway ip -6 rule show)"
  expect_equal "gateway down removes its nftables table and the TUN device" "gone" \
    "$(in_gateway nft list table inet tv >/dev/null 2>&1 || in_gateway ip link show tv0 >/dev/null 2>&1 || echo gone)"
  servers_down
  lab_down
  rm -rf "$WORK/captures" "$WORK/history.sqlite"*
}


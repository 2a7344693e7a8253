# The WireGuard side of the gateway and its phones, shared by scripts/install (a real wg0),
# scripts/phone (tunnelvision-phone: add and remove a phone) and the lab (the same files between
# network namespaces). The files are in wg-quick's format; `wg-quick strip FILE` gives what
# `wg setconf` takes.
#
# KEYS holds the gateway's key and one folder per phone: KEYS/phones/NAME/ with its private key,
# its preshared key and its host number N, which gives it the N-th address of every client
# network (the gateway is 1). The history's phones decide N ('tvctl phone next-number'); the
# folder keeps it for WireGuard's files. KEYS/phones/NAME.conf is the phone's own configuration.

# The N-th address of a client network: 10.77.0.0/24 → 10.77.0.N, fd77::/64 → fd77::N.
# Only networks written with their host part empty are accepted.
wg_host_address() {
  local network=$1 number=$2 base=${1%/*}
  case "$network" in
    *:*/*) [[ "$base" == *:: ]] || { echo "wireguard: write $network as PREFIX::/LENGTH" >&2; return 1; }
           echo "$base$(printf '%x' "$number")" ;;
    */*)   [[ "$base" =~ ^[0-9]+\.[0-9]+\.[0-9]+\.0$ ]] || { echo "wireguard: write $network as A.B.C.0/LENGTH" >&2; return 1; }
           echo "${base%.*}.$number" ;;
    *)     echo "wireguard: $network has no /LENGTH" >&2; return 1 ;;
  esac
}

# tvctl ($TVCTL, else from PATH) for a root tool: run as the daemon's user tunnelvision, not as
# root, whenever anyone but root may write the history's folder (the installed layout: the group
# shares it), where a member could put a link in place of the history and root would create or
# open what it names. A folder only root may write (a lab's), or a machine without that account,
# keeps root; tvctl itself refuses a linked history either way.
wg_tvctl() {
  local folder
  folder=$(dirname "${TUNNELVISION_DB:-/var/lib/tunnelvision/history.sqlite}")
  if [ "$(id -u)" -eq 0 ] && id -u tunnelvision >/dev/null 2>&1 &&
    { [ "$(stat -L -c %u "$folder" 2>/dev/null)" != 0 ] || [ $((0$(stat -L -c %a "$folder" 2>/dev/null) & 022)) -ne 0 ]; }; then
    setpriv --reuid=tunnelvision --regid=tunnelvision --init-groups -- "${TVCTL:-tvctl}" "$@"
  else
    "${TVCTL:-tvctl}" "$@"
  fi
}

# A phone's name: what tvctl --phone takes and a file name, so letters, digits, . _ - only.
wg_valid_phone_name() {
  [[ "$1" =~ ^[A-Za-z0-9][A-Za-z0-9._-]{0,31}$ ]] ||
    { echo "wireguard: a phone's name is 1 to 32 letters, digits, '.', '_' or '-' (not '$1')" >&2; return 1; }
}

# The gateway's key in KEYS, made once: a second run keeps it, so phones stay paired. A phone of
# an install from before phones had names (KEYS/phone.key) becomes the phone called "phone".
wg_make_gateway_key() {
  local keys=$1
  install -d -m 0700 "$keys" "$keys/phones"
  (umask 077; [ -s "$keys/gateway.key" ] || wg genkey >"$keys/gateway.key")
  if [ -s "$keys/phone.key" ] && [ ! -e "$keys/phones/phone" ]; then
    install -d -m 0700 "$keys/phones/phone"
    mv "$keys/phone.key" "$keys/phones/phone/private.key"
    mv "$keys/phone.psk" "$keys/phones/phone/psk"
    echo 2 >"$keys/phones/phone/number"
    rm -f "$keys/phone.conf"
  fi
}

# What tunnelvision-phone reads of the gateway, to KEYS/gateway.env: KEYS INTERFACE CONFIG PORT
# ENDPOINT DNS NETWORK….
wg_gateway_env() {
  local keys=$1 interface=$2 config=$3 port=$4 endpoint=$5 dns=$6
  shift 6
  (umask 077; printf 'INTERFACE=%q\nCONFIG=%q\nPORT=%q\nENDPOINT=%q\nNETWORKS=%q\nDNS=%q\n' \
    "$interface" "$config" "$port" "$endpoint" "$*" "$dns" >"$keys/gateway.env")
}

# The phones there are, one name a line, in the order of their numbers.
wg_phones() {
  local keys=$1 folder
  for folder in "$keys"/phones/*/; do
    [ -s "$folder/number" ] && echo "$(cat "$folder/number") $(basename "$folder")"
  done | sort -n | cut -d' ' -f2
}

# The next phone's host number as the history decides it: NETWORK….
wg_next_number() {
  local network options=()
  for network in "$@"; do options+=(--network "$network"); done
  wg_tvctl phone next-number "${options[@]}"
}

# Makes phone NAME's keys with host NUMBER; refused when it exists, or when keys here hold that
# number without being in the history (an install from before phones had names: record it first).
wg_make_phone() {
  local keys=$1 name=$2 number=$3 folder other
  wg_valid_phone_name "$name" || return 1
  [[ "$number" =~ ^[0-9]+$ ]] && ((number >= 2 && number <= 254)) ||
    { echo "wireguard: $number is not a phone's host number (2 to 254)" >&2; return 1; }
  folder="$keys/phones/$name"
  [ ! -e "$folder" ] || { echo "wireguard: there is a phone called $name already" >&2; return 1; }
  for other in $(wg_phones "$keys"); do
    if [ "$(cat "$keys/phones/$other/number")" = "$number" ]; then
      echo "wireguard: phone $other's keys here hold number $number and the history does not: record it first (tunnelvision-phone record $other)" >&2
      return 1
    fi
  done
  install -d -m 0700 "$folder"
  (umask 077; wg genkey >"$folder/private.key"; wg genpsk >"$folder/psk"; echo "$number" >"$folder/number")
}

wg_phone_public_key() { wg pubkey <"$1/phones/$2/private.key"; }

# Phone NAME's address in each NETWORK, as host routes joined by commas (10.77.0.2/32,fd77::2/128).
wg_phone_routes() {
  local keys=$1 name=$2 network address number routes=()
  shift 2
  number=$(cat "$keys/phones/$name/number") || return 1
  for network in "$@"; do
    address=$(wg_host_address "$network" "$number") || return 1
    if [[ "$network" == *:* ]]; then routes+=("$address/128"); else routes+=("$address/32"); fi
  done
  local IFS=,
  echo "${routes[*]}"
}

# Phone NAME's address in the first network of the family (4 or 6) among NETWORK….
wg_phone_address() {
  local keys=$1 name=$2 family=$3 network
  shift 3
  for network in "$@"; do
    if { [ "$family" = 6 ] && [[ "$network" == *:* ]]; } || { [ "$family" = 4 ] && [[ "$network" != *:* ]]; }; then
      wg_host_address "$network" "$(cat "$keys/phones/$name/number")"
      return
    fi
  done
  echo "wireguard: no IPv$family client network" >&2
  return 1
}

# The gateway's wg0: KEYS PORT NETWORK…, with a peer for every phone in KEYS.
wg_gateway_config() {
  local keys=$1 port=$2 network address gateway=() name
  shift 2
  for network in "$@"; do
    address=$(wg_host_address "$network" 1) || return 1
    gateway+=("$address/${network#*/}")
  done
  cat <<CONF
# Written by TunnelVision (scripts/install, tunnelvision-phone): the gateway's side of the phones' tunnels.
[Interface]
Address = $(IFS=,; echo "${gateway[*]}")
ListenPort = $port
PrivateKey = $(cat "$keys/gateway.key")
CONF
  for name in $(wg_phones "$keys"); do
    cat <<CONF

# Phone $name
[Peer]
PublicKey = $(wg_phone_public_key "$keys" "$name")
PresharedKey = $(cat "$keys/phones/$name/psk")
AllowedIPs = $(wg_phone_routes "$keys" "$name" "$@")
CONF
  done
}

# Phone NAME's side: KEYS NAME ENDPOINT DNS NETWORK…; all of its traffic goes through the tunnel.
wg_phone_config() {
  local keys=$1 name=$2 endpoint=$3 dns=$4 network everything=()
  shift 4
  for network in "$@"; do
    everything+=("$([[ "$network" == *:* ]] && echo ::/0 || echo 0.0.0.0/0)")
  done
  cat <<CONF
[Interface]
PrivateKey = $(cat "$keys/phones/$name/private.key")
Address = $(wg_phone_routes "$keys" "$name" "$@")
DNS = $dns

[Peer]
PublicKey = $(wg pubkey <"$keys/gateway.key")
PresharedKey = $(cat "$keys/phones/$name/psk")
Endpoint = $endpoint
AllowedIPs = $(IFS=,; echo "${everything[*]}")
PersistentKeepalive = 25
CONF
}

# The WireGuard side of the gateway, shared by scripts/install (a real wg0 and the phone's QR
# code) and scripts/lib/lab.sh (the same two configurations between network namespaces).
# The files are in wg-quick's format; `wg-quick strip FILE` gives what `wg setconf` takes.

# The N-th address of a client network: 10.77.0.0/24 → 10.77.0.N, fd77::/64 → fd77::N.
# Only networks written with their host part empty are accepted.
wg_host_address() {
  local network=$1 number=$2 base=${1%/*}
  case "$network" in
    *:*/*) [[ "$base" == *:: ]] || { echo "wireguard: write $network as PREFIX::/LENGTH" >&2; return 1; }
           echo "$base$number" ;;
    */*)   [[ "$base" =~ ^[0-9]+\.[0-9]+\.[0-9]+\.0$ ]] || { echo "wireguard: write $network as A.B.C.0/LENGTH" >&2; return 1; }
           echo "${base%.*}.$number" ;;
    *)     echo "wireguard: $network has no /LENGTH" >&2; return 1 ;;
  esac
}

# Keys for the gateway and one phone in DIRECTORY, made once: a second run keeps them, so a
# phone that scanned the code before stays paired.
wg_make_keys() {
  local directory=$1
  install -d -m 0700 "$directory"
  (
    umask 077
    [ -s "$directory/gateway.key" ] || wg genkey >"$directory/gateway.key"
    [ -s "$directory/phone.key" ] || wg genkey >"$directory/phone.key"
    [ -s "$directory/phone.psk" ] || wg genpsk >"$directory/phone.psk"
  )
}

# The phone's address in NETWORK as a host route (10.77.0.2/32, fd77::2/128).
wg_phone_route() {
  local address
  address=$(wg_host_address "$1" 2) || return 1
  if [[ "$1" == *:* ]]; then echo "$address/128"; else echo "$address/32"; fi
}

# The gateway's wg0: KEYS PORT NETWORK… (each network gives the gateway .1 and the phone .2).
wg_gateway_config() {
  local keys=$1 port=$2 network address gateway=() phone=()
  shift 2
  for network in "$@"; do
    address=$(wg_host_address "$network" 1) || return 1
    gateway+=("$address/${network#*/}")
    phone+=("$(wg_phone_route "$network")")
  done
  local IFS=,
  cat <<CONF
# Written by TunnelVision (scripts/install): the gateway's side of the test phone's tunnel.
[Interface]
Address = ${gateway[*]}
ListenPort = $port
PrivateKey = $(cat "$keys/gateway.key")

# The test phone
[Peer]
PublicKey = $(wg pubkey <"$keys/phone.key")
PresharedKey = $(cat "$keys/phone.psk")
AllowedIPs = ${phone[*]}
CONF
}

# The phone's side: KEYS ENDPOINT DNS NETWORK…; all of the phone's traffic goes through the tunnel.
wg_phone_config() {
  local keys=$1 endpoint=$2 dns=$3 network route phone=() everything=()
  shift 3
  for network in "$@"; do
    route=$(wg_phone_route "$network") || return 1
    phone+=("$route")
    everything+=("$([[ "$network" == *:* ]] && echo ::/0 || echo 0.0.0.0/0)")
  done
  local IFS=,
  cat <<CONF
[Interface]
PrivateKey = $(cat "$keys/phone.key")
Address = ${phone[*]}
DNS = $dns

[Peer]
PublicKey = $(wg pubkey <"$keys/gateway.key")
PresharedKey = $(cat "$keys/phone.psk")
Endpoint = $endpoint
AllowedIPs = ${everything[*]}
PersistentKeepalive = 25
CONF
}

# A gateway as it runs in a lab: a fresh Debian 12 booted with systemd as PID 1 in
# systemd-nspawn, with its own network namespace, for the checks that must see the units run.
# The root comes from scripts/lib/chroot.sh (the cached debootstrap); apt inside it has no
# network, so what it will install is fetched beforehand into the shared archive cache.
#
#   nspawn_root PACKAGE...    a fresh root with these installed (sets NSPAWN_ROOT)
#   nspawn_fetch FILE.deb...  downloads what installing each package would need
#   nspawn_boot               boots it and waits until systemd has finished starting up
#   in_container COMMAND...   runs a command inside (every namespace of its init)
#   nspawn_reboot, nspawn_poweroff, nspawn_discard (on EXIT)
#
# Its network, named after $LAB (short: veth names hold 15 characters):
#   phone netns $LAB-phone  p0 10.99.0.2/24 ── lan0 10.99.0.1/24 (the container; the tunnel's carrier)
#   server netns $LAB-srv   s0 198.51.100.2/24 ── eth0 198.51.100.1/24 (the container's uplink)
# systemd-networkd addresses eth0 and lan0 inside at every boot, as on a real gateway; the
# outer ends are moved into the phone's and the server's namespaces after each boot.

NSPAWN_ROOT= NSPAWN_INIT= NSPAWN_LOOP=
NSPAWN_WORK=${NSPAWN_WORK:-/tmp}
PHONE=$LAB-phone SERVER=$LAB-srv
in_phone() { ip netns exec "$PHONE" "$@"; }
in_server() { ip netns exec "$SERVER" "$@"; }

in_container() {
  nsenter -t "$NSPAWN_INIT" -m -u -i -n -p -- \
    env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin DEBIAN_FRONTEND=noninteractive LANG=C.UTF-8 TERM=dumb "$@"
}

nspawn_root() {
  chroot_fresh || return 1
  NSPAWN_ROOT=$CHROOT
  in_chroot apt-get install -y -qq --no-install-recommends systemd systemd-sysv dbus "$@" >"$NSPAWN_WORK/root-apt.log" 2>&1 ||
    { tail -20 "$NSPAWN_WORK/root-apt.log"; return 1; }
  # Services start at boot here, not in the chroot.
  rm -f "$NSPAWN_ROOT/usr/sbin/policy-rc.d"
  # udev gives /dev/net/tun mode 0666 on every Debian machine; a container has no udev, and the
  # node nspawn copies keeps this machine's mode.
  echo 'z /dev/net/tun 0666 root root -' >"$NSPAWN_ROOT/etc/tmpfiles.d/lab-tun.conf"
  echo "$LAB" >"$NSPAWN_ROOT/etc/hostname"
  local network=$NSPAWN_ROOT/etc/systemd/network
  mkdir -p "$network"
  printf '[Match]\nName=eth0\n[Network]\nAddress=198.51.100.1/24\nGateway=198.51.100.2\nConfigureWithoutCarrier=yes\nIPv6AcceptRA=no\nLinkLocalAddressing=no\n' >"$network/10-eth0.network"
  printf '[Match]\nName=lan0\n[Network]\nAddress=10.99.0.1/24\nConfigureWithoutCarrier=yes\nIPv6AcceptRA=no\nLinkLocalAddressing=no\n' >"$network/10-lan0.network"
  in_chroot systemctl enable --quiet systemd-networkd.service
}

# Before the boot: each package is copied to /root, and what it needs is in the archive cache.
nspawn_fetch() {
  local deb
  for deb in "$@"; do
    cp "$deb" "$NSPAWN_ROOT/root/"
    in_chroot apt-get install -y -qq --download-only --no-install-recommends "/root/$(basename "$deb")" >>"$NSPAWN_WORK/root-apt.log" 2>&1 ||
      { tail -20 "$NSPAWN_WORK/root-apt.log"; return 1; }
  done
}

# The nspawn process of the current boot, and its child: the container's init.
nspawn_find_init() {
  local nspawn waited
  for waited in $(seq 1 100); do
    nspawn=$(cat "$NSPAWN_WORK/nspawn.pid" 2>/dev/null)
    if [ -n "$nspawn" ] && NSPAWN_INIT=$(pgrep -P "$nspawn" | head -1) && [ -n "$NSPAWN_INIT" ] &&
      [ "$(readlink "/proc/$NSPAWN_INIT/ns/pid")" != "$(readlink /proc/self/ns/pid)" ]; then
      return 0
    fi
    sleep 0.1
  done
  echo "nspawn: the container did not start; see $NSPAWN_WORK/console.log" >&2
  return 1
}

# Cables the outer ends as soon as nspawn has made them (so the links have a carrier while the
# container boots, as a machine's do), then waits for the boot to end (running or degraded).
nspawn_wait_booted() {
  local state waited end link namespace name address
  nspawn_find_init || return 1
  for end in "${LAB}p:$PHONE:p0:10.99.0.2/24" "${LAB}u:$SERVER:s0:198.51.100.2/24"; do
    IFS=: read -r link namespace name address <<<"$end"
    for waited in $(seq 1 100); do ip link show "$link" >/dev/null 2>&1 && break; sleep 0.1; done
    ip link set "$link" netns "$namespace" || return 1
    ip -n "$namespace" link set "$link" name "$name"
    ip -n "$namespace" addr add "$address" dev "$name"
    ip -n "$namespace" link set "$name" up
  done
  # Until systemd answers at all, and then until it has finished starting up (a loaded machine
  # takes minutes).
  local deadline=$((SECONDS + 300))
  while ((SECONDS < deadline)); do
    state=$(in_container timeout 240 systemctl is-system-running --wait 2>/dev/null) && break
    [ "$state" = degraded ] && break
    sleep 1
  done
  [ "$state" = running ] || [ "$state" = degraded ] ||
    { echo "nspawn: the container's systemd says '$state'" >&2; return 1; }
}

nspawn_boot() {
  local namespace
  for namespace in "$PHONE" "$SERVER"; do
    ip netns add "$namespace" && ip -n "$namespace" link set lo up || return 1
  done
  # nspawn mounts its own /proc and binds the cache itself.
  umount "$NSPAWN_ROOT/var/cache/apt/archives" "$NSPAWN_ROOT/proc" 2>/dev/null || true
  rm -f "$NSPAWN_WORK/nspawn.pid"
  # A reboot inside ends nspawn with 133: boot again, as a machine would.
  (
    while :; do
      systemd-nspawn -D "$NSPAWN_ROOT" --boot --register=no --keep-unit -M "$LAB" --console=read-only \
        --network-veth-extra="${LAB}p:lan0" --network-veth-extra="${LAB}u:eth0" \
        --bind="$CHROOT_CACHE/archives:/var/cache/apt/archives" >>"$NSPAWN_WORK/console.log" 2>&1 &
      echo $! >"$NSPAWN_WORK/nspawn.pid"
      wait $!
      status=$?
      rm -f "$NSPAWN_WORK/nspawn.pid"
      echo "nspawn: exit $status" >>"$NSPAWN_WORK/console.log"
      [ "$status" -eq 133 ] || break
    done
  ) &
  NSPAWN_LOOP=$!
  nspawn_wait_booted
}

nspawn_reboot() {
  local before=$NSPAWN_INIT waited
  in_container systemctl reboot
  for waited in $(seq 1 300); do
    [ -d "/proc/$before" ] || break
    sleep 0.1
  done
  [ ! -d "/proc/$before" ] || { echo "nspawn: the container did not go down for the reboot" >&2; return 1; }
  nspawn_wait_booted
}

nspawn_poweroff() {
  [ -n "$NSPAWN_LOOP" ] || return 0
  if [ -n "$NSPAWN_INIT" ] && [ -d "/proc/$NSPAWN_INIT" ]; then in_container systemctl poweroff 2>/dev/null || true; fi
  local waited
  for waited in $(seq 1 300); do
    kill -0 "$NSPAWN_LOOP" 2>/dev/null || break
    sleep 0.1
  done
  if kill -0 "$NSPAWN_LOOP" 2>/dev/null; then
    local nspawn
    nspawn=$(cat "$NSPAWN_WORK/nspawn.pid" 2>/dev/null)
    [ -z "$nspawn" ] || kill -9 "$nspawn" 2>/dev/null
    kill "$NSPAWN_LOOP" 2>/dev/null
  fi
  wait "$NSPAWN_LOOP" 2>/dev/null
  NSPAWN_LOOP= NSPAWN_INIT=
}

nspawn_discard() {
  nspawn_poweroff
  local namespace pid
  for namespace in "$PHONE" "$SERVER"; do
    for pid in $(ip netns pids "$namespace" 2>/dev/null); do kill -9 "$pid" 2>/dev/null || true; done
    ip netns del "$namespace" 2>/dev/null || true
  done
  rm -rf "/etc/netns/$PHONE"
  chroot_discard
}

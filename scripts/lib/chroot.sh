# A fresh Debian 12 root for install tests: debootstrap once into a cached tarball under
# /var/cache/tunnelvision, then every test unpacks its own copy, so one test never sees what an
# earlier one left. The packages apt fetches are cached there too, so reruns download nothing.
#
# Source it, then: chroot_fresh (sets CHROOT), in_chroot COMMAND…, chroot_discard (on EXIT).

CHROOT_CACHE=/var/cache/tunnelvision/chroot
CHROOT_SUITE=bookworm
# The Debian archive this machine's apt uses (deb822 .sources or one-line sources.list), so no
# mirror host is written here; CHROOT_MIRROR overrides it.
chroot_machine_mirror() {
  { grep -h '^URIs:' /etc/apt/sources.list.d/*.sources 2>/dev/null | awk '{ print $2 }'
    grep -h '^deb ' /etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null | awk '{ for (i = 2; i <= NF; i++) if ($i !~ /^\[/) { print $i; exit } }'
  } | grep -v security | head -1 || true  # a sources file that is not there is no error
}
CHROOT_MIRROR=${CHROOT_MIRROR:-$(chroot_machine_mirror)}
CHROOT=

chroot_base() {
  local base=$CHROOT_CACHE/$CHROOT_SUITE-minbase.tar
  if [ ! -s "$base" ]; then
    local scratch
    scratch=$(mktemp -d)
    chmod 0755 "$scratch"
    echo "chroot: debootstrap $CHROOT_SUITE (once; cached in $base)" >&2
    debootstrap --variant=minbase "$CHROOT_SUITE" "$scratch" "$CHROOT_MIRROR" >"$CHROOT_CACHE/debootstrap.log" 2>&1 ||
      { echo "chroot: debootstrap failed; see $CHROOT_CACHE/debootstrap.log" >&2; rm -rf "$scratch"; return 1; }
    tar -C "$scratch" -cf "$base.partial" . && mv "$base.partial" "$base"
    rm -rf "$scratch"
  fi
  echo "$base"
}

chroot_fresh() {
  install -d "$CHROOT_CACHE/archives/partial"
  local base
  base=$(chroot_base) || return 1
  CHROOT=$(mktemp -d /var/tmp/tunnelvision-chroot.XXXXXX)
  tar -C "$CHROOT" -xf "$base"
  # A root that only root may enter keeps apt's own user (_apt) out of its downloads (tar gives
  # the root the mode it had when the cache was made).
  chmod 0755 "$CHROOT"
  cp /etc/resolv.conf "$CHROOT/etc/resolv.conf"
  mount -t proc proc "$CHROOT/proc"
  mount --bind "$CHROOT_CACHE/archives" "$CHROOT/var/cache/apt/archives"
  # Keep what apt downloads (in the shared cache), whatever an image's apt settings say.
  rm -f "$CHROOT/etc/apt/apt.conf.d/docker-clean"
  echo 'Binary::apt::APT::Keep-Downloaded-Packages "true";' >"$CHROOT/etc/apt/apt.conf.d/90keep"
  # Services that packages would start (dnsmasq) must not run out of a chroot on the host.
  printf '#!/bin/sh\nexit 101\n' >"$CHROOT/usr/sbin/policy-rc.d"
  chmod 0755 "$CHROOT/usr/sbin/policy-rc.d"
  in_chroot apt-get update -qq
}

in_chroot() { chroot "$CHROOT" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin DEBIAN_FRONTEND=noninteractive LANG=C.UTF-8 "$@"; }

chroot_discard() {
  [ -n "$CHROOT" ] && [ -d "$CHROOT" ] || return 0
  umount "$CHROOT/var/cache/apt/archives" 2>/dev/null || true
  umount "$CHROOT/proc" 2>/dev/null || true
  # Only once nothing is mounted inside any more, or rm would reach into the cache.
  if ! grep -q " $CHROOT/" /proc/mounts; then rm -rf "$CHROOT"; fi
  CHROOT=
}

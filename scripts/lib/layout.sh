# The installed layout of TunnelVision, in one place: scripts/package stages it into the tree of
# a .deb, scripts/install onto this machine. Both get the same files at the same paths.
#
#   /usr/bin/tunnelvisiond, /usr/bin/tvctl, /usr/bin/tvconsole (the web console)
#   /usr/lib/tunnelvision/gateway                  the tap's routing (scripts/gateway)
#   /usr/lib/tunnelvision/wireguard                the phones' wg0 and resolver (scripts/wireguard)
#   /usr/sbin/tunnelvision-phone                   adds and removes phones (scripts/phone)
#   /usr/lib/tunnelvision/wireguard.sh             their WireGuard library (scripts/lib/wireguard.sh)
#   /usr/share/tunnelvision/catalogues/*.json      requirement catalogues
#   /lib/systemd/system/tunnelvisiond.service, tunnelvision-console.service (installed disabled)
#   /lib/systemd/system/tunnelvision-archive.{service,timer}  publishing to the lab's archive (disabled)
#   /usr/lib/sysusers.d/tunnelvision.conf, /usr/lib/tmpfiles.d/tunnelvision.conf
#   /etc/tunnelvision/tunnelvisiond.conf           the configuration (a conffile in the .deb)
#   /etc/tunnelvision/console.conf                 the web console's (likewise)
#
# Source it from a script in scripts/; it expects the repository root as the working directory.

LAYOUT_CONFIG=/etc/tunnelvision/tunnelvisiond.conf
LAYOUT_DATA=/var/lib/tunnelvision
LAYOUT_UNIT=/lib/systemd/system/tunnelvisiond.service
LAYOUT_CONSOLE_UNIT=/lib/systemd/system/tunnelvision-console.service
LAYOUT_CONSOLE_CONFIG=/etc/tunnelvision/console.conf
# What scripts/install put on the machine, for scripts/uninstall.
LAYOUT_MANIFEST=/usr/share/tunnelvision/installed-files

# The release build: the Swift runtime is linked in, so the target needs no Swift toolchain.
# Prints the directory that holds the two executables.
layout_build() {
  local flags=(-c release --static-swift-stdlib)
  local product log
  log=$(mktemp)
  for product in tunnelvisiond tvctl tvconsole; do
    swift build "${flags[@]}" --product "$product" >"$log" 2>&1 ||
      { tail -30 "$log" >&2; rm -f "$log"; echo "layout: the release build of $product failed" >&2; return 1; }
  done
  rm -f "$log"
  swift build "${flags[@]}" --show-bin-path
}

# Copies every installed file under DESTINATION (a staging tree, or / itself).
layout_stage() {
  local destination=${1:?layout_stage needs a destination} binaries=${2:?layout_stage needs the build directory}
  local root=${destination%/}
  install -d "$root/usr/bin" "$root/usr/sbin" "$root/usr/lib/tunnelvision" "$root/usr/share/tunnelvision/catalogues" \
    "$root/lib/systemd/system" "$root/usr/lib/sysusers.d" "$root/usr/lib/tmpfiles.d" "$root/etc/tunnelvision"
  install -m 0755 "$binaries/tunnelvisiond" "$binaries/tvctl" "$binaries/tvconsole" "$root/usr/bin/"
  install -m 0755 scripts/gateway "$root/usr/lib/tunnelvision/gateway"
  install -m 0755 scripts/phone "$root/usr/sbin/tunnelvision-phone"
  install -m 0755 scripts/wireguard "$root/usr/lib/tunnelvision/wireguard"
  install -m 0644 scripts/lib/wireguard.sh "$root/usr/lib/tunnelvision/wireguard.sh"
  install -m 0644 Catalogues/*.json "$root/usr/share/tunnelvision/catalogues/"
  # The unit in the repository names the /usr/local paths of a hand-made install.
  sed -e 's|/usr/local/bin/|/usr/bin/|g' -e 's|/usr/local/lib/tunnelvision/|/usr/lib/tunnelvision/|g' \
    systemd/tunnelvisiond.service >"$root$LAYOUT_UNIT"
  chmod 0644 "$root$LAYOUT_UNIT"
  sed -e 's|/usr/local/bin/|/usr/bin/|g' systemd/tunnelvision-console.service >"$root$LAYOUT_CONSOLE_UNIT"
  chmod 0644 "$root$LAYOUT_CONSOLE_UNIT"
  install -m 0644 systemd/console.conf "$root$LAYOUT_CONSOLE_CONFIG"
  sed -e 's|/usr/local/bin/|/usr/bin/|g' systemd/tunnelvision-archive.service >"$root/lib/systemd/system/tunnelvision-archive.service"
  install -m 0644 systemd/tunnelvision-archive.timer "$root/lib/systemd/system/tunnelvision-archive.timer"
  chmod 0644 "$root/lib/systemd/system/tunnelvision-archive.service"
  install -m 0644 systemd/sysusers.d/tunnelvision.conf "$root/usr/lib/sysusers.d/tunnelvision.conf"
  install -m 0644 systemd/tmpfiles.d/tunnelvision.conf "$root/usr/lib/tmpfiles.d/tunnelvision.conf"
  install -m 0644 systemd/tunnelvisiond.conf "$root$LAYOUT_CONFIG"
}

# Every staged file, relative to the tree (one a line, sorted): the .deb's conffiles and
# scripts/uninstall's list both come from it.
layout_files() {
  (cd "${1:?layout_files needs a staged tree}" && find . -type f -printf '/%P\n' | sort)
}

# Runs one of the .deb's maintainer scripts the way dpkg would (deb-systemd-helper refuses to
# act for anyone else), so that an install by hand takes the package's steps, not a copy of them.
layout_maintainer_script() {
  local name=${1:?layout_maintainer_script needs a script name}
  shift
  DPKG_MAINTSCRIPT_PACKAGE=tunnelvision DPKG_MAINTSCRIPT_NAME=$name "packaging/deb/$name" "$@"
}

# A real PostgreSQL for the archive's check and benchmark (source after expect.sh): Debian's
# initdb and pg_ctl, run as the unprivileged user nobody, in a folder of the run's own, on a Unix
# socket only (no TCP port, so runs at once never meet). ARCHIVE_CONNECTION is libpq's string.

archive_bin() { ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1; }

archive_up() {
  local folder=$1 bin
  bin=$(archive_bin)
  [ -x "$bin/initdb" ] || { echo "no PostgreSQL server binaries (apt-get install postgresql, or scripts/deps test)"; return 1; }
  ARCHIVE_FOLDER=$folder ARCHIVE_BIN=$bin
  mkdir -p "$folder/data" "$folder/socket"
  chown -R nobody "$folder"
  chmod 0711 "$(dirname "$folder")"
  runuser -u nobody -- "$bin/initdb" -D "$folder/data" -U archive --auth=trust -E UTF8 --locale=C.UTF-8 >"$folder/initdb.log" 2>&1 ||
    { tail -5 "$folder/initdb.log"; return 1; }
  ARCHIVE_CONNECTION="host=$folder/socket user=archive dbname=postgres"
  archive_start
}

archive_start() {
  runuser -u nobody -- "$ARCHIVE_BIN/pg_ctl" -D "$ARCHIVE_FOLDER/data" -l "$ARCHIVE_FOLDER/server.log" -w \
    -o "-c listen_addresses='' -c unix_socket_directories='$ARCHIVE_FOLDER/socket' -c fsync=off" start >/dev/null ||
    { tail -5 "$ARCHIVE_FOLDER/server.log"; return 1; }
}

# fast: every session is ended, as a server going down for maintenance ends them.
archive_stop() {
  [ -n "${ARCHIVE_FOLDER:-}" ] && [ -e "$ARCHIVE_FOLDER/data/postmaster.pid" ] || return 0
  runuser -u nobody -- "$ARCHIVE_BIN/pg_ctl" -D "$ARCHIVE_FOLDER/data" -m fast -w stop >/dev/null 2>&1
}

# psql as the archive's owner: unaligned, tuples only.
archive_sql() { psql -X -q -At -v ON_ERROR_STOP=1 "$ARCHIVE_CONNECTION" -c "$1"; }

# A gateway's configuration for tvctl archive: NAME → prints the file's path (mode 600).
archive_config() {
  local file=$ARCHIVE_FOLDER/$1.conf
  printf 'connection = %s\ngateway = %s\n' "$ARCHIVE_CONNECTION" "$1" >"$file"
  chown root "$file"
  chmod 0600 "$file"
  echo "$file"
}

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

# The archive as a server on another host is reached: TCP on loopback with ssl=on and a
# certificate for NAME from a CA of the run's own; libpq is given hostaddr=127.0.0.1, so NAME
# needs no resolver entry and is still the name the certificate is checked against. pg_hba
# refuses TCP without TLS, so a connection that succeeds went through it. Sets ARCHIVE_PORT and
# ARCHIVE_CA; the socket's connection string gains the port.
archive_tls() {
  local name=$1 dir=$ARCHIVE_FOLDER/tls
  mkdir -p "$dir"
  openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 2 -subj "/CN=TunnelVision archive test CA" \
    -addext basicConstraints=critical,CA:TRUE -addext keyUsage=critical,keyCertSign -keyout "$dir/ca.key" -out "$dir/ca.pem" 2>/dev/null &&
  openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -subj "/CN=$name" -keyout "$dir/server.key" -out "$dir/server.csr" 2>/dev/null &&
  openssl x509 -req -in "$dir/server.csr" -CA "$dir/ca.pem" -CAkey "$dir/ca.key" -CAcreateserial -days 2 \
    -extfile <(printf 'subjectAltName=DNS:%s\nextendedKeyUsage=serverAuth\n' "$name") -out "$dir/server.pem" 2>/dev/null ||
    { echo "the archive's TLS certificates could not be made"; return 1; }
  chown nobody "$dir/server.key" "$dir/server.pem"
  chmod 0600 "$dir/server.key"
  printf 'local all all trust\nhostnossl all all all reject\nhostssl all all 127.0.0.1/32 trust\n' >"$ARCHIVE_FOLDER/data/pg_hba.conf"
  chown nobody "$ARCHIVE_FOLDER/data/pg_hba.conf"
  ARCHIVE_PORT=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
  ARCHIVE_CA=$dir/ca.pem
  archive_stop
  runuser -u nobody -- "$ARCHIVE_BIN/pg_ctl" -D "$ARCHIVE_FOLDER/data" -l "$ARCHIVE_FOLDER/server.log" -w \
    -o "-c listen_addresses=127.0.0.1 -c port=$ARCHIVE_PORT -c unix_socket_directories='$ARCHIVE_FOLDER/socket' -c fsync=off -c ssl=on -c ssl_cert_file='$dir/server.pem' -c ssl_key_file='$dir/server.key'" \
    start >/dev/null || { tail -5 "$ARCHIVE_FOLDER/server.log"; return 1; }
  ARCHIVE_CONNECTION="$ARCHIVE_CONNECTION port=$ARCHIVE_PORT"
}

# A gateway's configuration reaching the archive over TCP by NAME: NAME FILE-NAME → the path.
archive_remote_config() {
  local file=$ARCHIVE_FOLDER/$2.conf
  printf 'connection = host=%s hostaddr=127.0.0.1 port=%s user=archive dbname=postgres sslmode=verify-full sslrootcert=%s\ngateway = bench-b\n' \
    "$1" "$ARCHIVE_PORT" "$ARCHIVE_CA" >"$file"
  chmod 0600 "$file"
  echo "$file"
}

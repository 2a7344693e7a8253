# A test time-stamping authority in a folder: a root CA and a TSA certificate it issued, with
# extendedKeyUsage timeStamping (critical, as RFC 3161 §2.3 asks), and the configuration
# `openssl ts -reply` reads (a second section that accepts no SHA-256 query, to refuse one).
#   tsa_make DIR     → DIR/ca.pem (the chain an auditor is given), DIR/tsa.cnf, the keys

tsa_make() {
  local dir=$1
  mkdir -p "$dir"
  openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout "$dir/ca.key" -out "$dir/ca.pem" \
    -subj "/CN=TunnelVision lab TSA root" -days 2 \
    -addext "basicConstraints=critical,CA:TRUE" -addext "keyUsage=critical,keyCertSign,cRLSign" 2>/dev/null
  openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout "$dir/tsa.key" -out "$dir/tsa.csr" \
    -subj "/CN=TunnelVision lab TSA" 2>/dev/null
  printf '%s\n' "basicConstraints=CA:FALSE" "keyUsage=critical,digitalSignature" "extendedKeyUsage=critical,timeStamping" \
    >"$dir/tsa.ext"
  openssl x509 -req -in "$dir/tsa.csr" -CA "$dir/ca.pem" -CAkey "$dir/ca.key" -CAcreateserial -days 2 \
    -extfile "$dir/tsa.ext" -out "$dir/tsa.pem" 2>/dev/null
  echo 01 >"$dir/serial"
  local section
  {
    echo "[ tsa ]"
    echo "default_tsa = tsa_granting"
    for section in tsa_granting tsa_refusing; do
      echo "[ $section ]"
      echo "serial = $dir/serial"
      echo "crypto_device = builtin"
      echo "signer_cert = $dir/tsa.pem"
      echo "certs = $dir/ca.pem"
      echo "signer_key = $dir/tsa.key"
      echo "signer_digest = sha256"
      echo "default_policy = 1.3.6.1.4.1.99999.1"
      if [ "$section" = tsa_granting ]; then echo "digests = sha256"; else echo "digests = sha512"; fi
      echo "accuracy = secs:1"
      echo "ordering = no"
      echo "tsa_name = yes"
      echo "ess_cert_id_chain = no"
      echo "ess_cert_id_alg = sha256"
    done
  } >"$dir/tsa.cnf"
}

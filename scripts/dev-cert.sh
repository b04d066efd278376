#!/usr/bin/env bash
# Makes a development certificate authority and a server certificate it signed, for trying TLS
# on one machine (docs/security.md). Usage: scripts/dev-cert.sh DIR [HOST...]
# Writes DIR/ca.pem (give it to clients: --tls-ca DIR/ca.pem), DIR/server.pem and DIR/server.key
# (softbody-server --tls-cert DIR/server.pem --tls-key DIR/server.key). The certificate names
# localhost, 127.0.0.1 and ::1 plus any HOSTs given; it is valid for 30 days. Not for production:
# a site uses certificates from its own authority.
set -euo pipefail
dir=${1:?usage: scripts/dev-cert.sh DIR [HOST...]}
shift
mkdir -p "$dir"
san="DNS:localhost,IP:127.0.0.1,IP:::1"
for host in "$@"; do
  if [[ $host =~ ^[0-9.:]+$ ]]; then san+=",IP:$host"; else san+=",DNS:$host"; fi
done
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 30 \
  -subj "/CN=softbody development CA" -keyout "$dir/ca.key" -out "$dir/ca.pem" 2>/dev/null
openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -subj "/CN=localhost" \
  -keyout "$dir/server.key" -out "$dir/server.csr" 2>/dev/null
openssl x509 -req -in "$dir/server.csr" -CA "$dir/ca.pem" -CAkey "$dir/ca.key" -CAcreateserial \
  -days 30 -extfile <(printf "subjectAltName=%s\nextendedKeyUsage=serverAuth\n" "$san") \
  -out "$dir/server.pem" 2>/dev/null
rm -f "$dir/server.csr" "$dir/ca.srl"
chmod 600 "$dir/server.key" "$dir/ca.key"
echo "dev-cert: $dir/ca.pem (clients: --tls-ca), $dir/server.pem + $dir/server.key (server: --tls-cert/--tls-key); names $san"

#!/bin/bash
# An S3-compatible store for the scale-out engines (docs/operators.md "Many instances"): OpenStack Swift
# all-in-one from Debian (one replica, tempauth) with its S3 API on http://$S3_BIND:$S3_PORT.
# The tests start it on loopback exactly as shipped; the compose `scale` profile runs it in its
# own container through run.sh. Needs root (the servers run as root here), no systemd.
#   S3_ACCESS_KEY  the S3 access key, as Swift's account:user (e.g. obscura:app)   required
#   S3_SECRET_KEY  its secret                                                       required
#   S3_PORT        default 9000;  S3_BIND  default 127.0.0.1;  D  the state folder (default: a new temporary one)
# Prints the state folder; stop.sh DIR stops it.
set -euo pipefail
S3_PORT=${S3_PORT:-9000}
S3_BIND=${S3_BIND:-127.0.0.1}
: "${S3_ACCESS_KEY:?set S3_ACCESS_KEY (account:user)}" "${S3_SECRET_KEY:?set S3_SECRET_KEY}"
[[ "$S3_ACCESS_KEY" =~ ^[A-Za-z0-9_-]+:[A-Za-z0-9_-]+$ ]] || { echo "S3_ACCESS_KEY must be account:user (letters, digits, _ and -)" >&2; exit 64; }
[[ "$S3_SECRET_KEY" =~ ^[^[:space:]]+$ ]] || { echo "S3_SECRET_KEY must not be empty or hold spaces" >&2; exit 64; }
S3_ACCOUNT=${S3_ACCESS_KEY%%:*}; S3_USER=${S3_ACCESS_KEY##*:}
D=${D:-$(mktemp -d ${TMPDIR:-/tmp}/swift-s3.XXXXXX)}
mkdir -p "$D/etc" "$D/node/d1" "$D/run" "$D/log"
# Servers always read /etc/swift/swift.conf (hash prefix/suffix + policies); the package ships one.
[ -f /etc/swift/swift.conf ] || { mkdir -p /etc/swift; printf '[swift-hash]\nswift_hash_path_suffix = changeme\nswift_hash_path_prefix = changeme\n[storage-policy:0]\nname = Policy-0\ndefault = yes\n' > /etc/swift/swift.conf; }

# Rings: one device d1 per server, 1 replica, 2^6 partitions.
/usr/bin/python3 - "$D/etc" <<'PY'
import sys
from swift.common.ring import RingBuilder
for name, port in (("account", 6202), ("container", 6201), ("object", 6200)):
    b = RingBuilder(6, 1, 1)
    b.add_dev({"id": 0, "region": 1, "zone": 1, "ip": "127.0.0.1", "port": port,
               "device": "d1", "weight": 1, "meta": ""})
    b.rebalance()
    b.get_ring().save(f"{sys.argv[1]}/{name}.ring.gz")
PY

common="[DEFAULT]
bind_ip = 127.0.0.1
workers = 0
user = root
swift_dir = $D/etc
devices = $D/node
mount_check = false
log_udp_host = 127.0.0.1"

for s in account:6202 container:6201 object:6200; do
  n=${s%%:*}; p=${s##*:}
  printf '%s\nbind_port = %s\n[pipeline:main]\npipeline = %s-server\n[app:%s-server]\nuse = egg:swift#%s\n' \
    "$common" "$p" "$n" "$n" "$n" > "$D/etc/$n-server.conf"
done

cat > "$D/etc/proxy-server.conf" <<CONF
${common/bind_ip = 127.0.0.1/bind_ip = $S3_BIND}
bind_port = ${S3_PORT}
[pipeline:main]
pipeline = catch_errors gatekeeper healthcheck proxy-logging cache listing_formats s3api tempauth copy slo dlo proxy-logging proxy-server
[app:proxy-server]
use = egg:swift#proxy
account_autocreate = true
[filter:s3api]
use = egg:swift#s3api
location = us-east-1
[filter:tempauth]
use = egg:swift#tempauth
# the one S3 user: accessKeyId "$S3_ACCESS_KEY", secretAccessKey "$S3_SECRET_KEY"
user_${S3_ACCOUNT}_${S3_USER} = ${S3_SECRET_KEY} .admin
[filter:cache]
use = egg:swift#memcache
memcache_servers = 127.0.0.1:11211
[filter:catch_errors]
use = egg:swift#catch_errors
[filter:gatekeeper]
use = egg:swift#gatekeeper
[filter:healthcheck]
use = egg:swift#healthcheck
[filter:proxy-logging]
use = egg:swift#proxy_logging
[filter:listing_formats]
use = egg:swift#listing_formats
[filter:copy]
use = egg:swift#copy
[filter:slo]
use = egg:swift#slo
[filter:dlo]
use = egg:swift#dlo
CONF

if command -v memcached >/dev/null; then   # optional; without it swift works but logs ECONNREFUSED
  memcached -l 127.0.0.1 -p 11211 -U 0 -u root -m 64 > "$D/log/memcached.log" 2>&1 &
  echo $! > "$D/run/memcached.pid"
fi
for n in account container object proxy; do
  swift-$n-server "$D/etc/$n-server.conf" -v > "$D/log/$n.log" 2>&1 &   # -v: log to stdout
  echo $! > "$D/run/$n.pid"
done
for port in 6200 6201 6202 ${S3_PORT}; do   # wait until every server answers HTTP (max ~30 s each)
  for i in $(seq 1 150); do curl -s -o /dev/null http://$([ $port = ${S3_PORT} ] && echo $S3_BIND || echo 127.0.0.1):$port/ && break; sleep 0.2; done
done
curl -sf http://${S3_BIND}:${S3_PORT}/healthcheck >/dev/null || { echo "swift did not start, see $D/log" >&2; exit 1; }
echo "$D"

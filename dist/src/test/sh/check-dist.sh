#!/bin/sh
# Unpacks the distribution archive and uses it as an operator would, from the archive alone:
# every launcher answers --help without a warning, a PDP started from conf/pdp.xml answers a
# PEP's request made with bin/pep-client, bin/pdp-server with no arguments runs from another
# directory on the install's conf/ and writes under its var/, and the systemd units pass
# systemd-analyze verify (where systemd-analyze exists). Run by `mvn verify` (dist module); fails the build on any miss.
set -eu
tarball=$1
work=$2
# $3 (optional): the checkout's portcullis-crypto.jar
fail() {
  echo "check-dist: $*" >&2
  exit 1
}
rm -rf "$work"
mkdir -p "$work"
tar -xzf "$tarball" -C "$work"
home=$(ls -d "$work"/portcullis-*)

for b in pdp-server pep-client active-router portcullis-crypto pcmm-server; do
  [ -x "$home/bin/$b" ] || fail "bin/$b is not executable"
  "$home/bin/$b" --help >"$work/$b.help" 2>&1 || fail "bin/$b --help failed: $(cat "$work/$b.help")"
  grep -q "^Usage: $b" "$work/$b.help" || fail "bin/$b --help printed no usage: $(cat "$work/$b.help")"
  if grep -qi "warning" "$work/$b.help"; then
    fail "bin/$b printed a warning: $(grep -i warning "$work/$b.help")"
  fi
  # --version is the version the archive was built as (a snapshot says so)
  version=$(basename "$home" | sed 's/^portcullis-//')
  v=$("$home/bin/$b" --version 2>&1) || fail "bin/$b --version failed: $v"
  [ "$v" = "$b $version" ] || fail "bin/$b --version said '$v', not '$b $version'"
done
for c in "pdp-server verify-audit" "pep-client request" "pep-client proxy" "active-router router" \
  "portcullis-crypto status" "pcmm-server cmts-simulator"; do
  # shellcheck disable=SC2086
  "$home/bin/"$c --help >"$work/sub.help" 2>&1 || fail "bin/$c --help failed: $(cat "$work/sub.help")"
done
"$home/bin/portcullis-crypto" status -c "$home/conf/crypto-providers.xml" >"$work/crypto.out" 2>&1 \
  || fail "bin/portcullis-crypto status failed: $(cat "$work/crypto.out")"
grep -q "PortcullisNative" "$work/crypto.out" || fail "no PortcullisNative in the table: $(cat "$work/crypto.out")"
# The checkout's java -jar portcullis-crypto.jar sees the table the servers see: PortcullisNative
# loaded, not MISSING (its jar is jni-native's, which carries the provider).
if [ -n "${3:-}" ] && [ -f "$3" ]; then
  "${JAVA_HOME:+$JAVA_HOME/bin/}java" -jar "$3" status -c "$home/conf/crypto-providers.xml" >"$work/crypto-jar.out" 2>&1 \
    || fail "java -jar portcullis-crypto.jar status failed: $(cat "$work/crypto-jar.out")"
  if grep "PortcullisNative" "$work/crypto-jar.out" | grep -Eq "MISSING|LOAD_FAILED"; then
    fail "java -jar portcullis-crypto.jar does not see PortcullisNative: $(cat "$work/crypto-jar.out")"
  fi
fi
JAVA_HOME=/nonexistent "$home/bin/pdp-server" --help >"$work/nojava.out" 2>&1 && fail "ran without a Java"
grep -q "no Java found" "$work/nojava.out" || fail "no Java, but no clear message: $(cat "$work/nojava.out")"

# A PDP from the sample configuration on a port of its choosing, and one request.
"$home/bin/pdp-server" --config "$home/conf/pdp.xml" --port 0 >"$work/pdp.log" 2>&1 &
pdp=$!
trap 'kill $pdp 2>/dev/null || true' EXIT
port=
i=0
while [ $i -lt 60 ] && [ -z "$port" ]; do
  sleep 0.5
  port=$(sed -n 's/.*PDP listening on [^0-9]*[0-9.]*:\([0-9][0-9]*\).*/\1/p' "$work/pdp.log" | head -n 1)
  kill -0 $pdp 2>/dev/null || fail "the PDP stopped: $(cat "$work/pdp.log")"
  i=$((i + 1))
done
[ -n "$port" ] || fail "the PDP did not listen within 30 s: $(cat "$work/pdp.log")"
"$home/bin/pep-client" request --pdp "127.0.0.1:$port" --subject alice --service ssh \
  --dst 10.1.2.3 --dport 22 --protocol 6 >"$work/pep.out" 2>&1 \
  || fail "bin/pep-client request failed: $(cat "$work/pep.out")"
grep -Eq "^(GRANTED|DENIED)" "$work/pep.out" || fail "no decision printed: $(cat "$work/pep.out")"
if grep -Eq "SLF4J|null|WARN" "$work/pep.out"; then
  fail "bin/pep-client request printed more than its decision: $(cat "$work/pep.out")"
fi
kill $pdp
wait $pdp || true
trap - EXIT
if grep -q "WARN" "$work/pdp.log"; then
  fail "a normal start of the sample PDP logged a warning: $(grep WARN "$work/pdp.log")"
fi

# bin/pdp-server with no arguments, from another directory: conf/pdp.xml of the install, its
# audit log under the install's var/, and bin/pep-client request with no --pdp against it. Port
# 3288 is the sample's; where something else holds it this part says so and is skipped.
in_use=false
if command -v bash >/dev/null 2>&1 && bash -c 'exec 3<>/dev/tcp/127.0.0.1/3288' 2>/dev/null; then
  in_use=true
fi
if ! $in_use; then
  grep -rq "target/\|config/\|java -jar" "$home/conf" \
    && fail "the archive's samples still speak of a checkout: $(grep -rn "target/\|config/\|java -jar" "$home/conf" | head -n 3)"
  mkdir -p "$work/elsewhere"
  (cd "$work/elsewhere" && exec "$home/bin/pdp-server") >"$work/pdp0.log" 2>&1 &
  pdp=$!
  trap 'kill $pdp 2>/dev/null || true' EXIT
  i=0
  # the launcher's own line, printed after the server's log line of the same words: waiting for
  # the log line alone and then looking for this one raced (it failed whenever 3288 was free)
  while [ $i -lt 60 ] && ! grep -q "PDP listening on 127.0.0.1:3288" "$work/pdp0.log"; do
    sleep 0.5
    kill -0 $pdp 2>/dev/null || fail "bin/pdp-server with no arguments stopped: $(cat "$work/pdp0.log")"
    i=$((i + 1))
  done
  grep -q "PDP listening on 127.0.0.1:3288" "$work/pdp0.log" \
    || fail "bin/pdp-server with no arguments did not listen on 3288: $(cat "$work/pdp0.log")"
  (cd "$work/elsewhere" && "$home/bin/pep-client" request --subject alice --service ssh \
    --dst 10.1.2.3 --dport 22 --protocol 6) >"$work/pep0.out" 2>&1 \
    || fail "bin/pep-client request (no --pdp) failed: $(cat "$work/pep0.out")"
  grep -Eq "^(GRANTED|DENIED)" "$work/pep0.out" || fail "no decision printed: $(cat "$work/pep0.out")"
  kill $pdp
  wait $pdp || true
  trap - EXIT
  [ -s "$home/var/pdp-audit.jsonl" ] || fail "no audit log in the install's var/: $(ls -R "$home")"
  [ -z "$(ls -A "$work/elsewhere")" ] || fail "wrote into the working directory: $(ls -A "$work/elsewhere")"
else
  echo "check-dist: port 3288 is in use here; bin/pdp-server with no arguments was not run"
fi

# The systemd units, pointed at this unpacked copy.
if command -v systemd-analyze >/dev/null 2>&1; then
  units="$work/units"
  mkdir -p "$units"
  for u in "$home"/systemd/*.service; do
    name=$(basename "$u")
    case "$name" in *@.service) name=$(echo "$name" | sed 's/@\.service$/@ar-1.service/') ;; esac
    sed "s|/opt/portcullis|$home|g" "$u" >"$units/$name"
  done
  SYSTEMD_LOG_LEVEL=warning systemd-analyze verify --man=no "$units"/*.service >"$work/units.out" 2>&1 \
    || fail "systemd-analyze verify: $(cat "$work/units.out")"
  if [ -s "$work/units.out" ]; then
    fail "systemd-analyze verify complained: $(cat "$work/units.out")"
  fi
else
  echo "check-dist: systemd-analyze not found; the units were not verified"
fi
echo "check-dist: $(basename "$tarball") unpacks and runs (PDP on port $port answered: $(head -n 1 "$work/pep.out"))"

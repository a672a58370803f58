#!/usr/bin/env bash
# ctte-board --listen refuses unsafe or unchecked set-ups before it listens (issue #27), and
# ctte-lab lab issue/revoke check their inputs: each case must exit 2 with its reason.
#   net_agent_flags_test.sh SRC BUILD
set -euo pipefail
src=$1 build=$2
lab=$build/bin/ctte-lab board=$build/bin/ctte-board
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
"$lab" lab init-ca ca >/dev/null
"$lab" lab issue b1 --role board --ca ca --out c >/dev/null
fails=0
expect() {  # NAME REASON CMD...: CMD must exit 2 (within 5 s) and print REASON
  local name=$1 reason=$2 rc=0
  shift 2
  timeout 5 "$@" >out.txt 2>&1 || rc=$?
  if [ "$rc" -ne 2 ] || ! grep -qF -- "$reason" out.txt; then
    echo "FAIL: $name: exit $rc (expected 2 with '$reason'):"; sed 's/^/  /' out.txt
    fails=$((fails + 1))
  else
    echo "ok: $name"
  fi
}
agent=(--listen tcp:127.0.0.1:0 --cert c/b1.crt --key c/b1.key --ca ca/ca.crt)
expect test_ops_with_listen "--test-ops is refused with --listen" \
  "$board" "${agent[@]}" --allow r1 --image-dir ca --test-ops
expect no_allowlist "--listen needs --allow" "$board" "${agent[@]}" --image-dir ca
expect bad_allowed_name "allowed runner name 'a b'" "$board" "${agent[@]}" --allow 'r1,a b' --image-dir ca
expect missing_allow_file "--allow-file nowhere: cannot read it" \
  "$board" "${agent[@]}" --allow-file nowhere --image-dir ca
expect sim_without_image_dir "needs --image-dir DIR" "$board" "${agent[@]}" --allow r1
expect handshake_timeout_range "--handshake-timeout: Value 2147484 not in range" \
  "$board" "${agent[@]}" --allow r1 --image-dir ca --handshake-timeout 2147484
expect lease_timeout_range "--lease-timeout: Value 0 not in range" \
  "$board" "${agent[@]}" --allow r1 --image-dir ca --lease-timeout 0
expect max_handshakes_range "--max-handshakes: Value 0 not in range" \
  "$board" "${agent[@]}" --allow r1 --image-dir ca --max-handshakes 0
expect per_address_over_total "max_handshakes_per_address 9 out of range: expected 1..max_handshakes (8)" \
  "$board" "${agent[@]}" --allow r1 --image-dir ca --max-handshakes 8 --max-handshakes-per-address 9
expect connection_rate_range "--max-connection-rate: Value 10001 not in range" \
  "$board" "${agent[@]}" --allow r1 --image-dir ca --max-connection-rate 10001
expect request_rate_range "--max-request-rate: Value 0 not in range" \
  "$board" "${agent[@]}" --allow r1 --image-dir ca --max-request-rate 0
expect cache_bytes_range "--cache-bytes: Value 1024 not in range" \
  "$board" "${agent[@]}" --allow r1 --image-dir ca --cache-bytes 1K
expect image_cap_over_cache "max_image_bytes 268435456 out of range: expected 1..67108864" \
  "$board" "${agent[@]}" --allow r1 --image-dir ca --cache-bytes 64M
expect put_cap_over_frame "max_put_bytes 1073741824 out of range: expected 1..536870912" \
  "$board" "${agent[@]}" --allow r1 --image-dir ca --max-put-bytes 1G
chmod 640 c/b1.key
expect key_readable_by_group "has mode 0640: group or others may access it" \
  "$board" "${agent[@]}" --allow r1 --image-dir ca
chmod 600 c/b1.key
expect issue_without_role "--role is required" "$lab" lab issue r2 --ca ca --out c
expect issue_days_range "--days: Value 3651 not in range" \
  "$lab" lab issue r2 --role runner --days 3651 --ca ca --out c
expect revoke_unknown "NotFound" "$lab" lab revoke nobody --ca ca --out c
[ "$fails" -eq 0 ] || exit 1
echo "all refused"

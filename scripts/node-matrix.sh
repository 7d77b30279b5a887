#!/usr/bin/env bash
# Run the client's and the server's test files on other Node majors (default: 22 and 24), with Node
# binaries taken from the npm registry (the `node` package ships the binary; npx caches it, so only
# the first run downloads ~30 MB per major). The packages must be built (`npm run build`).
#   scripts/node-matrix.sh            # 22 and 24
#   scripts/node-matrix.sh 22         # one major
#   NODE_MATRIX_TIMEOUT=300 scripts/node-matrix.sh
set -uo pipefail
cd "$(dirname "$0")/.."
export NO_UPDATE_NOTIFIER=1 npm_config_update_notifier=false npm_config_fund=false npm_config_audit=false

majors=("$@")
[ ${#majors[@]} -eq 0 ] && majors=(22 24)
limit="${NODE_MATRIX_TIMEOUT:-600}"
paths=(packages/client packages/server)
failed=()

for major in "${majors[@]}"; do
  echo "== Node ${major}: fetching the binary from the npm registry"
  if ! version=$(timeout 300 npx -y -p "node@${major}" -- node --version); then
    echo "could not fetch node@${major}"; failed+=("$major"); continue
  fi
  case "$version" in
    "v${major}."*) ;;
    *) echo "npx gave ${version}, not Node ${major}"; failed+=("$major"); continue ;;
  esac
  echo "== Node ${version}: vitest run ${paths[*]}"
  # --typecheck.enabled=false: the type-level tests do not depend on the runtime; they run once, on Node 20.
  if ! timeout "$limit" npx -y -p "node@${major}" -- node node_modules/vitest/vitest.mjs run \
      --typecheck.enabled=false --reporter=dot "${paths[@]}"; then
    failed+=("$major")
  fi
done

if [ ${#failed[@]} -gt 0 ]; then
  echo "node matrix failed on: ${failed[*]}"
  exit 1
fi
echo "node matrix passed on: ${majors[*]}"

#!/usr/bin/env bash
# `npm run test:matrix`: the test runs that need a Node major other than the one `npm test` runs on,
# with Node binaries taken from the npm registry (the `node` package ships the binary; npx caches it,
# so only the first run downloads about 30 MB per major). The packages must be built (`npm run build`).
# Each run writes a vitest JSON report to .vitest-reports/; the last line printed is `N passed,
# M failed` over all of them (scripts/summary.mjs), and the exit status is 1 when any run failed or
# could not start.
#   scripts/node-matrix.sh               # every run
#   scripts/node-matrix.sh 22            # the runs on Node 22 only
#   scripts/node-matrix.sh --reports     # the report file of each run, one a line; runs nothing
#   NODE_MATRIX_TIMEOUT=300 scripts/node-matrix.sh
set -uo pipefail
cd "$(dirname "$0")/.."
export NO_UPDATE_NOTIFIER=1 npm_config_update_notifier=false npm_config_fund=false npm_config_audit=false

# One run a line: the Node majors (comma-separated), a name, a vitest config, then the test paths it
# runs (none: the config's own include). Only what differs on those majors runs here: the majors of msw,
# Vitest and Jest that need them, a consumer on today's majors, and node:http and fetch themselves (the
# contract over HTTP, HTTP framing and hostile clients); `npm test` runs everything else once, on Node 20.
# A suite that needs another runtime or newer majors gets its own vitest.<name>.config.ts and a line here;
# its counts then reach CI's summary line.
RUNS='
22,24 http     vitest.config.ts          test/contract/server.test.ts packages/server/test/http-framing.test.ts test/hardening/hostile-http.test.ts
22,24 msw3     vitest.msw3.config.ts
22    consumer vitest.consumer.config.ts
22    frontend-vitest vitest.frontend.config.ts test/packaging/frontend-vitest.test.ts
22    frontend-playwright vitest.frontend.config.ts test/packaging/frontend-playwright.test.ts
24    frontend-jest   vitest.frontend.config.ts test/packaging/frontend-jest.test.ts
'

# shellcheck source=scripts/matrix-lib.sh
. scripts/matrix-lib.sh
matrix_arguments "$@"
limit="${NODE_MATRIX_TIMEOUT:-600}"
report_dir=.vitest-reports

if ! $list_only; then
  matrix_built core store-file client server msw
  mkdir -p "$report_dir"
fi

declare -A node_version=()
while read -r majors name config paths; do
  [ -z "$majors" ] && continue
  for major in ${majors//,/ }; do
    wanted "$major" || continue
    report="${report_dir}/node${major}-${name}.json"
    reports+=("$report")
    if $list_only; then echo "$report"; continue; fi
    # A report left by an earlier run must never stand in for this one.
    rm -f "$report"
    if [ -z "${node_version[$major]:-}" ]; then
      echo "== Node ${major}: fetching the binary from the npm registry"
      version=$(timeout 300 npx -y -p "node@${major}" -- node --version) || version=""
      case "$version" in
        "v${major}."*) node_version[$major]="$version" ;;
        *) echo "could not fetch node@${major} (got '${version}')"; failed+=("node${major}-${name}"); continue ;;
      esac
    fi
    echo "== Node ${node_version[$major]}: ${name} (${config}${paths:+ ${paths}})"
    # --typecheck.enabled=false: the type-level tests do not depend on the runtime; `npm test` runs them.
    # shellcheck disable=SC2086 # the paths are words
    if ! timeout "$limit" npx -y -p "node@${major}" -- node node_modules/vitest/vitest.mjs run \
        --config "$config" --typecheck.enabled=false --reporter=dot --reporter=json \
        --outputFile.json="$report" $paths; then
      failed+=("node${major}-${name}")
    fi
  done
done <<< "$RUNS"
$list_only && exit 0
matrix_finish "node matrix"

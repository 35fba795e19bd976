#!/usr/bin/env bash
# Runs the breadth tests in full, without -race: the tests that call
# testcorpus.SkipUnderRace (every input of a corpus, every committed seed,
# many random rounds), which the race-detector run of the test command
# skips, saying so. They are found in the test files, as fuzz.sh finds the
# fuzz targets, so a new one runs without being listed here. Arguments are
# go test flags (for example -v), after the step's own.
#
#   bash .ci/breadth.sh
set -euo pipefail
cd "$(dirname "$0")/.."

# "./pkg TestName" for each top-level Test or Fuzz function of a test file
# whose body calls testcorpus.SkipUnderRace; "? FILE:LINE" for a call
# outside one, which this step could not run.
mapfile -t found < <(
  git ls-files '*_test.go' | xargs awk '
    FNR == 1 { name = "" }
    /^func / { name = "" }
    /^func (Test|Fuzz)[A-Za-z0-9_]*\(/ { name = $2; sub(/\(.*/, "", name) }
    /testcorpus\.SkipUnderRace\(/ {
      if (name == "") { print "? " FILENAME ":" FNR; next }
      d = FILENAME; if (!sub(/\/[^\/]*$/, "", d)) d = "."
      print (d == "." ? "." : "./" d), name
    }' | sort -u
)
if [ ${#found[@]} -eq 0 ]; then
  echo "breadth.sh: no test calls testcorpus.SkipUnderRace" >&2
  exit 1
fi
for f in "${found[@]}"; do
  if [[ $f == "? "* ]]; then
    echo "breadth.sh: testcorpus.SkipUnderRace called outside a Test or Fuzz function, at ${f#? }: call it in the test itself" >&2
    exit 1
  fi
done
pkgs=() names=()
for f in "${found[@]}"; do
  read -r pkg name <<<"$f"
  case " ${pkgs[*]} " in *" $pkg "*) ;; *) pkgs+=("$pkg") ;; esac
  names+=("$name")
done
run="^($(IFS='|'; echo "${names[*]}"))\$"
echo "== breadth tests without -race: ${names[*]}"
go run ./internal/testrun -timeout 8m -run "$run" "$@" "${pkgs[@]}"

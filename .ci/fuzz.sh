#!/usr/bin/env bash
# Runs every fuzz target for a short, bounded time (FUZZTIME, default 10s
# each), one after the other, on top of its committed seed corpus
# (testdata/fuzz/<target> beside each package). A finding fails the script;
# go test writes the failing input under testdata/fuzz/<target>/ to commit
# with the fix. Run a target longer by hand, e.g.:
#
#   go test ./runtime -run '^$' -fuzz '^FuzzDispatch$' -fuzztime 10m -parallel 1
set -euo pipefail
cd "$(dirname "$0")/.."

FUZZTIME=${FUZZTIME:-10s}
targets=(
  "./gen FuzzGenerate"
  "./gen FuzzSnapshot"
  "./gen FuzzClassification"
  "./gen/internal/load FuzzLoadSnapshot"
  "./gen/internal/load FuzzLoadClassification"
  "./gen/internal/load FuzzMembers"
  "./gen/internal/model FuzzFoldDistinct"
  "./internal/tmpl FuzzParse"
  "./runtime FuzzDispatch"
  "./runtime FuzzTape"
  "./runtime FuzzSchemaCheck"
  "./runtime FuzzTextContentJSON"
)
for t in "${targets[@]}"; do
  read -r pkg name <<<"$t"
  echo "== fuzz $pkg $name ($FUZZTIME)"
  go test "$pkg" -run '^$' -fuzz "^${name}\$" -fuzztime "$FUZZTIME"
done

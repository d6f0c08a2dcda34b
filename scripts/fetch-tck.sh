#!/usr/bin/env bash
# Fetches the openCypher TCK (Technology Compatibility Kit) feature files from Maven Central
# and unpacks them into a cache directory outside the checkout (the feature files are never
# checked in). Idempotent: returns at once when the features are already there.
#
#   scripts/fetch-tck.sh            # -> ~/.cache/hopdb/tck-1.0.0-M23/features
#   HOPDB_TCK_DIR=/x scripts/fetch-tck.sh   # -> /x/features
#
# Prints the features directory on stdout as its last line. Needs mvn and unzip.
set -euo pipefail

TCK_VERSION="${HOPDB_TCK_VERSION:-1.0.0-M23}"
TCK_DIR="${HOPDB_TCK_DIR:-$HOME/.cache/hopdb/tck-$TCK_VERSION}"
FEATURES="$TCK_DIR/features"
STAMP="$TCK_DIR/.complete"

if [ -f "$STAMP" ] && [ -d "$FEATURES" ]; then
  echo "$FEATURES"
  exit 0
fi

command -v mvn >/dev/null 2>&1 || { echo "fetch-tck: mvn (Maven) is not installed" >&2; exit 2; }
command -v unzip >/dev/null 2>&1 || { echo "fetch-tck: unzip is not installed" >&2; exit 2; }

ARTIFACT="org.opencypher:tck:$TCK_VERSION"
echo "fetch-tck: downloading $ARTIFACT with Maven" >&2
LOG="$(mktemp)"
if ! mvn -q -B -Dstyle.color=never dependency:get -Dartifact="$ARTIFACT" -Dtransitive=false >"$LOG" 2>&1; then
  cat "$LOG" >&2
  rm -f "$LOG"
  echo "fetch-tck: mvn dependency:get $ARTIFACT failed" >&2
  exit 1
fi
rm -f "$LOG"

M2_REPO="${HOPDB_M2_REPO:-$HOME/.m2/repository}"
JAR="$M2_REPO/org/opencypher/tck/$TCK_VERSION/tck-$TCK_VERSION.jar"
[ -f "$JAR" ] || { echo "fetch-tck: $JAR not found after download" >&2; exit 1; }

mkdir -p "$(dirname "$TCK_DIR")"
# Unpack into a temporary sibling, then move into place, so an interrupted run leaves nothing half-done.
TMP="$(mktemp -d "${TCK_DIR%/}.tmp.XXXXXX")"
trap 'rm -rf "$TMP"' EXIT
unzip -q -o "$JAR" 'features/*' 'graphs/*' -d "$TMP" >&2 || unzip -q -o "$JAR" 'features/*' -d "$TMP" >&2
mkdir -p "$TCK_DIR"
rm -rf "$FEATURES" "$TCK_DIR/graphs"
mv "$TMP/features" "$FEATURES"
[ -d "$TMP/graphs" ] && mv "$TMP/graphs" "$TCK_DIR/graphs"
touch "$STAMP"
echo "fetch-tck: $(find "$FEATURES" -name '*.feature' | wc -l) feature files in $FEATURES" >&2
echo "$FEATURES"

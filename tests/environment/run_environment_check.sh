#!/usr/bin/env bash
# Every KOPT_* environment variable the sources read (getenv, or a name kopt sets
# or looks up as a string) is documented in docs/environment.md, and every one of
# that page's user and internal variables is in `kopt man`'s ENVIRONMENT section.
# Usage: run_environment_check.sh KOPT_BINARY REPO_ROOT
set -u
kopt=$1
repo=$2
fail=0
# The names the program sources use (not the unit tests', which docs/environment.md lists apart).
used=$(grep -rhoE '"KOPT_[A-Z0-9_]+"' "$repo/src" --include='*.cc' --include='*.h' --include='*.cu' \
         --exclude='*_test.cc' --exclude='*_test_util.h' | tr -d '"' | sort -u)
page=$(cat "$repo/docs/environment.md")
man=$("$kopt" man | sed -n '/^\.SH ENVIRONMENT/,/^\.SH FILES/p')
[ -n "$man" ] || { echo "FAIL: kopt man has no ENVIRONMENT section"; exit 1; }
for name in $used; do
  if ! grep -q "\`$name\`" <<< "$page"; then
    echo "FAIL: $name is read by src/ but not documented in docs/environment.md"
    fail=1
  fi
done
# The page's tables (user-facing and internal) and the man page list the same names.
table=$(grep -oE '^\| `[A-Z_]+`' "$repo/docs/environment.md" | grep -oE '[A-Z_]+' | sort -u)
for name in $table; do
  if ! grep -q "^\.B $name\$" <<< "$man"; then
    echo "FAIL: $name is in docs/environment.md but not in kopt man's ENVIRONMENT"
    fail=1
  fi
done
for name in $(grep -oE '^\.B [A-Z_]+$' <<< "$man" | cut -c4-); do
  if ! grep -q "\`$name\`" <<< "$page"; then
    echo "FAIL: $name is in kopt man's ENVIRONMENT but not in docs/environment.md"
    fail=1
  fi
done
[ "$fail" = 0 ] && echo "environment check: $(wc -w <<< "$used") variables documented"
exit "$fail"

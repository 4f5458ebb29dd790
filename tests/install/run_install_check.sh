#!/usr/bin/env bash
# `cmake --install` into a temporary prefix, then the installed kopt run from
# <prefix>/bin as a user would have it on PATH: `kopt --version` names the
# version and the commit the build was configured from, the programs kopt finds
# beside itself are there, and a report comes out of a fixture.
# Usage: run_install_check.sh BUILD_DIR REPO_ROOT
set -u
build=$1
repo=$2
prefix=$(mktemp -d "${TMPDIR:-/tmp}/kopt-install.XXXXXX")
trap 'rm -rf "$prefix"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
cmake --install "$build" --prefix "$prefix" > "$prefix.log" 2>&1 || { cat "$prefix.log"; fail "cmake --install"; }
rm -f "$prefix.log"
export PATH="$prefix/bin:/usr/bin:/bin"
[ "$(command -v kopt)" = "$prefix/bin/kopt" ] || fail "kopt is not on PATH from $prefix/bin"
[ -x "$prefix/bin/kopt-launcher" ] || fail "kopt-launcher is not installed beside kopt"
[ -d "$prefix/share/kopt/prompts/explain" ] || fail "the prompt templates are not in share/kopt/prompts"
[ -s "$prefix/share/man/man1/kopt.1" ] || fail "the man page is not in share/man/man1/kopt.1"
grep -q '^\.SH ENVIRONMENT' "$prefix/share/man/man1/kopt.1" || fail "the man page has no ENVIRONMENT section"
if command -v man > /dev/null; then
  MANPATH="$prefix/share/man" man -P cat kopt 2> /dev/null | grep -q "kopt explain" || fail "man kopt does not render"
fi
[ -s "$prefix/share/bash-completion/completions/kopt" ] || fail "the bash completion is not installed"
[ -s "$prefix/share/zsh/site-functions/_kopt" ] || fail "the zsh completion is not installed"
# The completion offers the commands, and an option of the command being typed (in an empty directory:
# no file name completes).
mkdir "$prefix/empty"
completions=$(cd "$prefix/empty" && bash -c 'source "$1"; COMP_WORDS=(kopt ex); COMP_CWORD=1; _kopt; echo "${COMPREPLY[*]}";
  COMP_WORDS=(kopt explain --col); COMP_CWORD=2; _kopt; echo "${COMPREPLY[*]}";
  COMP_WORDS=(kopt suite st); COMP_CWORD=2; _kopt; echo "${COMPREPLY[*]}"' bash \
  "$prefix/share/bash-completion/completions/kopt") || fail "the bash completion script failed"
[ "$completions" = $'explain\n--color\nstatus' ] || fail "bash completion: got '$completions'"
version=$(kopt --version) || fail "kopt --version exited $?"
echo "$version"
[[ "$version" =~ ^kopt\ [0-9]+\.[0-9]+\.[0-9]+\ \(commit\ ([0-9a-f]{7,}(-dirty)?|unknown)\)$ ]] ||
  fail "kopt --version: expected 'kopt X.Y.Z (commit HASH)', got '$version'"
commit=$(git -C "$repo" rev-parse HEAD 2>/dev/null)
configured=$(sed -n 's/.*(commit \([0-9a-f]*\).*/\1/p' <<< "$version")
if [ -n "$commit" ] && [ -n "$configured" ]; then
  [[ "$commit" == "$configured"* ]] || echo "note: configured at $configured, HEAD is now $commit (reconfigure to update)"
fi
(cd "$prefix" && NO_COLOR=1 KOPT_NO_GPU_QUERY=1 kopt explain "$repo/tests/fixtures/h200/uncoalesced_loads/raw.csv" \
  > "$prefix/report.txt" 2>&1) || fail "the installed kopt could not explain a fixture"
grep -q "FINDINGS" "$prefix/report.txt" || fail "no findings in the installed kopt's report"
echo "install check: passed"

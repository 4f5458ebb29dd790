#!/usr/bin/env bash
# The command table (src/cli/commands.cc) seen from outside: every command the
# table names (the error for an unknown command lists them, from the table)
# parses back to itself (`kopt NAME --help` is that command's help), is listed
# by `kopt --help`, has its section in the man page and its case in both
# completion scripts, and a near miss of its name suggests it.
# Usage: run_command_table_check.sh KOPT_BINARY
set -u
kopt=$1
failed=0
fail() {
  echo "FAIL $*"
  failed=$((failed + 1))
}
unknown=$("$kopt" no-such-command 2>&1)
names=$(printf '%s\n' "$unknown" | sed -n 's/.*; the commands are \(.*\) (kopt --help describes them)$/\1/p' | tr -d ',')
[ -n "$names" ] || { echo "FAIL no command list in: $unknown"; exit 1; }
top=$("$kopt" --help)
man_page=$("$kopt" man)
bash_script=$("$kopt" completion bash)
zsh_script=$("$kopt" completion zsh)
count=0
for name in $names; do
  count=$((count + 1))
  help=$("$kopt" "$name" --help 2>&1) || fail "$name: kopt $name --help exits $?"
  printf '%s\n' "$help" | grep -q "^Usage: kopt $name " || fail "$name: kopt $name --help is not its help"
  printf '%s\n' "$top" | grep -q "^  $name  " || fail "$name: not listed by kopt --help"
  printf '%s\n' "$man_page" | grep -qx ".SS \"kopt $name\"" || fail "$name: no section in kopt man"
  printf '%s\n' "$bash_script" | grep -q "^    $name) options=" || fail "$name: no case in the bash completion"
  printf '%s\n' "$zsh_script" | grep -q "^    $name) options=" || fail "$name: no case in the zsh completion"
  near=$("$kopt" "${name}x" 2>&1)
  printf '%s\n' "$near" | grep -qF "(did you mean \"$name\"?)" || fail "$name: ${name}x does not suggest it: $near"
done
listed=$(printf '%s\n' "$top" | sed -n '/^Subcommands:/,$p' | grep -c '^  [a-z]')
[ "$listed" = "$count" ] || fail "kopt --help lists $listed commands, the table $count"
echo "command table: $count commands, $failed failures"
[ "$failed" = 0 ]

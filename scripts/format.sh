#!/usr/bin/env bash
# ns-3's code style (.clang-format at the top of the repository) on every C++ file of the project.
#   scripts/format.sh check   list the files clang-format would change; exit 1 if there is one
#   scripts/format.sh apply   rewrite them in place
# make format-check / make format run it. Needs clang-format 14 (Debian 12's; scripts/install-deps.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
mode=${1:-check}
if ! command -v clang-format >/dev/null 2>&1; then
  echo "format: clang-format is missing: sudo apt-get install clang-format (or make deps)" >&2
  exit 2
fi
# The project's own C++ files (the fuzz corpus is data; schema code is generated at build time).
if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
  mapfile -t files < <(git ls-files -- '*.cc' '*.h' | grep -v '^test/fuzz/corpus/')
else
  mapfile -t files < <(find model helper utils examples scratch bench test -name '*.cc' -o -name '*.h' |
                       grep -v '^test/fuzz/corpus/' | sort)
fi
case $mode in
  apply)
    clang-format -i "${files[@]}"
    ;;
  check)
    differ=()
    for file in "${files[@]}"; do
      if ! clang-format --dry-run -Werror "$file" >/dev/null 2>&1; then
        differ+=("$file")
      fi
    done
    if [ ${#differ[@]} -ne 0 ]; then
      echo "format: ${#differ[@]} of ${#files[@]} files differ from .clang-format (make format fixes them):" >&2
      printf '  %s\n' "${differ[@]}" >&2
      exit 1
    fi
    echo "format: ${#files[@]} files follow .clang-format"
    ;;
  *)
    echo "usage: scripts/format.sh check|apply" >&2
    exit 2
    ;;
esac

#!/usr/bin/env bash
# Regenerates docs/isa-coverage.md from the opcode and handler tables and the test PTX.
set -euo pipefail
cd "$(dirname "$0")/.."
cmake --build build --target isa_coverage >/dev/null
mapfile -t files < <(git ls-files '*.ptx' | sort)
build/src/tools/isa_coverage "${files[@]}" > docs/isa-coverage.md
echo "wrote docs/isa-coverage.md"

#!/usr/bin/env bash
# Builds and runs the libFuzzer targets outside the main (g++) build.
#   run_fuzz.sh build SRC_DIR BUILD_DIR CLANGXX
#       configure BUILD_DIR with clang, ASan+UBSan and coverage instrumentation
#       and build only the fuzz_* targets
#   run_fuzz.sh run BUILD_DIR TARGET CORPUS_DIR [libFuzzer flags...]
#       fuzz for $SOFTGPU_FUZZ_SECONDS s (default: $SOFTGPU_FUZZ_DEFAULT_SECONDS,
#       which ctest sets per target, else 30) starting from CORPUS_DIR; new
#       inputs go to BUILD_DIR/new-corpus-TARGET, the committed corpus is only
#       read; a crash leaves its input in BUILD_DIR/artifacts/ and fails.
set -euo pipefail
mode=$1; shift
case "$mode" in
build)
  src=$1 dir=$2 cxx=$3
  cc=${cxx/clang++/clang}
  san="-fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=undefined"
  mkdir -p "$dir"
  # libFuzzer's runtime ships separately on Debian (libclang-rt-14-dev, only
  # a Recommends of clang); say so plainly rather than fail in the link.
  printf 'extern "C" int LLVMFuzzerTestOneInput(const char*, unsigned long) { return 0; }\n' >"$dir/probe.cpp"
  if ! "$cxx" -fsanitize=fuzzer,address,undefined "$dir/probe.cpp" -o "$dir/probe" >"$dir/probe.log" 2>&1; then
    cat "$dir/probe.log"
    echo "run_fuzz.sh: $cxx cannot link a libFuzzer+ASan+UBSan program; install libclang-rt-14-dev"
    exit 1
  fi
  # Configure and build only what the fuzzers need; the rest of the tree is
  # configured but not compiled.
  cmake -S "$src" -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DCMAKE_CXX_COMPILER="$cxx" -DCMAKE_C_COMPILER="$cc" \
    -DCMAKE_CXX_FLAGS="$san -fno-omit-frame-pointer" -DCMAKE_C_FLAGS="$san" \
    -DSOFTGPU_BUILD_FUZZERS=ON -DSOFTGPU_BUILD_TESTS=ON -DSOFTGPU_BUILD_CUDA_TESTS=OFF \
    -DSOFTGPU_BUILD_BENCH=OFF >"$dir.configure.log" 2>&1 ||
    { cat "$dir.configure.log"; echo "run_fuzz.sh: clang configure failed"; exit 1; }
  cmake --build "$dir" -j 2 --target fuzz_fatbin fuzz_ptx_parser fuzz_loading fuzz_runtime_api
  ;;
run)
  dir=$1 target=$2 corpus=$3; shift 3
  exe="$dir/tests/fuzz/$target"
  # (a build of a wrapper project may place tests/fuzz elsewhere)
  [ -x "$exe" ] || exe=$(find "$dir" -name "$target" -type f -perm -u+x 2>/dev/null | head -n1)
  [ -n "$exe" ] && [ -x "$exe" ] || { echo "run_fuzz.sh: $target not built in $dir"; exit 1; }
  new="$dir/new-corpus-$target"
  mkdir -p "$new" "$dir/artifacts"
  export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1}
  export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
  "$exe" -max_total_time="${SOFTGPU_FUZZ_SECONDS:-${SOFTGPU_FUZZ_DEFAULT_SECONDS:-30}}" -timeout=10 -rss_limit_mb=2048 \
    -max_len=16384 -print_final_stats=1 -artifact_prefix="$dir/artifacts/$target-" "$@" "$new" "$corpus"
  ;;
*)
  echo "usage: run_fuzz.sh build SRC BUILD CLANGXX | run BUILD TARGET CORPUS [flags]"; exit 2 ;;
esac

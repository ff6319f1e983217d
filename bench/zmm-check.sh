#!/usr/bin/env bash
# Checks that the AVX-512 code in a fasthash binary really runs on ZMM registers: for every
# function compiled for the AVX-512 tier (the lane kernels' entry points, XXH3's 512-bit
# stripe loop and last stripe, SHA-512's one-stream kernel), counts its instructions that name
# a ZMM register, and its calls to intrinsics or lane operations (one that failed to inline
# would be such a call, and slow). The AVX2 lane tiers' entry points the same way, on YMM
# registers. Exits 1 if no such function is found, or one uses no such register or calls a
# lane operation.
#
#   bench/zmm-check.sh [BINARY]
#
# BINARY must keep its symbols. The default is a release build with them, in
# target/zmm-check (built if missing): the release profile strips them.
set -euo pipefail
cd "$(dirname "$0")/.."
binary=${1:-target/zmm-check/release/fasthash}
if [ ! -x "$binary" ] && [ $# -eq 0 ]; then
  cargo build --release --locked --target-dir target/zmm-check --config 'profile.release.strip="none"'
fi
command -v objdump >/dev/null || { echo "objdump is needed (binutils)" >&2; exit 2; }

objdump -d --no-show-raw-insn -C "$binary" | awk '
  /^[0-9a-f]+ <.*>:$/ {
    name = $0; sub(/^[0-9a-f]+ </, "", name); sub(/>:$/, "", name)
    avx512 = (name ~ /Avx512x(16|8) as fasthash::kernels::lanes::multi::LaneTier>::[a-z_]+::run/ \
              || name ~ /xxh3::avx512::(stripes|last_stripe)_avx512/ \
              || name ~ /sha512_avx512::compress_blocks$/)
    # The AVX2 lane tiers: YMM registers, and the same rule of no call left inside.
    avx2 = (name ~ /Avx2x(16|4) as fasthash::kernels::lanes::multi::LaneTier>::[a-z_]+::run/)
    # One demangled name stands for every monomorph (one per lane kernel): add them up.
    if (avx512 || avx2) found[name]++
    current = (avx512 || avx2) ? name : ""
    register[name] = avx512 ? "zmm" : "ymm"
    next
  }
  current != "" && /^ +[0-9a-f]+:/ {
    insns[current]++
    if ($0 ~ register[current]) used[current]++
    # Intrinsics, lane operations, the opaque round constants, closures (of the kernels, or
    # of `array::from_fn`: they carry intrinsics out of line with them, compiled without the
    # features of the tier, so each intrinsic in them is a call) must all have inlined.
    # Drop glue of iterators over vectors (nothing to drop) is not counted: an incremental
    # test build may leave it out of line, depending on how its code units fall.
    if ($0 ~ /\tcall/ && $0 !~ /<core::ptr::drop_in_place</ && $0 ~ /core_arch|as fasthash::kernels::lanes::Lanes>|lanes::avx512::opaque|from_fn|[{][{]closure[}][}]|sha512_avx512::(start|step|store)|sha512_rounds::|Scheduler</) calls[current]++
  }
  END {
    bad = 0; n = 0
    for (f in found) {
      n++
      calls[f] += 0
      printf "%6d %s of %6d instructions in %d functions, %d calls to lane operations: %s\n", \
        used[f], register[f], insns[f], found[f], calls[f], f
      if (used[f] + 0 == 0 || calls[f] + 0 > 0) bad = 1
    }
    if (n == 0) { print "no AVX-512 functions found" > "/dev/stderr"; exit 1 }
    exit bad
  }'

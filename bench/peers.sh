#!/usr/bin/env bash
# fasthash beside the tools people would otherwise use, on the same data, in one run.
#
#   bench/peers.sh [--quick] [--runs N] [--data DIR] [--only PATTERN]
#
# Installs what is missing (hyperfine, rhash, hashdeep, xxhsum from Debian; b3sum from
# crates.io; awscrt from PyPI in a venv under the data directory), builds fasthash in release
# mode, generates deterministic data once (a 1 GiB file, a 64 MiB file, 2,000 files of 256 KiB,
# 20,000 files of 4 KiB), warms the page cache (and reads each group's data again before every
# timed run), times every command with hyperfine (medians),
# and writes bench/results/RESULTS.md and bench/results/throughput.svg.
# --quick: 64 MiB instead of 1 GiB, a tenth of the files, 3 runs (a smoke test, minutes).
# --only PATTERN: run only the groups whose name matches the grep pattern.
# XXHSUM_DISPATCH=PATH: also run that xxhsum's own benchmark (e.g. one built with run-time
# dispatch), beside Debian's.
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
repo="$(dirname "$here")"
export PATH="$HOME/.cargo/bin:$PATH"

quick=0
runs=5
only=""
data="${TMPDIR:-/tmp}/fasthash-bench-data"
while [ $# -gt 0 ]; do
  case "$1" in
    --quick) quick=1; runs=3 ;;
    --runs) runs="$2"; shift ;;
    --data) data="$2"; shift ;;
    --only) only="$2"; shift ;;
    -h|--help) sed -n '2,15p' "$0"; exit 0 ;;
    *) echo "peers.sh: unknown option $1" >&2; exit 2 ;;
  esac
  shift
done

# ---- peers ----------------------------------------------------------------------------------
missing=()
for pair in hyperfine:hyperfine rhash:rhash hashdeep:hashdeep xxhsum:xxhash openssl:openssl; do
  command -v "${pair%%:*}" >/dev/null || missing+=("${pair#*:}")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "installing ${missing[*]}" >&2
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
fi
command -v b3sum >/dev/null || cargo install --locked --quiet b3sum@1.8.7
mkdir -p "$data"
venv="$data/venv"
if [ ! -x "$venv/bin/python" ] || ! "$venv/bin/python" -c 'import awscrt' 2>/dev/null; then
  python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet awscrt
fi
awscrt_sum=("$venv/bin/python" "$here/awscrt_sum.py")

(cd "$repo" && cargo build --release --quiet)
fasthash="$repo/target/release/fasthash"

# ---- data -----------------------------------------------------------------------------------
if [ "$quick" = 1 ]; then
  big_size=$((64 << 20)); mid_size=$((16 << 20)); n256=200; n4k=2000
else
  big_size=$((1 << 30)); mid_size=$((64 << 20)); n256=2000; n4k=20000
fi
big="$data/big.bin"; mid="$data/mid.bin"; tree256="$data/tree-256k"; tree4k="$data/tree-4k"
stamp="$data/.made-$big_size-$mid_size-$n256-$n4k"
if [ ! -e "$stamp" ]; then
  echo "generating data in $data" >&2
  rm -rf "$tree256" "$tree4k" "$data"/.made-*
  python3 - "$big" "$big_size" "$mid" "$mid_size" "$tree256" "$n256" "$tree4k" "$n4k" <<'PY'
import os, random, sys
big, big_size, mid, mid_size, tree256, n256, tree4k, n4k = sys.argv[1:]
def write(path, size, seed):
    rng = random.Random(seed)
    with open(path, "wb") as f:
        left = size
        while left:
            n = min(left, 16 << 20)
            f.write(rng.randbytes(n))
            left -= n
write(big, int(big_size), 1)
write(mid, int(mid_size), 2)
def tree(root, count, size, seed):
    rng = random.Random(seed)
    pool = rng.randbytes(4 << 20)
    for i in range(count):
        d = os.path.join(root, f"{i // 1000:02d}")
        os.makedirs(d, exist_ok=True)
        at = rng.randrange(len(pool) - size)
        with open(os.path.join(d, f"f{i:05d}"), "wb") as f:
            f.write(pool[at:at + size])
tree(tree256, int(n256), 256 * 1024, 3)
tree(tree4k, int(n4k), 4096, 4)
PY
  touch "$stamp"
fi
list256="$data/list-256k"; list4k="$data/list-4k"
find "$tree256" -type f | LC_ALL=C sort > "$list256"
find "$tree4k" -type f | LC_ALL=C sort > "$list4k"
# Hot page cache: every figure below reads from memory.
cat "$big" "$mid" > /dev/null
xargs -a "$list256" cat > /dev/null
xargs -a "$list4k" cat > /dev/null

# ---- runs -----------------------------------------------------------------------------------
results="$here/results"
json="$results/json"
rm -rf "$json"
mkdir -p "$json"

# The command that reads a group's data back into the page cache, from the group's name. A
# kernel may reclaim page cache that sat idle for seconds (Linux's DAMON does, where it is set
# to page out cold memory), so one warming at the start does not keep a run of many minutes
# hot: on a machine set that way, a 1 GiB file left 2,600 of its 262,144 pages out of memory
# after 40 s idle, and those reads went to the disk inside "hot" runs. Each timed run is
# preceded by this (hyperfine's --prepare, not timed).
warm_for() {
  case "$1" in
    big-*|limit-*) echo "cat $big" ;;
    mid-*) echo "cat $mid" ;;
    tree256k-*|check256k-*) echo "xargs -a $list256 cat" ;;
    tree4k-*) echo "xargs -a $list4k cat" ;;
    *) echo "true" ;;
  esac
}

# group NAME BYTES FILES -- COMMAND... (each command one string; the first is fasthash's)
group() {
  local name="$1" bytes="$2" files="$3"
  shift 4
  if [ -n "$only" ] && ! grep -q -- "$only" <<<"$name"; then
    return 0
  fi
  echo "== $name" >&2
  printf '%s\t%s\t%s\n' "$name" "$bytes" "$files" > "$json/$name.meta"
  hyperfine --style basic --warmup 1 --runs "${group_runs:-$runs}" --shell=sh \
    --prepare "$(warm_for "$name") > /dev/null" \
    --export-json "$json/$name.json" "$@" >&2
}

# Both read through ${!bytes_var} below.
big_bytes=$(stat -c %s "$big")
# shellcheck disable=SC2034
mid_bytes=$(stat -c %s "$mid")
tree256_bytes=$((n256 * 262144)); tree4k_bytes=$((n4k * 4096))
aws="${awscrt_sum[*]}"

for file in big mid; do
  path="${!file}"; bytes_var="${file}_bytes"; bytes="${!bytes_var}"
  group "$file-sha256" "$bytes" 1 -- "$fasthash -a sha256 $path" "sha256sum $path" \
    "openssl dgst -sha256 $path" "rhash --sha256 $path"
  group "$file-sha512" "$bytes" 1 -- "$fasthash -a sha512 $path" "sha512sum $path" \
    "openssl dgst -sha512 $path" "FASTHASH_KERNEL=sha512=ring-asm $fasthash -a sha512 $path" \
    "FASTHASH_KERNEL=sha512=portable $fasthash -a sha512 $path"
  group "$file-sha1" "$bytes" 1 -- "$fasthash -a sha1 $path" "sha1sum $path" \
    "openssl dgst -sha1 $path"
  group "$file-md5" "$bytes" 1 -- "$fasthash -a md5 $path" "md5sum $path" \
    "openssl dgst -md5 $path" "rhash --md5 $path" \
    "FASTHASH_KERNEL=md5=portable $fasthash -a md5 $path"
  group "$file-blake3" "$bytes" 1 -- "$fasthash -a blake3 $path" "b3sum $path"
  # The portable kernel is the figure before our AVX2 XXH3 kernel, in the same run.
  group "$file-xxh3" "$bytes" 1 -- "$fasthash -a xxh3 $path" "xxhsum -H3 $path" \
    "FASTHASH_KERNEL=xxh3=avx2 $fasthash -a xxh3 $path" "FASTHASH_KERNEL=portable $fasthash -a xxh3 $path"
  group "$file-xxh128" "$bytes" 1 -- "$fasthash -a xxh128 $path" "xxhsum -H2 $path" \
    "FASTHASH_KERNEL=portable $fasthash -a xxh128 $path"
  group "$file-xxh64" "$bytes" 1 -- "$fasthash -a xxh64 $path" "xxhsum -H1 $path"
  group "$file-xxh32" "$bytes" 1 -- "$fasthash -a xxh32 $path" "xxhsum -H0 $path"
  # cksum's, b2sum's and sum's algorithms, beside coreutils and OpenSSL.
  group "$file-blake2b" "$bytes" 1 -- "$fasthash -a blake2b $path" "b2sum $path" \
    "openssl dgst -blake2b512 $path"
  group "$file-sha3-256" "$bytes" 1 -- "$fasthash -a sha3-256 $path" \
    "openssl dgst -sha3-256 $path"
  group "$file-sm3" "$bytes" 1 -- "$fasthash -a sm3 $path" "cksum -a sm3 $path" \
    "openssl dgst -sm3 $path"
  group "$file-cksum" "$bytes" 1 -- "$fasthash -a crc $path" "cksum $path"
  group "$file-sum-bsd" "$bytes" 1 -- "$fasthash -a bsd $path" "sum $path"
  group "$file-sum-sysv" "$bytes" 1 -- "$fasthash -a sysv $path" "sum -s $path"
  # FASTHASH_KERNEL=clmul is crc-fast, the figure before our VPCLMULQDQ kernel.
  group "$file-crc32" "$bytes" 1 -- "$fasthash -a crc32 $path" "rhash --crc32 $path" \
    "FASTHASH_KERNEL=clmul $fasthash -a crc32 $path"
  group "$file-crc32c" "$bytes" 1 -- "$fasthash -a crc32c $path" "rhash --crc32c $path" \
    "$aws crc32c $path" "FASTHASH_KERNEL=clmul $fasthash -a crc32c $path"
  group "$file-crc64nvme" "$bytes" 1 -- "$fasthash -a crc64nvme $path" "$aws crc64nvme $path" \
    "FASTHASH_KERNEL=clmul $fasthash -a crc64nvme $path"
  group "$file-crc64nvme-j1" "$bytes" 1 -- "$fasthash -j 1 -a crc64nvme $path" \
    "$aws crc64nvme $path" "FASTHASH_KERNEL=clmul $fasthash -j 1 -a crc64nvme $path"
done

# S3 multipart values with the ETag: part MD5s in lanes (AVX-512, AVX2), then one part at a time.
group "big-s3-etag" "$big_bytes" 1 -- "$fasthash -a crc64nvme --s3 --etag --part-size 8MiB $big" \
  "FASTHASH_KERNEL=md5=avx2 $fasthash -a crc64nvme --s3 --etag --part-size 8MiB $big" \
  "FASTHASH_KERNEL=md5=portable $fasthash -a crc64nvme --s3 --etag --part-size 8MiB $big"
# S3 COMPOSITE SHA-256: sixteen parts side by side in AVX-512 lanes, against SHA-NI a part.
group "big-s3-composite-sha256" "$big_bytes" 1 -- "$fasthash -a sha256 --s3 --part-size 8MiB $big" \
  "FASTHASH_KERNEL=sha256=sha-ext $fasthash -a sha256 --s3 --part-size 8MiB $big"

group "tree256k-sha256" "$tree256_bytes" "$n256" -- "$fasthash -r -a sha256 $tree256" \
  "rhash -r --sha256 $tree256" "xargs -a $list256 -n 100000 sha256sum" \
  "xargs -a $list256 -n 100000 openssl dgst -sha256" "hashdeep -r -c sha256 $tree256" \
  "FASTHASH_KERNEL=sha256=sha-ext $fasthash -r -a sha256 $tree256"
group "tree256k-sha256-j1" "$tree256_bytes" "$n256" -- "$fasthash -j 1 -r -a sha256 $tree256" \
  "rhash -r --sha256 $tree256" "xargs -a $list256 -n 100000 openssl dgst -sha256" \
  "FASTHASH_KERNEL=sha256=sha-ext $fasthash -j 1 -r -a sha256 $tree256"
group "tree256k-sha1-j1" "$tree256_bytes" "$n256" -- "$fasthash -j 1 -r -a sha1 $tree256" \
  "xargs -a $list256 -n 100000 openssl dgst -sha1" \
  "FASTHASH_KERNEL=sha1=sha-ext $fasthash -j 1 -r -a sha1 $tree256"
group "tree256k-sha512" "$tree256_bytes" "$n256" -- "$fasthash -r -a sha512 $tree256" \
  "rhash -r --sha512 $tree256" "xargs -a $list256 -n 100000 openssl dgst -sha512" \
  "FASTHASH_KERNEL=sha512=ring-asm $fasthash -r -a sha512 $tree256"
group "tree256k-blake3" "$tree256_bytes" "$n256" -- "$fasthash -r -a blake3 $tree256" \
  "xargs -a $list256 -n 100000 b3sum"
group "tree256k-xxh3" "$tree256_bytes" "$n256" -- "$fasthash -r -a xxh3 $tree256" \
  "xargs -a $list256 -n 100000 xxhsum -H3" \
  "xargs -a $list256 -P 2 -n $(( (n256 + 1) / 2 )) xxhsum -H3" \
  "FASTHASH_KERNEL=portable $fasthash -r -a xxh3 $tree256"
group "tree256k-md5" "$tree256_bytes" "$n256" -- "$fasthash -r -a md5 $tree256" \
  "xargs -a $list256 -n 100000 md5sum" "rhash -r --md5 $tree256" \
  "xargs -a $list256 -n 100000 openssl dgst -md5" \
  "FASTHASH_KERNEL=md5=avx2 $fasthash -r -a md5 $tree256" \
  "FASTHASH_KERNEL=portable $fasthash -r -a md5 $tree256"
group "tree256k-md5-j1" "$tree256_bytes" "$n256" -- "$fasthash -j 1 -r -a md5 $tree256" \
  "xargs -a $list256 -n 100000 openssl dgst -md5" \
  "FASTHASH_KERNEL=portable $fasthash -j 1 -r -a md5 $tree256"
group "tree256k-crc32c" "$tree256_bytes" "$n256" -- "$fasthash -r -a crc32c $tree256" \
  "rhash -r --crc32c $tree256"
group "tree4k-sha256" "$tree4k_bytes" "$n4k" -- "$fasthash -r -a sha256 $tree4k" \
  "rhash -r --sha256 $tree4k" "xargs -a $list4k -n 100000 sha256sum" \
  "hashdeep -r -c sha256 $tree4k"
group "tree4k-blake3" "$tree4k_bytes" "$n4k" -- "$fasthash -r -a blake3 $tree4k" \
  "xargs -a $list4k -n 100000 b3sum"
group "tree4k-xxh3" "$tree4k_bytes" "$n4k" -- "$fasthash -r -a xxh3 $tree4k" \
  "xargs -a $list4k -n 100000 xxhsum -H3"

# One small file: what a run costs besides hashing (starting the process and its threads),
# paid once per file by anyone who runs it once per file. Milliseconds, so more runs.
small="$data/small.txt"
printf 'fasthash\n' > "$small"
group_runs=$((runs * 40)) group "small-file" 9 1 -- "$fasthash -a sha256 $small" \
  "sha256sum $small" "$fasthash -a xxh3 $small" "xxhsum -H3 $small" \
  "$fasthash -a blake3 $small" "b3sum $small"

# Verification against hashing the same files (and coreutils verifying them).
sums256="$data/sums-256k"
"$fasthash" -r -a sha256 "$tree256" > "$sums256"
group "check256k-sha256" "$tree256_bytes" "$n256" -- "$fasthash -c $sums256" \
  "$fasthash -r -a sha256 $tree256" "sha256sum -c $sums256"

# ---- limits ---------------------------------------------------------------------------------
half=$((big_bytes / 2 / 1048576))
group "limit-page-cache" "$big_bytes" 1 -- "cat $big" \
  "dd if=$big of=/dev/null bs=1M count=$half status=none & dd if=$big of=/dev/null bs=1M skip=$half status=none; wait"
{
  for algo in sha256 sha512 sha1 md5; do
    seconds=3; [ "$quick" = 1 ] && seconds=1
    rate=$(openssl speed -evp "$algo" -bytes 1048576 -seconds "$seconds" 2>/dev/null \
      | awk -v a="$algo" '$1 == a { v = $NF; sub(/k$/, "", v); print v * 1000 }')
    printf '%s\t%s\n' "$algo" "$rate"
  done
} > "$json/openssl-speed.tsv"
"$fasthash" --bench > "$json/fasthash-bench.txt"
# Every engine this CPU runs beside the others of its algorithm (`fasthash --bench` lists them
# all, the one in use marked), and xxhsum's own benchmark: Debian's, and another build named
# by XXHSUM_DISPATCH (e.g. xxhsum 0.8.3 built with run-time dispatch), if given.
{
  # -a names one algorithm, so one run each, the 3 seconds shared out.
  for algo in xxh3 xxh128 md5 sha1 sha256 sha512 crc32c crc64nvme; do
    "$fasthash" --bench -a "$algo" --seconds 0.4
  done
  for xxhsum in xxhsum ${XXHSUM_DISPATCH:-}; do
    for size in 4K 1M; do
      echo "$xxhsum -b5,11 -B$size ($($xxhsum -V 2>&1 | head -1)):"
      "$xxhsum" -b5,11 -B$size 2>&1 < /dev/null | tr '\r' '\n' | grep '#' \
        || echo "(xxhsum -b printed no result)"
    done
  done
} > "$json/kernels.txt"

# ---- versions and report --------------------------------------------------------------------
{
  echo "fasthash	$("$fasthash" --version | head -1)"
  echo "coreutils	$(sha256sum --version | head -1)"
  echo "openssl	$(openssl version)"
  echo "b3sum	$(b3sum --version)"
  echo "xxhsum	$(xxhsum -V 2>&1 | head -1)"
  echo "rhash	$(rhash --version)"
  echo "hashdeep	$(hashdeep -V 2>&1 | head -1)"
  echo "hyperfine	$(hyperfine --version)"
  echo "awscrt	$("$venv/bin/python" -c 'from importlib.metadata import version; print("awscrt", version("awscrt"))')"
  echo "kernel	$(uname -sr)"
} > "$json/versions.tsv"
python3 "$here/report.py" "$json" "$results" "$quick"
echo "wrote $results/RESULTS.md and $results/throughput.svg" >&2
# `--bench` warns when the engine in use measured more than 10% slower than another this CPU
# runs: a choice the engine table should change for this CPU.
if grep -h '^warning:' "$json/fasthash-bench.txt" "$json/kernels.txt" | sort -u | grep .; then
  echo "(those warnings: fasthash --bench chose a slower engine on this CPU)" >&2
fi

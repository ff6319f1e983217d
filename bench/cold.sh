#!/usr/bin/env bash
# fasthash and its peers on cold data: the page cache dropped before every run, and the device's
# own limits measured with fio in the same run.
#
#   sudo bench/cold.sh [--quick] [--small] [--runs N] [--data DIR] [--only PATTERN]
#                      [--jobs "1 2 4 8 16 32 64"] [--fuse-delay-ms "2"]
#
# Runs as root (it writes /proc/sys/vm/drop_caches and mounts a FUSE file system). Installs what
# is missing (hyperfine, rhash, xxhsum, openssl, fio, fuse3 and libfuse2 from Debian; b3sum from
# crates.io; fusepy from PyPI in a venv under the data directory), makes deterministic data once
# under bench/data/cold (bench/data/cold-small with --small), on the repository's file system so
# that fio measures the device the data is on: 20,000 files of 4 KiB in 100 directories, one 1 GiB
# file, 200 files of 4 KiB for the FUSE runs. Then times, with hyperfine, each command cold
# (medians; a group's commands in rounds, each once a round, so that the disk's drift over
# minutes falls on all of them alike; the big file's groups share their rounds):
#   tree4k: fasthash -r -a xxh3 with default options and each -j of --jobs, rhash, b3sum;
#   big:    the 1 GiB file, BLAKE3, XXH3 and SHA-256 beside b3sum, xxhsum, sha256sum, openssl,
#           and cat and dd with direct I/O, which only read; then fasthash's three hot, the
#           speed a cold run is judged against where hashing is the limit, and SHA-256 hot
#           from a copy in /dev/shm while another process reads the cold file;
#   fuse:   the 200 files through tests/fixtures/slowfs.py (each read and open delayed by
#           --fuse-delay-ms, a list gives a group per delay), -j as above, rhash, sha256sum.
# and fio's sequential read (1 MiB blocks at queue depth 32, and 8 MiB at 8) and 4 KiB random
# read (queue depth 64), 10 s each, and its sequential read once through the big file in every
# round of the big file's groups (what the shares of the device's speed are paired with).
# Writes bench/results/cold-CPU.md (CPU, family and model from `fasthash --version`), raw JSON in
# bench/results/json/cold/.
# --quick: 3 runs instead of 5. --small: a smoke run on a tenth of the files, a 64 MiB file,
#   50 files through FUSE and 2 s of fio each; written to cold-CPU-small.md.
# FASTHASH=PATH: the binary to measure (default target/release/fasthash, built if missing).
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
repo="$(dirname "$here")"
export PATH="$HOME/.cargo/bin:$PATH"

quick=0
small=0
runs=5
only=""
jobs="1 2 4 8 16 32 64"
fuse_delays="2"
data=""
while [ $# -gt 0 ]; do
  case "$1" in
    --quick) quick=1; runs=3 ;;
    --small) small=1 ;;
    --runs) runs="$2"; shift ;;
    --data) data="$2"; shift ;;
    --only) only="$2"; shift ;;
    --jobs) jobs="$2"; shift ;;
    --fuse-delay-ms) fuse_delays="${2//,/ }"; shift ;;
    -h|--help) sed -n '2,24p' "$0"; exit 0 ;;
    *) echo "cold.sh: unknown option $1" >&2; exit 2 ;;
  esac
  shift
done
# --small makes its data apart, so that a smoke run leaves the full data set in place.
if [ -z "$data" ]; then
  data="$repo/bench/data/cold"
  if [ "$small" = 1 ]; then data+="-small"; fi
fi
if [ "$(id -u)" != 0 ]; then
  echo "cold.sh: run it as root: it drops the page cache (/proc/sys/vm/drop_caches) before" \
    "every run and mounts a FUSE file system" >&2
  exit 1
fi

# An absolute FASTHASH before anything changes directory; relative ones are from the caller's.
fasthash="$(realpath -m "${FASTHASH:-$repo/target/release/fasthash}")"

# ---- peers ----------------------------------------------------------------------------------
missing=()
for pair in hyperfine:hyperfine rhash:rhash xxhsum:xxhash openssl:openssl fio:fio \
  fusermount3:fuse3; do
  command -v "${pair%%:*}" >/dev/null || missing+=("${pair#*:}")
done
libfuse2=0
ldconfig -p | grep -q 'libfuse\.so\.2 ' || libfuse2=1
if [ ${#missing[@]} -gt 0 ] || [ "$libfuse2" = 1 ]; then
  apt-get update -qq
  # fusepy loads libfuse 2, which Debian 13 packages as libfuse2t64.
  if [ "$libfuse2" = 1 ]; then
    if apt-cache show libfuse2t64 >/dev/null 2>&1; then
      missing+=(libfuse2t64)
    else
      missing+=(libfuse2)
    fi
  fi
  echo "installing ${missing[*]}" >&2
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
fi
command -v b3sum >/dev/null || cargo install --locked --quiet b3sum@1.8.7
mkdir -p "$data"
data="$(cd "$data" && pwd)"
venv="$data/venv"
if [ ! -x "$venv/bin/python" ] || ! "$venv/bin/python" -c 'import fuse' 2>/dev/null; then
  python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet --disable-pip-version-check fusepy
fi

if [ ! -x "$fasthash" ]; then
  (cd "$repo" && cargo build --release --locked --quiet)
fi

# ---- data -----------------------------------------------------------------------------------
if [ "$small" = 1 ]; then
  big_size=$((64 << 20)); n4k=2000; dirs=10; nfuse=50; fio_seconds=2
else
  big_size=$((1 << 30)); n4k=20000; dirs=100; nfuse=200; fio_seconds=10
fi
big="$data/big.bin"; tree4k="$data/tree-4k"; treefuse="$data/tree-fuse"; mnt="$data/mnt"
stamp="$data/.made-$big_size-$n4k-$dirs-$nfuse"
if [ ! -e "$stamp" ]; then
  echo "generating data in $data" >&2
  rm -rf "$big" "$tree4k" "$treefuse" "$data"/.made-*
  python3 - "$big" "$big_size" "$tree4k" "$n4k" "$dirs" "$treefuse" "$nfuse" <<'PY'
import os, random, sys
big, big_size, tree4k, n4k, dirs, treefuse, nfuse = sys.argv[1:]
rng = random.Random(1)
with open(big, "wb") as f:
    left = int(big_size)
    while left:
        n = min(left, 16 << 20)
        f.write(rng.randbytes(n))
        left -= n
def tree(root, count, dirs, seed):
    rng = random.Random(seed)
    pool = rng.randbytes(4 << 20)
    for i in range(count):
        d = os.path.join(root, f"d{i % dirs:03d}") if dirs > 1 else root
        os.makedirs(d, exist_ok=True)
        at = rng.randrange(len(pool) - 4096)
        with open(os.path.join(d, f"f{i:05d}"), "wb") as f:
            f.write(pool[at:at + 4096])
tree(tree4k, int(n4k), int(dirs), 4)
tree(treefuse, int(nfuse), 1, 5)
PY
  sync
  touch "$stamp"
fi
list4k="$data/list-4k"
find "$tree4k" -type f | LC_ALL=C sort > "$list4k"

# ---- runs -----------------------------------------------------------------------------------
results="$here/results"
json="$results/json/cold"
rm -rf "$json"
mkdir -p "$json"

# Every run starts with nothing of the data in memory, but with the programs themselves read
# back in: a user's tools are usually cached, their data is what is cold. (Running each once
# loads its shared libraries too.)
drop='sync; echo 3 > /proc/sys/vm/drop_caches'
warm="$fasthash --version; rhash --version; b3sum --version; xxhsum -V; sha256sum --version;"
warm+=" openssl version; cat --version; dd --version; xargs --version; find --version; fio --version"
prepare="$drop; { $warm; } > /dev/null 2>&1"

# 20000 -> 20,000, for titles.
thousands() { sed ':a; s/\B[0-9]\{3\}\>/,&/; ta' <<<"$1"; }
# 1073741824 -> 1 GiB, 67108864 -> 64 MiB.
size_text() {
  if [ $(($1 % (1 << 30))) = 0 ]; then echo "$(($1 >> 30)) GiB"; else echo "$(($1 >> 20)) MiB"; fi
}

# group NAME TITLE BYTES FILES -- ROLE:COMMAND... (ROLE: fasthash, peer or read): a table of the
# report, its commands kept for `rounds`.
group() {
  local name="$1" title="$2" bytes="$3" files="$4"
  shift 5
  if [ -n "$only" ] && ! grep -q -- "$only" <<<"$name"; then
    return 0
  fi
  local spec
  : > "$json/$name.roles"
  : > "$json/$name.commands"
  for spec in "$@"; do
    printf '%s\n' "${spec%%:*}" >> "$json/$name.roles"
    printf '%s\n' "${spec#*:}" >> "$json/$name.commands"
  done
  printf '%s\t%s\t%s\n' "$title" "$bytes" "$files" > "$json/$name.meta"
}

# rounds NAME...: the named groups' commands, each once a round, --runs rounds, the order turned
# by one each round; then each group's hyperfine JSON, its runs put together. This host's disk
# is shared, and its speed moves over minutes (a 1 GiB file's `cat` from 0.6 to 0.8 s within
# one group): hyperfine's runs of a command in a row would give that drift to one command, where
# rounds give it to every command alike. GROUP_PREPARE: run after the usual preparation.
rounds() {
  local names=() name commands=() round turned first extra_prepare=""
  for name in "$@"; do
    [ -f "$json/$name.commands" ] && names+=("$name")
  done
  [ ${#names[@]} -gt 0 ] || return 0
  for name in "${names[@]}"; do
    mapfile -t -O ${#commands[@]} commands < "$json/$name.commands"
  done
  if [ "${GROUP_PREPARE:-}" ]; then extra_prepare="; $GROUP_PREPARE"; fi
  echo "== ${names[*]}: $runs rounds of ${#commands[@]} commands" >&2
  for round in $(seq 1 "$runs"); do
    first=$(( (round - 1) % ${#commands[@]} ))
    turned=("${commands[@]:first}" "${commands[@]:0:first}")
    hyperfine --style basic --warmup 0 --runs 1 --shell=sh \
      --prepare "$prepare$extra_prepare" --export-json "$json/round-$round.json" \
      "${turned[@]}" >&2
  done
  python3 - "$json" "$runs" "${names[@]}" <<'PY'
import json, os, statistics, sys
json_dir, runs, names = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
times = {}
for round in range(1, runs + 1):
    path = os.path.join(json_dir, f"round-{round}.json")
    for result in json.load(open(path))["results"]:
        times.setdefault(result["command"], []).extend(result["times"])
    os.remove(path)
for name in names:
    with open(os.path.join(json_dir, name + ".commands")) as f:
        commands = f.read().splitlines()
    results = [{"command": c, "times": times[c], "median": statistics.median(times[c]),
                "mean": statistics.mean(times[c])} for c in commands]
    with open(os.path.join(json_dir, name + ".json"), "w") as f:
        json.dump({"results": results}, f, indent=1)
PY
}

# fasthash with default options, then each -j of the sweep.
sweep() {
  local args="$1" n
  printf '%s\n' "fasthash:$fasthash $args"
  for n in $jobs; do printf '%s\n' "fasthash:$fasthash -j $n $args"; done
}

mapfile -t tree_fasthash < <(sweep "-r -a xxh3 $tree4k")
group tree4k-xxh3 "$(thousands "$n4k") files of 4 KiB in $dirs directories, XXH3" \
  $((n4k * 4096)) "$n4k" -- "${tree_fasthash[@]}" "peer:rhash -r --crc32 $tree4k" \
  "peer:xargs -a $list4k -n 100000 b3sum"
rounds tree4k-xxh3

big_bytes=$(stat -c %s "$big")
big_title="one file of $(size_text "$big_bytes")"
group big-blake3 "$big_title, BLAKE3" "$big_bytes" 1 -- \
  "fasthash:$fasthash -a blake3 $big" "peer:b3sum $big"
group big-xxh3 "$big_title, XXH3" "$big_bytes" 1 -- \
  "fasthash:$fasthash -a xxh3 $big" "peer:xxhsum -H3 $big"
group big-sha256 "$big_title, SHA-256" "$big_bytes" 1 -- \
  "fasthash:$fasthash -a sha256 $big" "peer:sha256sum $big" "peer:openssl dgst -sha256 $big"
# fio's sequential read once through the file in every round, its own figure kept a round at a
# time (the file's name orders the rounds): the goals that are a share of the device's speed
# are then also judged against the device in the same minute, not only against the 10 s of fio
# after the rounds.
fio_round="fio --name=seq-round --filename=$big --readonly --rw=read --bs=1m --iodepth=32"
fio_round+=" --direct=1 --ioengine=libaio --output-format=json"
fio_round+=" --output=$json/fio-round-\$(date +%s%N).json"
group big-read "$big_title, read only" "$big_bytes" 1 -- \
  "read:cat $big" "read:dd if=$big of=/dev/null bs=1M iflag=direct status=none" \
  "read:$fio_round"
# In the same rounds: which is faster, hashing or reading alone, is read off runs side by side.
rounds big-blake3 big-xxh3 big-sha256 big-read

# The same fasthash commands hot (the file in the page cache): where hashing, not the device,
# is the limit, the cold run is judged against this speed (issue 30: "or the hot speed").
if [ -z "$only" ] || grep -q -- "$only" <<<"big-hot"; then
  echo "== big-hot" >&2
  hyperfine --style basic --warmup 1 --runs "$runs" --shell=sh \
    --export-json "$json/hot-big.json" "$fasthash -a blake3 $big" "$fasthash -a xxh3 $big" \
    "$fasthash -a sha256 $big" >&2
fi

# SHA-256 hot once more, from a copy in memory (tmpfs, which dropping the page cache leaves in
# place), alone and while `cat` reads the cold file beside it (stopped when the hash ends). Where
# cores share their resources (SMT siblings; a VM's vCPUs, whose device is emulated on the host)
# the hashing core is slower while the device is read, whoever reads it: that speed, not the hot
# one alone, is what a cold run can reach where hashing is the limit.
if [ -z "$only" ] || grep -q -- "$only" <<<"big-hot-beside-read"; then
  copy_dir=/dev/shm
  if [ -d "$copy_dir" ] && [ "$(df --output=avail -B1 "$copy_dir" | tail -1)" -gt $((big_bytes * 2)) ]; then
    copy="$copy_dir/fasthash-cold-copy"
    cp "$big" "$copy"
    echo "== big-hot-beside-read" >&2
    hyperfine --style basic --warmup 1 --runs "$runs" --shell=sh --prepare "$prepare" \
      --export-json "$json/hot-beside-read.json" "$fasthash -a sha256 $copy" \
      "cat $big > /dev/null & $fasthash -a sha256 $copy; kill \$! 2> /dev/null; wait" >&2
    rm -f "$copy"
  else
    echo "== big-hot-beside-read skipped: no room for a copy of the file in $copy_dir" >&2
  fi
fi

# Through the FUSE fixture: a file system whose every read and open waits, as a network one's.
unmount() {
  if mountpoint -q "$mnt"; then fusermount3 -u "$mnt" 2>/dev/null || umount "$mnt"; fi
  return 0
}
trap unmount EXIT
mkdir -p "$mnt"
for delay in $fuse_delays; do
  name="fuse${delay}ms-sha256"
  if [ -n "$only" ] && ! grep -q -- "$only" <<<"$name"; then continue; fi
  unmount
  "$venv/bin/python" "$repo/tests/fixtures/slowfs.py" "$treefuse" "$mnt" --delay-ms "$delay"
  listfuse="$data/list-fuse"
  find "$mnt" -type f | LC_ALL=C sort > "$listfuse"
  mapfile -t fuse_fasthash < <(sweep "-r -a sha256 $mnt")
  # statfs reaches the daemon without a delay: its code is in memory again before each run.
  group "$name" "$nfuse files of 4 KiB through FUSE, $delay ms a read or open, SHA-256" \
    $((nfuse * 4096)) "$nfuse" -- "${fuse_fasthash[@]}" "peer:rhash -r --sha256 $mnt" \
    "peer:xargs -a $listfuse -n 100000 sha256sum"
  GROUP_PREPARE="stat -f $mnt > /dev/null" rounds "$name"
  unmount
done

# ---- the device, measured with fio ----------------------------------------------------------
# On the big file (read only, so fio never writes), direct I/O: the device, not the page cache.
if [ -z "$only" ] || grep -q -- "$only" <<<"fio"; then
  echo "== fio" >&2
  # Sequential in 1 MiB and in 8 MiB requests: a virtual disk may give far more to the larger
  # (0.44 against 1.15 GB/s on one); the better of the two is the device's sequential limit.
  for spec in "seq read 1m 32" "seqbig read 8m 8" "rand randread 4k 64"; do
    read -r tag rw bs depth <<<"$spec"
    fio --name="$tag" --filename="$big" --readonly --rw="$rw" --bs="$bs" --iodepth="$depth" \
      --direct=1 --ioengine=libaio --time_based --runtime="$fio_seconds" --ramp_time=1 \
      --output-format=json --output="$json/fio-$tag.json" >/dev/null
  done
fi

# ---- machine and report ---------------------------------------------------------------------
source_dev="$(findmnt -no SOURCE -T "$data")"
{
  "$fasthash" --version | head -3 | sed 's/^/cpu\t/'
  echo "cores	$(nproc)"
  echo "kernel	$(uname -sr)"
  echo "filesystem	$(findmnt -no FSTYPE -T "$data") on $source_dev"
  if [ -b "$source_dev" ]; then
    # The device and what it sits on (a partition's disk, an LVM volume's drives).
    lsblk -s -o NAME,MODEL,ROTA,SIZE,TRAN,SCHED "$source_dev" | sed 's/^/lsblk\t/'
    for disk in $(lsblk -snlo NAME "$source_dev"); do
      queue="/sys/block/$disk/queue"
      [ -d "$queue" ] || continue
      echo "queue	$disk: rotational $(cat "$queue/rotational"), read_ahead_kb" \
        "$(cat "$queue/read_ahead_kb"), nr_requests $(cat "$queue/nr_requests")"
    done
  fi
  echo "version	fasthash: $("$fasthash" --version | head -1)"
  echo "version	coreutils: $(sha256sum --version | head -1)"
  echo "version	openssl: $(openssl version)"
  echo "version	b3sum: $(b3sum --version)"
  echo "version	xxhsum: $(xxhsum -V 2>&1 | head -1)"
  echo "version	rhash: $(rhash --version)"
  echo "version	fio: $(fio --version)"
  echo "version	hyperfine: $(hyperfine --version)"
  echo "version	fusepy: $("$venv/bin/python" -c \
    'from importlib.metadata import version; print(version("fusepy"))')"
  echo "data	$(realpath --relative-to="$repo" "$data")"
  echo "runs	$runs"
  echo "options	$([ "$quick" = 1 ] && echo --quick) $([ "$small" = 1 ] && echo --small)"
} > "$json/machine.tsv"

# The model name and, where CPUID gives them, the family and model: a virtual machine often
# names Zen 3, 4 and 5 alike "AMD EPYC", and each run must not overwrite another CPU's file.
cpu_line="$("$fasthash" --version | sed -n 's/^CPU: //p')"
slug="$(printf '%s %s' "$(sed 's/ (.*//' <<< "$cpu_line")" \
  "$(grep -o 'family [0-9]* model [0-9]*' <<< "$cpu_line" || true)" \
  | tr '[:upper:]' '[:lower:]' | tr -cs 'a-z0-9' '-' | sed 's/^-//; s/-$//')"
suffix=""
if [ "$small" = 1 ]; then suffix="-small"; fi
out="$results/cold-${slug:-unknown}$suffix.md"
python3 "$here/cold_report.py" "$json" "$out"
echo "wrote $out" >&2

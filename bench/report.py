#!/usr/bin/env python3
"""Turns bench/peers.sh's hyperfine JSON into bench/results/RESULTS.md and throughput.svg.

Medians only (the machines are shared and noisy); speed-up = the peer's median / fasthash's
median, from the same run on the same data. Standard library only.
"""
import datetime
import html
import json
import os
import platform
import re
import sys

FLAGS = ["sha_ni", "avx2", "avx512f", "avx512bw", "avx512vl", "vpclmulqdq", "pclmulqdq", "sse4_2"]

# The goals the project set itself (issue "The parallel pipeline"), by group and peer label.
GOALS = {
    ("big-sha256", "openssl dgst -sha256"): 1.2,
    ("big-sha256", "sha256sum"): 4.5,
    ("big-xxh3", "xxhsum -H3"): 1.35,
    ("big-crc32c", "rhash --crc32c"): 3.0,
    ("big-crc64nvme", "awscrt crc64nvme"): None,
    ("big-blake3", "b3sum"): 1.0,
    ("big-md5", "openssl dgst -md5"): 1.0,
    ("tree256k-sha256", "rhash -r --sha256"): 2.0,
    ("tree256k-sha256", "sha256sum (xargs)"): 7.5,
    ("tree4k-sha256", "rhash -r --sha256"): 1.8,
    ("tree4k-blake3", "b3sum (xargs)"): 2.0,
    ("tree256k-xxh3", "xxhsum -H3 (xargs -P 2)"): 1.0,
    ("check256k-sha256", "fasthash -r -a sha256"): None,
    ("check256k-sha256", "sha256sum -c"): None,
}


def label(command):
    """A short name for a command line: the program and its options, without paths."""
    words = command.split()
    if words and words[0].startswith("FASTHASH_KERNEL="):
        # fasthash with a kernel forced: the figure before our own kernel.
        return label(" ".join(words[1:])) + f" ({words[0]})"
    if words and words[0] == "xargs":
        parallel = ""
        if "-P" in words:
            parallel = f" -P {words[words.index('-P') + 1]}"
        # Skip xargs' own options and their values to reach the program.
        i = 1
        while i < len(words) and words[i].startswith("-"):
            i += 2
        rest = [w for w in words[i:] if "/" not in w]
        return " ".join(rest) + f" (xargs{parallel})"
    if words and words[0].endswith("python"):
        return "awscrt " + words[2]
    if "&" in words:
        return "dd, two readers"
    head = os.path.basename(words[0]) if words else command
    rest = [w for w in words[1:] if "/" not in w]
    return " ".join([head] + rest)


def load(json_dir):
    groups = []
    for name in sorted(os.listdir(json_dir)):
        if not name.endswith(".meta"):
            continue
        group = name[: -len(".meta")]
        with open(os.path.join(json_dir, name)) as f:
            _, size, files = f.read().strip().split("\t")
        with open(os.path.join(json_dir, group + ".json")) as f:
            results = json.load(f)["results"]
        rows = [
            {"label": label(r["command"]), "command": r["command"], "median": r["median"]}
            for r in results
        ]
        groups.append({"name": group, "bytes": int(size), "files": int(files), "rows": rows})
    order = {"big": 0, "mid": 1, "tree256k": 2, "tree4k": 3, "check256k": 4, "small": 5, "limit": 6}
    groups.sort(key=lambda g: (order.get(g["name"].split("-")[0], 9), g["name"]))
    return groups


def read_tsv(path):
    out = {}
    if os.path.exists(path):
        with open(path) as f:
            for line in f:
                if "\t" in line:
                    key, value = line.rstrip("\n").split("\t", 1)
                    out[key] = value
    return out


def cpu():
    model, flags = "unknown", set()
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name") and model == "unknown":
                    model = line.split(":", 1)[1].strip()
                if line.startswith("flags") and not flags:
                    flags = set(line.split(":", 1)[1].split())
    except OSError:
        pass
    return model, [flag for flag in FLAGS if flag in flags], [f for f in FLAGS if f not in flags]


def gbps(nbytes, seconds):
    return nbytes / seconds / 1e9


def fmt_seconds(s):
    return f"{s * 1000:.1f} ms" if s < 10 else f"{s:.2f} s"


def describe(group):
    kind, _, algo = group["name"].partition("-")
    size = {"big": "1 GiB file", "mid": "64 MiB file"}.get(kind)
    if kind == "tree256k":
        size = f"{group['files']:,} files of 256 KiB"
    if kind == "tree4k":
        size = f"{group['files']:,} files of 4 KiB"
    if kind in ("big", "mid") and group["bytes"] != {"big": 1 << 30, "mid": 64 << 20}[kind]:
        size = f"{group['bytes'] / 2**20:.0f} MiB file"
    if kind == "small":
        return f"one file of {group['bytes']} bytes: what a run costs besides hashing (start-up)"
    if kind == "limit":
        return "page-cache read of the big file"
    if kind == "check256k":
        return f"--check of {group['files']:,} files of 256 KiB (SHA-256), beside hashing them"
    return f"{algo.upper().replace('-J1', ', one thread')}, {size}"


def write_markdown(groups, json_dir, out_dir, quick):
    versions = read_tsv(os.path.join(json_dir, "versions.tsv"))
    speeds = read_tsv(os.path.join(json_dir, "openssl-speed.tsv"))
    model, present, absent = cpu()
    lines = []
    add = lines.append
    add("# fasthash beside its peers")
    add("")
    add(
        f"Made by `bench/peers.sh`{' --quick' if quick else ''} on "
        f"{datetime.date.today().isoformat()}: every command on the same data in one run, hot "
        "page cache, hyperfine with one warm-up run; medians. Speed-up is the peer's median "
        "over fasthash's (above 1: fasthash is faster)."
    )
    add("")
    add(f"- CPU: {model}, {os.cpu_count()} logical cores; has {' '.join(present) or 'none'}"
        + (f"; lacks {' '.join(absent)}" if absent else ""))
    add(f"- System: {versions.get('kernel', platform.platform())}")
    for key in ["fasthash", "coreutils", "openssl", "b3sum", "xxhsum", "rhash", "hashdeep",
                "awscrt", "hyperfine"]:
        if key in versions:
            add(f"- {key}: {versions[key]}")
    add("")

    limits = {}
    for group in groups:
        if group["name"] == "limit-page-cache":
            for row in group["rows"]:
                limits[row["label"]] = gbps(group["bytes"], row["median"])
    sha_limits = {algo: float(rate) / 1e9 for algo, rate in speeds.items() if rate}

    add("## Key rows")
    add("")
    add("| workload | peer | peer's rate | fasthash's rate | speed-up | goal |")
    add("|---|---|---|---|---|---|")
    for group in groups:
        fast = group["rows"][0]
        for row in group["rows"][1:]:
            goal_key = (group["name"], row["label"])
            if goal_key not in GOALS:
                continue
            goal = GOALS[goal_key]
            ratio = row["median"] / fast["median"]
            add(
                f"| {describe(group)} | {row['label']} | {rate(group, row)} | {rate(group, fast)} "
                f"| **{ratio:.2f}x** | {'' if goal is None else f'{goal:.2f}x'}"
                f"{'' if goal is None else (' met' if ratio >= goal else ' not met')} |"
            )
    add("")

    add("## Physical limits on this machine")
    add("")
    add("| limit | figure |")
    add("|---|---|")
    for name, value in limits.items():
        add(f"| page cache, {name} | {value:.2f} GB/s |")
    for algo, value in sha_limits.items():
        add(f"| `openssl speed -evp {algo}`, 1 MiB blocks, one core | {value:.2f} GB/s |")
    add("")

    add("## Every workload")
    for group in groups:
        if group["name"].startswith("limit"):
            continue
        add("")
        add(f"### {describe(group)}")
        add("")
        add("| tool | median | throughput | fasthash speed-up | share of the limit |")
        add("|---|---|---|---|---|")
        fast = group["rows"][0]
        for index, row in enumerate(group["rows"]):
            speedup = "—" if index == 0 else f"{row['median'] / fast['median']:.2f}x"
            add(
                f"| `{row['label']}` | {fmt_seconds(row['median'])} | {rate(group, row)} | "
                f"{speedup} | {share(group, row, limits, sha_limits)} |"
            )
    text_sections = [
        ("fasthash-bench.txt", "`fasthash --bench` on the same machine", []),
        (
            "kernels.txt",
            "Our kernels and the ones they replaced, in memory, one thread",
            [
                "`fasthash --bench` (GB/s at 64 B, 4 KiB, 1 MiB) on our AVX2 XXH3 and VPCLMULQDQ CRC",
                "kernels, then forced onto what ran before (xxhash-rust's SSE2, crc-fast's",
                "PCLMULQDQ), then `xxhsum -b` (best of its iterations, in MiB/s).",
                "",
            ],
        ),
    ]
    for file_name, title, intro in text_sections:
        path = os.path.join(json_dir, file_name)
        if not os.path.exists(path):
            continue
        add("")
        add(f"## {title}")
        add("")
        lines.extend(intro)
        add("```")
        with open(path) as f:
            lines.extend(f.read().rstrip("\n").split("\n"))
        add("```")
    add("")
    add("![throughput](throughput.svg)")
    add("")
    with open(os.path.join(out_dir, "RESULTS.md"), "w") as f:
        f.write("\n".join(lines))


def rate(group, row):
    if group["name"].startswith("small"):
        return "—"
    text = f"{gbps(group['bytes'], row['median']):.2f} GB/s"
    if group["name"].startswith("tree4k"):
        text += f", {group['files'] / row['median'] / 1000:.0f}k files/s"
    return text


def share(group, row, limits, sha_limits):
    """fasthash's figure as a fraction of what the machine allows for that workload."""
    algo = group["name"].split("-", 1)[1] if "-" in group["name"] else ""
    speed = gbps(group["bytes"], row["median"])
    if algo in sha_limits and sha_limits[algo] > 0:
        cores = 1 if group["name"].startswith(("big", "mid")) or algo.endswith("j1") else (
            os.cpu_count() or 1)
        return f"{speed / (sha_limits[algo] * cores):.0%} of openssl speed x{cores}"
    two = limits.get("dd, two readers")
    if two and group["name"].startswith(("big", "mid")):
        return f"{speed / two:.0%} of the two-reader page-cache rate"
    return ""


def write_svg(groups, out_dir):
    rows = []
    for group in groups:
        if group["name"].startswith(("limit", "mid", "small")):
            continue
        for index, row in enumerate(group["rows"]):
            rows.append((describe(group) if index == 0 else "", row["label"],
                         gbps(group["bytes"], row["median"]), index == 0))
    if not rows:
        return
    bar_h, gap, left, width, title_h = 16, 4, 220, 520, 20
    top = 50
    titles = sum(1 for r in rows if r[0])
    height = top + len(rows) * (bar_h + gap) + titles * title_h + 20
    top_rate = max(r[2] for r in rows)
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{left + width + 180}" '
        f'height="{height}" font-family="sans-serif" font-size="12">',
        '<rect width="100%" height="100%" fill="white"/>',
        f'<text x="10" y="24" font-size="16" font-weight="bold">fasthash beside its peers: '
        'throughput in GB/s (higher is better), medians, same data, one run</text>',
        f'<rect x="{left}" y="32" width="12" height="12" fill="#d9480f"/>'
        f'<text x="{left + 18}" y="42">fasthash</text>',
        f'<rect x="{left + 90}" y="32" width="12" height="12" fill="#868e96"/>'
        f'<text x="{left + 108}" y="42">peer</text>',
    ]
    y = top
    for title, name, value, ours in rows:
        if title:
            parts.append(f'<line x1="10" x2="{left + width + 110}" y1="{y - 2}" y2="{y - 2}" '
                         'stroke="#dee2e6"/>')
            parts.append(f'<text x="10" y="{y + 13}" font-weight="bold">'
                         f'{html.escape(title)}</text>')
            y += title_h
        parts.append(f'<text x="{left - 8}" y="{y + 12}" text-anchor="end">'
                     f'{html.escape(name)}</text>')
        w = max(1.0, value / top_rate * width)
        colour = "#d9480f" if ours else "#868e96"
        parts.append(f'<rect x="{left}" y="{y}" width="{w:.1f}" height="{bar_h}" '
                     f'fill="{colour}"/>')
        parts.append(f'<text x="{left + w + 4:.1f}" y="{y + 12}">{value:.2f}</text>')
        y += bar_h + gap
    parts.append("</svg>")
    with open(os.path.join(out_dir, "throughput.svg"), "w") as f:
        f.write("\n".join(parts) + "\n")


def main():
    json_dir, out_dir, quick = sys.argv[1], sys.argv[2], sys.argv[3] == "1"
    groups = load(json_dir)
    write_markdown(groups, json_dir, out_dir, quick)
    write_svg(groups, out_dir)


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Turns bench/cold.sh's hyperfine and fio JSON into bench/results/cold-CPU.md.

Medians only, as in report.py. Each group's table gives every command's median over the
fastest fasthash command's (1.00: the fastest; above: slower) and the best peer's median over
the command's (above 1: faster than every peer), with the bound fio's figures set on the same
device. Standard library only.
"""
import datetime
import json
import os
import re
import sys

# report.py's helpers, imported without leaving a __pycache__ beside them in the source tree.
sys.dont_write_bytecode = True
from report import fmt_seconds, label  # noqa: E402


def read_machine(path):
    """machine.tsv: KEY<TAB>VALUE lines; a key may repeat (lines of lsblk, of the CPU)."""
    machine = {}
    with open(path) as f:
        for line in f:
            key, _, value = line.rstrip("\n").partition("\t")
            machine.setdefault(key, []).append(value)
    return machine


def load(json_dir):
    groups = []
    for name in sorted(os.listdir(json_dir)):
        if not name.endswith(".meta"):
            continue
        group = name[: -len(".meta")]
        with open(os.path.join(json_dir, name)) as f:
            title, size, files = f.read().rstrip("\n").split("\t")
        with open(os.path.join(json_dir, group + ".roles")) as f:
            roles = f.read().split()
        with open(os.path.join(json_dir, group + ".json")) as f:
            results = json.load(f)["results"]
        rows = []
        for role, result in zip(roles, results):
            text = label(result["command"])
            if role == "fasthash":
                # FASTHASH may name any binary: call it fasthash, keep its options.
                words = result["command"].split()[1:]
                text = " ".join(["fasthash"] + [w for w in words if "/" not in w])
            rows.append({"role": role, "label": text, "median": result["median"],
                         "times": result["times"]})
        groups.append({"name": group, "title": title, "bytes": int(size),
                       "files": int(files), "rows": rows})
    order = {"tree4k": 0, "big": 1, "fuse": 2}
    groups.sort(key=lambda g: (next((v for k, v in order.items() if g["name"].startswith(k)), 9),
                               g["name"]))
    return groups


def read_fio(json_dir, tag):
    path = os.path.join(json_dir, f"fio-{tag}.json")
    if not os.path.exists(path):
        return None
    with open(path) as f:
        text = f.read()
    # fio may print notes before its JSON.
    job = json.loads(text[text.index("{"):])["jobs"][0]["read"]
    return {"bytes_per_s": job["bw_bytes"], "iops": job["iops"],
            "latency_us": job["clat_ns"]["mean"] / 1000}


def best(rows, role):
    medians = [row["median"] for row in rows if row["role"] == role]
    return min(medians) if medians else None


def rate(group, seconds):
    if group["files"] > 1:
        return f"{group['files'] / seconds / 1000:.1f}k files/s"
    return f"{group['bytes'] / seconds / 1e9:.2f} GB/s"


def bound(group, fio_seq, fio_rand):
    """A time to read the figures against: the least the device allows (one 4 KiB read a file
    at fio's random-read rate, or the file's bytes at fio's sequential rate); through FUSE,
    where the fixture sets the pace, what one file after another costs (an open and a read
    a file, each waiting its delay)."""
    if group["name"].startswith("tree4k") and fio_rand:
        return (group["files"] / fio_rand["iops"],
                "the device's bound: one 4 KiB read a file at fio's random-read rate")
    if group["name"].startswith("big") and fio_seq:
        return (group["bytes"] / fio_seq["bytes_per_s"],
                "the device's bound: its bytes at fio's sequential rate")
    delay = re.match(r"fuse([0-9.]+)ms", group["name"])
    if delay:
        return (group["files"] * 2 * float(delay.group(1)) / 1000,
                "one file after another, its open and its read each waiting the delay")
    return None, ""


def read_hot(json_dir):
    """The hot runs of the big file: median seconds by algorithm (`-a NAME`)."""
    path = os.path.join(json_dir, "hot-big.json")
    if not os.path.exists(path):
        return {}
    with open(path) as f:
        results = json.load(f)["results"]
    hot = {}
    for result in results:
        words = result["command"].split()
        if "-a" in words:
            hot[words[words.index("-a") + 1]] = result["median"]
    return hot


def read_hot_beside_read(json_dir):
    """SHA-256 hot from a copy in memory while another process reads the cold file: median
    seconds, or None where the run was skipped."""
    path = os.path.join(json_dir, "hot-beside-read.json")
    if not os.path.exists(path):
        return None
    with open(path) as f:
        results = json.load(f)["results"]
    beside = [r["median"] for r in results if r["command"].startswith("cat ")]
    return beside[0] if beside else None


def goals(groups, fio_seq, hot, hot_beside_read=None):
    """Rows of the summary: each goal of issue 30 this run can check, met or not."""
    out = []
    by_name = {g["name"]: g for g in groups}

    def row(what, value, target, met):
        out.append(f"| {what} | {value} | {target} | {'met' if met else '**not met**'} |")

    for name, group in by_name.items():
        rows = group["rows"]
        fastest = best(rows, "fasthash")
        default = rows[0]["median"] if rows and rows[0]["role"] == "fasthash" else None
        swept = len([r for r in rows if r["role"] == "fasthash"]) > 1
        if default and swept:
            ratio = default / fastest
            row(f"{group['title']}: default options within 1.25x of the fastest `-j N`",
                f"{ratio:.2f}x", "≤ 1.25x", ratio <= 1.25)
        if name.startswith("tree4k"):
            rhash = [r["median"] for r in rows if r["label"].startswith("rhash")]
            if rhash and default:
                speedup = rhash[0] / default
                row(f"{group['title']}: default options against `rhash -r`",
                    f"{speedup:.2f}x as fast", "≥ 4x", speedup >= 4)
        if name == "big-blake3":
            b3sum = best(rows, "peer")
            row(f"{group['title']}: against `b3sum`", f"{b3sum / default:.2f}x as fast", "≥ 1x",
                b3sum / default >= 1)
        if name in ("big-xxh3", "big-sha256") and fio_seq:
            share = group["bytes"] / default / fio_seq["bytes_per_s"]
            hot_time = hot.get(name[len("big-"):])
            of_hot = hot_time / default if hot_time else None
            value = f"{share:.0%}"
            # What reading alone gave in the same rounds (information: the goal is fio's).
            cat = next((r["median"] for r in by_name.get("big-read", {}).get("rows", [])
                        if r["label"].startswith("cat")), None)
            if cat and share < 0.9:
                value += f"; {cat / default:.0%} of `cat`'s speed in the same rounds"
            # Below the device's speed, is hashing the limit? Then the cold run is near hot.
            if of_hot and share < 0.9:
                value += f"; {of_hot:.0%} of the hot speed ({fmt_seconds(hot_time)})"
                # What the hashing core gives while the device is read (information: the goal
                # itself is unchanged).
                if name == "big-sha256" and hot_beside_read:
                    value += (f"; {hot_beside_read / default:.0%} of the speed of hashing from"
                              f" memory while another process reads the device"
                              f" ({fmt_seconds(hot_beside_read)})")
            row(f"{group['title']}: share of fio's sequential read", value,
                "≥ 90% (or the hot speed, where the CPU is the limit)",
                share >= 0.9 or (of_hot or 0) >= 0.9)
    return out


def main():
    json_dir, out_path = sys.argv[1], sys.argv[2]
    machine = read_machine(os.path.join(json_dir, "machine.tsv"))
    groups = load(json_dir)
    # The device's sequential limit: the better of its two request sizes.
    sequential = [f for f in (read_fio(json_dir, "seq"), read_fio(json_dir, "seqbig")) if f]
    fio_seq = max(sequential, key=lambda f: f["bytes_per_s"]) if sequential else None
    fio_rand = read_fio(json_dir, "rand")
    runs = machine.get("runs", ["?"])[0]
    options = machine.get("options", [""])[0].split()

    lines = []
    add = lines.append
    add("# fasthash on cold data")
    add("")
    add(
        f"Made by `bench/cold.sh{''.join(' ' + o for o in options)}` on "
        f"{datetime.date.today().isoformat()}: the page cache dropped "
        "(`sync; echo 3 > /proc/sys/vm/drop_caches`) before every run and the programs read "
        f"back in, then hyperfine, in {runs} rounds that run each command of a group once (the "
        "order turned by one a round; the big file's groups share their rounds); medians. In "
        "each table, *time / "
        "fastest fasthash* is the command's median over the fastest fasthash command's (1.00 is "
        "the fastest), and *best peer / time* the best peer's median over the command's (above "
        "1: faster than every peer)."
    )
    if "--small" in options:
        add("")
        add("**A smoke run on small data (`--small`): not figures to compare.**")
    add("")
    for cpu in machine.get("cpu", []):
        add(f"- {cpu}")
    add(f"- {machine.get('cores', ['?'])[0]} logical cores; {machine.get('kernel', ['?'])[0]}")
    add(f"- Data: `{machine.get('data', ['?'])[0]}`, {machine.get('filesystem', ['?'])[0]}")
    for queue in machine.get("queue", []):
        add(f"- Block queue of {queue}")
    if machine.get("lsblk"):
        add("")
        add("```")
        lines.extend(machine["lsblk"])
        add("```")
    add("")
    add("Versions: " + "; ".join(machine.get("version", [])) + ".")
    add("")

    add("## The device, measured with fio")
    add("")
    add("Direct I/O (libaio) on the data's big file, read only, in the same run.")
    add("")
    add("| test | throughput | IOPS | mean latency |")
    add("|---|---|---|---|")
    for tag, what in (("seq", "sequential read, 1 MiB blocks, queue depth 32"),
                      ("seqbig", "sequential read, 8 MiB blocks, queue depth 8"),
                      ("rand", "random read, 4 KiB blocks, queue depth 64")):
        figure = read_fio(json_dir, tag)
        if figure:
            add(f"| {what} | {figure['bytes_per_s'] / 1e9:.2f} GB/s | {figure['iops']:,.0f} | "
                f"{figure['latency_us']:,.0f} µs |")
    add("")

    summary = goals(groups, fio_seq, read_hot(json_dir), read_hot_beside_read(json_dir))
    if summary:
        add("## Issue 30's goals, from this run")
        add("")
        add("| goal | this run | target | |")
        add("|---|---|---|---|")
        lines.extend(summary)
        add("")

    for group in groups:
        add(f"## {group['title']}")
        add("")
        least, why = bound(group, fio_seq, fio_rand)
        if least:
            add(f"{fmt_seconds(least)}: {why}.")
            add("")
        add("| command | median | rate | time / fastest fasthash | best peer / time |")
        add("|---|---|---|---|---|")
        fastest, peer = best(group["rows"], "fasthash"), best(group["rows"], "peer")
        for row in group["rows"]:
            ours = f"{row['median'] / fastest:.2f}" if fastest else ""
            theirs = f"{peer / row['median']:.2f}" if peer else ""
            name = f"`{row['label']}`"
            if row["median"] == fastest:
                name = f"**{name}**"
            add(f"| {name} | {fmt_seconds(row['median'])} | {rate(group, row['median'])} | "
                f"{ours} | {theirs} |")
        add("")
    with open(out_path, "w") as f:
        f.write("\n".join(lines).rstrip("\n") + "\n")


if __name__ == "__main__":
    main()

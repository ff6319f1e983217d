#!/usr/bin/env python3
"""Turns bench/cold.sh's hyperfine and fio JSON into bench/results/cold-CPU.md.

Medians, as in report.py. Each group's table gives every command's median over the fastest
fasthash command's (1.00: the fastest; above: slower) and the best peer's median over the
command's (above 1: faster than every peer), with the bound fio's figures set on the same
device. The goals compare two commands paired, round by round ([`paired`]). Standard library
only.
"""
import datetime
import json
import os
import re
import statistics
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
            if text.startswith("fio "):
                # The round's fio: its command line is long, and its time includes start-up.
                text = "fio, sequential, 1 MiB at depth 32, once through (start-up included)"
            rows.append({"role": role, "label": text, "median": result["median"],
                         "times": result["times"]})
        groups.append({"name": group, "title": title, "bytes": int(size),
                       "files": int(files), "rows": rows})
    order = {"tree4k": 0, "big": 1, "fuse": 2}
    groups.sort(key=lambda g: (next((v for k, v in order.items() if g["name"].startswith(k)), 9),
                               g["name"]))
    return groups


def fio_read_job(path):
    """The read side of the one job in fio's JSON output at `path`."""
    with open(path) as f:
        text = f.read()
    # fio may print notes before its JSON.
    return json.loads(text[text.index("{"):])["jobs"][0]["read"]


def read_fio(json_dir, tag):
    path = os.path.join(json_dir, f"fio-{tag}.json")
    if not os.path.exists(path):
        return None
    job = fio_read_job(path)
    return {"bytes_per_s": job["bw_bytes"], "iops": job["iops"],
            "latency_us": job["clat_ns"]["mean"] / 1000, "bytes": job["io_bytes"]}


def read_fio_rounds(json_dir):
    """fio's sequential read once through the big file in each round of the big file's groups
    (`fio-round-NANOSECONDS.json`, in round order): seconds the file took at fio's own rate,
    start-up left out, or [] where the run had none."""
    names = sorted(n for n in os.listdir(json_dir)
                   if n.startswith("fio-round-") and n.endswith(".json"))
    jobs = [fio_read_job(os.path.join(json_dir, name)) for name in names]
    return [job["io_bytes"] / job["bw_bytes"] for job in jobs]


def best_row(rows, role):
    """The row of `role` with the least median (None where there is none)."""
    return min((row for row in rows if row["role"] == role), key=lambda row: row["median"],
               default=None)


def best(rows, role):
    """[`best_row`]'s median."""
    row = best_row(rows, role)
    return row["median"] if row else None


def paired(slower, faster):
    """The median over rounds of `slower`'s time over `faster`'s in the same round: each
    command ran once a round, so a round's ratio compares runs that met the device in the same
    minute. A virtual disk can change its speed from one minute to the next, and two commands'
    medians then differ by a quarter where each round's pair agrees (the Intel Xeon's run of
    2026-11-28: default options and `-j 2`, the same settings, 199 against 158 ms by medians,
    1.00 paired). None where the rounds do not pair up."""
    pairs = list(zip(slower["times"], faster["times"]))
    if not pairs or len(slower["times"]) != len(faster["times"]):
        return None
    return statistics.median(a / b for a, b in pairs)


def compared(slower, faster, unit="x"):
    """`slower`'s time over `faster`'s as a goal judges it, and its text: paired where their
    rounds pair up, else by medians."""
    by_medians = slower["median"] / faster["median"]
    ratio = paired(slower, faster)
    if ratio is None:
        return by_medians, f"{by_medians:.2f}{unit} by medians"
    return ratio, f"{ratio:.2f}{unit} paired; {by_medians:.2f}{unit} by medians"


def rate(group, seconds):
    if group["files"] > 1:
        return f"{group['files'] / seconds / 1000:.1f}k files/s"
    return f"{group['bytes'] / seconds / 1e9:.2f} GB/s"


def bound(group, fio_seq, fio_rand, fio_rounds=()):
    """A time to read the figures against: the least the device allows (one 4 KiB read a file
    at fio's random-read rate, or the file's bytes at fio's sequential rate: its pass through
    the file in each round where there were such, by their median); through FUSE, where the
    fixture sets the pace, what one file after another costs (an open and a read a file, each
    waiting its delay)."""
    if group["name"].startswith("tree4k") and fio_rand:
        return (group["files"] / fio_rand["iops"],
                "the device's bound: one 4 KiB read a file at fio's random-read rate")
    if group["name"].startswith("big") and fio_rounds:
        return (statistics.median(fio_rounds),
                "the device's bound: fio's sequential read once through the file, the median "
                "of its passes in the rounds")
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


def goals(groups, fio_seq, hot, hot_beside_read=None, fio_rounds=()):
    """Rows of the summary: each goal of issue 30 this run can check, met or not."""
    out = []
    by_name = {g["name"]: g for g in groups}

    def row(what, value, target, met):
        out.append(f"| {what} | {value} | {target} | {'met' if met else '**not met**'} |")

    for name, group in by_name.items():
        rows = group["rows"]
        fastest_row = best_row(rows, "fasthash")
        default_row = rows[0] if rows and rows[0]["role"] == "fasthash" else None
        default = default_row["median"] if default_row else None
        swept = len([r for r in rows if r["role"] == "fasthash"]) > 1
        if default and swept:
            ratio, text = compared(default_row, fastest_row)
            row(f"{group['title']}: default options within 1.25x of the fastest `-j N` "
                f"(`{fastest_row['label']}`)", text, "≤ 1.25x", ratio <= 1.25)
        if name.startswith("tree4k"):
            rhash = next((r for r in rows if r["label"].startswith("rhash")), None)
            if rhash and default:
                speedup, text = compared(rhash, default_row, "x as fast")
                row(f"{group['title']}: default options against `rhash -r`", text, "≥ 4x",
                    speedup >= 4)
        if name == "big-blake3" and default:
            b3sum = best_row(rows, "peer")
            speedup, text = compared(b3sum, default_row, "x as fast")
            row(f"{group['title']}: against `b3sum`", text, "≥ 1x", speedup >= 1)
        if name in ("big-xxh3", "big-sha256") and fio_seq:
            once = group["bytes"] / default / fio_seq["bytes_per_s"]
            share = once
            value = f"{once:.0%} of fio's 10 s after the rounds"
            # Paired: the device's speed in the minute the round ran, where fio ran in every
            # round.
            if len(fio_rounds) == len(default_row["times"]):
                share = paired({"times": fio_rounds}, default_row)
                value = (f"{share:.0%} paired with fio's read in the same rounds; "
                         f"{once:.0%} of fio's 10 s after the rounds")
            # Direct reads one at a time (dd) can be faster than fio's 32 at once: their share
            # too, paired (information: the goal is fio's).
            direct = next((r for r in by_name.get("big-read", {}).get("rows", [])
                           if r["label"].startswith("dd")), None)
            of_direct = paired(direct, default_row) if direct else None
            if of_direct:
                value += f"; {of_direct:.0%} of `dd iflag=direct`'s speed paired"
            hot_time = hot.get(name[len("big-"):])
            of_hot = hot_time / default if hot_time else None
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
    add("Direct I/O (libaio) on the data's big file, read only, in the same run: 10 s of each "
        "test after the rounds, and the sequential read once through the file in each round of "
        "the big file's groups. *Passes* is how many times the test read the file's size. The "
        "10 s run in another minute and go over the same file again and again; the pass in a "
        "round meets the device in the minute that round's cold runs do, and the goals are "
        "judged against it.")
    add("")
    add("| test | throughput | IOPS | mean latency | passes |")
    add("|---|---|---|---|---|")
    big = next((g for g in groups if g["name"].startswith("big")), None)
    for tag, what in (("seq", "sequential read, 1 MiB blocks, queue depth 32"),
                      ("seqbig", "sequential read, 8 MiB blocks, queue depth 8"),
                      ("rand", "random read, 4 KiB blocks, queue depth 64")):
        figure = read_fio(json_dir, tag)
        if figure:
            passes = f"{figure['bytes'] / big['bytes']:.1f}" if big else ""
            add(f"| {what} | {figure['bytes_per_s'] / 1e9:.2f} GB/s | {figure['iops']:,.0f} | "
                f"{figure['latency_us']:,.0f} µs | {passes} |")
    fio_rounds = read_fio_rounds(json_dir)
    if fio_rounds and big:
        rates = sorted(big["bytes"] / seconds / 1e9 for seconds in fio_rounds)
        add(f"| sequential read, 1 MiB blocks, queue depth 32, once through in each of "
            f"{len(rates)} rounds: median (range) | "
            f"{big['bytes'] / statistics.median(fio_rounds) / 1e9:.2f} GB/s "
            f"({rates[0]:.2f} to {rates[-1]:.2f}) | | | 1 |")
    add("")

    summary = goals(groups, fio_seq, read_hot(json_dir), read_hot_beside_read(json_dir),
                    fio_rounds)
    if summary:
        add("## Issue 30's goals, from this run")
        add("")
        add("Two commands of the same rounds are compared paired: the median over the rounds of "
            "their ratio in each round, so that both runs of a pair met the device in the same "
            "minute. The ratio of their medians is given beside it. A share of fio's sequential "
            "read is paired with fio's read once through the file in the same round (its own "
            "rate, start-up left out), with the share of fio's 10 s after the rounds beside it.")
        add("")
        add("| goal | this run | target | |")
        add("|---|---|---|---|")
        lines.extend(summary)
        add("")

    for group in groups:
        add(f"## {group['title']}")
        add("")
        least, why = bound(group, fio_seq, fio_rand, fio_rounds)
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

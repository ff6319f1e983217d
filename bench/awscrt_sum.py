#!/usr/bin/env python3
"""CRC64NVME or CRC32C of files as the AWS CLI computes them: awscrt's checksums, fed 8 MiB at
a time (the CLI's part size), printing `HEX  NAME` lines like the other tools."""
import sys

from awscrt import checksums

CHUNK = 8 * 1024 * 1024


def main() -> int:
    args = sys.argv[1:]
    if len(args) < 2 or args[0] not in ("crc64nvme", "crc32c", "crc32"):
        print("usage: awscrt_sum.py crc64nvme|crc32c|crc32 FILE...", file=sys.stderr)
        return 2
    algo, files = args[0], args[1:]
    function = getattr(checksums, algo)
    width = 16 if algo == "crc64nvme" else 8
    for name in files:
        crc = 0
        with open(name, "rb", buffering=0) as f:
            while True:
                chunk = f.read(CHUNK)
                if not chunk:
                    break
                crc = function(chunk, crc)
        print(f"{crc:0{width}x}  {name}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env bash
# Interoperability with a real S3 implementation: fasthash's values accepted, a wrong one
# rejected, and what the server then reports equal to what fasthash predicted.
#
#   tests/interop/s3.sh            (from the repository root; takes several minutes the first
#                                   time: it builds s3s-fs and makes a venv with boto3)
#
# s3s-fs 0.17.0 validates all ten x-amz-checksum-* headers on PutObject and UploadPart and the
# FULL_OBJECT checksum on CompleteMultipartUpload. The uploads go through boto3, with the
# checksum headers set to fasthash's values (botocore's own checksumming switched off).
set -euo pipefail
repo="$(cd "$(dirname "$0")/../.." && pwd)"
export PATH="$HOME/.cargo/bin:$PATH"
work="$(mktemp -d "${TMPDIR:-/tmp}/fasthash-s3-interop.XXXXXX")"
server_pid=""
cleanup() {
  if [ -n "$server_pid" ]; then kill "$server_pid" 2>/dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT

command -v s3s-fs >/dev/null ||
  cargo install s3s-fs@0.17.0 --features binary --locked --ignore-rust-version --quiet
venv="${FASTHASH_INTEROP_VENV:-${TMPDIR:-/tmp}/fasthash-interop-venv}"
if [ ! -x "$venv/bin/python" ] || ! "$venv/bin/python" -c 'import boto3' 2>/dev/null; then
  python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet boto3
fi
(cd "$repo" && cargo build --release --quiet)
fasthash="$repo/target/release/fasthash"

mkdir -p "$work/root/interop"
port=$((20000 + RANDOM % 20000))
s3s-fs --host 127.0.0.1 --port "$port" --access-key AKIAFASTHASH --secret-key fasthash-secret \
  "$work/root" > "$work/server.log" 2>&1 &
server_pid=$!
for _ in $(seq 50); do
  (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && break
  sleep 0.2
done

"$venv/bin/python" - "$fasthash" "$port" "$work" <<'PY'
import json, os, subprocess, sys
import boto3
from botocore.config import Config
from botocore.exceptions import ClientError

fasthash, port, work = sys.argv[1], sys.argv[2], sys.argv[3]
s3 = boto3.client(
    "s3", endpoint_url=f"http://127.0.0.1:{port}", region_name="us-east-1",
    aws_access_key_id="AKIAFASTHASH", aws_secret_access_key="fasthash-secret",
    config=Config(request_checksum_calculation="when_required",
                  response_checksum_validation="when_required",
                  s3={"addressing_style": "path"}))
bucket = "interop"

def run(*args):
    return subprocess.run([fasthash, *args], check=True, capture_output=True, text=True).stdout

def with_headers(headers):
    """Adds raw headers to the next request (botocore may not model every new algorithm)."""
    def add(request, **_):
        for key, value in headers.items():
            request.headers[key] = value
    return add

def call(operation, headers, **params):
    event = f"before-sign.s3.{operation}"
    handler = with_headers(headers)
    s3.meta.events.register(event, handler)
    try:
        return getattr(s3, {"PutObject": "put_object", "UploadPart": "upload_part"}[operation])(**params)
    finally:
        s3.meta.events.unregister(event, handler)

path = os.path.join(work, "data.bin")
state = 1
with open(path, "wb") as f:
    for _ in range(12 * 1024 * 1024 // 8):
        state = (state * 6364136223846793005 + 1442695040888963407) % 2**64
        f.write(state.to_bytes(8, "little"))
body = open(path, "rb").read()
failures = 0
algorithms = ["crc32", "crc32c", "crc64nvme", "sha1", "sha256", "sha512", "md5",
              "xxhash64", "xxhash3", "xxhash128"]
for algo in algorithms:
    value = run("--s3", "--no-names", "-a", algo, path).strip()
    header = f"x-amz-checksum-{algo}"
    try:
        call("PutObject", {header: value}, Bucket=bucket, Key=f"single-{algo}", Body=body)
        print(f"PutObject {algo}: accepted {value}")
    except ClientError as error:
        failures += 1
        print(f"PutObject {algo}: REJECTED the correct value {value}: {error}")
    wrong = ("B" if value[0] != "B" else "C") + value[1:]
    try:
        call("PutObject", {header: wrong}, Bucket=bucket, Key=f"wrong-{algo}", Body=body)
        failures += 1
        print(f"PutObject {algo}: ACCEPTED a wrong value {wrong}")
    except ClientError as error:
        print(f"PutObject {algo}: rejected a wrong value ({error.response['Error']['Code']})")

def multipart(algo, checksum_type, s3_algo):
    info = json.loads(run("--json", "--etag", "-a", algo, "--part-size", "5MiB",
                          "--checksum-type", checksum_type, path))
    key = f"multi-{algo}-{checksum_type}"
    create = dict(Bucket=bucket, Key=key, ChecksumAlgorithm=s3_algo)
    if checksum_type == "full-object":
        create["ChecksumType"] = "FULL_OBJECT"
    # Without ChecksumType, S3 makes a composite checksum.
    upload = s3.create_multipart_upload(**create)
    parts = []
    for number, value in enumerate(info["part_values"], start=1):
        start = (number - 1) * info["part_size"]
        chunk = body[start:start + info["part_size"]]
        reply = call("UploadPart", {f"x-amz-checksum-{algo}": value}, Bucket=bucket, Key=key,
                     UploadId=upload["UploadId"], PartNumber=number, Body=chunk)
        parts.append({"PartNumber": number, "ETag": reply["ETag"], f"Checksum{s3_algo}": value})
    complete = dict(Bucket=bucket, Key=key, UploadId=upload["UploadId"],
                    MultipartUpload={"Parts": parts})
    if checksum_type == "full-object":
        complete[f"Checksum{s3_algo}"] = info["s3_value"]
        complete["ChecksumType"] = "FULL_OBJECT"
    s3.complete_multipart_upload(**complete)
    head = s3.head_object(Bucket=bucket, Key=key, ChecksumMode="ENABLED")
    reported = head.get(f"Checksum{s3_algo}")
    print(f"multipart {algo} {checksum_type}: fasthash {info['s3_value']} {info['etag']}, "
          f"server {reported} {head['ETag']}")
    head_path = os.path.join(work, f"{key}.json")
    with open(head_path, "w") as f:
        json.dump({k: v for k, v in head.items() if k != "ResponseMetadata"}, f, default=str)
    verdict = subprocess.run([fasthash, "--verify-s3", head_path, path], capture_output=True, text=True)
    print("  --verify-s3:", verdict.stdout.strip().replace("\n", "; "), f"(exit {verdict.returncode})")
    ok = head["ETag"] == info["etag"] and verdict.returncode == 0
    if reported is not None and reported != info["s3_value"]:
        whole = run("--s3", "--no-names", "-a", algo, path).strip()
        if checksum_type == "composite" and "-" not in reported and reported == whole:
            # s3s-fs validates each part's checksum but stores the whole object's checksum
            # instead of S3's composite: the parts were accepted, the value is the full one.
            print("  the server reports the whole object's checksum, not a composite; "
                  "every part checksum was accepted")
        else:
            ok = False
    return ok

for algo, checksum_type, s3_algo in [("crc64nvme", "full-object", "CRC64NVME"),
                                     ("crc32c", "full-object", "CRC32C"),
                                     ("sha256", "composite", "SHA256"),
                                     ("crc32", "composite", "CRC32")]:
    try:
        if not multipart(algo, checksum_type, s3_algo):
            failures += 1
            print(f"multipart {algo} {checksum_type}: MISMATCH")
    except ClientError as error:
        if error.response["Error"]["Code"] == "NotImplemented":
            print(f"multipart {algo} {checksum_type}: the server does not implement it "
                  f"({error.response['Error'].get('Message', '')}); skipped")
        else:
            failures += 1
            print(f"multipart {algo} {checksum_type}: REJECTED: {error}")

print("failures:", failures)
sys.exit(1 if failures else 0)
PY

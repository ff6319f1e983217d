complete -c fasthash -s a -l algorithm -d 'Algorithm: sha256, sha512, sha1, md5, sha384, sha224, blake3, xxh3, xxh128, xxh64, xxh32, crc64nvme, crc32, crc32c, blake2b, sha3-256, sha3-512, sha3-384, sha3-224, sm3, crc, crc32b, bsd, sysv (default sha256; case-insensitive; S3 names such as xxhash64 work too). Several (-a md5,sha256 or -a md5 -a sha256): each file is read once and gets a line per algorithm, in the order given' -r -f -a "sha256\t''
sha512\t''
sha1\t''
md5\t''
sha384\t''
sha224\t''
blake3\t''
xxh3\t''
xxh128\t''
xxh64\t''
xxh32\t''
crc64nvme\t''
crc32\t''
crc32c\t''
blake2b\t''
sha3-256\t''
sha3-512\t''
sha3-384\t''
sha3-224\t''
sm3\t''
crc\t''
crc32b\t''
bsd\t''
sysv\t''"
complete -c fasthash -s j -l threads -d 'Threads hashing files in parallel (default: one per core; at most the cores or 256, whichever is more)' -r
complete -c fasthash -l readers -d 'Files opened and read ahead of the hashing threads at once, each by a reader thread of its own: the reads kept in flight on a cold disk or a network file system (default: 32, or twice the threads when more)' -r
complete -c fasthash -l exclude -d 'With -r, skip files and directories matching GLOB; with --check, the listed files that match. GLOB matches the end of the path as printed (`*.log`, `cache/**`: at any depth); a leading `/` anchors it at the directory named (`/src/build` for `-r src`), a trailing `/` matches directories only' -r
complete -c fasthash -l include -d 'With -r or --check, only files matching GLOB, or under a directory matching it (the rules of --exclude, which wins)' -r
complete -c fasthash -l files-from -d 'Read the names of the files to hash from FILE, one a line (`-`: standard input)' -r
complete -c fasthash -l files0-from -d 'Read the names of the files to hash from FILE, each ended by a NUL (as `find -print0` writes; `-`: standard input)' -r
complete -c fasthash -l tree -d 'With --check: also walk DIR and report the files no manifest lists (NEW), listed files that are gone (MISSING) and files renamed since (MOVED from the listed name); with --json, one object a file' -r
complete -c fasthash -l cache -d 'Remember digests in FILE and take them from it for files whose device, inode, size, modification and change times are unchanged (no read); with --check too, at the cost of not noticing bit rot (see docs/GUIDE.md)' -r
complete -c fasthash -l shard -d 'Hash only the K-th of N parts of the inputs: the sorted walk cut into N runs of about equal bytes, from names and sizes alone, so every machine cuts it the same way. The output starts with a `# fasthash shard K/N` line for --merge (a comment to --check)' -r
complete -c fasthash -l part-size -d 'What S3 reports for a multipart upload in parts of SIZE bytes (K, M, G: powers of 1024; 8MiB, 5M, 16777216)' -r
complete -c fasthash -l checksum-type -d 'With --part-size: composite (the checksum of the part checksums, `-N`) or full-object (the whole object\'s CRC; CRC32, CRC32C, CRC64NVME); default: composite, full-object for crc64nvme' -r -f -a "composite\t''
full-object\t''"
complete -c fasthash -l s3-preset -d 'What this client makes S3 store for the file: aws-cli-v2 (CRC64NVME, full object), aws-cli-v1 or boto3 (CRC32, composite from 8 MiB): algorithm, type, value and ETag' -r -f -a "aws-cli-v2\t''
aws-cli-v1\t''
boto3\t''"
complete -c fasthash -l verify-s3 -d 'Compare FILE with what S3 reports for its object: `--verify-s3 s3://BUCKET/KEY FILE` asks S3 (HeadObject; credentials, region and endpoint as the AWS CLI finds them), `--verify-s3 HEAD.json FILE` reads what `aws s3api head-object --checksum-mode ENABLED` or `get-object-attributes` printed. `--verify-s3 s3://BUCKET/PREFIX/ DIR` compares every object under the prefix with the file of DIR its key names: OK, FAILED, MISSING (no file), NEW (no object), cannot verify' -r
complete -c fasthash -l endpoint-url -d 'With --verify-s3 s3://...: the S3-compatible server to ask (MinIO, Ceph, a local server), addressed by path; default: AWS_ENDPOINT_URL, the profile\'s endpoint_url, or Amazon S3' -r
complete -c fasthash -l seconds -d 'With --bench: seconds to spend measuring, in all (default 3, at most 3600)' -r
complete -c fasthash -l generate -d 'Print a generated file: the man page or a shell\'s completions' -r -f -a "man\t''
complete-bash\t''
complete-zsh\t''
complete-fish\t''
complete-elvish\t''
complete-powershell\t''"
complete -c fasthash -s b -l binary -d 'Read in binary mode: untagged lines get a `*` before the name'
complete -c fasthash -s t -l text -d 'Read in text mode (the default)'
complete -c fasthash -l tag -d 'Write BSD-style lines: `TAG (NAME) = DIGEST`'
complete -c fasthash -l untagged -d 'Write GNU-style lines: `DIGEST  NAME` (the default)'
complete -c fasthash -s z -l zero -d 'End each output line with NUL, not newline, and do not escape names'
complete -c fasthash -l base64 -d 'Print digests in base64, as `cksum --base64` does'
complete -c fasthash -l no-names -d 'Print digests only, without names'
complete -c fasthash -s c -l check -d 'Read checksums from the FILEs and verify them'
complete -c fasthash -l ignore-missing -d 'With --check: do not fail or report for missing files; with --verify-s3 of a tree, for objects that have no file'
complete -c fasthash -l quiet -d 'With --check: do not print OK for each verified file'
complete -c fasthash -l status -d 'With --check: print nothing; the exit status tells'
complete -c fasthash -l strict -d 'With --check: exit non-zero for improperly formatted lines'
complete -c fasthash -s w -l warn -d 'With --check: warn about improperly formatted lines'
complete -c fasthash -s r -l recursive -d 'Hash the files under directories, recursively (sorted by name, hidden files included)'
complete -c fasthash -s L -l follow -d 'With -r: follow symbolic links met while walking (loops are reported, not followed); links named on the command line are always followed'
complete -c fasthash -l merge -d 'Merge the shard manifests FILE... (of --shard K/N, any order) into the manifest one run writes, byte for byte; refuses shards of different runs, a shard twice or a missing one'
complete -c fasthash -l progress -d 'Show the progress bar at once, even where standard error is not a terminal (default: only when it is a terminal and the work takes more than a second). The bar names the file being hashed, cut to fit from the front; sizes and rates are decimal (MB, GB/s). Hashing, S3 values and --verify-s3 of a tree only: --check, --merge and --verify-s3 of one object have no bar'
complete -c fasthash -l no-progress -d 'Never show a progress bar'
complete -c fasthash -l stats -d 'At the end, one line on standard error: files, bytes hashed, time and rate, in decimal units (`fasthash: 1,234 files, 5.67 GB in 2.31 s, 2.45 GB/s`, then `, N failed`); with --check the OK, FAILED, missing and unreadable counts, with --tree also MISSING, MOVED and NEW. Not with --merge, which hashes nothing'
complete -c fasthash -l s3 -d 'Print the Amazon S3 checksum value (base64, as the x-amz-checksum-* header wants it): `VALUE  NAME`'
complete -c fasthash -l s3-header -d 'Print `x-amz-checksum-ALGO: VALUE` header lines (no names; use --json to keep them)'
complete -c fasthash -l json -d 'Print one JSON object a line. Hashing: `{"name", "size", "digests": {ALGORITHM: DIGEST}}` a file (every -a algorithm, hex or --base64); with the S3 options: name, size, algorithm, digest, S3 header and value, checksum type, parts, ETag, an object per algorithm; with --check (and --tree), one object a file and a summary object; with --verify-s3, the verdict as one object (every field: docs/json.md)'
complete -c fasthash -l etag -d 'Print the ETag S3 gives the object (the MD5 of the part MD5s and `-N` with --part-size); alone, only the ETag; with --s3 or -a, the checksum value too; with --s3-header, an `ETag:` header line'
complete -c fasthash -l no-part-limits -d 'With --part-size: allow parts outside 5 MiB..5 GiB and more than 10,000 parts'
complete -c fasthash -l mmap -d 'Map every regular file into memory instead of reading it (default: map files of 4 MiB and more, and on one thread files from 128 KiB hashed side by side)'
complete -c fasthash -l no-mmap -d 'Never map files; always read them'
complete -c fasthash -l list-kernels -d 'List every kernel of every algorithm, which ones this CPU runs, and the one used'
complete -c fasthash -l debug -d 'Name the kernel each algorithm runs on (on standard error)'
complete -c fasthash -l bench -d 'Measure every kernel this CPU runs (* the one used; with -a, that algorithm\'s): GB/s on one thread at 64 B, 4 KiB and 1 MiB in memory, and 32 buffers of 4 KiB side by side. Takes no FILE'
complete -c fasthash -s h -l help -d 'Print help (see more with \'--help\')'
complete -c fasthash -s V -l version -d 'Print version'


using namespace System.Management.Automation
using namespace System.Management.Automation.Language

Register-ArgumentCompleter -Native -CommandName 'fasthash' -ScriptBlock {
    param($wordToComplete, $commandAst, $cursorPosition)

    $commandElements = $commandAst.CommandElements
    $command = @(
        'fasthash'
        for ($i = 1; $i -lt $commandElements.Count; $i++) {
            $element = $commandElements[$i]
            if ($element -isnot [StringConstantExpressionAst] -or
                $element.StringConstantType -ne [StringConstantType]::BareWord -or
                $element.Value.StartsWith('-') -or
                $element.Value -eq $wordToComplete) {
                break
        }
        $element.Value
    }) -join ';'

    $completions = @(switch ($command) {
        'fasthash' {
            [CompletionResult]::new('-a', '-a', [CompletionResultType]::ParameterName, 'Algorithm: sha256, sha512, sha1, md5, sha384, sha224, blake3, xxh3, xxh128, xxh64, xxh32, crc64nvme, crc32, crc32c, blake2b, sha3-256, sha3-512, sha3-384, sha3-224, sm3, crc, crc32b, bsd, sysv (default sha256; case-insensitive; S3 names such as xxhash64 work too). Several (-a md5,sha256 or -a md5 -a sha256): each file is read once and gets a line per algorithm, in the order given')
            [CompletionResult]::new('--algorithm', '--algorithm', [CompletionResultType]::ParameterName, 'Algorithm: sha256, sha512, sha1, md5, sha384, sha224, blake3, xxh3, xxh128, xxh64, xxh32, crc64nvme, crc32, crc32c, blake2b, sha3-256, sha3-512, sha3-384, sha3-224, sm3, crc, crc32b, bsd, sysv (default sha256; case-insensitive; S3 names such as xxhash64 work too). Several (-a md5,sha256 or -a md5 -a sha256): each file is read once and gets a line per algorithm, in the order given')
            [CompletionResult]::new('-j', '-j', [CompletionResultType]::ParameterName, 'Threads hashing files in parallel (default: one per core; at most the cores or 256, whichever is more)')
            [CompletionResult]::new('--threads', '--threads', [CompletionResultType]::ParameterName, 'Threads hashing files in parallel (default: one per core; at most the cores or 256, whichever is more)')
            [CompletionResult]::new('--readers', '--readers', [CompletionResultType]::ParameterName, 'Files opened and read ahead of the hashing threads at once, each by a reader thread of its own: the reads kept in flight on a cold disk or a network file system (default: 32, or twice the threads when more)')
            [CompletionResult]::new('--exclude', '--exclude', [CompletionResultType]::ParameterName, 'With -r, skip files and directories matching GLOB; with --check, the listed files that match. GLOB matches the end of the path as printed (`*.log`, `cache/**`: at any depth); a leading `/` anchors it at the directory named (`/src/build` for `-r src`), a trailing `/` matches directories only')
            [CompletionResult]::new('--include', '--include', [CompletionResultType]::ParameterName, 'With -r or --check, only files matching GLOB, or under a directory matching it (the rules of --exclude, which wins)')
            [CompletionResult]::new('--files-from', '--files-from', [CompletionResultType]::ParameterName, 'Read the names of the files to hash from FILE, one a line (`-`: standard input)')
            [CompletionResult]::new('--files0-from', '--files0-from', [CompletionResultType]::ParameterName, 'Read the names of the files to hash from FILE, each ended by a NUL (as `find -print0` writes; `-`: standard input)')
            [CompletionResult]::new('--tree', '--tree', [CompletionResultType]::ParameterName, 'With --check: also walk DIR and report the files no manifest lists (NEW), listed files that are gone (MISSING) and files renamed since (MOVED from the listed name); with --json, one object a file')
            [CompletionResult]::new('--cache', '--cache', [CompletionResultType]::ParameterName, 'Remember digests in FILE and take them from it for files whose device, inode, size, modification and change times are unchanged (no read); with --check too, at the cost of not noticing bit rot (see docs/GUIDE.md)')
            [CompletionResult]::new('--shard', '--shard', [CompletionResultType]::ParameterName, 'Hash only the K-th of N parts of the inputs: the sorted walk cut into N runs of about equal bytes, from names and sizes alone, so every machine cuts it the same way. The output starts with a `# fasthash shard K/N` line for --merge (a comment to --check)')
            [CompletionResult]::new('--part-size', '--part-size', [CompletionResultType]::ParameterName, 'What S3 reports for a multipart upload in parts of SIZE bytes (K, M, G: powers of 1024; 8MiB, 5M, 16777216)')
            [CompletionResult]::new('--checksum-type', '--checksum-type', [CompletionResultType]::ParameterName, 'With --part-size: composite (the checksum of the part checksums, `-N`) or full-object (the whole object''s CRC; CRC32, CRC32C, CRC64NVME); default: composite, full-object for crc64nvme')
            [CompletionResult]::new('--s3-preset', '--s3-preset', [CompletionResultType]::ParameterName, 'What this client makes S3 store for the file: aws-cli-v2 (CRC64NVME, full object), aws-cli-v1 or boto3 (CRC32, composite from 8 MiB): algorithm, type, value and ETag')
            [CompletionResult]::new('--verify-s3', '--verify-s3', [CompletionResultType]::ParameterName, 'Compare FILE with what S3 reports for its object: `--verify-s3 s3://BUCKET/KEY FILE` asks S3 (HeadObject; credentials, region and endpoint as the AWS CLI finds them), `--verify-s3 HEAD.json FILE` reads what `aws s3api head-object --checksum-mode ENABLED` or `get-object-attributes` printed. `--verify-s3 s3://BUCKET/PREFIX/ DIR` compares every object under the prefix with the file of DIR its key names: OK, FAILED, MISSING (no file), NEW (no object), cannot verify')
            [CompletionResult]::new('--endpoint-url', '--endpoint-url', [CompletionResultType]::ParameterName, 'With --verify-s3 s3://...: the S3-compatible server to ask (MinIO, Ceph, a local server), addressed by path; default: AWS_ENDPOINT_URL, the profile''s endpoint_url, or Amazon S3')
            [CompletionResult]::new('--seconds', '--seconds', [CompletionResultType]::ParameterName, 'With --bench: seconds to spend measuring, in all (default 3, at most 3600)')
            [CompletionResult]::new('--generate', '--generate', [CompletionResultType]::ParameterName, 'Print a generated file: the man page or a shell''s completions')
            [CompletionResult]::new('-b', '-b', [CompletionResultType]::ParameterName, 'Read in binary mode: untagged lines get a `*` before the name')
            [CompletionResult]::new('--binary', '--binary', [CompletionResultType]::ParameterName, 'Read in binary mode: untagged lines get a `*` before the name')
            [CompletionResult]::new('-t', '-t', [CompletionResultType]::ParameterName, 'Read in text mode (the default)')
            [CompletionResult]::new('--text', '--text', [CompletionResultType]::ParameterName, 'Read in text mode (the default)')
            [CompletionResult]::new('--tag', '--tag', [CompletionResultType]::ParameterName, 'Write BSD-style lines: `TAG (NAME) = DIGEST`')
            [CompletionResult]::new('--untagged', '--untagged', [CompletionResultType]::ParameterName, 'Write GNU-style lines: `DIGEST  NAME` (the default)')
            [CompletionResult]::new('-z', '-z', [CompletionResultType]::ParameterName, 'End each output line with NUL, not newline, and do not escape names')
            [CompletionResult]::new('--zero', '--zero', [CompletionResultType]::ParameterName, 'End each output line with NUL, not newline, and do not escape names')
            [CompletionResult]::new('--base64', '--base64', [CompletionResultType]::ParameterName, 'Print digests in base64, as `cksum --base64` does')
            [CompletionResult]::new('--no-names', '--no-names', [CompletionResultType]::ParameterName, 'Print digests only, without names')
            [CompletionResult]::new('-c', '-c', [CompletionResultType]::ParameterName, 'Read checksums from the FILEs and verify them')
            [CompletionResult]::new('--check', '--check', [CompletionResultType]::ParameterName, 'Read checksums from the FILEs and verify them')
            [CompletionResult]::new('--ignore-missing', '--ignore-missing', [CompletionResultType]::ParameterName, 'With --check: do not fail or report for missing files; with --verify-s3 of a tree, for objects that have no file')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'With --check: do not print OK for each verified file')
            [CompletionResult]::new('--status', '--status', [CompletionResultType]::ParameterName, 'With --check: print nothing; the exit status tells')
            [CompletionResult]::new('--strict', '--strict', [CompletionResultType]::ParameterName, 'With --check: exit non-zero for improperly formatted lines')
            [CompletionResult]::new('-w', '-w', [CompletionResultType]::ParameterName, 'With --check: warn about improperly formatted lines')
            [CompletionResult]::new('--warn', '--warn', [CompletionResultType]::ParameterName, 'With --check: warn about improperly formatted lines')
            [CompletionResult]::new('-r', '-r', [CompletionResultType]::ParameterName, 'Hash the files under directories, recursively (sorted by name, hidden files included)')
            [CompletionResult]::new('--recursive', '--recursive', [CompletionResultType]::ParameterName, 'Hash the files under directories, recursively (sorted by name, hidden files included)')
            [CompletionResult]::new('-L', '-L ', [CompletionResultType]::ParameterName, 'With -r: follow symbolic links met while walking (loops are reported, not followed); links named on the command line are always followed')
            [CompletionResult]::new('--follow', '--follow', [CompletionResultType]::ParameterName, 'With -r: follow symbolic links met while walking (loops are reported, not followed); links named on the command line are always followed')
            [CompletionResult]::new('--merge', '--merge', [CompletionResultType]::ParameterName, 'Merge the shard manifests FILE... (of --shard K/N, any order) into the manifest one run writes, byte for byte; refuses shards of different runs, a shard twice or a missing one')
            [CompletionResult]::new('--progress', '--progress', [CompletionResultType]::ParameterName, 'Show the progress bar at once, even where standard error is not a terminal (default: only when it is a terminal and the work takes more than a second). The bar names the file being hashed, cut to fit from the front; sizes and rates are decimal (MB, GB/s). Hashing, S3 values and --verify-s3 of a tree only: --check, --merge and --verify-s3 of one object have no bar')
            [CompletionResult]::new('--no-progress', '--no-progress', [CompletionResultType]::ParameterName, 'Never show a progress bar')
            [CompletionResult]::new('--stats', '--stats', [CompletionResultType]::ParameterName, 'At the end, one line on standard error: files, bytes hashed, time and rate, in decimal units (`fasthash: 1,234 files, 5.67 GB in 2.31 s, 2.45 GB/s`, then `, N failed`); with --check the OK, FAILED, missing and unreadable counts, with --tree also MISSING, MOVED and NEW. Not with --merge, which hashes nothing')
            [CompletionResult]::new('--s3', '--s3', [CompletionResultType]::ParameterName, 'Print the Amazon S3 checksum value (base64, as the x-amz-checksum-* header wants it): `VALUE  NAME`')
            [CompletionResult]::new('--s3-header', '--s3-header', [CompletionResultType]::ParameterName, 'Print `x-amz-checksum-ALGO: VALUE` header lines (no names; use --json to keep them)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print one JSON object a line. Hashing: `{"name", "size", "digests": {ALGORITHM: DIGEST}}` a file (every -a algorithm, hex or --base64); with the S3 options: name, size, algorithm, digest, S3 header and value, checksum type, parts, ETag, an object per algorithm; with --check (and --tree), one object a file and a summary object; with --verify-s3, the verdict as one object (every field: docs/json.md)')
            [CompletionResult]::new('--etag', '--etag', [CompletionResultType]::ParameterName, 'Print the ETag S3 gives the object (the MD5 of the part MD5s and `-N` with --part-size); alone, only the ETag; with --s3 or -a, the checksum value too; with --s3-header, an `ETag:` header line')
            [CompletionResult]::new('--no-part-limits', '--no-part-limits', [CompletionResultType]::ParameterName, 'With --part-size: allow parts outside 5 MiB..5 GiB and more than 10,000 parts')
            [CompletionResult]::new('--mmap', '--mmap', [CompletionResultType]::ParameterName, 'Map every regular file into memory instead of reading it (default: map files of 4 MiB and more, and on one thread files from 128 KiB hashed side by side)')
            [CompletionResult]::new('--no-mmap', '--no-mmap', [CompletionResultType]::ParameterName, 'Never map files; always read them')
            [CompletionResult]::new('--list-kernels', '--list-kernels', [CompletionResultType]::ParameterName, 'List every kernel of every algorithm, which ones this CPU runs, and the one used')
            [CompletionResult]::new('--debug', '--debug', [CompletionResultType]::ParameterName, 'Name the kernel each algorithm runs on (on standard error)')
            [CompletionResult]::new('--bench', '--bench', [CompletionResultType]::ParameterName, 'Measure every kernel this CPU runs (* the one used; with -a, that algorithm''s): GB/s on one thread at 64 B, 4 KiB and 1 MiB in memory, and 32 buffers of 4 KiB side by side. Takes no FILE')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
    })

    $completions.Where{ $_.CompletionText -like "$wordToComplete*" } |
        Sort-Object -Property ListItemText
}

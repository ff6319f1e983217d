_fasthash() {
    local i cur prev opts cmd
    COMPREPLY=()
    if [[ "${BASH_VERSINFO[0]}" -ge 4 ]]; then
        cur="$2"
    else
        cur="${COMP_WORDS[COMP_CWORD]}"
    fi
    prev="$3"
    cmd=""
    opts=""

    for i in "${COMP_WORDS[@]:0:COMP_CWORD}"
    do
        case "${cmd},${i}" in
            ",$1")
                cmd="fasthash"
                ;;
            *)
                ;;
        esac
    done

    case "${cmd}" in
        fasthash)
            opts="-a -b -t -z -c -w -j -r -L -h -V --algorithm --binary --text --tag --untagged --zero --base64 --no-names --check --ignore-missing --quiet --status --strict --warn --threads --readers --recursive --follow --exclude --include --files-from --files0-from --tree --cache --shard --merge --progress --no-progress --stats --s3 --s3-header --json --part-size --checksum-type --etag --no-part-limits --s3-preset --verify-s3 --endpoint-url --mmap --no-mmap --list-kernels --debug --bench --seconds --generate --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 1 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --algorithm)
                    COMPREPLY=($(compgen -W "sha256 sha512 sha1 md5 sha384 sha224 blake3 xxh3 xxh128 xxh64 xxh32 crc64nvme crc32 crc32c blake2b sha3-256 sha3-512 sha3-384 sha3-224 sm3 crc crc32b bsd sysv" -- "${cur}"))
                    return 0
                    ;;
                -a)
                    COMPREPLY=($(compgen -W "sha256 sha512 sha1 md5 sha384 sha224 blake3 xxh3 xxh128 xxh64 xxh32 crc64nvme crc32 crc32c blake2b sha3-256 sha3-512 sha3-384 sha3-224 sm3 crc crc32b bsd sysv" -- "${cur}"))
                    return 0
                    ;;
                --threads)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -j)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --readers)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --exclude)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --include)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --files-from)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --files0-from)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --tree)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --cache)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --shard)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --part-size)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --checksum-type)
                    COMPREPLY=($(compgen -W "composite full-object" -- "${cur}"))
                    return 0
                    ;;
                --s3-preset)
                    COMPREPLY=($(compgen -W "aws-cli-v2 aws-cli-v1 boto3" -- "${cur}"))
                    return 0
                    ;;
                --verify-s3)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --endpoint-url)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --seconds)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --generate)
                    COMPREPLY=($(compgen -W "man complete-bash complete-zsh complete-fish complete-elvish complete-powershell" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
    esac
}

if [[ "${BASH_VERSINFO[0]}" -eq 4 && "${BASH_VERSINFO[1]}" -ge 4 || "${BASH_VERSINFO[0]}" -gt 4 ]]; then
    complete -F _fasthash -o nosort -o bashdefault -o default fasthash
else
    complete -F _fasthash -o bashdefault -o default fasthash
fi

//! Properties of the manifest parser: arbitrary bytes never panic it, and every line fasthash
//! writes (any algorithm, any name, untagged, binary, tagged, base64) parses back to the same
//! name and digest.

use fasthash::format::line::write_digest_line;
use fasthash::format::manifest::{split_lines, Line, LineParser, ParseOptions};
use fasthash::format::{DigestEncoding, LineStyle};
use fasthash::kernels::{hash, Algorithm, ALGORITHMS};
use proptest::prelude::*;

/// fasthash's rules (`extensions`), or those of a coreutils name such as sha256sum's.
fn parser(algorithm: Option<Algorithm>, extensions: bool) -> LineParser {
    LineParser::new(ParseOptions {
        algorithm,
        extensions,
        manifest_is_stdin: false,
        any_length: false,
        base64: extensions,
        layout_per_manifest: extensions,
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn arbitrary_bytes_never_panic(data in proptest::collection::vec(any::<u8>(), 0..4096),
                                   extensions in any::<bool>(), zero in any::<bool>()) {
        let terminator = if zero { b'\0' } else { b'\n' };
        for algorithm in [None, Some(Algorithm::Sha256), Some(Algorithm::Crc32)] {
            let mut parser = parser(algorithm, extensions);
            for line in split_lines(&data, terminator, extensions) {
                let _ = parser.parse(line);
            }
        }
    }

    #[test]
    fn written_lines_parse_back(
        index in 0..ALGORITHMS.len(),
        content in proptest::collection::vec(any::<u8>(), 0..64),
        name in proptest::collection::vec(any::<u8>().prop_filter("no NUL", |b| *b != 0), 1..40),
        tagged in any::<bool>(),
        binary in any::<bool>(),
        base64 in any::<bool>(),
    ) {
        let algorithm = ALGORITHMS[index].algorithm;
        // cksum's and sum's legacy checksums are never checked (coreutils refuses them).
        prop_assume!(!ALGORITHMS[index].with_size);
        // A name that is only "-" means standard input, as in coreutils.
        prop_assume!(name != b"-");
        let digest = hash(algorithm, &content);
        let style = LineStyle {
            tagged,
            binary: binary && !tagged,
            encoding: if base64 { DigestEncoding::Base64 } else { DigestEncoding::Hex },
            ..LineStyle::default()
        };
        let mut out = Vec::new();
        write_digest_line(&mut out, &style, algorithm, &digest, &name).unwrap();
        let lines = split_lines(&out, b'\n', true);
        prop_assert_eq!(lines.len(), 1);
        let mut parser = parser(Some(algorithm), true);
        match parser.parse(lines[0]) {
            Line::Entry(entry) => {
                prop_assert_eq!(entry.name, name);
                prop_assert_eq!(entry.expected, digest);
                prop_assert_eq!(entry.algorithm, algorithm);
            }
            other => prop_assert!(false, "{:?} did not parse: {:?}", String::from_utf8_lossy(&out), other),
        }
    }
}

//! Every algorithm against answers fasthash did not compute: NIST CAVP (SHA-1, SHA-2, SHA-3),
//! RFC 1321, BLAKE2b's and SM3's published examples, BLAKE3's official vectors, xxHash's
//! sanity vectors, and the CRC catalogue. The library is checked in
//! one call and in randomly split streams; the binary is checked on files.

use crate::common;

use common::{
    bundled_known_answers, fasthash, fasthash_name, parse_kat_tsv, shared_vectors, KnownAnswer,
    SplitMix64,
};
use fasthash::kernels::{hash, Algorithm, Hasher};
use std::collections::BTreeMap;

fn algorithm_of(answer: &KnownAnswer) -> Algorithm {
    let name = fasthash_name(&answer.algo).expect("known algorithm");
    Algorithm::from_name(name).expect("fasthash name")
}

/// Checks one answer through `hash` and through a streamed hasher with random split points.
fn check_answer(answer: &KnownAnswer, rng: &mut SplitMix64) -> Result<(), String> {
    let algorithm = algorithm_of(answer);
    let one_shot = hash(algorithm, &answer.message).to_hex();
    if one_shot != answer.expected_hex {
        return Err(format!(
            "{}: {} one-shot gave {one_shot}, expected {}",
            answer.origin, answer.algo, answer.expected_hex
        ));
    }
    let mut hasher = Hasher::new(algorithm);
    let mut rest = &answer.message[..];
    while !rest.is_empty() {
        let take = 1 + rng.below(rest.len().min(300));
        hasher.update(&rest[..take]);
        rest = &rest[take..];
    }
    let streamed = hasher.finalize().to_hex();
    if streamed != answer.expected_hex {
        return Err(format!(
            "{}: {} streamed gave {streamed}, expected {}",
            answer.origin, answer.algo, answer.expected_hex
        ));
    }
    Ok(())
}

#[test]
fn bundled_vectors_match_in_one_call_and_streamed() {
    let answers = bundled_known_answers();
    let mut rng = SplitMix64(1);
    let mut counts: BTreeMap<&str, usize> = BTreeMap::new();
    let failures: Vec<String> = answers
        .iter()
        .filter_map(|answer| {
            *counts.entry(answer.algo.as_str()).or_default() += 1;
            check_answer(answer, &mut rng).err()
        })
        .collect();
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
    // The counts prove every file was parsed, so a broken parser cannot pass by reading nothing.
    let expected: BTreeMap<&str, usize> = [
        ("sha1", 129),
        ("sha224", 129),
        ("sha256", 129),
        ("sha384", 257),
        ("sha512", 257),
        ("md5", 7),
        ("sha3-224", 145),
        ("sha3-256", 137),
        ("sha3-384", 105),
        ("sha3-512", 73),
        ("sm3", 6),
        ("blake2b", 7),
        ("blake3", 35),
        ("xxh32", 4161),
        ("xxh64", 4161),
        ("xxh3-64", 4161),
        ("xxh3-128", 4161),
        ("crc32", 2),
        ("crc32c", 2),
        ("crc64-nvme", 2),
    ]
    .into_iter()
    .collect();
    assert_eq!(counts, expected);
    // Every algorithm fasthash offers has independent answers here; cksum's and sum's legacy
    // checksums are checked against cksum and sum themselves (tests/cksum.rs).
    for algorithm in Algorithm::all().filter(|a| !a.info().with_size) {
        assert!(
            answers.iter().any(|a| algorithm_of(a) == algorithm),
            "no known answers for {algorithm}"
        );
    }
}

#[test]
fn the_whole_shared_kat_tsv_when_present() {
    let Some(dir) = shared_vectors() else {
        eprintln!("skipped: ../shared/vectors is not beside this checkout");
        return;
    };
    let answers = parse_kat_tsv(&dir.join("kat.tsv"));
    assert_eq!(
        answers.len(),
        38_187,
        "kat.tsv row count (its README says 38,187)"
    );
    let mut rng = SplitMix64(2);
    let mut checked = 0;
    let mut not_offered: BTreeMap<String, usize> = BTreeMap::new();
    let mut failures = Vec::new();
    for answer in &answers {
        // fasthash computes each algorithm's default mode only: no xxHash seeds, no keyed,
        // derive-key or extended BLAKE3.
        if !answer.params.is_empty() || fasthash_name(&answer.algo).is_none() {
            let key = format!("{};{}", answer.algo, answer.params);
            *not_offered.entry(key).or_default() += 1;
            continue;
        }
        checked += 1;
        if let Err(e) = check_answer(answer, &mut rng) {
            failures.push(e);
        }
    }
    eprintln!(
        "kat.tsv: {checked} default-mode rows checked; not offered by fasthash: {not_offered:?}"
    );
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
    // sha1 129 + sha256 129 + sha512 257 + md5 7 + xxh32/xxh64/xxh3-64/xxh3-128 4 x 4161
    // + blake3 35 + CRCs 6, as the vectors' README counts them.
    assert_eq!(checked, 17_207);
}

#[test]
fn the_binary_prints_known_answers_for_files() {
    let dir = tempfile::tempdir().unwrap();
    let answers = bundled_known_answers();
    let mut by_algorithm: BTreeMap<&'static str, Vec<&KnownAnswer>> = BTreeMap::new();
    for answer in &answers {
        by_algorithm
            .entry(fasthash_name(&answer.algo).unwrap())
            .or_default()
            .push(answer);
    }
    for (name, list) in by_algorithm {
        // A spread of lengths: every vector for small sets, a sample of the large ones.
        let step = (list.len() / 60).max(1);
        let chosen: Vec<&KnownAnswer> = list.iter().step_by(step).copied().collect();
        let mut args = vec!["-a".to_string(), name.to_string()];
        let mut expected = String::new();
        for (i, answer) in chosen.iter().enumerate() {
            let file = dir.path().join(format!("{name}-{i}"));
            std::fs::write(&file, &answer.message).unwrap();
            let file = file.to_str().unwrap().to_string();
            expected.push_str(&format!("{}  {}\n", answer.expected_hex, file));
            args.push(file);
        }
        let output = fasthash(dir.path()).args(&args).output();
        assert!(output.status.success(), "{name}: {output:?}");
        assert_eq!(
            String::from_utf8(output.stdout).unwrap(),
            expected,
            "{name}"
        );
    }
}

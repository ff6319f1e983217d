//! BLAKE2b at every digest length b2sum's `-l` allows. The 512-bit default is an ordinary row
//! of the engine table (see `portable`); each shorter length is a function of its own (the
//! length is in BLAKE2b's parameter block), so it gets an engine of its own here, built from the
//! blake2 crate's type for that length. They are plain code, the portable engines of their
//! lengths, and the only ones: nothing to choose between or check against.

use super::crates::RustCrypto;
use super::engine::{always, Engine, Split};
use super::{Algorithm, Digest, Kernel};
use blake2::digest::consts::*;

macro_rules! shorter_engines {
    ($($len:literal $size:ident,)*) => {
        [$(Engine {
            algorithm: Algorithm::Blake2b($len),
            kernel: Kernel::Portable,
            runs_on: always,
            preferred_on: always,
            needs: "nothing",
            describe: |_| "blake2 crate, scalar".into(),
            streaming: || Box::new(RustCrypto(<blake2::Blake2b<$size> as blake2::Digest>::new())),
            one_shot: |data| {
                Digest::from_slice(&<blake2::Blake2b<$size> as blake2::Digest>::digest(data))
            },
            lanes: None,
            split: Split::Whole,
        },)*]
    };
}

/// BLAKE2b of 1 to 63 bytes, by length less one.
static SHORTER: [Engine; 63] = shorter_engines!(
    1 U1,
    2 U2,
    3 U3,
    4 U4,
    5 U5,
    6 U6,
    7 U7,
    8 U8,
    9 U9,
    10 U10,
    11 U11,
    12 U12,
    13 U13,
    14 U14,
    15 U15,
    16 U16,
    17 U17,
    18 U18,
    19 U19,
    20 U20,
    21 U21,
    22 U22,
    23 U23,
    24 U24,
    25 U25,
    26 U26,
    27 U27,
    28 U28,
    29 U29,
    30 U30,
    31 U31,
    32 U32,
    33 U33,
    34 U34,
    35 U35,
    36 U36,
    37 U37,
    38 U38,
    39 U39,
    40 U40,
    41 U41,
    42 U42,
    43 U43,
    44 U44,
    45 U45,
    46 U46,
    47 U47,
    48 U48,
    49 U49,
    50 U50,
    51 U51,
    52 U52,
    53 U53,
    54 U54,
    55 U55,
    56 U56,
    57 U57,
    58 U58,
    59 U59,
    60 U60,
    61 U61,
    62 U62,
    63 U63,
);

/// The engine of a BLAKE2b shorter than 64 bytes; None for any other algorithm.
pub(super) fn shorter(algorithm: Algorithm) -> Option<&'static Engine> {
    match algorithm {
        Algorithm::Blake2b(len @ 1..=63) => Some(&SHORTER[usize::from(len) - 1]),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_length_has_its_own_engine_in_order() {
        for len in 1..=63u8 {
            let engine = shorter(Algorithm::Blake2b(len)).unwrap();
            assert_eq!(engine.algorithm, Algorithm::Blake2b(len));
            assert_eq!(engine.hash(b"abc").as_bytes().len(), usize::from(len));
        }
        assert!(shorter(Algorithm::Blake2b(64)).is_none());
        assert!(shorter(Algorithm::Sha256).is_none());
    }
}

//! The engine table: every engine, fastest first, and the choice among them. Each module that
//! owns code lists its own engines (`portable`, `crates`, `x86_64`, `aarch64`); the table is
//! their concatenation. Choosing is three steps, as in crc-fast: detect the CPU once
//! ([`Capabilities::get`]), select purely ([`select`], tested on made-up CPUs: a preference for
//! the CPU's maker and family first, from `preference`, else the table's order), and cache the
//! choice per algorithm ([`chosen`]), which also runs the engine's self-check the first time:
//! an engine that disagrees with the portable one on a few known messages is reported once and
//! replaced by the portable engine, so a kernel that misbehaves on some CPU can never print a
//! wrong digest. Lanes are checked the same way when first run ([`checked_lanes`]); lanes that
//! disagree are reported once and not run.

use super::algorithm::{Algorithm, ALGORITHM_COUNT};
use super::detect::{Capabilities, Kernel, FORCE_VARIABLE};
use super::digest::Digest;
use super::engine::{Engine, Hasher, Lanes, Pull};
use super::preference::{Preference, PREFERENCES};
use crate::error::Error;
use std::sync::{Mutex, OnceLock, PoisonError};

/// Every engine, fastest first within each algorithm.
pub fn all() -> impl Iterator<Item = &'static Engine> {
    #[cfg(target_arch = "x86_64")]
    let ours = super::x86_64::ENGINES;
    #[cfg(target_arch = "aarch64")]
    let ours = super::aarch64::ENGINES;
    #[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
    let ours: &[Engine] = &[];
    ours.iter()
        .chain(super::crates::ENGINES)
        .chain(super::portable::ENGINES)
}

/// An algorithm's engines, fastest first.
pub fn of(algorithm: Algorithm) -> impl Iterator<Item = &'static Engine> {
    all()
        .filter(move |engine| engine.algorithm == algorithm)
        .chain(super::blake2b::shorter(algorithm))
}

/// The engine of `algorithm` on `kernel`, if it has one.
pub fn find(algorithm: Algorithm, kernel: Kernel) -> Option<&'static Engine> {
    of(algorithm).find(|engine| engine.kernel == kernel)
}

/// The algorithm's portable engine: plain code that needs nothing of the CPU.
pub fn portable(algorithm: Algorithm) -> &'static Engine {
    super::blake2b::shorter(algorithm).unwrap_or_else(|| super::portable::engine(algorithm))
}

/// Why an algorithm runs on the engine it does.
#[derive(Clone, Copy, Debug)]
pub enum Rule {
    /// The first engine in the table that this CPU runs (and that is preferred on it).
    TableOrder,
    /// A preference for this CPU's maker and family.
    Preferred(&'static Preference),
    /// `FASTHASH_KERNEL`.
    Forced,
    /// The engine chosen failed its self-check, so the portable one runs.
    SelfCheckFailed,
}

impl Rule {
    /// For `--list-kernels` and `--debug`.
    pub fn describe(&self) -> String {
        match self {
            Rule::TableOrder => "the first in the table that this CPU runs".into(),
            Rule::Preferred(preference) => format!("preferred here: {}", preference.name),
            Rule::Forced => format!("forced by {FORCE_VARIABLE}"),
            Rule::SelfCheckFailed => "the one chosen failed its self-check".into(),
        }
    }
}

/// The engine an algorithm runs on, and why.
#[derive(Clone, Copy)]
pub struct Choice {
    /// The table's engine: the kernel named, whose lanes hash files side by side.
    pub engine: &'static Engine,
    /// The engine whose single-stream code takes a file alone, where a preference gives that
    /// to another engine than `engine`.
    pub alone: Option<&'static Engine>,
    pub rule: Rule,
}

impl std::fmt::Debug for Choice {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} {} ({})",
            self.engine.algorithm,
            self.name(),
            self.rule.describe()
        )
    }
}

impl Choice {
    fn of(engine: &'static Engine, rule: Rule) -> Choice {
        Choice {
            engine,
            alone: None,
            rule,
        }
    }

    /// Its kernels by name: "avx512", or "avx512+bmi" when a file alone runs on another.
    pub fn name(&self) -> String {
        match self.alone {
            Some(alone) => format!("{}+{}", self.engine.kernel.name(), alone.kernel.name()),
            None => self.engine.kernel.name().to_string(),
        }
    }

    /// The engine that hashes: `engine`, with `alone`'s streaming and one-shot code when it
    /// is given. That one is made on the heap and never freed (it is `'static`, as every
    /// engine of the table is): [`chosen`] makes it once per algorithm and process.
    pub(crate) fn runnable(&self) -> &'static Engine {
        match self.alone {
            None => self.engine,
            Some(alone) => Box::leak(Box::new(Engine {
                streaming: alone.streaming,
                one_shot: alone.one_shot,
                split: alone.split,
                ..*self.engine
            })),
        }
    }
}

/// The engine `algorithm` runs on a CPU with `caps` when nothing is forced: the first of the
/// [`PREFERENCES`] for this CPU whose engines run here, else the first engine in the table that
/// runs here and is preferred there.
pub fn select(algorithm: Algorithm, caps: &Capabilities) -> Choice {
    select_with(algorithm, caps, PREFERENCES)
}

/// [`select`] with other preferences: for the tests, on made-up ones.
pub(crate) fn select_with(
    algorithm: Algorithm,
    caps: &Capabilities,
    preferences: &'static [Preference],
) -> Choice {
    let runs_here = |kernel| find(algorithm, kernel).filter(|engine| (engine.runs_on)(caps));
    for preference in preferences
        .iter()
        .filter(|preference| preference.covers(algorithm, &caps.cpu))
    {
        let Some(engine) = runs_here(preference.engine) else {
            continue;
        };
        let alone = match preference.alone.map(runs_here) {
            None => None,
            Some(Some(alone)) => Some(alone).filter(|alone| !std::ptr::eq(*alone, engine)),
            Some(None) => continue,
        };
        return Choice {
            engine,
            alone,
            rule: Rule::Preferred(preference),
        };
    }
    let engine = of(algorithm)
        .find(|engine| (engine.runs_on)(caps) && (engine.preferred_on)(caps))
        .unwrap_or_else(|| portable(algorithm));
    Choice::of(engine, Rule::TableOrder)
}

/// The engine `algorithm` runs on in this process: forced by `FASTHASH_KERNEL`, or selected
/// for this CPU; in either case checked once, on first use, against the portable engine. An
/// invalid `FASTHASH_KERNEL` is reported by the CLI before any hashing; here it counts as unset.
pub fn chosen(algorithm: Algorithm) -> &'static Engine {
    in_use(algorithm).1
}

/// Why `algorithm` runs on [`chosen`]'s engine.
pub fn choice(algorithm: Algorithm) -> Choice {
    in_use(algorithm).0
}

/// The choice for `algorithm`, and the engine it runs, made once.
fn in_use(algorithm: Algorithm) -> (Choice, &'static Engine) {
    static CHOSEN: [OnceLock<(Choice, &'static Engine)>; ALGORITHM_COUNT] =
        [const { OnceLock::new() }; ALGORITHM_COUNT];
    // Each shorter BLAKE2b length has one engine, the portable one: nothing to choose or
    // check. Not cached: every length shares BLAKE2b's index.
    if let Some(engine) = super::blake2b::shorter(algorithm) {
        return (Choice::of(engine, Rule::TableOrder), engine);
    }
    *CHOSEN[algorithm.index()].get_or_init(|| {
        let caps = Capabilities::get();
        let wanted = forcing()
            .ok()
            .and_then(|forced| forced.get(algorithm))
            .and_then(|kernel| find(algorithm, kernel))
            .filter(|engine| (engine.runs_on)(&caps))
            .map(|engine| Choice::of(engine, Rule::Forced))
            .unwrap_or_else(|| select(algorithm, &caps));
        let runnable = wanted.runnable();
        let checked = checked(runnable, &mut |message| warn(&message));
        if std::ptr::eq(checked, runnable) {
            (wanted, runnable)
        } else {
            (Choice::of(checked, Rule::SelfCheckFailed), checked)
        }
    })
}

/// Whether `algorithm`'s engine is the one `FASTHASH_KERNEL` asked for, for `--debug`.
pub fn forced(algorithm: Algorithm) -> bool {
    matches!(choice(algorithm).rule, Rule::Forced)
}

/// Where the engine table's one warning (a failed self-check) goes. The program installs it,
/// knowing its own name and how it writes messages; the kernels write nothing themselves.
type WarningSink = Box<dyn Fn(&str) + Send + Sync>;
static WARNING_SINK: OnceLock<WarningSink> = OnceLock::new();

/// Sends the engine table's warnings to `sink` (the first sink set stays).
pub fn set_warning_sink(sink: impl Fn(&str) + Send + Sync + 'static) {
    let _ = WARNING_SINK.set(Box::new(sink));
}

fn warn(message: &str) {
    if let Some(sink) = WARNING_SINK.get() {
        sink(message);
    }
}

/// `engine` if its single-stream code passes the self-check, else the portable engine, after
/// one warning. Its lanes are checked apart, at their first use ([`checked_lanes`]).
fn checked(engine: &'static Engine, warn: &mut dyn FnMut(String)) -> &'static Engine {
    let portable = portable(engine.algorithm);
    if std::ptr::eq(engine, portable) || alone_passes(engine, portable) {
        return engine;
    }
    warn(format!(
        "kernel {} for {} failed its self-check; using portable",
        engine.kernel.name(),
        engine.algorithm
    ));
    portable
}

/// `engine`'s lanes, to run them: checked against the portable engine the first time they are
/// asked for in this process, so a run that hashes files one at a time never pays for it (a
/// tenth of a millisecond, half the self-check of a lane engine). None, after one warning,
/// when they disagree: the files are then hashed one at a time on the engine's single-stream
/// code, which passed its own check when the engine was chosen.
pub fn checked_lanes(engine: &'static Engine) -> Option<Lanes> {
    // Engines are `'static` (the table's, or made once per algorithm): one entry each.
    static CHECKED: Mutex<Vec<(usize, bool)>> = Mutex::new(Vec::new());
    let lanes = engine.lanes?;
    let key = std::ptr::from_ref(engine) as usize;
    let mut checked = CHECKED.lock().unwrap_or_else(PoisonError::into_inner);
    let passed = match checked.iter().find(|(known, _)| *known == key) {
        Some(&(_, passed)) => passed,
        None => {
            let passed = lanes_checked(engine, &mut |message| warn(&message)).is_some();
            checked.push((key, passed));
            passed
        }
    };
    passed.then_some(lanes)
}

/// `engine`'s lanes if they pass the self-check, else none after one warning.
fn lanes_checked(engine: &Engine, warn: &mut dyn FnMut(String)) -> Option<Lanes> {
    let lanes = engine.lanes?;
    if lanes_pass(lanes, portable(engine.algorithm)) {
        return Some(lanes);
    }
    warn(format!(
        "kernel {} for {} failed its self-check side by side; hashing files one at a time",
        engine.kernel.name(),
        engine.algorithm
    ));
    None
}

/// The lengths the self-check hashes: each side of the block edges of every algorithm (64 and
/// 128 bytes, the 55/56 and 111/112 padding edges, XXH3's 240-byte and 1 KiB edges), of mixed
/// lengths, so lanes end at different blocks (and, repeated past the lane count, are refilled).
const SELF_CHECK_LENGTHS: [usize; 20] = [
    0, 1, 3, 55, 56, 63, 64, 65, 111, 112, 127, 128, 129, 240, 241, 1023, 1024, 1025, 2111, 4099,
];

/// Messages in memory, pulled as files are: for the self-check and the tests.
pub(crate) struct Slices<'a>(pub &'a [&'a [u8]]);

impl Pull for Slices<'_> {
    fn count(&self) -> usize {
        self.0.len()
    }
    fn len(&self, index: usize) -> u64 {
        self.0[index].len() as u64
    }
    fn read(&self, index: usize, at: u64, out: &mut [u8]) -> std::io::Result<()> {
        let at = at as usize;
        out.copy_from_slice(&self.0[index][at..at + out.len()]);
        Ok(())
    }
}

/// The bytes the self-check's messages are cut from.
fn self_check_source() -> Vec<u8> {
    (0..4200u32)
        .map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8)
        .collect()
}

/// One message of each of [`SELF_CHECK_LENGTHS`], at odd offsets too, so no engine relies on
/// aligned input.
fn self_check_messages(source: &[u8]) -> Vec<&[u8]> {
    SELF_CHECK_LENGTHS
        .iter()
        .enumerate()
        .map(|(index, &len)| &source[index % 7..index % 7 + len])
        .collect()
}

/// Whether `engine` gives the reference engine's digests on the self-check's messages, through
/// each of its paths: [`alone_passes`] and [`lanes_pass`]. About 12 KB of hashing:
/// microseconds on a fast engine, tens of them on a portable reference. For the tests: a run
/// checks the two apart, each when first needed.
#[cfg(test)]
pub(crate) fn self_check(engine: &Engine, reference: &Engine) -> bool {
    alone_passes(engine, reference)
        && engine
            .lanes
            .is_none_or(|lanes| lanes_pass(lanes, reference))
}

/// Whether `engine`'s single-stream code gives the reference's digests, one-shot and streamed
/// in uneven pieces.
fn alone_passes(engine: &Engine, reference: &Engine) -> bool {
    let source = self_check_source();
    self_check_messages(&source).iter().all(|message| {
        let want = reference.hash(message);
        let mut hasher = engine.hasher();
        let (first, rest) = message.split_at(message.len() / 3);
        hasher.update(first);
        hasher.update(&[]);
        hasher.update(rest);
        engine.hash(message) == want && hasher.finalize() == want
    })
}

/// Whether `lanes` give the reference's digests: many messages side by side (in memory and
/// pulled), and in step.
fn lanes_pass(lanes: Lanes, reference: &Engine) -> bool {
    let source = self_check_source();
    let messages = self_check_messages(&source);
    // More messages than the engine has lanes, so lanes are refilled.
    let count = messages.len() + lanes.width;
    let many: Vec<&[u8]> = messages.iter().copied().cycle().take(count).collect();
    let expected: Vec<Digest> = messages.iter().map(|m| reference.hash(m)).collect();
    let many_expected: Vec<Digest> = expected.iter().copied().cycle().take(count).collect();
    if (lanes.many)(&many) != many_expected {
        return false;
    }
    // The same messages pulled piece by piece, as files are.
    let pulled = (lanes.pull)(&Slices(&many));
    if pulled.len() != count
        || pulled
            .iter()
            .zip(&many_expected)
            .any(|(got, want)| got.as_ref().ok() != Some(want))
    {
        return false;
    }
    // In step: as many messages as there are lanes, three blocks of 128 bytes and a tail.
    let count = lanes.width;
    let stepped: Vec<&[u8]> = (0..count)
        .map(|i| &source[i * 7..i * 7 + 3 * 128 + 45])
        .collect();
    let mut state = (lanes.stepped)();
    state.update(&stepped.iter().map(|m| &m[..256]).collect::<Vec<_>>());
    state.update(&stepped.iter().map(|m| &m[256..384]).collect::<Vec<_>>());
    let digests = state.finish(&stepped.iter().map(|m| &m[384..]).collect::<Vec<_>>());
    digests
        == stepped
            .iter()
            .map(|m| reference.hash(m))
            .collect::<Vec<_>>()
}

impl Hasher {
    /// A hasher on the engine chosen for this process.
    pub fn new(algorithm: Algorithm) -> Hasher {
        chosen(algorithm).hasher()
    }
}

/// Hashes a whole buffer at once on the chosen engine, through its one-shot entry point: no
/// streaming state to allocate and set up, which is most of the cost for inputs of a few
/// hundred bytes (XXH3 of 16 bytes: 170 ns through the streaming state, a few ns one-shot).
pub fn hash(algorithm: Algorithm, data: &[u8]) -> Digest {
    chosen(algorithm).hash(data)
}

/// Hashes several whole buffers, side by side where the chosen engine can.
pub fn hash_many(algorithm: Algorithm, messages: &[&[u8]]) -> Vec<Digest> {
    chosen(algorithm).hash_many(messages)
}

/// What `FASTHASH_KERNEL` forces: a kernel for some algorithms.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Forced(Vec<(Algorithm, Kernel)>);

impl Forced {
    pub fn get(&self, algorithm: Algorithm) -> Option<Kernel> {
        self.0
            .iter()
            .rev()
            .find(|(a, _)| *a == algorithm)
            .map(|(_, kernel)| *kernel)
    }
}

/// Parses `FASTHASH_KERNEL`: comma-separated `KERNEL` (every algorithm that has that kernel)
/// or `ALGORITHM=KERNEL` entries. A kernel this CPU cannot run is an error, not a silent
/// fallback: a test or a bug report that forces a path must get that path.
pub fn parse_forced(value: &str, caps: &Capabilities) -> Result<Forced, String> {
    let mut forced = Vec::new();
    for entry in value.split(',').map(str::trim).filter(|e| !e.is_empty()) {
        let (algorithms, kernel_name): (Vec<Algorithm>, &str) = match entry.split_once('=') {
            Some((name, kernel)) => {
                let algorithm = Algorithm::from_name(name.trim()).ok_or_else(|| {
                    format!(
                        "unknown algorithm '{}' in '{entry}' (valid: {})",
                        name.trim(),
                        Algorithm::names_list()
                    )
                })?;
                (vec![algorithm], kernel.trim())
            }
            None => (Algorithm::all().collect(), entry),
        };
        let known = Kernel::ALL.map(Kernel::name).join(", ");
        let kernel = Kernel::from_name(kernel_name)
            .ok_or_else(|| format!("unknown kernel '{kernel_name}' (kernels: {known})"))?;
        let having: Vec<&Engine> = algorithms
            .into_iter()
            .filter_map(|a| find(a, kernel))
            .collect();
        if having.is_empty() {
            return Err(format!(
                "'{entry}': no such kernel for that algorithm (see --list-kernels)"
            ));
        }
        if let Some(lacking) = having.iter().find(|engine| !(engine.runs_on)(caps)) {
            return Err(format!(
                "kernel '{}' needs {}, which this CPU lacks",
                kernel.name(),
                lacking.needs
            ));
        }
        forced.extend(having.into_iter().map(|engine| (engine.algorithm, kernel)));
    }
    Ok(Forced(forced))
}

/// `FASTHASH_KERNEL` as parsed, once; a usage error when it names something impossible.
pub fn forcing() -> Result<&'static Forced, Error> {
    // The reason is kept as text: the one parse is shared, each caller gets its own error.
    static FORCED: OnceLock<Result<Forced, String>> = OnceLock::new();
    FORCED
        .get_or_init(|| match std::env::var(FORCE_VARIABLE) {
            Ok(value) => parse_forced(&value, &Capabilities::get())
                .map_err(|reason| format!("{FORCE_VARIABLE}={value}: {reason}")),
            Err(std::env::VarError::NotPresent) => Ok(Forced::default()),
            Err(std::env::VarError::NotUnicode(_)) => {
                Err(format!("{FORCE_VARIABLE} is not valid UTF-8"))
            }
        })
        .as_ref()
        .map_err(|reason| Error::usage(reason.clone()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernels::engine::{always, Lanes, Split};

    /// An engine of `$kernel` for `$algorithm` that runs the portable engine's code: each
    /// engine below makes one of its paths wrong on purpose.
    macro_rules! portable_as {
        ($algorithm:expr, $kernel:expr) => {
            Engine {
                algorithm: $algorithm,
                kernel: $kernel,
                runs_on: always,
                preferred_on: always,
                needs: "nothing",
                describe: |_| "wrong on purpose".into(),
                streaming: || (portable($algorithm).streaming)(),
                one_shot: |data| portable($algorithm).hash(data),
                lanes: None,
                split: Split::Whole,
            }
        };
    }

    /// A SHA-256 engine made wrong on purpose: its one-shot path flips a bit of one digest.
    static WRONG_ONE_SHOT: Engine = Engine {
        one_shot: |data| {
            let digest = portable(Algorithm::Sha256).hash(data);
            if data.len() != 1024 {
                return digest;
            }
            let mut bytes = digest.as_bytes().to_vec();
            bytes[5] ^= 0x10;
            Digest::from_slice(&bytes)
        },
        ..portable_as!(Algorithm::Sha256, Kernel::ShaExtensions)
    };

    /// An MD5 engine whose side-by-side path drops the last message's last byte.
    static WRONG_LANES: Engine = Engine {
        lanes: Some(Lanes {
            width: 4,
            many: |messages| {
                let mut digests: Vec<Digest> = messages
                    .iter()
                    .map(|m| portable(Algorithm::Md5).hash(m))
                    .collect();
                if let (Some(last), Some(message)) = (digests.last_mut(), messages.last()) {
                    *last =
                        portable(Algorithm::Md5).hash(&message[..message.len().saturating_sub(1)]);
                }
                digests
            },
            stepped: || unreachable!("the many-at-once check fails first"),
            pull: |_| unreachable!("the many-at-once check fails first"),
        }),
        ..portable_as!(Algorithm::Md5, Kernel::Avx512)
    };

    /// An MD5 engine right in memory, whose pulled path reads each message one byte short.
    static WRONG_PULL: Engine = Engine {
        lanes: Some(Lanes {
            width: 4,
            many: |messages| {
                messages
                    .iter()
                    .map(|m| portable(Algorithm::Md5).hash(m))
                    .collect()
            },
            stepped: || unreachable!("the pulled check fails first"),
            pull: |source| {
                (0..source.count())
                    .map(|index| {
                        let mut message = vec![0; source.len(index).saturating_sub(1) as usize];
                        source.read(index, 0, &mut message)?;
                        Ok(portable(Algorithm::Md5).hash(&message))
                    })
                    .collect()
            },
        }),
        ..WRONG_LANES
    };

    #[test]
    fn an_engine_that_fails_its_self_check_is_replaced_by_portable_with_one_warning() {
        let mut warnings = Vec::new();
        let engine = checked(&WRONG_ONE_SHOT, &mut |message| warnings.push(message));
        assert!(std::ptr::eq(engine, portable(Algorithm::Sha256)));
        assert_eq!(
            warnings,
            ["kernel sha-ext for sha256 failed its self-check; using portable"]
        );
    }

    #[test]
    fn lanes_that_fail_their_self_check_are_not_run_with_one_warning() {
        for wrong in [&WRONG_LANES, &WRONG_PULL] {
            // The single-stream code is right: the engine is kept for files alone.
            let mut warnings = Vec::new();
            assert!(std::ptr::eq(
                checked(wrong, &mut |m| warnings.push(m)),
                wrong
            ));
            assert!(warnings.is_empty(), "{warnings:?}");
            assert!(lanes_checked(wrong, &mut |m| warnings.push(m)).is_none());
            assert_eq!(
                warnings,
                ["kernel avx512 for md5 failed its self-check side by side; hashing files one at a time"]
            );
            assert!(!self_check(wrong, portable(Algorithm::Md5)));
            // As a run meets them: no lanes, asked twice (the second answer is remembered), and
            // the messages hashed one by one, right.
            assert!(checked_lanes(wrong).is_none());
            assert!(checked_lanes(wrong).is_none());
            let messages: Vec<Vec<u8>> = (0..12).map(|i| vec![i as u8; 3000 + i]).collect();
            let messages: Vec<&[u8]> = messages.iter().map(Vec::as_slice).collect();
            let want: Vec<Digest> = messages
                .iter()
                .map(|m| portable(Algorithm::Md5).hash(m))
                .collect();
            assert_eq!(wrong.hash_many(&messages), want);
        }
    }

    #[test]
    fn every_engine_this_cpu_runs_passes_its_self_check() {
        for engine in all().filter(|engine| engine.runs_here()) {
            let mut warnings = Vec::new();
            let kept = checked(engine, &mut |message| warnings.push(message));
            assert!(std::ptr::eq(kept, engine), "{}", engine.label());
            let lanes = lanes_checked(engine, &mut |message| warnings.push(message));
            assert_eq!(
                lanes.is_some(),
                engine.lanes.is_some(),
                "{}",
                engine.label()
            );
            assert!(warnings.is_empty(), "{warnings:?}");
        }
    }

    #[test]
    fn only_messages_that_keep_the_lanes_busy_go_side_by_side() {
        let lanes = Engine {
            lanes: Some(Lanes {
                width: 16,
                many: |_| unreachable!("not hashed here"),
                stepped: || unreachable!("not hashed here"),
                pull: |_| unreachable!("not hashed here"),
            }),
            ..WRONG_ONE_SHOT
        };
        // A large file among many small ones goes alone; the small ones fill the lanes.
        let mut mixed = vec![4096; 40];
        mixed.push(3_900_000);
        let split = lanes.side_by_side(&mixed);
        assert_eq!(split.iter().filter(|&&t| t).count(), 40);
        assert!(!split[40]);
        // Equal files that fill the lanes go side by side; half as many (break-even at best)
        // and two files go one by one, on every core.
        assert!(lanes.side_by_side(&[262_144; 32]).iter().all(|&t| t));
        assert!(lanes.side_by_side(&[262_144; 16]).iter().all(|&t| t));
        assert!(lanes.side_by_side(&[262_144; 8]).iter().all(|&t| !t));
        assert!(lanes.side_by_side(&[3_000_000; 2]).iter().all(|&t| !t));
        assert!(lanes.side_by_side(&[]).is_empty());
        assert!(WRONG_ONE_SHOT.side_by_side(&[4096; 40]).iter().all(|&t| !t));
    }

    #[test]
    fn every_algorithm_has_one_portable_engine_and_each_pair_is_listed_once() {
        for algorithm in Algorithm::all() {
            let kernels: Vec<Kernel> = of(algorithm).map(|engine| engine.kernel).collect();
            assert_eq!(kernels.last(), Some(&Kernel::Portable), "{algorithm}");
            for (index, kernel) in kernels.iter().enumerate() {
                assert!(
                    !kernels[index + 1..].contains(kernel),
                    "{algorithm}: {kernel:?} twice"
                );
            }
            let portable = portable(algorithm);
            assert!((portable.runs_on)(&Capabilities::default()));
            assert!(portable.lanes.is_none());
        }
    }
}

//! `--cache FILE`: digests remembered across runs, so a re-run over an unchanged tree reads
//! metadata instead of contents.
//!
//! A digest is taken from the cache only when the file's device, inode, size, modification
//! time and change time (both to the nanosecond) are all what they were when it was hashed.
//! The change time is set by the kernel on every write, rename or metadata change and cannot
//! be set back by a user, so a file rewritten with its size and modification time restored is
//! still hashed again. A file modified less than two seconds before the run started is not
//! remembered: timestamps come from a clock that ticks a few milliseconds at a time (a second
//! on some file systems, and a server's clock on NFS), so a write while the file was read could
//! leave them as they were (git calls this "racily clean"). The run's start, not the moment the
//! hash ends, is the reference: a file that takes seconds to hash is as exposed at its start.
//!
//! The file is written whole to a temporary file beside it, synced, and renamed over it, so a
//! crash leaves the old cache or the new one, never half of one. A cache that does not end with
//! the BLAKE3 of its contents, that another version wrote, or that another machine wrote
//! (device and inode numbers mean nothing elsewhere) is ignored with a warning, never trusted.

use super::long_paths;
use crate::kernels::{Algorithm, Digest};
use std::collections::HashMap;
use std::fs::Metadata;
use std::hash::{BuildHasherDefault, Hasher};
use std::io::{self, Read, Write};
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, OnceLock};
use std::time::{Duration, SystemTime};

const MAGIC: &[u8] = b"fasthash digest cache\n";
const VERSION: u32 = 1;

/// What identifies a file's state: if all of it is unchanged, so are its contents.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
struct Stamp {
    device: u64,
    inode: u64,
    size: u64,
    modified: (i64, i64),
    changed: (i64, i64),
}

impl Stamp {
    fn of(metadata: &Metadata) -> Stamp {
        Stamp {
            device: metadata.dev(),
            inode: metadata.ino(),
            size: metadata.size(),
            modified: (metadata.mtime(), metadata.mtime_nsec()),
            changed: (metadata.ctime(), metadata.ctime_nsec()),
        }
    }
}

/// The digests known for one file state.
type Known = Vec<(Algorithm, Digest)>;

/// Files by device and inode. The keys are numbers the kernel hands out, not chosen by anyone
/// who could aim collisions at the table: a multiply-and-fold hash is enough, and SipHash
/// was a sixth of a cached run's time over 100,000 files.
type Files = HashMap<(u64, u64), (Stamp, Known), BuildHasherDefault<InodeHasher>>;

#[derive(Default)]
struct InodeHasher(u64);

impl Hasher for InodeHasher {
    fn write(&mut self, bytes: &[u8]) {
        for &byte in bytes {
            self.write_u64(u64::from(byte));
        }
    }
    fn write_u64(&mut self, n: u64) {
        self.0 = (self.0.rotate_left(5) ^ n).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    }
    fn finish(&self) -> u64 {
        self.0 ^ (self.0 >> 29)
    }
}

pub struct Cache {
    path: PathBuf,
    /// As loaded: read by every thread, never written.
    loaded: Files,
    /// Learned in this run.
    learned: Mutex<Files>,
    /// Whether the file held a cache that could not be trusted: it is replaced even if this
    /// run learned nothing.
    replace: bool,
    /// Whether the path names something that is not ours to replace (a device, a FIFO, a
    /// directory, a file that is not a cache): then nothing is written.
    keep_out: bool,
    /// Lookups answered, and lookups that needed a hash, for `--debug`.
    hits: AtomicU64,
    misses: AtomicU64,
    /// When the cache was opened: before any file of the run was looked at or read.
    opened: SystemTime,
}

static ACTIVE: OnceLock<Cache> = OnceLock::new();

/// The cache of this run, if `--cache` gave one.
pub fn active() -> Option<&'static Cache> {
    ACTIVE.get()
}

/// Why a cache file was not used.
pub struct Ignored {
    pub reason: IgnoredReason,
    /// Whether the run writes a new cache in its place (it does when the file was read but
    /// cannot be trusted).
    pub rewritten: bool,
}

/// Why a cache file was not used, in words or as the error that stopped its reading (put in
/// words where messages are: the C library's, as coreutils prints them).
pub enum IgnoredReason {
    Unreadable(io::Error),
    Said(String),
}

/// Loads `path` (a missing file is an empty cache) and makes it this run's cache. A file that
/// cannot be trusted is ignored: the reason comes back to be shown as a warning.
///
/// Only a regular file is read or replaced. Anything else named by mistake (a device, a FIFO,
/// a directory) is left as it is and the run writes no cache: `--cache /dev/null` once read
/// nothing and then renamed the new cache over the device, and `/dev/zero` was read until
/// memory ran out. A file that is not a fasthash cache at all is left as it is too, unread
/// past its first bytes: only a cache that fasthash wrote, damaged or old, is rewritten. A
/// symbolic link is followed, for writing as for reading: the file it names is replaced, and
/// the link stays.
pub fn activate(path: &Path) -> Option<Ignored> {
    let opened = SystemTime::now();
    let (loaded, warning) = match load(path) {
        Ok(loaded) => (loaded, None),
        Err(ignored) => (Files::default(), Some(ignored)),
    };
    let _ = ACTIVE.set(Cache {
        path: path.to_path_buf(),
        loaded,
        learned: Mutex::new(Files::default()),
        replace: warning.as_ref().is_some_and(|ignored| ignored.rewritten),
        keep_out: warning.as_ref().is_some_and(|ignored| !ignored.rewritten),
        hits: AtomicU64::new(0),
        misses: AtomicU64::new(0),
        opened,
    });
    warning
}

/// The files `path` remembers: none when it is missing or empty.
fn load(path: &Path) -> Result<Files, Ignored> {
    let left = |reason: IgnoredReason| Ignored {
        reason,
        rewritten: false,
    };
    let unreadable = |e| left(IgnoredReason::Unreadable(e));
    match long_paths::metadata(path) {
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Files::default()),
        Err(e) => return Err(unreadable(e)),
        Ok(metadata) if !metadata.is_file() => {
            return Err(left(IgnoredReason::Said(format!(
                "it is not a regular file but {}; it is left as it is",
                super::file_kind(&metadata)
            ))))
        }
        Ok(metadata) => {
            if let Some(stream) = standard_stream(&metadata) {
                return Err(left(IgnoredReason::Said(format!(
                    "it is where standard {stream} goes; it is left as it is"
                ))));
            }
            if metadata.len() == 0 {
                return Ok(Files::default());
            }
        }
    }
    let mut file = long_paths::open_file(path).map_err(unreadable)?;
    let mut start = Vec::with_capacity(MAGIC.len());
    (&mut file)
        .take(MAGIC.len() as u64)
        .read_to_end(&mut start)
        .map_err(unreadable)?;
    let read = start.len();
    // A file shorter than the mark that starts as it does is a cache cut short: damaged.
    if start[..read] != MAGIC[..read] {
        return Err(left(IgnoredReason::Said(
            "it is not a fasthash cache; it is left as it is".to_string(),
        )));
    }
    let mut data = start[..read].to_vec();
    file.read_to_end(&mut data).map_err(unreadable)?;
    decode(&data, &machine()).map_err(|reason| Ignored {
        reason: IgnoredReason::Said(reason),
        rewritten: true,
    })
}

/// Which of the process's standard streams is the file of `metadata`, if one is: `--cache
/// SUMS > SUMS` (the shell has just emptied SUMS, which would pass for a new cache) must not
/// rename a cache over the file the run's lines are going to.
fn standard_stream(metadata: &Metadata) -> Option<&'static str> {
    use std::os::unix::fs::MetadataExt;
    [(1, "output"), (2, "error"), (0, "input")]
        .into_iter()
        .find(|&(fd, _)| {
            // SAFETY: `fstat` only writes the status of descriptor `fd` into `status`, and
            // fails without touching anything when the descriptor is closed.
            let mut status: libc::stat = unsafe { std::mem::zeroed() };
            let found = unsafe { libc::fstat(fd, &mut status) } == 0;
            found && (status.st_dev, status.st_ino) == (metadata.dev(), metadata.ino())
        })
        .map(|(_, stream)| stream)
}

/// The path a cache at `path` is written to: `path`, or where its chain of symbolic links
/// ends (the file that link names, which need not exist yet), so that the link stays.
fn written_at(path: &Path) -> PathBuf {
    let mut at = path.to_path_buf();
    // The kernel's own limit on links followed in one lookup.
    for _ in 0..40 {
        match std::fs::read_link(&at) {
            Ok(target) => {
                at = match at.parent() {
                    Some(parent) if target.is_relative() => parent.join(target),
                    _ => target,
                }
            }
            Err(_) => break,
        }
    }
    at
}

impl Cache {
    /// The digest of the file whose metadata this is, if it was hashed in this state.
    pub fn lookup(&self, metadata: &Metadata, algorithm: Algorithm) -> Option<Digest> {
        let digest = self
            .known(metadata)
            .and_then(|known| digest_by(known, algorithm));
        self.counted(digest)
    }

    /// The digests of the file by every one of `algorithms`, in order, if it was hashed in this
    /// state by all of them (one file counted once, however many algorithms).
    pub fn lookup_all(&self, metadata: &Metadata, algorithms: &[Algorithm]) -> Option<Vec<Digest>> {
        // The file is looked up once; then each algorithm among its digests.
        let known = self.known(metadata);
        self.counted(
            algorithms
                .iter()
                .map(|&algorithm| digest_by(known?, algorithm))
                .collect(),
        )
    }

    /// The digests known for the file whose metadata this is, if it was hashed in this state.
    fn known(&self, metadata: &Metadata) -> Option<&Known> {
        let stamp = Stamp::of(metadata);
        self.loaded
            .get(&(stamp.device, stamp.inode))
            .filter(|(known_stamp, _)| metadata.is_file() && *known_stamp == stamp)
            .map(|(_, known)| known)
    }

    /// A lookup's answer, counted as a hit or a miss.
    fn counted<T>(&self, found: Option<T>) -> Option<T> {
        let counter = if found.is_some() {
            &self.hits
        } else {
            &self.misses
        };
        counter.fetch_add(1, Ordering::Relaxed);
        found
    }

    /// For `--debug`: how many files the cache answered for, and how many were hashed.
    pub fn counts(&self) -> (u64, u64) {
        (
            self.hits.load(Ordering::Relaxed),
            self.misses.load(Ordering::Relaxed),
        )
    }

    /// Remembers a digest of a regular file hashed in the state `metadata` gave before it was
    /// read; not one modified too recently to be told apart from a later write.
    pub fn remember(&self, metadata: &Metadata, algorithm: Algorithm, digest: Digest) {
        if !metadata.is_file() || too_recent_at(metadata, self.opened) {
            return;
        }
        let stamp = Stamp::of(metadata);
        let mut learned = self.learned.lock().unwrap_or_else(|e| e.into_inner());
        let entry = learned
            .entry((stamp.device, stamp.inode))
            .or_insert_with(|| (stamp, Vec::new()));
        if entry.0 != stamp {
            *entry = (stamp, Vec::new());
        }
        if !entry.1.iter().any(|(a, _)| *a == algorithm) {
            entry.1.push((algorithm, digest));
        }
    }

    /// Writes the cache back: what was loaded, updated with what this run learned. Nothing is
    /// written when nothing was learned, unless the file held a cache that was ignored.
    pub fn save(&self) -> io::Result<()> {
        let learned = self.learned.lock().unwrap_or_else(|e| e.into_inner());
        if self.keep_out || learned.is_empty() && !self.replace {
            return Ok(());
        }
        let mut all = self.loaded.clone();
        for (key, (stamp, digests)) in learned.iter() {
            let entry = all.entry(*key).or_insert_with(|| (*stamp, Vec::new()));
            if entry.0 != *stamp {
                *entry = (*stamp, Vec::new());
            }
            for (algorithm, digest) in digests {
                entry.1.retain(|(a, _)| a != algorithm);
                entry.1.push((*algorithm, *digest));
            }
        }
        let target = written_at(&self.path);
        // What took the cache's place while the run went on is not replaced either.
        if let Ok(metadata) = std::fs::symlink_metadata(&target) {
            if !metadata.is_file() {
                return Err(io::Error::other(format!(
                    "it is now {}, left as it is",
                    super::file_kind(&metadata)
                )));
            }
        }
        write_atomically(&target, &encode(&all, &machine()))
    }
}

/// The digest by `algorithm` among those known for one file state.
fn digest_by(known: &Known, algorithm: Algorithm) -> Option<Digest> {
    known
        .iter()
        .find(|(a, _)| *a == algorithm)
        .map(|(_, digest)| *digest)
}

/// Whether the file's modification or change time is less than two seconds before `now` (or
/// after it): a write while it was read could have left both as they were.
fn too_recent_at(metadata: &Metadata, now: SystemTime) -> bool {
    let latest = |seconds: i64, nanos: i64| {
        SystemTime::UNIX_EPOCH
            + Duration::from_secs(seconds.max(0) as u64)
            + Duration::from_nanos(nanos.max(0) as u64)
    };
    let recent = |time: SystemTime| match now.duration_since(time) {
        Ok(age) => age < Duration::from_secs(2),
        // In the future: a clock that disagrees; do not trust it.
        Err(_) => true,
    };
    recent(latest(metadata.mtime(), metadata.mtime_nsec()))
        || recent(latest(metadata.ctime(), metadata.ctime_nsec()))
}

/// This machine, as far as device and inode numbers go: its machine id, else its host name.
fn machine() -> Vec<u8> {
    for file in ["/etc/machine-id", "/var/lib/dbus/machine-id"] {
        if let Ok(id) = std::fs::read(file) {
            let id = id.trim_ascii().to_vec();
            if !id.is_empty() {
                return id;
            }
        }
    }
    let mut name = [0u8; 256];
    // SAFETY: gethostname writes at most `name.len()` bytes into the buffer we own.
    let ok = unsafe { libc::gethostname(name.as_mut_ptr().cast(), name.len()) } == 0;
    let len = name.iter().position(|&b| b == 0).unwrap_or(name.len());
    if ok {
        name[..len].to_vec()
    } else {
        Vec::new()
    }
}

fn encode(all: &Files, machine: &[u8]) -> Vec<u8> {
    let mut out = MAGIC.to_vec();
    out.extend_from_slice(&VERSION.to_le_bytes());
    out.extend_from_slice(&(machine.len() as u32).to_le_bytes());
    out.extend_from_slice(machine);
    out.extend_from_slice(&(all.len() as u64).to_le_bytes());
    for (stamp, digests) in all.values() {
        for n in [stamp.device, stamp.inode, stamp.size] {
            out.extend_from_slice(&n.to_le_bytes());
        }
        for n in [
            stamp.modified.0,
            stamp.modified.1,
            stamp.changed.0,
            stamp.changed.1,
        ] {
            out.extend_from_slice(&n.to_le_bytes());
        }
        out.push(digests.len() as u8);
        for (algorithm, digest) in digests {
            let name = algorithm.to_string();
            out.push(name.len() as u8);
            out.extend_from_slice(name.as_bytes());
            out.push(digest.as_bytes().len() as u8);
            out.extend_from_slice(digest.as_bytes());
        }
    }
    let check = blake3::hash(&out);
    out.extend_from_slice(check.as_bytes());
    out
}

/// Reads back a cache that `machine` wrote; any doubt is an error, and the cache is then not
/// used at all.
fn decode(data: &[u8], machine: &[u8]) -> Result<Files, String> {
    let corrupt = || "it is damaged (its check does not match)".to_string();
    let body_len = data.len().checked_sub(32).ok_or_else(corrupt)?;
    let (body, check) = data.split_at(body_len);
    if blake3::hash(body).as_bytes() != check {
        return Err(corrupt());
    }
    let mut reader = Reader(body);
    if reader.take(MAGIC.len())? != MAGIC {
        return Err("it is not a fasthash cache".into());
    }
    let version = u32::from_le_bytes(reader.array()?);
    if version != VERSION {
        return Err(format!(
            "another version of fasthash wrote it (format {version})"
        ));
    }
    let machine_len = u32::from_le_bytes(reader.array()?) as usize;
    if reader.take(machine_len)? != machine {
        return Err("another machine wrote it".into());
    }
    let count = u64::from_le_bytes(reader.array()?);
    let mut all = Files::default();
    all.reserve(count.min(1 << 24) as usize);
    // Most caches hold one or two algorithms: their names are looked up once each.
    let mut names: Vec<(&[u8], Algorithm)> = Vec::new();
    for _ in 0..count {
        let mut n = [0u64; 3];
        for slot in &mut n {
            *slot = u64::from_le_bytes(reader.array()?);
        }
        let mut t = [0i64; 4];
        for slot in &mut t {
            *slot = i64::from_le_bytes(reader.array()?);
        }
        let stamp = Stamp {
            device: n[0],
            inode: n[1],
            size: n[2],
            modified: (t[0], t[1]),
            changed: (t[2], t[3]),
        };
        let digest_count = reader.take(1)?[0];
        let mut digests = Vec::new();
        for _ in 0..digest_count {
            let name_len = reader.take(1)?[0] as usize;
            let name = reader.take(name_len)?;
            let len = reader.take(1)?[0] as usize;
            let bytes = reader.take(len)?;
            let algorithm = match names.iter().find(|(known, _)| *known == name) {
                Some((_, algorithm)) => *algorithm,
                None => {
                    let text = std::str::from_utf8(name).map_err(|_| corrupt())?;
                    let algorithm = algorithm_named(text).ok_or_else(corrupt)?;
                    names.push((name, algorithm));
                    algorithm
                }
            };
            if bytes.len() != algorithm.digest_len() {
                return Err(corrupt());
            }
            digests.push((algorithm, Digest::from_slice(bytes)));
        }
        all.insert((stamp.device, stamp.inode), (stamp, digests));
    }
    if !reader.0.is_empty() {
        return Err(corrupt());
    }
    Ok(all)
}

/// An algorithm by the name `Display` gives it (`blake2b-256` for a shorter BLAKE2b).
fn algorithm_named(name: &str) -> Option<Algorithm> {
    if let Some(bits) = name.strip_prefix("blake2b-") {
        return bits.parse().ok().and_then(Algorithm::blake2b_bits);
    }
    Algorithm::from_name(name).filter(|a| a.to_string() == name)
}

struct Reader<'a>(&'a [u8]);

impl<'a> Reader<'a> {
    fn take(&mut self, len: usize) -> Result<&'a [u8], String> {
        if self.0.len() < len {
            return Err("it is damaged (it ends early)".into());
        }
        let (taken, rest) = self.0.split_at(len);
        self.0 = rest;
        Ok(taken)
    }
    fn array<const N: usize>(&mut self) -> Result<[u8; N], String> {
        let bytes = self.take(N)?;
        Ok(bytes.try_into().expect("take gave N bytes"))
    }
}

/// Writes `data` to a temporary file beside `path`, syncs it, renames it over `path` and
/// syncs the directory: `path` is the old file or the new one, whatever happens. All three
/// are done by name in the directory opened once, so a path of any length works.
fn write_atomically(path: &Path, data: &[u8]) -> io::Result<()> {
    let directory = match path.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => parent,
        _ => Path::new("."),
    };
    let name = path
        .file_name()
        .ok_or_else(|| io::Error::from_raw_os_error(libc::EISDIR))?;
    let mut temporary = name.to_owned();
    temporary.push(format!(".tmp.{}", std::process::id()));
    let directory = long_paths::open_directory(directory)?;
    let written = (|| {
        {
            let mut file = long_paths::create_in(&directory, &temporary)?;
            file.write_all(data)?;
            file.sync_all()?;
        }
        // Closed first: the directory's sync takes a descriptor of its own, which under
        // `ulimit -n 5` was one too many.
        long_paths::rename_in(&directory, &temporary, name)?;
        long_paths::sync_directory(&directory)
    })();
    if written.is_err() {
        long_paths::remove_in(&directory, &temporary);
    }
    written
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Files {
        let stamp = Stamp {
            device: 7,
            inode: 42,
            size: 3,
            modified: (1_700_000_000, 5),
            changed: (1_700_000_001, 6),
        };
        let digests = vec![
            (
                Algorithm::Sha256,
                crate::kernels::hash(Algorithm::Sha256, b"abc"),
            ),
            (
                Algorithm::Blake2b(32),
                crate::kernels::hash(Algorithm::Blake2b(32), b"abc"),
            ),
        ];
        Files::from_iter([((7, 42), (stamp, digests))])
    }

    #[test]
    fn a_file_changed_in_the_last_two_seconds_is_not_trusted_by_either_time() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("file");
        std::fs::write(&path, b"abc").unwrap();
        let file = std::fs::File::options().write(true).open(&path).unwrap();
        // The modification time set an hour back: the change time, which that sets to now
        // and which no one can set back, still says the file is new.
        let hour_ago = SystemTime::now() - Duration::from_secs(3600);
        file.set_modified(hour_ago).unwrap();
        let metadata = file.metadata().unwrap();
        assert_eq!(metadata.modified().unwrap(), hour_ago);
        let changed = SystemTime::UNIX_EPOCH
            + Duration::new(metadata.ctime() as u64, metadata.ctime_nsec() as u32);
        assert!(too_recent_at(
            &metadata,
            changed + Duration::from_millis(1999)
        ));
        assert!(!too_recent_at(&metadata, changed + Duration::from_secs(2)));
        // A clock behind the file's times is not trusted either.
        assert!(too_recent_at(&metadata, changed - Duration::from_secs(1)));
        // And a modification time of its own that is recent (here, ahead) is not trusted.
        file.set_modified(SystemTime::now() + Duration::from_secs(3600))
            .unwrap();
        let ahead = file.metadata().unwrap();
        let changed_again =
            SystemTime::UNIX_EPOCH + Duration::new(ahead.ctime() as u64, ahead.ctime_nsec() as u32);
        assert!(too_recent_at(
            &ahead,
            changed_again + Duration::from_secs(2)
        ));
        // Not remembered by a run that started within two seconds of the change, however long
        // the hash took; remembered by one that started later.
        let digest = crate::kernels::hash(Algorithm::Sha256, b"abc");
        let learned_by_run_opened_at = |opened: SystemTime| {
            let cache = Cache {
                path: dir.path().join("cache"),
                loaded: Files::default(),
                learned: Mutex::new(Files::default()),
                replace: false,
                keep_out: false,
                hits: AtomicU64::new(0),
                misses: AtomicU64::new(0),
                opened,
            };
            cache.remember(&metadata, Algorithm::Sha256, digest);
            let learned = cache.learned.lock().unwrap().len();
            learned
        };
        assert_eq!(
            learned_by_run_opened_at(changed + Duration::from_secs(1)),
            0
        );
        assert_eq!(
            learned_by_run_opened_at(changed + Duration::from_secs(3)),
            1
        );
    }

    #[test]
    fn a_cache_reads_back_what_was_written() {
        let all = sample();
        assert_eq!(decode(&encode(&all, b"here"), b"here").unwrap(), all);
    }

    #[test]
    fn any_damage_another_machine_or_version_is_refused() {
        let data = encode(&sample(), b"here");
        for index in [0, MAGIC.len() + 1, data.len() / 2, data.len() - 1] {
            let mut damaged = data.clone();
            damaged[index] ^= 1;
            assert!(decode(&damaged, b"here").is_err(), "byte {index}");
        }
        assert!(decode(&data[..data.len() - 1], b"here").is_err());
        assert!(decode(b"", b"here").is_err());
        assert_eq!(
            decode(&data, b"there").unwrap_err(),
            "another machine wrote it"
        );
        // Another version, with a check that matches what it wrote.
        let mut other = data[..data.len() - 32].to_vec();
        other[MAGIC.len()] = 2;
        let check = blake3::hash(&other);
        other.extend_from_slice(check.as_bytes());
        assert!(decode(&other, b"here")
            .unwrap_err()
            .contains("another version"));
    }
}

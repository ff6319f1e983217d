//! Turning what was named into what to hash: files as given, directories walked under `-r`
//! (sorted by name, hidden entries included), `--exclude`/`--include` filters, and the names
//! read by `--files-from`/`--files0-from`.
//!
//! The walk is lazy: the parallel pipeline pulls the next file as a worker frees up, so output
//! starts before a large tree is listed and the list is never held whole. walkdir walks with
//! its own stack, not recursion, and keeps a bounded number of directories open.

use super::{long_paths, Input};
use globset::{Candidate, GlobBuilder, GlobSet, GlobSetBuilder};
use std::borrow::Cow;
use std::ffi::OsStr;
use std::io::{self, BufRead};
use std::os::unix::ffi::{OsStrExt, OsStringExt};
use std::path::{Component, Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

/// One unit of work found while expanding the inputs, in output order.
#[derive(Debug)]
pub enum Task {
    /// Hash this.
    Hash(Input),
    /// Could not be listed (unreadable directory, loop, vanished entry): reported, counted as a
    /// failure.
    Fail { name: Vec<u8>, error: io::Error },
    /// Met while walking but not something to hash (socket, device, FIFO): reported, not a
    /// failure.
    Skip { name: Vec<u8>, reason: &'static str },
}

impl Task {
    pub fn name_bytes(&self) -> &[u8] {
        match self {
            Task::Hash(input) => input.name_bytes(),
            Task::Fail { name, .. } | Task::Skip { name, .. } => name,
        }
    }
}

#[derive(Clone, Debug, Default)]
pub struct WalkOptions {
    pub recursive: bool,
    /// `-L`: follow symbolic links met while walking (those named on the command line are
    /// always followed).
    pub follow_links: bool,
    pub filter: Filter,
}

/// `--exclude` and `--include` globs, with one meaning wherever a name is filtered (the walk of
/// `-r`, the walk of an audit's `--tree`, and the names a manifest lists), as rsync matches
/// its patterns.
///
/// A pattern is matched against the *filter path* of a name: under `-r`, the directory named
/// on the command line (its last component: `src` for `../x/src`, nothing for `.`) and the
/// path below it; in a manifest, the listed name without a leading `/`, `./` or `../`. So a
/// manifest that `fasthash -r src` wrote lists exactly the filter paths the walk matched.
/// - A pattern matches the end of the filter path at any directory: `*.log` and `cache` match
///   a file or directory of that name anywhere, `cache/*.tmp` those files in any `cache`.
/// - A leading `/` anchors it at the start of the filter path: `/src/cache` is `src/cache`
///   and not `lib/src/cache`.
/// - A trailing `/` matches directories only: the walk does not enter them, and a listed name
///   under one is left out.
/// - `*` and `?` stop at `/`; `**` crosses it.
///
/// A match on a directory takes in everything under it: an excluded directory is not entered,
/// and an included one keeps all its files. With includes, a file is kept when it or a
/// directory above it matches one; exclusions win.
#[derive(Clone, Debug, Default)]
pub struct Filter {
    excludes: Patterns,
    includes: Patterns,
}

/// One option's patterns, each compiled to the globs it stands for, and which of them matched
/// something (kept only for `--debug`).
#[derive(Clone, Debug, Default)]
struct Patterns {
    typed: Vec<String>,
    /// The globs of each [`Reach`], `None` where there are none.
    sets: [Option<Globs>; 4],
    /// Set by [`Filter::track_matches`]: one flag a typed pattern.
    matched: Option<Arc<Vec<AtomicBool>>>,
}

#[derive(Clone, Debug)]
struct Globs {
    set: GlobSet,
    /// The typed pattern each glob of `set` came from.
    origin: Vec<usize>,
}

/// What a glob of a pattern matches: the path the pattern names (a pattern of directories
/// only names only a directory), or what is under it. The walk needs only the first three for
/// `--exclude`, since it does not enter an excluded directory; a listed name, which has no
/// walk above it, and `--include` need all but the directory itself.
#[derive(Clone, Copy)]
enum Reach {
    Itself = 0,
    UnderDirectoryOnly = 1,
    Under = 2,
    DirectoryItself = 3,
}

/// What a walk met, as its filter sees it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Met {
    /// A directory, which the walk enters unless it is left out; a pattern with a trailing
    /// `/` matches it.
    Directory,
    /// What the walk lists (files, and what it reports skipped): only this is matched against
    /// `--include`.
    Listed,
    /// A link the walk passes by (without `-L`).
    PassedLink,
}

impl Patterns {
    fn new(typed: &[String]) -> Result<Patterns, globset::Error> {
        let mut builders: [(GlobSetBuilder, Vec<usize>); 4] =
            std::array::from_fn(|_| (GlobSetBuilder::new(), Vec::new()));
        for (index, pattern) in typed.iter().enumerate() {
            for (reach, glob) in globs_for(pattern) {
                let (builder, origin) = &mut builders[reach as usize];
                builder.add(GlobBuilder::new(&glob).literal_separator(true).build()?);
                origin.push(index);
            }
        }
        let mut sets: [Option<Globs>; 4] = Default::default();
        for (set, (builder, origin)) in sets.iter_mut().zip(builders) {
            if !origin.is_empty() {
                *set = Some(Globs {
                    set: builder.build()?,
                    origin,
                });
            }
        }
        Ok(Patterns {
            typed: typed.to_vec(),
            sets,
            matched: None,
        })
    }

    fn is_empty(&self) -> bool {
        self.typed.is_empty()
    }

    /// Whether one of `reaches` has globs: when none has, there is nothing to match a filter
    /// path against, and no need to build one.
    fn has_globs(&self, reaches: &[Reach]) -> bool {
        reaches
            .iter()
            .any(|&reach| self.sets[reach as usize].is_some())
    }

    /// Whether a glob of one of `reaches` matches (all of them, with `--debug`, to remember
    /// which patterns matched). The caller makes the candidate once for all its sets.
    fn is_match(&self, candidate: &Candidate, reaches: &[Reach]) -> bool {
        let mut any = false;
        for &reach in reaches {
            let Some(globs) = &self.sets[reach as usize] else {
                continue;
            };
            let Some(matched) = &self.matched else {
                if globs.set.is_match_candidate(candidate) {
                    return true;
                }
                continue;
            };
            for glob in globs.set.matches_candidate(candidate) {
                matched[globs.origin[glob]].store(true, Ordering::Relaxed);
                any = true;
            }
        }
        any
    }

    fn unmatched(&self) -> impl Iterator<Item = &str> {
        self.typed
            .iter()
            .enumerate()
            .filter_map(|(index, pattern)| {
                let matched = self.matched.as_ref()?;
                (!matched[index].load(Ordering::Relaxed)).then_some(pattern.as_str())
            })
    }
}

const ALL_REACHES: &[Reach] = &[Reach::Itself, Reach::UnderDirectoryOnly, Reach::Under];

/// What `--exclude` matches in a walk, which does not enter an excluded directory.
const WALKED_EXCLUSION: &[Reach] = &[Reach::Itself, Reach::UnderDirectoryOnly];

/// What `--exclude` matches of a directory met in a walk: also a pattern of directories only.
const WALKED_DIRECTORY_EXCLUSION: &[Reach] = &[
    Reach::Itself,
    Reach::UnderDirectoryOnly,
    Reach::DirectoryItself,
];

/// The globs one typed pattern stands for: the path itself, and everything under it.
fn globs_for(pattern: &str) -> Vec<(Reach, String)> {
    let (anchored, rest) = match pattern.strip_prefix('/') {
        Some(rest) => (true, rest.trim_start_matches('/')),
        None => (false, pattern.strip_prefix("./").unwrap_or(pattern)),
    };
    let (directories_only, body) = match rest.strip_suffix('/') {
        Some(body) => (true, body.trim_end_matches('/')),
        None => (false, rest),
    };
    let base = if anchored || body.starts_with("**/") {
        body.to_string()
    } else {
        format!("**/{body}")
    };
    let under = format!("{base}/**");
    if directories_only {
        vec![
            (Reach::DirectoryItself, base),
            (Reach::UnderDirectoryOnly, under),
        ]
    } else {
        vec![(Reach::Itself, base), (Reach::Under, under)]
    }
}

impl Filter {
    pub fn new(excludes: &[String], includes: &[String]) -> Result<Filter, globset::Error> {
        Ok(Filter {
            excludes: Patterns::new(excludes)?,
            includes: Patterns::new(includes)?,
        })
    }

    /// Remembers, from now on, which patterns matched something, for [`Filter::unmatched`].
    /// Clones share what they remember.
    pub fn track_matches(&mut self) {
        for patterns in [&mut self.excludes, &mut self.includes] {
            let flags = patterns.typed.iter().map(|_| AtomicBool::new(false));
            patterns.matched = Some(Arc::new(flags.collect()));
        }
    }

    /// The `--exclude` and `--include` patterns (with their option) that matched nothing since
    /// [`Filter::track_matches`].
    pub fn unmatched(&self) -> Vec<(&'static str, &str)> {
        let excludes = self.excludes.unmatched().map(|p| ("--exclude", p));
        let includes = self.includes.unmatched().map(|p| ("--include", p));
        excludes.chain(includes).collect()
    }

    /// Whether the walk leaves out the entry at `filter_path` (a directory is not entered, so
    /// what is under it need not be matched).
    #[cfg(test)]
    fn excludes(&self, filter_path: &Path, met: Met) -> bool {
        self.excludes
            .is_match(&Candidate::new(filter_path), walked_exclusion(met))
    }

    /// Whether a file at `filter_path` passes `--include` (always, without includes); the
    /// walk has already left out what `--exclude` matched.
    pub fn includes(&self, filter_path: &Path) -> bool {
        self.includes.is_empty()
            || self
                .includes
                .is_match(&Candidate::new(filter_path), ALL_REACHES)
    }

    /// Whether the walk of `walk_root` keeps the entry at `path`, which is what `met` says: no
    /// `--exclude` matches it (an excluded directory is not entered) and, when it is listed,
    /// an `--include` does, if there are any. The filter path is built only when there are
    /// patterns to match it against, and matched as one candidate by both.
    pub(crate) fn keeps_walked(&self, walk_root: &Path, path: &Path, met: Met) -> bool {
        let exclusion = walked_exclusion(met);
        let excluding = self.excludes.has_globs(exclusion);
        let including = met == Met::Listed && !self.includes.is_empty();
        if !excluding && !including {
            return true;
        }
        let filter_path = walked_filter_path(walk_root, path);
        let candidate = Candidate::new(filter_path.as_ref());
        // Exclusions are matched first: an excluded file is not matched against `--include`,
        // so `--debug` does not count it as one an include matched.
        !(excluding && self.excludes.is_match(&candidate, exclusion))
            && (!including || self.includes.is_match(&candidate, ALL_REACHES))
    }

    /// Whether a name listed in a manifest is to be checked.
    pub fn selects_listed(&self, name: &Path) -> bool {
        let excluding = self.excludes.has_globs(ALL_REACHES);
        let including = !self.includes.is_empty();
        if !excluding && !including {
            return true;
        }
        let filter_path = listed_filter_path(name);
        let candidate = Candidate::new(&filter_path);
        !(excluding && self.excludes.is_match(&candidate, ALL_REACHES))
            && (!including || self.includes.is_match(&candidate, ALL_REACHES))
    }
}

/// The reaches of `--exclude` that leave out what a walk met.
fn walked_exclusion(met: Met) -> &'static [Reach] {
    match met {
        Met::Directory => WALKED_DIRECTORY_EXCLUSION,
        Met::Listed | Met::PassedLink => WALKED_EXCLUSION,
    }
}

/// The filter path of an entry at `path` met walking `root`: the root's own name, if it has
/// one, and the path below it. It is borrowed from the end of `path` (or `root`) wherever those
/// bytes spell it, so most entries of a walk cost no allocation.
pub(crate) fn walked_filter_path<'a>(root: &'a Path, path: &'a Path) -> Cow<'a, Path> {
    let below = path.strip_prefix(root).unwrap_or(path);
    let Some(name) = root.file_name() else {
        return Cow::Borrowed(below);
    };
    // `join("")` would end the path with a `/`, which no glob of a file matches.
    if below.as_os_str().is_empty() {
        return Cow::Borrowed(Path::new(name));
    }
    let (name_bytes, below_bytes) = (name.as_bytes(), below.as_os_str().as_bytes());
    let spelled = path.as_os_str().as_bytes();
    let joined_len = name_bytes.len() + 1 + below_bytes.len();
    if let Some(start) = spelled.len().checked_sub(joined_len) {
        let end = &spelled[start..];
        if end.starts_with(name_bytes)
            && end[name_bytes.len()] == b'/'
            && end.ends_with(below_bytes)
        {
            return Cow::Borrowed(Path::new(OsStr::from_bytes(end)));
        }
    }
    Cow::Owned(Path::new(name).join(below))
}

/// The filter path of a name listed in a manifest: the name without the `/`, `.` and `..`
/// that start it.
fn listed_filter_path(name: &Path) -> PathBuf {
    name.components()
        .skip_while(|c| !matches!(c, Component::Normal(_)))
        .collect()
}

/// Every task the inputs expand to, lazily, in order.
pub fn expand(inputs: Vec<Input>, options: WalkOptions) -> impl Iterator<Item = Task> + Send {
    inputs
        .into_iter()
        .flat_map(move |input| expand_one(input, options.clone()))
}

fn expand_one(input: Input, options: WalkOptions) -> Box<dyn Iterator<Item = Task> + Send> {
    let walk_root = match &input {
        Input::Path(path) if options.recursive && is_directory(path) => path.clone(),
        _ => return Box::new(std::iter::once(Task::Hash(input))),
    };
    // The directory named is the start of the filter path: `--exclude src` leaves out all of
    // `-r src`, as it leaves out every listed `src/...` in a check.
    if walk_root.file_name().is_some()
        && !options
            .filter
            .keeps_walked(&walk_root, &walk_root, Met::Directory)
    {
        return Box::new(std::iter::empty());
    }
    let entries = walk_entries(&walk_root, &walk_root, &options);
    tasks_of(walk_root, options, entries)
}

/// walkdir's entries, filtered by `--exclude` and `--include`.
type Entries = Box<dyn Iterator<Item = walkdir::Result<walkdir::DirEntry>> + Send>;

/// walkdir's walk of `start` (`root`, the directory named under `-r`, where filter paths
/// start, or a directory below it walked again), sorted by name, with the filters applied to
/// what it meets (so that it does not enter a directory left out).
fn walk_entries(root: &Path, start: &Path, options: &WalkOptions) -> Entries {
    let filter = options.filter.clone();
    let root = root.to_path_buf();
    Box::new(
        walkdir::WalkDir::new(start)
            .follow_links(options.follow_links)
            .follow_root_links(true)
            .sort_by_file_name()
            .into_iter()
            .filter_entry(move |entry| {
                let file_type = entry.file_type();
                // With -L, walkdir gives the type of what a link points to.
                let met = if file_type.is_dir() {
                    Met::Directory
                } else if file_type.is_symlink() {
                    Met::PassedLink
                } else {
                    Met::Listed
                };
                entry.depth() == 0 || filter.keeps_walked(&root, entry.path(), met)
            }),
    )
}

/// The tasks of a walk of `root`'s tree, lazily.
fn tasks_of(
    root: PathBuf,
    options: WalkOptions,
    entries: Entries,
) -> Box<dyn Iterator<Item = Task> + Send> {
    let mut entered = Entered::default();
    Box::new(entries.flat_map(move |entry| {
        entered.see(&entry);
        task_of(entry, &root, &options, &entered)
    }))
}

/// The directories the walk is in, one a depth: walkdir's error for a listing that could not
/// be read to the end (`getdents` failing, as EIO from a bad sector or a network file system
/// does) names no path, and the directory being listed is the last one entered above the
/// error's depth.
#[derive(Default)]
struct Entered(Vec<PathBuf>);

impl Entered {
    fn see(&mut self, entry: &walkdir::Result<walkdir::DirEntry>) {
        if let Ok(entry) = entry {
            if entry.file_type().is_dir() {
                self.0.truncate(entry.depth());
                self.0.push(entry.path().to_path_buf());
            }
        }
    }

    /// The directory whose listing gave `error`, when the error names no path.
    fn listing_of(&self, error: &walkdir::Error) -> Option<&Path> {
        self.0
            .get(error.depth().checked_sub(1)?)
            .map(PathBuf::as_path)
    }
}

/// A directory below `root` walkdir could not open for want of a descriptor (under a
/// low `ulimit -n`, the readers held them all): walked again once one is free, as every
/// open of ours waits for one ([`super::descriptors::retrying`]), instead of reported
/// unreadable. Waits again, without nesting, while the walk's own open of it still finds
/// none. With `-L` the subtree is walked as a too-deep one is (its loop check knows the
/// directories above it, which a new walkdir walk would not).
fn walk_again(root: &Path, directory: &Path, options: &WalkOptions) -> OneOrMany {
    loop {
        // Waits until the directory opens, or gives up where none of ours will be freed.
        if let Err(error) = long_paths::open_file(directory) {
            let name = directory.as_os_str().as_bytes().to_vec();
            return OneOrMany::One(Some(Task::Fail { name, error }));
        }
        if options.follow_links {
            return a_directory_at_a_time(directory, root, options);
        }
        // Its first entry is the directory itself; the next is the result of opening it.
        let mut entries = walk_entries(root, directory, options);
        let itself = entries.next();
        let opened = entries.next();
        if let Some(Err(error)) = &opened {
            if is_out_of_descriptors(error) && error.path() == Some(directory) {
                continue;
            }
        }
        let entries = Box::new(itself.into_iter().chain(opened).chain(entries));
        return OneOrMany::Many(tasks_of(root.to_path_buf(), options.clone(), entries));
    }
}

/// The tree at `directory` (below `root`) walked one directory at a time, each opened relative
/// to its parent ([`long_paths::walk`]): for a tree deeper than one system call reaches, or one
/// whose loop check under `-L` must know the directories above it.
fn a_directory_at_a_time(directory: &Path, root: &Path, options: &WalkOptions) -> OneOrMany {
    let tasks = long_paths::walk(directory, root, &options.filter, options.follow_links);
    OneOrMany::Many(Box::new(tasks.into_iter()))
}

/// Whether walkdir failed for want of a descriptor.
fn is_out_of_descriptors(error: &walkdir::Error) -> bool {
    error
        .io_error()
        .is_some_and(super::descriptors::is_exhaustion)
}

/// What one walkdir entry of the walk of `root` turns into.
fn task_of(
    entry: walkdir::Result<walkdir::DirEntry>,
    root: &Path,
    options: &WalkOptions,
    entered: &Entered,
) -> OneOrMany {
    let error = match entry {
        Ok(entry) => {
            let file_type = entry.file_type();
            if file_type.is_dir() || file_type.is_symlink() {
                // Directories are entered; links met while walking are not followed without
                // -L (with -L, walkdir reports what they point to).
                return OneOrMany::One(None);
            }
            // `filter_entry` has left out what `--exclude` and `--include` do.
            let path = entry.into_path();
            return OneOrMany::One(Some(if file_type.is_file() {
                Task::Hash(Input::Path(path))
            } else {
                Task::Skip {
                    name: path.into_os_string().into_vec(),
                    reason: "not a regular file; skipped",
                }
            }));
        }
        Err(error) => error,
    };
    if let Some(io_error) = error.io_error() {
        // `opendir` found no memory for its buffer: the run is out of memory, and the
        // directory no less readable.
        super::memory::exit_if_exhausted(io_error);
    }
    let path = error.path().map(Path::to_path_buf);
    if let Some(path) = &path {
        if error.io_error().is_some_and(long_paths::is_too_long) {
            // Deeper than one system call reaches.
            return a_directory_at_a_time(path, root, options);
        }
        if is_out_of_descriptors(&error) {
            return walk_again(root, path, options);
        }
    }
    let name = path
        .as_deref()
        .or_else(|| entered.listing_of(&error))
        .unwrap_or(root)
        .as_os_str()
        .as_bytes()
        .to_vec();
    let error = if error.loop_ancestor().is_some() {
        io::Error::other("file system loop detected; not followed")
    } else {
        error
            .into_io_error()
            .unwrap_or_else(|| io::Error::other("cannot walk"))
    };
    OneOrMany::One(Some(Task::Fail { name, error }))
}

/// What one walkdir entry turns into: usually one task or none; a whole subtree when the
/// entry is a directory walked another way (too deep for walkdir) or again (opened once a
/// descriptor was free).
enum OneOrMany {
    One(Option<Task>),
    Many(Box<dyn Iterator<Item = Task> + Send>),
}

impl Iterator for OneOrMany {
    type Item = Task;

    fn next(&mut self) -> Option<Task> {
        match self {
            OneOrMany::One(task) => task.take(),
            OneOrMany::Many(tasks) => tasks.next(),
        }
    }
}

/// Whether `path` is a directory (through a link), whatever its length.
fn is_directory(path: &Path) -> bool {
    long_paths::metadata(path).is_ok_and(|metadata| metadata.is_dir())
}

/// The names of a `--files-from` or `--files0-from` list.
#[derive(Debug, Default, PartialEq)]
pub struct NameList {
    pub names: Vec<Vec<u8>>,
    /// The entries (counted from 1) of a NUL-separated list that were empty: each an error,
    /// reported as GNU's `wc --files0-from` reports it (`LIST:2: invalid zero-length file
    /// name`), while the other names are still read.
    pub empty_entries: Vec<usize>,
}

/// Names read from `--files-from` (`zero`: `--files0-from`). GNU's rules: names end with a
/// newline (a NUL); an empty name in a NUL-separated list is an error, in a list of lines it
/// is skipped; `-` is read as a file name in the list only when the list is not standard input.
pub fn read_name_list(source: &Input, zero: bool) -> io::Result<NameList> {
    let data = super::read_all(source)?;
    let separator = crate::format::line_end(zero);
    let mut list = NameList::default();
    for (index, name) in io::Cursor::new(&data).split(separator).enumerate() {
        let name = name?;
        match (name.is_empty(), zero) {
            (false, _) => list.names.push(name),
            (true, true) => list.empty_entries.push(index + 1),
            (true, false) => {}
        }
    }
    Ok(list)
}

/// An `Input` for a name read from a list: `-` in a list is a file named `-`.
pub fn listed_input(name: &[u8]) -> Input {
    Input::Path(PathBuf::from(OsStr::from_bytes(name)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn filter(excludes: &[&str], includes: &[&str]) -> Filter {
        let own = |list: &[&str]| list.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        Filter::new(&own(excludes), &own(includes)).unwrap()
    }

    /// Whether a file at `path`, met walking `root`, is hashed: as the walk does, the root's
    /// own name and each directory on the way down are tested, then the file.
    fn walked(f: &Filter, root: &str, path: &str) -> bool {
        let (root, path) = (Path::new(root), Path::new(path));
        let mut on_the_way = path
            .ancestors()
            .filter(|a| a.starts_with(root))
            .collect::<Vec<_>>();
        on_the_way.reverse();
        let excluded = on_the_way.iter().any(|at| {
            let met = if *at == path {
                Met::Listed
            } else {
                Met::Directory
            };
            (*at != root || root.file_name().is_some())
                && f.excludes(&walked_filter_path(root, at), met)
        });
        !excluded && f.includes(&walked_filter_path(root, path))
    }

    #[test]
    fn a_borrowed_filter_path_is_the_one_joined() {
        for (root, path) in [
            ("src", "src/a/b"),
            ("../x/src", "../x/src/a"),
            ("/var/src/", "/var/src/a"),
            ("src//", "src//a//b"),
            ("src/.", "src/./a"),
            ("./src", "./src/src/src"),
            (".", "./a/b"),
            ("src", "src"),
            ("src", "elsewhere/a"),
        ] {
            let (root, path) = (Path::new(root), Path::new(path));
            let below = path.strip_prefix(root).unwrap_or(path);
            let joined = match root.file_name() {
                Some(name) if below.as_os_str().is_empty() => PathBuf::from(name),
                Some(name) => Path::new(name).join(below),
                None => below.to_path_buf(),
            };
            let built = walked_filter_path(root, path);
            assert_eq!(
                built.as_os_str().as_bytes(),
                joined.as_os_str().as_bytes(),
                "{root:?} {path:?}"
            );
        }
    }

    fn listed(f: &Filter, name: &str) -> bool {
        f.selects_listed(Path::new(name))
    }

    #[test]
    fn a_pattern_matches_the_end_of_the_path_at_any_directory() {
        let f = filter(&["*.log", "cache/*.tmp"], &[]);
        assert!(!walked(&f, "src", "src/a/b/x.log"));
        assert!(!walked(&f, "src", "src/cache/x.tmp"));
        assert!(!walked(&f, "src", "src/a/cache/x.tmp"));
        assert!(walked(&f, "src", "src/cache/deeper/x.tmp"));
        assert!(walked(&f, "src", "src/xcache/x.tmp"));
        assert!(walked(&f, "src", "src/x.log.txt"));
    }

    #[test]
    fn a_matched_directory_takes_everything_under_it() {
        let f = filter(&["build", "cache/*"], &[]);
        assert!(!walked(&f, ".", "./build/deep/out"));
        assert!(!walked(&f, ".", "./a/build"));
        assert!(!walked(&f, ".", "./cache/sub/deep/x"));
        assert!(walked(&f, ".", "./builds/x"));
    }

    #[test]
    fn the_walked_directory_name_starts_the_path_and_a_slash_anchors() {
        let f = filter(&["/src/cache"], &[]);
        assert!(!walked(&f, "src", "src/cache/x"));
        assert!(!walked(&f, "../up/src", "../up/src/cache/x"));
        assert!(walked(&f, "lib", "lib/src/cache/x"));
        assert!(walked(&f, "src", "src/lib/src/cache/x"));
        // `.` has no name: the path starts below it.
        let f = filter(&["/cache"], &[]);
        assert!(!walked(&f, ".", "./cache/x"));
        assert!(walked(&f, ".", "./a/cache/x"));
        // A directory above the walked one is not part of the path.
        let f = filter(&["tmp"], &[]);
        assert!(walked(&f, "/tmp/project", "/tmp/project/x"));
    }

    #[test]
    fn excluding_the_walked_directory_leaves_out_all_of_it() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("src/a")).unwrap();
        std::fs::write(dir.path().join("src/a/x"), b"x").unwrap();
        let walk = |excludes: &[&str]| {
            let options = WalkOptions {
                recursive: true,
                follow_links: false,
                filter: filter(excludes, &[]),
            };
            expand(vec![Input::Path(dir.path().join("src"))], options).count()
        };
        assert_eq!(walk(&[]), 1);
        assert_eq!(walk(&["src"]), 0);
        assert_eq!(walk(&["a/"]), 0);
        assert_eq!(walk(&["b"]), 1);
    }

    #[test]
    fn a_trailing_slash_matches_directories_only() {
        let f = filter(&["out/"], &[]);
        assert!(walked(&f, ".", "./a/out"));
        assert!(!walked(&f, ".", "./a/out/x"));
    }

    /// A directory left out by a pattern of directories only is not entered: here, under -L,
    /// entering `out` would meet a link back to its parent, which the walk reports as a loop.
    #[test]
    fn a_directory_left_out_by_a_trailing_slash_is_not_entered() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("src");
        std::fs::create_dir_all(root.join("out")).unwrap();
        std::fs::create_dir_all(root.join("a")).unwrap();
        std::fs::write(root.join("a/out"), b"a file named out").unwrap();
        std::fs::write(root.join("out/x"), b"x").unwrap();
        std::os::unix::fs::symlink("..", root.join("out/loop")).unwrap();
        // (files to hash, failures)
        let walk = |excludes: &[&str]| {
            let options = WalkOptions {
                recursive: true,
                follow_links: true,
                filter: filter(excludes, &[]),
            };
            let tasks: Vec<Task> = expand(vec![Input::Path(root.clone())], options).collect();
            let hashed = tasks
                .iter()
                .filter(|task| matches!(task, Task::Hash(_)))
                .count();
            let failed = tasks
                .iter()
                .filter(|task| matches!(task, Task::Fail { .. }))
                .count();
            (hashed, failed)
        };
        assert_eq!(walk(&[]), (2, 1), "entering `out` meets the loop");
        assert_eq!(walk(&["out/"]), (1, 0));
        assert_eq!(walk(&["/src/out/"]), (1, 0));
        // A file of that name is not a directory.
        assert_eq!(walk(&["a/out/"]), (2, 1));
    }

    #[test]
    fn includes_match_a_file_or_a_directory_above_it() {
        let f = filter(&[], &["*.rs", "docs"]);
        assert!(walked(&f, ".", "./src/main.rs"));
        assert!(walked(&f, ".", "./docs/a/readme.txt"));
        assert!(!walked(&f, ".", "./src/readme.txt"));
        assert!(walked(&filter(&[], &[]), ".", "./anything"));
        let f = filter(&["target"], &["*.rs"]);
        assert!(!walked(&f, ".", "./target/x.rs"));
    }

    #[test]
    fn a_manifest_name_is_filtered_as_the_walk_that_wrote_it() {
        // (pattern, the directory walked, a file met, the name a manifest lists for it)
        for (pattern, root, path, name) in [
            ("cache/**", "src", "src/cache/a/b", "src/cache/a/b"),
            ("/src/cache", "./src", "./src/cache/a", "./src/cache/a"),
            ("*.log", "/var/src", "/var/src/x.log", "/var/src/x.log"),
            ("target", "src", "src/target/debug/x", "src/target/debug/x"),
        ] {
            let f = filter(&[pattern], &[]);
            assert!(!walked(&f, root, path), "{pattern} should leave out {path}");
            assert!(!listed(&f, name), "{pattern} should leave out {name}");
        }
        let f = filter(&["/cache"], &[]);
        assert!(listed(&f, "src/cache/a"));
        assert!(!listed(&f, "cache/a"));
    }

    #[test]
    fn patterns_that_matched_nothing_are_named() {
        let mut f = filter(&["*.log", "nothing-here"], &["*.rs"]);
        f.track_matches();
        assert!(!walked(&f, ".", "./a.log"));
        assert!(walked(&f, ".", "./b.rs"));
        assert_eq!(f.unmatched(), vec![("--exclude", "nothing-here")]);
    }

    #[test]
    fn name_lists_follow_gnu() {
        let dir = std::env::temp_dir().join(format!("fasthash-walk-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let list = dir.join("list");
        std::fs::write(&list, b"a\n\nb c\n-\n").unwrap();
        let names = read_name_list(&Input::Path(list.clone()), false).unwrap();
        assert_eq!(
            names.names,
            vec![b"a".to_vec(), b"b c".to_vec(), b"-".to_vec()]
        );
        assert!(names.empty_entries.is_empty());
        std::fs::write(&list, b"a\0\0b\0\0").unwrap();
        let names = read_name_list(&Input::Path(list.clone()), true).unwrap();
        assert_eq!(names.names, vec![b"a".to_vec(), b"b".to_vec()]);
        assert_eq!(names.empty_entries, vec![2, 4]);
        std::fs::write(&list, b"a\nb\0c\0").unwrap();
        let names = read_name_list(&Input::Path(list), true).unwrap();
        assert_eq!(names.names, vec![b"a\nb".to_vec(), b"c".to_vec()]);
        std::fs::remove_dir_all(dir).unwrap();
    }
}

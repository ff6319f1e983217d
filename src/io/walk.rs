//! Turning what was named into what to hash: files as given, directories walked under `-r`
//! (sorted by name, hidden entries included), `--exclude`/`--include` filters, and the names
//! read by `--files-from`/`--files0-from`.
//!
//! The walk is lazy: the parallel pipeline pulls the next file as a worker frees up, so output
//! starts before a large tree is listed and the list is never held whole. walkdir walks with
//! its own stack, not recursion, and keeps a bounded number of directories open.

use super::{long_paths, Input};
use globset::{Glob, GlobBuilder, GlobSet, GlobSetBuilder};
use std::ffi::OsStr;
use std::io::{self, BufRead};
use std::os::unix::ffi::{OsStrExt, OsStringExt};
use std::path::{Path, PathBuf};

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

/// `--exclude` and `--include` globs. A pattern without `/` matches a file or directory name;
/// a pattern with `/` matches the path below the directory being walked (`*` stops at `/`,
/// `**` crosses it). Excluded directories are not entered. With includes, a file is hashed
/// when it or a directory above it (below the walked directory) matches one.
#[derive(Clone, Debug, Default)]
pub struct Filter {
    exclude_names: Option<GlobSet>,
    exclude_paths: Option<GlobSet>,
    include_names: Option<GlobSet>,
    include_paths: Option<GlobSet>,
}

impl Filter {
    pub fn new(excludes: &[String], includes: &[String]) -> Result<Filter, globset::Error> {
        let (exclude_names, exclude_paths) = build_sets(excludes)?;
        let (include_names, include_paths) = build_sets(includes)?;
        Ok(Filter {
            exclude_names,
            exclude_paths,
            include_names,
            include_paths,
        })
    }

    pub fn is_empty(&self) -> bool {
        self.exclude_names.is_none()
            && self.exclude_paths.is_none()
            && self.include_names.is_none()
            && self.include_paths.is_none()
    }

    fn has_includes(&self) -> bool {
        self.include_names.is_some() || self.include_paths.is_some()
    }

    /// Whether the entry at `relative` (its path below the walked directory) is excluded.
    pub fn excludes(&self, relative: &Path) -> bool {
        matches(&self.exclude_names, &self.exclude_paths, relative)
    }

    /// Whether a file at `relative` passes `--include` (always, without includes).
    pub fn includes_file(&self, relative: &Path) -> bool {
        if !self.has_includes() {
            return true;
        }
        let mut at = Some(relative);
        while let Some(path) = at.filter(|p| !p.as_os_str().is_empty()) {
            if matches(&self.include_names, &self.include_paths, path) {
                return true;
            }
            at = path.parent();
        }
        false
    }

    /// Whether a name listed in a manifest is to be checked: not excluded, neither it nor a
    /// directory above it, and included when there are includes.
    pub fn selects_listed(&self, name: &Path) -> bool {
        let mut at = Some(name);
        while let Some(path) = at.filter(|p| !p.as_os_str().is_empty()) {
            if self.excludes(path) {
                return false;
            }
            at = path.parent();
        }
        self.includes_file(name)
    }
}

fn build_sets(patterns: &[String]) -> Result<(Option<GlobSet>, Option<GlobSet>), globset::Error> {
    let mut names = GlobSetBuilder::new();
    let mut paths = GlobSetBuilder::new();
    let (mut any_name, mut any_path) = (false, false);
    for pattern in patterns {
        if pattern.contains('/') {
            let trimmed = pattern.trim_start_matches("./").trim_start_matches('/');
            paths.add(GlobBuilder::new(trimmed).literal_separator(true).build()?);
            any_path = true;
        } else {
            names.add(Glob::new(pattern)?);
            any_name = true;
        }
    }
    let names = if any_name { Some(names.build()?) } else { None };
    let paths = if any_path { Some(paths.build()?) } else { None };
    Ok((names, paths))
}

fn matches(names: &Option<GlobSet>, paths: &Option<GlobSet>, relative: &Path) -> bool {
    let by_name = names.as_ref().is_some_and(|set| {
        relative
            .file_name()
            .is_some_and(|name| set.is_match(Path::new(name)))
    });
    by_name || paths.as_ref().is_some_and(|set| set.is_match(relative))
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
    let filter = options.filter.clone();
    let root_for_filter = walk_root.clone();
    let walker = walkdir::WalkDir::new(&walk_root)
        .follow_links(options.follow_links)
        .follow_root_links(true)
        .sort_by_file_name()
        .into_iter()
        .filter_entry(move |entry| {
            entry.depth() == 0 || !filter.excludes(relative_to(entry.path(), &root_for_filter))
        });
    let filter = options.filter.clone();
    let follow_links = options.follow_links;
    Box::new(walker.flat_map(move |entry| -> OneOrMany {
        match entry {
            Ok(entry) => {
                let file_type = entry.file_type();
                if file_type.is_dir() || file_type.is_symlink() {
                    // Directories are entered; links met while walking are not followed
                    // without -L (with -L, walkdir reports what they point to).
                    return OneOrMany::One(None);
                }
                let path = entry.into_path();
                if !filter.includes_file(relative_to(&path, &walk_root)) {
                    return OneOrMany::One(None);
                }
                OneOrMany::One(Some(if file_type.is_file() {
                    Task::Hash(Input::Path(path))
                } else {
                    Task::Skip {
                        name: path.into_os_string().into_vec(),
                        reason: "not a regular file; skipped",
                    }
                }))
            }
            Err(error) => {
                let path = error.path().map(Path::to_path_buf);
                let too_long = error.io_error().is_some_and(long_paths::is_too_long);
                if let (Some(path), true) = (&path, too_long) {
                    // Deeper than one system call reaches: walk it a directory at a time.
                    return OneOrMany::Many(
                        long_paths::walk(path, &walk_root, &filter, follow_links).into_iter(),
                    );
                }
                let name = path
                    .map(|p| p.into_os_string().into_vec())
                    .unwrap_or_else(|| walk_root.as_os_str().as_bytes().to_vec());
                let error = if error.loop_ancestor().is_some() {
                    io::Error::other("file system loop detected; not followed")
                } else {
                    error
                        .into_io_error()
                        .unwrap_or_else(|| io::Error::other("cannot walk"))
                };
                OneOrMany::One(Some(Task::Fail { name, error }))
            }
        }
    }))
}

/// What one walkdir entry turns into: usually one task or none; a whole subtree when the
/// entry is a directory too deep for walkdir.
enum OneOrMany {
    One(Option<Task>),
    Many(std::vec::IntoIter<Task>),
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

fn relative_to<'a>(path: &'a Path, root: &Path) -> &'a Path {
    path.strip_prefix(root).unwrap_or(path)
}

/// Names read from `--files-from` (`zero`: `--files0-from`). GNU's rules: names end with a
/// newline (a NUL); an empty name in a NUL-separated list is an error; `-` is read as a file
/// name in the list only when the list is not standard input.
pub fn read_name_list(source: &Input, zero: bool) -> io::Result<Vec<Vec<u8>>> {
    let data = super::read_all(source)?;
    let separator = crate::format::line_end(zero);
    let mut names = Vec::new();
    for (index, name) in io::Cursor::new(&data).split(separator).enumerate() {
        let name = name?;
        if name.is_empty() {
            if zero {
                return Err(io::Error::new(
                    io::ErrorKind::InvalidData,
                    format!("invalid zero-length file name at entry {}", index + 1),
                ));
            }
            continue;
        }
        names.push(name);
    }
    Ok(names)
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

    #[test]
    fn names_and_paths_match_as_documented() {
        let f = filter(&["*.log", "build/*"], &[]);
        assert!(f.excludes(Path::new("a/b/x.log")));
        assert!(f.excludes(Path::new("build/out")));
        assert!(!f.excludes(Path::new("build/deep/out")));
        assert!(!f.excludes(Path::new("src/build")));
        let f = filter(&["build/**"], &[]);
        assert!(f.excludes(Path::new("build/deep/out")));
    }

    #[test]
    fn includes_match_a_file_or_a_directory_above_it() {
        let f = filter(&[], &["*.rs", "docs"]);
        assert!(f.includes_file(Path::new("src/main.rs")));
        assert!(f.includes_file(Path::new("docs/a/readme.txt")));
        assert!(!f.includes_file(Path::new("src/readme.txt")));
        assert!(filter(&[], &[]).includes_file(Path::new("anything")));
    }

    #[test]
    fn listed_names_respect_excluded_directories() {
        let f = filter(&["target"], &[]);
        assert!(!f.selects_listed(Path::new("target/debug/x")));
        assert!(f.selects_listed(Path::new("src/x")));
    }

    #[test]
    fn name_lists_follow_gnu() {
        let dir = std::env::temp_dir().join(format!("fasthash-walk-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let list = dir.join("list");
        std::fs::write(&list, b"a\n\nb c\n-\n").unwrap();
        let names = read_name_list(&Input::Path(list.clone()), false).unwrap();
        assert_eq!(names, vec![b"a".to_vec(), b"b c".to_vec(), b"-".to_vec()]);
        std::fs::write(&list, b"a\0\0b").unwrap();
        assert!(read_name_list(&Input::Path(list.clone()), true).is_err());
        std::fs::write(&list, b"a\nb\0c\0").unwrap();
        let names = read_name_list(&Input::Path(list), true).unwrap();
        assert_eq!(names, vec![b"a\nb".to_vec(), b"c".to_vec()]);
        std::fs::remove_dir_all(dir).unwrap();
    }
}

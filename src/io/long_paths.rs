//! Every opening of a path the user named goes through here, so that a path longer than the
//! system accepts in one call (PATH_MAX, 4,096 bytes on Linux) works everywhere: files to hash,
//! manifests, name lists, S3's JSON, the cache, the audited tree. Such a path is opened one
//! directory at a time with `openat`, only after the ordinary call answered `ENAMETOOLONG`;
//! a directory under `-r` that lies that deep is walked the same way.

use super::walk::{Filter, Met, Task};
use super::Input;
use std::ffi::{CString, OsStr};
use std::fs::{File, Metadata};
use std::io::{self, Read};
use std::os::unix::ffi::OsStrExt;
use std::os::unix::io::{AsFd, AsRawFd, BorrowedFd, FromRawFd, OwnedFd};
use std::path::{Component, Path, PathBuf};

/// Whether an error is the system refusing a path for its length.
pub(crate) fn is_too_long(error: &io::Error) -> bool {
    error.raw_os_error() == Some(libc::ENAMETOOLONG)
}

/// Opens a file for reading: the ordinary way, or component by component when the path is
/// too long for one call; when the process is out of descriptors, once one is free.
pub(crate) fn open_file(path: &Path) -> io::Result<File> {
    super::descriptors::retrying(|| match File::open(path) {
        Err(error) if is_too_long(&error) => open(path, Opening::Read),
        other => other,
    })
}

/// Opens a directory as a place to create, rename and remove files by name: for that, not
/// to be read (`O_PATH`, so write and search permission are all it needs, as for a path).
pub(crate) fn open_directory(path: &Path) -> io::Result<File> {
    use std::os::unix::fs::OpenOptionsExt;
    let ordinary = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_PATH | libc::O_DIRECTORY)
        .open(path);
    match ordinary {
        Err(error) if is_too_long(&error) => open(path, Opening::Place),
        other => other,
    }
}

/// What `stat` says of `path`, links followed, whatever its length. A path too long for one
/// call is opened for its status only (`O_PATH`): a FIFO there does not block.
pub(crate) fn metadata(path: &Path) -> io::Result<Metadata> {
    match std::fs::metadata(path) {
        Err(error) if is_too_long(&error) => open(path, Opening::Status)?.metadata(),
        other => other,
    }
}

/// All of a file's bytes.
pub(crate) fn read(path: &Path) -> io::Result<Vec<u8>> {
    let mut data = Vec::new();
    open_file(path)?.read_to_end(&mut data)?;
    Ok(data)
}

/// Creates (or empties) the file `name` in `directory`, for writing.
pub(crate) fn create_in(directory: &File, name: &OsStr) -> io::Result<File> {
    let flags = libc::O_WRONLY | libc::O_CREAT | libc::O_TRUNC | libc::O_CLOEXEC;
    open_at(Some(directory.as_fd()), name.as_bytes(), flags).map(File::from)
}

/// Renames `from` to `to`, both in `directory`, replacing `to`.
pub(crate) fn rename_in(directory: &File, from: &OsStr, to: &OsStr) -> io::Result<()> {
    let (from, to) = (c_name(from.as_bytes())?, c_name(to.as_bytes())?);
    let fd = directory.as_raw_fd();
    // SAFETY: NUL-terminated names, and a descriptor `directory` keeps open for the call.
    if unsafe { libc::renameat(fd, from.as_ptr(), fd, to.as_ptr()) } != 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

/// Removes the file `name` from `directory`, if it can.
pub(crate) fn remove_in(directory: &File, name: &OsStr) {
    if let Ok(name) = c_name(name.as_bytes()) {
        // SAFETY: a NUL-terminated name, and a descriptor `directory` keeps open for the call.
        unsafe { libc::unlinkat(directory.as_raw_fd(), name.as_ptr(), 0) };
    }
}

/// Writes a directory's entries (a rename in it) to the disk.
pub(crate) fn sync_directory(directory: &File) -> io::Result<()> {
    let flags = Opening::Directory.flags();
    File::from(open_at(Some(directory.as_fd()), b".", flags)?).sync_all()
}

/// What a path is opened for.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Opening {
    Read,
    Directory,
    /// Its status only.
    Status,
    /// A directory, as the place of further `*at` calls only.
    Place,
}

impl Opening {
    fn flags(self) -> libc::c_int {
        match self {
            Opening::Read => libc::O_RDONLY | libc::O_CLOEXEC,
            Opening::Directory => libc::O_RDONLY | libc::O_CLOEXEC | libc::O_DIRECTORY,
            Opening::Status => libc::O_PATH | libc::O_CLOEXEC,
            Opening::Place => libc::O_PATH | libc::O_CLOEXEC | libc::O_DIRECTORY,
        }
    }
}

/// Opens `path` whatever its length, one component at a time: every directory on the way for
/// its status only (search permission is all a path needs of them), the last component as
/// `opening` asks.
fn open(path: &Path, opening: Opening) -> io::Result<File> {
    let start: &[u8] = if path.is_absolute() { b"/" } else { b"." };
    let mut names = Vec::new();
    for component in path.components() {
        names.push(match component {
            Component::RootDir | Component::CurDir => continue,
            Component::ParentDir => b"..".as_slice(),
            Component::Normal(name) => name.as_bytes(),
            Component::Prefix(_) => return Err(io::Error::from_raw_os_error(libc::EINVAL)),
        });
    }
    if names.is_empty() {
        names.push(b".");
    }
    let on_the_way = Opening::Place.flags();
    let mut at = open_at(None, start, on_the_way)?;
    let last = names.len() - 1;
    for (index, name) in names.into_iter().enumerate() {
        let flags = if index == last {
            opening.flags()
        } else {
            on_the_way
        };
        at = open_at(Some(at.as_fd()), name, flags)?;
    }
    Ok(File::from(at))
}

fn c_name(name: &[u8]) -> io::Result<CString> {
    CString::new(name).map_err(|_| io::Error::from_raw_os_error(libc::EINVAL))
}

/// `openat(2)` of `name` in `dir` (the working directory when `None`), with `flags`; files it
/// creates get mode 0666 less the umask, as `File::create` gives them.
fn open_at(dir: Option<BorrowedFd>, name: &[u8], flags: libc::c_int) -> io::Result<OwnedFd> {
    let name = c_name(name)?;
    let base = dir.map_or(libc::AT_FDCWD, |fd| fd.as_raw_fd());
    // SAFETY: a NUL-terminated name and a descriptor borrowed for the call (or AT_FDCWD); the
    // new descriptor is owned by the returned OwnedFd.
    let fd = unsafe { libc::openat(base, name.as_ptr(), flags, 0o666 as libc::c_uint) };
    if fd < 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: `fd` was just opened and is owned by nobody else.
    Ok(unsafe { OwnedFd::from_raw_fd(fd) })
}

/// A directory's identity (device, inode): what tells a directory met again through a link.
type Identity = (u64, u64);

fn identity_of(stat: &libc::stat) -> Identity {
    (stat.st_dev, stat.st_ino)
}

fn identity(metadata: &Metadata) -> Identity {
    use std::os::unix::fs::MetadataExt;
    (metadata.dev(), metadata.ino())
}

/// What a directory entry is, as the walk treats it.
#[derive(Debug)]
enum Kind {
    Directory,
    File,
    /// A link not followed (without `-L`).
    Link,
    Other,
    /// Under `-L`, a link to a directory.
    LinkedDirectory(Identity),
    /// Under `-L`, a link that cannot be followed (broken, or unreadable), or a walk's start
    /// that cannot be looked at: why.
    Broken(io::Error),
}

/// The kind of what `stat` describes; `linked` when it was reached through a link.
fn kind_of(stat: &libc::stat, linked: bool) -> Kind {
    match stat.st_mode & libc::S_IFMT {
        libc::S_IFDIR if linked => Kind::LinkedDirectory(identity_of(stat)),
        libc::S_IFDIR => Kind::Directory,
        libc::S_IFREG => Kind::File,
        libc::S_IFLNK => Kind::Link,
        _ => Kind::Other,
    }
}

/// `fstatat(2)` of `name` in the directory `dir`; through a link when `follow`.
fn stat_at(dir: libc::c_int, name: &std::ffi::CStr, follow: bool) -> io::Result<libc::stat> {
    let flags = if follow { 0 } else { libc::AT_SYMLINK_NOFOLLOW };
    // SAFETY: a NUL-terminated name, a descriptor the caller keeps open, and a stat buffer
    // the call fills before it is read.
    let mut stat: libc::stat = unsafe { std::mem::zeroed() };
    if unsafe { libc::fstatat(dir, name.as_ptr(), &mut stat, flags) } != 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(stat)
}

/// A directory listed for the walk: its identity, and its entries (without `.` and `..`) with
/// their kinds, sorted by name. With `follow_links`, links are resolved to what they point to.
/// Opened from `parent`, the directory it is in, where that is held open (one `openat`), else
/// from the top (one a component); it is held open in turn for its own subdirectories.
fn list(path: &Path, parent: Option<BorrowedFd>, follow_links: bool) -> io::Result<Level> {
    use std::os::unix::io::IntoRawFd;
    let directory = match (parent, path.file_name()) {
        (Some(parent), Some(name)) => File::from(open_at(
            Some(parent),
            name.as_bytes(),
            Opening::Directory.flags(),
        )?),
        _ => open(path, Opening::Directory)?,
    };
    let identity = identity(&directory.metadata()?);
    // Held for the subdirectories; the listing below closes the descriptor it reads.
    let held = directory.try_clone().ok().map(OwnedFd::from);
    let fd = directory.into_raw_fd();
    // SAFETY: fdopendir takes ownership of `fd`; closedir below releases both.
    let stream = unsafe { libc::fdopendir(fd) };
    if stream.is_null() {
        let error = io::Error::last_os_error();
        super::memory::exit_if_exhausted(&error);
        // SAFETY: fdopendir failed, so `fd` is still ours to close.
        unsafe { libc::close(fd) };
        return Err(error);
    }
    let mut entries = Vec::new();
    loop {
        // SAFETY: `stream` is a valid open directory stream until closedir.
        let entry = unsafe { libc::readdir(stream) };
        if entry.is_null() {
            break;
        }
        // SAFETY: readdir returned a valid entry whose d_name is NUL-terminated.
        let (name, d_type) = unsafe {
            (
                std::ffi::CStr::from_ptr((*entry).d_name.as_ptr()),
                (*entry).d_type,
            )
        };
        if name.to_bytes() == b"." || name.to_bytes() == b".." {
            continue;
        }
        let mut kind = match d_type {
            libc::DT_DIR => Kind::Directory,
            libc::DT_REG => Kind::File,
            libc::DT_LNK => Kind::Link,
            libc::DT_UNKNOWN => {
                stat_at(fd, name, false).map_or(Kind::Other, |s| kind_of(&s, false))
            }
            _ => Kind::Other,
        };
        if follow_links && matches!(kind, Kind::Link) {
            kind = match stat_at(fd, name, true) {
                Ok(stat) => kind_of(&stat, true),
                Err(error) => Kind::Broken(error),
            };
        }
        entries.push((name.to_bytes().to_vec(), kind));
    }
    // SAFETY: closes the stream opened above, and with it `fd`.
    unsafe { libc::closedir(stream) };
    entries.sort_by(|a, b| a.0.cmp(&b.0));
    let entries: Vec<_> = entries
        .into_iter()
        .map(|(name, kind)| (path.join(OsStr::from_bytes(&name)), kind))
        .collect();
    Ok(Level {
        entries: entries.into_iter(),
        identity: Some(identity),
        held,
    })
}

/// The identities of the directories from `walk_root` down to `path`'s parent, as a walk that
/// follows links holds them when it meets `path`: one `openat` a level.
fn identities_above(path: &Path, walk_root: &Path) -> Vec<Identity> {
    let Ok(below) = path.strip_prefix(walk_root) else {
        return Vec::new();
    };
    let Ok(mut at) = open_directory(walk_root) else {
        return Vec::new();
    };
    let mut identities = Vec::new();
    let mut names = below.components().peekable();
    while let Some(component) = names.next() {
        let Ok(metadata) = at.metadata() else { break };
        identities.push(identity(&metadata));
        if names.peek().is_none() {
            break;
        }
        let name = component.as_os_str().as_bytes();
        match open_at(Some(at.as_fd()), name, Opening::Place.flags()) {
            Ok(next) => at = File::from(next),
            Err(_) => break,
        }
    }
    identities
}

/// The kind of the path a walk starts from, links followed as `stat` follows them.
fn kind_of_path(path: &Path, follow_links: bool) -> Kind {
    match metadata(path) {
        Ok(found) if found.is_dir() && follow_links => Kind::LinkedDirectory(identity(&found)),
        Ok(found) if found.is_dir() => Kind::Directory,
        Ok(found) if found.is_file() => Kind::File,
        Ok(_) => Kind::Other,
        Err(error) => Kind::Broken(error),
    }
}

/// A directory being walked: its entries still to handle, its identity (none for the start,
/// which is not a listing), and the directory held open while it is among the deepest
/// [`LEVELS_HELD`] levels.
struct Level {
    entries: std::vec::IntoIter<(PathBuf, Kind)>,
    identity: Option<Identity>,
    held: Option<OwnedFd>,
}

/// The deepest levels of a walk whose directories are held open, so that each subdirectory
/// is opened from its parent: from the top, one `openat` a component, a tree 4,000 levels
/// deep took 5.9 million calls and 3.6 s, and one 30,000 deep did not end in two minutes.
/// A few are enough for a walk that goes down (and back up a level or two to a sibling), and
/// few is what the descriptor budget allows beside the readers.
const LEVELS_HELD: usize = 3;

/// Every task under `root` (too deep for the ordinary walk), depth first in name order as
/// walkdir walks, with its rules: `walk_root` is where filters start; with `follow_links`
/// (`-L`), links are followed, a broken one is reported, and a link to a directory the walk
/// is already in is reported as a loop, not entered.
pub(crate) fn walk(
    root: &Path,
    walk_root: &Path,
    filter: &Filter,
    follow_links: bool,
) -> Vec<Task> {
    let above = if follow_links {
        identities_above(root, walk_root)
    } else {
        Vec::new()
    };
    let mut tasks = Vec::new();
    let start = (root.to_path_buf(), kind_of_path(root, follow_links));
    let mut stack = vec![Level {
        entries: vec![start].into_iter(),
        identity: None,
        held: None,
    }];
    while let Some(level) = stack.last_mut() {
        let Some((path, kind)) = level.entries.next() else {
            stack.pop();
            continue;
        };
        let name = || path.as_os_str().as_bytes().to_vec();
        // As walkdir, links are followed and checked before the filters see them.
        let kind = match kind {
            Kind::Broken(error) => {
                tasks.push(Task::Fail {
                    name: name(),
                    error,
                });
                continue;
            }
            Kind::LinkedDirectory(identity)
                if above.contains(&identity)
                    || stack.iter().any(|level| level.identity == Some(identity)) =>
            {
                tasks.push(Task::Fail {
                    name: name(),
                    error: io::Error::other("file system loop detected; not followed"),
                });
                continue;
            }
            kind => kind,
        };
        // Files, and what is reported skipped, are what the walk lists and `--include` decides.
        let met = match kind {
            Kind::File | Kind::Other => Met::Listed,
            Kind::Directory | Kind::LinkedDirectory(_) => Met::Directory,
            Kind::Link | Kind::Broken(_) => Met::PassedLink,
        };
        let kept = if path == walk_root {
            // The walk's own root is never filtered out by `--exclude`.
            met != Met::Listed
                || filter.includes(&super::walk::walked_filter_path(walk_root, &path))
        } else {
            filter.keeps_walked(walk_root, &path, met)
        };
        if !kept {
            continue;
        }
        match kind {
            Kind::Directory | Kind::LinkedDirectory(_) => {
                let parent = stack.last().and_then(|level| level.held.as_ref());
                match list(&path, parent.map(|held| held.as_fd()), follow_links) {
                    Ok(level) => {
                        stack.push(level);
                        if let Some(shallower) = stack.len().checked_sub(LEVELS_HELD + 1) {
                            stack[shallower].held = None;
                        }
                    }
                    Err(error) => tasks.push(Task::Fail {
                        name: name(),
                        error,
                    }),
                }
            }
            Kind::Link | Kind::Broken(_) => {}
            Kind::File => tasks.push(Task::Hash(Input::Path(path))),
            Kind::Other => tasks.push(Task::Skip {
                name: name(),
                reason: "not a regular file; skipped",
            }),
        }
    }
    tasks
}

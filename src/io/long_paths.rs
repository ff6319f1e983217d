//! Paths longer than the system accepts in one call (PATH_MAX, 4,096 bytes on Linux): opened
//! one directory at a time with `openat`, and walked the same way when a directory under `-r`
//! lies that deep. Only used after the ordinary call answered `ENAMETOOLONG`.

use super::walk::{Filter, Task};
use super::Input;
use std::ffi::CString;
use std::fs::File;
use std::io;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::io::{FromRawFd, OwnedFd};
use std::path::{Component, Path, PathBuf};

/// Whether an error is the system refusing a path for its length.
pub fn is_too_long(error: &io::Error) -> bool {
    error.raw_os_error() == Some(libc::ENAMETOOLONG)
}

/// Opens a file for reading: the ordinary way, or component by component when the path is
/// too long for one call.
pub fn open_file(path: &Path) -> io::Result<File> {
    match File::open(path) {
        Err(error) if is_too_long(&error) => open(path, false),
        other => other,
    }
}

/// Opens `path` for reading whatever its length, one component at a time. `directory` asks
/// for a directory.
pub fn open(path: &Path, directory: bool) -> io::Result<File> {
    let start: &[u8] = if path.is_absolute() { b"/" } else { b"." };
    let mut at = open_at(None, start, true)?;
    let mut components = path.components().peekable();
    while let Some(component) = components.next() {
        let name: &[u8] = match component {
            Component::RootDir | Component::CurDir => continue,
            Component::ParentDir => b"..",
            Component::Normal(name) => name.as_bytes(),
            Component::Prefix(_) => return Err(io::Error::from_raw_os_error(libc::EINVAL)),
        };
        let last = components.peek().is_none();
        at = open_at(Some(&at), name, !last || directory)?;
    }
    Ok(File::from(at))
}

fn open_at(dir: Option<&OwnedFd>, name: &[u8], directory: bool) -> io::Result<OwnedFd> {
    use std::os::unix::io::AsRawFd;
    let name = CString::new(name).map_err(|_| io::Error::from_raw_os_error(libc::EINVAL))?;
    let flags = libc::O_RDONLY | libc::O_CLOEXEC | if directory { libc::O_DIRECTORY } else { 0 };
    let base = dir.map(|fd| fd.as_raw_fd()).unwrap_or(libc::AT_FDCWD);
    // SAFETY: a NUL-terminated name and a descriptor we own (or AT_FDCWD); the new descriptor
    // is owned by the returned OwnedFd.
    let fd = unsafe { libc::openat(base, name.as_ptr(), flags) };
    if fd < 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: `fd` was just opened and is owned by nobody else.
    Ok(unsafe { OwnedFd::from_raw_fd(fd) })
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Directory,
    File,
    Link,
    Other,
}

fn kind_of_mode(mode: libc::mode_t) -> Kind {
    match mode & libc::S_IFMT {
        libc::S_IFDIR => Kind::Directory,
        libc::S_IFREG => Kind::File,
        libc::S_IFLNK => Kind::Link,
        _ => Kind::Other,
    }
}

/// The names in a directory (without `.` and `..`) with their kinds, sorted by name.
fn list(path: &Path) -> io::Result<Vec<(Vec<u8>, Kind)>> {
    use std::os::unix::io::IntoRawFd;
    let fd = open(path, true)?.into_raw_fd();
    // SAFETY: fdopendir takes ownership of `fd`; closedir below releases both.
    let stream = unsafe { libc::fdopendir(fd) };
    if stream.is_null() {
        let error = io::Error::last_os_error();
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
        let kind = match d_type {
            libc::DT_DIR => Kind::Directory,
            libc::DT_REG => Kind::File,
            libc::DT_LNK => Kind::Link,
            libc::DT_UNKNOWN => {
                // SAFETY: fstatat on the stream's own descriptor and a NUL-terminated name.
                let mut stat: libc::stat = unsafe { std::mem::zeroed() };
                let found = unsafe {
                    libc::fstatat(
                        libc::dirfd(stream),
                        name.as_ptr(),
                        &mut stat,
                        libc::AT_SYMLINK_NOFOLLOW,
                    )
                };
                if found == 0 {
                    kind_of_mode(stat.st_mode)
                } else {
                    Kind::Other
                }
            }
            _ => Kind::Other,
        };
        entries.push((name.to_bytes().to_vec(), kind));
    }
    // SAFETY: closes the stream opened above, and with it `fd`.
    unsafe { libc::closedir(stream) };
    entries.sort_by(|a, b| a.0.cmp(&b.0));
    Ok(entries)
}

/// Every task under `root` (a directory too deep for the ordinary walk), depth first in name
/// order as walkdir walks; links are not followed here. `walk_root` is where filters start.
pub fn walk(root: &Path, walk_root: &Path, filter: &Filter) -> Vec<Task> {
    let mut tasks = Vec::new();
    // Directories still to list, last one next; each is listed whole, then its entries are
    // handled in order, subdirectories expanded in place.
    let mut pending: Vec<PathBuf> = vec![root.to_path_buf()];
    let mut stack: Vec<std::vec::IntoIter<(PathBuf, Kind)>> = Vec::new();
    while let Some(dir) = pending.pop() {
        match list(&dir) {
            Ok(entries) => {
                let entries: Vec<_> = entries
                    .into_iter()
                    .map(|(name, kind)| (dir.join(std::ffi::OsStr::from_bytes(&name)), kind))
                    .collect();
                stack.push(entries.into_iter());
            }
            Err(error) => tasks.push(Task::Fail {
                name: dir.as_os_str().as_bytes().to_vec(),
                error,
            }),
        }
        while let Some(level) = stack.last_mut() {
            let Some((path, kind)) = level.next() else {
                stack.pop();
                continue;
            };
            let relative = path.strip_prefix(walk_root).unwrap_or(&path);
            if filter.excludes(relative) {
                continue;
            }
            if kind == Kind::Directory {
                pending.push(path);
                break;
            }
            if kind == Kind::Link || !filter.includes_file(relative) {
                continue;
            }
            if kind == Kind::File {
                tasks.push(Task::Hash(Input::Path(path)));
            } else {
                tasks.push(Task::Skip {
                    name: path.as_os_str().as_bytes().to_vec(),
                    reason: "not a regular file; skipped",
                });
            }
        }
    }
    tasks
}

//! The file-descriptor budget: how many files the open stage may hold open at once, so that a
//! run never fails a file for want of a descriptor, whatever `-j`, `--readers` and
//! `ulimit -n` say.
//!
//! - At start the soft `RLIMIT_NOFILE` is raised to the hard limit, as Go's runtime does
//!   (the soft limit is often 1,024 where the hard one is far higher).
//! - What is left once the descriptors already open and a reserve are set aside is the
//!   budget: the open stage takes a batch's descriptors from it, all at once or not at all
//!   (so two readers each holding part of what they need can never wait on each other), and
//!   gives each back as its file closes. The reserve is for what opens outside the budget: the
//!   walk's directories (walkdir keeps up to [`WALK_DIRECTORIES`] open), manifests, and the
//!   few files the hashing threads open themselves.
//! - Should an open still fail with `EMFILE` or `ENFILE` (another program, or the whole
//!   system, out of descriptors), it waits for one of ours to close and tries again, instead of
//!   reporting a readable file as unreadable. It waits only while some of ours will close:
//!   those of batches already opened (being hashed), not those of batches still opening, which
//!   may be waiting the same way, nor those opened beside the budget, which it cannot see
//!   close: while other opens succeed, the run goes on and it waits. Where nothing moves for a
//!   while, it gives up (coreutils gives up at once), and later opens give up at once until
//!   one succeeds.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Condvar, Mutex, OnceLock};
use std::time::{Duration, Instant};

/// Directories the walk holds open at once (walkdir's default `max_open`).
pub(crate) const WALK_DIRECTORIES: usize = 10;

/// Set aside beside the walk's: manifests, name lists, standard streams reopened, the files
/// hashing threads open themselves (a check line tried again under another algorithm).
const RESERVE_BESIDE_WALK: usize = 12;

/// More than this is never needed: the open stage holds at most a few batches per reader.
const MOST: usize = 4096;

/// How long an open that found no descriptor free waits for one when none of ours is held
/// (so none will be released): long enough for another program's burst to pass.
const PATIENCE_WITHOUT_HOLDERS: Duration = Duration::from_secs(2);

struct Budget {
    total: usize,
    /// Descriptors of the budget free now, and those held by batches still opening.
    counts: Mutex<Counts>,
    /// Signalled when a descriptor of the budget is given back and someone waits.
    released: Condvar,
    /// Threads waiting on `released`: nobody is woken (a system call) when none is.
    waiting: AtomicUsize,
    /// Opens through [`retrying`] that succeeded: while they do, the run goes on, and those
    /// files (outside the budget: the walk's directories, files the hashing threads open
    /// themselves) will close.
    succeeded: AtomicUsize,
    /// `succeeded` when an open last gave up waiting where none of ours would close
    /// (`usize::MAX`: none has): while it still equals `succeeded`, none has succeeded since.
    gave_up_at: AtomicUsize,
}

/// The budget's counts, changed together under one lock.
struct Counts {
    /// Descriptors of the budget free now.
    free: usize,
    /// Descriptors held by batches still opening their files: a batch takes them before its
    /// opens, so they are not all open files, and none closes before the batch has opened
    /// the rest.
    opening: usize,
}

static BUDGET: OnceLock<Budget> = OnceLock::new();

fn budget() -> &'static Budget {
    BUDGET.get_or_init(|| {
        let limit = raise_soft_limit();
        let total = limit
            .saturating_sub(open_now() + WALK_DIRECTORIES + RESERVE_BESIDE_WALK)
            .clamp(1, MOST);
        Budget {
            total,
            counts: Mutex::new(Counts {
                free: total,
                opening: 0,
            }),
            released: Condvar::new(),
            waiting: AtomicUsize::new(0),
            succeeded: AtomicUsize::new(0),
            gave_up_at: AtomicUsize::new(usize::MAX),
        }
    })
}

/// Raises the soft descriptor limit to the hard one and sizes the budget; called once at the
/// start of every run that reads files (later calls do nothing).
pub(crate) fn prepare() {
    budget();
}

/// How many descriptors the open stage may hold at once.
pub(crate) fn total() -> usize {
    budget().total
}

/// Inputs a batch holds at least, where the engine asks for fewer: the open stage and the
/// hashing pool then trade jobs of many small files, not one (a job a 4 KiB file kept the
/// pool's idle threads waking, spinning and sleeping on every file).
const BATCH_AT_LEAST: usize = 16;

/// How many inputs one batch holds: what the engine asks for (at least [`BATCH_AT_LEAST`]),
/// but no more than a quarter of the budget, since a batch takes its descriptors all at once
/// and several readers must be able to hold a batch each.
pub(crate) fn batch_size(wanted: usize) -> usize {
    wanted.max(BATCH_AT_LEAST).min(total() / 4).max(1)
}

/// Descriptors taken from the budget, given back one by one as files close ([`Permit`]) or
/// all at once when dropped.
#[derive(Debug)]
pub(crate) struct Permits {
    count: usize,
    /// Whether the batch holding them is still opening its files ([`Permits::opened`]).
    opening: bool,
}

impl Permits {
    /// Takes `count` descriptors (at most the whole budget), waiting until that many are free
    /// together.
    pub(crate) fn take(count: usize) -> Permits {
        let budget = budget();
        let count = count.min(budget.total);
        let mut counts = lock(&budget.counts);
        while counts.free < count {
            budget.waiting.fetch_add(1, Ordering::SeqCst);
            counts = budget
                .released
                .wait(counts)
                .unwrap_or_else(|poisoned| poisoned.into_inner());
            budget.waiting.fetch_sub(1, Ordering::SeqCst);
        }
        counts.free -= count;
        counts.opening += count;
        Permits {
            count,
            opening: true,
        }
    }

    /// The batch holding these has opened its files: they close as it is hashed, so an open
    /// that finds no descriptor free may wait for them.
    pub(crate) fn opened(&mut self) {
        if std::mem::take(&mut self.opening) {
            lock(&budget().counts).opening -= self.count;
        }
    }

    /// One descriptor of these, to travel with the file that uses it; None when all are
    /// spoken for (the file then opens beside the budget, in its reserve).
    pub(crate) fn one(&mut self) -> Option<Permit> {
        (self.count > 0).then(|| {
            self.count -= 1;
            Permit(())
        })
    }
}

impl Drop for Permits {
    fn drop(&mut self) {
        self.opened();
        give_back(self.count);
    }
}

/// One descriptor of the budget, held by one open file; given back when dropped.
#[derive(Debug)]
pub(crate) struct Permit(());

impl Drop for Permit {
    fn drop(&mut self) {
        give_back(1);
    }
}

fn give_back(count: usize) {
    if count == 0 {
        return;
    }
    let budget = budget();
    lock(&budget.counts).free += count;
    if budget.waiting.load(Ordering::SeqCst) > 0 {
        budget.released.notify_all();
    }
}

fn lock(counts: &Mutex<Counts>) -> std::sync::MutexGuard<'_, Counts> {
    counts
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// Whether an error is the process or the system out of descriptors.
pub(crate) fn is_exhaustion(error: &std::io::Error) -> bool {
    matches!(error.raw_os_error(), Some(libc::EMFILE | libc::ENFILE))
}

/// Runs `open` until it gets a descriptor: on `EMFILE`/`ENFILE` it waits for one of ours to
/// be released and tries again, for as long as some will be (held by batches already opened),
/// or for a while when none will. Once such a wait has given up, later opens that find none
/// give up at once, until one succeeds: a process left no descriptor at all (a manifest
/// holding the last under `ulimit -n 4`) reports each file as coreutils does, not after a
/// wait each.
pub(crate) fn retrying<T>(mut open: impl FnMut() -> std::io::Result<T>) -> std::io::Result<T> {
    // Since when this open has waited without any other succeeding, and how many had then.
    let mut idle_since: Option<(Instant, usize)> = None;
    loop {
        match open() {
            Err(error) if is_exhaustion(&error) => {
                let budget = budget();
                let counts = lock(&budget.counts);
                // Held by batches already opened, which close them as they are hashed.
                let closing_later = budget.total - counts.free > counts.opening;
                let succeeded = budget.succeeded.load(Ordering::Relaxed);
                let since = match idle_since {
                    Some((since, then)) if then == succeeded => since,
                    _ => idle_since.insert((Instant::now(), succeeded)).0,
                };
                let gave_up_before = budget.gave_up_at.load(Ordering::Relaxed) == succeeded;
                if gives_up(closing_later, gave_up_before, since.elapsed()) {
                    budget.gave_up_at.store(succeeded, Ordering::Relaxed);
                    return Err(error);
                }
                // A timeout, not only the signal: a descriptor closed outside the budget (by
                // another thread's own open, or another program) signals nothing.
                budget.waiting.fetch_add(1, Ordering::SeqCst);
                let _ = budget
                    .released
                    .wait_timeout(counts, Duration::from_millis(5));
                budget.waiting.fetch_sub(1, Ordering::SeqCst);
            }
            result => {
                if result.is_ok() {
                    // Relaxed: a count to see move, ordering nothing. It also ends a give-up.
                    budget().succeeded.fetch_add(1, Ordering::Relaxed);
                }
                return result;
            }
        }
    }
}

/// [`retrying`]'s rule, from what it knows when an open found no descriptor: whether some of
/// ours will close (`closing_later`), whether an open gave up since the last that succeeded,
/// and how long this one has `waited` while no other open succeeded.
fn gives_up(closing_later: bool, gave_up_before: bool, waited: Duration) -> bool {
    !closing_later && (gave_up_before || waited > PATIENCE_WITHOUT_HOLDERS)
}

/// A limit the process runs under, as `ulimit` sets it.
#[derive(Clone, Copy)]
pub(crate) enum Resource {
    /// `RLIMIT_NOFILE` (`ulimit -n`): descriptors open at once.
    Descriptors,
    /// `RLIMIT_AS` (`ulimit -v`): bytes of address space.
    AddressSpace,
    /// `RLIMIT_NPROC` (`ulimit -u`): processes and threads of this user.
    Processes,
    /// `RLIMIT_STACK` (`ulimit -s`): bytes of the main thread's stack.
    Stack,
}

/// The soft and hard limits on `resource`; None when the process cannot tell. Every limit
/// fasthash heeds is read here.
pub(crate) fn resource_limit(resource: Resource) -> Option<libc::rlimit> {
    let resource = match resource {
        Resource::Descriptors => libc::RLIMIT_NOFILE,
        Resource::AddressSpace => libc::RLIMIT_AS,
        Resource::Processes => libc::RLIMIT_NPROC,
        Resource::Stack => libc::RLIMIT_STACK,
    };
    let mut limit = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: getrlimit writes the struct we own.
    (unsafe { libc::getrlimit(resource, &mut limit) } == 0).then_some(limit)
}

/// Raises the soft `RLIMIT_NOFILE` to the hard limit; returns the soft limit in force.
fn raise_soft_limit() -> usize {
    let Some(mut limit) = resource_limit(Resource::Descriptors) else {
        return 256;
    };
    if limit.rlim_cur < limit.rlim_max {
        let raised = libc::rlimit {
            rlim_cur: limit.rlim_max,
            rlim_max: limit.rlim_max,
        };
        // SAFETY: setrlimit reads the struct we own. Raising the soft limit up to the hard
        // one needs no privilege; where it fails anyway, the old limit stays.
        if unsafe { libc::setrlimit(libc::RLIMIT_NOFILE, &raised) } == 0 {
            limit = raised;
        }
    }
    usize::try_from(limit.rlim_cur).unwrap_or(usize::MAX)
}

/// Descriptors open now (standard streams, anything inherited): the budget leaves them be.
fn open_now() -> usize {
    std::fs::read_dir("/proc/self/fd")
        // The directory being listed is itself one of them.
        .map(|entries| entries.count().saturating_sub(1))
        .unwrap_or(16)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_batch_is_a_quarter_of_the_budget_at_most_and_one_at_least() {
        assert!(batch_size(usize::MAX) <= total().max(4) / 4);
        let least = BATCH_AT_LEAST.min(total() / 4).max(1);
        assert_eq!(batch_size(1), least);
        assert_eq!(batch_size(0), least);
    }

    #[test]
    fn exhaustion_is_emfile_or_enfile_only() {
        assert!(is_exhaustion(&std::io::Error::from_raw_os_error(
            libc::EMFILE
        )));
        assert!(is_exhaustion(&std::io::Error::from_raw_os_error(
            libc::ENFILE
        )));
        assert!(!is_exhaustion(&std::io::Error::from_raw_os_error(
            libc::ENOENT
        )));
    }

    #[test]
    fn an_open_gives_up_only_where_none_of_ours_will_close() {
        let long = PATIENCE_WITHOUT_HOLDERS * 2;
        // Descriptors of batches being hashed will close: wait, however long.
        assert!(!gives_up(true, false, long));
        assert!(!gives_up(true, true, long));
        // None will: a while, then not at all once an open has given up.
        assert!(!gives_up(false, false, Duration::ZERO));
        assert!(gives_up(false, false, long));
        assert!(gives_up(false, true, Duration::ZERO));
    }

    #[test]
    fn an_open_that_runs_out_of_descriptors_is_tried_again() {
        let mut tries = 0;
        let result = retrying(|| {
            tries += 1;
            if tries < 3 {
                Err(std::io::Error::from_raw_os_error(libc::EMFILE))
            } else {
                Ok(tries)
            }
        });
        assert_eq!(result.unwrap(), 3);
        let other = retrying(|| -> std::io::Result<()> {
            Err(std::io::Error::from_raw_os_error(libc::EACCES))
        });
        assert_eq!(other.unwrap_err().raw_os_error(), Some(libc::EACCES));
    }
}

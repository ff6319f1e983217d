//! The pipeline every run that reads files goes through: readers open and read ahead, a
//! pool of hashing threads hashes, and the results are delivered in input order.
//!
//! Readers (`--readers`, up to 32 by default, started one more at a time while the hashing
//! threads have nothing waiting for them, and past four a core only while reads wait for the
//! device) take the next item from a (possibly lazy) iterator, so
//! a directory walk feeds them as it goes, and do its reading ([`super::open`]): on a cold disk
//! or a network file system each waits on the device while the others' requests are in
//! flight. They hand the item to rayon's pool (`-j`, one thread per core), which hashes;
//! results that finish early wait in a map until their turn comes, so output is the same
//! whatever the thread counts, and starts as soon as the first input is done. The pool has
//! exactly the requested size, so `-j 1` also keeps a single file's CRC or BLAKE3 on one
//! thread; at most as many items as readers started, plus 2 × the pool's threads, are between
//! being taken and being hashed.

use super::descriptors::{resource_limit, Resource};
use super::Input;
use std::collections::BTreeMap;
use std::ops::ControlFlow;
use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Condvar, Mutex, OnceLock};

/// Whether a list of inputs must be read in order on one thread: standard input can be read
/// only once, so a list naming it twice runs sequentially, as coreutils reads it.
pub fn must_run_in_order<'a>(inputs: impl IntoIterator<Item = &'a Input>) -> bool {
    inputs.into_iter().filter(|i| **i == Input::Stdin).count() > 1
}

/// The two kinds of thread a run has: readers, each opening and reading (or asking the device
/// for) the next item's files, and the hashing pool (rayon's, `-j`). Reads in flight are then
/// as many as readers, whatever `-j` says: a cold disk or a network file system is kept busy
/// while hashing stays one thread per core.
#[derive(Clone, Copy, Debug)]
pub struct Stages {
    /// Hashing threads (`-j`).
    pub threads: usize,
    /// Items read ahead at once (`--readers`).
    pub readers: usize,
}

/// Runs `read` on every item on the readers, then `work` on the item and what `read` gave on
/// the hashing pool (sized by [`configure_threads`]), and calls `deliver` with each item and
/// its result in item order. `deliver` returning `Break` stops the remaining work early. With
/// one reader and one hashing thread, all of it runs on the caller's thread, item after item.
pub fn for_each_ordered<I, P, T, R, W, D>(
    items: impl Iterator<Item = I> + Send,
    stages: Stages,
    read: R,
    work: W,
    mut deliver: D,
) where
    I: Send,
    P: Send,
    T: Send,
    R: Fn(&I) -> P + Sync,
    W: Fn(&I, P) -> T + Sync,
    D: FnMut(usize, I, T) -> ControlFlow<()> + Send,
{
    if stages.threads <= 1 && stages.readers <= 1 || pool_is_the_work_alone() {
        for (index, item) in items.enumerate() {
            let result = work(&item, read(&item));
            if deliver(index, item, result).is_break() {
                return;
            }
        }
        return;
    }
    // Readers that do not fit in a limited address space run as one, on this thread.
    let fitting = readers_that_fit(stages.readers.max(1));
    // The pool as it is, which `-j` sized unless the caller installed a pool of its own.
    let hashers = rayon::current_num_threads();
    let pipeline = Pipeline {
        source: Mutex::new(items.enumerate()),
        readers: fitting.max(1),
        started: AtomicUsize::new(1),
        cores: default_threads(),
        device_waited: AtomicBool::new(false),
        hashers,
        waiting: AtomicUsize::new(0),
        hashing: AtomicUsize::new(0),
        // A slot more for each reader as it starts.
        ahead: Slots::new(2 * hashers),
        read,
        work,
        cancelled: AtomicBool::new(false),
        // No writer thread: whichever hashing thread finishes the next item in order delivers
        // it, and every ready item after it, under one lock. A separate writer woke up once
        // per file, and on 20,000 small files those wake-ups cost more than the hashing.
        reorder: Mutex::new(Reorder {
            pending: BTreeMap::new(),
            next: 0,
            deliver,
        }),
    };
    rayon::in_place_scope_fifo(|hashing| {
        std::thread::scope(|threads| {
            if fitting == 0 || !pipeline.spawn_reader(threads, hashing) {
                // No thread to be had (a limit on threads, or on address space): read here.
                pipeline.started.store(pipeline.readers, Ordering::Relaxed);
                pipeline.ahead.add_one();
                pipeline.reader(threads, hashing);
            }
        });
    });
}

/// Readers a core started whatever the reads: a reader that the page cache serves still waits
/// at times, on the walk's lock and in its system calls. 20,000 files of 4 KiB in the page cache
/// (XXH3, Intel Xeon, 2 cores, 20 runs): 75.7 ms with 2 readers, 68.1 with 4, 65.3 with 8,
/// 66.1 with 32; 2,000 files of 256 KiB took the same with 2, 4 or 8 (42.6 to 43.9 ms).
const READERS_A_CORE: usize = 4;

/// A reader's stack: it walks, opens and reads, nothing deep. Small, so that many fit where
/// the address space is limited (`ulimit -v`), as coreutils' tests run these programs.
const READER_STACK: usize = 256 * 1024;

/// What one reader may cost in address space: its stack, and a batch of small files read
/// whole (16 of up to 64 KiB) held by it and waiting for the hashing threads.
const READER_COST: usize = READER_STACK + 2 * 1024 * 1024;

/// How many of `wanted` readers fit: all, unless the address space is limited (`ulimit -v`),
/// where readers may take a quarter of what is left, the rest being the hashing threads' and
/// the allocator's. Zero when not even one fits: the caller reads on its own thread.
fn readers_that_fit(wanted: usize) -> usize {
    address_space_left().map_or(wanted, |left| wanted.min(left / 4 / READER_COST))
}

/// What a hashing thread may cost in address space: its stack (rayon's, 2 MiB) and room for
/// the buffers it reads into.
const HASHING_THREAD_COST: usize = 4 * 1024 * 1024;

/// How many of `wanted` hashing threads fit: all, unless the address space is limited, where
/// they may take half of what is left; one at least.
fn hashing_threads_that_fit(wanted: usize, address_space_left: Option<usize>) -> usize {
    address_space_left.map_or(wanted, |left| {
        wanted.min(left / 2 / HASHING_THREAD_COST).max(1)
    })
}

/// The address space left to this process under `ulimit -v` (`RLIMIT_AS`), in bytes; None
/// when it is not limited, or the process cannot tell.
fn address_space_left() -> Option<usize> {
    let limit = resource_limit(Resource::AddressSpace)?;
    if limit.rlim_cur == libc::RLIM_INFINITY {
        return None;
    }
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|line| line.starts_with("VmSize:"))?;
    let used_kib: usize = line.split_whitespace().nth(1)?.parse().ok()?;
    let limit = usize::try_from(limit.rlim_cur).unwrap_or(usize::MAX);
    Some(limit.saturating_sub(used_kib * 1024))
}

/// What the readers and the hashing jobs of one run share.
struct Pipeline<S, R, W, Rd> {
    /// The items, numbered; the walk behind them runs under this lock.
    source: Mutex<S>,
    readers: usize,
    /// Readers started so far: a reader starts the next as it takes an item while the pool
    /// has nothing waiting ([`Pipeline::hashing_starved`]), so a run of one file starts two
    /// threads, not `readers`, and nor does one the hashing threads cannot keep up with.
    started: AtomicUsize,
    /// The cores: up to four readers a core are started whatever the reads, and more only for
    /// reads in flight.
    cores: usize,
    /// Whether the latest batch read had to wait for the device.
    device_waited: AtomicBool,
    /// The pool's threads.
    hashers: usize,
    /// Items handed to the pool and not yet begun.
    waiting: AtomicUsize,
    /// Items being hashed.
    hashing: AtomicUsize,
    /// Items taken and not yet hashed: bounds the files held open and the bytes held read.
    /// One a reader started, plus two a hashing thread, so that what is read is hashed while
    /// still in the cache: 2,000 files of 256 KiB in the page cache (XXH3, Intel Xeon, 2
    /// cores) took 51.2 and 48.6 ms (±5.0) with as many slots as `--readers` asks for (36),
    /// against 43.1 and 43.2 (±1.5 to 2.0) this way, and 40.1 and 41.0 for two `xxhsum`
    /// processes (hyperfine, two runs of 20).
    ahead: Slots,
    read: R,
    work: W,
    cancelled: AtomicBool,
    reorder: Mutex<Rd>,
}

impl<I, P, T, S, R, W, D> Pipeline<S, R, W, Reorder<I, T, D>>
where
    I: Send,
    P: Send,
    T: Send,
    S: Iterator<Item = (usize, I)> + Send,
    R: Fn(&I) -> P + Sync,
    W: Fn(&I, P) -> T + Sync,
    D: FnMut(usize, I, T) -> ControlFlow<()> + Send,
{
    /// One reader: takes the next item, reads it, and hands it to the hashing pool, until the
    /// items run out or delivery stops.
    fn reader<'scope, 'env, 'run>(
        &'run self,
        threads: &'scope std::thread::Scope<'scope, 'env>,
        hashing: &'env rayon::ScopeFifo<'run>,
    ) where
        'run: 'env,
        I: 'run,
        P: 'run,
    {
        loop {
            self.ahead.take();
            let next = if self.cancelled.load(Ordering::Relaxed) {
                None
            } else {
                lock(&self.source).next()
            };
            let Some((index, item)) = next else {
                self.ahead.give_back();
                return;
            };
            let read = (self.read)(&item);
            self.device_waited
                .store(super::open::batch_waited_for_device(), Ordering::Relaxed);
            // Asked once the read is done, before the item is handed on: whether the hashing
            // threads were left waiting for it, and whether it waited for the device.
            if self.hashing_starved()
                && self.claim_one_more_reader()
                && !self.spawn_reader(threads, hashing)
            {
                // The readers there are carry on; start no more.
                self.started.store(self.readers, Ordering::Relaxed);
            }
            self.waiting.fetch_add(1, Ordering::Relaxed);
            hashing.spawn_fifo(move |_| {
                self.hashing.fetch_add(1, Ordering::Relaxed);
                self.waiting.fetch_sub(1, Ordering::Relaxed);
                self.hash(index, item, read);
                self.hashing.fetch_sub(1, Ordering::Relaxed);
            });
        }
    }

    /// Whether a hashing thread has nothing to do: the readers are what the run waits on (a
    /// cold disk, a slow file system), and one more would help. In the page cache they stay
    /// ahead: 2,000 files of 256 KiB (XXH3, 2 cores) start 6 readers where they started all
    /// 32, and the run took 135 ms of CPU against 160, with 143 context switches against 309.
    fn hashing_starved(&self) -> bool {
        hashing_starved(
            self.waiting.load(Ordering::Relaxed),
            self.hashing.load(Ordering::Relaxed),
            self.hashers,
        )
    }

    /// Counts one reader more if it would add to the work done at once: [`READERS_A_CORE`] a
    /// core, whatever the reads, and more only while the reads wait for the device, where each
    /// reader more is a request more in flight. Reads the page cache serves are work of the
    /// CPU, which readers past the cores only share; and each reader started is an item more
    /// held read ahead ([`Pipeline::ahead`]). Where hashing is nearly free (XXH3, Intel Xeon,
    /// 2 cores) the hashing threads always wait, and 2,000 files of 256 KiB in the page cache
    /// started up to 32 readers. The count is checked and raised in one step: two readers
    /// that both saw room for one more started two.
    fn claim_one_more_reader(&self) -> bool {
        let most = if self.device_waited.load(Ordering::Relaxed) {
            self.readers
        } else {
            self.readers.min(READERS_A_CORE * self.cores)
        };
        self.started
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |started| {
                (started < most).then_some(started + 1)
            })
            .is_ok()
    }

    /// Starts one more reader; false when the system gives no thread.
    fn spawn_reader<'scope, 'env, 'run>(
        &'run self,
        threads: &'scope std::thread::Scope<'scope, 'env>,
        hashing: &'env rayon::ScopeFifo<'run>,
    ) -> bool
    where
        'run: 'env,
        I: 'run,
        P: 'run,
    {
        let started = std::thread::Builder::new()
            .name("reader".into())
            .stack_size(READER_STACK)
            .spawn_scoped(threads, move || self.reader(threads, hashing))
            .is_ok();
        if started {
            self.ahead.add_one();
        }
        started
    }

    /// One item hashed on the pool, then delivered with every ready item after it.
    fn hash(&self, index: usize, item: I, read: P) {
        if self.cancelled.load(Ordering::Relaxed) {
            self.ahead.give_back();
            return;
        }
        let result = (self.work)(&item, read);
        self.ahead.give_back();
        let mut reorder = lock(&self.reorder);
        if self.cancelled.load(Ordering::Relaxed) {
            return;
        }
        reorder.pending.insert(index, (item, result));
        reorder.deliver_ready(&self.cancelled);
    }
}

/// [`Pipeline::hashing_starved`] from its counts: nothing `waiting` for the pool, and fewer
/// items `hashing` than it has threads (`hashers`).
fn hashing_starved(waiting: usize, hashing: usize, hashers: usize) -> bool {
    waiting == 0 && hashing < hashers
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// A counting semaphore: at most `limit` items between being taken and being hashed.
struct Slots {
    free: Mutex<usize>,
    freed: Condvar,
}

impl Slots {
    fn new(limit: usize) -> Slots {
        Slots {
            free: Mutex::new(limit),
            freed: Condvar::new(),
        }
    }

    fn take(&self) {
        let mut free = lock(&self.free);
        while *free == 0 {
            free = self
                .freed
                .wait(free)
                .unwrap_or_else(|poisoned| poisoned.into_inner());
        }
        *free -= 1;
    }

    fn give_back(&self) {
        *lock(&self.free) += 1;
        self.freed.notify_one();
    }

    /// One slot more than there were.
    fn add_one(&self) {
        self.give_back();
    }
}

struct Reorder<I, T, D> {
    /// Results that finished before their turn.
    pending: BTreeMap<usize, (I, T)>,
    next: usize,
    deliver: D,
}

impl<I, T, D: FnMut(usize, I, T) -> ControlFlow<()>> Reorder<I, T, D> {
    fn deliver_ready(&mut self, cancelled: &AtomicBool) {
        while let Some((item, result)) = self.pending.remove(&self.next) {
            if (self.deliver)(self.next, item, result).is_break() {
                cancelled.store(true, Ordering::Relaxed);
                self.pending.clear();
                return;
            }
            self.next += 1;
        }
    }
}

/// Sizes rayon's global pool to `-j`, so files hashed side by side and the pieces of one split
/// file share the same threads. Called once, before any work.
///
/// The pool is not started here but by rayon at its first use, sized by `RAYON_NUM_THREADS`,
/// which is set here: a run that never shares work between threads (one small file, `-c` of
/// a short list) then starts none. Starting two threads and waiting for them was 0.6 ms of a
/// one-file run's 3.2 (AMD EPYC, 2 cores). Every way into the pool, ours or a crate's
/// (BLAKE3's `update_rayon`), gets the same size without having to be found and named here.
///
/// Where the system may refuse threads (a limited address space, or
/// [`processes_may_be_refused`]), the pool is made here instead, one of our own, and [`in_pool`] runs the work in it: a global pool whose threads
/// could not all be started is lost to rayon for good (its first use then panics, as it did
/// under `ulimit -u 3`), where ours is made again with half the threads, down to this thread
/// alone. Has no effect when a pool already exists (a second run in one process): that one is
/// kept.
pub fn configure_threads(threads: usize) {
    // Read once (it reads /proc/self/status where the address space is limited).
    let address_space = address_space_left();
    if let Some(left) = address_space {
        share_malloc_arenas(left);
    }
    let threads = hashing_threads_that_fit(useful_threads(threads), address_space);
    let refused = address_space.is_some() || processes_may_be_refused(threads);
    if refused && OWN_POOL.get().is_none() {
        if let Some(pool) = pool_that_starts(threads) {
            let _ = OWN_POOL.set(pool);
        }
    }
    // Changing the environment races only with a thread reading it at the same moment: the
    // one other thread by now waits for signals, and reads nothing.
    std::env::set_var("RAYON_NUM_THREADS", threads.to_string());
}

/// Whether this run found that the system may refuse it threads, and so hashes in a pool of
/// its own ([`configure_threads`]): what needs a thread and can do without leaves it out.
pub(crate) fn threads_are_scarce() -> bool {
    OWN_POOL.get().is_some()
}

/// Where the address space is limited (`left` bytes of it), has every thread allocate from the
/// same two heaps, or from one where a second would not fit. glibc gives threads heaps of
/// their own, up to eight a core, each reserving 64 MiB of address space (128 MiB while it is
/// placed). Under `ulimit -v 1000000` with `-j 64` those reservations left an allocation of
/// 128 KiB unmet; under `ulimit -v 22000` a thread whose heap could not be reserved mapped a
/// page of its own for every allocation, and 20,000 files of 4 KiB ran out of memory before
/// the first line, where one heap hashes them all. Threads then share heaps under a lock,
/// which in a run that hashes costs nothing measurable: its allocations are few and large.
fn share_malloc_arenas(left: usize) {
    const ROOM_FOR_A_SECOND_HEAP: usize = 256 << 20;
    let heaps = if left < ROOM_FOR_A_SECOND_HEAP { 1 } else { 2 };
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: mallopt only sets a parameter of the allocator; called before the run's threads.
    unsafe {
        libc::mallopt(libc::M_ARENA_MAX, heaps);
    }
    #[cfg(not(all(target_os = "linux", target_env = "gnu")))]
    let _ = heaps;
}

/// Runs `work`, the whole program, where its stack is deep enough: on this thread, unless
/// `ulimit -s` left the main thread less than [`STACK_NEEDED`], and then on a thread with a
/// stack of that size (this thread waiting for it), or here where no thread can be had.
/// Parsing and one run take about 70 KiB of stack: under `ulimit -s 64`, one run in two
/// overflowed and aborted, where coreutils runs in 12 KiB.
pub fn on_a_deep_enough_stack<T: Send>(work: impl FnOnce() -> T + Send) -> T {
    let shallow = resource_limit(Resource::Stack).is_some_and(|limit| {
        limit.rlim_cur != libc::RLIM_INFINITY && limit.rlim_cur < STACK_NEEDED as libc::rlim_t
    });
    if !shallow {
        return work();
    }
    let mut work = Some(work);
    let ran = std::thread::scope(|scope| {
        let on_thread = std::thread::Builder::new()
            .name("main".into())
            .stack_size(STACK_NEEDED)
            .spawn_scoped(scope, || work.take().map(|work| work()));
        on_thread.ok().map(|thread| {
            thread
                .join()
                .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
        })
    });
    match ran.flatten() {
        Some(result) => result,
        // No thread to be had: here, whatever the stack. The work is still here, as the
        // thread that would have taken it never started.
        None => (work.take().expect("run by no thread"))(),
    }
}

/// The stack a program's run is given where `ulimit -s` leaves the main thread less: what
/// rayon gives each hashing thread.
const STACK_NEEDED: usize = 2 * 1024 * 1024;

/// The pool [`configure_threads`] made where threads may be refused.
static OWN_POOL: OnceLock<rayon::ThreadPool> = OnceLock::new();

/// Runs `work` where its parallel parts share the run's hashing threads: in the pool of our
/// own when [`configure_threads`] made one, else here, with rayon's global pool started at
/// its first use.
pub fn in_pool<T: Send>(work: impl FnOnce() -> T + Send) -> T {
    match OWN_POOL.get() {
        Some(pool) => pool.install(work),
        None => work(),
    }
}

/// A pool of `threads`, or of as many as the system gives: half as many each time a thread
/// is refused, and at last this thread alone, which needs none started. None only if even
/// that cannot be had (this thread already works in a pool).
fn pool_that_starts(threads: usize) -> Option<rayon::ThreadPool> {
    let mut threads = threads;
    while threads >= 1 {
        match rayon::ThreadPoolBuilder::new().num_threads(threads).build() {
            Ok(pool) => return Some(pool),
            Err(_) => threads /= 2,
        }
    }
    rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .use_current_thread()
        .build()
        .ok()
}

/// Whether the run's work has the pool to itself, one thread: the pool of our own
/// ([`in_pool`]) runs the work on one of its threads, so with one thread (all the system
/// gave, or this thread alone) nothing else would run the hashing jobs the pipeline hands it
/// while it waits for them. The pipeline then runs item after item on that thread, as with one
/// reader and one hashing thread ([`for_each_ordered`]).
fn pool_is_the_work_alone() -> bool {
    OWN_POOL
        .get()
        .is_some_and(|pool| pool.current_num_threads() <= 1)
}

/// Whether starting a run's threads may fail for want of processes (a limited address space,
/// where each thread's stack and malloc's arenas take from it, is the other reason, asked by
/// the caller): what the user or the control group may still start (`ulimit -u`, a
/// container's `pids.max`) leaves little room beside what a run may start: `threads` hashing threads, readers, helpers. Asked once a
/// run; rayon's own pool, started when first needed, is kept for every other case, as making
/// a pool before any work cost a run of one small file 0.6 to 1 ms (AMD EPYC, 2 cores).
fn processes_may_be_refused(threads: usize) -> bool {
    let room_needed = 4 * (3 * threads + 64);
    processes_allowed().is_some_and(|allowed| allowed < room_needed)
        || group_processes_left().is_some_and(|left| left < room_needed)
}

/// The soft `RLIMIT_NPROC` (`ulimit -u`): the processes and threads this user may have, the
/// running ones included; None when unlimited.
fn processes_allowed() -> Option<usize> {
    let limit = resource_limit(Resource::Processes)?;
    (limit.rlim_cur != libc::RLIM_INFINITY)
        .then(|| usize::try_from(limit.rlim_cur).unwrap_or(usize::MAX))
}

/// What this process's control group and those above it still allow to start (their
/// `pids.max` less `pids.current`, the least of them), cgroup v2 or v1's `pids` controller;
/// None where none sets a limit or none can be read.
fn group_processes_left() -> Option<usize> {
    let groups = std::fs::read_to_string("/proc/self/cgroup").ok()?;
    let directory = groups.lines().find_map(|line| {
        let mut fields = line.splitn(3, ':');
        let (_, controllers, path) = (fields.next()?, fields.next()?, fields.next()?);
        match controllers {
            "" => Some(format!("/sys/fs/cgroup{path}")),
            _ if controllers.split(',').any(|name| name == "pids") => {
                Some(format!("/sys/fs/cgroup/pids{path}"))
            }
            _ => None,
        }
    })?;
    let read = |directory: &Path, name: &str| -> Option<usize> {
        std::fs::read_to_string(directory.join(name))
            .ok()?
            .trim()
            .parse()
            .ok()
    };
    Path::new(&directory)
        .ancestors()
        .take_while(|directory| directory.starts_with("/sys/fs/cgroup"))
        .filter_map(|directory| {
            let most = read(directory, "pids.max")?;
            Some(most.saturating_sub(read(directory, "pids.current").unwrap_or(0)))
        })
        .min()
}

/// The fewest hashing threads `-j` may ask for and get, whatever the cores: enough to stand in
/// for a large server's cores on a small machine (`-j 64`, `-j 192`), as the tests of the
/// descriptor budget do.
const MOST_THREADS_AT_LEAST: usize = 256;

/// The hashing threads a run starts for `-j wanted`: at least one, and at most as many as the
/// cores or [`MOST_THREADS_AT_LEAST`], whichever is more. More would only slow a run down:
/// reads are the readers' work, and rayon's idle threads look for work in each other's queues,
/// so what a pool costs grows with the square of its threads. On 2 cores, 40 small files took
/// 0.07 s at `-j 256`, 1.6 s at 1,024 and 18.7 s at 4,096, and `-j 65535` had not ended after
/// 16 minutes.
pub fn useful_threads(wanted: usize) -> usize {
    wanted.clamp(1, default_threads().max(MOST_THREADS_AT_LEAST))
}

/// Readers when the user did not say: enough requests in flight for a solid-state disk or a
/// network file system, and never fewer than the hashing threads they feed (in the page cache,
/// the readers' system calls are most of the work on small files).
pub fn default_readers(threads: usize) -> usize {
    32.max(2 * threads)
}

/// The number of threads to use when the user did not say: the cores this process may run on,
/// asked of the system once. Each asking opens and reads `/proc/self/cgroup` and the CPU
/// quota's two files, and a one-file run asked three times (the threads, the pool's limit, the
/// readers' bound).
pub fn default_threads() -> usize {
    static CORES: OnceLock<usize> = OnceLock::new();
    *CORES.get_or_init(|| {
        std::thread::available_parallelism()
            .map(|n| n.get())
            .unwrap_or(1)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;
    use std::time::Duration;

    #[test]
    fn hashing_threads_stop_at_the_cores_or_256() {
        let most = default_threads().max(256);
        assert_eq!(useful_threads(0), 1);
        assert_eq!(useful_threads(3), 3);
        assert_eq!(useful_threads(64), 64);
        assert_eq!(useful_threads(256), 256);
        assert_eq!(useful_threads(65_535), most);
        assert_eq!(useful_threads(usize::MAX), most);
    }

    /// How many readers took part in a run of `items` items, each read for `read_for` and
    /// hashed for `hash_for`, on a pool of two threads of its own (tests run side by side, and
    /// the global pool is theirs too); and the results as delivered.
    fn readers_used(
        items: usize,
        read_for: Duration,
        hash_for: Duration,
        device: bool,
    ) -> (usize, Vec<usize>) {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(2)
            .build()
            .unwrap();
        let readers = Mutex::new(HashSet::new());
        let mut delivered = Vec::new();
        let stages = Stages {
            threads: 2,
            readers: 32,
        };
        pool.install(|| {
            for_each_ordered(
                0..items,
                stages,
                |_| {
                    lock(&readers).insert(std::thread::current().id());
                    std::thread::sleep(read_for);
                    if device {
                        crate::io::open::waited_for_device();
                    }
                },
                |&item, ()| {
                    std::thread::sleep(hash_for);
                    item
                },
                |_, _, result| {
                    delivered.push(result);
                    ControlFlow::Continue(())
                },
            )
        });
        let readers = readers.into_inner().unwrap().len();
        (readers, delivered)
    }

    #[test]
    fn readers_are_added_while_the_hashing_threads_wait_for_them() {
        let (readers, delivered) =
            readers_used(300, Duration::from_millis(2), Duration::ZERO, true);
        assert!(readers > 8, "{readers} readers");
        assert_eq!(delivered, (0..300).collect::<Vec<_>>());
    }

    /// The same slow reads, served by the page cache (the CPU's work, which many more readers
    /// than cores would only share): no more than [`READERS_A_CORE`] a core.
    #[test]
    fn readers_that_never_wait_for_the_device_stay_at_a_few_a_core() {
        let most = READERS_A_CORE * default_threads();
        if most >= 32 {
            eprintln!("skipped: {most} readers may start on this many cores, all that are asked");
            return;
        }
        // Several runs: two readers deciding at once on the last one allowed is a race (it
        // started a reader past the bound in one run of the whole suite in four).
        for _ in 0..5 {
            let (readers, delivered) =
                readers_used(300, Duration::from_millis(2), Duration::ZERO, false);
            assert!(readers <= most, "{readers} readers");
            assert_eq!(delivered, (0..300).collect::<Vec<_>>());
        }
    }

    /// The rule itself, without threads or timing: an idle hashing thread, and only that.
    #[test]
    fn only_an_idle_hashing_thread_with_nothing_waiting_is_starved() {
        assert!(hashing_starved(0, 0, 2));
        assert!(hashing_starved(0, 1, 2));
        assert!(!hashing_starved(0, 2, 2));
        assert!(!hashing_starved(1, 0, 2));
        assert!(!hashing_starved(5, 2, 2));
    }

    #[test]
    fn readers_ahead_of_the_hashing_threads_are_not_added_to() {
        let (readers, delivered) =
            readers_used(300, Duration::ZERO, Duration::from_millis(1), true);
        assert!(readers <= 8, "{readers} readers");
        assert_eq!(delivered, (0..300).collect::<Vec<_>>());
    }

    /// Items taken and not yet hashed stay at one a reader started plus two a hashing thread:
    /// buffers read far ahead of their hashing would leave the cache before it.
    #[test]
    fn items_ahead_are_bounded_by_the_readers_started() {
        use std::sync::atomic::AtomicIsize;
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(2)
            .build()
            .unwrap();
        let readers = Mutex::new(HashSet::new());
        let (in_flight, most) = (AtomicIsize::new(0), AtomicIsize::new(0));
        let stages = Stages {
            threads: 2,
            readers: 32,
        };
        pool.install(|| {
            for_each_ordered(
                0..200,
                stages,
                |_| {
                    lock(&readers).insert(std::thread::current().id());
                    let now = in_flight.fetch_add(1, Ordering::SeqCst) + 1;
                    most.fetch_max(now, Ordering::SeqCst);
                },
                |&item, ()| {
                    std::thread::sleep(Duration::from_micros(500));
                    in_flight.fetch_sub(1, Ordering::SeqCst);
                    item
                },
                |_, _, _| ControlFlow::Continue(()),
            )
        });
        let readers = readers.into_inner().unwrap().len() as isize;
        let most = most.load(Ordering::SeqCst);
        assert!(
            most <= readers + 4,
            "{most} items ahead with {readers} readers"
        );
    }

    /// The global pool starts at its first use, as any pool rayon sizes itself: one built
    /// the same way has `-j` threads. In a process of its own: [`configure_threads`] sets
    /// the environment, which the other tests of this process read while it runs.
    #[test]
    fn a_pool_rayon_starts_by_itself_has_the_threads_asked_for() {
        const CHILD: &str = "FASTHASH_TEST_POOL_CHILD";
        if std::env::var_os(CHILD).is_some() {
            configure_threads(3);
            let pool = rayon::ThreadPoolBuilder::new().build().unwrap();
            assert_eq!(pool.current_num_threads(), 3);
            return;
        }
        let this_test =
            "io::parallel::tests::a_pool_rayon_starts_by_itself_has_the_threads_asked_for";
        let child = std::process::Command::new(std::env::current_exe().unwrap())
            .args([this_test, "--exact", "--test-threads=1", "--nocapture"])
            .env(CHILD, "1")
            .env_remove("RAYON_NUM_THREADS")
            .output()
            .unwrap();
        let stdout = String::from_utf8_lossy(&child.stdout);
        assert!(
            child.status.success(),
            "{stdout}{}",
            String::from_utf8_lossy(&child.stderr)
        );
        // The child ran the test, not an empty selection (a renamed module would pass).
        assert!(stdout.contains("1 passed"), "{stdout}");
    }
}

//! Global memory of emulated launches, fenced so that an out-of-bounds access is reported with
//! its thread and address rather than read from whatever host memory lies there.
//!
//! On Linux each allocation is mapped on its own, between two inaccessible guard pages, and
//! placed so that it ends where the guard after it begins (rounded up to 16 bytes, or to the
//! element's alignment if larger: CUDA allocations are 256-byte aligned, but the kernels ask
//! only for 16, where their vector loads take the same paths). A kernel's access up to a
//! page past the end, or before the start by more than the slack of the first page but less
//! than a page more, touches a guard page; the
//! emulator's `SIGSEGV` handler finds which allocation it belongs to, records the access for
//! the lane that made it, and opens the page (zeros) so that the access completes; the block
//! then ends with [`Misuse::OutOfBounds`](super::Misuse::OutOfBounds), and the launch closes
//! the page again. An emulated thread's fault anywhere else is printed with its thread and
//! address before the process dies as it would have; an access farther away that lands in
//! mapped memory (the heap, another buffer) goes unnoticed, as on a GPU. Each buffer is a
//! mapping of its own, about three of the kernel's memory areas, so a process holds at most a
//! few tens of thousands at once (`vm.max_map_count`, 65530 by default); past that an
//! allocation is `None` (`Error::OutOfMemory`). Other systems get plain allocations, which
//! nothing fences.

use std::fmt;

/// Bytes an allocation is rounded up to, at its end: a CUDA allocation's vector alignment.
pub const END_ALIGN: usize = 16;

/// An emulated thread's access to global memory outside every allocation it could reach.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GlobalAccess {
    /// Whether the access wrote (`Some(true)`), read (`Some(false)`), or the system did not say.
    pub write: Option<bool>,
    /// The address accessed.
    pub address: usize,
    /// Start and length in bytes of the allocation whose guard page it touched.
    pub buffer: usize,
    pub bytes: usize,
}

impl GlobalAccess {
    /// The address relative to the allocation's start (negative before it).
    pub fn offset(&self) -> i128 {
        self.address as i128 - self.buffer as i128
    }
}

impl fmt::Display for GlobalAccess {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let what = match self.write {
            Some(true) => "wrote",
            Some(false) => "read",
            None => "accessed",
        };
        let offset = self.offset();
        let place = if offset < 0 {
            format!("{} bytes before its start", -offset)
        } else {
            format!("{} bytes past its end", offset - self.bytes as i128)
        };
        write!(
            f,
            "{what} global address {:#x}, byte {offset} of the {}-byte buffer at {:#x} ({place})",
            self.address, self.bytes, self.buffer
        )
    }
}

pub use imp::GlobalMemory;
pub(super) use imp::{close_guards, take_out_of_bounds};

#[cfg(target_os = "linux")]
mod imp {
    use super::{END_ALIGN, GlobalAccess};
    use std::cell::Cell;
    use std::collections::BTreeMap;
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::sync::{Once, OnceLock, RwLock};

    /// A fenced allocation: `[guard][slack, buffer][guard]`, mapped as one region.
    struct Region {
        /// The whole mapping.
        base: usize,
        len: usize,
        /// The buffer inside it.
        buffer: usize,
        bytes: usize,
        /// Whether a guard page was opened by an out-of-bounds access and awaits closing.
        opened: AtomicBool,
    }

    impl Region {
        /// The guard page holding `address`, if any.
        fn guard_of(&self, address: usize, page: usize) -> Option<usize> {
            let after = self.base + self.len - page;
            if (self.base..self.base + page).contains(&address) {
                Some(self.base)
            } else if (after..self.base + self.len).contains(&address) {
                Some(after)
            } else {
                None
            }
        }
    }

    /// Every live fenced allocation, by the start of its mapping. The fault handler reads it; a
    /// faulting thread runs kernel code, never an allocation, so it never holds the lock itself.
    static REGIONS: RwLock<BTreeMap<usize, Region>> = RwLock::new(BTreeMap::new());

    /// The handler that was installed before ours, for faults that are not ours.
    static PREVIOUS: OnceLock<(libc::sigaction, libc::sigaction)> = OnceLock::new();

    thread_local! {
        /// The first out-of-bounds access of the lane running on this OS thread, taken by the
        /// scheduler when the lane yields.
        static OUT_OF_BOUNDS: Cell<Option<GlobalAccess>> = const { Cell::new(None) };
    }

    fn page_size() -> usize {
        // SAFETY: sysconf has no preconditions.
        unsafe { libc::sysconf(libc::_SC_PAGESIZE) as usize }
    }

    /// Memory that emulated kernels use as global memory, fenced by guard pages.
    pub struct GlobalMemory {
        ptr: *mut u8,
        base: usize,
    }

    // SAFETY: owned like a `Box<[u8]>`.
    unsafe impl Send for GlobalMemory {}
    // SAFETY: as above.
    unsafe impl Sync for GlobalMemory {}

    impl GlobalMemory {
        /// `bytes` zeroed bytes aligned to `align` (a power of two, at most a page), or `None`
        /// when the system has no memory for them.
        pub fn new(bytes: usize, align: usize) -> Option<GlobalMemory> {
            assert!(align.is_power_of_two(), "alignment {align} is not a power of two");
            install_handler();
            let page = page_size();
            let align = align.max(END_ALIGN);
            if align > page {
                return None;
            }
            let rounded = bytes.checked_next_multiple_of(align)?;
            let data = rounded.max(1).checked_next_multiple_of(page)?;
            let len = data.checked_add(2 * page)?;
            // SAFETY: a fresh anonymous mapping; nothing else is affected.
            let base = unsafe {
                libc::mmap(
                    std::ptr::null_mut(),
                    len,
                    libc::PROT_NONE,
                    libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_NORESERVE,
                    -1,
                    0,
                )
            };
            if base == libc::MAP_FAILED {
                return None;
            }
            let base = base as usize;
            // SAFETY: the data pages lie inside the mapping just made.
            if unsafe { libc::mprotect((base + page) as *mut _, data, libc::PROT_READ | libc::PROT_WRITE) }
                != 0
            {
                // SAFETY: the mapping just made.
                unsafe { libc::munmap(base as *mut _, len) };
                return None;
            }
            let buffer = base + page + data - rounded;
            let region = Region {
                base,
                len,
                buffer,
                bytes,
                opened: AtomicBool::new(false),
            };
            REGIONS
                .write()
                .unwrap_or_else(|e| e.into_inner())
                .insert(base, region);
            Some(GlobalMemory {
                ptr: buffer as *mut u8,
                base,
            })
        }

        pub fn as_ptr(&self) -> *mut u8 {
            self.ptr
        }
    }

    impl Drop for GlobalMemory {
        fn drop(&mut self) {
            let region = REGIONS
                .write()
                .unwrap_or_else(|e| e.into_inner())
                .remove(&self.base);
            if let Some(r) = region {
                // SAFETY: the mapping made in `new`, no longer registered or used.
                unsafe { libc::munmap(r.base as *mut _, r.len) };
            }
        }
    }

    /// Closes the guard pages out-of-bounds accesses opened, discarding what was written there.
    /// The emulator calls it when a launch ends.
    pub(in crate::emu) fn close_guards() {
        let page = page_size();
        // The write lock keeps the fault handler (a reader) from opening a page between the
        // flag's reset and the page's closing, which would leave it open unflagged.
        let regions = REGIONS.write().unwrap_or_else(|e| e.into_inner());
        for r in regions
            .values()
            .filter(|r| r.opened.swap(false, Ordering::Relaxed))
        {
            for guard in [r.base, r.base + r.len - page] {
                // SAFETY: guard pages of a live mapping of ours, which no buffer uses.
                unsafe {
                    libc::madvise(guard as *mut _, page, libc::MADV_DONTNEED);
                    libc::mprotect(guard as *mut _, page, libc::PROT_NONE);
                }
            }
        }
    }

    /// The out-of-bounds access the lane that just ran on this OS thread made, if any.
    pub(in crate::emu) fn take_out_of_bounds() -> Option<GlobalAccess> {
        OUT_OF_BOUNDS.with(Cell::take)
    }

    fn install_handler() {
        static ONCE: Once = Once::new();
        ONCE.call_once(|| {
            // SAFETY: sigaction reading the current actions, then installing a zeroed action
            // with a handler of the SA_SIGINFO form. The previous actions are saved before
            // ours is installed, so the handler always has them to pass faults on to.
            unsafe {
                let mut segv: libc::sigaction = std::mem::zeroed();
                let mut bus: libc::sigaction = std::mem::zeroed();
                libc::sigaction(libc::SIGSEGV, std::ptr::null(), &mut segv);
                libc::sigaction(libc::SIGBUS, std::ptr::null(), &mut bus);
                let _ = PREVIOUS.set((segv, bus));
                let mut ours: libc::sigaction = std::mem::zeroed();
                ours.sa_sigaction = on_fault as *const () as usize;
                ours.sa_flags = libc::SA_SIGINFO | libc::SA_ONSTACK;
                libc::sigemptyset(&mut ours.sa_mask);
                libc::sigaction(libc::SIGSEGV, &ours, std::ptr::null_mut());
                libc::sigaction(libc::SIGBUS, &ours, std::ptr::null_mut());
            }
        });
    }

    /// Whether the faulting access wrote, where the signal's context says so (x86-64's page
    /// fault error code).
    ///
    /// # Safety
    /// `context` is the `ucontext_t` the kernel passed to the handler.
    unsafe fn was_write(context: *mut libc::c_void) -> Option<bool> {
        #[cfg(target_arch = "x86_64")]
        {
            // SAFETY: the caller's contract.
            let uc = unsafe { &*(context as *const libc::ucontext_t) };
            Some(uc.uc_mcontext.gregs[libc::REG_ERR as usize] & 2 != 0)
        }
        #[cfg(not(target_arch = "x86_64"))]
        {
            let _ = context;
            None
        }
    }

    /// The `SIGSEGV`/`SIGBUS` handler. A fault of an emulated thread on a guard page is
    /// recorded and the page opened, so the access completes; any other fault of an emulated
    /// thread is printed with its thread and address; every fault that is not ours goes to the
    /// handler installed before (called; or, for the default action, reinstalled, so that the
    /// access faults again under it).
    extern "C" fn on_fault(signal: libc::c_int, info: *mut libc::siginfo_t, context: *mut libc::c_void) {
        // SAFETY: the kernel passes a valid siginfo for SA_SIGINFO handlers.
        let address = unsafe { (*info).si_addr() } as usize;
        if let Some(lane) = super::super::block::current_thread() {
            let page = page_size();
            let regions = REGIONS.read().unwrap_or_else(|e| e.into_inner());
            let hit = regions
                .range(..=address)
                .next_back()
                .and_then(|(_, r)| r.guard_of(address, page).map(|guard| (r, guard)));
            if let Some((region, guard)) = hit {
                let access = GlobalAccess {
                    // SAFETY: `context` comes from the kernel with the signal.
                    write: unsafe { was_write(context) },
                    address,
                    buffer: region.buffer,
                    bytes: region.bytes,
                };
                OUT_OF_BOUNDS.with(|o| {
                    if o.get().is_none() {
                        o.set(Some(access));
                    }
                });
                region.opened.store(true, Ordering::Relaxed);
                // SAFETY: a guard page of a live mapping of ours.
                unsafe { libc::mprotect(guard as *mut _, page, libc::PROT_READ | libc::PROT_WRITE) };
                return;
            }
            drop(regions);
            report_wild(lane, address);
        }
        let Some((segv, bus)) = PREVIOUS.get() else {
            return;
        };
        let previous = if signal == libc::SIGBUS { bus } else { segv };
        let handler = previous.sa_sigaction;
        // SAFETY: the action saved before ours was installed, called as the form its flags
        // declare; the default action (or ignoring, which a fault cannot do) is reinstalled,
        // and the access faults again under it.
        unsafe {
            if handler == libc::SIG_DFL || handler == libc::SIG_IGN {
                libc::sigaction(signal, previous, std::ptr::null_mut());
            } else if previous.sa_flags & libc::SA_SIGINFO != 0 {
                let f: extern "C" fn(libc::c_int, *mut libc::siginfo_t, *mut libc::c_void) =
                    std::mem::transmute(handler);
                f(signal, info, context);
            } else {
                let f: extern "C" fn(libc::c_int) = std::mem::transmute(handler);
                f(signal);
            }
        }
    }

    /// Prints an emulated thread's fault outside every allocation, with no allocation of its
    /// own (the process is about to die of it).
    fn report_wild(lane: (super::super::ThreadId, crate::simt::Dim3), address: usize) {
        use std::io::Write;
        let (thread, block) = lane;
        let mut line = [0u8; 256];
        let mut cursor = std::io::Cursor::new(&mut line[..]);
        let _ = writeln!(
            cursor,
            "warpkit emulator: {thread} of block ({}, {}, {}) faulted at address {address:#x}, \
             outside every emulator buffer",
            block.x, block.y, block.z
        );
        let written = cursor.position() as usize;
        // SAFETY: writes bytes of a live array to stderr.
        unsafe { libc::write(2, line.as_ptr().cast(), written) };
    }
}

#[cfg(not(target_os = "linux"))]
mod imp {
    use super::{END_ALIGN, GlobalAccess};
    use std::alloc::{Layout, alloc_zeroed, dealloc};

    /// Memory that emulated kernels use as global memory (unfenced on this system).
    pub struct GlobalMemory {
        ptr: *mut u8,
        layout: Layout,
    }

    // SAFETY: owned like a `Box<[u8]>`.
    unsafe impl Send for GlobalMemory {}
    // SAFETY: as above.
    unsafe impl Sync for GlobalMemory {}

    impl GlobalMemory {
        /// `bytes` zeroed bytes aligned to `align` (a power of two), or `None`.
        pub fn new(bytes: usize, align: usize) -> Option<GlobalMemory> {
            assert!(align.is_power_of_two(), "alignment {align} is not a power of two");
            let align = align.max(END_ALIGN);
            let layout = Layout::from_size_align(bytes.max(align), align).ok()?;
            // SAFETY: the layout has a non-zero size.
            let ptr = unsafe { alloc_zeroed(layout) };
            (!ptr.is_null()).then_some(GlobalMemory { ptr, layout })
        }

        pub fn as_ptr(&self) -> *mut u8 {
            self.ptr
        }
    }

    impl Drop for GlobalMemory {
        fn drop(&mut self) {
            // SAFETY: allocated with this layout in `new`.
            unsafe { dealloc(self.ptr, self.layout) }
        }
    }

    /// Nothing to close on this system.
    pub(in crate::emu) fn close_guards() {}

    pub(in crate::emu) fn take_out_of_bounds() -> Option<GlobalAccess> {
        None
    }
}

//! The group over NCCL ([`NcclGroup`], behind the `nccl` feature): the ranks are GPUs, one a
//! process ([`NcclGroup::from_env`], as [`launch`](super::launch()) starts them, or
//! [`NcclGroup::from_rank`]) or several in one process ([`NcclGroup::from_devices`], a thread a
//! rank). The [`Group`] collectives move host bytes through the rank's device: NCCL moves device
//! memory only, and the distributed primitives exchange small summaries and, in the multisplit,
//! keys.
//!
//! NCCL runs with NVLink multicast off: a group refuses to start unless the environment says
//! `NCCL_NVLS_ENABLE=0` (the launcher sets it for its ranks; the workspace's cargo
//! configuration for its tests), since multicast objects can take a shared host's GPUs out of
//! service, and warpkit does not change a running process's environment.
//!
//! No call hangs: communicators are non-blocking, so NCCL's set-up, its connections and the
//! queuing of work go on in NCCL's background threads while the caller waits, at most the
//! group's timeout; past it the communicator is aborted and the call returns
//! `Err(CollectiveTimeout)`. NCCL's own errors (`ncclCommGetAsyncError`) abort it too. A rank
//! whose communicator was aborted has left the group: its later collectives are
//! `Err(RankLeft)`, and the other ranks time out.

use super::group::{Group, agree, agree_ok, agree_sends, check_parts_sent};
use super::launch::{ID_FILE, ID_HEX, LOCAL_RANK, RANK, WORLD_SIZE};
use super::plan::check_world;
use crate::element::Scalar;
use crate::error::{Error, Result, check_same_len};
use crate::runtime::device::{Device, DeviceBuffer};
use crate::runtime::gpu::Gpu;
use bytemuck::Pod;
use cudarc::nccl::{result as nccl, sys};
use std::cell::{Cell, RefCell};
use std::ffi::{c_char, c_int, c_uint, c_void};
use std::path::Path;
use std::sync::OnceLock;
use std::time::{Duration, Instant};

/// Bytes in NCCL's unique id of a communicator.
pub const ID_BYTES: usize = 128;

/// NCCL's unique id of a communicator: one rank makes it ([`UniqueId::new`]) and every rank
/// joins with it, so it travels between the processes (in hex: the environment or a file).
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct UniqueId([u8; ID_BYTES]);

impl std::fmt::Debug for UniqueId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Whoever holds the id can join the communicator: keep it out of logs.
        f.write_str("UniqueId(..)")
    }
}

impl UniqueId {
    /// A fresh id (NCCL's `ncclGetUniqueId`, which also picks the bootstrap's network address).
    pub fn new() -> Result<UniqueId> {
        prepare()?;
        let id = nccl::get_uniqueid().map_err(failed("ncclGetUniqueId"))?;
        Ok(UniqueId(id.internal.map(|c| c as u8)))
    }

    /// The id as 256 lowercase hex digits.
    pub fn to_hex(&self) -> String {
        self.0.iter().map(|b| format!("{b:02x}")).collect()
    }

    /// The id of [`UniqueId::to_hex`]'s digits (surrounding white space ignored); `None` for
    /// anything else.
    pub fn from_hex(text: &str) -> Option<UniqueId> {
        let text = text.trim();
        if text.len() != 2 * ID_BYTES || !text.is_ascii() {
            return None;
        }
        let mut id = [0; ID_BYTES];
        for (byte, pair) in id.iter_mut().zip(text.as_bytes().chunks_exact(2)) {
            *byte = u8::from_str_radix(std::str::from_utf8(pair).ok()?, 16).ok()?;
        }
        Some(UniqueId(id))
    }

    /// The id shared through the file at `path`: rank 0 makes one and writes it there (whole, by
    /// a rename), the others wait for it at most `timeout` (then `Err(Environment)`).
    /// The path must be fresh to the run (the launcher makes one in a directory of its own): a
    /// rank that finds an earlier run's id would wait in NCCL's set-up until its timeout.
    pub fn share_through_file(path: &Path, rank: u32, timeout: Duration) -> Result<UniqueId> {
        let problem = |what: &str, e: std::io::Error| Error::Environment {
            name: ID_FILE,
            problem: format!("{what} {}: {e}", path.display()),
        };
        if rank == 0 {
            let id = UniqueId::new()?;
            let partial = path.with_extension(format!("partial-{}", std::process::id()));
            std::fs::write(&partial, id.to_hex()).map_err(|e| problem("writing", e))?;
            std::fs::rename(&partial, path).map_err(|e| problem("renaming onto", e))?;
            return Ok(id);
        }
        let start = Instant::now();
        loop {
            match std::fs::read_to_string(path) {
                Ok(text) => {
                    return UniqueId::from_hex(&text).ok_or_else(|| Error::Environment {
                        name: ID_FILE,
                        problem: format!("{} holds no NCCL id", path.display()),
                    });
                }
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                Err(e) => return Err(problem("reading", e)),
            }
            if start.elapsed() > timeout {
                return Err(Error::Environment {
                    name: ID_FILE,
                    problem: format!("rank 0 wrote no id to {} in {timeout:?}", path.display()),
                });
            }
            std::thread::sleep(Duration::from_millis(10));
        }
    }

    fn raw(&self) -> sys::ncclUniqueId {
        sys::ncclUniqueId {
            internal: self.0.map(|b| b as std::ffi::c_char),
        }
    }
}

/// Checks once a process that NCCL can run: multicast off in the environment NCCL reads, and
/// the library present (`cudarc` would panic at the first call otherwise).
fn prepare() -> Result<()> {
    static READY: OnceLock<std::result::Result<(), String>> = OnceLock::new();
    let ready = READY.get_or_init(|| {
        match std::env::var_os("NCCL_NVLS_ENABLE") {
            Some(v) if v == "0" => {}
            v => {
                return Err(format!(
                    "NCCL_NVLS_ENABLE is {v:?}: warpkit runs NCCL with NVLink multicast off, set \
                     NCCL_NVLS_ENABLE=0 in the environment (warpkit-launch does)"
                ));
            }
        }
        // SAFETY: the probe loads the library (running only its initialisers) and drops it.
        if unsafe { sys::is_culib_present() } {
            Ok(())
        } else {
            Err(format!(
                "libnccl was not found under the names cudarc loads ({}); where only \
                 libnccl.so.2 is installed, start the ranks with warpkit-launch, which links it \
                 as libnccl.so for them, or link it so in a directory on LD_LIBRARY_PATH",
                cudarc::get_lib_name_candidates("nccl")[..2].join(", ")
            ))
        }
    });
    ready.clone().map_err(Error::NcclUnavailable)
}

/// NCCL's communicator configuration as of 2.17 (the leading fields of every later version's,
/// in place): NCCL reads the `size` bytes given and takes later fields at their defaults, so
/// this one struct serves every version cudarc binds.
#[repr(C)]
struct Config {
    size: usize,
    magic: c_uint,
    version: c_uint,
    blocking: c_int,
    cga_cluster_size: c_int,
    min_ctas: c_int,
    max_ctas: c_int,
    net_name: *const c_char,
    split_share: c_int,
}

impl Config {
    /// A non-blocking communicator, NCCL's defaults otherwise: its calls return at once
    /// (`ncclInProgress`) and their work goes on in NCCL's threads ([`settle`] waits for it).
    fn non_blocking() -> Config {
        const UNSET: c_int = c_int::MIN; // NCCL_CONFIG_UNDEF_INT
        Config {
            size: size_of::<Config>(),
            magic: 0xcafe_beef,
            version: 2_17_00, // NCCL_VERSION(2, 17, 0)
            blocking: 0,
            cga_cluster_size: UNSET,
            min_ctas: UNSET,
            max_ctas: UNSET,
            net_name: std::ptr::null(),
            split_share: 0,
        }
    }
}

/// A wait bounded by a group's timeout, polling with a backoff.
struct Wait {
    start: Instant,
    timeout: Duration,
    world: u32,
    pause: Duration,
}

impl Wait {
    fn new(timeout: Duration, world: u32) -> Wait {
        Wait {
            start: Instant::now(),
            timeout,
            world,
            pause: Duration::from_micros(2),
        }
    }

    /// Sleeps a little longer each time, up to 100 µs; `Err(CollectiveTimeout)` past the
    /// timeout.
    fn again(&mut self) -> Result<()> {
        if self.start.elapsed() > self.timeout {
            return Err(Error::CollectiveTimeout {
                waited: self.start.elapsed(),
                arrived: None,
                world: self.world,
            });
        }
        std::thread::sleep(self.pause);
        self.pause = (self.pause * 2).min(Duration::from_micros(100));
        Ok(())
    }
}

/// `comm`'s state: `ncclSuccess`, `ncclInProgress` while its last call's work goes on in
/// NCCL's threads, or the error that work met (as `call`'s failure).
fn state(comm: sys::ncclComm_t, call: &'static str) -> Result<sys::ncclResult_t> {
    let mut state = sys::ncclResult_t::ncclInProgress;
    // SAFETY: a live communicator; `state` receives its status.
    unsafe { sys::ncclCommGetAsyncError(comm, &mut state) }
        .result()
        .map_err(failed("ncclCommGetAsyncError"))?;
    match state {
        sys::ncclResult_t::ncclSuccess | sys::ncclResult_t::ncclInProgress => Ok(state),
        other => Err(Error::Nccl {
            call,
            status: format!("{other:?}"),
        }),
    }
}

/// Waits until the work of `call` on `comm` has left NCCL's threads (its set-up done, or its
/// operations queued on the stream).
fn settle(comm: sys::ncclComm_t, call: &'static str, wait: &mut Wait) -> Result<()> {
    while state(comm, call)? == sys::ncclResult_t::ncclInProgress {
        wait.again()?;
    }
    Ok(())
}

/// An NCCL failure of `call`, as an error value.
fn failed(call: &'static str) -> impl Fn(nccl::NcclError) -> Error {
    move |e| Error::Nccl {
        call,
        status: format!("{:?}", e.0),
    }
}

/// The GPU of `device`; NCCL has no emulator.
fn gpu_of(device: &Device) -> Result<Gpu> {
    device.as_gpu().cloned().ok_or_else(|| {
        Error::NcclUnavailable("an NCCL group's ranks are GPUs; this device is the emulator".into())
    })
}

/// An NCCL communicator, aborted when dropped unless its group finalized and destroyed it
/// (or on failure, before): aborting is local, waits for no other rank, and ends this rank's
/// NCCL work in flight.
struct Comm(Cell<sys::ncclComm_t>);

// SAFETY: NCCL lets any thread use a communicator, one call at a time; `Comm` is not `Sync`.
unsafe impl Send for Comm {}

impl Comm {
    /// A communicator NCCL made into `raw` (aborted when dropped), whatever `made` says of it.
    fn of(raw: sys::ncclComm_t) -> Comm {
        Comm(Cell::new(raw))
    }

    fn abort(&self) {
        let comm = self.0.replace(std::ptr::null_mut());
        if !comm.is_null() {
            // SAFETY: a communicator NCCL made, aborted once (the null left behind marks it).
            // Its status is of no use to a rank that is leaving.
            let _ = unsafe { nccl::comm_abort(comm) };
        }
    }
}

impl Drop for Comm {
    fn drop(&mut self) {
        self.abort();
    }
}

/// One rank of a group over NCCL: its communicator and the device its collectives run on (in
/// order with warpkit's calls there, on the device's stream). A handle moves between threads
/// but is not shared: a rank's collectives come one at a time.
pub struct NcclGroup {
    comm: Comm,
    gpu: Gpu,
    device: Device,
    rank: u32,
    world: u32,
    timeout: Duration,
    /// Device room for small all-gathers ([`small_gather`] bytes a rank, sent and received),
    /// made with the group: the ranks' outcomes, lengths and counts that precede the
    /// distributed calls move without an allocation, so a rank out of device memory can still
    /// tell the others.
    small: RefCell<(DeviceBuffer<u8>, DeviceBuffer<u8>)>,
}

/// Bytes a rank that an all-gather of a group of `world` ranks moves through its own small
/// buffers: 256, or more for the counts of an all-to-all (`world + 1` words a rank).
const fn small_gather(world: u32) -> usize {
    let counts = 8 * (world as usize + 1);
    if counts > 256 { counts } else { 256 }
}

impl std::fmt::Debug for NcclGroup {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("NcclGroup")
            .field("rank", &self.rank)
            .field("world", &self.world)
            .field("device", &self.device.describe())
            .field("aborted", &self.comm.0.get().is_null())
            .finish()
    }
}

impl NcclGroup {
    /// How long a collective or the set-up waits for the other ranks unless told otherwise.
    pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(120);

    /// This process's rank of a run the [launcher](super::launch()) started (or any launcher
    /// that sets the same variables, as torchrun does): rank and world from `RANK` and
    /// `WORLD_SIZE`, the GPU from `LOCAL_RANK` (else the rank), and the id from
    /// `WARPKIT_NCCL_ID` (hex) or through the file `WARPKIT_NCCL_ID_FILE` names (rank 0 writes
    /// it, see [`UniqueId::share_through_file`]). `Err(Environment)` where those are missing
    /// or malformed.
    pub fn from_env(timeout: Duration) -> Result<NcclGroup> {
        let rank = env_number(RANK)?.ok_or_else(|| unset(RANK))?;
        let world = env_number(WORLD_SIZE)?.ok_or_else(|| unset(WORLD_SIZE))?;
        let local = env_number(LOCAL_RANK)?.unwrap_or(rank);
        let id = match (std::env::var(ID_HEX), std::env::var_os(ID_FILE)) {
            (Ok(hex), _) => UniqueId::from_hex(&hex).ok_or_else(|| Error::Environment {
                name: ID_HEX,
                problem: format!("not {} hex digits", 2 * ID_BYTES),
            })?,
            (Err(_), Some(path)) => UniqueId::share_through_file(Path::new(&path), rank, timeout)?,
            (Err(_), None) => {
                return Err(Error::Environment {
                    name: ID_FILE,
                    problem: format!("neither it nor {ID_HEX} is set: start the ranks with warpkit-launch"),
                });
            }
        };
        NcclGroup::from_rank(&Device::gpu(local as usize)?, rank, world, &id, timeout)
    }

    /// Rank `rank` of `world` on `device` (a GPU), joining the communicator of `id` (every rank
    /// gives the same). Waits for every rank to join, at most `timeout` (then
    /// `Err(CollectiveTimeout)`).
    pub fn from_rank(
        device: &Device,
        rank: u32,
        world: u32,
        id: &UniqueId,
        timeout: Duration,
    ) -> Result<NcclGroup> {
        check_world(world)?;
        if rank >= world {
            return Err(Error::OutOfRange {
                what: "rank",
                value: rank as u64,
                min: 0,
                max: world as u64 - 1,
            });
        }
        let gpu = gpu_of(device)?;
        prepare()?;
        gpu.context().bind_to_thread()?;
        let (mut raw, mut config) = (std::ptr::null_mut(), Config::non_blocking());
        // SAFETY: `raw` receives the communicator; rank below world, both positive; `config`
        // is a configuration NCCL reads `size` bytes of.
        let made = unsafe {
            nccl::comm_init_rank_config(
                &mut raw,
                world as i32,
                id.raw(),
                rank as i32,
                (&raw mut config).cast(),
            )
        };
        let comm = Comm::of(raw);
        made.map_err(failed("ncclCommInitRankConfig"))?;
        settle(raw, "ncclCommInitRankConfig", &mut Wait::new(timeout, world))?;
        NcclGroup::of(comm, gpu, rank, world, timeout)
    }

    /// A group of `devices` (distinct GPUs) in this process, handle `r` on `devices[r]`
    /// (one NCCL group of `ncclCommInitRankConfig`s): give each handle to a thread of its own,
    /// since a rank's collective waits for the others'.
    pub fn from_devices(devices: &[Device], timeout: Duration) -> Result<Vec<NcclGroup>> {
        let world = u32::try_from(devices.len()).unwrap_or(u32::MAX);
        check_world(world)?;
        let gpus = devices.iter().map(gpu_of).collect::<Result<Vec<_>>>()?;
        let id = UniqueId::new()?;
        let mut config = Config::non_blocking();
        let mut comms = Vec::with_capacity(gpus.len());
        nccl::group_start().map_err(failed("ncclGroupStart"))?;
        let queued = (0..).zip(&gpus).try_for_each(|(rank, gpu)| {
            gpu.context().bind_to_thread()?;
            let mut raw = std::ptr::null_mut();
            // SAFETY: as in `from_rank`, for each rank in turn, in one NCCL group.
            let made = unsafe {
                nccl::comm_init_rank_config(&mut raw, world as i32, id.raw(), rank, (&raw mut config).cast())
            };
            comms.push(Comm::of(raw));
            made.map(drop).map_err(failed("ncclCommInitRankConfig"))
        });
        let ended = nccl::group_end().map_err(failed("ncclGroupEnd"));
        queued?;
        ended?;
        let mut wait = Wait::new(timeout, world);
        for comm in &comms {
            settle(comm.0.get(), "ncclCommInitRankConfig", &mut wait)?;
        }
        comms
            .into_iter()
            .zip(gpus)
            .zip(0..)
            .map(|((comm, gpu), rank)| NcclGroup::of(comm, gpu, rank, world, timeout))
            .collect()
    }

    fn of(comm: Comm, gpu: Gpu, rank: u32, world: u32, timeout: Duration) -> Result<NcclGroup> {
        let device = Device::Gpu(gpu.clone());
        let each = small_gather(world);
        let small = (device.workspace(each)?, device.workspace(each * world as usize)?);
        Ok(NcclGroup {
            comm,
            device,
            gpu,
            rank,
            world,
            timeout,
            small: RefCell::new(small),
        })
    }

    /// Sets how long each later collective waits for the other ranks.
    pub fn set_timeout(&mut self, timeout: Duration) {
        self.timeout = timeout;
    }

    /// The rank's device, on which its collectives run.
    pub fn device(&self) -> &Device {
        &self.device
    }

    /// Queues `call`'s work with `queue` on the device's stream and waits for it: at most the
    /// group's timeout, watching NCCL's asynchronous errors. Any failure aborts the
    /// communicator, and every later call is `Err(RankLeft)` for this rank.
    fn run(
        &self,
        call: &'static str,
        queue: impl FnOnce(sys::ncclComm_t, sys::cudaStream_t) -> std::result::Result<(), nccl::NcclError>,
    ) -> Result<()> {
        let comm = self.comm.0.get();
        if comm.is_null() {
            return Err(Error::RankLeft { rank: self.rank });
        }
        let result = self.wait_for(call, comm, queue);
        if result.is_err() {
            self.comm.abort();
        }
        result
    }

    fn wait_for(
        &self,
        call: &'static str,
        comm: sys::ncclComm_t,
        queue: impl FnOnce(sys::ncclComm_t, sys::cudaStream_t) -> std::result::Result<(), nccl::NcclError>,
    ) -> Result<()> {
        let mut wait = Wait::new(self.timeout, self.world);
        let stream = self.gpu.stream();
        self.gpu.context().bind_to_thread()?;
        queue(comm, stream.cu_stream() as sys::cudaStream_t).map_err(failed(call))?;
        // The operations are on the stream once NCCL's threads have queued them: only then
        // does an event after them mark their end.
        settle(comm, call, &mut wait)?;
        let done = stream.record_event(Some(cudarc::driver::sys::CUevent_flags::CU_EVENT_DISABLE_TIMING))?;
        while !done.try_is_complete()? {
            state(comm, call)?;
            wait.again()?;
        }
        Ok(())
    }

    /// Every rank's `bytes` (the same number on every rank, which the callers have agreed) in
    /// rank order.
    fn gather_equal(&self, bytes: &[u8]) -> Result<Vec<u8>> {
        if bytes.is_empty() {
            return Ok(Vec::new());
        }
        let all = bytes.len() * self.world as usize;
        if bytes.len() <= small_gather(self.world) {
            let mut small = self.small.borrow_mut();
            let (send, recv) = &mut *small;
            let mut padded = vec![0u8; send.len()];
            padded[..bytes.len()].copy_from_slice(bytes);
            self.leave_on(self.device.copy_from_host(&padded, send))?;
            // SAFETY: the group's own buffers: `send` holds the bytes, `recv` room for every
            // rank's; both outlive the call, which waits for the gather.
            unsafe { self.all_gather_raw(send.kernel_ptr(), recv.kernel_ptr(), bytes.len()) }?;
            let mut gathered = self.leave_on(self.device.download(recv))?;
            gathered.truncate(all);
            return Ok(gathered);
        }
        let send = self.leave_on(self.device.upload(bytes))?;
        let recv = self.leave_on(self.device.workspace::<u8>(all))?;
        // SAFETY: `send` holds the bytes and `recv` room for every rank's, on this rank's
        // device, alive until the stream has passed the gather (freed in stream order after it).
        unsafe { self.all_gather_raw(send.kernel_ptr(), recv.kernel_ptr(), bytes.len()) }?;
        self.leave_on(self.device.download(&recv))
    }

    /// Gathers `len` bytes a rank from `from` into `to`, rank after rank, and waits for it.
    ///
    /// # Safety
    /// `from` holds `len` bytes and `to` room for `world · len`, on this rank's device, alive
    /// until the gather is done.
    unsafe fn all_gather_raw(&self, from: *const u8, to: *mut u8, len: usize) -> Result<()> {
        self.run("ncclAllGather", |comm, stream| {
            // SAFETY: the caller's contract.
            unsafe {
                nccl::all_gather(
                    from.cast(),
                    to.cast(),
                    len,
                    sys::ncclDataType_t::ncclUint8,
                    comm,
                    stream,
                )
            }
            .map(drop)
        })
    }

    /// A device collective's operands, checked: this rank's own (the buffers and `device` are
    /// the group's, `out` holds `outputs` times `part`, `what`), gathered with `part`'s length
    /// in one all-gather, so that no rank gives NCCL a count the others do not and a rank whose
    /// checks failed is known to all: it returns its error, the others `Err(RankFailed)`, and a
    /// disagreement on lengths fails every rank alike; the group stays. Returns the length,
    /// NCCL's type and the two addresses; `None` where nothing moves.
    fn device_operands<T: Scalar>(
        &self,
        device: &Device,
        (part, out): (&DeviceBuffer<T>, &DeviceBuffer<T>),
        outputs: usize,
        what: &'static str,
    ) -> Result<Option<(usize, sys::ncclDataType_t, *const c_void, *mut c_void)>> {
        let kind = (|| {
            for buffer in [part, out] {
                self.device.check_owner(buffer)?;
            }
            device.check_owner(part)?;
            check_same_len(what, part.len() * outputs, out.len())?;
            data_type::<T>()
        })();
        let rows = self.gather_words(&[part.len() as u64, kind.is_ok() as u64])?;
        let kind = kind?;
        if let Some(rank) = rows.chunks_exact(2).position(|r| r[1] == 0) {
            return Err(Error::RankFailed { rank: rank as u32 });
        }
        agree(
            "elements reduced or gathered",
            &rows.chunks_exact(2).map(|r| r[0] as usize).collect::<Vec<_>>(),
        )?;
        let (from, to) = (
            part.kernel_ptr() as *const c_void,
            out.kernel_ptr() as *mut c_void,
        );
        Ok((!part.is_empty()).then_some((part.len(), kind, from, to)))
    }

    /// `result`, after leaving the group (aborting the communicator) where it is an error: for
    /// failures of this rank alone between collectives the other ranks go on with.
    fn leave_on<R>(&self, result: Result<R>) -> Result<R> {
        if result.is_err() {
            self.comm.abort();
        }
        result
    }

    /// Every rank's `words` (the same number on every rank) in rank order.
    fn gather_words(&self, words: &[u64]) -> Result<Vec<u64>> {
        let bytes = self.gather_equal(bytemuck::cast_slice(words))?;
        Ok(bytes.chunks_exact(8).map(bytemuck::pod_read_unaligned).collect())
    }

    /// Sends each rank `d` the next `outgoing[d]` bytes from `from` and receives from each
    /// rank `s` the next `incoming[s]` bytes into `to`, in one NCCL group (every rank's
    /// transfers at once), and waits for them. Empty parts queue nothing.
    ///
    /// # Safety
    /// `from` holds the sum of `outgoing` bytes and `to` room for the sum of `incoming`, on this
    /// rank's device (null where the sum is 0).
    unsafe fn send_recv(
        &self,
        (from, outgoing): (*const u8, &[usize]),
        (to, incoming): (*mut u8, &[usize]),
    ) -> Result<()> {
        const BYTES: sys::ncclDataType_t = sys::ncclDataType_t::ncclUint8;
        self.run("ncclSend/ncclRecv", |comm, stream| {
            nccl::group_start()?;
            let queued = (|| {
                let (mut sent, mut got) = (0, 0);
                for (peer, (&going, &coming)) in (0..).zip(outgoing.iter().zip(incoming)) {
                    // SAFETY: each part lies at its offset in `from`, each incoming part's
                    // room at its offset in `to` (the contract above); the call waits for the
                    // transfers.
                    unsafe {
                        if going > 0 {
                            nccl::send(from.wrapping_add(sent).cast(), going, BYTES, peer, comm, stream)?;
                        }
                        if coming > 0 {
                            nccl::recv(to.wrapping_add(got).cast(), coming, BYTES, peer, comm, stream)?;
                        }
                    }
                    (sent, got) = (sent + going, got + coming);
                }
                Ok(())
            })();
            let ended = nccl::group_end();
            queued.and(ended.map(drop))
        })
    }
}

/// NCCL's type of `T`.
fn data_type<T: Scalar>() -> Result<sys::ncclDataType_t> {
    use sys::ncclDataType_t::*;
    Ok(match T::NAME {
        "u32" => ncclUint32,
        "u64" => ncclUint64,
        "i32" => ncclInt32,
        "i64" => ncclInt64,
        "f32" => ncclFloat32,
        "f64" => ncclFloat64,
        other => return Err(Error::NcclUnavailable(format!("NCCL has no type for {other}"))),
    })
}

/// The variable `name` as a number, `None` where unset.
fn env_number(name: &'static str) -> Result<Option<u32>> {
    match std::env::var(name) {
        Err(std::env::VarError::NotPresent) => Ok(None),
        Ok(text) => text.trim().parse().map(Some).map_err(|_| Error::Environment {
            name,
            problem: format!("{text:?} is not a number"),
        }),
        Err(e) => Err(Error::Environment {
            name,
            problem: e.to_string(),
        }),
    }
}

fn unset(name: &'static str) -> Error {
    Error::Environment {
        name,
        problem: "not set".into(),
    }
}

impl Drop for NcclGroup {
    /// Finalizes the communicator (NCCL's threads finish this rank's work, a network peer's
    /// last transfer among it), then destroys it; past the group's timeout, or on an error, the
    /// communicator is aborted instead. An aborted group has nothing left to do.
    fn drop(&mut self) {
        let comm = self.comm.0.get();
        if comm.is_null() {
            return;
        }
        let finalized = self
            .gpu
            .context()
            .bind_to_thread()
            .map_err(Error::from)
            .and_then(|()| {
                // SAFETY: a live communicator of this rank, finalized once (it is destroyed or
                // aborted right after).
                unsafe { nccl::comm_finalize(comm) }.map_err(failed("ncclCommFinalize"))?;
                settle(comm, "ncclCommFinalize", &mut Wait::new(self.timeout, self.world))
            });
        if finalized.is_ok() {
            self.comm.0.set(std::ptr::null_mut());
            // SAFETY: the finalized communicator, destroyed once; its status is of no use to a
            // rank that is leaving.
            let _ = unsafe { nccl::comm_destroy(comm) };
        }
    }
}

impl Group for NcclGroup {
    fn rank(&self) -> u32 {
        self.rank
    }

    fn world(&self) -> u32 {
        self.world
    }

    fn all_gather_alike(&self, bytes: &[u8]) -> Result<Vec<u8>> {
        self.gather_equal(bytes)
    }

    fn all_gather_bytes(&self, bytes: &[u8]) -> Result<Vec<u8>> {
        let lens = self.gather_words(&[bytes.len() as u64])?;
        agree(
            "bytes gathered",
            &lens.iter().map(|&l| l as usize).collect::<Vec<_>>(),
        )?;
        self.gather_equal(bytes)
    }

    fn all_reduce_sum<T: Scalar>(
        &self,
        device: &Device,
        part: &DeviceBuffer<T>,
        out: &mut DeviceBuffer<T>,
    ) -> Result<()> {
        let operands = self.device_operands(device, (part, out), 1, "all-reduce output")?;
        let Some((len, kind, from, to)) = operands else {
            return Ok(());
        };
        self.run("ncclAllReduce", |comm, stream| {
            // SAFETY: `from` and `to` hold `len` elements of `kind` on this rank's device (their
            // owner checked), alive past the work (the caller's borrows last until it is done).
            unsafe { nccl::all_reduce(from, to, len, kind, sys::ncclRedOp_t::ncclSum, comm, stream) }
                .map(drop)
        })
    }

    fn all_gather_into<T: Scalar>(
        &self,
        device: &Device,
        part: &DeviceBuffer<T>,
        out: &mut DeviceBuffer<T>,
    ) -> Result<()> {
        let outputs = self.world as usize;
        let operands = self.device_operands(device, (part, out), outputs, "all-gather output")?;
        let Some((len, kind, from, to)) = operands else {
            return Ok(());
        };
        self.run("ncclAllGather", |comm, stream| {
            // SAFETY: `from` holds `len` elements of `kind` and `to` world times that, on this
            // rank's device, alive past the work.
            unsafe { nccl::all_gather(from, to, len, kind, comm, stream) }.map(drop)
        })
    }

    fn all_to_all_bytes(&self, sends: &[Vec<u8>]) -> Result<Vec<Vec<u8>>> {
        let parts = self.gather_words(&[sends.len() as u64])?;
        agree(
            "parts sent (one a rank)",
            &parts.iter().map(|&p| p as usize).collect::<Vec<_>>(),
        )?;
        check_parts_sent(self.world, sends.len())?;
        // `lens[s * world + d]`: what rank `s` sends rank `d`.
        let lens = self.gather_words(&sends.iter().map(|p| p.len() as u64).collect::<Vec<_>>())?;
        let (world, me) = (self.world as usize, self.rank as usize);
        let incoming: Vec<usize> = (0..world).map(|s| lens[s * world + me] as usize).collect();
        let outgoing = sends.concat();
        let received = incoming.iter().sum::<usize>();
        let mut parts = Vec::with_capacity(world);
        if outgoing.is_empty() && received == 0 {
            parts.resize(world, Vec::new());
            return Ok(parts);
        }
        // No buffer where nothing moves.
        let send = self.leave_on(
            (!outgoing.is_empty())
                .then(|| self.device.upload(&outgoing))
                .transpose(),
        )?;
        let recv = self.leave_on(
            (received > 0)
                .then(|| self.device.workspace::<u8>(received))
                .transpose(),
        )?;
        let (from, to) = (
            send.as_ref()
                .map_or(std::ptr::null(), |s| s.kernel_ptr() as *const u8),
            recv.as_ref().map_or(std::ptr::null_mut(), |r| r.kernel_ptr()),
        );
        let outgoing: Vec<usize> = sends.iter().map(Vec::len).collect();
        // SAFETY: `send` holds every part, `recv` room for every incoming one, on this rank's
        // device; both live past the call, which waits for the transfers.
        unsafe { self.send_recv((from, &outgoing), (to, &incoming)) }?;
        let all = match &recv {
            Some(recv) => self.device.download(recv)?,
            None => Vec::new(),
        };
        let mut at = 0;
        for len in incoming {
            parts.push(all[at..at + len].to_vec());
            at += len;
        }
        Ok(parts)
    }

    fn all_to_all_device<T: Pod>(
        &self,
        device: &Device,
        data: &DeviceBuffer<T>,
        sends: &[usize],
    ) -> Result<(DeviceBuffer<T>, Vec<usize>)> {
        let owned = self
            .device
            .check_owner(data)
            .and_then(|()| device.check_owner(data));
        let counts = agree_sends(self, data.len(), owned.map(|()| sends))?;
        let me = self.rank as usize;
        let incoming: Vec<usize> = counts.iter().map(|row| row[me] as usize).collect();
        // Every rank learns whether every other could make room before any transfer starts.
        let recv = agree_ok(self, self.device.workspace::<T>(incoming.iter().sum()))?;
        let bytes = |counts: &[usize]| -> Vec<usize> { counts.iter().map(|c| c * size_of::<T>()).collect() };
        // SAFETY: `data` holds what `sends` counts (agreed above) and `recv` what `incoming`
        // does, both on this rank's device (owners checked), alive past the call.
        unsafe {
            self.send_recv(
                (data.kernel_ptr() as *const u8, &bytes(sends)),
                (recv.kernel_ptr() as *mut u8, &bytes(&incoming)),
            )
        }?;
        Ok((recv, incoming))
    }
}

//! Starting a distributed run on this host: one process a rank ([`launch`]; the
//! `warpkit-launch` program is its command line), each told its rank by the variables torchrun
//! sets (`RANK`, `WORLD_SIZE`, `LOCAL_RANK`, `LOCAL_WORLD_SIZE`), and where to find NCCL's id
//! (`WARPKIT_NCCL_ID_FILE`: a fresh file of the run, which rank 0 writes). Every rank runs with
//! `NCCL_NVLS_ENABLE=0`. Across hosts, start one launcher a host with the ranks offset and one
//! id shared (see the README); NCCL's own transports carry the traffic.

use crate::error::{Error, Result};
use std::ffi::{OsStr, OsString};
#[cfg(feature = "nccl")]
use std::path::Path;
use std::path::PathBuf;
use std::process::{Child, Command, ExitStatus};
use std::time::Duration;

/// The rank of the process, below [`WORLD_SIZE`].
pub const RANK: &str = "RANK";
/// The ranks of the run.
pub const WORLD_SIZE: &str = "WORLD_SIZE";
/// The rank among this host's, which is the GPU the rank runs on.
pub const LOCAL_RANK: &str = "LOCAL_RANK";
/// The ranks on this host.
pub const LOCAL_WORLD_SIZE: &str = "LOCAL_WORLD_SIZE";
/// NCCL's id of the run as hex (for runs whose ranks do not share a file system).
pub const ID_HEX: &str = "WARPKIT_NCCL_ID";
/// A file through which rank 0 gives the others NCCL's id.
pub const ID_FILE: &str = "WARPKIT_NCCL_ID_FILE";

/// How a run ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Ended {
    /// Every rank exited successfully.
    Succeeded,
    /// A rank failed (the first seen); the others were stopped.
    RankFailed {
        /// The rank.
        rank: u32,
        /// How it ended.
        status: ExitStatus,
    },
}

/// Runs `program` with `args` as `world` ranks on this host and waits for them. The first rank
/// to fail stops the others (they are killed), so that none waits on it in a collective.
/// `Err(Launch)` if a rank cannot be started (those started are stopped).
pub fn launch(world: u32, program: impl AsRef<OsStr>, args: &[OsString]) -> Result<Ended> {
    super::plan::check_world(world)?;
    let run = RunDir::new()?;
    let mut children: Vec<Child> = Vec::with_capacity(world as usize);
    for rank in 0..world {
        let mut command = Command::new(program.as_ref());
        command
            .args(args)
            .env(RANK, rank.to_string())
            .env(WORLD_SIZE, world.to_string())
            .env(LOCAL_RANK, rank.to_string())
            .env(LOCAL_WORLD_SIZE, world.to_string())
            .env(ID_FILE, run.0.join("nccl-id"))
            // An id in the launcher's environment is an earlier run's: the file holds this one's.
            .env_remove(ID_HEX)
            .env("NCCL_NVLS_ENABLE", "0");
        #[cfg(feature = "nccl")]
        if let Some(dir) = nccl_link(&run.0) {
            command.env(
                "LD_LIBRARY_PATH",
                prepend_path(&dir, std::env::var_os("LD_LIBRARY_PATH")),
            );
        }
        match command.spawn() {
            Ok(child) => children.push(child),
            Err(e) => {
                stop(&mut children);
                return Err(Error::Launch(format!(
                    "rank {rank}: {}: {e}",
                    program.as_ref().to_string_lossy()
                )));
            }
        }
    }
    let mut exited = vec![false; children.len()];
    while exited.contains(&false) {
        std::thread::sleep(Duration::from_millis(20));
        for (rank, child) in (0..).zip(children.iter_mut()) {
            if exited[rank as usize] {
                continue;
            }
            let status = match child.try_wait() {
                Ok(status) => status,
                Err(e) => {
                    stop(&mut children);
                    return Err(Error::Launch(format!("rank {rank}: {e}")));
                }
            };
            match status {
                Some(status) if !status.success() => {
                    stop(&mut children);
                    return Ok(Ended::RankFailed { rank, status });
                }
                Some(_) => exited[rank as usize] = true,
                None => {}
            }
        }
    }
    Ok(Ended::Succeeded)
}

/// Kills and reaps every child still running.
fn stop(children: &mut [Child]) {
    for child in children.iter_mut() {
        let _ = child.kill();
    }
    for child in children {
        let _ = child.wait();
    }
}

/// The run's directory (for NCCL's id and, where needed, the library link), removed at its end.
struct RunDir(PathBuf);

impl RunDir {
    fn new() -> Result<RunDir> {
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos());
        let dir = std::env::temp_dir().join(format!("warpkit-run-{}-{nanos}", std::process::id()));
        std::fs::create_dir(&dir).map_err(|e| Error::Launch(format!("{}: {e}", dir.display())))?;
        Ok(RunDir(dir))
    }
}

impl Drop for RunDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// `dir` ahead of the search path `rest`.
#[cfg(feature = "nccl")]
fn prepend_path(dir: &Path, rest: Option<OsString>) -> OsString {
    std::env::join_paths(
        std::iter::once(dir.to_path_buf()).chain(rest.iter().flat_map(std::env::split_paths)),
    )
    .unwrap_or_else(|_| dir.as_os_str().to_owned())
}

/// Where NCCL is installed only as `libnccl.so.2` (its packages and wheels install no
/// `libnccl.so`, one of the names `cudarc` loads), a directory in `run` with `libnccl.so`
/// linked to it, for the ranks' library path; `None` where no link is needed or none is found.
#[cfg(feature = "nccl")]
fn nccl_link(run: &Path) -> Option<PathBuf> {
    // SAFETY: the probe loads the library (running only its initialisers) and drops it.
    if unsafe { cudarc::nccl::sys::is_culib_present() } {
        return None;
    }
    let dir = run.join("lib");
    if dir.join("libnccl.so").exists() {
        return Some(dir);
    }
    let found = installed("libnccl.so.2")?;
    std::fs::create_dir_all(&dir).ok()?;
    std::os::unix::fs::symlink(found, dir.join("libnccl.so")).ok()?;
    Some(dir)
}

/// The path of the library `name` in `LD_LIBRARY_PATH` or the linker's cache (`ldconfig -p`).
#[cfg(feature = "nccl")]
fn installed(name: &str) -> Option<PathBuf> {
    let in_path = std::env::var_os("LD_LIBRARY_PATH")
        .iter()
        .flat_map(std::env::split_paths)
        .map(|dir| dir.join(name))
        .find(|p| p.exists());
    in_path.or_else(|| {
        let cache = Command::new("ldconfig").arg("-p").output().ok()?;
        String::from_utf8_lossy(&cache.stdout).lines().find_map(|line| {
            let (entry, path) = line.trim().split_once(" => ")?;
            entry
                .starts_with(&format!("{name} "))
                .then(|| PathBuf::from(path))
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn run_directories_are_fresh_and_removed() {
        let (a, b) = (RunDir::new().unwrap(), RunDir::new().unwrap());
        assert_ne!(a.0, b.0);
        let path = a.0.clone();
        assert!(path.is_dir());
        drop(a);
        assert!(!path.exists());
    }
}

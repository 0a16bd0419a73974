//! `warpkit-launch [--ranks N] [--] PROGRAM [ARGS...]`: runs PROGRAM as N ranks of a distributed
//! run on this host, one process a rank (by default one a GPU), each told its rank, the world
//! and NCCL's id file by environment (see `warpkit::dist::launch`). Exits with the first failed
//! rank's status, after stopping the others.

use std::ffi::OsString;
use std::process::ExitCode;
use warpkit::dist::{Ended, launch};

const USAGE: &str = "usage: warpkit-launch [--ranks N] [--] PROGRAM [ARGS...]";

fn main() -> ExitCode {
    match run(std::env::args_os().skip(1).collect()) {
        Ok(code) => code,
        Err(message) => {
            eprintln!("warpkit-launch: {message}");
            ExitCode::from(2)
        }
    }
}

fn run(mut args: Vec<OsString>) -> Result<ExitCode, String> {
    let mut ranks = None;
    while let Some(first) = args.first().and_then(|a| a.to_str()) {
        match first {
            "--ranks" if args.len() > 1 => {
                let n = args[1].to_str().and_then(|n| n.parse().ok());
                ranks = Some(n.ok_or(format!("--ranks takes a number\n{USAGE}"))?);
                args.drain(..2);
            }
            "--" => {
                args.remove(0);
                break;
            }
            "-h" | "--help" => {
                println!("{USAGE}");
                return Ok(ExitCode::SUCCESS);
            }
            _ => break,
        }
    }
    if args.is_empty() {
        return Err(USAGE.into());
    }
    let ranks = match ranks {
        Some(n) => n,
        None => gpus()?,
    };
    let program = args.remove(0);
    match launch(ranks, &program, &args).map_err(|e| e.to_string())? {
        Ended::Succeeded => Ok(ExitCode::SUCCESS),
        Ended::RankFailed { rank, status } => {
            eprintln!("warpkit-launch: rank {rank} failed ({status}); the others were stopped");
            let code = status
                .code()
                .and_then(|c| u8::try_from(c).ok())
                .filter(|&c| c != 0);
            Ok(ExitCode::from(code.unwrap_or(1)))
        }
    }
}

/// The GPUs of this host, one rank each.
#[cfg(feature = "cuda")]
fn gpus() -> Result<u32, String> {
    match warpkit::Gpu::count() {
        Ok(n) if n > 0 => Ok(n as u32),
        Ok(_) => Err(format!("no GPU here: give --ranks\n{USAGE}")),
        Err(e) => Err(format!("{e}: give --ranks\n{USAGE}")),
    }
}

#[cfg(not(feature = "cuda"))]
fn gpus() -> Result<u32, String> {
    Err(format!("built without the GPU backend: give --ranks\n{USAGE}"))
}

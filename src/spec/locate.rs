//! Finding the pinned spec wheel, and fetching it with pip when it is missing.
//!
//! The wheel is input, not part of the repository, so it can live in several places. They are
//! tried in a fixed order so the result is predictable:
//!
//! 1. an explicit path (`--spec PATH`);
//! 2. the `AMDPCODE_SPEC` environment variable;
//! 3. `../shared/spec/<wheel>` and `shared/spec/<wheel>` relative to the current directory,
//!    then `shared/spec/<wheel>` in each further ancestor of it (CI checks the repository
//!    out in a fresh folder with `shared/` beside it);
//! 4. the user cache directory: `$AMDPCODE_CACHE`, else `$XDG_CACHE_HOME/amdpcode`, else
//!    `$HOME/.cache/amdpcode`.
//!
//! Steps 1 and 2 are a user's explicit choice, so a missing file there is an error rather
//! than a reason to look elsewhere. Only wheels in the cache (and freshly fetched ones) are
//! checked against the pinned SHA-256: the cache is ours to keep honest, while an explicit
//! path is the user's responsibility.

use std::ffi::OsString;
use std::fs;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{SystemTime, UNIX_EPOCH};

use sha2::{Digest, Sha256};

use super::SpecError;

/// The file name of the pinned wheel.
pub const WHEEL_FILE: &str = "tinygrad-0.14.0-py3-none-any.whl";

/// The pip requirement that downloads [`WHEEL_FILE`].
pub const WHEEL_REQUIREMENT: &str = "tinygrad==0.14.0";

/// The SHA-256 of [`WHEEL_FILE`], in lower-case hex.
pub const WHEEL_SHA256: &str = "d2a5bea33c637fdf105963632329876b3d3253d38295ac1ffd2ff81646d93be3";

/// How [`find_wheel`] should search.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Locate {
    /// A path given on the command line (`--spec PATH`); it wins over everything else.
    pub explicit: Option<PathBuf>,
    /// When set, never run pip: report [`SpecError::NotFound`] instead.
    pub offline: bool,
}

/// The process state the search depends on, gathered once so tests can supply their own.
#[derive(Clone, Debug, Default)]
struct Env {
    /// `AMDPCODE_SPEC`.
    spec: Option<PathBuf>,
    /// `AMDPCODE_CACHE`.
    cache: Option<PathBuf>,
    /// `XDG_CACHE_HOME`.
    xdg_cache_home: Option<PathBuf>,
    /// `HOME`.
    home: Option<PathBuf>,
    /// The current directory.
    cwd: Option<PathBuf>,
}

impl Env {
    fn from_process() -> Env {
        let var = |name: &str| {
            std::env::var_os(name)
                .filter(|v| !v.is_empty())
                .map(PathBuf::from)
        };
        Env {
            spec: var("AMDPCODE_SPEC"),
            cache: var("AMDPCODE_CACHE"),
            xdg_cache_home: var("XDG_CACHE_HOME"),
            home: var("HOME"),
            cwd: std::env::current_dir().ok(),
        }
    }

    /// The user cache directory for amdpcode.
    fn cache_dir(&self) -> Option<PathBuf> {
        if let Some(dir) = &self.cache {
            return Some(dir.clone());
        }
        // The XDG spec says relative values are invalid and must be ignored.
        if let Some(xdg) = self.xdg_cache_home.as_ref().filter(|p| p.is_absolute()) {
            return Some(xdg.join("amdpcode"));
        }
        self.home
            .as_ref()
            .map(|home| home.join(".cache").join("amdpcode"))
    }
}

/// The outcome of a search that did not fail outright.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Search {
    /// The wheel is here.
    Found(PathBuf),
    /// Nothing was found; these paths were checked.
    Missing {
        searched: Vec<PathBuf>,
        cache_dir: Option<PathBuf>,
    },
}

/// The user cache directory: `$AMDPCODE_CACHE`, else `$XDG_CACHE_HOME/amdpcode`, else
/// `$HOME/.cache/amdpcode`; `None` when none of those variables is set.
pub fn default_cache_dir() -> Option<PathBuf> {
    Env::from_process().cache_dir()
}

/// Finds the spec wheel (see the module docs for the order), fetching it into the cache with
/// pip when it is nowhere and `opts.offline` is false. Fetching prints one line to stderr.
///
/// # Errors
/// [`SpecError::NotFound`] when the wheel is missing and cannot be fetched (offline, an
/// explicit path or `AMDPCODE_SPEC` that does not exist, or no cache directory);
/// [`SpecError::HashMismatch`] when the cached wheel is not the pinned one; any error of
/// [`fetch`].
pub fn find_wheel(opts: &Locate) -> Result<PathBuf, SpecError> {
    match search(opts, &Env::from_process(), WHEEL_SHA256)? {
        Search::Found(path) => Ok(path),
        Search::Missing {
            searched,
            cache_dir,
        } => match cache_dir {
            Some(dir) if !opts.offline => {
                eprintln!(
                    "amdpcode: spec wheel not found; downloading {WHEEL_REQUIREMENT} with pip into {}",
                    dir.display()
                );
                fetch_into(&dir, WHEEL_SHA256)
            }
            _ => Err(SpecError::NotFound {
                searched,
                cache_dir,
            }),
        },
    }
}

/// Downloads the pinned wheel with `python3 -m pip download` into `cache_dir` (default:
/// [`default_cache_dir`]), checks its SHA-256, and returns its path. pip's own output is
/// captured and only shown when it fails.
///
/// # Errors
/// [`SpecError::NoCacheDir`] when no directory is given or known, [`SpecError::PipSpawn`] or
/// [`SpecError::PipFailed`] when pip cannot run or fails, [`SpecError::NoWheelDownloaded`]
/// when pip produced no wheel, [`SpecError::HashMismatch`] (after deleting the file) when the
/// download is not the pinned wheel, and [`SpecError::Io`] for file-system failures.
pub fn fetch(cache_dir: Option<&Path>) -> Result<PathBuf, SpecError> {
    let dir = match cache_dir {
        Some(dir) => dir.to_path_buf(),
        None => default_cache_dir().ok_or(SpecError::NoCacheDir)?,
    };
    fetch_into(&dir, WHEEL_SHA256)
}

/// Searches without fetching. `expected_sha256` is the digest a cached wheel must have.
fn search(opts: &Locate, env: &Env, expected_sha256: &str) -> Result<Search, SpecError> {
    let cache_dir = env.cache_dir();
    // An explicit choice that does not exist is an error, not a reason to look elsewhere.
    for chosen in [&opts.explicit, &env.spec].into_iter().flatten() {
        if chosen.is_file() {
            return Ok(Search::Found(chosen.clone()));
        }
        return Err(SpecError::NotFound {
            searched: vec![chosen.clone()],
            cache_dir,
        });
    }
    let mut searched = Vec::new();
    if let Some(cwd) = &env.cwd {
        let in_shared = |dir: &Path| dir.join("shared").join("spec").join(WHEEL_FILE);
        searched.push(in_shared(&cwd.join("..")));
        searched.push(in_shared(cwd));
        // The parent was covered by `..` above; continue with the grandparent.
        searched.extend(cwd.ancestors().skip(2).map(in_shared));
    }
    if let Some(found) = searched.iter().find(|p| p.is_file()) {
        return Ok(Search::Found(found.clone()));
    }
    if let Some(dir) = &cache_dir {
        let cached = dir.join(WHEEL_FILE);
        searched.push(cached.clone());
        if cached.is_file() {
            let actual = sha256_file(&cached)?;
            if actual != expected_sha256 {
                return Err(SpecError::HashMismatch {
                    path: cached,
                    expected: expected_sha256.to_string(),
                    actual,
                    removed: false,
                });
            }
            return Ok(Search::Found(cached));
        }
    }
    Ok(Search::Missing {
        searched,
        cache_dir,
    })
}

/// The lower-case hex SHA-256 of a file.
fn sha256_file(path: &Path) -> Result<String, SpecError> {
    let io_err = |source| SpecError::Io {
        path: path.to_path_buf(),
        source,
    };
    let mut file = fs::File::open(path).map_err(io_err)?;
    let mut hasher = Sha256::new();
    let mut buf = vec![0u8; 1 << 16];
    loop {
        let n = file.read(&mut buf).map_err(io_err)?;
        if n == 0 {
            break;
        }
        hasher.update(&buf[..n]);
    }
    Ok(hex(&hasher.finalize()))
}

fn hex(bytes: &[u8]) -> String {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut out = String::with_capacity(bytes.len() * 2);
    for &b in bytes {
        out.push(char::from(DIGITS[usize::from(b >> 4)]));
        out.push(char::from(DIGITS[usize::from(b & 15)]));
    }
    out
}

/// Removes a scratch directory when dropped, so every exit path of a fetch cleans up.
struct ScratchDir(PathBuf);

impl Drop for ScratchDir {
    fn drop(&mut self) {
        // Best effort: a leftover scratch directory is harmless.
        let _ = fs::remove_dir_all(&self.0);
    }
}

/// Downloads into a scratch directory inside `dir`, verifies, then moves the wheel into `dir`.
fn fetch_into(dir: &Path, expected_sha256: &str) -> Result<PathBuf, SpecError> {
    let io_err = |path: &Path| {
        let path = path.to_path_buf();
        move |source| SpecError::Io { path, source }
    };
    fs::create_dir_all(dir).map_err(io_err(dir))?;
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.subsec_nanos())
        .unwrap_or(0);
    let scratch = ScratchDir(dir.join(format!(".fetch-{}-{nanos}", std::process::id())));
    fs::create_dir(&scratch.0).map_err(io_err(&scratch.0))?;

    let args: Vec<OsString> = vec![
        "-m".into(),
        "pip".into(),
        "download".into(),
        "--no-deps".into(),
        "--only-binary=:all:".into(),
        WHEEL_REQUIREMENT.into(),
        "-d".into(),
        scratch.0.clone().into_os_string(),
    ];
    let command = format!(
        "python3 {}",
        args.iter()
            .map(|a| a.to_string_lossy())
            .collect::<Vec<_>>()
            .join(" ")
    );
    let output = Command::new("python3")
        .args(&args)
        .stdin(Stdio::null())
        .output()
        .map_err(|source| SpecError::PipSpawn {
            command: command.clone(),
            source,
        })?;
    if !output.status.success() {
        let stderr = String::from_utf8_lossy(&output.stderr);
        let lines: Vec<&str> = stderr.lines().collect();
        let tail = lines[lines.len().saturating_sub(20)..].join("\n");
        return Err(SpecError::PipFailed {
            command,
            status: output.status.code(),
            stderr: tail,
        });
    }
    let downloaded = scratch.0.join(WHEEL_FILE);
    if !downloaded.is_file() {
        return Err(SpecError::NoWheelDownloaded {
            dir: scratch.0.clone(),
        });
    }
    let actual = sha256_file(&downloaded)?;
    if actual != expected_sha256 {
        // The scratch directory, and the file with it, is removed on return.
        let removed = fs::remove_file(&downloaded).is_ok();
        return Err(SpecError::HashMismatch {
            path: downloaded,
            expected: expected_sha256.to_string(),
            actual,
            removed,
        });
    }
    let dest = dir.join(WHEEL_FILE);
    fs::rename(&downloaded, &dest).map_err(io_err(&dest))?;
    Ok(dest)
}

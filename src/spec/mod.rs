//! The instruction database: AMD's pseudocode and encoding tables, read from the pinned
//! `tinygrad==0.14.0` wheel without executing any Python.
//!
//! The wheel carries, per arch, four generated Python modules: `enum.py` (opcodes),
//! `ins.py` (encodings and bit fields), `operands.py` (operand formats and sizes) and
//! `str_pcode.py` (the pseudocode AMD printed in its manuals). A small purpose-built reader
//! (a tokenizer for Python literals plus a recursive reader, in `pyread/`) accepts exactly the
//! statement shapes those files use and reports anything else as [`SpecError::Shape`] with the
//! file and line, so a changed generator fails loudly instead of silently dropping entries.
//!
//! [`find_wheel`] decides *where* the wheel comes from (an explicit path, `AMDPCODE_SPEC`, a
//! `shared/spec/` folder beside the checkout, the user cache, or `pip download`), and
//! [`Spec::load`] turns it into one [`SpecDb`] per [`Arch`].

use std::collections::HashMap;
use std::fmt;
use std::hash::{BuildHasherDefault, Hasher};
use std::io;
use std::path::PathBuf;

mod arch;
mod cache;
mod codec;
mod db;
mod derive;
mod load;
mod locate;
mod pyread;
pub mod targets;

pub use arch::{Arch, Family, Fp8, Profile, Wheel};
pub use cache::{cache_file, CacheUse, HEADER_LEN as CACHE_HEADER_LEN};
pub use db::{BitField, Encoding, Instruction, Operand, Sources, SpecDb};
pub use derive::lent_text;
pub use load::{load_with as load_with_cache, Spec};
pub use locate::{
    default_cache_dir, fetch, find_wheel, Locate, WHEEL_FILE, WHEEL_REQUIREMENT, WHEEL_SHA256,
};

/// Everything that can go wrong while locating, fetching or reading the spec wheel.
#[derive(Debug)]
pub enum SpecError {
    /// A file could not be opened, read, written or moved.
    Io {
        /// The file or directory involved.
        path: PathBuf,
        /// The underlying error.
        source: io::Error,
    },
    /// The wheel is not a readable zip archive.
    Zip {
        /// The wheel.
        path: PathBuf,
        /// The error reported by the zip reader.
        source: zip::result::ZipError,
    },
    /// The wheel lacks one of the generated files this crate reads.
    MissingMember {
        /// The wheel.
        path: PathBuf,
        /// The member's path inside the archive.
        member: String,
    },
    /// A line of a generated Python file does not have the shape the reader expects.
    Shape {
        /// The file, as `<arch>/<name>.py`.
        file: String,
        /// The 1-based line number.
        line: usize,
        /// What was expected and what was found.
        message: String,
    },
    /// A name used in a generated file (an enum member, an alias target, a base class)
    /// is not defined where it must be.
    UnknownName {
        /// The file, as `<arch>/<name>.py`.
        file: String,
        /// The 1-based line number of the use.
        line: usize,
        /// The name as written, e.g. `SOP1Op.S_FOO`.
        name: String,
    },
    /// Something is defined twice where only one definition is allowed (an enum member,
    /// a dict key, operands or pseudocode for the same instruction).
    Duplicate {
        /// The file, as `<arch>/<name>.py`.
        file: String,
        /// The 1-based line of the second definition.
        line: usize,
        /// The 1-based line of the first definition.
        first_line: usize,
        /// The name defined twice.
        name: String,
    },
    /// The wheel was not found and fetching it was not allowed (or not possible).
    NotFound {
        /// Every path that was checked, in order.
        searched: Vec<PathBuf>,
        /// The user cache directory, when one could be determined.
        cache_dir: Option<PathBuf>,
    },
    /// No user cache directory could be determined (`AMDPCODE_CACHE`, `XDG_CACHE_HOME` and
    /// `HOME` are all unset).
    NoCacheDir,
    /// `python3` could not be started to download the wheel.
    PipSpawn {
        /// The command line that was attempted.
        command: String,
        /// The underlying error.
        source: io::Error,
    },
    /// `pip download` ran but failed.
    PipFailed {
        /// The command line that was run.
        command: String,
        /// The exit code, if the process exited normally.
        status: Option<i32>,
        /// The last lines pip wrote to stderr.
        stderr: String,
    },
    /// `pip download` succeeded but the expected wheel file is not where it should be.
    NoWheelDownloaded {
        /// The directory pip downloaded into.
        dir: PathBuf,
    },
    /// The arch is known but its instruction database is not built yet.
    NoDatabase {
        /// The arch.
        arch: Arch,
    },
    /// A wheel's SHA-256 is not the pinned one.
    HashMismatch {
        /// The wheel that was checked.
        path: PathBuf,
        /// The pinned digest.
        expected: String,
        /// The digest of the file.
        actual: String,
        /// Whether the file was deleted because of the mismatch.
        removed: bool,
    },
}

impl fmt::Display for SpecError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SpecError::Io { path, source } => write!(f, "{}: {source}", path.display()),
            SpecError::Zip { path, source } => {
                write!(f, "{}: not a readable wheel: {source}", path.display())
            }
            SpecError::MissingMember { path, member } => {
                write!(f, "{}: the wheel has no `{member}`", path.display())
            }
            SpecError::Shape {
                file,
                line,
                message,
            } => write!(f, "{file}:{line}: {message}"),
            SpecError::UnknownName { file, line, name } => {
                write!(f, "{file}:{line}: `{name}` is not defined")
            }
            SpecError::Duplicate {
                file,
                line,
                first_line,
                name,
            } => write!(
                f,
                "{file}:{line}: `{name}` is defined again (first defined on line {first_line})"
            ),
            SpecError::NotFound {
                searched,
                cache_dir,
            } => {
                writeln!(f, "the spec wheel {WHEEL_FILE} was not found; looked in:")?;
                for path in searched {
                    writeln!(f, "  {}", path.display())?;
                }
                if searched.is_empty() {
                    writeln!(f, "  (nowhere: no directory to search could be determined)")?;
                }
                let dest = match cache_dir {
                    Some(dir) => dir.display().to_string(),
                    None => "<dir>".to_string(),
                };
                writeln!(f, "to get it, run one of:")?;
                writeln!(f, "  amdpcode spec fetch")?;
                writeln!(
                    f,
                    "  python3 -m pip download --no-deps {WHEEL_REQUIREMENT} -d {dest}"
                )?;
                write!(
                    f,
                    "or pass --spec PATH (or set AMDPCODE_SPEC) to point at the wheel"
                )
            }
            SpecError::NoCacheDir => write!(
                f,
                "no cache directory: set AMDPCODE_CACHE, XDG_CACHE_HOME or HOME, or pass --spec PATH"
            ),
            SpecError::PipSpawn { command, source } => {
                write!(f, "could not run `{command}`: {source}")
            }
            SpecError::PipFailed {
                command,
                status,
                stderr,
            } => {
                match status {
                    Some(code) => write!(f, "`{command}` failed with exit code {code}")?,
                    None => write!(f, "`{command}` was terminated by a signal")?,
                }
                if !stderr.is_empty() {
                    write!(f, ":\n{stderr}")?;
                }
                Ok(())
            }
            SpecError::NoWheelDownloaded { dir } => write!(
                f,
                "pip reported success but {WHEEL_FILE} is not in {}",
                dir.display()
            ),
            SpecError::NoDatabase { arch } => {
                write!(f, "arch {arch}: instruction database not available yet")
            }
            SpecError::HashMismatch {
                path,
                expected,
                actual,
                removed,
            } => {
                write!(
                    f,
                    "{}: sha256 is {actual}, expected {expected}; this is not the pinned {WHEEL_REQUIREMENT} wheel",
                    path.display()
                )?;
                if *removed {
                    write!(f, " (the file was deleted)")
                } else {
                    write!(f, "; delete it and run `amdpcode spec fetch`")
                }
            }
        }
    }
}

impl std::error::Error for SpecError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            SpecError::Io { source, .. } | SpecError::PipSpawn { source, .. } => Some(source),
            SpecError::Zip { source, .. } => Some(source),
            _ => None,
        }
    }
}

/// A word-at-a-time multiply-rotate hash (the scheme of rustc's `FxHasher`), for the maps
/// keyed by the short names of the generated files and the assembler's mnemonic tables.
/// SipHash was a visible share of the load time, and its flooding resistance buys nothing
/// for a local tool reading a file the user chose; byte-at-a-time FNV-1a was slower on the
/// long instruction names.
#[derive(Clone, Copy, Debug, Default)]
pub struct FastHasher(u64);

impl FastHasher {
    const K: u64 = 0xf135_7aea_2e62_a9c5;

    #[inline]
    fn add(&mut self, word: u64) {
        self.0 = (self.0 ^ word).wrapping_mul(Self::K).rotate_left(26);
    }
}

impl Hasher for FastHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(8);
        for chunk in &mut chunks {
            let mut word = [0u8; 8];
            word.copy_from_slice(chunk);
            self.add(u64::from_le_bytes(word));
        }
        let rest = chunks.remainder();
        let mut word = [0u8; 8];
        word[..rest.len()].copy_from_slice(rest);
        // The length keeps "a" and "a\0" apart.
        self.add(u64::from_le_bytes(word) ^ ((rest.len() as u64) << 59));
    }

    fn write_u32(&mut self, n: u32) {
        self.add(u64::from(n));
    }

    fn write_u8(&mut self, n: u8) {
        self.add(u64::from(n));
    }

    fn write_usize(&mut self, n: usize) {
        self.add(n as u64);
    }
}

/// A hash map with the [`FastHasher`].
pub type FastMap<K, V> = HashMap<K, V, BuildHasherDefault<FastHasher>>;

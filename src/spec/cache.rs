//! The prepared-database cache: the parsed [`SpecDb`]s of the pinned wheel, kept in the
//! user cache so that a process does not parse the wheel's Python modules again.
//!
//! Parsing the four generated modules of three arches costs about 45 ms of CPU, most of a
//! small `amdpcode run`. The cache file holds the databases in a flat binary form
//! (`codec.rs`), one section per arch, and is trusted only when everything matches:
//! - the key: the wheel's sha256 and the hash of the code that reads wheels and writes this
//!   form (`build.rs` hashes `src/spec/`), plus the crate version: a changed wheel or reader
//!   makes the file stale. Hashing the 2.7 MB wheel costs 1.5 ms, so the header also records
//!   up to [`STAMP_SLOTS`] (size, modification time) stamps of wheel files whose sha256 was
//!   computed and matched; a wheel with a recorded stamp is not hashed again, any other is
//!   (and its stamp is added). Several slots let processes that find the wheel at different
//!   paths share the file without rewriting it in turn;
//! - the header has its own CRC-32, and the sections must tile the rest of the file
//!   exactly, so a truncated or extended file is caught before any section is read;
//! - each arch's section has its own CRC-32, checked when that arch is first used (a run of
//!   one arch reads and decodes only that arch's section, about a third of the file): a
//!   damaged section is caught. The file is written by this code alone, atomically, so a
//!   checksum against accidents is enough; the key above is compared byte for byte;
//! - the decoding itself, bounds-checked at every read (indices inside their tables).
//!
//! On any mismatch the wheel is parsed as without a cache and the file is rewritten
//! (atomically, through a temporary file and a rename). Only the pinned wheel
//! ([`super::WHEEL_SHA256`]) is cached, and `AMDPCODE_NO_SPEC_CACHE=1` turns the cache off.
//! A cache that cannot be written (read-only home) costs nothing but the parse.

use std::fs::File;
use std::io::{Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use sha2::{Digest, Sha256};

use super::codec::{self, Reader, Writer};
use super::db::{parse_wheel, SpecDb};
use super::{Arch, SpecError};

/// The file's first bytes.
const MAGIC: &[u8; 8] = b"AMDPSDB2";

/// How many wheel stamps the header records.
pub const STAMP_SLOTS: usize = 4;

/// What the cache depends on besides the wheel: the crate version and the reading code.
const CODE_KEY: &str = concat!(
    env!("CARGO_PKG_VERSION"),
    "-",
    env!("AMDPCODE_SPEC_CODE_HASH")
);

/// Where the stamps lie in the header (after the magic, the sha256 and the code key).
const STAMP_AT: usize = MAGIC.len() + 32 + 4 + CODE_KEY.len();

/// The header's length: stamps, section count, per section offset, length and CRC-32,
/// then the header's own CRC-32.
pub const HEADER_LEN: usize = STAMP_AT + STAMP_SLOTS * 16 + 4 + Arch::WHEEL.len() * 20 + 4;

/// A wheel file's (size, modification time in nanoseconds since the epoch).
type Stamp = (u64, u64);

/// Where [`crate::spec::load_with_cache`] got its databases from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CacheUse {
    /// Read from a valid cache file.
    Hit,
    /// Parsed from the wheel; the cache file was (re)written.
    Rebuilt,
    /// Parsed from the wheel and not cached (not the pinned wheel, or no writable cache).
    Bypassed,
}

/// What a load found: the cache file's sections (decoded arch by arch on first use), or
/// the wheel's databases parsed, in [`Arch::WHEEL`] order.
pub(super) enum Loaded {
    /// A valid cache file.
    Cached(Sections),
    /// The wheel, parsed.
    Parsed(Vec<SpecDb>),
}

/// Loads the wheel at `path`, using (and maintaining) the cache file in `dir`.
///
/// # Errors
/// Those of parsing the wheel (the cache itself never makes a load fail).
pub(super) fn load_with(path: &Path, dir: &Path) -> Result<(Loaded, CacheUse), SpecError> {
    let io = |source| SpecError::Io {
        path: path.to_path_buf(),
        source,
    };
    let stamp = wheel_stamp(&std::fs::metadata(path).map_err(io)?);
    let pinned = pinned_sha();
    let file = cache_file(dir, &pinned);
    if let Some(sections) = Sections::open(&file) {
        // The wheel's sha256 is the key. The header records the stamps of wheel files whose
        // sha256 was computed and matched: a recorded stamp stands for it; another stamp
        // means hashing the wheel again.
        if sections.stamps.contains(&stamp) {
            return Ok((Loaded::Cached(sections), CacheUse::Hit));
        }
        if wheel_sha(path)? == pinned {
            // Same content, new stamp: record it, so the next load need not hash again.
            let _ = sections.record_stamp(stamp);
            return Ok((Loaded::Cached(sections), CacheUse::Hit));
        }
        return Ok((Loaded::Parsed(parse_wheel(path)?), CacheUse::Bypassed));
    }
    if wheel_sha(path)? != pinned {
        return Ok((Loaded::Parsed(parse_wheel(path)?), CacheUse::Bypassed));
    }
    let dbs = parse_wheel(path)?;
    let refs: Vec<&SpecDb> = dbs.iter().collect();
    let written = write_file(&file, &encode_file(&refs, &pinned, stamp)).is_ok();
    Ok((
        Loaded::Parsed(dbs),
        if written {
            CacheUse::Rebuilt
        } else {
            CacheUse::Bypassed
        },
    ))
}

/// The pinned wheel's sha256 as bytes.
fn pinned_sha() -> [u8; 32] {
    let mut out = [0u8; 32];
    let hex = super::WHEEL_SHA256.as_bytes();
    for (i, b) in out.iter_mut().enumerate() {
        let digit = |c: u8| (c as char).to_digit(16).unwrap_or(0) as u8;
        *b = digit(hex[2 * i]) << 4 | digit(hex[2 * i + 1]);
    }
    out
}

/// The sha256 of the file at `path`.
fn wheel_sha(path: &Path) -> Result<[u8; 32], SpecError> {
    let wheel = std::fs::read(path).map_err(|source| SpecError::Io {
        path: path.to_path_buf(),
        source,
    })?;
    Ok(Sha256::digest(&wheel).into())
}

/// The wheel's size and modification time (nanoseconds since the epoch, 0 if unknown).
fn wheel_stamp(meta: &std::fs::Metadata) -> Stamp {
    let mtime = meta
        .modified()
        .ok()
        .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
        .map_or(0, |d| d.as_nanos() as u64);
    (meta.len(), mtime)
}

/// The cache file of a wheel in `dir`. The name holds the code key's hash too, so binaries
/// of different versions (or worktrees) each keep their own file instead of rewriting one
/// file in turn (each rewrite costs the next process a full parse).
pub fn cache_file(dir: &Path, wheel_sha: &[u8; 32]) -> PathBuf {
    let code = Sha256::digest(CODE_KEY.as_bytes());
    dir.join(format!(
        "specdb-{}-{}.bin",
        &hex(wheel_sha)[..16],
        &hex(&code)[..8]
    ))
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn write_file(file: &Path, bytes: &[u8]) -> std::io::Result<()> {
    if let Some(dir) = file.parent() {
        std::fs::create_dir_all(dir)?;
    }
    let tmp = file.with_extension(format!("tmp{}", std::process::id()));
    std::fs::write(&tmp, bytes)?;
    std::fs::rename(&tmp, file).inspect_err(|_| {
        let _ = std::fs::remove_file(&tmp);
    })
}

/// The header of a file whose sections (in [`Arch::WHEEL`] order) have the given lengths
/// and CRC-32s, with `stamps` recorded (unused slots are zero).
fn encode_header(wheel_sha: &[u8; 32], stamps: &[Stamp], sections: &[(u64, u32)]) -> Vec<u8> {
    let mut out = Writer(Vec::with_capacity(HEADER_LEN));
    out.0.extend_from_slice(MAGIC);
    out.0.extend_from_slice(wheel_sha);
    out.str(CODE_KEY);
    for slot in 0..STAMP_SLOTS {
        let (size, mtime) = stamps.get(slot).copied().unwrap_or((0, 0));
        out.u64(size);
        out.u64(mtime);
    }
    out.u32(sections.len() as u32);
    let mut offset = HEADER_LEN as u64;
    for &(len, crc) in sections {
        out.u64(offset);
        out.u64(len);
        out.u32(crc);
        offset += len;
    }
    let crc = crc32fast::hash(&out.0);
    out.u32(crc);
    debug_assert_eq!(out.0.len(), HEADER_LEN, "bug: header layout");
    out.0
}

/// The header and the sections: each arch's database as `codec.rs` writes it.
fn encode_file(dbs: &[&SpecDb], wheel_sha: &[u8; 32], stamp: Stamp) -> Vec<u8> {
    let sections: Vec<Vec<u8>> = dbs.iter().map(|db| codec::encode(db)).collect();
    let table: Vec<(u64, u32)> = sections
        .iter()
        .map(|s| (s.len() as u64, crc32fast::hash(s)))
        .collect();
    let mut out = encode_header(wheel_sha, &[stamp], &table);
    for s in &sections {
        out.extend_from_slice(s);
    }
    out
}

/// One arch's section: where it lies in the file, and its CRC-32.
#[derive(Clone, Copy, Debug)]
struct Section {
    offset: u64,
    len: u64,
    crc: u32,
}

/// An open cache file whose header holds: its sections are read, checked and decoded
/// when their arch is first used.
#[derive(Debug)]
pub(crate) struct Sections {
    /// The cache file, removed when a section turns out damaged (the next load rebuilds it).
    path: PathBuf,
    /// The open file. A rewrite replaces the file by a rename, so this handle keeps
    /// reading the file whose header was checked.
    file: Mutex<File>,
    /// The recorded wheel stamps (unused slots left out).
    stamps: Vec<Stamp>,
    /// The sections, in [`Arch::WHEEL`] order.
    sections: Vec<Section>,
}

impl Sections {
    /// Opens the cache file at `path` if its header is one this code wrote for the pinned
    /// wheel, intact (CRC-32), and its sections tile the rest of the file exactly.
    fn open(path: &Path) -> Option<Sections> {
        let mut file = File::open(path).ok()?;
        let file_len = file.metadata().ok()?.len();
        let mut header = [0u8; HEADER_LEN];
        file.read_exact(&mut header).ok()?;
        let (stamps, sections) = decode_header(&header, file_len)?;
        Some(Sections {
            path: path.to_path_buf(),
            file: Mutex::new(file),
            stamps,
            sections,
        })
    }

    /// Rewrites the file with `stamp` recorded first (the oldest stamp drops out when the
    /// slots are full); the sections are copied as they are.
    fn record_stamp(&self, stamp: Stamp) -> std::io::Result<()> {
        let mut bytes = Vec::new();
        {
            let mut file = self.file.lock().unwrap_or_else(|p| p.into_inner());
            file.seek(SeekFrom::Start(HEADER_LEN as u64))?;
            file.read_to_end(&mut bytes)?;
        }
        let mut stamps = vec![stamp];
        stamps.extend(self.stamps.iter().copied().filter(|s| *s != stamp));
        stamps.truncate(STAMP_SLOTS);
        let table: Vec<(u64, u32)> = self.sections.iter().map(|s| (s.len, s.crc)).collect();
        let mut out = encode_header(&pinned_sha(), &stamps, &table);
        out.extend_from_slice(&bytes);
        write_file(&self.path, &out)
    }

    /// The database of `arch`, if its section is intact and decodes. A damaged section
    /// removes the file, so the next load rebuilds it.
    pub(crate) fn decode(&self, arch: Arch) -> Option<SpecDb> {
        let db = self.try_decode(arch);
        if db.is_none() {
            let _ = std::fs::remove_file(&self.path);
        }
        db
    }

    fn try_decode(&self, arch: Arch) -> Option<SpecDb> {
        let pos = Arch::WHEEL.iter().position(|a| *a == arch)?;
        let section = *self.sections.get(pos)?;
        let len = usize::try_from(section.len).ok()?;
        // Read into spare capacity: no pass zeroing the buffer first.
        let mut bytes = Vec::with_capacity(len);
        {
            let mut file = self.file.lock().unwrap_or_else(|p| p.into_inner());
            file.seek(SeekFrom::Start(section.offset)).ok()?;
            (&mut *file)
                .take(section.len)
                .read_to_end(&mut bytes)
                .ok()?;
        }
        if bytes.len() != len {
            return None;
        }
        if crc32fast::hash(&bytes) != section.crc {
            return None;
        }
        codec::decode(&bytes, arch)
    }
}

/// The recorded stamps and the section table of a header, if it is intact, written by
/// this code for the pinned wheel, and its sections tile a file of `file_len` bytes.
fn decode_header(header: &[u8; HEADER_LEN], file_len: u64) -> Option<(Vec<Stamp>, Vec<Section>)> {
    let (body, crc) = header.split_at(HEADER_LEN - 4);
    if crc32fast::hash(body).to_le_bytes() != crc {
        return None;
    }
    let mut r = Reader { bytes: body, at: 0 };
    if r.take(MAGIC.len())? != MAGIC || r.take(32)? != pinned_sha() || r.str()? != CODE_KEY {
        return None;
    }
    let mut stamps = Vec::new();
    for _ in 0..STAMP_SLOTS {
        let stamp = (r.u64()?, r.u64()?);
        if stamp != (0, 0) {
            stamps.push(stamp);
        }
    }
    if r.u32()? as usize != Arch::WHEEL.len() {
        return None;
    }
    let mut sections = Vec::new();
    let mut end = HEADER_LEN as u64;
    for _ in Arch::WHEEL {
        let section = Section {
            offset: r.u64()?,
            len: r.u64()?,
            crc: r.u32()?,
        };
        if section.offset != end {
            return None;
        }
        end = end.checked_add(section.len)?;
        sections.push(section);
    }
    (end == file_len).then_some((stamps, sections))
}

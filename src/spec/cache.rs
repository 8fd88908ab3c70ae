//! The prepared-database cache: the parsed [`SpecDb`]s of the pinned wheel, kept in the
//! user cache so that a process does not parse the wheel's Python modules again.
//!
//! Parsing the four generated modules of three arches costs about 45 ms of CPU, most of a
//! small `amdpcode run`. The cache file holds the databases in a flat binary form and is
//! trusted only when everything matches:
//! - the key: the wheel's sha256 and the hash of the code that reads wheels and writes this
//!   form (`build.rs` hashes `src/spec/`), plus the crate version: a changed wheel or reader
//!   makes the file stale. Hashing the 2.7 MB wheel costs 1.5 ms, so the file also records
//!   the wheel's size and modification time when its sha256 was computed; while they are
//!   unchanged the recorded sha256 stands, otherwise the wheel is hashed again;
//! - each arch's section has its own sha256, checked when that arch is first used (a run
//!   of one arch decodes only that arch): a truncated or damaged file is caught;
//! - the decoding itself, bounds-checked at every read (indices inside their tables).
//!
//! On any mismatch the wheel is parsed as without a cache and the file is rewritten
//! (atomically, through a temporary file and a rename). Only the pinned wheel
//! ([`super::WHEEL_SHA256`]) is cached, and `AMDPCODE_NO_SPEC_CACHE=1` turns the cache off.
//! A cache that cannot be written (read-only home) costs nothing but the parse.

use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

use super::db::{BitField, Encoding, Instruction, Operand, Spec, SpecDb};
use super::{Arch, SpecError};

/// The file's first bytes.
const MAGIC: &[u8; 8] = b"AMDPSDB1";

/// What the cache depends on besides the wheel: the crate version and the reading code.
const CODE_KEY: &str = concat!(
    env!("CARGO_PKG_VERSION"),
    "-",
    env!("AMDPCODE_SPEC_CODE_HASH")
);

/// Loads `path` through the cache in the user cache directory.
pub(super) fn load(path: &Path) -> Result<Spec, SpecError> {
    let off = std::env::var_os("AMDPCODE_NO_SPEC_CACHE").is_some_and(|v| v != "0" && !v.is_empty());
    match super::default_cache_dir() {
        Some(dir) if !off => load_with(path, &dir).map(|(spec, _)| spec),
        _ => Spec::load_uncached(path),
    }
}

/// Where a [`load_with`] got its databases from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CacheUse {
    /// Read from a valid cache file.
    Hit,
    /// Parsed from the wheel; the cache file was (re)written.
    Rebuilt,
    /// Parsed from the wheel and not cached (not the pinned wheel, or no writable cache).
    Bypassed,
}

/// Loads the wheel at `path`, using (and maintaining) the cache file in `dir`.
///
/// # Errors
/// Those of [`Spec::load_uncached`] (the cache itself never makes a load fail).
pub fn load_with(path: &Path, dir: &Path) -> Result<(Spec, CacheUse), SpecError> {
    let io = |source| SpecError::Io {
        path: path.to_path_buf(),
        source,
    };
    let stamp = wheel_stamp(&std::fs::metadata(path).map_err(io)?);
    let pinned = pinned_sha();
    let file = cache_file(dir, &pinned);
    // The cache of the pinned wheel, if this wheel is it.
    let cached = std::fs::read(&file)
        .ok()
        .and_then(|bytes| decode_file(&file, bytes));
    if let Some((sections, cached_stamp)) = cached {
        // The wheel's sha256 is the key. The file records the wheel's size and modification
        // time when that sha256 was computed: unchanged, the sha256 stands; changed, the
        // wheel is hashed again.
        if cached_stamp == stamp {
            return Ok((Spec::from_sections(path, sections), CacheUse::Hit));
        }
        if wheel_sha(path)? == pinned {
            // Same content, new stamp: record it, so the next load need not hash again.
            let _ = write_file(&file, &sections.with_stamp(stamp));
            return Ok((Spec::from_sections(path, sections), CacheUse::Hit));
        }
        return Ok((Spec::load_uncached(path)?, CacheUse::Bypassed));
    }
    if wheel_sha(path)? != pinned {
        return Ok((Spec::load_uncached(path)?, CacheUse::Bypassed));
    }
    let spec = Spec::load_uncached(path)?;
    let written = write_file(&file, &encode_file(&spec.dbs(), &pinned, stamp)).is_ok();
    Ok((
        spec,
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
fn wheel_stamp(meta: &std::fs::Metadata) -> (u64, u64) {
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

/// Header (magic, wheel sha256, code key, wheel size and mtime, section table) and the
/// sections: per arch its length and sha256, then the bytes.
fn encode_file(dbs: &[&SpecDb], wheel_sha: &[u8; 32], stamp: (u64, u64)) -> Vec<u8> {
    let sections: Vec<Vec<u8>> = dbs
        .iter()
        .map(|db| {
            let mut w = Writer(Vec::new());
            encode_db(&mut w, db);
            w.0
        })
        .collect();
    let mut out = Writer(Vec::new());
    out.0.extend_from_slice(MAGIC);
    out.0.extend_from_slice(wheel_sha);
    out.str(CODE_KEY);
    out.u64(stamp.0);
    out.u64(stamp.1);
    out.u32(sections.len() as u32);
    for s in &sections {
        out.u64(s.len() as u64);
        out.0.extend_from_slice(&Sha256::digest(s));
    }
    for s in &sections {
        out.0.extend_from_slice(s);
    }
    out.0
}

/// A cache file's per-arch sections, each checked against its sha256 and decoded when its
/// arch is first used.
#[derive(Debug)]
pub(crate) struct Sections {
    /// The cache file, removed when a section turns out damaged (the next load rebuilds it).
    file: PathBuf,
    bytes: Vec<u8>,
    /// Byte ranges and sha256 of the sections, in [`Arch::ALL`] order.
    sections: Vec<(std::ops::Range<usize>, [u8; 32])>,
}

/// Where the wheel stamp lies in the header (after the magic, the sha256 and the code key).
const STAMP_AT: usize = MAGIC.len() + 32 + 4 + CODE_KEY.len();

impl Sections {
    /// The file's bytes with `stamp` recorded in the header.
    fn with_stamp(&self, stamp: (u64, u64)) -> Vec<u8> {
        let mut bytes = self.bytes.clone();
        bytes[STAMP_AT..STAMP_AT + 8].copy_from_slice(&stamp.0.to_le_bytes());
        bytes[STAMP_AT + 8..STAMP_AT + 16].copy_from_slice(&stamp.1.to_le_bytes());
        bytes
    }

    /// The database of `arch`, if its section is intact and decodes.
    pub(crate) fn decode(&self, arch: Arch) -> Option<SpecDb> {
        let db = self.try_decode(arch);
        if db.is_none() {
            let _ = std::fs::remove_file(&self.file);
        }
        db
    }

    fn try_decode(&self, arch: Arch) -> Option<SpecDb> {
        let pos = Arch::ALL.iter().position(|a| *a == arch)?;
        let (range, sum) = self.sections.get(pos)?;
        let bytes = self.bytes.get(range.clone())?;
        if Sha256::digest(bytes).as_slice() != sum {
            return None;
        }
        let mut r = Reader { bytes, at: 0 };
        let db = decode_db(&mut r)?;
        (r.at == bytes.len() && db.arch() == arch).then_some(db)
    }
}

/// The sections and recorded wheel stamp of a cache file written by this code for the
/// pinned wheel, if its layout holds together (section contents are checked on use).
fn decode_file(file: &Path, bytes: Vec<u8>) -> Option<(Sections, (u64, u64))> {
    let mut r = Reader {
        bytes: &bytes,
        at: 0,
    };
    if r.take(MAGIC.len())? != MAGIC || r.take(32)? != pinned_sha() || r.str()? != CODE_KEY {
        return None;
    }
    debug_assert_eq!(r.at, STAMP_AT, "bug: header layout");
    let stamp = (r.u64()?, r.u64()?);
    if r.u32()? as usize != Arch::ALL.len() {
        return None;
    }
    let mut table = Vec::new();
    for _ in Arch::ALL {
        let n = usize::try_from(r.u64()?).ok()?;
        let sum: [u8; 32] = r.take(32)?.try_into().ok()?;
        table.push((n, sum));
    }
    let mut sections = Vec::new();
    for (n, sum) in table {
        let at = r.at;
        r.take(n)?;
        sections.push((at..at + n, sum));
    }
    (r.at == bytes.len()).then(|| {
        let file = file.to_path_buf();
        (
            Sections {
                file,
                bytes,
                sections,
            },
            stamp,
        )
    })
}

fn encode_db(w: &mut Writer, db: &SpecDb) {
    w.u32(Arch::ALL.iter().position(|a| *a == db.arch()).unwrap_or(0) as u32);
    w.u32(db.instructions().len() as u32);
    for i in db.instructions() {
        w.str(&i.name);
        w.str(&i.encoding);
        w.u32(i.opcode);
        w.u32(i.aliases.len() as u32);
        for a in &i.aliases {
            w.str(a);
        }
        w.u32(i.operands.len() as u32);
        for o in &i.operands {
            w.str(&o.field);
            w.str(&o.format);
            w.u32(o.bits);
            w.str(&o.kind);
        }
        w.opt_str(i.pcode.as_deref());
    }
    w.u32(db.encodings().len() as u32);
    for e in db.encodings() {
        w.str(&e.name);
        w.opt_str(e.base.as_deref());
        w.u32(e.fields.len() as u32);
        for f in &e.fields {
            w.str(&f.name);
            w.u32(f.hi);
            w.u32(f.lo);
            w.str(&f.kind);
            match f.fixed {
                Some(v) => {
                    w.u32(1);
                    w.u64(v);
                }
                None => w.u32(0),
            }
            w.opt_str(f.default.as_deref());
        }
        w.opt_str(e.op_enum.as_deref());
        w.u32(e.opcodes.len() as u32);
        for &op in &e.opcodes {
            w.u32(op);
        }
    }
    w.u32(db.pcode_order().len() as u32);
    for &i in db.pcode_order() {
        w.u32(i);
    }
}

fn decode_db(r: &mut Reader<'_>) -> Option<SpecDb> {
    let arch = *Arch::ALL.get(r.u32()? as usize)?;
    let n = r.count()?;
    let mut instructions = Vec::with_capacity(n);
    for _ in 0..n {
        let name = r.string()?;
        let encoding = r.string()?;
        let opcode = r.u32()?;
        let aliases = (0..r.count()?)
            .map(|_| r.string())
            .collect::<Option<Vec<_>>>()?;
        let operands = (0..r.count()?)
            .map(|_| {
                Some(Operand {
                    field: r.string()?,
                    format: r.string()?,
                    bits: r.u32()?,
                    kind: r.string()?,
                })
            })
            .collect::<Option<Vec<_>>>()?;
        let pcode = r.opt_string()?;
        instructions.push(Instruction {
            name,
            encoding,
            opcode,
            aliases,
            operands,
            pcode,
        });
    }
    let n = r.count()?;
    let mut encodings = Vec::with_capacity(n);
    for _ in 0..n {
        let name = r.string()?;
        let base = r.opt_string()?;
        let fields = (0..r.count()?)
            .map(|_| {
                let name = r.string()?;
                let hi = r.u32()?;
                let lo = r.u32()?;
                let kind = r.string()?;
                let fixed = match r.u32()? {
                    0 => None,
                    1 => Some(r.u64()?),
                    _ => return None,
                };
                (lo <= hi && hi < 128).then_some(())?;
                Some(BitField {
                    name,
                    hi,
                    lo,
                    kind,
                    fixed,
                    default: r.opt_string()?,
                })
            })
            .collect::<Option<Vec<_>>>()?;
        let op_enum = r.opt_string()?;
        let opcodes = (0..r.count()?)
            .map(|_| r.u32())
            .collect::<Option<Vec<_>>>()?;
        encodings.push(Encoding {
            name,
            base,
            fields,
            op_enum,
            opcodes,
        });
    }
    let pcode_order = (0..r.count()?)
        .map(|_| r.u32().filter(|&i| (i as usize) < instructions.len()))
        .collect::<Option<Vec<_>>>()?;
    Some(SpecDb::from_parts(
        arch,
        instructions,
        encodings,
        pcode_order,
    ))
}

struct Writer(Vec<u8>);

impl Writer {
    fn u32(&mut self, v: u32) {
        self.0.extend_from_slice(&v.to_le_bytes());
    }
    fn u64(&mut self, v: u64) {
        self.0.extend_from_slice(&v.to_le_bytes());
    }
    fn str(&mut self, s: &str) {
        self.u32(s.len() as u32);
        self.0.extend_from_slice(s.as_bytes());
    }
    fn opt_str(&mut self, s: Option<&str>) {
        match s {
            Some(s) => {
                self.u32(1);
                self.str(s);
            }
            None => self.u32(0),
        }
    }
}

/// A bounds-checked reader: every read returns `None` past the end.
struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> Option<&'a [u8]> {
        let end = self.at.checked_add(n)?;
        let s = self.bytes.get(self.at..end)?;
        self.at = end;
        Some(s)
    }
    fn u32(&mut self) -> Option<u32> {
        Some(u32::from_le_bytes(self.take(4)?.try_into().ok()?))
    }
    fn u64(&mut self) -> Option<u64> {
        Some(u64::from_le_bytes(self.take(8)?.try_into().ok()?))
    }
    /// A length, checked against the bytes left (each element takes at least 4).
    fn count(&mut self) -> Option<usize> {
        let n = self.u32()? as usize;
        (n <= (self.bytes.len() - self.at) / 4).then_some(n)
    }
    fn str(&mut self) -> Option<&'a str> {
        let n = self.u32()? as usize;
        std::str::from_utf8(self.take(n)?).ok()
    }
    fn string(&mut self) -> Option<String> {
        self.str().map(str::to_string)
    }
    fn opt_string(&mut self) -> Option<Option<String>> {
        match self.u32()? {
            0 => Some(None),
            1 => Some(Some(self.string()?)),
            _ => None,
        }
    }
}

//! The byte form of one arch's [`SpecDb`] in the prepared-database cache (`cache.rs`):
//! length-prefixed strings and little-endian integers, read back by a reader that checks
//! every bound (a bad index or length makes the section undecodable, never a panic).

use super::db::{BitField, Encoding, Instruction, Operand, SpecDb};
use super::Arch;

/// The bytes of `db`.
pub(super) fn encode(db: &SpecDb) -> Vec<u8> {
    let mut w = Writer(Vec::new());
    encode_db(&mut w, db);
    w.0
}

/// The database in `bytes` (all of them), if it decodes and is of `arch`.
pub(super) fn decode(bytes: &[u8], arch: Arch) -> Option<SpecDb> {
    let mut r = Reader { bytes, at: 0 };
    let db = decode_db(&mut r)?;
    (r.at == bytes.len() && db.arch() == arch).then_some(db)
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

pub(super) struct Writer(pub(super) Vec<u8>);

impl Writer {
    pub(super) fn u32(&mut self, v: u32) {
        self.0.extend_from_slice(&v.to_le_bytes());
    }
    pub(super) fn u64(&mut self, v: u64) {
        self.0.extend_from_slice(&v.to_le_bytes());
    }
    pub(super) fn str(&mut self, s: &str) {
        self.u32(s.len() as u32);
        self.0.extend_from_slice(s.as_bytes());
    }
    pub(super) fn opt_str(&mut self, s: Option<&str>) {
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
pub(super) struct Reader<'a> {
    pub(super) bytes: &'a [u8],
    pub(super) at: usize,
}

impl<'a> Reader<'a> {
    pub(super) fn take(&mut self, n: usize) -> Option<&'a [u8]> {
        let end = self.at.checked_add(n)?;
        let s = self.bytes.get(self.at..end)?;
        self.at = end;
        Some(s)
    }
    pub(super) fn u32(&mut self) -> Option<u32> {
        Some(u32::from_le_bytes(self.take(4)?.try_into().ok()?))
    }
    pub(super) fn u64(&mut self) -> Option<u64> {
        Some(u64::from_le_bytes(self.take(8)?.try_into().ok()?))
    }
    /// A length, checked against the bytes left (each element takes at least 4).
    pub(super) fn count(&mut self) -> Option<usize> {
        let n = self.u32()? as usize;
        (n <= (self.bytes.len() - self.at) / 4).then_some(n)
    }
    pub(super) fn str(&mut self) -> Option<&'a str> {
        let n = self.u32()? as usize;
        std::str::from_utf8(self.take(n)?).ok()
    }
    pub(super) fn string(&mut self) -> Option<String> {
        self.str().map(str::to_string)
    }
    pub(super) fn opt_string(&mut self) -> Option<Option<String>> {
        match self.u32()? {
            0 => Some(None),
            1 => Some(Some(self.string()?)),
            _ => None,
        }
    }
}

//! An instruction's encoding as the site draws it: the bit layout of its `ins.py` class as an
//! HTML table (fixed bits and the opcode filled in), and an example in LLVM syntax made by
//! the assembler, with its bytes.

use std::fmt::Write;

use crate::isa::Isa;
use crate::spec::{Encoding, Instruction};

use super::html::esc;

/// The opcode field of an encoding (`op`; VOPD's `opx`, `opy` have no single opcode).
fn is_opcode_field(name: &str) -> bool {
    name == "op"
}

/// The bit layout of `inst` in `enc`, one table row pair per 32-bit word, highest bit first.
pub fn layout_table(enc: &Encoding, inst: &Instruction) -> String {
    let top = enc.fields.iter().map(|f| f.hi + 1).max().unwrap_or(32);
    let words = top.div_ceil(32);
    let mut s = String::new();
    for w in 0..words {
        let (lo_bit, hi_bit) = (w * 32, w * 32 + 31);
        // The fields that meet this word, clipped to it, highest first.
        let mut cells: Vec<(u32, u32, String, String, &str)> = Vec::new();
        for f in &enc.fields {
            if f.hi < lo_bit || f.lo > hi_bit {
                continue;
            }
            let (hi, lo) = (f.hi.min(hi_bit), f.lo.max(lo_bit));
            let width = f.hi + 1 - f.lo;
            let value = if let Some(v) = f.fixed {
                Some(v)
            } else if is_opcode_field(&f.name) {
                Some(u64::from(inst.opcode))
            } else {
                None
            };
            let (text, class) = match value {
                Some(v) => {
                    let all = format!("{v:0width$b}", width = width as usize);
                    // The clipped part of the binary string (index 0 is bit f.hi).
                    let a = (f.hi - hi) as usize;
                    let b = (f.hi - lo) as usize + 1;
                    let part = all.get(a..b).unwrap_or(&all).to_string();
                    (part, if f.fixed.is_some() { "fixed" } else { "op" })
                }
                None => (f.name.to_ascii_uppercase(), "field"),
            };
            cells.push((hi, lo, f.name.to_ascii_uppercase(), text, class));
        }
        cells.sort_by_key(|c| std::cmp::Reverse(c.0));
        // Bits no field covers.
        let mut filled: Vec<(u32, u32, String, String, &str)> = Vec::new();
        let mut next = hi_bit as i64;
        for c in cells {
            if (c.0 as i64) < next {
                filled.push((next as u32, c.0 + 1, String::new(), "-".into(), "gap"));
            }
            next = c.1 as i64 - 1;
            filled.push(c);
        }
        if next >= lo_bit as i64 {
            filled.push((next as u32, lo_bit, String::new(), "-".into(), "gap"));
        }
        let _ = write!(
            s,
            "<table class=\"bits\"><colgroup>{}</colgroup><tr>",
            "<col style=\"width:3.125%\">".repeat(32)
        );
        for (hi, lo, name, text, class) in &filled {
            let span = hi + 1 - lo;
            let title = if name.is_empty() {
                String::new()
            } else {
                format!(" title=\"{}\"", esc(name))
            };
            let _ = write!(
                s,
                "<td colspan=\"{span}\" class=\"{class}\"{title}>{}</td>",
                esc(text)
            );
        }
        s.push_str("</tr><tr>");
        for (hi, lo, _, _, _) in &filled {
            let span = hi + 1 - lo;
            let range = if hi == lo {
                format!("{hi}")
            } else {
                format!("{hi}:{lo}")
            };
            let _ = write!(s, "<th colspan=\"{span}\">{range}</th>");
        }
        s.push_str("</tr></table>\n");
    }
    s
}

/// An example of `inst` in LLVM syntax: a word with its opcode, fixed bits, the fields'
/// defaults and distinct registers in its register fields, decoded and printed by the
/// disassembler, and the assembler's bytes for that text (only when the text round-trips:
/// those bytes disassemble to the same text).
pub fn assembled_example(
    isa: &Isa,
    enc: &Encoding,
    inst: &Instruction,
) -> Option<(String, Vec<u8>)> {
    let top = enc.fields.iter().map(|f| f.hi + 1).max()?;
    let size = (top.div_ceil(32) * 4).min(16) as usize;
    // Attempts: registers and defaults (`NULL` as RDNA's null register, then as the
    // `off` code of older generations), registers only, every free field zero.
    for (with_regs, null) in [
        (true, Some(124)),
        (true, Some(127)),
        (true, None),
        (false, None),
    ] {
        let mut bits: u128 = 0;
        let mut next = 1u64;
        for f in &enc.fields {
            let value = if let Some(v) = f.fixed {
                v
            } else if is_opcode_field(&f.name) {
                u64::from(inst.opcode)
            } else if let Some(d) = f.default.as_deref().filter(|_| null.is_some()) {
                match d.parse::<u64>() {
                    Ok(v) => v,
                    Err(_) if d == "NULL" => null.unwrap_or(0),
                    Err(_) => 0,
                }
            } else if !with_regs {
                0
            } else {
                let v = match f.kind.as_str() {
                    // Aligned so that 64- and 128-bit operands are legal on every arch.
                    "VGPRField" => Some(2 * next),
                    "SGPRField" | "SSrcField" => Some(4 * next),
                    "SrcField" => Some(256 + 2 * next),
                    _ => None,
                };
                if v.is_some() {
                    next += 1;
                }
                v.unwrap_or(0)
            };
            let width = f.hi + 1 - f.lo;
            let mask = if width >= 128 {
                u128::MAX
            } else {
                (1u128 << width) - 1
            };
            bits = (bits & !(mask << f.lo)) | ((u128::from(value) & mask) << f.lo);
        }
        let bytes: Vec<u8> = bits.to_le_bytes()[..size].to_vec();
        let Ok((decoded, len)) = isa.decode(&bytes) else {
            continue;
        };
        if decoded.name != inst.name || len != bytes.len() {
            continue;
        }
        // The text assembles, and its bytes disassemble to the same text (a field the
        // text does not show, such as VOPCX's unused destination, may differ from the word
        // made up above).
        let text = isa.print(&decoded);
        let Ok(b) = isa.assemble(&text) else {
            continue;
        };
        let again = isa
            .decode(&b)
            .ok()
            .filter(|(i, n)| *n == b.len() && i.name == inst.name);
        if again.is_some_and(|(i, _)| isa.print(&i) == text) {
            return Some((text, b));
        }
    }
    None
}

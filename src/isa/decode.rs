//! Bytes → [`Inst`]: find the format whose fixed bits match, read the opcode, pick the
//! variant (`_LIT` when a source field holds the literal code), then read every field.

use super::inst::{known_src, literal_bytes, value_of, DecodeError, Inst, Operand, Value};
use super::operands::{Reg, LITERAL};
use super::tables::{Format, InstInfo, Tables};

/// Reads up to 16 bytes little-endian.
fn read_bits(bytes: &[u8]) -> u128 {
    let mut buf = [0u8; 16];
    let n = bytes.len().min(16);
    buf[..n].copy_from_slice(&bytes[..n]);
    u128::from_le_bytes(buf)
}

/// The instruction of `fmt` (a base format) encoded in `bits`, if the opcode is valid.
fn lookup<'t>(tables: &'t Tables, fmt: &Format, bits: u128) -> Option<&'t InstInfo> {
    let op = fmt.field("op")?.get(bits) as u32;
    if !fmt.family_opcodes.is_empty() && !fmt.family_opcodes.contains(&op) {
        return None;
    }
    let &idx = tables.by_opcode.get(&(fmt.family.clone(), op))?;
    Some(&tables.insts[idx])
}

pub(crate) fn decode(tables: &Tables, bytes: &[u8]) -> Result<(Inst, usize), DecodeError> {
    if bytes.len() < 4 {
        return Err(DecodeError::Truncated {
            needed: 4,
            available: bytes.len(),
        });
    }
    if super::vopd3::applies(tables, bytes) {
        return super::vopd3::decode(tables, bytes);
    }
    let bits = read_bits(bytes);
    let word = bits as u32;
    for &fi in &tables.decode_order {
        let fmt = &tables.formats[fi];
        if !fmt.matches(bits, 32) {
            continue;
        }
        if fmt.size > bytes.len() {
            // The first dword matches: the rest is missing.
            if lookup(tables, fmt, bits).is_some() || fmt.field("op").is_none() {
                return Err(DecodeError::Truncated {
                    needed: fmt.size,
                    available: bytes.len(),
                });
            }
            continue;
        }
        if !fmt.matches(bits, 128) {
            continue;
        }
        if fmt.family == "VOPD" {
            return super::vopd::decode(tables, fmt, bytes, bits);
        }
        // The two-word VOP3PX2 form is reached only from its first word (below).
        if fmt.family == "VOP3PX2" {
            continue;
        }
        let Some(mut info) = lookup(tables, fmt, bits) else {
            continue;
        };
        let mut fmt = fmt;
        // CDNA 4's `v_mfma_scale_*`: a `v_mfma_ld_scale_b32` word immediately followed by a
        // scale-capable MFMA word is one instruction (LLVM encodes and prints the pair as
        // one). A lone `v_mfma_ld_scale_b32` stays itself; the wave refuses to run it.
        if let Some((x2, x2_info)) = scale_pair(tables, info, bytes, bits) {
            fmt = x2;
            info = x2_info;
        }
        let mut used = fmt;
        let mut size = fmt.size;
        let mut literal = None;
        let src0 = fmt.field("src0").map(|f| f.get(bits) as u32);
        let ext = src0.and_then(|c| super::dpp::ext_of(tables.arch, &fmt.family, c));
        if let Some(ext) = ext {
            let Some(var) = super::dpp::ext_format(tables, &fmt.family, ext) else {
                continue;
            };
            if super::mfma::applies(tables.arch, info) {
                continue;
            }
            if bytes.len() < var.size {
                return Err(DecodeError::Truncated {
                    needed: var.size,
                    available: bytes.len(),
                });
            }
            if !super::dpp::valid(tables.arch, info, var, bits) {
                continue;
            }
            // SDWA scalar sources: a named register or inline constant, never the literal.
            let get = |n: &str| var.field(n).map_or(0, |f| f.get(bits) as u32);
            let bad_scalar =
                |v: &str, s: &str| get(s) != 0 && (get(v) == LITERAL || !known_src(tables, get(v)));
            if bad_scalar("vsrc0", "s0") || bad_scalar("vsrc1", "s1") {
                continue;
            }
            // The extension dword takes the literal's place.
            if get("src1") == LITERAL || get("src2") == LITERAL {
                continue;
            }
            used = var;
            size = var.size;
        } else {
            let n = literal_bytes(tables, info, fmt, bits);
            if n > 0 {
                if let Some(lit_fmt) = tables.variant(&fmt.family, "_LIT", info.opcode) {
                    used = lit_fmt;
                }
                let at = fmt.size;
                if bytes.len() < at + n {
                    return Err(DecodeError::Truncated {
                        needed: at + n,
                        available: bytes.len(),
                    });
                }
                let mut buf = [0u8; 8];
                buf[..n].copy_from_slice(&bytes[at..at + n]);
                literal = Some(u64::from_le_bytes(buf));
                size = at + n;
            }
        }
        let fields: Vec<(String, u64)> = (if ext.is_some() { used } else { fmt })
            .fields
            .iter()
            .filter(|f| f.fixed.is_none() && f.name != "op")
            .map(|f| (f.name.clone(), f.get(bits)))
            .collect();
        let operands: Vec<Operand> = info
            .operands
            .iter()
            .filter_map(|op| {
                let raw = fields.iter().find(|(n, _)| *n == op.field)?.1;
                let value = match (ext, op.field.as_str()) {
                    // The real `src0` of a DPP/SDWA word is `vsrc0` of the extension.
                    (Some(e), "src0") => {
                        let v = used.field("vsrc0").map_or(0, |f| f.get(bits)) as u32;
                        let scalar = e == super::dpp::Ext::Sdwa
                            && used.field("s0").is_some_and(|f| f.get(bits) != 0);
                        if scalar {
                            value_of(tables, fmt, "src0", op.bits, u64::from(v), None)
                        } else {
                            Value::Reg(Reg::Vgpr {
                                index: (v & 0xff) as u16,
                                count: op.bits.div_ceil(32).max(1) as u8,
                            })
                        }
                    }
                    _ => value_of(tables, fmt, &op.field, op.bits, raw, literal),
                };
                Some(Operand {
                    field: op.field.clone(),
                    value,
                })
            })
            .collect();
        // A reserved source code (e.g. 0xe9 on CDNA) has no spelling: not an instruction.
        if operands
            .iter()
            .any(|o| matches!(o.value, Value::Unknown(_)))
        {
            continue;
        }
        let inst = Inst {
            name: info.name.clone(),
            family: fmt.family.clone(),
            format: used.name.clone(),
            opcode: info.opcode,
            fields,
            operands,
            literal,
            size,
        };
        if super::mfma::applies(tables.arch, info) && !super::mfma::valid(info, &inst) {
            continue;
        }
        return Ok((inst, size));
    }
    Err(DecodeError::Unknown { word })
}

/// The `VOP3PX2` format and instruction that `info` (the first word) starts, when it is
/// `V_MFMA_LD_SCALE_B32` and the next word is an MFMA the pair names.
fn scale_pair<'t>(
    tables: &'t Tables,
    info: &InstInfo,
    bytes: &[u8],
    bits: u128,
) -> Option<(&'t Format, &'t InstInfo)> {
    if info.name != SCALE_LOAD || bytes.len() < 16 {
        return None;
    }
    let x2 = tables.format("VOP3PX2")?;
    if !x2.matches(bits, 128) {
        return None;
    }
    Some((x2, lookup(tables, x2, bits)?))
}

/// The instruction whose word starts a scaled MFMA pair.
pub(crate) const SCALE_LOAD: &str = "V_MFMA_LD_SCALE_B32";

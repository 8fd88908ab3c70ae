//! VOPD3 (gfx1250): the 96-bit dual-issue encoding, first byte 0xcf. Like VOPD it holds two
//! VALU operations, X and Y, written `v_dual_x .. :: v_dual_y ..`, but each half has the
//! operand fields of its VOP3 form: a 9-bit `src0`, VGPR `vsrc1` and `vsrc2` (the select SGPR
//! of `v_dual_cndmask_b32`, the truth table of `v_dual_bitop2_b32`), full 8-bit
//! destinations, and a `neg` bit per source of the float operations. No literal.
//!
//! Layout (LLVM's `VOPD3e`, checked with llvm-mc-22 -mcpu=gfx1250 -show-encoding): `srcx0`
//! [8:0], `opy` [17:12], `opx` [23:18], 0xcf [31:24]; `srcy0` [40:32], `neg` of X's sources
//! [43:41] and of Y's [46:44]; `vsrcx1` [55:48], `vsrcx2` [63:56], `vdstx` [71:64], `vsrcy1`
//! [79:72], `vsrcy2` [87:80] (the `bitop3` table of `v_dual_bitop2_b32`), `vdsty` [95:88].
//! Bits 11:9 and 47 are unused (a word with any set is refused).
//!
//! The opcodes ([`OPS`]) were read off llvm-mc-22 by disassembling each `opx` and `opy`
//! beside a fixed other half; X and Y share one opcode space, some opcodes are X-only (the
//! f64 operations) or Y-only (`bitop2`, `max_i32`, `min_i32`).

use super::enc::{encode_src, encode_ssrc, source_available, Enc};
use super::inst::{known_src, AsmError, DecodeError, Inst, Operand, Value};
use super::operands::Reg;
use super::spelling::{src_typed, sreg};
use super::syntax::{Arg, Expr, Statement};
use super::tables::Tables;

/// The third source of one VOPD3 operation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Third {
    /// None.
    None,
    /// A VGPR in `vsrc2` (`fma`).
    Vgpr,
    /// A scalar register code in `vsrc2`: `v_dual_cndmask_b32`'s lane select.
    Sgpr,
    /// The destination, read as an accumulator (`fmac`, `dot2acc`), not encoded.
    Acc,
    /// `v_dual_bitop2_b32`'s truth table (`bitop3:`), Y only.
    Table,
}

/// One VOPD3 operation.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Op {
    /// The opcode (`opx` or `opy`).
    pub(crate) opcode: u32,
    /// The mnemonic after `v_dual_`.
    pub(crate) name: &'static str,
    /// Whether it reads `vsrc1`.
    pub(crate) src1: bool,
    /// Its third source.
    pub(crate) third: Third,
    /// Whether its operands are 64-bit (f64).
    pub(crate) wide: bool,
    /// Whether its sources take `neg` (the float operations and `cndmask`).
    pub(crate) neg: bool,
    /// Whether it may be the X half; the Y half.
    pub(crate) x: bool,
    pub(crate) y: bool,
    /// The VOP3 instruction each half runs (its text, with the half's fields).
    pub(crate) runs: &'static str,
}

const fn op(
    opcode: u32,
    name: &'static str,
    third: Third,
    neg: bool,
    (x, y): (bool, bool),
    runs: &'static str,
) -> Op {
    Op {
        opcode,
        name,
        src1: true,
        third,
        wide: false,
        neg,
        x,
        y,
        runs,
    }
}

const XY: (bool, bool) = (true, true);
const X: (bool, bool) = (true, false);
const Y: (bool, bool) = (false, true);

/// Every VOPD3 operation of gfx1250.
pub(crate) const OPS: &[Op] = &[
    op(0, "fmac_f32", Third::Acc, true, XY, "V_FMAC_F32_E64"),
    op(3, "mul_f32", Third::None, true, XY, "V_MUL_F32_E64"),
    op(4, "add_f32", Third::None, true, XY, "V_ADD_F32_E64"),
    op(5, "sub_f32", Third::None, true, XY, "V_SUB_F32_E64"),
    op(6, "subrev_f32", Third::None, true, XY, "V_SUBREV_F32_E64"),
    op(
        7,
        "mul_dx9_zero_f32",
        Third::None,
        true,
        XY,
        "V_MUL_DX9_ZERO_F32_E64",
    ),
    Op {
        src1: false,
        ..op(8, "mov_b32", Third::None, false, XY, "V_MOV_B32_E64")
    },
    op(9, "cndmask_b32", Third::Sgpr, true, XY, "V_CNDMASK_B32_E64"),
    op(
        10,
        "max_num_f32",
        Third::None,
        true,
        XY,
        "V_MAX_NUM_F32_E64",
    ),
    op(
        11,
        "min_num_f32",
        Third::None,
        true,
        XY,
        "V_MIN_NUM_F32_E64",
    ),
    // gfx1250 has no single-issue dot2acc to run: decoded and printed, refused by the wave.
    op(12, "dot2acc_f32_f16", Third::Acc, true, XY, ""),
    op(13, "dot2acc_f32_bf16", Third::Acc, true, XY, ""),
    op(16, "add_nc_u32", Third::None, false, XY, "V_ADD_NC_U32_E64"),
    op(
        17,
        "lshlrev_b32",
        Third::None,
        false,
        XY,
        "V_LSHLREV_B32_E64",
    ),
    op(18, "bitop2_b32", Third::Table, false, Y, "V_BITOP3_B32"),
    op(19, "fma_f32", Third::Vgpr, true, XY, "V_FMA_F32"),
    op(20, "sub_nc_u32", Third::None, false, XY, "V_SUB_NC_U32_E64"),
    op(
        21,
        "lshrrev_b32",
        Third::None,
        false,
        XY,
        "V_LSHRREV_B32_E64",
    ),
    op(
        22,
        "ashrrev_i32",
        Third::None,
        false,
        XY,
        "V_ASHRREV_I32_E64",
    ),
    op(23, "max_i32", Third::None, false, Y, "V_MAX_I32_E64"),
    op(24, "min_i32", Third::None, false, Y, "V_MIN_I32_E64"),
    Op {
        wide: true,
        ..op(32, "fma_f64", Third::Vgpr, true, X, "V_FMA_F64")
    },
    Op {
        wide: true,
        ..op(33, "add_f64", Third::None, true, X, "V_ADD_F64_E64")
    },
    Op {
        wide: true,
        ..op(34, "mul_f64", Third::None, true, X, "V_MUL_F64_E64")
    },
    Op {
        wide: true,
        ..op(35, "max_num_f64", Third::None, true, X, "V_MAX_NUM_F64_E64")
    },
    Op {
        wide: true,
        ..op(36, "min_num_f64", Third::None, true, X, "V_MIN_NUM_F64_E64")
    },
];

/// The operation of `opcode` in the X (`y == false`) or Y half.
pub(crate) fn lookup(opcode: u32, y: bool) -> Option<&'static Op> {
    OPS.iter()
        .find(|o| o.opcode == opcode && if y { o.y } else { o.x })
}

/// Whether `bytes` start a VOPD3 word on this arch.
pub(crate) fn applies(tables: &Tables, bytes: &[u8]) -> bool {
    tables.arch == crate::spec::Arch::Cdna5 && bytes.len() >= 4 && bytes[3] == 0xcf
}

/// (field, low bit, width) of the VOPD3 word.
const FIELDS: &[(&str, u32, u32)] = &[
    ("srcx0", 0, 9),
    ("opy", 12, 6),
    ("opx", 18, 6),
    ("srcy0", 32, 9),
    ("negx", 41, 3),
    ("negy", 44, 3),
    ("vsrcx1", 48, 8),
    ("vsrcx2", 56, 8),
    ("vdstx", 64, 8),
    ("vsrcy1", 72, 8),
    ("vsrcy2", 80, 8),
    ("vdsty", 88, 8),
];

fn get(bits: u128, lo: u32, width: u32) -> u64 {
    ((bits >> lo) & ((1u128 << width) - 1)) as u64
}

/// Decodes a VOPD3 word (the caller checked [`applies`]).
pub(crate) fn decode(tables: &Tables, bytes: &[u8]) -> Result<(Inst, usize), DecodeError> {
    let word = u32::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]);
    if bytes.len() < 12 {
        return Err(DecodeError::Truncated {
            needed: 12,
            available: bytes.len(),
        });
    }
    let mut buf = [0u8; 16];
    buf[..12].copy_from_slice(&bytes[..12]);
    let bits = u128::from_le_bytes(buf);
    let fields: Vec<(String, u64)> = FIELDS
        .iter()
        .map(|&(n, lo, w)| (n.to_string(), get(bits, lo, w)))
        .collect();
    let f = |n: &str| fields.iter().find(|(k, _)| k == n).map_or(0, |(_, v)| *v) as u32;
    let unused = get(bits, 9, 3) != 0 || get(bits, 47, 1) != 0;
    let (Some(x), Some(y)) = (lookup(f("opx"), false), lookup(f("opy"), true)) else {
        return Err(DecodeError::Unknown { word });
    };
    let known = |c: u32| {
        known_src(tables, c)
            && c != super::operands::LITERAL
            && !super::operands::is_literal64(tables.arch, c)
    };
    if unused || !known(f("srcx0")) || !known(f("srcy0")) {
        return Err(DecodeError::Unknown { word });
    }
    let mut operands = Vec::new();
    for (s, o) in [("x", x), ("y", y)] {
        let regs = if o.wide { 2 } else { 1 };
        let vgpr = |index: u32| {
            Value::Reg(Reg::Vgpr {
                index: index as u16,
                count: regs,
            })
        };
        operands.push(Operand {
            field: format!("vdst{s}"),
            value: vgpr(f(&format!("vdst{s}"))),
        });
        if o.src1 {
            operands.push(Operand {
                field: format!("vsrc{s}1"),
                value: vgpr(f(&format!("vsrc{s}1"))),
            });
        }
        let f2 = format!("vsrc{s}2");
        match o.third {
            Third::Vgpr => operands.push(Operand {
                field: f2.clone(),
                value: vgpr(f(&f2)),
            }),
            Third::Sgpr => {
                let code = f(&f2);
                if super::operands::sreg_text(tables.arch, code, 1).is_none() {
                    return Err(DecodeError::Unknown { word });
                }
                operands.push(Operand {
                    field: f2,
                    value: Value::Reg(if code < super::operands::sgpr_limit(tables.arch) {
                        Reg::Sgpr {
                            index: code as u16,
                            count: 1,
                        }
                    } else {
                        Reg::Special {
                            code: code as u16,
                            count: 1,
                        }
                    }),
                });
            }
            _ => {}
        }
    }
    Ok((
        Inst {
            name: format!(
                "V_DUAL_{}::V_DUAL_{}",
                x.name.to_ascii_uppercase(),
                y.name.to_ascii_uppercase()
            ),
            family: "VOPD".into(),
            format: "VOPD3".into(),
            opcode: x.opcode,
            fields,
            operands,
            literal: None,
            size: 12,
        },
        12,
    ))
}

fn vgpr_text(index: u32, wide: bool) -> String {
    if wide {
        format!("v[{}:{}]", index, index + 1)
    } else {
        format!("v{index}")
    }
}

/// Prints a decoded VOPD3 instruction.
pub(crate) fn print(tables: &Tables, inst: &Inst) -> String {
    let f = |n: &str| inst.field(n).unwrap_or(0) as u32;
    let half = |s: &str, y: bool| -> String {
        let Some(o) = lookup(f(&format!("op{s}")), y) else {
            return format!("; unknown VOPD3 opcode {}", f(&format!("op{s}")));
        };
        let neg = f(&format!("neg{s}"));
        let bits = if o.wide { 64 } else { 32 };
        let signed = |k: u32, text: String| {
            if o.neg && neg >> k & 1 != 0 {
                format!("-{text}")
            } else {
                text
            }
        };
        let mut parts = vec![
            vgpr_text(f(&format!("vdst{s}")), o.wide),
            signed(
                0,
                src_typed(tables, f(&format!("src{s}0")), bits, o.neg, None),
            ),
        ];
        if o.src1 {
            parts.push(signed(1, vgpr_text(f(&format!("vsrc{s}1")), o.wide)));
        }
        let v2 = f(&format!("vsrc{s}2"));
        match o.third {
            Third::Vgpr => parts.push(signed(2, vgpr_text(v2, o.wide))),
            Third::Sgpr => parts.push(sreg(tables, v2, 1)),
            _ => {}
        }
        let mut text = format!("v_dual_{} {}", o.name, parts.join(", "));
        if o.third == Third::Table && v2 != 0 {
            text.push(' ');
            text.push_str(&super::spelling::bitop3_text(u64::from(v2)));
        }
        text
    };
    format!("{} :: {}", half("x", false), half("y", true))
}

fn err(line: usize, col: usize, message: &str) -> AsmError {
    AsmError {
        line,
        col,
        message: message.into(),
    }
}

/// The VGPR (pair, when `wide`) `a` names.
fn vgpr_of(a: &Arg, wide: bool, line: usize) -> Result<u32, AsmError> {
    match &a.expr {
        Expr::Reg {
            file,
            lo,
            hi,
            half: None,
        } if file == "v" && *hi == *lo + u32::from(wide) && *hi < 256 => Ok(*lo),
        _ => Err(err(line, a.col, "invalid operand for instruction")),
    }
}

/// Encodes `stmt` (X) and `y` (Y) as one VOPD3 instruction (gfx1250), as llvm-mc-22 does
/// when the pair has no VOPD form.
pub(crate) fn encode(
    tables: &Tables,
    stmt: &Statement,
    y: &Statement,
    line: usize,
) -> Result<Vec<u8>, AsmError> {
    if tables.arch != crate::spec::Arch::Cdna5 {
        return Err(err(line, stmt.col, "VOPD3 is not supported on this GPU"));
    }
    let fmt = tables
        .format("VOPD")
        .ok_or_else(|| err(line, stmt.col, "VOPD3 is not supported on this GPU"))?;
    let mut bits: u128 = 0xcf << 24;
    let mut set = |name: &str, v: u64| {
        let &(_, lo, w) = FIELDS
            .iter()
            .find(|(n, _, _)| *n == name)
            .expect("bug: VOPD3 field");
        bits |= (u128::from(v) & ((1u128 << w) - 1)) << lo;
    };
    let mut scalars: Vec<u32> = Vec::new();
    let mut dsts = Vec::new();
    // Per half: the VGPRs (first, count) and Y's column of `src0`, `vsrc1` and the third
    // source (the accumulator of `fmac`), and whether the half is a move.
    let mut regs: Vec<[Option<(u32, u32, usize)>; 3]> = Vec::new();
    let mut moves = Vec::new();
    for (s, st, is_y) in [("x", stmt, false), ("y", y, true)] {
        let name = st
            .mnemonic
            .strip_prefix("v_dual_")
            .ok_or_else(|| err(line, st.col, "invalid VOPD3 instruction"))?;
        let o = OPS
            .iter()
            .find(|o| o.name == name && if is_y { o.y } else { o.x })
            .ok_or_else(|| err(line, st.col, "invalid VOPD3 instruction"))?;
        let want =
            2 + usize::from(o.src1) + usize::from(matches!(o.third, Third::Vgpr | Third::Sgpr));
        if st.args.len() != want {
            let col = st.args.get(want).map_or(st.col, |a| a.col);
            return Err(err(line, col, "invalid operand for instruction"));
        }
        let mut table = None;
        for m in &st.mods {
            match (m.name.as_str(), &m.value, o.third) {
                ("bitop3", Some(Expr::Int(v)), Third::Table) if (0..256).contains(v) => {
                    table = Some(*v as u64);
                }
                _ => return Err(err(line, m.col, "invalid operand for instruction")),
            }
        }
        let bits_of = if o.wide { 64 } else { 32 };
        let vdst = vgpr_of(&st.args[0], o.wide, line)?;
        dsts.push(vdst);
        set(&format!("vdst{s}"), u64::from(vdst));
        let mut neg = 0u64;
        let mut peel = |k: u32, a: &Arg| -> Result<Arg, AsmError> {
            match &a.expr {
                Expr::Neg(inner) if o.neg => {
                    neg |= 1 << k;
                    Ok(Arg {
                        expr: (**inner).clone(),
                        col: a.col,
                    })
                }
                Expr::Neg(_) | Expr::Abs(_) => {
                    Err(err(line, a.col, "invalid operand for instruction"))
                }
                _ => Ok(a.clone()),
            }
        };
        let n = if o.wide { 2 } else { 1 };
        let mut used: [Option<(u32, u32, usize)>; 3] = [None; 3];
        moves.push(o.name == "mov_b32");
        if o.third == Third::Acc {
            used[2] = Some((vdst, n, st.args[0].col));
        }
        let a0 = peel(0, &st.args[1])?;
        let mut enc = Enc::new(tables, fmt, line);
        let (src0, high) = encode_src(&mut enc, &a0.expr, a0.col, bits_of, o.neg)?;
        if high
            || enc.literal().is_some()
            || !source_available(tables.arch, src0)
            || super::operands::is_literal64(tables.arch, src0)
        {
            return Err(err(line, a0.col, "invalid operand for instruction"));
        }
        if src0 < 256 && !(128..=208).contains(&src0) && !(240..=248).contains(&src0) {
            scalars.push(src0);
        }
        if src0 >= 256 {
            used[0] = Some((src0 - 256, n, a0.col));
        }
        set(&format!("src{s}0"), u64::from(src0));
        let mut rest = st.args[2..].iter();
        if o.src1 {
            let a = peel(1, rest.next().expect("bug: operand count checked"))?;
            let r = vgpr_of(&a, o.wide, line)?;
            used[1] = Some((r, n, a.col));
            set(&format!("vsrc{s}1"), u64::from(r));
        }
        match o.third {
            Third::Vgpr => {
                let a = peel(2, rest.next().expect("bug: operand count checked"))?;
                let r = vgpr_of(&a, o.wide, line)?;
                used[2] = Some((r, n, a.col));
                set(&format!("vsrc{s}2"), u64::from(r));
            }
            Third::Sgpr => {
                let a = rest.next().expect("bug: operand count checked");
                let code = encode_ssrc(&mut enc, a, 32, false)?;
                if code >= 128 {
                    return Err(err(line, a.col, "invalid operand for instruction"));
                }
                scalars.push(code);
                set(&format!("vsrc{s}2"), u64::from(code));
            }
            Third::Table => set(&format!("vsrc{s}2"), table.unwrap_or(0)),
            _ => {}
        }
        set(&format!("op{s}"), u64::from(o.opcode));
        set(&format!("neg{s}"), neg);
        regs.push(used);
    }
    // llvm-mc's bank rules: the two halves' `src0`, `vsrc1` and third-source VGPRs lie in
    // different banks (`v % 4`, every register of a pair) unless they are the same
    // register; two moves may share a `src0` bank.
    let banks = |(first, count, _): (u32, u32, usize)| -> u32 {
        (first..first + count).fold(0, |m, r| m | 1 << (r % 4))
    };
    for (k, what) in ["src0", "src1", "src2"].iter().enumerate() {
        if k == 0 && moves[0] && moves[1] {
            continue;
        }
        if let (Some(a), Some(b)) = (regs[0][k], regs[1][k]) {
            if a.0 != b.0 && banks(a) & banks(b) != 0 {
                return Err(err(
                    line,
                    b.2,
                    &format!("{what} operands must use different VGPR banks"),
                ));
            }
        }
    }
    if dsts[0] == dsts[1] {
        let col = y.args.first().map_or(y.col, |a| a.col);
        return Err(err(line, col, "the two destinations must differ"));
    }
    scalars.sort_unstable();
    scalars.dedup();
    if scalars.len() > 2 {
        return Err(err(
            line,
            y.col,
            "invalid operand (violates constant bus restrictions)",
        ));
    }
    Ok(bits.to_le_bytes()[..12].to_vec())
}

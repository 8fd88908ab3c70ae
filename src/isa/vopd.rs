//! VOPD (RDNA dual issue): one 64-bit word, plus an optional shared literal, holding two
//! VALU operations X and Y, written `v_dual_x vdst, src0, vsrc1 :: v_dual_y vdst, src0, vsrc1`.
//!
//! The spec gives the fields (`opx`, `opy`, `srcx0`, `vsrcx1`, `vdstx`, `srcy0`, `vsrcy1`,
//! `vdsty`) and per opcode the operands of one half (`operands.py` lists the Y half;
//! X has the same shape). `vdsty` holds the Y destination without its low bit, which is the
//! inverse of X's (the two destinations lie in different VGPR banks). What is LLVM's:
//! `v_dual_fmaak_f32`/`v_dual_fmamk_f32` carry the literal `K` (printed last, or before
//! `vsrc1` for `fmamk`), `v_dual_cndmask_b32` reads `vcc_lo` without printing it, literals
//! print in hex, and the assembler enforces llvm-mc's pairing rules: the X opcode fits in
//! four bits, `src0` VGPRs of the halves in different banks (`v % 4`), likewise `vsrc1`,
//! destinations of different parity, the third sources (`vsrc1` of `fmamk`, the
//! accumulator of `fmac`/`dot2acc`) of different parity, at most one literal value and two
//! scalar values on the constant bus (`vcc_lo` of `cndmask` and apertures included).

use super::enc::{encode_src, single_vgpr, source_available, Enc};
use super::inst::{known_src, AsmError, DecodeError, Inst, Operand, Value};
use super::operands::{self, LITERAL};
use super::spelling::src;
use super::syntax::{Arg, Expr, Statement};
use super::tables::{Format, InstInfo, Tables};
use crate::spec::Wheel;

/// The Y destination register encoded by `vdsty` next to X destination `vdstx`.
pub fn dst_y(vdstx: u32, vdsty_field: u32) -> u32 {
    (vdsty_field << 1) | ((vdstx & 1) ^ 1)
}

fn half_info(tables: &Tables, opcode: u32) -> Option<&InstInfo> {
    let &i = tables.by_opcode.get(&("VOPD".to_string(), opcode))?;
    Some(&tables.insts[i])
}

fn is_fmaak(info: &InstInfo) -> bool {
    info.name.contains("FMAAK")
}

fn is_fmamk(info: &InstInfo) -> bool {
    info.name.contains("FMAMK")
}

fn has_vsrc1(info: &InstInfo) -> bool {
    info.operand("vsrcy1").is_some()
}

fn float_src(info: &InstInfo) -> bool {
    info.operand("srcy0")
        .is_some_and(|o| operands::value_kind(&o.format) == operands::ValueKind::Float)
}

/// Decodes a VOPD word; `fmt` is the arch's `VOPD` format.
pub(crate) fn decode(
    tables: &Tables,
    fmt: &Format,
    bytes: &[u8],
    bits: u128,
) -> Result<(Inst, usize), DecodeError> {
    let word = bits as u32;
    let get = |n: &str| fmt.field(n).map_or(0, |f| f.get(bits));
    let (opx, opy) = (get("opx") as u32, get("opy") as u32);
    let (Some(x), Some(y)) = (half_info(tables, opx), half_info(tables, opy)) else {
        return Err(DecodeError::Unknown { word });
    };
    let known = |n: &str| known_src(tables, get(n) as u32);
    if !known("srcx0") || !known("srcy0") {
        return Err(DecodeError::Unknown { word });
    }
    let literal_needed = get("srcx0") as u32 == LITERAL
        || get("srcy0") as u32 == LITERAL
        || [x, y].iter().any(|i| is_fmaak(i) || is_fmamk(i));
    let mut size = fmt.size;
    let mut literal = None;
    if literal_needed {
        if bytes.len() < size + 4 {
            return Err(DecodeError::Truncated {
                needed: size + 4,
                available: bytes.len(),
            });
        }
        literal = Some(u64::from(u32::from_le_bytes([
            bytes[size],
            bytes[size + 1],
            bytes[size + 2],
            bytes[size + 3],
        ])));
        size += 4;
    }
    let fields: Vec<(String, u64)> = fmt
        .fields
        .iter()
        .filter(|f| f.fixed.is_none())
        .map(|f| (f.name.clone(), f.get(bits)))
        .collect();
    let vgpr = |index: u32| {
        Value::Reg(operands::Reg::Vgpr {
            index: index as u16,
            count: 1,
        })
    };
    let mut ops = vec![
        Operand {
            field: "vdstx".into(),
            value: vgpr(get("vdstx") as u32),
        },
        Operand {
            field: "vdsty".into(),
            value: vgpr(dst_y(get("vdstx") as u32, get("vdsty") as u32)),
        },
    ];
    for (field, info) in [("vsrcx1", x), ("vsrcy1", y)] {
        if has_vsrc1(info) {
            ops.push(Operand {
                field: field.into(),
                value: vgpr(get(field) as u32),
            });
        }
    }
    Ok((
        Inst {
            name: format!("{}::{}", x.name, y.name),
            family: "VOPD".into(),
            format: if literal.is_some() {
                format!("{}_LIT", fmt.name)
            } else {
                fmt.name.clone()
            },
            opcode: opx,
            fields,
            operands: ops,
            literal,
            size,
        },
        size,
    ))
}

/// Prints a decoded VOPD instruction.
pub(crate) fn print(tables: &Tables, inst: &Inst) -> String {
    let f = |n: &str| inst.field(n).unwrap_or(0) as u32;
    let half = |s: &str, opcode: u32, vdst: u32| -> String {
        let Some(info) = half_info(tables, opcode) else {
            return format!("; unknown VOPD opcode {opcode}");
        };
        let lit = format!("0x{:x}", inst.literal.unwrap_or(0));
        let src0 = f(&format!("src{s}0"));
        let mut parts = vec![
            format!("v{vdst}"),
            if src0 == LITERAL {
                lit.clone()
            } else {
                src(tables, src0, 32, inst.literal)
            },
        ];
        if is_fmamk(info) {
            parts.push(lit.clone());
        }
        if has_vsrc1(info) {
            parts.push(format!("v{}", f(&format!("vsrc{s}1"))));
        }
        if is_fmaak(info) {
            parts.push(lit);
        }
        format!("{} {}", info.mnemonic, parts.join(", "))
    };
    let vdstx = f("vdstx");
    format!(
        "{} :: {}",
        half("x", f("opx"), vdstx),
        half("y", f("opy"), dst_y(vdstx, f("vdsty")))
    )
}

/// One assembled half: opcode, destination, `src0` code, `vsrc1`.
struct Half {
    opcode: u32,
    vdst: u32,
    src0: u32,
    vsrc1: Option<u32>,
    /// The VGPR LLVM treats as the second source (`fmamk`'s second is `K`).
    src1: Option<u32>,
    mov: bool,
    cndmask: bool,
    /// The VGPR LLVM treats as the third source: `vsrc1` of `fmamk` (`src0 * K + vsrc1`),
    /// the accumulator (`vdst`) of `fmac`/`dot2acc`.
    src2: Option<u32>,
}

fn err(line: usize, col: usize, message: &str) -> AsmError {
    AsmError {
        line,
        col,
        message: message.into(),
    }
}

/// Encodes `stmt` (X) and `y` (Y) as one VOPD instruction.
pub(crate) fn encode(
    tables: &Tables,
    stmt: &Statement,
    y: &Statement,
    line: usize,
) -> Result<Vec<u8>, AsmError> {
    let Some(fmt) = tables.format("VOPD") else {
        return Err(err(line, stmt.col, "VOPD is not supported on this GPU"));
    };
    let mut enc = Enc::new(tables, fmt, line);
    let mut halves = Vec::new();
    for (s, which) in [(stmt, 'x'), (y, 'y')] {
        let info = tables
            .by_mnemonic
            .get(&s.mnemonic)
            .into_iter()
            .flatten()
            .map(|&i| &tables.insts[i])
            .find(|i| i.family == "VOPD")
            .ok_or_else(|| err(line, s.col, "invalid VOPD instruction"))?;
        if which == 'x' && info.opcode > 15 {
            return Err(err(line, s.col, "invalid VOPX instruction"));
        }
        if let Some(m) = s.mods.first() {
            return Err(err(line, m.col, "invalid operand for instruction"));
        }
        let want = 2 + usize::from(has_vsrc1(info)) + usize::from(is_fmaak(info) || is_fmamk(info));
        if s.args.len() != want {
            let col = s.args.get(want).map_or(s.col, |a| a.col);
            return Err(err(line, col, "invalid operand for instruction"));
        }
        let reg = |a: &Arg| single_vgpr(&a.expr).ok_or_else(|| err(line, a.col, "expected a VGPR"));
        let vdst = reg(&s.args[0])?;
        let a1 = &s.args[1];
        let (src0, half) = encode_src(&mut enc, &a1.expr, a1.col, 32, float_src(info))?;
        if half || !source_available(tables.arch, src0) {
            return Err(err(line, a1.col, "invalid operand for instruction"));
        }
        let mut rest = s.args[2..].iter();
        let k = |enc: &mut Enc<'_>, a: &Arg| -> Result<(), AsmError> {
            let v = match &a.expr {
                Expr::Float(f) => (*f as f32).to_bits(),
                Expr::Int(v) if (i64::from(i32::MIN)..=i64::from(u32::MAX)).contains(v) => {
                    *v as u32
                }
                _ => return Err(err(line, a.col, "invalid literal")),
            };
            enc.set_literal(v, a.col)
        };
        if is_fmamk(info) {
            k(&mut enc, rest.next().expect("bug: operand count checked"))?;
        }
        let vsrc1 = match has_vsrc1(info) {
            true => Some(reg(rest.next().expect("bug: operand count checked"))?),
            false => None,
        };
        if is_fmaak(info) {
            k(&mut enc, rest.next().expect("bug: operand count checked"))?;
        }
        let accumulates = info.name.contains("FMAC") || info.name.contains("DOT2ACC");
        let src2 = if is_fmamk(info) {
            vsrc1
        } else if accumulates {
            Some(vdst)
        } else {
            None
        };
        halves.push(Half {
            opcode: info.opcode,
            vdst,
            src0,
            vsrc1,
            src1: if is_fmamk(info) { None } else { vsrc1 },
            src2,
            mov: info.name.contains("MOV"),
            cndmask: info.name.contains("CNDMASK"),
        });
    }
    let (hx, hy) = (&halves[0], &halves[1]);
    let ycol = y.args.first().map_or(y.col, |a| a.col);
    if hx.vdst & 1 == hy.vdst & 1 {
        return Err(err(
            line,
            ycol,
            "one dst register must be even and the other odd",
        ));
    }
    let both_mov = tables.arch.wheel() == Wheel::Rdna4 && hx.mov && hy.mov;
    if hx.src0 >= 256 && hy.src0 >= 256 && hx.src0 % 4 == hy.src0 % 4 && !both_mov {
        return Err(err(
            line,
            ycol,
            "src0 operands must use different VGPR banks",
        ));
    }
    if let (Some(a), Some(b)) = (hx.src1, hy.src1) {
        if a % 4 == b % 4 {
            return Err(err(
                line,
                ycol,
                "src1 operands must use different VGPR banks",
            ));
        }
    }
    if let (Some(a), Some(b)) = (hx.src2, hy.src2) {
        if a % 2 == b % 2 {
            return Err(err(
                line,
                ycol,
                "src2 operands must use different VGPR banks",
            ));
        }
    }
    // The constant bus: distinct scalar sources, `vcc_lo` of `cndmask`, one literal.
    let mut scalars: Vec<u32> = Vec::new();
    let vcc_lo = operands::special_code(tables.arch, "vcc_lo").map_or(106, |c| c.0);
    let null = operands::special_code(tables.arch, "null").map(|c| c.0);
    for h in &halves {
        let mut reads = vec![h.src0];
        if h.cndmask {
            reads.push(vcc_lo);
        }
        for c in reads {
            // Unlike the other VALU forms, VOPD counts the aperture registers too.
            let scalar = c < 128 && Some(c) != null || (235..=239).contains(&c);
            if (scalar || (251..=253).contains(&c)) && !scalars.contains(&c) {
                scalars.push(c);
            }
        }
    }
    if scalars.len() + usize::from(enc.literal().is_some()) > 2 {
        return Err(err(
            line,
            y.col,
            "invalid operand (violates constant bus restrictions)",
        ));
    }
    enc.set("opx", u64::from(hx.opcode));
    enc.set("opy", u64::from(hy.opcode));
    enc.set("vdstx", u64::from(hx.vdst));
    enc.set("vdsty", u64::from(hy.vdst >> 1));
    enc.set("srcx0", u64::from(hx.src0));
    enc.set("srcy0", u64::from(hy.src0));
    enc.set("vsrcx1", u64::from(hx.vsrc1.unwrap_or(0)));
    enc.set("vsrcy1", u64::from(hy.vsrc1.unwrap_or(0)));
    Ok(enc.finish(fmt.size))
}

//! VOPD dual issue (RDNA 3/4): one 64-bit word (plus an optional literal) holding two VALU
//! operations, X and Y, that issue together. Both read the state from before the
//! instruction; X's and Y's destinations must differ (the assembler enforces it).
//!
//! The spec database lists the VOPD opcodes (`V_DUAL_*`) without pseudocode: each half runs
//! the pseudocode of the VOP1/VOP2 instruction of the same name (`V_DUAL_ADD_NC_U32` →
//! `V_ADD_NC_U32_E32`). Layout (RDNA 3 ISA guide, "VOPD"): word 0 holds `src0x` [8:0],
//! `vsrc1x` [16:9], `opy` [21:17], `opx` [25:22] and the encoding 0b110010 [31:26]; word 1
//! holds `src0y` [8:0], `vsrc1y` [16:9], `vdsty` [23:17] and `vdstx` [31:24]. The Y
//! destination is `vdsty << 1 | !(vdstx & 1)` (the two destinations sit in different VGPR
//! banks). `V_DUAL_FMAAK_F32`/`FMAMK_F32`, or a `src0` of 255, add a 32-bit literal.
//!
//! `isa::Isa::decode` does not decode VOPD words yet; [`decode`] is the wave layer's
//! fallback.

use crate::isa::{self, Isa};
use crate::spec::Arch;

use super::{fetch, Decoded, Executor, WaveError, WaveState};

/// The encoding value of bits 31:26.
const ENCODING: u32 = 0b110010;
/// The literal source code.
const LITERAL: u32 = 255;

/// The VOP1/VOP2 instruction a VOPD opcode runs: (name, family, opcode, dual name).
fn half(isa: &Isa, opcode: u32) -> Option<(String, String, u32, String)> {
    let t = isa.tables();
    let &i = t.by_opcode.get(&("VOPD".to_string(), opcode))?;
    let dual = &t.insts[i].name;
    let want = format!("V_{}_E32", dual.strip_prefix("V_DUAL_")?);
    let single = t
        .insts
        .iter()
        .find(|x| x.name == want && (x.family == "VOP1" || x.family == "VOP2"))?;
    Some((
        single.name.clone(),
        single.family.clone(),
        single.opcode,
        dual.clone(),
    ))
}

fn takes_literal(isa: &Isa, opcode: u32) -> bool {
    half(isa, opcode).is_some_and(|h| h.3.contains("FMAAK") || h.3.contains("FMAMK"))
}

/// Decodes a VOPD instruction at the start of `bytes`: the instruction (family `VOPD`, fields
/// `opx`, `opy`, `src0x`, `vsrc1x`, `vdstx`, `src0y`, `vsrc1y`, `vdsty` with the Y
/// destination already expanded) and its size. `None` when the bytes are not one.
pub(super) fn decode(isa: &Isa, bytes: &[u8]) -> Option<(isa::Inst, usize)> {
    if isa.tables().arch == Arch::Cdna || bytes.len() < 8 {
        return None;
    }
    let word = |i: usize| u32::from_le_bytes([bytes[i], bytes[i + 1], bytes[i + 2], bytes[i + 3]]);
    let (w0, w1) = (word(0), word(4));
    if w0 >> 26 != ENCODING {
        return None;
    }
    let opx = w0 >> 22 & 0xf;
    let opy = w0 >> 17 & 0x1f;
    let src0x = w0 & 0x1ff;
    let vsrc1x = w0 >> 9 & 0xff;
    let src0y = w1 & 0x1ff;
    let vsrc1y = w1 >> 9 & 0xff;
    let vdstx = w1 >> 24;
    let vdsty = (w1 >> 17 & 0x7f) << 1 | ((vdstx & 1) ^ 1);
    let (_, _, _, xname) = half(isa, opx)?;
    let (_, _, _, yname) = half(isa, opy)?;
    let literal_needed =
        src0x == LITERAL || src0y == LITERAL || takes_literal(isa, opx) || takes_literal(isa, opy);
    let (literal, size) = if literal_needed {
        if bytes.len() < 12 {
            return None;
        }
        (Some(word(8)), 12)
    } else {
        (None, 8)
    };
    let fields = [
        ("opx", opx),
        ("opy", opy),
        ("src0x", src0x),
        ("vsrc1x", vsrc1x),
        ("vdstx", vdstx),
        ("src0y", src0y),
        ("vsrc1y", vsrc1y),
        ("vdsty", vdsty),
    ]
    .iter()
    .map(|&(n, v)| (n.to_string(), v as u64))
    .collect();
    Some((
        isa::Inst {
            name: format!("{xname}::{yname}"),
            family: "VOPD".into(),
            format: "VOPD".into(),
            opcode: opx,
            fields,
            operands: Vec::new(),
            literal,
            size,
        },
        size,
    ))
}

/// The X (`y == false`) or Y half as a VOP1/VOP2 instruction.
fn split(isa: &Isa, d: &Decoded, y: bool) -> Option<Decoded> {
    let f = |n: &str| d.inst.field(n).unwrap_or(0);
    let s = if y { "y" } else { "x" };
    let (name, family, opcode, _) = half(isa, f(&format!("op{s}")) as u32)?;
    let mut fields = vec![("src0".to_string(), f(&format!("src0{s}")))];
    if family == "VOP2" {
        fields.push(("vsrc1".to_string(), f(&format!("vsrc1{s}"))));
    }
    fields.push(("vdst".to_string(), f(&format!("vdst{s}"))));
    Some(Decoded {
        addr: d.addr,
        inst: isa::Inst {
            name,
            format: family.clone(),
            family,
            opcode,
            fields,
            operands: Vec::new(),
            literal: d.inst.literal,
            size: d.size,
        },
        size: d.size,
        line: d.line,
        ext: None,
    })
}

/// Runs both halves on the state from before the instruction: X on `w`, Y on a copy, then
/// Y's destination is copied into `w`.
pub(super) fn execute(
    ex: &mut Executor,
    d: &Decoded,
    w: &mut WaveState,
) -> Result<Option<u64>, WaveError> {
    let unsupported = || WaveError::Unsupported {
        addr: d.addr,
        inst: d.inst.name.clone(),
        reason: "a VOPD half with no VOP1/VOP2 counterpart".into(),
    };
    let x = split(ex.isa(), d, false).ok_or_else(unsupported)?;
    let y = split(ex.isa(), d, true).ok_or_else(unsupported)?;
    let mut wy = w.clone();
    let ey = ex.entry(&y)?;
    fetch::execute(ex, &ey, &y, &mut wy)?;
    let ex_x = ex.entry(&x)?;
    fetch::execute(ex, &ex_x, &x, w)?;
    let vdsty = y.inst.field("vdst").unwrap_or(0) as u32;
    for lane in 0..w.wave_size {
        w.set_vgpr(lane, vdsty, wy.vgpr(lane, vdsty));
    }
    Ok(None)
}

/// `v_dual_x ... :: v_dual_y ...` for traces.
pub(super) fn print(isa: &Isa, inst: &isa::Inst) -> String {
    let d = Decoded {
        addr: 0,
        inst: inst.clone(),
        size: inst.size,
        line: None,
        ext: None,
    };
    let half_text = |y: bool| match split(isa, &d, y) {
        Some(h) => isa.print(&h.inst),
        None => "?".into(),
    };
    format!("{} :: {}", half_text(false), half_text(true))
}

//! VOPD dual issue (RDNA 3/4): one 64-bit word (plus an optional literal) holding two VALU
//! operations, X and Y, that issue together. Both read the state from before the
//! instruction; X's and Y's destinations must differ (the assembler enforces it).
//!
//! The spec database lists the VOPD opcodes (`V_DUAL_*`) without pseudocode: each half runs
//! the pseudocode of the VOP1/VOP2 instruction of the same name (`V_DUAL_ADD_NC_U32` →
//! `V_ADD_NC_U32_E32`). Layout (RDNA 3 ISA guide, "VOPD"): word 0 holds `srcx0` [8:0],
//! `vsrcx1` [16:9], `opy` [21:17], `opx` [25:22] and the encoding 0b110010 [31:26]; word 1
//! holds `srcy0` [8:0], `vsrcy1` [16:9], `vdsty` [23:17] and `vdstx` [31:24]. The Y
//! destination is `vdsty << 1 | !(vdstx & 1)` (the two destinations sit in different VGPR
//! banks). `V_DUAL_FMAAK_F32`/`FMAMK_F32`, or a `src0` of 255, add a 32-bit literal.
//!
//! `isa::Isa::decode` decodes the word (fields as `ins.py` names them); [`split`] turns
//! each half into the VOP1/VOP2 instruction it runs.

use crate::isa::{self, Isa};

use super::{fetch, Decoded, Executor, WaveError, WaveState};

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

/// The X (`y == false`) or Y half as a VOP1/VOP2 instruction.
fn split(isa: &Isa, d: &Decoded, y: bool) -> Option<Decoded> {
    let f = |n: &str| d.inst.field(n).unwrap_or(0);
    let s = if y { "y" } else { "x" };
    let (name, family, opcode, _) = half(isa, f(&format!("op{s}")) as u32)?;
    let mut fields = vec![("src0".to_string(), f(&format!("src{s}0")))];
    if family == "VOP2" {
        fields.push(("vsrc1".to_string(), f(&format!("vsrc{s}1"))));
    }
    // `vdsty` holds the Y destination without its low bit.
    let vdst = if y {
        u64::from(isa::vopd_dst_y(f("vdstx") as u32, f("vdsty") as u32))
    } else {
        f("vdstx")
    };
    fields.push(("vdst".to_string(), vdst));
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
        as_encoded: None,
        size: d.size,
        line: d.line,
        ext: None,
        class: super::Class::Execute,
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
    // The halves are VALU operations on registers: Y's copy leaves out the memories (a
    // dispatch's global memory is megabytes; copying it for every VOPD made tinygrad's RDNA
    // kernels crawl), and `w` gets them back before X runs.
    let memory = std::mem::take(&mut w.memory);
    let lds = std::mem::take(&mut w.lds);
    let scratch = std::mem::take(&mut w.scratch);
    let written = std::mem::take(&mut w.written);
    let mut wy = w.clone();
    w.memory = memory;
    w.lds = lds;
    w.scratch = scratch;
    w.written = written;
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

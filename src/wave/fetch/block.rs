//! Lowering one fast-path instruction's binding plan to a block instruction for the block
//! compiler (`jit::block`): the same reads and writes as the slot path (`slots.rs`), as data.
//! Instructions whose plan needs anything the block ABI does not express (operands resolved by
//! name, source modifiers other than the f32 denormal flush, `write_back` outputs, DPP/SDWA,
//! kernels that call helpers) are not lowered: a block ends before them.

use super::{slots, Bind, Out, Plan};
use crate::interp::RegValue;
use crate::jit::block::{BlockInst, Input, Output, Src};
use crate::spec::Arch;
use crate::value::mask64;
use crate::wave::state::{code, null_code, N_VGPRS};
use crate::wave::{Decoded, Entry};

/// A lowered instruction.
pub(in crate::wave) struct Lowered {
    /// The block instruction.
    pub(in crate::wave) inst: BlockInst,
    /// The arena offset of its PC output (a branch: the block ends with it).
    pub(in crate::wave) pc_off: Option<u32>,
    /// It writes EXEC (the block ends with it).
    pub(in crate::wave) writes_exec: bool,
}

/// Lowers instruction `d` (entry `e`, plan `plan`) for a wave of `lanes` lanes, laying its
/// slot buffer out at the end of `arena` (its constant operands written there now). `None`
/// (and `arena` as it was) when the instruction cannot be part of a block.
pub(in crate::wave) fn lower(
    e: &Entry,
    plan: &Plan,
    d: &Decoded,
    arch: Arch,
    lanes: u32,
    arena: &mut Vec<u8>,
) -> Option<Lowered> {
    let base = arena.len();
    let r = try_lower(e, plan, d, arch, lanes, arena);
    if r.is_none() {
        arena.truncate(base);
    }
    r
}

fn try_lower(
    e: &Entry,
    plan: &Plan,
    d: &Decoded,
    arch: Arch,
    lanes: u32,
    arena: &mut Vec<u8>,
) -> Option<Lowered> {
    if d.ext.is_some() || d.inst.family == "VOPD" {
        return None;
    }
    let kernel = e.kernel_now()?;
    if kernel.uses_helpers() {
        return None;
    }
    let f = &e.prepared.function;
    let layout = &e.layout;
    let base = arena.len();
    arena.resize(base + layout.size, 0);
    // Scalar codes read as `WaveState::read_sgpr` does: `null` and codes past the file are 0.
    let scalar = |c: u32| {
        if Some(c) == null_code(arch) || c >= 128 {
            Src::Zero
        } else {
            Src::Sgpr(c)
        }
    };
    let mut inputs = Vec::new();
    let mut consts = Vec::new();
    for (i, (r, bind)) in f.regs.iter().zip(&plan.binds).enumerate() {
        let off = base + layout.offsets[i] as usize;
        let per_lane = layout.per_lane[i];
        let n = if per_lane { lanes } else { 1 };
        let width = r.width;
        let off32 = off as u32;
        match bind {
            Bind::Vgpr {
                reg,
                hi,
                width: read_width,
                mods,
                narrow,
            } => {
                let ftz = mods.only_ftz32() && *read_width == 32;
                if !(mods.is_plain() || ftz) || *read_width > 64 {
                    return None;
                }
                let pair = *read_width > 32;
                if (reg + pair as u32) as usize >= N_VGPRS {
                    return None;
                }
                inputs.push(Input::Vgpr {
                    row: *reg,
                    pair,
                    shift: if *hi { 16 } else { 0 },
                    mask: mask64(width.min(narrow.unwrap_or(*read_width))),
                    ftz,
                    off: off32,
                    n,
                });
            }
            Bind::Const(RegValue::Uniform(b)) if b.width() <= 64 => {
                let w = width.min(b.width());
                slots::put_uniform(arena, off, w, per_lane, lanes, b.low_u64());
                if r.written {
                    inputs.push(Input::Const {
                        value: b.low_u64() & mask64(w),
                        off: off32,
                        n,
                    });
                } else {
                    consts.push((off32, b.low_u64() & mask64(w)));
                }
            }
            Bind::Const(v) => {
                if r.written {
                    return None;
                }
                slots::put_value(arena, off, width, per_lane, lanes, v);
            }
            Bind::Sgpr { code: c, width: sw } => inputs.push(Input::Scalar {
                lo: scalar(*c),
                hi: if *sw > 32 { scalar(c + 1) } else { Src::Zero },
                mask: mask64(width.min(*sw)),
                off: off32,
                n,
            }),
            Bind::Scc => inputs.push(Input::Scalar {
                lo: Src::Scc,
                hi: Src::Zero,
                mask: mask64(width),
                off: off32,
                n,
            }),
            Bind::Exec => inputs.push(Input::Scalar {
                lo: scalar(code::EXEC_LO),
                hi: scalar(code::EXEC_HI),
                mask: mask64(width),
                off: off32,
                n,
            }),
            Bind::Unread => {}
            Bind::ByName => return None,
        }
    }
    let mut outputs = Vec::new();
    let mut pc_off = None;
    let mut writes_exec = false;
    for &(i, out) in &plan.outputs {
        let off = (base + layout.offsets[i] as usize) as u32;
        match out {
            Out::VgprD0 { reg, width, ftz } => {
                let halves = if width == 64 { 2 } else { 1 };
                for k in 0..halves {
                    if (reg + k) as usize >= N_VGPRS {
                        return None;
                    }
                    outputs.push(Output::Vgpr {
                        row: reg + k,
                        shift: 32 * k,
                        ftz,
                        off,
                    });
                }
            }
            Out::SgprD0 { code: c, width } => {
                let halves = if width == 64 { 2 } else { 1 };
                for k in 0..halves {
                    let c = c + k;
                    // `WaveState::write_sgpr` drops writes to `null` and past the file.
                    if Some(c) == null_code(arch) || c >= 128 {
                        continue;
                    }
                    writes_exec |= c == code::EXEC_LO || c == code::EXEC_HI;
                    outputs.push(Output::Sgpr {
                        code: c,
                        shift: 32 * k,
                        off,
                    });
                }
            }
            Out::Scc => outputs.push(Output::Scc { off }),
            Out::Pc => pc_off = Some(off),
            Out::General => return None,
        }
    }
    Some(Lowered {
        inst: BlockInst {
            code: kernel.code_address(),
            slots: base as u32,
            inputs,
            outputs,
            consts,
            ir: Some(kernel.block_ir()),
        },
        pc_off,
        writes_exec,
    })
}

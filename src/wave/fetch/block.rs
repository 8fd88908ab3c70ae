//! Lowering one fast-path instruction's binding plan to a block instruction for the block
//! compiler (`jit::block`): the same reads and writes as the slot path (`slots.rs`), as data.
//! Lane masks are lowered too: VCC (or a VOP3 `src2` pair) read as a carry-in, `EXECZ` and
//! `VCCZ`, and the `write_back` outputs that merge a mask into VCC, an SGPR pair or EXEC.
//! Instructions whose plan needs anything else the block ABI does not express (other operands
//! resolved by name, source modifiers other than the f32 denormal flush, 16-bit or clamped
//! results, DPP/SDWA, kernels that call helpers) are not lowered: a block ends before them.

use super::{slots, Bind, Inst, Out, Plan};
use crate::interp::RegValue;
use crate::jit::block::{BlockInst, Input, Output, Src};
use crate::spec::Arch;
use crate::value::mask64;
use crate::wave::decode::{is_mask_format, Dest, Facts};
use crate::wave::state::{code, dword_code, m0_code, null_code, N_VGPRS};
use crate::wave::{Decoded, Entry};

/// A lowered instruction.
pub(in crate::wave) struct Lowered {
    /// The block instruction.
    pub(in crate::wave) inst: BlockInst,
    /// The arena offset of its PC output (a branch: the block ends with it).
    pub(in crate::wave) pc_off: Option<u32>,
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
    let ii = Inst {
        d,
        e,
        family: d.inst.family.as_str(),
        arch,
        mode: plan.mode,
        src_exec: 0,
    };
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
                hi: if *sw > 32 {
                    scalar(dword_code(ii.arch, *c, 1))
                } else {
                    Src::Zero
                },
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
            // The kernel reads `laneId` from its lane loop, not from the slot.
            Bind::ByName if r.role == crate::ir::RegRole::Lane => {}
            Bind::ByName => {
                let input = by_name(&ii, plan.dst, &r.name, lanes, scalar, width, off32, n)?;
                if let Input::Const { value, .. } = input {
                    slots::put_uniform(arena, off, width, per_lane, lanes, value);
                    if !r.written {
                        continue;
                    }
                }
                inputs.push(input);
            }
        }
    }
    let mut outputs = Vec::new();
    // `write_back`'s outputs, written after the others as the step path does.
    let mut general = Vec::new();
    let mut pc_off = None;
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
            // A per-lane entry with an SGPR D0 (RDNA 4 `v_s_*`) keeps the SGPR when no lane
            // is active (`write_back`): a block output would write it anyway, so it steps.
            Out::SgprD0 { .. } if e.prepared.vector && !e.prepared.wave_level => return None,
            Out::SgprD0 { code: c, width } => {
                let halves = if width == 64 { 2 } else { 1 };
                for k in 0..halves {
                    let c = dword_code(arch, c, k);
                    // `WaveState::write_sgpr` drops writes to `null` and past the file.
                    if Some(c) == null_code(arch) || c >= 128 {
                        continue;
                    }
                    outputs.push(Output::Sgpr {
                        code: c,
                        shift: 32 * k,
                        off,
                    });
                }
            }
            Out::Scc => outputs.push(Output::Scc { off }),
            Out::Pc => pc_off = Some(off),
            Out::General => {
                let r = &f.regs[i];
                if let Some(o) = general_out(&ii, plan.dst, &r.name, r.width, lanes, off) {
                    general.extend(o);
                } else {
                    return None;
                }
            }
        }
    }
    outputs.extend(general);
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
    })
}

/// The mask of a wave's lanes.
fn full_mask(lanes: u32) -> u64 {
    if lanes >= 64 {
        u64::MAX
    } else {
        (1u64 << lanes) - 1
    }
}

/// The input of a register the plan binds by name, as `bind_named` and `default_value` read
/// it; `None` for the names the block ABI does not express. A `Const` is the value the
/// register takes.
#[allow(clippy::too_many_arguments)]
fn by_name(
    ii: &Inst<'_>,
    dst: Dest,
    name: &str,
    lanes: u32,
    scalar: impl Fn(u32) -> Src,
    width: u32,
    off: u32,
    n: u32,
) -> Option<Input> {
    let pair = |c: u32| Input::Scalar {
        lo: scalar(c),
        hi: scalar(dword_code(ii.arch, c, 1)),
        mask: mask64(width),
        off,
        n,
    };
    let word = |c: u32| Input::Scalar {
        lo: scalar(c),
        hi: Src::Zero,
        mask: mask64(width),
        off,
        n,
    };
    let is_zero = |c: u32| Input::IsZero {
        lo: scalar(c),
        hi: if lanes == 64 {
            scalar(dword_code(ii.arch, c, 1))
        } else {
            Src::Zero
        },
        mask: full_mask(lanes),
        off,
        n,
    };
    Some(match super::inst_field_name(name) {
        "VCC" => {
            // VOP3 forms read the lane mask VOP2 takes from VCC from `src2`.
            let src2_mask = ii.is_vop3()
                && ii
                    .operand("src2")
                    .is_some_and(|o| is_mask_format(&o.format));
            pair(if src2_mask {
                ii.field("src2")
            } else {
                code::VCC_LO
            })
        }
        "VCC_LO" => word(code::VCC_LO),
        "VCC_HI" => word(code::VCC_HI),
        "EXEC_LO" => word(code::EXEC_LO),
        "EXEC_HI" => word(code::EXEC_HI),
        "M0" => word(m0_code(ii.arch)),
        "EXECZ" => is_zero(code::EXEC_LO),
        "VCCZ" => is_zero(code::VCC_LO),
        // A mask destination's old value and `D1` are not supplied: they read zero.
        "D0" | "D1"
            if width <= 64 && (name == "D1" || matches!(dst, Dest::Mask(_) | Dest::None)) =>
        {
            Input::Const { value: 0, off, n }
        }
        _ => return None,
    })
}

/// The outputs of a register `write_back` writes (by its name), or `None` when the block ABI
/// does not express it. `off` is its slot (lane 0's when per lane: `write_back` reads that).
fn general_out(
    ii: &Inst<'_>,
    dst: Dest,
    name: &str,
    width: u32,
    lanes: u32,
    off: u32,
) -> Option<Vec<Output>> {
    let p = &ii.e.prepared;
    let per_lane_run = p.vector && !p.wave_level;
    // `WaveState::write_sgpr` drops writes to `null` and past the file.
    let code_of = |c: u32| (Some(c) != null_code(ii.arch) && c < 128).then_some(c);
    // `write_mask`: lanes inactive at issue read zero; wave32 writes one register.
    let lane_mask = |c: u32| Output::Mask {
        lo: code_of(c),
        hi: if lanes == 64 {
            code_of(dword_code(ii.arch, c, 1))
        } else {
            None
        },
        mask: mask64(width) & full_mask(lanes),
        by_exec: per_lane_run,
        per_lane: false,
        off,
    };
    let both = |c: u32| Output::Mask {
        lo: code_of(c),
        hi: code_of(dword_code(ii.arch, c, 1)),
        mask: mask64(width),
        by_exec: false,
        per_lane: false,
        off,
    };
    let word = |c: u32| Output::Mask {
        lo: code_of(c),
        hi: None,
        mask: mask64(width),
        by_exec: false,
        per_lane: false,
        off,
    };
    let d1_per_lane = p
        .function
        .reg("D1")
        .is_some_and(|r| p.per_lane[r.0 as usize]);
    Some(match (name, dst) {
        ("D0", Dest::Mask(c)) => vec![lane_mask(c)],
        ("D0", Dest::None) => vec![],
        // `D1` (the carry-out of `v_mad_u64_u32`): bit 0 of each lane into the `sdst` mask,
        // as `write_back` writes it.
        ("D1", _) if ii.family == "VOP3SD" && d1_per_lane => {
            let c = ii.field("sdst");
            vec![Output::Mask {
                lo: code_of(c),
                hi: if lanes == 64 {
                    code_of(dword_code(ii.arch, c, 1))
                } else {
                    None
                },
                mask: full_mask(lanes),
                by_exec: per_lane_run,
                per_lane: true,
                off,
            }]
        }
        ("VCC", _) if ii.family == "VOP3SD" => vec![lane_mask(ii.field("sdst"))],
        ("VCC", _) if p.vector => vec![lane_mask(code::VCC_LO)],
        ("VCC", _) => vec![both(code::VCC_LO)],
        ("EXEC", _) if p.vector => vec![lane_mask(code::EXEC_LO)],
        ("EXEC", _) => vec![both(code::EXEC_LO)],
        ("EXEC_LO", _) => vec![word(code::EXEC_LO)],
        ("EXEC_HI", _) => vec![word(code::EXEC_HI)],
        ("VCC_LO", _) => vec![word(code::VCC_LO)],
        ("VCC_HI", _) => vec![word(code::VCC_HI)],
        ("M0", _) => vec![word(m0_code(ii.arch))],
        _ => return None,
    })
}

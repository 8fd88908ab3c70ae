//! The textual operand layout of each format family: which fields appear, in which order,
//! and how each is spelled. Shared by the printer and the encoder so the two cannot drift.

use super::tables::{InstInfo, OperandSpec};

/// How one positional operand is written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Slot {
    /// A scalar register destination or base (`s5`, `s[0:1]`, `vcc`, `null`), `regs` wide.
    SReg {
        /// The register count.
        regs: u32,
    },
    /// A scalar source: register, inline constant or literal.
    SSrc {
        /// The operand size in bits.
        bits: u32,
        /// Whether the value is a float.
        float: bool,
    },
    /// A 16-bit immediate printed in hex (`0x1234`).
    ImmHex,
    /// A 16-bit immediate printed in decimal when at most 64, else hex.
    ImmSmall,
    /// A signed branch offset (`4660`, or a label when assembling).
    Label,
    /// `hwreg(...)`.
    Hwreg,
    /// `vmcnt(..) expcnt(..) lgkmcnt(..)`.
    Waitcnt,
    /// `instid0(..) | instskip(..) | instid1(..)`.
    DelayAlu,
    /// `depctr_*(..)` counters.
    Depctr,
    /// `sendmsg(...)`.
    Sendmsg,
    /// A named barrier id: `m0` or an inline constant (RDNA 4 `s_barrier_*`).
    BarrierId,
    /// `gpr_idx(SRC0,SRC1,SRC2,DST)`, the 4-bit mode of `s_set_gpr_idx_on`/`_mode` (CDNA).
    GprIdx,
    /// A 32-bit literal dword printed as an immediate.
    Literal32,
    /// The literal constant `K` of `s_fmamk_f32`/`s_fmaak_f32`, printed in hex.
    LiteralK,
    /// A `s_sendmsg_rtn` message id held in a source field.
    SendmsgRtn,
}

/// One positional operand of an instruction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Pos<'a> {
    /// The encoding field.
    pub field: &'a str,
    /// The spelling.
    pub slot: Slot,
}

fn regs_of(op: &OperandSpec) -> u32 {
    op.bits.div_ceil(32).max(1)
}

fn src_slot(op: &OperandSpec) -> Slot {
    match op.kind.as_str() {
        "SDST" | "SDST_NULL" | "SREG" | "SREG_NOVCC" | "EXEC" => Slot::SReg { regs: regs_of(op) },
        "SENDMSG_RTN" => Slot::SendmsgRtn,
        "SSRC_BARRIER_ID" => Slot::BarrierId,
        k if k.starts_with("SIMM") => Slot::ImmHex,
        _ => Slot::SSrc {
            bits: op.bits,
            float: super::operands::value_kind(&op.format) == super::operands::ValueKind::Float,
        },
    }
}

fn imm_slot(info: &InstInfo, op: &OperandSpec, hex_imm: bool) -> Slot {
    // RDNA 4's `operands.py` types the `s_waitcnt` operand as a plain immediate.
    if info.name == "S_WAITCNT" {
        return Slot::Waitcnt;
    }
    if info.name.starts_with("S_SET_GPR_IDX_") {
        return Slot::GprIdx;
    }
    match op.kind.as_str() {
        "LABEL" => Slot::Label,
        "HWREG" => Slot::Hwreg,
        "WAITCNT" => Slot::Waitcnt,
        "DELAY" => Slot::DelayAlu,
        "WAITCNT_DEPCTR" | "WAIT_ALU" => Slot::Depctr,
        "SENDMSG" => Slot::Sendmsg,
        _ if info.family == "SOPK" || hex_imm || op.kind == "CLAUSE" => Slot::ImmHex,
        _ => Slot::ImmSmall,
    }
}

/// Whether the instruction carries an extra literal constant `K` (`s_fmamk_f32`,
/// `v_fmaak_f32`, GFX9/10's unfused `v_madmk_f32`, `v_madak_f16`, ...), which `operands.py`
/// does not list.
pub fn has_literal_k(info: &InstInfo) -> bool {
    ["FMAMK", "FMAAK", "MADMK", "MADAK"]
        .iter()
        .any(|k| info.name.contains(k))
}

/// The positional operands of a scalar ALU instruction (SOP1, SOP2, SOPC, SOPK, SOPP), or
/// `None` for other families.
pub fn scalar_layout(info: &InstInfo, hex_imm: bool) -> Option<Vec<Pos<'_>>> {
    let mut out = Vec::new();
    let push = |out: &mut Vec<Pos<'_>>, field: &'static str| {
        if let Some(op) = info.operand(field) {
            out.push(Pos {
                field,
                slot: src_slot(op),
            });
        }
    };
    match info.family.as_str() {
        "SOP1" if info.operands.is_empty() && info.name.contains("BARRIER") => {
            // RDNA 4 barrier instructions `operands.py` does not describe: a barrier id
            // (`m0` or an inline constant), `s_get_barrier_state` also a destination.
            if info.name.starts_with("S_GET_BARRIER_STATE") {
                out.push(Pos {
                    field: "sdst",
                    slot: Slot::SReg { regs: 1 },
                });
            }
            out.push(Pos {
                field: "ssrc0",
                slot: Slot::BarrierId,
            });
        }
        "SOP1" => {
            push(&mut out, "sdst");
            push(&mut out, "ssrc0");
        }
        "SOP2" => {
            push(&mut out, "sdst");
            push(&mut out, "ssrc0");
            let k = Pos {
                field: "literal",
                slot: Slot::LiteralK,
            };
            if info.name.contains("FMAMK") {
                out.push(k);
            }
            push(&mut out, "ssrc1");
            if info.name.contains("FMAAK") {
                out.push(k);
            }
        }
        "SOPC" => {
            push(&mut out, "ssrc0");
            push(&mut out, "ssrc1");
            if info.name.starts_with("S_SET_GPR_IDX_ON") {
                if let Some(p) = out.iter_mut().find(|p| p.field == "ssrc1") {
                    p.slot = Slot::GprIdx;
                }
            }
        }
        "SOPK" if info.operands.is_empty() => {
            // Not described by `operands.py` (`s_subvector_loop_begin`): a register and a
            // branch offset, as LLVM prints them.
            out.push(Pos {
                field: "sdst",
                slot: Slot::SReg { regs: 1 },
            });
            out.push(Pos {
                field: "simm16",
                slot: Slot::Label,
            });
        }
        "SOPK" => {
            let simm = info.operand("simm16").map(|op| Pos {
                field: "simm16",
                slot: imm_slot(info, op, hex_imm),
            });
            // `s_setreg*` writes a hardware register: the hwreg comes first.
            let setreg = info.name.contains("SETREG");
            if setreg {
                out.extend(simm);
                if info.name.contains("IMM32") {
                    out.push(Pos {
                        field: "literal",
                        slot: Slot::Literal32,
                    });
                } else {
                    push(&mut out, "sdst");
                }
            } else {
                push(&mut out, "sdst");
                out.extend(simm);
            }
        }
        "SOPP" if info.name == "S_WAITCNT" && info.operand("simm16").is_none() => {
            // RDNA 4's `operands.py` leaves `s_waitcnt` out.
            out.push(Pos {
                field: "simm16",
                slot: Slot::Waitcnt,
            });
        }
        "SOPP" => {
            if let Some(op) = info.operand("simm16") {
                out.push(Pos {
                    field: "simm16",
                    slot: imm_slot(info, op, hex_imm),
                });
            }
        }
        _ => return None,
    }
    Some(out)
}

/// The source index of an `operands.py` field name (RDNA 4 spells VOP3 `src0` as `vsrc0`).
pub(crate) fn src_index(field: &str) -> Option<usize> {
    match field {
        "src0" | "vsrc0" => Some(0),
        "src1" | "vsrc1" => Some(1),
        "src2" => Some(2),
        _ => None,
    }
}

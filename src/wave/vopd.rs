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
//!
//! gfx1250's VOPD3 (96 bits, `isa/vopd3.rs`) runs the same way, each half as the VOP3
//! instruction of its operation with the half's `neg` bits and third source ([`split3`]).

use crate::isa::{self, Isa};

use std::rc::Rc;

use super::{fetch, Decoded, Entry, Executor, WaveError, WaveState};

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

/// The X (`y == false`) or Y half of a VOPD3 word (gfx1250) as the VOP3 instruction it
/// runs, with the half's sources, destination and `neg` bits in the VOP3 fields (`src1` a
/// VGPR; the select SGPR of `cndmask` in `src2`; `bitop2`'s truth table in `neg`, `abs`
/// and `omod` as `v_bitop3_b32` holds it, with 0 as its third source).
fn split3(isa: &Isa, d: &Decoded, y: bool) -> Option<Decoded> {
    use isa::vopd3::Third;
    let f = |n: &str| d.inst.field(n).unwrap_or(0);
    let s = if y { "y" } else { "x" };
    let o = isa::vopd3::lookup(f(&format!("op{s}")) as u32, y)?;
    let t = isa.tables();
    let single = t
        .insts
        .iter()
        .find(|i| i.name == o.runs && i.family == "VOP3")?;
    let vdst = f(&format!("vdst{s}"));
    let v2 = f(&format!("vsrc{s}2"));
    let (src2, table) = match o.third {
        Third::Vgpr => (256 + v2, 0),
        Third::Sgpr => (v2, 0),
        Third::Acc => (256 + vdst, 0),
        Third::Table => (128, v2),
        Third::None => (0, 0),
    };
    let neg = if o.third == Third::Table {
        table & 7
    } else if o.neg {
        f(&format!("neg{s}"))
    } else {
        0
    };
    let fields = vec![
        ("vdst".to_string(), vdst),
        ("src0".to_string(), f(&format!("src{s}0"))),
        ("src1".to_string(), 256 + f(&format!("vsrc{s}1"))),
        ("src2".to_string(), src2),
        ("omod".to_string(), table >> 6),
        ("neg".to_string(), neg),
        ("abs".to_string(), table >> 3 & 7),
        ("clmp".to_string(), 0),
        ("opsel".to_string(), 0),
    ];
    Some(half_decoded(
        isa,
        d,
        single.name.clone(),
        "VOP3".into(),
        single.opcode,
        fields,
        None,
    ))
}

/// The X (`y == false`) or Y half as a VOP1/VOP2 instruction.
pub(crate) fn split(isa: &Isa, d: &Decoded, y: bool) -> Option<Decoded> {
    if d.inst.format == "VOPD3" {
        return split3(isa, d, y);
    }
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
    Some(half_decoded(
        isa,
        d,
        name,
        family,
        opcode,
        fields,
        d.inst.literal,
    ))
}

/// The identity of a VOPD instruction for [`Halves`]: its program's id and its index there
/// (programs never change once built).
pub(super) type Key = (u64, usize);

/// The entry and binding plan of one half, made for the MODE in the plan.
type Bound = (Rc<Entry>, Rc<fetch::Plan>);

/// A VOPD instruction split into its halves, with each half's entry and plan once built
/// (`None` for a half off the bound fast path).
pub(super) struct Split {
    halves: Rc<(Decoded, Decoded)>,
    /// The MODE and wave size the plans were made for, and Y's then X's.
    bound: Option<(u32, u32, [Option<Bound>; 2])>,
}

impl Split {
    /// Whether a step has bound its halves' plans (for some MODE and wave size).
    pub(super) fn is_bound(&self) -> bool {
        self.bound.is_some()
    }
}

/// The VOPD instructions already split, by [`Key`] (`Executor::vopd_halves`).
pub(super) type Halves = std::collections::HashMap<Key, Split>;

/// At most this many split instructions are kept (all are dropped when it is reached).
const HALVES_MAX: usize = 4096;

/// The halves of `d` and their plans for `w`'s MODE when built, split once per instruction.
#[allow(clippy::type_complexity)]
fn halves(
    ex: &mut Executor,
    key: Key,
    d: &Decoded,
    w: &WaveState,
) -> Option<(Rc<(Decoded, Decoded)>, Option<[Option<Bound>; 2]>)> {
    if let Some(s) = ex.vopd_halves.get(&key) {
        let bound = match &s.bound {
            Some((mode, lanes, b)) if *mode == w.mode && *lanes == w.wave_size => Some(b.clone()),
            _ => None,
        };
        return Some((s.halves.clone(), bound));
    }
    let h = Rc::new((split(ex.isa(), d, false)?, split(ex.isa(), d, true)?));
    if ex.vopd_halves.len() >= HALVES_MAX {
        ex.vopd_halves.clear();
    }
    let split = Split {
        halves: h.clone(),
        bound: None,
    };
    ex.vopd_halves.insert(key, split);
    Some((h, None))
}

/// The entry and plan of half `d` for `w` (`None` off the bound fast path).
fn bind(ex: &mut Executor, d: &Decoded, w: &WaveState) -> Result<Option<Bound>, WaveError> {
    let entry = ex.entry(d)?;
    if !fetch::fast_path(&entry, d) {
        return Ok(None);
    }
    let plan = fetch::plan(&entry, d, w);
    Ok(Some((entry, Rc::new(plan))))
}

/// Runs one half with its plan when it has one.
fn run_half(
    ex: &mut Executor,
    bound: &Option<Bound>,
    d: &Decoded,
    w: &mut WaveState,
) -> Result<(), WaveError> {
    match bound {
        Some((entry, plan)) => fetch::execute_bound(ex, entry, plan, d, w)?,
        None => {
            let entry = ex.entry(d)?;
            fetch::execute(ex, &entry, d, w)?
        }
    };
    Ok(())
}

/// Runs both halves on the state from before the instruction. The halves write only their
/// destination VGPR (the assembler keeps the two apart), so Y runs first on `w` (it sees the
/// state before the instruction), its destination row is saved and put back as it was, X
/// runs (it sees the state before the instruction too), and Y's row goes in. `key` names
/// the instruction (its program's id and index).
pub(super) fn execute(
    ex: &mut Executor,
    key: Key,
    d: &Decoded,
    w: &mut WaveState,
) -> Result<Option<u64>, WaveError> {
    let unsupported = || WaveError::Unsupported {
        addr: d.addr,
        inst: d.inst.name.clone(),
        reason: "a VOPD half with no VOP1/VOP2/VOP3 counterpart to run (gfx1250's \
                 v_dual_dot2acc_* have none)"
            .into(),
    };
    let (h, bound) = halves(ex, key, d, w).ok_or_else(unsupported)?;
    let (x, y) = (&h.0, &h.1);
    let bound = match bound {
        Some(b) => b,
        None => {
            let b = [bind(ex, y, w)?, bind(ex, x, w)?];
            if let Some(s) = ex.vopd_halves.get_mut(&key) {
                s.bound = Some((w.mode, w.wave_size, b.clone()));
            }
            b
        }
    };
    let vdsty = y.inst.field("vdst").unwrap_or(0) as u32;
    let lanes = w.wave_size as usize;
    let mut before = [0u32; 64];
    for (lane, v) in before.iter_mut().enumerate().take(lanes) {
        *v = w.vgpr(lane as u32, vdsty);
    }
    run_half(ex, &bound[0], y, w)?;
    let mut after = [0u32; 64];
    for (lane, v) in after.iter_mut().enumerate().take(lanes) {
        *v = w.vgpr(lane as u32, vdsty);
        w.set_vgpr(lane as u32, vdsty, before[lane]);
    }
    run_half(ex, &bound[1], x, w)?;
    for (lane, &v) in after.iter().enumerate().take(lanes) {
        w.set_vgpr(lane as u32, vdsty, v);
    }
    Ok(None)
}

/// One half of the dual-issue word `d` as the single instruction `family` `opcode` with the
/// given fields, at `d`'s address and size, with that instruction's facts.
fn half_decoded(
    isa: &Isa,
    d: &Decoded,
    name: String,
    family: String,
    opcode: u32,
    fields: Vec<(String, u64)>,
    literal: Option<u64>,
) -> Decoded {
    let facts = isa
        .facts()
        .find(&family, opcode)
        .copied()
        .unwrap_or_else(|| {
            crate::machine::InstFacts::unlisted(crate::machine::Family::of(&family))
        });
    Decoded {
        addr: d.addr,
        facts,
        inst: isa::Inst {
            name,
            format: family.clone(),
            family,
            opcode,
            fields,
            operands: Vec::new(),
            literal,
            size: d.size,
        },
        as_encoded: None,
        size: d.size,
        line: d.line,
        ext: None,
        class: super::Class::Execute,
        encoding: crate::machine::Encoding::Plain,
    }
}

/// The halves of VOPD instruction `key` with their entries and plans for MODE `mode` and
/// `lanes`-lane waves, once a step has bound them: `[Y, X]`, each `(half, entry, plan)`.
/// `None` when the instruction has not run with that MODE and wave size, or a half is off the
/// bound fast path (a block then ends before it).
pub(super) fn bound_halves(
    ex: &Executor,
    key: Key,
    mode: u32,
    lanes: u32,
) -> Option<[(Decoded, Bound); 2]> {
    let s = ex.vopd_halves.get(&key)?;
    let (m, l, [y, x]) = s.bound.as_ref()?;
    if *m != mode || *l != lanes {
        return None;
    }
    Some([
        (s.halves.1.clone(), y.clone()?),
        (s.halves.0.clone(), x.clone()?),
    ])
}

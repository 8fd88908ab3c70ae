//! Definedness of ALU instructions (scalar and vector): their operands bound, and their
//! results written back, by the wave layer's generic fetch ([`bind_operand`],
//! [`default_value`], [`fit`], [`write_back`]) over the definedness domain, so which
//! register, half, width, select, modifier and destination an operand is comes from
//! `wave::decode` and the prepared entry, as for the executors.
//!
//! What the text computes is not run: a result is defined where every bit read is
//! (per lane for vector instructions), with the exact rules the module docs list.

use crate::machine::{BitOp, Encoding, LaneOp, RegSpaces};
use crate::value::Bits;
use crate::wave::decode::{self, dest, write_back_info, Dest, Facts, Named};
use crate::wave::fetch::domain::{Ctx, Domain, Shape, Step as _};
use crate::wave::fetch::operands::{bind_operand, default_value, fit};
use crate::wave::fetch::writeback::{write_back, Output};

use super::domain::{ones, Def, Reads, Shadow, Touched};
use super::{lanes, smeared_def, Entry, Step, Use, WaveDef};

/// The registers an entry's binding reads, recorded on its first run: when all of them are
/// defined (VGPRs in the lanes that matter), every bit it reads is, so its results are
/// defined and the per-lane binding is skipped. The registers a binding reads depend on the
/// encoding alone (EXEC picks lanes, not registers), so one record serves every run.
pub(super) struct FastReads {
    /// Scalar codes read whole (every bit must be defined).
    sgprs: Vec<u32>,
    /// The first codes of lane masks read one bit per lane (only the lanes that matter).
    masks: Vec<u32>,
    vgprs: Vec<u32>,
    scc: bool,
    /// VGPRs and lane masks are needed in every lane of the wave, not only the active ones:
    /// a lane's result may come from another lane (permutes, DPP, SDWA, lane reads).
    all_lanes: bool,
}

impl FastReads {
    fn new(inputs: &[Input], all_lanes: bool) -> FastReads {
        let mut f = FastReads {
            sgprs: Vec::new(),
            masks: Vec::new(),
            vgprs: Vec::new(),
            scc: false,
            all_lanes,
        };
        for i in inputs {
            let r = &i.reads;
            match r.sgprs.iter().min() {
                Some(&c) if i.mask => f.masks.push(c),
                _ => f.sgprs.extend(&r.sgprs),
            }
            f.vgprs.extend(&r.vgprs);
            f.scc |= r.scc;
        }
        for v in [&mut f.sgprs, &mut f.masks, &mut f.vgprs] {
            v.sort_unstable();
            v.dedup();
        }
        f
    }

    /// Whether every register read is defined where it matters, EXEC at issue being `exec`.
    fn defined(&self, w: &WaveDef, exec: u64) -> bool {
        let lane_mask = if self.all_lanes {
            crate::value::mask64(w.wave_size)
        } else {
            exec
        };
        (!self.scc || w.scc)
            && self.sgprs.iter().all(|&c| w.sdef(c) == u32::MAX)
            && self
                .masks
                .iter()
                .all(|&c| w.mask_def(c) & lane_mask == lane_mask)
            && self.vgprs.iter().all(|&r| {
                let row = r as usize * super::LANE_SLOTS;
                match w.vgpr.get(row..row + w.wave_size as usize) {
                    Some(defs) => defs
                        .iter()
                        .enumerate()
                        .all(|(l, &d)| d == u32::MAX || lane_mask >> l & 1 == 0),
                    None => true,
                }
            })
    }
}

/// Runs the fast path of `e` if its record says every bit it reads is defined: writes its
/// results as defined through the generic write-back and returns true. Otherwise returns
/// false, and whether the slow path should record the entry's reads.
fn try_fast(w: &mut WaveDef, cx: &Ctx<'_>, e: &Entry, s: &Step<'_>) -> (bool, bool) {
    match e.fast.get() {
        Some(Some(f)) if f.defined(w, w.exec & s.after.full_mask()) => {
            store_defined(w, cx, s.pc);
            (true, false)
        }
        Some(_) => (false, false),
        None => (false, true),
    }
}

/// Writes every result of `cx` as fully defined (in the lanes EXEC at issue runs).
fn store_defined(w: &mut WaveDef, cx: &Ctx<'_>, pc: u64) {
    let outs = cx
        .prepared
        .function
        .regs
        .iter()
        .filter(|r| r.written)
        .map(|r| (r.name.clone(), Out::Uniform(Def::of(ones(r.width)))))
        .collect();
    store(w, cx, outs, (&[None; 64], pc));
}

/// One register the text reads, bound.
struct Input {
    name: String,
    value: Shape<Def>,
    /// A lane mask the text reads one bit per lane.
    mask: bool,
    /// The registers read with undefined bits.
    touched: Vec<Touched>,
    /// Every register read (when recording).
    reads: Reads,
}

impl Input {
    /// The undefined bits `lane` reads, by position (lane masks: bit 0), and whether any
    /// bit is undefined (operands wider than 64 bits included).
    fn undefined(&self, lane: u32) -> (u64, bool) {
        let v = match &self.value {
            Shape::Lanes(l) => &l[lane as usize],
            Shape::Uniform(v) => v,
        };
        if self.mask {
            let u = (v.def.zext(64).low_u64() >> lane & 1) ^ 1;
            return (u, u != 0);
        }
        let und = v.def.not();
        (und.zext(64).low_u64(), !und.is_zero())
    }

    /// The instruction that left the undefined bits `lane` reads undefined.
    fn origin(&self, lane: u32) -> Option<u64> {
        let t = self.touched.iter().filter(|t| t.undefined);
        let mut t = t.filter(|t| t.lane.is_none_or(|l| l == lane || self.mask));
        t.next().and_then(|t| t.origin)
    }
}

/// The destination of `D0` as the executors take it.
fn d0_dest(cx: &Ctx<'_>) -> Dest {
    let f = &cx.prepared.function;
    let width = f.reg("D0").map_or(32, |r| f.regs[r.0 as usize].width);
    dest(cx, width)
}

/// Binds every register the text of `cx` reads (recording which, when `record`).
fn bind_inputs(w: &mut WaveDef, cx: &Ctx<'_>, s: &Step<'_>, record: bool) -> Vec<Input> {
    let p = cx.prepared;
    let f = &p.function;
    let per_lane_run = cx.per_lane_run();
    let dst = d0_dest(cx);
    let lanes = w.wave_size;
    let mut dom = Shadow::new(w);
    if record {
        dom.reads = Some(Reads::default());
    }
    let mut out = Vec::new();
    for (r, &pl) in f.regs.iter().zip(&p.per_lane) {
        // `D0` is an output: texts read it back after writing it (`SCC = D0.u32 != 0U`).
        // An accumulator read first (`v_fmac_f32`) is not taken as an input either.
        if !r.read || r.name == "D0" {
            continue;
        }
        dom.touched.clear();
        let named = decode::named(cx, dst, &r.name);
        let value = match &named {
            // A source number the text addresses the VGPR file from: the registers the
            // operand covers, per lane.
            Some(Named::VgprNumber(num)) if r.name.starts_with("SRC") => {
                let k = (r.name.as_bytes()[3] - b'0') as usize;
                let n = cx
                    .src_field(k)
                    .and_then(|field| s.info.regs.get(field))
                    .copied()
                    .unwrap_or(1)
                    .max(1);
                Shape::Lanes(
                    (0..lanes)
                        .map(|l| dom.read_vgpr(l, *num, false, 32 * n))
                        .collect(),
                )
            }
            Some(n) => {
                let v = bind_operand(&mut dom, cx, n.clone(), r.width);
                fit::<Shadow>(v, pl, r.width, lanes)
            }
            None => Shape::Uniform(default_value(&mut dom, cx.mode, &r.name, r.width)),
        };
        let mask_field = match &named {
            Some(Named::Source(_, field)) => s.info.ops.get(*field).is_some_and(|o| o.1),
            _ => false,
        };
        let mask = per_lane_run
            && matches!(value, Shape::Uniform(_))
            && (mask_field || matches!(r.name.as_str(), "VCC" | "EXEC"));
        out.push(Input {
            name: r.name.clone(),
            value,
            mask,
            touched: std::mem::take(&mut dom.touched),
            reads: dom.reads.as_mut().map(std::mem::take).unwrap_or_default(),
        });
    }
    out
}

/// A bound input's known 32-bit value (a lane select, a register number).
fn known(inputs: &[Input], pick: impl Fn(&Input) -> bool) -> Option<(u32, bool)> {
    let i = inputs.iter().find(|i| pick(i))?;
    let Shape::Uniform(v) = &i.value else {
        return None;
    };
    let val = v.val.as_ref().map_or(0, |x| x.low_u64() as u32);
    Some((val, v.all_defined()))
}

/// Per lane: whether every bit read is defined, with the origin of the first undefined one.
fn lane_results(inputs: &[Input], lanes: u32) -> Vec<(bool, Option<u64>)> {
    (0..lanes)
        .map(|l| {
            let bad = inputs.iter().find(|i| i.undefined(l).1);
            (bad.is_none(), bad.and_then(|i| i.origin(l)))
        })
        .collect()
}

/// An output register's definedness as write-back reads it.
enum Out {
    Lanes(Vec<Def>),
    Uniform(Def),
}

impl Output<Def> for Out {
    fn lane(&self, lane: u32) -> Def {
        match self {
            Out::Lanes(l) => l[lane as usize].clone(),
            Out::Uniform(v) => v.clone(),
        }
    }
    fn first(&self) -> Def {
        self.lane(0)
    }
}

/// A `width`-bit result of `lane` defined below the lowest undefined input bit (left smear).
fn smeared(inputs: &[Input], lane: u32, width: u32) -> Def {
    let u = inputs.iter().fold(0, |u, i| u | i.undefined(lane).0);
    let words: Vec<Bits> = (0..width.div_ceil(32))
        .rev()
        .map(|k| Bits::from_u64(32, smeared_def(u, k) as u64))
        .collect();
    Def::of(Bits::concat(&words).zext(width))
}

fn all_or_none(ok: bool, width: u32) -> Def {
    Def::of(if ok { ones(width) } else { Bits::zero(width) })
}

/// Writes `outs` back through the generic write-back, EXEC at issue being `exec`.
fn store(w: &mut WaveDef, cx: &Ctx<'_>, outs: Vec<(String, Out)>, origins: (&[Option<u64>], u64)) {
    let (lane_origin, pc) = origins;
    let exec = Shadow::constant(Bits::from_u64(64, w.exec));
    let dst = d0_dest(cx);
    let wb = write_back_info(cx);
    let mut dom = Shadow::new(w);
    for (slot, &o) in dom.lane_origin.iter_mut().zip(lane_origin) {
        *slot = o.or(Some(pc));
    }
    dom.origin = lane_origin.iter().flatten().next().copied().or(Some(pc));
    let outs = outs.iter().map(|(n, v)| (n.as_str(), v));
    write_back(&mut dom, cx, dst, &exec, outs, wb, None);
}

/// A vector instruction (or a VOPD half).
pub(super) fn vector(w: &mut WaveDef, s: &Step<'_>, e: &Entry) {
    let (done, record) = try_fast(w, &e.cx(s), e, s);
    if !done {
        vector_bound(w, s, e, record);
    }
}

/// A vector instruction bound lane by lane.
fn vector_bound(w: &mut WaveDef, s: &Step<'_>, e: &Entry, record: bool) {
    let cx = e.cx(s);
    // The entry's own facts (a VOPD half's are its VOP1/VOP2 instruction's).
    let facts = &e.d.facts;
    let ws = w.wave_size;
    let exec = w.exec & s.after.full_mask();
    let inputs = bind_inputs(w, &cx, s, record);
    let mut per_lane = lane_results(&inputs, ws);
    // Cross-lane instructions that move lanes by the register file (permutes, swizzles):
    // a lane's result may come from any active lane.
    let cross = facts.permutes;
    if cross {
        if let Some(b) = lanes(exec, ws).find(|&l| !per_lane[l as usize].0) {
            let o = per_lane[b as usize].1;
            per_lane.iter_mut().for_each(|x| *x = (false, o));
        }
    }
    let p = cx.prepared;
    let f = &p.function;
    let per_lane_run = cx.per_lane_run();
    // Moves copy definedness exactly (DPP moves from their source lanes).
    let mov = facts.vmov && e.d.encoding != Encoding::Sdwa && !cross;
    let src0 = inputs.iter().find(|i| i.name == "S0");
    let smear = !cross && facts.smears_left;
    let dst = d0_dest(&cx);
    let lane_op = facts.lane;
    if record {
        // A lane write and results written by VGPR number are bound by values the fast path
        // does not check (the lane select, the register number): always the slow path.
        let by_value = lane_op == LaneOp::WriteLane || RegSpaces::of(f).vgpr;
        let all_lanes = cross
            || e.d.ext.is_some()
            || matches!(lane_op, LaneOp::ReadLane | LaneOp::ReadFirstLane);
        let fast = (!by_value).then(|| FastReads::new(&inputs, all_lanes));
        // Only the first run records (an entry runs on one thread).
        let _ = e.fast.set(fast);
    }
    // Inactive lanes write nothing: their inputs give no origin.
    let origins: Vec<Option<u64>> = (0..ws)
        .map(|l| per_lane[l as usize].1.filter(|_| exec >> l & 1 == 1))
        .collect();
    if lane_op == LaneOp::WriteLane {
        // A scalar into the VGPR the text addresses by number, in the selected lane: its
        // bits exactly (all undefined when the lane select is).
        let (lane, sel_ok) = known(&inputs, |i| i.name == "S1").unwrap_or((0, true));
        let (reg, _) = known(&inputs, |i| i.name == "VDST").unwrap_or((0, true));
        let def = match src0.map(|i| &i.value) {
            Some(Shape::Uniform(v)) if sel_ok => v.def.zext(32).low_u64() as u32,
            _ if sel_ok => u32::MAX,
            _ => 0,
        };
        let origin = src0.and_then(|i| i.origin(0)).or(Some(s.pc));
        w.set_v(reg, lane % ws, 0, def, origin);
        return;
    }
    let mut outs = Vec::new();
    for (r, &pl) in f.regs.iter().zip(&p.per_lane) {
        if !r.written {
            continue;
        }
        let width = r.width;
        let lane_def = |l: u32| -> Def {
            let ok = per_lane[l as usize].0;
            if r.name != "D0" {
                return all_or_none(ok, width);
            }
            if mov {
                match src0.map(|i| &i.value) {
                    Some(Shape::Lanes(v)) => return Shadow::zext(v[l as usize].clone(), width),
                    Some(Shape::Uniform(v)) => return Shadow::zext(v.clone(), width),
                    None => {}
                }
            }
            if smear && !ok {
                return smeared(&inputs, l, width);
            }
            all_or_none(ok, width)
        };
        let out = if pl {
            Out::Lanes((0..ws).map(lane_def).collect())
        } else if matches!(lane_op, LaneOp::ReadLane | LaneOp::ReadFirstLane) {
            // One lane's value into an SGPR: that lane's bits.
            let lane = match lane_op {
                LaneOp::ReadLane => known(&inputs, |i| i.name == "S1").map_or(0, |x| x.0) % ws,
                _ => lanes(exec, ws).next().unwrap_or(0),
            };
            let src = inputs
                .iter()
                .find(|i| matches!(i.value, Shape::Lanes(_)) && i.name.starts_with('S'));
            match src.map(|i| &i.value) {
                Some(Shape::Lanes(v)) => {
                    Out::Uniform(Shadow::zext(v[lane as usize].clone(), width))
                }
                _ => Out::Uniform(all_or_none(per_lane[lane as usize].0, width)),
            }
        } else if per_lane_run
            && (matches!(r.name.as_str(), "VCC" | "EXEC" | "D1")
                || r.name == "D0" && matches!(dst, Dest::Mask(_)))
        {
            // A lane mask: bit `l` is defined where lane `l`'s inputs are.
            let mut def = !exec;
            for l in lanes(exec, ws) {
                def |= (per_lane[l as usize].0 as u64) << l;
            }
            Out::Uniform(Def::of(Bits::from_u64(64, def).zext(width)))
        } else {
            let ok = lanes(exec, ws).all(|l| per_lane[l as usize].0);
            Out::Uniform(all_or_none(ok, width))
        };
        outs.push((r.name.clone(), out));
    }
    // Results the text writes into the VGPR file by number (matrix and relative moves):
    // the registers of `vdst`, per active lane.
    if RegSpaces::of(f).vgpr && f.reg("D0").is_none() {
        if let Some((reg, _)) = known(&inputs, |i| i.name == "VDST") {
            let n = s.info.regs.get("vdst").copied().unwrap_or(1).max(1);
            for l in lanes(exec, ws) {
                let (ok, o) = per_lane[l as usize];
                for r in reg..reg + n {
                    w.set_v_word(r, l, if ok { u32::MAX } else { 0 }, o.or(Some(s.pc)));
                }
            }
        }
    }
    store(w, &cx, outs, (&origins, s.pc));
}

/// A scalar instruction: a branch's undefined condition or target is a use.
pub(super) fn scalar(w: &mut WaveDef, s: &Step<'_>, e: &Entry, uses: &mut Vec<Use>) {
    // Branches are bound each time (their condition and target are uses).
    let (done, record) = if s.info.implicit.writes_pc {
        (false, false)
    } else {
        try_fast(w, &e.cx(s), e, s)
    };
    if !done {
        scalar_bound(w, s, e, uses, record);
    }
}

/// A scalar instruction bound operand by operand.
fn scalar_bound(w: &mut WaveDef, s: &Step<'_>, e: &Entry, uses: &mut Vec<Use>, record: bool) {
    let cx = e.cx(s);
    let imp = &s.info.implicit;
    if imp.writes_pc {
        for i in bind_inputs(w, &cx, s, false) {
            if !i.undefined(0).1 {
                continue;
            }
            let (location, what) = match i.name.as_str() {
                "SCC" => ("scc".to_string(), "a branch condition (SCC) is undefined"),
                "VCC" | "VCCZ" => ("vcc".into(), "a branch condition (VCC) is undefined"),
                "EXEC" | "EXECZ" => ("exec".into(), "a branch condition (EXEC) is undefined"),
                _ => (scalar_text(&i.touched), "a branch target is undefined"),
            };
            uses.push(Use {
                location,
                origin: i
                    .touched
                    .iter()
                    .find(|t| t.undefined)
                    .and_then(|t| t.origin),
                what,
            });
            // Reported once: the bits are taken as defined.
            for t in i.touched.iter().filter(|t| t.undefined) {
                match t.code {
                    Some(c) => w.set_s(c, u32::MAX, None),
                    None => w.scc = true,
                }
            }
        }
    }
    let inputs = bind_inputs(w, &cx, s, record);
    if record {
        let _ = e.fast.set(Some(FastReads::new(&inputs, true)));
    }
    let bad = inputs.iter().find(|i| i.undefined(0).1);
    let ok = bad.is_none();
    let origin = bad.and_then(|i| i.origin(0)).or(Some(s.pc));
    let src = |name: &str| match inputs.iter().find(|i| i.name == name) {
        Some(Input {
            value: Shape::Uniform(v),
            ..
        }) => Some(v.clone()),
        _ => None,
    };
    // Exact rules: moves copy; and/or with a constant define what the constant decides.
    let exact = if s.facts.smov {
        src("S0")
    } else {
        bitwise_exact(s, src("S0"), src("S1"))
    };
    let mut outs = Vec::new();
    for r in cx.prepared.function.regs.iter().filter(|r| r.written) {
        let width = r.width;
        let def = match (r.name.as_str(), &exact) {
            ("D0", Some(v)) => Shadow::zext(v.clone(), width),
            ("D0", None) if !ok && s.facts.smears_left => smeared(&inputs, 0, width),
            // SCC of and/or is "result != 0": defined when a defined result bit is 1.
            ("SCC", Some(v)) if !s.facts.smov => {
                let dst = d0_dest(&cx);
                let val = match dst {
                    Dest::Sgpr(c) => {
                        let n = Shadow::width(v).div_ceil(32);
                        let words: Vec<Bits> = (0..n)
                            .rev()
                            .map(|k| {
                                let c = crate::wave::dword_code(s.arch, c, k);
                                Bits::from_u64(32, s.after.read_sgpr(c) as u64)
                            })
                            .collect();
                        Bits::concat(&words)
                    }
                    _ => Bits::zero(Shadow::width(v)),
                };
                let scc = v.all_defined() || !val.zext(Shadow::width(v)).and(&v.def).is_zero();
                all_or_none(scc, width)
            }
            _ => all_or_none(ok, width),
        };
        outs.push((r.name.clone(), Out::Uniform(def)));
    }
    let origins = [origin; 64];
    store(w, &cx, outs, (&origins, s.pc));
}

/// The scalar registers read with undefined bits, as a register range (`s4`, `s[4:5]`).
fn scalar_text(touched: &[Touched]) -> String {
    let codes: Vec<u32> = touched.iter().filter_map(|t| t.code).collect();
    let (Some(&lo), Some(&hi)) = (codes.iter().min(), codes.iter().max()) else {
        return "scc".into();
    };
    super::reg_text(&super::Regs {
        file: 's',
        first: lo,
        count: hi - lo + 1,
    })
}

/// Exact definedness of scalar bitwise and/or (and their negated-operand forms), xor and not:
/// a defined 0 decides an and, a defined 1 an or (Memcheck's rule), whatever the other input.
fn bitwise_exact(s: &Step<'_>, a: Option<Def>, b: Option<Def>) -> Option<Def> {
    let (op, _) = s.facts.scalar_bitwise?;
    let a = a?;
    let b = if op == BitOp::Not { a.clone() } else { b? };
    let width = Shadow::width(&a);
    let value = |v: &Def| v.val.clone().unwrap_or_else(|| Bits::zero(width));
    let (va, vb) = (value(&a), value(&b).zext(width));
    let vb = if matches!(op, BitOp::AndNot | BitOp::OrNot) {
        vb.not()
    } else {
        vb
    };
    let (da, db) = (a.def, b.def.zext(width));
    let both = da.and(&db);
    let def = match op {
        BitOp::And | BitOp::AndNot => both.or(&da.and(&va.not())).or(&db.and(&vb.not())),
        BitOp::Or | BitOp::OrNot => both.or(&da.and(&va)).or(&db.and(&vb)),
        BitOp::Xor => both,
        BitOp::Not => da,
    };
    Some(Def::of(def))
}

//! Executing one instruction's semantics on a machine state: the contract the interpreter
//! implements now and the JIT later.
//!
//! A [`Prepared`] instruction is its typed IR plus how each register binds to the machine:
//! scalar instructions see one value per operand; vector instructions (VOP*, and the memory
//! encodings) run their text once per lane whose EXEC bit is set, with vector operands held
//! per lane (`S0`, `D0`, ...) and scalar ones (SGPR operands, `SCC`, `VCC`, `EXEC`, mode
//! bits) shared by all lanes, so `VCC.u64[laneId] = ...` collects one bit per lane. Entries
//! that address other lanes' registers themselves (`VGPR[lane][...]` without `laneId`, such as
//! v_readlane or v_permlane) run once for the wave.

use std::collections::{BTreeMap, HashMap};

use crate::frontend::{self, FrontError};
use crate::interp::{self, ExecError, ExecErrorKind, Frame, Memory, RegValue};
use crate::ir::{Expr, ExprKind, Function, Place, RegId, RegRole, Space, Stmt};
use crate::spec::{Arch, Instruction};
use crate::value::Bits;

/// The encodings whose entries are ALU operations (what `spec stats` counts as ALU).
pub const ALU_ENCODINGS: &[&str] = &[
    "SOP1", "SOP2", "SOPC", "SOPK", "VOP1", "VOP2", "VOP3", "VOP3SD", "VOPC", "VOP3P",
];

/// Instruction fields that are the same for every lane even in vector instructions.
const FIELD_OPERANDS: &[&str] = &[
    "SRC0",
    "SRC1",
    "SRC2",
    "VDST",
    "SDST",
    "OPSEL",
    "OPSEL_HI",
    "NEG",
    "NEG_HI",
    "ABS",
    "OMOD",
    "CLAMP",
    "CBSZ",
    "BLGP",
    "SCALE_SRC0",
    "SCALE_SRC1",
    "SIMM16",
    "SIMM32",
    "OFFSET",
    "OFFSET0",
    "OFFSET1",
    "IOFFSET",
    "INST_OFFSET",
    "SDWA_SRC0_SEL",
    "GDS",
];

/// An instruction ready to run.
#[derive(Clone, Debug)]
pub struct Prepared {
    /// The arch.
    pub arch: Option<Arch>,
    /// The instruction name.
    pub name: String,
    /// Its encoding (`SOP1`, `VOP3`, ... or `TEXT` for user text).
    pub encoding: String,
    /// The typed IR.
    pub function: Function,
    /// For each register, whether it holds one value per lane.
    pub per_lane: Vec<bool>,
    /// Whether the text runs once per active lane.
    pub vector: bool,
    /// Whether the text runs once for the whole wave although the instruction is a vector one.
    pub wave_level: bool,
    round_reg: Option<RegId>,
}

fn is_vector_encoding(enc: &str) -> bool {
    enc.starts_with('V')
        || matches!(
            enc,
            "DS" | "FLAT" | "GLOBAL" | "SCRATCH" | "MUBUF" | "MTBUF" | "MIMG" | "LDSDIR"
        )
}

/// The operand-table field behind a pseudocode operand name.
fn operand_kind<'a>(inst: &'a Instruction, name: &str) -> Option<&'a str> {
    let fields: &[&str] = match name {
        "S0" => &["src0", "ssrc0", "vsrc0"],
        "S1" => &["src1", "ssrc1", "vsrc1"],
        "S2" => &["src2", "vsrc2"],
        "D0" => &["vdst", "sdst", "vdstx"],
        _ => &[],
    };
    let lower = name.to_ascii_lowercase();
    // The fields in priority order: VOP3SD lists `sdst` (the carry-out) before `vdst`, but
    // D0 is the vector destination.
    fields
        .iter()
        .copied()
        .chain(std::iter::once(lower.as_str()))
        .find_map(|f| inst.operands.iter().find(|o| o.field == f))
        .map(|o| o.kind.as_str())
}

/// Calls `f` on every expression of a prepared entry's IR.
pub fn walk_prepared_exprs(p: &Prepared, f: &mut dyn FnMut(&Expr)) {
    walk_exprs(&p.function.body, f);
}

fn walk_exprs(body: &[Stmt], f: &mut dyn FnMut(&Expr)) {
    fn expr(e: &Expr, f: &mut dyn FnMut(&Expr)) {
        f(e);
        match &e.kind {
            ExprKind::Elem { index, .. } => expr(index, f),
            ExprKind::Unary { arg, .. } | ExprKind::Convert { arg, .. } => expr(arg, f),
            ExprKind::Binary { lhs, rhs, .. } | ExprKind::Cmp { lhs, rhs, .. } => {
                expr(lhs, f);
                expr(rhs, f);
            }
            ExprKind::Select {
                cond,
                then,
                otherwise,
            } => {
                expr(cond, f);
                expr(then, f);
                expr(otherwise, f);
            }
            ExprKind::Slice { arg, lo, .. } => {
                expr(arg, f);
                expr(lo, f);
            }
            ExprKind::Concat(parts) => parts.iter().for_each(|p| expr(p, f)),
            ExprKind::Call { args, .. } => args.iter().for_each(|p| expr(p, f)),
            ExprKind::Load { addr, lane, .. } => {
                expr(addr, f);
                if let Some(l) = lane {
                    expr(l, f);
                }
            }
            ExprKind::Const(_) | ExprKind::Reg(_) | ExprKind::Local(_) => {}
        }
    }
    fn place(p: &Place, f: &mut dyn FnMut(&Expr)) {
        match p {
            Place::Elem { index, .. } => expr(index, f),
            Place::Slice { base, lo, .. } => {
                place(base, f);
                expr(lo, f);
            }
            Place::Store { addr, lane, .. } => {
                expr(addr, f);
                if let Some(l) = lane {
                    expr(l, f);
                }
            }
            Place::Reg(_) | Place::Local(_) => {}
        }
    }
    for s in body {
        match s {
            Stmt::Assign {
                place: p, value, ..
            } => {
                place(p, f);
                expr(value, f);
            }
            Stmt::AssignConcat { places, value, .. } => {
                for (p, _) in places {
                    place(p, f);
                }
                expr(value, f);
            }
            Stmt::If {
                cond,
                then,
                otherwise,
                ..
            } => {
                expr(cond, f);
                walk_exprs(then, f);
                walk_exprs(otherwise, f);
            }
            Stmt::For {
                start, end, body, ..
            } => {
                expr(start, f);
                expr(end, f);
                walk_exprs(body, f);
            }
            Stmt::While { cond, body, .. } => {
                expr(cond, f);
                walk_exprs(body, f);
            }
            Stmt::Effect { args, .. } => args.iter().for_each(|a| expr(a, f)),
            Stmt::Break { .. } | Stmt::Continue { .. } | Stmt::Return { .. } => {}
        }
    }
}

/// Whether statements store into one of `spaces`.
fn stores_to(body: &[Stmt], spaces: &[Space]) -> bool {
    fn place_in(p: &Place, spaces: &[Space]) -> bool {
        match p {
            Place::Store { space, .. } => spaces.contains(space),
            Place::Slice { base, .. } => place_in(base, spaces),
            _ => false,
        }
    }
    body.iter().any(|s| match s {
        Stmt::Assign { place, .. } => place_in(place, spaces),
        Stmt::AssignConcat { places, .. } => places.iter().any(|(p, _)| place_in(p, spaces)),
        Stmt::If {
            then, otherwise, ..
        } => stores_to(then, spaces) || stores_to(otherwise, spaces),
        Stmt::For { body, .. } | Stmt::While { body, .. } => stores_to(body, spaces),
        _ => false,
    })
}

impl Prepared {
    /// Binds a compiled function to the machine. `inst` gives the operand kinds (per-lane
    /// or scalar); without it every operand of a vector text is per lane.
    pub fn new(
        arch: Option<Arch>,
        encoding: &str,
        function: Function,
        inst: Option<&Instruction>,
    ) -> Prepared {
        let vector = is_vector_encoding(encoding);
        let mut uses_vgpr = stores_to(&function.body, &[Space::Vgpr]);
        let mut reads_lane = false;
        walk_exprs(&function.body, &mut |e| match &e.kind {
            ExprKind::Load {
                space: Space::Vgpr, ..
            } => uses_vgpr = true,
            ExprKind::Reg(r) if function.regs[r.0 as usize].role == RegRole::Lane => {
                reads_lane = true
            }
            _ => {}
        });
        let wave_level = vector && uses_vgpr && !reads_lane;
        let per_lane = function
            .regs
            .iter()
            .map(|r| {
                if !vector || r.role != RegRole::Operand {
                    return false;
                }
                if FIELD_OPERANDS.contains(&r.name.as_str()) || r.name.starts_with("INST.") {
                    return false;
                }
                match inst.and_then(|i| operand_kind(i, &r.name)) {
                    // Vector sources (`OPR_SRC*`: a VGPR, or an SGPR/constant broadcast) and
                    // VGPRs hold one value per lane; SGPR kinds (`OPR_SREG`, `OPR_SSRC`,
                    // `OPR_SDST`, ...) and immediates one per wave.
                    Some(kind) => kind.starts_with("OPR_SRC") || kind.contains("VGPR"),
                    // VOPC writes its lane mask to D0 (VCC); it is one value for the wave.
                    None => !(encoding == "VOPC" && r.name == "D0"),
                }
            })
            .collect();
        let round_reg = function.reg("ROUND_MODE");
        Prepared {
            arch,
            name: function.name.clone(),
            encoding: encoding.to_string(),
            function,
            per_lane,
            vector,
            wave_level,
            round_reg,
        }
    }

    /// The same instruction with optimised IR (`ir::opt`: folded constants, unrolled constant
    /// loops, no dead stores); registers and bindings are unchanged.
    pub fn optimized(&self) -> Prepared {
        Prepared {
            function: crate::ir::opt::optimize(&self.function),
            ..self.clone()
        }
    }

    /// Whether the text calls a built-in the hardware only approximates.
    pub fn is_approximate(&self) -> bool {
        let mut approx = false;
        walk_exprs(&self.function.body, &mut |e| {
            if let ExprKind::Call { builtin, .. } = &e.kind {
                approx |= crate::builtins::is_approximate(builtin.func);
            }
        });
        approx
    }
}

/// Whether text register `reg` of a SOPK entry is its 16-bit immediate field: texts name it
/// `SIMM16` (RDNA 3), `S1` when `S0` is the SGPR `sdst` names (CDNA's `S_CMPK_*`:
/// `S0.i32 == signext(S1.i16)`), or `S0` when that SGPR is `D0` (RDNA 4's and CDNA's
/// `S_MOVK`/`S_ADDK`/`S_MULK`: `D0 + signext(S0.i16)`). The wave layer binds and `spec diff`
/// compares by this one rule.
pub fn is_sopk_immediate(encoding: &str, reg: &str, has_d0: bool) -> bool {
    encoding == "SOPK" && (reg == "SIMM16" || reg == "S1" || reg == "S0" && has_d0)
}

/// Compiles and binds an instruction of the spec.
///
/// # Errors
/// The front-end failure, if its text does not compile.
pub fn prepare(arch: Arch, inst: &Instruction) -> Result<Prepared, FrontError> {
    let c = frontend::compile_instruction(arch, inst)?;
    Ok(Prepared::new(
        Some(arch),
        &inst.encoding,
        c.function,
        Some(inst),
    ))
}

/// A machine state for executing single instructions: named operand and register values,
/// the register files and memory.
#[derive(Clone, Debug)]
pub struct Machine {
    /// 32 or 64.
    pub wave_size: u32,
    /// Values by pseudocode name (`S0`, `D0`, `SCC`, `EXEC`, `WAVE_MODE.IEEE`, ...).
    pub values: BTreeMap<String, RegValue>,
    /// VGPRs: (lane, register) → value.
    pub vgpr: HashMap<(u32, u32), u32>,
    /// SGPRs by index.
    pub sgpr: HashMap<u32, u32>,
    /// Hardware registers by id.
    pub hwreg: HashMap<u32, u32>,
    /// Byte-addressed memory.
    pub mem: crate::sparse::SparseMemory,
}

/// The result of running an instruction: every register it writes, in the function's
/// order, with its final value.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Outputs {
    /// `(name, value)` pairs.
    pub values: Vec<(String, RegValue)>,
}

impl Machine {
    /// An empty machine of the given wave size.
    pub fn new(wave_size: u32) -> Machine {
        Machine {
            wave_size,
            values: BTreeMap::new(),
            vgpr: HashMap::new(),
            sgpr: HashMap::new(),
            hwreg: HashMap::new(),
            mem: crate::sparse::SparseMemory::new(),
        }
    }

    /// The EXEC mask of a full wave.
    pub fn full_exec(&self) -> u64 {
        if self.wave_size >= 64 {
            u64::MAX
        } else {
            (1u64 << self.wave_size) - 1
        }
    }

    /// The default value of a register the caller did not set.
    fn default_value(&self, name: &str, width: u32) -> Bits {
        let v = match name {
            "EXEC" => self.full_exec(),
            "EXEC_LO" => self.full_exec() & 0xffff_ffff,
            "EXEC_HI" => self.full_exec() >> 32,
            "WAVE32" | "wave32" => (self.wave_size == 32) as u64,
            "WAVE64" | "wave64" => (self.wave_size == 64) as u64,
            // Compute kernels run with IEEE mode on.
            "WAVE_MODE.IEEE" => 1,
            "EXECZ" => (self.value_u64("EXEC").unwrap_or(self.full_exec()) == 0) as u64,
            "VCCZ" => (self.value_u64("VCC").unwrap_or(0) == 0) as u64,
            _ => 0,
        };
        Bits::from_u64(width, v)
    }

    fn value_u64(&self, name: &str) -> Option<u64> {
        match self.values.get(name)? {
            RegValue::Uniform(b) => Some(b.low_u64()),
            RegValue::Lanes(v) => v.first().map(Bits::low_u64),
        }
    }
}

struct MachineMemory<'a> {
    vgpr: &'a mut HashMap<(u32, u32), u32>,
    sgpr: &'a mut HashMap<u32, u32>,
    hwreg: &'a mut HashMap<u32, u32>,
    mem: &'a mut crate::sparse::SparseMemory,
    wave_size: u32,
}

/// Where the virtual registers holding a standalone instruction's vector operands start
/// (see [`bind_inputs`]), above every real register file (v0..v255 and CDNA's a0..a255,
/// s0..s127); each operand has room for this many consecutive registers.
pub const VIRTUAL_VGPR_BASE: u32 = 0x1000;
/// Registers per virtual operand (a matrix operand spans up to 32).
pub const VIRTUAL_VGPR_SPAN: u32 = 64;
/// Register numbers a machine accepts (VGPR and SGPR): the real files and the virtual
/// operand registers. An index beyond is an error, not a silent read of zero.
pub const REGISTER_LIMIT: u32 = VIRTUAL_VGPR_BASE + 4 * VIRTUAL_VGPR_SPAN;

/// Checks a register-file access of `words` 32-bit registers from `first`.
fn check_register(
    space: Space,
    lane: u32,
    first: u64,
    words: u64,
    wave: u32,
) -> Result<(), String> {
    let (limit, name) = match space {
        Space::Vgpr => {
            if lane >= wave {
                return Err(format!("lane {lane} of a wave{wave}"));
            }
            (REGISTER_LIMIT, "VGPR")
        }
        Space::Sgpr => (REGISTER_LIMIT, "SGPR"),
        Space::HwReg | Space::Mem => return Ok(()),
    };
    match first.checked_add(words) {
        Some(end) if end <= limit as u64 => Ok(()),
        _ => Err(format!(
            "{name} {first} is outside the register file (0..{limit})"
        )),
    }
}

impl Memory for MachineMemory<'_> {
    fn load(&mut self, space: Space, lane: u32, addr: u64, width: u32) -> Result<Bits, String> {
        let words = width.div_ceil(32) as u64;
        check_register(space, lane, addr, words, self.wave_size)?;
        let read32 = |i: u64| -> Result<u32, String> {
            match space {
                Space::Vgpr => Ok(self
                    .vgpr
                    .get(&(lane, (addr + i) as u32))
                    .copied()
                    .unwrap_or(0)),
                Space::Sgpr => Ok(self.sgpr.get(&((addr + i) as u32)).copied().unwrap_or(0)),
                Space::HwReg => Ok(self.hwreg.get(&((addr + i) as u32)).copied().unwrap_or(0)),
                Space::Mem => {
                    let mut b = [0u8; 4];
                    self.mem.read(addr.wrapping_add(i * 4), &mut b);
                    Ok(u32::from_le_bytes(b))
                }
            }
        };
        let mut out = Vec::with_capacity(words as usize);
        for i in 0..words {
            out.push(read32(i)?);
        }
        let words64: Vec<u64> = out
            .chunks(2)
            .map(|c| c[0] as u64 | (c.get(1).copied().unwrap_or(0) as u64) << 32)
            .collect();
        Ok(Bits::from_words(width, &words64))
    }

    fn store(&mut self, space: Space, lane: u32, addr: u64, value: &Bits) -> Result<(), String> {
        let width = value.width();
        if space == Space::Mem {
            let n = width.div_ceil(8) as usize;
            let mut bytes = Vec::with_capacity(n);
            for b in 0..n as u64 {
                bytes.push(value.extract(b * 8, 8).low_u64() as u8);
            }
            self.mem.write(addr, &bytes);
            return Ok(());
        }
        check_register(space, lane, addr, width.div_ceil(32) as u64, self.wave_size)?;
        for i in 0..width.div_ceil(32) as u64 {
            let word = value.extract(i * 32, 32).low_u64() as u32;
            let key = (addr + i) as u32;
            match space {
                Space::Vgpr => {
                    // A store narrower than 32 bits keeps the register's other bits.
                    let old = self.vgpr.get(&(lane, key)).copied().unwrap_or(0);
                    let bits = width.saturating_sub(i as u32 * 32).min(32);
                    let mask = if bits >= 32 {
                        u32::MAX
                    } else {
                        (1u32 << bits) - 1
                    };
                    self.vgpr.insert((lane, key), (old & !mask) | (word & mask));
                }
                Space::Sgpr => {
                    self.sgpr.insert(key, word);
                }
                Space::HwReg => {
                    self.hwreg.insert(key, word);
                }
                Space::Mem => unreachable!("bug: handled above"),
            }
        }
        Ok(())
    }
}

/// Registers given per lane but bound as one value (or the reverse) are adapted: a uniform
/// value fills every lane; a per-lane list bound to a scalar takes lane 0.
fn bind(
    value: Option<&RegValue>,
    per_lane: bool,
    width: u32,
    lanes: u32,
    default: Bits,
) -> RegValue {
    let fit = |b: &Bits| b.zext(width);
    match (value, per_lane) {
        (None, false) => RegValue::Uniform(default),
        (None, true) => RegValue::Lanes(vec![default; lanes as usize]),
        (Some(RegValue::Uniform(b)), false) => RegValue::Uniform(fit(b)),
        (Some(RegValue::Uniform(b)), true) => RegValue::Lanes(vec![fit(b); lanes as usize]),
        (Some(RegValue::Lanes(v)), false) => {
            RegValue::Uniform(v.first().map(fit).unwrap_or(default))
        }
        (Some(RegValue::Lanes(v)), true) => RegValue::Lanes(
            (0..lanes as usize)
                .map(|i| v.get(i).map(fit).unwrap_or_else(|| default.clone()))
                .collect(),
        ),
    }
}

/// Binds a machine's named values to a prepared function's registers (defaults for the ones
/// not set), and gives register-file entries virtual VGPR numbers for their operands.
/// Returns the register values and the `(operand, vgpr)` pairs of virtual registers.
pub fn bind_inputs(p: &Prepared, m: &mut Machine) -> (Vec<RegValue>, Vec<(String, u32)>) {
    let f = &p.function;
    let lanes = m.wave_size;
    // Vector operands held in VGPRs: give entries that address the register file a
    // register number for each operand, holding the operand's per-lane values.
    let mut virtual_vgprs: Vec<(String, u32)> = Vec::new();
    let uses_vgpr_numbers =
        p.wave_level || f.regs.iter().any(|r| r.name == "VDST" || r.name == "SRC0");
    if uses_vgpr_numbers {
        for (i, (field, operand)) in [
            ("SRC0", "S0"),
            ("SRC1", "S1"),
            ("SRC2", "S2"),
            ("VDST", "D0"),
        ]
        .iter()
        .enumerate()
        {
            if f.reg(field).is_some() && !m.values.contains_key(*field) {
                let num = VIRTUAL_VGPR_BASE + VIRTUAL_VGPR_SPAN * i as u32;
                m.values.insert(
                    field.to_string(),
                    RegValue::Uniform(Bits::from_u64(32, num as u64)),
                );
                if let Some(v) = m.values.get(*operand) {
                    for lane in 0..lanes {
                        let x = match v {
                            RegValue::Uniform(b) => b.low_u64(),
                            RegValue::Lanes(l) => l.get(lane as usize).map_or(0, Bits::low_u64),
                        };
                        m.vgpr.insert((lane, num), x as u32);
                    }
                }
                virtual_vgprs.push((operand.to_string(), num));
            }
        }
    }
    let regs = f
        .regs
        .iter()
        .zip(&p.per_lane)
        .map(|(r, &pl)| {
            let d = m.default_value(&r.name, r.width);
            bind(m.values.get(&r.name), pl, r.width, lanes, d)
        })
        .collect();
    (regs, virtual_vgprs)
}

/// The EXEC mask a machine starts the instruction with.
pub fn exec_mask(m: &Machine) -> u64 {
    let exec = match m.values.get("EXEC") {
        Some(RegValue::Uniform(b)) => b.low_u64(),
        Some(RegValue::Lanes(v)) => v.first().map_or(0, Bits::low_u64),
        None => m.full_exec(),
    };
    exec & m.full_exec()
}

/// The machine's memories as the executors address them.
pub fn machine_memory(m: &mut Machine) -> impl Memory + '_ {
    machine_memory_with(m, None)
}

/// The machine's register files with byte memory served by `mem` when given (the wave
/// layer passes the wave's global memory, LDS or scratch itself, so an access costs what it
/// touches), else by the machine's own `mem`.
pub fn machine_memory_with<'a>(
    m: &'a mut Machine,
    mem: Option<&'a mut crate::sparse::SparseMemory>,
) -> impl Memory + 'a {
    MachineMemory {
        vgpr: &mut m.vgpr,
        sgpr: &mut m.sgpr,
        hwreg: &mut m.hwreg,
        mem: match mem {
            Some(x) => x,
            None => &mut m.mem,
        },
        wave_size: m.wave_size,
    }
}

/// Stores the written registers back into the machine, and reads operands written through
/// virtual VGPRs back as per-lane values.
pub fn finish_outputs(
    m: &mut Machine,
    mut outputs: Vec<(String, RegValue)>,
    virtual_vgprs: Vec<(String, u32)>,
) -> Outputs {
    let lanes = m.wave_size;
    for (name, value) in &outputs {
        m.values.insert(name.clone(), value.clone());
    }
    for (operand, num) in virtual_vgprs {
        if operand == "D0" && !outputs.iter().any(|(n, _)| n == "D0") {
            let any = (0..lanes).any(|l| m.vgpr.contains_key(&(l, num)));
            if any {
                let vals: Vec<Bits> = (0..lanes)
                    .map(|l| Bits::from_u64(32, m.vgpr.get(&(l, num)).copied().unwrap_or(0) as u64))
                    .collect();
                let v = RegValue::Lanes(vals);
                outputs.push(("D0".to_string(), v.clone()));
                m.values.insert("D0".to_string(), v);
            }
        }
    }
    Outputs { values: outputs }
}

/// Runs a prepared instruction with the interpreter, updating `m` with everything it writes.
///
/// # Errors
/// A runtime fault, with the span of the IR node.
pub fn run_interp(p: &Prepared, m: &mut Machine) -> Result<Outputs, ExecError> {
    run_interp_with(p, m, None)
}

/// Runs like [`run_interp`], with byte memory served by `mem` when given (see
/// [`machine_memory_with`]).
///
/// # Errors
/// A runtime fault, with the span of the IR node.
pub fn run_interp_with(
    p: &Prepared,
    m: &mut Machine,
    mem: Option<&mut crate::sparse::SparseMemory>,
) -> Result<Outputs, ExecError> {
    let f = &p.function;
    let lanes = m.wave_size;
    let (mut regs, virtual_vgprs) = bind_inputs(p, m);
    let exec = exec_mask(m);
    {
        let mut memory = machine_memory_with(m, mem);
        let mut frame = Frame {
            regs: &mut regs,
            memory: &mut memory,
        };
        if p.vector && !p.wave_level {
            for lane in 0..lanes {
                if exec >> lane & 1 == 1 {
                    interp::run_lane(f, &mut frame, lane, p.round_reg)?;
                }
            }
        } else {
            interp::run_lane(f, &mut frame, 0, p.round_reg)?;
        }
    }
    let outputs = f
        .regs
        .iter()
        .zip(regs)
        .filter(|(r, _)| r.written)
        .map(|(r, v)| (r.name.clone(), v))
        .collect();
    Ok(finish_outputs(m, outputs, virtual_vgprs))
}

/// Describes an [`ExecError`] as `arch:INST:line:col: message`.
pub fn describe_error(p: &Prepared, text: &str, e: &ExecError) -> String {
    let (l, c) = crate::diag::line_col(text, e.span.start as usize);
    let arch = p.arch.map(|a| a.name()).unwrap_or("text");
    format!("{arch}:{}:{l}:{c}: {e}", p.name)
}

/// The error kind for callers that want to match on it.
pub fn is_budget(e: &ExecError) -> bool {
    e.kind == ExecErrorKind::StepBudget
}

/// A small deterministic generator (xorshift64*) for random operand sweeps.
#[derive(Clone, Debug)]
pub struct Rng(u64);

impl Rng {
    /// A generator from a seed.
    pub fn new(seed: u64) -> Rng {
        Rng(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1)
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    /// A value of `width` bits, biased toward edge cases: zero, all ones, the sign bit alone,
    /// one, small numbers, and the float specials of 16/32/64-bit formats.
    pub fn edge_value(&mut self, width: u32) -> Bits {
        let words: Vec<u64> = (0..width.div_ceil(64)).map(|_| self.next_u64()).collect();
        let random = Bits::from_words(width, &words);
        let pick = self.next_u64() % 16;
        let top = |w: u32| Bits::from_u64(width, 1).shl(w as u64 - 1);
        match pick {
            0 => Bits::zero(width),
            1 => Bits::zero(width).not(),
            2 => top(width),
            3 => Bits::from_u64(width, 1),
            4 => Bits::from_u64(width, self.next_u64() % 64),
            5 => top(width).not(),
            6 if width >= 32 => {
                // f32 specials: +-0, +-inf, qNaN, sNaN, denormal, 1.0.
                let specials = [
                    0x8000_0000u64,
                    0x7f80_0000,
                    0xff80_0000,
                    0x7fc0_0000,
                    0x7fa0_0000,
                    0x0000_0001,
                    0x3f80_0000,
                    0x807f_ffff,
                ];
                Bits::from_u64(width, specials[(self.next_u64() % 8) as usize])
            }
            7 if width >= 64 => {
                let specials = [
                    0x8000_0000_0000_0000u64,
                    0x7ff0_0000_0000_0000,
                    0xfff0_0000_0000_0000,
                    0x7ff8_0000_0000_0000,
                    0x7ff4_0000_0000_0000,
                    0x0000_0000_0000_0001,
                    0x3ff0_0000_0000_0000,
                ];
                Bits::from_u64(width, specials[(self.next_u64() % 7) as usize])
            }
            8 if width >= 16 => {
                let specials = [0x8000u64, 0x7c00, 0xfc00, 0x7e00, 0x7d00, 0x0001, 0x3c00];
                let lo = specials[(self.next_u64() % 7) as usize];
                let hi = specials[(self.next_u64() % 7) as usize];
                Bits::from_u64(width, lo | hi << 16)
            }
            _ => random,
        }
    }
}

/// Runs a prepared instruction on `cases` random operand sets (random EXEC masks for vector
/// instructions, wave32 and wave64 alternating) and reports the first runtime fault.
///
/// # Errors
/// The first fault, with the case number.
pub fn random_sweep(p: &Prepared, cases: u32, seed: u64) -> Result<(), (u32, ExecError)> {
    let mut rng = Rng::new(seed);
    for case in 0..cases {
        // CDNA has only wave64.
        let wave = if case % 2 == 0 && p.arch.is_none_or(|a| a.supports_wave(32)) {
            32
        } else {
            64
        };
        let mut m = random_machine(p, &mut rng, wave);
        run_interp(p, &mut m).map_err(|e| (case, e))?;
    }
    Ok(())
}

/// Execution coverage of one arch's ALU entries.
#[derive(Clone, Debug, Default, serde::Serialize)]
pub struct AluStats {
    /// Entries of the ALU encodings ([`ALU_ENCODINGS`]).
    pub alu_total: usize,
    /// Of those, entries that ran on every random operand set without a runtime error.
    pub executes: usize,
    /// How many random operand sets each entry ran on.
    pub samples: u32,
    /// Executing entries that call a built-in the hardware only approximates.
    pub approximate: Vec<String>,
    /// Entries that did not execute, with the reason.
    pub exec_failures: Vec<ExecFailure>,
}

/// An ALU entry that does not execute.
#[derive(Clone, Debug, serde::Serialize)]
pub struct ExecFailure {
    /// The instruction.
    pub inst: String,
    /// Why: the compile error or the first runtime fault.
    pub error: String,
}

/// Runs every ALU entry of `db` on `samples` random operand sets (in parallel threads).
pub fn alu_stats(db: &crate::spec::SpecDb, samples: u32) -> AluStats {
    let arch = db.arch();
    let insts: Vec<&Instruction> = db
        .with_pcode()
        .filter(|i| ALU_ENCODINGS.contains(&i.encoding.as_str()))
        .collect();
    let threads = std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .clamp(1, 8);
    let chunk = insts.len().div_ceil(threads).max(1);
    let results: Vec<(String, Result<bool, String>)> = std::thread::scope(|s| {
        let handles: Vec<_> = insts
            .chunks(chunk)
            .map(|part| {
                s.spawn(move || {
                    part.iter()
                        .map(|inst| {
                            let r = match prepare(arch, inst) {
                                Err(e) => {
                                    Err(format!("does not compile: {}", e.diagnostic.summary()))
                                }
                                Ok(p) => {
                                    let text = frontend::entry_text(arch, inst)
                                        .map(|t| t.0)
                                        .unwrap_or_default();
                                    match random_sweep(&p, samples, 0x5eed) {
                                        Ok(()) => Ok(p.is_approximate()),
                                        Err((case, e)) => Err(format!(
                                            "case {case}: {}",
                                            describe_error(&p, &text, &e)
                                        )),
                                    }
                                }
                            };
                            (inst.name.clone(), r)
                        })
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().unwrap_or_default())
            .collect()
    });
    let mut stats = AluStats {
        alu_total: insts.len(),
        samples,
        ..AluStats::default()
    };
    for (name, r) in results {
        match r {
            Ok(approx) => {
                stats.executes += 1;
                if approx {
                    stats.approximate.push(name);
                }
            }
            Err(error) => stats.exec_failures.push(ExecFailure { inst: name, error }),
        }
    }
    stats
}

/// A random machine state for `p`: every register it reads gets an edge-biased value (per
/// lane for vector operands), and vector instructions get a random EXEC mask.
pub fn random_machine(p: &Prepared, rng: &mut Rng, wave: u32) -> Machine {
    let mut m = Machine::new(wave);
    let mut indexes_registers = stores_to(&p.function.body, &[Space::Vgpr, Space::Sgpr]);
    walk_exprs(&p.function.body, &mut |e| {
        if let ExprKind::Load {
            space: Space::Vgpr | Space::Sgpr,
            ..
        } = e.kind
        {
            indexes_registers = true;
        }
    });
    for (r, &pl) in p.function.regs.iter().zip(&p.per_lane) {
        if !r.read || matches!(r.role, RegRole::Lane | RegRole::Mode) {
            continue;
        }
        // Register numbers keep their virtual defaults so VGPR-file entries read the operands.
        if matches!(r.name.as_str(), "SRC0" | "SRC1" | "SRC2" | "VDST") {
            continue;
        }
        // Relative moves (`SGPR[DST + M0]`) index the register file with M0 and the DST
        // register number: keep them within the file, as a program would.
        if (r.name == "M0" || r.name == "DST") && indexes_registers {
            let v = Bits::from_u64(r.width, rng.next_u64() % 32);
            m.values.insert(r.name.clone(), RegValue::Uniform(v));
            continue;
        }
        let v = if pl {
            RegValue::Lanes((0..wave).map(|_| rng.edge_value(r.width)).collect())
        } else {
            RegValue::Uniform(rng.edge_value(r.width))
        };
        m.values.insert(r.name.clone(), v);
    }
    if p.vector {
        let exec = rng.next_u64() & m.full_exec();
        m.values
            .insert("EXEC".into(), RegValue::Uniform(Bits::from_u64(64, exec)));
    }
    m
}

/// A memory that serves nothing: for running ALU entries outside a machine (benches).
pub struct NullMemory;

impl Memory for NullMemory {
    fn load(&mut self, space: Space, _lane: u32, addr: u64, _width: u32) -> Result<Bits, String> {
        Err(format!("no {space:?} memory at {addr:#x}"))
    }
    fn store(&mut self, space: Space, _lane: u32, addr: u64, _value: &Bits) -> Result<(), String> {
        Err(format!("no {space:?} memory at {addr:#x}"))
    }
}

/// Runs the interpreter on registers already bound (see [`bind_inputs`]): the core of
/// [`run_interp`] without the name lookups, for simulators and benches.
///
/// # Errors
/// A runtime fault.
pub fn run_bound_interp(
    p: &Prepared,
    regs: &mut [RegValue],
    lanes: u32,
    exec: u64,
    memory: &mut dyn Memory,
) -> Result<(), ExecError> {
    let mut frame = Frame { regs, memory };
    if p.vector && !p.wave_level {
        for lane in 0..lanes {
            if exec >> lane & 1 == 1 {
                interp::run_lane(&p.function, &mut frame, lane, p.round_reg)?;
            }
        }
        Ok(())
    } else {
        interp::run_lane(&p.function, &mut frame, 0, p.round_reg)
    }
}

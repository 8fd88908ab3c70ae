//! The program fuzzer: random programs run under every engine, compared on the final state.
//!
//! It owns one question: do the engines (named by [`crate::wave::Engine::from_name`], so a
//! new engine joins by name) compute the same machine state for the same program? Each
//! program is drawn from the arch's instruction database ([`gen`]), started from a random
//! state (data registers with edge-biased values, a random EXEC, a mapped global buffer and
//! LDS with random contents), run to the end under each engine from a clone of that state,
//! and the results compared: the error, if any, and the whole [`WaveState`] (every SGPR,
//! every VGPR of every lane, SCC, PC, MODE, global memory and LDS). The first engine named
//! is the reference.
//!
//! Everything is a function of the seed: program `i` of a run with seed `s` is the same on
//! every machine, so a mismatch report (seed, index, disassembly, first difference) is a
//! reproducible bug report. Mismatches are shrunk by deleting instructions while the
//! engines still disagree.

pub mod gen;

use std::sync::Arc;

use crate::exec::Rng;
use crate::isa::Isa;
use crate::spec::{Arch, Spec};
use crate::wave::{Bounds, Engine, Executor, Program, WaveError, WaveState};

pub use gen::{Generator, Item};

/// Where the global buffer the programs address is mapped.
pub const GLOBAL_BASE: u64 = 0x1_0000;
/// Its size in bytes.
pub const GLOBAL_BYTES: u64 = 0x1000;
/// The LDS size the programs get.
pub const LDS_BYTES: u64 = 0x1_0000;

/// The (arch, wave size) configurations programs rotate through.
pub const CONFIGS: &[(Arch, u32)] = &[
    (Arch::Rdna3, 32),
    (Arch::Rdna3, 64),
    (Arch::Rdna4, 32),
    (Arch::Cdna, 64),
    (Arch::Rdna4, 64),
];

/// What to run.
#[derive(Clone, Debug)]
pub struct Config {
    /// The seed of the whole run.
    pub seed: u64,
    /// Programs to run.
    pub programs: u64,
    /// The engines by name; the first is the reference.
    pub engines: Vec<String>,
    /// The configurations to rotate through (program `i` uses `configs[i % len]`).
    pub configs: Vec<(Arch, u32)>,
    /// The most random instructions per program.
    pub max_insts: usize,
    /// The instruction budget of one run.
    pub step_budget: u64,
    /// Stop after this many mismatches.
    pub max_mismatches: usize,
}

impl Default for Config {
    fn default() -> Config {
        Config {
            seed: 1,
            programs: 1000,
            engines: vec!["interp".into(), "jit".into(), "jit-block".into()],
            configs: CONFIGS.to_vec(),
            max_insts: 16,
            step_budget: 5_000,
            max_mismatches: 10,
        }
    }
}

/// One program on which two engines disagree.
#[derive(Clone, Debug)]
pub struct Mismatch {
    /// The program's index in the run.
    pub index: u64,
    /// Its configuration.
    pub arch: Arch,
    /// The wave size.
    pub wave_size: u32,
    /// The engine that disagrees with the reference.
    pub engine: String,
    /// The (shrunk) program, disassembled.
    pub listing: String,
    /// Its bytes as hex.
    pub hex: String,
    /// The first difference.
    pub difference: String,
}

/// The outcome of a run.
#[derive(Clone, Debug, Default)]
pub struct Report {
    /// Programs run (under every engine).
    pub programs: u64,
    /// Instructions executed by the reference engine.
    pub instructions: u64,
    /// Programs that ended with the same error under every engine (faults, unsupported).
    pub errored: u64,
    /// Those errors by kind and instruction (e.g. `memory fault GLOBAL_LOAD_B32`).
    pub errors: std::collections::BTreeMap<String, u64>,
    /// Programs where the engines disagree.
    pub mismatches: Vec<Mismatch>,
    /// What the block engines ran as compiled blocks (`jit::block_stats` over the run):
    /// zero blocks would mean the comparison never reached the block compiler.
    pub blocks: crate::jit::BlockStats,
}

/// Why a run could not start.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FuzzError(pub String);

impl std::fmt::Display for FuzzError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for FuzzError {}

/// The executors and generator of one configuration.
struct Lane {
    arch: Arch,
    wave_size: u32,
    isa: Isa,
    gen: Generator,
    executors: Vec<Executor>,
}

/// An engine by name: `interp`, `jit` (one compiled kernel per instruction) or `jit-block`
/// (straight-line runs compiled into one function from their first execution on); with
/// the block threshold to use, `None` for no blocks. A block is built from the plans of
/// instructions that already ran, so a block engine runs each program twice and the second
/// run is compared.
pub fn engine_by_name(name: &str) -> Option<(Engine, Option<u32>)> {
    match name {
        "jit-block" => Some((Engine::Jit, Some(1))),
        _ => Engine::from_name(name).map(|e| (e, None)),
    }
}

/// Runs `config`, calling `progress(report)` every 1,000 programs.
///
/// # Errors
/// An unknown engine name, or an engine that cannot start on this host.
pub fn run(
    spec: &Spec,
    config: &Config,
    progress: &mut dyn FnMut(&Report),
) -> Result<Report, FuzzError> {
    let engines: Vec<(Engine, Option<u32>)> = config
        .engines
        .iter()
        .map(|n| engine_by_name(n).ok_or_else(|| FuzzError(format!("unknown engine `{n}`"))))
        .collect::<Result<_, _>>()?;
    if engines.len() < 2 {
        return Err(FuzzError("name at least two engines to compare".into()));
    }
    let mut lanes = Vec::new();
    for &(arch, wave_size) in &config.configs {
        let db = spec.get(arch).map_err(|e| FuzzError(e.to_string()))?;
        let isa = Isa::new(db);
        // Instructions without executable pseudocode only end programs early with the
        // same `Unsupported` error under every engine: draw from the others.
        // (CDNA `_E64` entries without text run their `_E32` twin's.)
        let runs = |name: &str| {
            db.get_all(name)
                .iter()
                .any(|i| crate::exec::prepare(arch, i).is_ok())
        };
        let keep = |info: &crate::isa::tables::InstInfo| {
            runs(&info.name)
                || info
                    .name
                    .strip_suffix("_E64")
                    .is_some_and(|base| runs(&format!("{base}_E32")))
        };
        let gen = Generator::new(&isa, &keep).map_err(FuzzError)?;
        let mut executors = Vec::new();
        for &(e, blocks) in &engines {
            let mut ex = Executor::new(db, e).map_err(|e| FuzzError(e.to_string()))?;
            ex.step_budget = config.step_budget;
            ex.block_compile = blocks.is_some();
            if let Some(threshold) = blocks {
                ex.block_threshold = threshold;
            }
            executors.push(ex);
        }
        lanes.push(Lane {
            arch,
            wave_size,
            isa,
            gen,
            executors,
        });
    }
    if lanes.is_empty() {
        return Err(FuzzError("no configurations".into()));
    }
    let mut report = Report::default();
    let stats_before = crate::jit::block_stats();
    for index in 0..config.programs {
        let lane_idx = (index % lanes.len() as u64) as usize;
        let lane = &mut lanes[lane_idx];
        // Program i's generator depends on the seed and i only.
        let mut rng = Rng::new(config.seed ^ index.wrapping_mul(0x9e37_79b9_7f4a_7c15));
        let items = lane.gen.program(&lane.isa, &mut rng, config.max_insts);
        let state = initial_state(lane.arch, lane.wave_size, &mut rng);
        report.programs += 1;
        match check(lane, &items, &state) {
            Outcome::Agree { steps, error } => {
                report.instructions += steps;
                if let Some(kind) = error {
                    report.errored += 1;
                    *report.errors.entry(kind).or_default() += 1;
                }
            }
            Outcome::Differ { engine, difference } => {
                let items = shrink(lane, items, &state);
                let bytes = lane.gen.layout(&items);
                let difference = match check(lane, &items, &state) {
                    Outcome::Differ { difference, .. } => difference,
                    Outcome::Agree { .. } => difference,
                };
                report.mismatches.push(Mismatch {
                    index,
                    arch: lane.arch,
                    wave_size: lane.wave_size,
                    engine: config.engines[engine].clone(),
                    listing: listing(&lane.isa, &bytes),
                    hex: crate::isa::encoding_text(&bytes),
                    difference,
                });
                if report.mismatches.len() >= config.max_mismatches {
                    break;
                }
            }
        }
        if (index + 1) % 1000 == 0 {
            report.blocks = blocks_since(&stats_before);
            progress(&report);
        }
    }
    report.blocks = blocks_since(&stats_before);
    Ok(report)
}

/// The block statistics since `before` (the counters are process-wide).
fn blocks_since(before: &crate::jit::BlockStats) -> crate::jit::BlockStats {
    let now = crate::jit::block_stats();
    crate::jit::BlockStats {
        blocks: now.blocks.saturating_sub(before.blocks),
        in_place: now.in_place.saturating_sub(before.in_place),
        calls: now.calls.saturating_sub(before.calls),
        simd: now.simd.saturating_sub(before.simd),
        quick: now.quick.saturating_sub(before.quick),
        optimised: now.optimised.saturating_sub(before.optimised),
    }
}

/// The random initial state of a program.
pub fn initial_state(arch: Arch, wave_size: u32, rng: &mut Rng) -> WaveState {
    let mut w = WaveState::new(arch, wave_size);
    for s in 0..gen::DATA_REGS {
        w.sgpr[s as usize] = gen::edge_u32(rng);
    }
    w.sgpr[106] = gen::edge_u32(rng);
    w.sgpr[107] = gen::edge_u32(rng);
    w.sgpr[crate::wave::m0_code(arch) as usize] = match rng.next_u64() % 3 {
        0 => u32::MAX,
        1 => (rng.next_u64() % 64) as u32,
        _ => gen::edge_u32(rng),
    };
    w.sgpr[gen::BASE_SGPR as usize] = GLOBAL_BASE as u32;
    w.sgpr[gen::BASE_SGPR as usize + 1] = (GLOBAL_BASE >> 32) as u32;
    for lane in 0..wave_size {
        for v in 0..gen::DATA_REGS {
            w.set_vgpr(lane, v, gen::edge_u32(rng));
        }
        let addr = GLOBAL_BASE + u64::from(lane) * 4;
        w.set_vgpr(lane, gen::OFFSET_VGPR, lane * 4);
        w.set_vgpr(lane, gen::LDS_VGPR, lane * 8);
        w.set_vgpr(lane, gen::ADDR_VGPR, addr as u32);
        w.set_vgpr(lane, gen::ADDR_VGPR + 1, (addr >> 32) as u32);
    }
    let full = w.full_mask();
    let exec = match rng.next_u64() % 10 {
        0..=4 => full,
        5..=7 => rng.next_u64() & full,
        8 => 1 << (rng.next_u64() % u64::from(wave_size)),
        _ => 0,
    };
    w.set_exec(exec);
    w.scc = rng.next_u64().is_multiple_of(2);
    if rng.next_u64().is_multiple_of(4) {
        // Random rounding and denormal modes.
        w.mode = (w.mode & !0xff) | (rng.next_u64() & 0xff) as u32;
    }
    let mut buf = vec![0u8; GLOBAL_BYTES as usize];
    for chunk in buf.chunks_mut(4) {
        chunk.copy_from_slice(&gen::edge_u32(rng).to_le_bytes());
    }
    w.load_memory(GLOBAL_BASE, &buf);
    w.lds.write(0, &buf);
    w.written.clear();
    w.bounds = Some(Arc::new(Bounds {
        global: vec![(GLOBAL_BASE, GLOBAL_BASE + GLOBAL_BYTES)],
        lds: LDS_BYTES,
        scratch: 0,
        ..Bounds::default()
    }));
    w
}

enum Outcome {
    Agree { steps: u64, error: Option<String> },
    Differ { engine: usize, difference: String },
}

/// Runs `items` under every executor of `lane` and compares with the first.
fn check(lane: &mut Lane, items: &[Item], state: &WaveState) -> Outcome {
    let bytes = lane.gen.layout(items);
    let program = match Program::from_bytes(&lane.isa, &bytes, &[]) {
        Ok(p) => p,
        // The generator only emits decodable instructions; a program that does not
        // decode as a whole is a decoder bug, reported as a difference of the reference.
        Err(e) => {
            return Outcome::Differ {
                engine: 0,
                difference: format!("program does not decode: {e}"),
            }
        }
    };
    let mut results: Vec<(Result<u64, WaveError>, WaveState)> = Vec::new();
    for ex in &mut lane.executors {
        if ex.block_compile {
            // The warm-up run caches the instructions' plans the blocks are built from.
            let _ = ex.run_fast(&program, &mut state.clone());
        }
        let mut w = state.clone();
        let r = ex.run_fast(&program, &mut w);
        results.push((r, w));
    }
    let (r0, w0) = &results[0];
    for (k, (r, w)) in results.iter().enumerate().skip(1) {
        if let Some(d) = difference(r0, w0, r, w) {
            return Outcome::Differ {
                engine: k,
                difference: d,
            };
        }
    }
    Outcome::Agree {
        steps: *r0.as_ref().unwrap_or(&0),
        error: r0.as_ref().err().map(error_kind),
    }
}

/// An error's kind and instruction, for the report's histogram.
fn error_kind(e: &WaveError) -> String {
    match e {
        WaveError::Unsupported { inst, .. } => format!("unsupported {inst}"),
        WaveError::Exec { inst, .. } => format!("fault {inst}"),
        WaveError::MemoryFault { inst, space, .. } => format!("{space} memory fault {inst}"),
        WaveError::StepBudget { .. } => "step budget".into(),
        WaveError::PcOutOfProgram { .. } => "PC out of the program".into(),
        other => other.to_string(),
    }
}

/// Deletes random instructions while the engines still disagree.
fn shrink(lane: &mut Lane, mut items: Vec<Item>, state: &WaveState) -> Vec<Item> {
    let mut i = 0;
    while i < items.len() {
        let mut shorter = items.clone();
        shorter.remove(i);
        let balanced = shorter
            .iter()
            .filter(|x| matches!(x, Item::LoopStart(_)))
            .count()
            == shorter
                .iter()
                .filter(|x| matches!(x, Item::LoopEnd))
                .count();
        if balanced && matches!(check(lane, &shorter, state), Outcome::Differ { .. }) {
            items = shorter;
        } else {
            i += 1;
        }
    }
    items
}

/// The first difference between two runs' results, if any.
pub fn difference(
    ra: &Result<u64, WaveError>,
    a: &WaveState,
    rb: &Result<u64, WaveError>,
    b: &WaveState,
) -> Option<String> {
    if ra != rb {
        return Some(format!("result: {ra:?} vs {rb:?}"));
    }
    if a.scc != b.scc {
        return Some(format!("SCC: {} vs {}", a.scc, b.scc));
    }
    if a.pc != b.pc {
        return Some(format!("PC: 0x{:x} vs 0x{:x}", a.pc, b.pc));
    }
    if a.mode != b.mode {
        return Some(format!("MODE: 0x{:x} vs 0x{:x}", a.mode, b.mode));
    }
    if let Some(i) = (0..a.sgpr.len()).find(|&i| a.sgpr[i] != b.sgpr[i]) {
        return Some(format!(
            "{}: 0x{:08x} vs 0x{:08x}",
            crate::wave::sgpr_name(a.arch, i as u32),
            a.sgpr[i],
            b.sgpr[i]
        ));
    }
    let n_vgprs = a.vgpr.len() / crate::wave::LANE_SLOTS;
    for reg in 0..n_vgprs as u32 {
        for lane in 0..a.wave_size {
            let (x, y) = (a.vgpr(lane, reg), b.vgpr(lane, reg));
            if x != y {
                return Some(format!("v{reg} lane {lane}: 0x{x:08x} vs 0x{y:08x}"));
            }
        }
    }
    for (name, ma, mb) in [
        ("global", &a.memory, &b.memory),
        ("LDS", &a.lds, &b.lds),
        ("scratch", &a.scratch, &b.scratch),
    ] {
        // Pages present on one side only may hold zeros the other reads as absent: compare
        // bytes, not page sets.
        let pages: Vec<(u64, usize)> = ma
            .pages()
            .chain(mb.pages())
            .map(|(p, bytes)| (p, bytes.len()))
            .collect();
        let (mut pa, mut pb) = (Vec::new(), Vec::new());
        for (p, len) in pages {
            pa.resize(len, 0);
            pb.resize(len, 0);
            ma.read(p, &mut pa);
            mb.read(p, &mut pb);
            if pa == pb {
                continue;
            }
            for addr in p..p + len as u64 {
                if ma.byte(addr) != mb.byte(addr) {
                    return Some(format!(
                        "{name} byte 0x{addr:x}: 0x{:02x} vs 0x{:02x}",
                        ma.byte(addr),
                        mb.byte(addr)
                    ));
                }
            }
        }
    }
    if a.written != b.written {
        return Some("the written-bytes log differs".into());
    }
    None
}

/// The program as assembly text, one instruction per line with its offset.
pub fn listing(isa: &Isa, bytes: &[u8]) -> String {
    isa.disassemble(bytes)
        .into_iter()
        .map(|(off, text, _)| format!("{off:4x}: {text}\n"))
        .collect()
}

/// The report as text: the counts, the most common errors, each mismatch with its program.
pub fn summary(r: &Report) -> String {
    let mut s = format!(
        "{} programs, {} instructions, {} ended in the same error under every engine, {} mismatches\n",
        r.programs,
        r.instructions,
        r.errored,
        r.mismatches.len()
    );
    if r.blocks.blocks > 0 || r.blocks.in_place > 0 {
        s += &format!(
            "block engines: {} blocks compiled, {} instructions in place ({} in SIMD lanes), {} kernel calls\n",
            r.blocks.blocks, r.blocks.in_place, r.blocks.simd, r.blocks.calls
        );
    }
    let mut kinds: Vec<(&String, &u64)> = r.errors.iter().collect();
    kinds.sort_by(|a, b| b.1.cmp(a.1).then(a.0.cmp(b.0)));
    for (k, n) in kinds.iter().take(20) {
        s += &format!("  {n:6} {k}\n");
    }
    for m in &r.mismatches {
        s += &format!(
            "--- program {} ({} wave{}), {} differs: {}\n{}hex: {}\n",
            m.index, m.arch, m.wave_size, m.engine, m.difference, m.listing, m.hex
        );
    }
    s
}

//! Running one program under every engine: the interpreter, the JIT stepping one instruction
//! at a time and the JIT compiling blocks (from the first arrival; `run_fast`, the path that
//! runs blocks), with the final states
//! compared.

use amdpcode::spec::Arch;
use amdpcode::wave::{Engine, Executor, Program, WaveState};

/// The three engines as (engine, block compilation).
pub const ENGINES: [(Engine, bool); 3] = [
    (Engine::Interp, false),
    (Engine::Jit, false),
    (Engine::Jit, true),
];

/// Runs the program `load` builds on a fresh wave of `arch` prepared by `init`, under each of
/// [`ENGINES`]; checks the three final states agree and returns it. `what` names the program
/// in failure messages.
pub fn run_all(
    arch: Arch,
    wave_size: u32,
    what: &str,
    load: &dyn Fn(&Executor) -> Result<Program, String>,
    init: &dyn Fn(&mut WaveState),
) -> WaveState {
    let db = super::spec().db(arch);
    let mut finals = Vec::new();
    for (engine, blocks) in ENGINES {
        let mut ex = Executor::new(db, engine).unwrap();
        ex.block_compile = blocks;
        ex.block_threshold = 1;
        let p = load(&ex).unwrap_or_else(|e| panic!("{arch}: {what}: {e}"));
        let mut w = ex.new_wave(wave_size);
        init(&mut w);
        ex.run_fast(&p, &mut w)
            .unwrap_or_else(|e| panic!("{arch} {engine:?} blocks={blocks}: {what}: {e}"));
        finals.push(w);
    }
    assert_eq!(
        finals[0], finals[1],
        "{arch}: {what}: interpreter and JIT (steps) disagree"
    );
    assert_eq!(
        finals[0], finals[2],
        "{arch}: {what}: interpreter and JIT (blocks) disagree"
    );
    finals.remove(0)
}

use amdpcode::spec::{self, Arch, Locate, Spec};
use amdpcode::wave::{Engine, Executor, Program};
fn main() {
    let spec = Spec::load(&spec::find_wheel(&Locate::default()).unwrap()).unwrap();
    let db = spec.db(Arch::Rdna3);
    let progs = [
        (
            "full",
            "ff0080be e8030000 f2020206 00818080 0080 07bf fcff a2bf 0000 b0bf",
            4002u64,
        ),
        (
            "scalar",
            "ff0080be e8030000 00818080 0080 07bf fdff a2bf 0000 b0bf",
            3002,
        ),
    ];
    let engines: Vec<Engine> = if std::env::args().any(|a| a == "jit") {
        vec![Engine::Jit]
    } else {
        vec![Engine::Jit, Engine::Interp]
    };
    for engine in engines {
        for (name, hex, steps) in progs {
            let mut ex = Executor::new(db, engine).unwrap();
            let program = Program::from_hex(ex.isa(), hex).unwrap();
            let mut w = ex.new_wave(32);
            assert_eq!(ex.run_fast(&program, &mut w).unwrap(), steps);
            let n = if std::env::args().any(|a| a == "long") {
                3000
            } else {
                200
            };
            let t = std::time::Instant::now();
            for _ in 0..n {
                let mut w = ex.new_wave(32);
                ex.run_fast(&program, &mut w).unwrap();
            }
            let dt = t.elapsed().as_secs_f64() / (n as f64 * steps as f64) * 1e9;
            println!("{engine:?} {name}: {dt:.1} ns/instr");
        }
    }
}

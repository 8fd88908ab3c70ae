//! Development aid: compiles every ALU entry with the JIT and compares it with the interpreter
//! on random cases. `cargo run --release --example jitsweep -- [cases]`

use amdpcode::exec::{self, Rng};
use amdpcode::jit::Jit;
use amdpcode::spec::{self, Arch, Locate, Spec};

fn main() {
    let cases: u32 = std::env::args()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(20);
    let spec = Spec::load(&spec::find_wheel(&Locate::default()).expect("wheel")).expect("spec");
    let jit = Jit::new().expect("jit");
    for arch in Arch::ALL {
        let (mut total, mut compiled, mut agree) = (0, 0, 0);
        for inst in spec.db(arch).with_pcode() {
            if !exec::ALU_ENCODINGS.contains(&inst.encoding.as_str()) {
                continue;
            }
            let Ok(p) = exec::prepare(arch, inst) else {
                continue;
            };
            if exec::random_sweep(&p, 3, 1).is_err() {
                continue;
            }
            total += 1;
            let k = match jit.compile(&p) {
                Ok(k) => k,
                Err(e) => {
                    println!("{arch} {} nojit: {e}", inst.name);
                    continue;
                }
            };
            compiled += 1;
            let mut rng = Rng::new(42);
            let mut ok = true;
            for case in 0..cases {
                let wave = if case % 2 == 0 && arch != Arch::Cdna {
                    32
                } else {
                    64
                };
                let m0 = exec::random_machine(&p, &mut rng, wave);
                let (mut a, mut b) = (m0.clone(), m0.clone());
                let ra = exec::run_interp(&p, &mut a)
                    .map(|o| o.values)
                    .map_err(|e| e.to_string());
                let rb = k.run(&mut b).map(|o| o.values).map_err(|e| e.to_string());
                let same = match (&ra, &rb) {
                    (Ok(x), Ok(y)) => x == y && a.vgpr == b.vgpr && a.mem == b.mem,
                    (Err(_), Err(_)) => true,
                    _ => false,
                };
                if !same {
                    println!(
                        "{arch} {} MISMATCH case {case}:\n  interp {:?}\n  jit    {:?}",
                        inst.name, ra, rb
                    );
                    ok = false;
                    break;
                }
            }
            if ok {
                agree += 1;
            }
        }
        println!("{arch}: executes {total}, jit compiles {compiled}, agree {agree}");
    }
}

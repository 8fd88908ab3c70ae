//! Development aid: runs every ALU entry on random operands and prints the failures.
//! `cargo run --release --example sweep -- [cases]`

use amdpcode::exec;
use amdpcode::spec::{self, Arch, Locate, Spec};

fn main() {
    let cases: u32 = std::env::args()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(100);
    let path = spec::find_wheel(&Locate::default()).expect("wheel");
    let spec = Spec::load(&path).expect("spec");
    for arch in Arch::WHEEL {
        let (mut total, mut ok) = (0, 0);
        let start = std::time::Instant::now();
        for inst in spec.db(arch).with_pcode() {
            if !exec::ALU_ENCODINGS.contains(&inst.encoding.as_str()) {
                continue;
            }
            total += 1;
            match exec::prepare(arch, inst) {
                Err(e) => println!("{arch} {} compile: {}", inst.name, e.diagnostic.summary()),
                Ok(p) => match exec::random_sweep(&p, cases, 1) {
                    Ok(()) => ok += 1,
                    Err((case, e)) => println!("{arch} {} case {case}: {e}", inst.name),
                },
            }
        }
        println!(
            "{arch}: {ok}/{total} ALU entries execute ({:?})",
            start.elapsed()
        );
    }
}

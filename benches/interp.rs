//! Interpreter time per execution of single instructions, on bound registers
//! (`exec::run_bound_interp`) and through the whole machine API (`exec::run_interp`).
//!
//! Run: `cargo bench --bench interp`. The README quotes the medians.

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, Criterion};

use amdpcode::exec::{self, Machine, NullMemory};
use amdpcode::interp::RegValue;
use amdpcode::spec::{self, Arch, Locate, Spec};
use amdpcode::value::Bits;

fn bench(c: &mut Criterion) {
    let spec = Spec::load(&spec::find_wheel(&Locate::default()).expect("wheel")).expect("spec");
    let u = |v: u64| RegValue::Uniform(Bits::from_u64(64, v));
    let lanes = |n: usize, f: fn(usize) -> u64| {
        RegValue::Lanes((0..n).map(|l| Bits::from_u64(64, f(l))).collect())
    };
    let fa: fn(usize) -> u64 = |l| (1.5f32 + l as f32).to_bits() as u64;
    let fb: fn(usize) -> u64 = |l| (0.25f32 * l as f32 - 3.0).to_bits() as u64;
    type Case<'a> = (&'a str, u32, Vec<(&'a str, RegValue)>);
    let cases: Vec<Case> = vec![
        ("S_WQM_B64", 64, vec![("S0", u(0x0100_2000_0000_0012))]),
        (
            "S_AND_NOT1_WREXEC_B64",
            64,
            vec![
                ("S0", u(0xff00_ff00_ff00_ff00)),
                ("EXEC", u(0x0f0f_0f0f_0f0f_0f0f)),
            ],
        ),
        (
            "S_ADD_U32",
            32,
            vec![("S0", u(0xffff_fff0)), ("S1", u(0x20))],
        ),
        (
            "V_ADD_F32",
            32,
            vec![("S0", lanes(32, fa)), ("S1", lanes(32, fb))],
        ),
        (
            "V_FMA_F32",
            32,
            vec![
                ("S0", lanes(32, fa)),
                ("S1", lanes(32, fb)),
                ("S2", lanes(32, fa)),
            ],
        ),
        (
            "V_CMP_LT_F32",
            32,
            vec![("S0", lanes(32, fa)), ("S1", lanes(32, fb))],
        ),
    ];
    for (name, wave, set) in cases {
        let inst = spec.db(Arch::Rdna3).get(name).expect("instruction");
        let p = exec::prepare(Arch::Rdna3, inst).expect("compiles");
        let mut m = Machine::new(wave);
        for (n, v) in &set {
            m.values.insert(n.to_string(), v.clone());
        }
        let exec_mask = exec::exec_mask(&m);
        let (regs, _) = exec::bind_inputs(&p, &mut m.clone());
        let mut g = c.benchmark_group(format!("interp/{name}"));
        g.sample_size(30);
        g.bench_function("bound", |b| {
            b.iter(|| {
                let mut r = regs.clone();
                exec::run_bound_interp(&p, &mut r, wave, exec_mask, &mut NullMemory).expect("runs");
                black_box(r)
            })
        });
        g.bench_function("machine", |b| {
            b.iter(|| {
                let mut mm = m.clone();
                black_box(exec::run_interp(&p, &mut mm).expect("runs"))
            })
        });
        g.finish();
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);

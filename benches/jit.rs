//! Interpreter vs JIT vs hand-written Rust, per instruction, in one process.
//!
//! Each group runs the same instruction on the same inputs three ways: the interpreter on
//! bound registers (`exec::run_bound_interp`), the JIT kernel on its slot buffer
//! (`Kernel::bind_slots` + `BoundSlots::run`: context built and buffer size checked once), and a Rust function written by hand for the instruction. Vector
//! instructions run a full wave (V_ADD_F32 and V_FMA_F32 wave32, the VOPC compare wave64).
//!
//! Run: `cargo bench --bench jit`. The README quotes the ratios.

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, Criterion};

use amdpcode::exec::{self, Machine, NullMemory};
use amdpcode::interp::RegValue;
use amdpcode::jit::Jit;
use amdpcode::spec::{self, Arch, Locate, Spec};
use amdpcode::value::Bits;

/// The state a hand-written simulator function reads and writes: the same elements the JIT
/// kernel reads from and writes to its slot buffer.
#[derive(Default)]
struct State {
    s0: u64,
    s1: u64,
    d0: u64,
    scc: u64,
    exec: u64,
}

#[inline(never)]
fn wqm_rust(st: &mut State) {
    // AMD's loop, written literally in Rust.
    let mut tmp = 0u64;
    for i in 0u32..64 {
        if (st.s0 >> (i & 60)) & 0xf != 0 {
            tmp |= 1 << i;
        }
    }
    st.d0 = tmp;
    st.scc = (tmp != 0) as u64;
}

#[inline(never)]
fn andn2_wrexec_rust(st: &mut State) {
    let e = st.s0 & !st.exec;
    st.exec = e;
    st.d0 = e;
    st.scc = (e != 0) as u64;
}

#[inline(never)]
fn add_u32_rust(st: &mut State) {
    let (r, c) = (st.s0 as u32).overflowing_add(st.s1 as u32);
    st.d0 = r as u64;
    st.scc = c as u64;
}

#[inline(never)]
fn bcnt1_b64_rust(st: &mut State) {
    let n = st.s0.count_ones() as u64;
    st.d0 = n;
    st.scc = (n != 0) as u64;
}

#[inline(never)]
fn brev_b64_rust(st: &mut State) {
    st.d0 = st.s0.reverse_bits();
}

/// Per-lane operands of a vector instruction.
struct Lanes {
    s0: [u32; 64],
    s1: [u32; 64],
    s2: [u32; 64],
    d0: [u32; 64],
    mask: u64,
    exec: u64,
}

#[inline(never)]
fn v_add_f32_rust(st: &mut Lanes, n: usize) {
    for l in 0..n {
        if st.exec >> l & 1 == 1 {
            st.d0[l] = (f32::from_bits(st.s0[l]) + f32::from_bits(st.s1[l])).to_bits();
        }
    }
}

#[inline(never)]
fn v_fma_f32_rust(st: &mut Lanes, n: usize) {
    for l in 0..n {
        if st.exec >> l & 1 == 1 {
            st.d0[l] = f32::from_bits(st.s0[l])
                .mul_add(f32::from_bits(st.s1[l]), f32::from_bits(st.s2[l]))
                .to_bits();
        }
    }
}

#[inline(never)]
fn v_cmp_lt_f32_rust(st: &mut Lanes, n: usize) {
    let mut m = 0;
    for l in 0..n {
        if st.exec >> l & 1 == 1 && f32::from_bits(st.s0[l]) < f32::from_bits(st.s1[l]) {
            m |= 1 << l;
        }
    }
    st.mask = m;
}

struct Case {
    arch: Arch,
    inst: &'static str,
    wave: u32,
    set: Vec<(&'static str, RegValue)>,
}

fn uniform(v: u64) -> RegValue {
    RegValue::Uniform(Bits::from_u64(64, v))
}

fn lanes(n: usize, f: impl Fn(usize) -> u64) -> RegValue {
    RegValue::Lanes((0..n).map(|l| Bits::from_u64(64, f(l))).collect())
}

fn bench(c: &mut Criterion) {
    let spec = Spec::load(&spec::find_wheel(&Locate::default()).expect("wheel")).expect("spec");
    let jit = Jit::new().expect("jit");
    let fa = |l: usize| (1.5f32 + l as f32).to_bits() as u64;
    let fb = |l: usize| (0.25f32 * l as f32 - 3.0).to_bits() as u64;
    let cases = vec![
        Case {
            arch: Arch::Rdna3,
            inst: "S_WQM_B64",
            wave: 64,
            set: vec![("S0", uniform(0x0100_2000_0000_0012))],
        },
        Case {
            arch: Arch::Rdna3,
            inst: "S_AND_NOT1_WREXEC_B64",
            wave: 64,
            set: vec![
                ("S0", uniform(0xff00_ff00_ff00_ff00)),
                ("EXEC", uniform(0x0f0f_0f0f_0f0f_0f0f)),
            ],
        },
        Case {
            arch: Arch::Rdna3,
            inst: "S_ADD_U32",
            wave: 32,
            set: vec![("S0", uniform(0xffff_fff0)), ("S1", uniform(0x20))],
        },
        Case {
            arch: Arch::Rdna3,
            inst: "S_BCNT1_I32_B64",
            wave: 32,
            set: vec![("S0", uniform(0x1234_5678_9abc_def0))],
        },
        Case {
            arch: Arch::Rdna3,
            inst: "S_BREV_B64",
            wave: 32,
            set: vec![("S0", uniform(0x1234_5678_9abc_def0))],
        },
        Case {
            arch: Arch::Rdna3,
            inst: "V_ADD_F32",
            wave: 32,
            set: vec![("S0", lanes(32, fa)), ("S1", lanes(32, fb))],
        },
        Case {
            arch: Arch::Rdna3,
            inst: "V_FMA_F32",
            wave: 32,
            set: vec![
                ("S0", lanes(32, fa)),
                ("S1", lanes(32, fb)),
                ("S2", lanes(32, fa)),
            ],
        },
        Case {
            arch: Arch::Rdna3,
            inst: "V_CMP_LT_F32",
            wave: 64,
            set: vec![("S0", lanes(64, fa)), ("S1", lanes(64, fb))],
        },
    ];
    for case in cases {
        let inst = spec.db(case.arch).get(case.inst).expect("instruction");
        let p = exec::prepare(case.arch, inst).expect("compiles");
        let kernel = jit.compile(&p).expect("jit compiles");
        let mut m = Machine::new(case.wave);
        for (n, v) in &case.set {
            m.values.insert(n.to_string(), v.clone());
        }
        let exec_mask = exec::exec_mask(&m);
        let (regs, _) = exec::bind_inputs(&p, &mut m);
        let mut g = c.benchmark_group(format!("jit/{}", case.inst));
        g.sample_size(30);
        g.bench_function("interp", |b| {
            b.iter(|| {
                let mut r = regs.clone();
                exec::run_bound_interp(&p, &mut r, case.wave, exec_mask, &mut NullMemory)
                    .expect("runs");
                black_box(r)
            })
        });
        let slots = kernel.slots(&regs);
        g.bench_function("jit", |b| {
            let mut s = slots.clone();
            let mut memory = NullMemory;
            // The slot buffer is bound (and its size checked) once, as a simulator's inner
            // loop would; like the Rust side's `&mut State`, the bound state goes through
            // `black_box` on every run.
            let mut bound = kernel.bind_slots(&mut memory, &mut s).expect("sized");
            let (wave, exec) = (case.wave, exec_mask);
            b.iter(|| bound.run(black_box(wave), exec).expect("runs"))
        });
        let mut st = State {
            s0: 0x0100_2000_0000_0012,
            s1: 0x20,
            exec: 0x0f0f_0f0f_0f0f_0f0f,
            ..State::default()
        };
        let mut lanes = Lanes {
            s0: std::array::from_fn(|l| fa(l) as u32),
            s1: std::array::from_fn(|l| fb(l) as u32),
            s2: std::array::from_fn(|l| fa(l) as u32),
            d0: [0; 64],
            mask: 0,
            exec: u64::MAX,
        };
        g.bench_function("rust", |b| match case.inst {
            "S_WQM_B64" => b.iter(|| wqm_rust(black_box(&mut st))),
            "S_AND_NOT1_WREXEC_B64" => b.iter(|| andn2_wrexec_rust(black_box(&mut st))),
            "S_ADD_U32" => b.iter(|| add_u32_rust(black_box(&mut st))),
            "S_BCNT1_I32_B64" => b.iter(|| bcnt1_b64_rust(black_box(&mut st))),
            "S_BREV_B64" => b.iter(|| brev_b64_rust(black_box(&mut st))),
            "V_ADD_F32" => b.iter(|| v_add_f32_rust(black_box(&mut lanes), 32)),
            "V_FMA_F32" => b.iter(|| v_fma_f32_rust(black_box(&mut lanes), 32)),
            _ => b.iter(|| v_cmp_lt_f32_rust(black_box(&mut lanes), 64)),
        });
        g.finish();
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);

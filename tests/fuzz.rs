//! The program fuzzer: random programs under the interpreter and the JIT agree on
//! the final state; the generator is deterministic and exercises the operand kinds it claims.

mod common;

use amdpcode::exec::Rng;
use amdpcode::fuzz::{self, Config, Generator, Item, Report};
use amdpcode::isa::Isa;
use amdpcode::spec::Arch;

fn report(r: &Report) -> String {
    fuzz::summary(r)
}

fn run(seed: u64, programs: u64) -> Report {
    let config = Config {
        seed,
        programs,
        ..Config::default()
    };
    fuzz::run(common::spec(), &config, &mut |_| {}).unwrap()
}

/// The CI run: a bounded number of programs over every configuration, 0 mismatches.
#[test]
fn fuzz_interp_jit_agree() {
    let r = run(14, 2_000);
    println!("{}", report(&r));
    assert!(r.mismatches.is_empty(), "{}", report(&r));
    assert_eq!(r.programs, 2_000);
    // Most programs run to the end (errors are faults both engines report alike).
    assert!(r.errored * 2 < r.programs, "{}", report(&r));
    assert!(r.instructions > 10 * r.programs, "{}", report(&r));
    // The default engines include `jit-block`: the comparison reaches the block compiler
    // (in place and in SIMD lanes), not only per-instruction kernels.
    assert!(r.blocks.blocks > r.programs / 4, "{}", report(&r));
    assert!(r.blocks.in_place > r.programs / 4, "{}", report(&r));
    assert!(r.blocks.simd > 0, "{}", report(&r));
}

/// The long run: `cargo test --release --test fuzz -- --ignored --nocapture`
/// (`AMDPCODE_FUZZ_PROGRAMS`, default 100,000; `AMDPCODE_FUZZ_SEED`, default 1).
#[test]
#[ignore = "long (minutes): cargo test --release --test fuzz -- --ignored --nocapture"]
fn fuzz_long_run() {
    let env = |k: &str, d: u64| {
        std::env::var(k)
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(d)
    };
    let config = Config {
        seed: env("AMDPCODE_FUZZ_SEED", 1),
        programs: env("AMDPCODE_FUZZ_PROGRAMS", 100_000),
        ..Config::default()
    };
    let r = fuzz::run(common::spec(), &config, &mut |r| {
        if r.programs % 10_000 == 0 {
            eprintln!("{} programs, {} mismatches", r.programs, r.mismatches.len());
        }
    })
    .unwrap();
    println!("{}", report(&r));
    assert!(r.mismatches.is_empty(), "{}", report(&r));
}

/// The same seed gives the same programs and states; another seed does not.
#[test]
fn fuzz_deterministic() {
    let isa = Isa::new(common::spec().db(Arch::Rdna3));
    let gen = Generator::new(&isa, &|_| true).unwrap();
    let draw = |seed| {
        let mut rng = Rng::new(seed);
        let items = gen.program(&isa, &mut rng, 16);
        let state = fuzz::initial_state(Arch::Rdna3, 32, &mut rng);
        (gen.layout(&items), state)
    };
    assert_eq!(draw(7), draw(7));
    assert_ne!(draw(7).0, draw(8).0);
}

/// Over a few hundred programs the generator covers every operand kind it claims: SGPR,
/// VGPR, inline and literal sources, VOP3 modifiers, VCC and EXEC destinations, DPP, loops,
/// skips, global and LDS memory.
#[test]
fn fuzz_covers_operand_kinds() {
    for arch in [Arch::Rdna3, Arch::Rdna4, Arch::Cdna] {
        let isa = Isa::new(common::spec().db(arch));
        let gen = Generator::new(&isa, &|_| true).unwrap();
        assert!(gen.pool_size() > 500, "{arch:?}: {}", gen.pool_size());
        let mut rng = Rng::new(3);
        let mut text = String::new();
        let (mut loops, mut skips) = (0, 0);
        for _ in 0..400 {
            let items = gen.program(&isa, &mut rng, 16);
            loops += items.iter().filter(|i| matches!(i, Item::LoopEnd)).count();
            skips += items
                .iter()
                .filter(|i| matches!(i, Item::Skip { .. }))
                .count();
            text += &fuzz::listing(&isa, &gen.layout(&items));
        }
        assert!(
            loops > 50 && skips > 100,
            "{arch:?}: {loops} loops, {skips} skips"
        );
        let dpp = if arch == Arch::Cdna { "row_" } else { "dpp8:" };
        for needle in [
            " s1",
            " v3",
            " 0x",
            " -4",
            "0.5",
            "vcc",
            "exec_lo",
            "neg(",
            "|v",
            "clamp",
            dpp,
            "global_",
            "ds_",
            "s_load",
            "s_cbranch_scc1",
        ] {
            let needle = if arch == Arch::Cdna && needle == "exec_lo" {
                "exec"
            } else {
                needle
            };
            assert!(
                text.contains(needle),
                "{arch:?}: no `{needle}` in the programs"
            );
        }
    }
}

/// Found by the fuzzer: an RDNA 4 `v_s_*` (per-lane text, SGPR destination) issued with EXEC
/// zero wrote 0 under the interpreter and the previous call's value under the JIT (a stale
/// slot); with no lane active it now leaves the SGPR as it was, under both engines.
#[test]
fn v_s_trans_with_exec_zero_keeps_the_sgpr() {
    use amdpcode::wave::{Engine, Executor, Program};
    let db = common::spec().db(Arch::Rdna4);
    let text = "s_mov_b32 s20, 2\n\
                v_s_exp_f32 s2, 1.0\n\
                s_mov_b32 exec_lo, 0\n\
                s_sub_co_u32 s20, s20, 1\n\
                s_cmp_lg_u32 s20, 0\n\
                s_cbranch_scc1 -6\n\
                s_endpgm\n";
    for engine in [Engine::Interp, Engine::Jit] {
        let mut ex = Executor::new(db, engine).unwrap();
        let program = Program::assemble(ex.isa(), text).unwrap();
        let mut w = ex.new_wave(32);
        w.sgpr[2] = 0x1234;
        ex.run(&program, &mut w).unwrap();
        // 2^1 from the first pass (EXEC full); the second pass (EXEC 0) writes nothing.
        assert_eq!(w.sgpr[2], 0x4000_0000, "{engine:?}");
        assert_eq!(w.exec(), 0);
        // Issued with EXEC 0 from the start: s2 keeps its value.
        let mut w = ex.new_wave(32);
        w.sgpr[2] = 0x1234;
        w.set_exec(0);
        let program = Program::assemble(ex.isa(), "v_s_exp_f32 s2, 1.0\ns_endpgm").unwrap();
        ex.run(&program, &mut w).unwrap();
        assert_eq!(w.sgpr[2], 0x1234, "{engine:?}");
    }
}

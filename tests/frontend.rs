//! The front end over the whole corpus: coverage thresholds, IR shape of the seeds, and
//! robustness against mutated input.

mod common;

use amdpcode::frontend;
use amdpcode::ir::{self, OperandWidths};
use amdpcode::spec::Arch;
use proptest::prelude::*;

#[test]
fn coverage_per_arch() {
    for arch in Arch::WHEEL {
        let s = frontend::arch_stats(common::spec().db(arch));
        let c = &s.counts;
        let parsed = c.parsed as f64 / c.total as f64;
        let lowered = c.lowered as f64 / c.total as f64;
        eprintln!(
            "{arch}: total {} parsed {} typed {} lowered {} errata {} failures {}",
            c.total,
            c.parsed,
            c.typed,
            c.lowered,
            c.errata,
            s.failures.len()
        );
        for f in &s.failures {
            eprintln!("  {} [{}] {}", f.inst, f.stage.name(), f.error);
            assert!(!f.error.is_empty(), "every failure carries a reason");
        }
        assert!(parsed >= 0.99, "{arch}: only {:.2}% parse", parsed * 100.0);
        assert!(
            lowered >= 0.97,
            "{arch}: only {:.2}% lower",
            lowered * 100.0
        );
        assert_eq!(c.total - c.lowered, s.failures.len());
    }
}

#[test]
fn pcode_entry_counts() {
    let counts: Vec<usize> = Arch::WHEEL
        .iter()
        .map(|a| common::spec().db(*a).with_pcode().count())
        .collect();
    assert_eq!(counts, vec![1392, 1441, 1441]);
}

#[test]
fn s_wqm_b64_ir_has_six_bit_loop_and_four_bit_part_select() {
    for arch in Arch::WHEEL {
        let db = common::spec().db(arch);
        let inst = db.get("S_WQM_B64").expect("S_WQM_B64 exists");
        let c = frontend::compile_instruction(arch, inst).expect("compiles");
        let text = ir::print_function(&c.function);
        assert!(text.contains("for $i:u6 in 0x0:u6 ..= 0x3f:u6"), "{text}");
        assert!(text.contains("+: 4]"), "{text}");
        assert!(text.contains("reg %S0: b64"), "{text}");
    }
}

#[test]
fn seed_opcodes() {
    let spec = common::spec();
    let op = |arch, name: &str| {
        spec.db(arch)
            .get(name)
            .map(|i| (i.encoding.clone(), i.opcode))
    };
    assert_eq!(op(Arch::Rdna3, "S_WQM_B64"), Some(("SOP1".into(), 29)));
    assert_eq!(op(Arch::Rdna4, "S_WQM_B64"), Some(("SOP1".into(), 29)));
    assert_eq!(op(Arch::Cdna, "S_WQM_B64"), Some(("SOP1".into(), 7)));
    assert_eq!(
        op(Arch::Cdna, "S_ANDN2_WREXEC_B64"),
        Some(("SOP1".into(), 54))
    );
    assert!(op(Arch::Rdna3, "S_AND_NOT1_WREXEC_B64").is_some());
}

#[test]
fn typed_ir_of_common_shapes() {
    let widths = OperandWidths::uniform(32);
    let compile = |text: &str| {
        let c = frontend::compile_text("t", "T", text, &widths).expect("compiles");
        ir::print_function(&c.function)
    };
    // Untyped literals take the other operand's type.
    assert!(compile("D0.u32 = S0.u32 + 4").contains("add.u32(bitcast.b32.u32(%S0:b32), 0x4:u32)"));
    // A float literal beside f32 is f32.
    assert!(compile("D0.f32 = S0.f32 * 2.0")
        .contains("mul.f32(bitcast.b32.f32(%S0:b32), 0x40000000:f32)"));
    // Signed compares are signed, and a reversed slice is marked.
    assert!(compile("SCC = S0.i32 < S1.i32").contains("lt.i32("));
    assert!(compile("D0.u32 = S0.u32[0 : 31]").contains("+: 32 reversed]"));
    // The local takes the type of its later typed assignment.
    assert!(compile("tmp = 0; tmp = S0.u64; D0.u64 = tmp").contains("local $tmp: u64"));
}

fn corpus_sample() -> Vec<String> {
    let db = common::spec().db(Arch::Rdna3);
    db.with_pcode()
        .filter_map(|i| i.pcode.clone())
        .step_by(7)
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 2000, rng_seed: proptest::test_runner::RngSeed::Fixed(0x5eed), .. ProptestConfig::default() })]

    /// Random edits of real entries never make lexer, parser or checker panic.
    #[test]
    fn mutated_corpus_entries_never_panic(
        pick in any::<prop::sample::Index>(),
        edits in prop::collection::vec((any::<prop::sample::Index>(), 0u8..4, any::<char>()), 1..6),
    ) {
        let sample = corpus_sample();
        let mut text: Vec<char> = pick.get(&sample).chars().collect();
        for (at, kind, c) in edits {
            if text.is_empty() { break; }
            let i = at.index(text.len());
            match kind {
                0 => { text.remove(i); }
                1 => text.insert(i, c),
                2 => text[i] = c,
                _ => { let j = at.index(text.len()); text.swap(i, j); }
            }
        }
        let text: String = text.into_iter().collect();
        let _ = frontend::compile_text("mutant", "M", &text, &OperandWidths::uniform(32));
    }

    /// Random token soup through the whole front end never panics.
    #[test]
    fn token_soup_never_panics(
        toks in prop::collection::vec(prop::sample::select(vec![
            "D0", "S0", ".u32", ".f32", "=", "+", "-", "*", "?", ":", "(", ")", "[", "]", "{", "}",
            ",", ";", "\n", "if", "then", "else", "endif", "for", "in", "do", "endfor", "1", "0x3",
            "6'4U", "32'U", "32'F(", "+:", "declare", "tmp", "i", "lambda", "return", "==", "<<",
            "1.0F", "-INF", "VGPR", "MEM", "laneId", "!", "~", "&&",
        ]), 0..40)
    ) {
        let text = toks.join(" ");
        let _ = frontend::compile_text("soup", "S", &text, &OperandWidths::uniform(32));
    }
}

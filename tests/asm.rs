//! Assembler and disassembler tests: the acceptance seeds, LLVM's MC test vectors in
//! `../shared/llvm-mc/` (skipped with a message when absent), and fuzzing of both
//! directions. The differential test against `llvm-mc-22` lives in `tests/asm_llvm.rs`.
//!
//! `ASM_VERBOSE=1 cargo test --release --test asm -- --nocapture` lists every failing vector.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use amdpcode::isa::Isa;
use amdpcode::spec::{self, Arch};
use proptest::prelude::*;

fn wheel() -> Option<PathBuf> {
    spec::find_wheel(&spec::Locate {
        explicit: None,
        offline: true,
    })
    .ok()
}

fn isas() -> Option<&'static [Isa; 3]> {
    static ISAS: OnceLock<Option<[Isa; 3]>> = OnceLock::new();
    ISAS.get_or_init(|| {
        let w = wheel()?;
        Some([
            Isa::from_wheel(&w, Arch::Rdna3).ok()?,
            Isa::from_wheel(&w, Arch::Rdna4).ok()?,
            Isa::from_wheel(&w, Arch::Cdna).ok()?,
        ])
    })
    .as_ref()
}

fn isa(arch: Arch) -> Option<&'static Isa> {
    let all = isas()?;
    Some(&all[Arch::WHEEL.iter().position(|a| *a == arch)?])
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

#[test]
fn seed_pages_assemble_and_disassemble() {
    let (Some(r3), Some(cd)) = (isa(Arch::Rdna3), isa(Arch::Cdna)) else {
        eprintln!("skipped: spec wheel not found");
        return;
    };
    assert_eq!(
        r3.assemble("s_wqm_b64 s[0:1], 0").unwrap(),
        [0x80, 0x1d, 0x80, 0xbe]
    );
    assert_eq!(
        cd.assemble("s_wqm_b64 s[0:1], 0").unwrap(),
        [0x80, 0x07, 0x80, 0xbe]
    );
    assert_eq!(
        r3.assemble("s_andn2_wrexec_b64 s[4:5], s[4:5]").unwrap(),
        [0x04, 0x37, 0x84, 0xbe]
    );
    assert_eq!(
        cd.assemble("s_andn2_wrexec_b64 s[4:5], s[4:5]").unwrap(),
        [0x04, 0x36, 0x84, 0xbe]
    );
    let (inst, len) = r3.decode(&[0x00, 0x1d, 0x80, 0xbe]).unwrap();
    assert_eq!(len, 4);
    assert_eq!(inst.name, "S_WQM_B64");
    assert_eq!(inst.field("sdst"), Some(0));
    assert_eq!(inst.field("ssrc0"), Some(0));
    assert_eq!(r3.print(&inst), "s_wqm_b64 s[0:1], s[0:1]");
}

#[test]
fn labels_and_errors() {
    let Some(r3) = isa(Arch::Rdna3) else {
        eprintln!("skipped: spec wheel not found");
        return;
    };
    let prog = "top:\n  s_nop 0 // comment\n  s_branch top ; back\n  s_cbranch_scc0 end\nend:\n s_endpgm\n";
    let bytes = r3.assemble(prog).unwrap();
    assert_eq!(hex(&bytes), "000080bffeffa0bf0000a1bf0000b0bf");
    let err = r3.assemble("s_nop 0\n  s_frobnicate s0").unwrap_err();
    assert_eq!((err.line, err.col), (2, 3));
    let err = r3.assemble("s_mov_b32 s0, v[0:1]").unwrap_err();
    assert_eq!((err.line, err.col), (1, 15));
    let err = r3.assemble("s_movk_i32 s0, 0x12345").unwrap_err();
    assert_eq!((err.line, err.col), (1, 16));
}

/// One TSV row.
struct Row {
    input: String,
    expected: String,
    bytes: Option<Vec<u8>>,
}

fn read_rows(path: &Path) -> Vec<Row> {
    let text = std::fs::read_to_string(path).unwrap_or_default();
    text.lines()
        .skip(1)
        .filter_map(|l| {
            let cols: Vec<&str> = l.split('\t').collect();
            if cols.len() < 5 {
                return None;
            }
            let bytes = (cols[4].is_empty()).then(|| {
                (0..cols[3].len() / 2)
                    .filter_map(|i| u8::from_str_radix(&cols[3][2 * i..2 * i + 2], 16).ok())
                    .collect()
            });
            Some(Row {
                input: cols[0].to_string(),
                expected: cols[2].to_string(),
                bytes,
            })
        })
        .collect()
}

fn squash(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Per-file results: (valid rows, assembled right, decoded right, error rows, rejected).
#[derive(Default, Debug, Clone, Copy)]
struct Score {
    valid: usize,
    asm_ok: usize,
    dis_ok: usize,
    errors: usize,
    rejected: usize,
}

fn score_file(isa: &Isa, path: &Path, verbose: bool) -> Score {
    let mut s = Score::default();
    for row in read_rows(path) {
        match &row.bytes {
            None => {
                s.errors += 1;
                if isa.assemble(&row.input).is_err() {
                    s.rejected += 1;
                } else if verbose {
                    eprintln!("ACCEPTED {}", row.input);
                }
            }
            Some(bytes) => {
                s.valid += 1;
                match isa.assemble(&row.input) {
                    Ok(got) if &got == bytes => s.asm_ok += 1,
                    Ok(got) if verbose => {
                        eprintln!("ASM {} -> {} want {}", row.input, hex(&got), hex(bytes))
                    }
                    Err(e) if verbose => eprintln!("ASM {} -> error {e}", row.input),
                    _ => {}
                }
                let text = match isa.decode(bytes) {
                    Ok((inst, len)) if len == bytes.len() => isa.print(&inst),
                    Ok((_, len)) => format!("<decoded {len} bytes>"),
                    Err(e) => format!("<{e}>"),
                };
                let ok = if row.expected.is_empty() {
                    isa.assemble(&text).ok().as_ref() == Some(bytes)
                } else {
                    squash(&text) == squash(&row.expected)
                };
                if ok {
                    s.dis_ok += 1;
                } else if verbose {
                    eprintln!(
                        "DIS {} -> `{text}` want `{}`",
                        hex(bytes),
                        if row.expected.is_empty() {
                            "(roundtrip)"
                        } else {
                            &row.expected
                        }
                    );
                }
            }
        }
    }
    s
}

#[test]
fn llvm_mc_vectors() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/llvm-mc");
    if !root.is_dir() {
        eprintln!("skipped: {} not found", root.display());
        return;
    }
    if isas().is_none() {
        eprintln!("skipped: spec wheel not found");
        return;
    }
    let verbose = std::env::var_os("ASM_VERBOSE").is_some();
    let mut total = Score::default();
    for (dir, arch) in [
        ("gfx11", Arch::Rdna3),
        ("gfx12", Arch::Rdna4),
        ("gfx9", Arch::Cdna),
    ] {
        let isa = isa(arch).expect("bug: isas loaded");
        let mut files: Vec<PathBuf> = std::fs::read_dir(root.join(dir))
            .map(|d| d.flatten().map(|e| e.path()).collect())
            .unwrap_or_default();
        files.sort();
        for f in files {
            let s = score_file(isa, &f, verbose);
            eprintln!(
                "{:<28} {arch:<5} asm {:>5}/{:<5} dis {:>5}/{:<5} rejected {:>3}/{:<3}",
                f.file_name().unwrap_or_default().to_string_lossy(),
                s.asm_ok,
                s.valid,
                s.dis_ok,
                s.valid,
                s.rejected,
                s.errors
            );
            total.valid += s.valid;
            total.asm_ok += s.asm_ok;
            total.dis_ok += s.dis_ok;
            total.errors += s.errors;
            total.rejected += s.rejected;
        }
    }
    let pct = |a: usize, b: usize| 100.0 * a as f64 / b.max(1) as f64;
    eprintln!(
        "TOTAL asm {:.2}% dis {:.2}% rejected {:.2}%",
        pct(total.asm_ok, total.valid),
        pct(total.dis_ok, total.valid),
        pct(total.rejected, total.errors)
    );
    assert!(pct(total.asm_ok, total.valid) >= 99.0, "{total:?}");
    assert!(pct(total.dis_ok, total.valid) >= 99.0, "{total:?}");
    assert_eq!(total.rejected, total.errors, "{total:?}");
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: 2000,
        rng_seed: proptest::test_runner::RngSeed::Fixed(0x5eed),
        ..ProptestConfig::default()
    })]

    #[test]
    fn fuzz_decoder_never_panics(bytes in proptest::collection::vec(any::<u8>(), 0..40)) {
        if let Some(all) = isas() {
            for isa in all {
                let mut pos = 0;
                while pos < bytes.len() {
                    match isa.decode(&bytes[pos..]) {
                        Ok((inst, len)) => {
                            prop_assert!(len > 0 && len <= bytes.len() - pos);
                            let _ = isa.print(&inst);
                            pos += len;
                        }
                        Err(_) => pos += 4,
                    }
                }
                let _ = isa.disassemble(&bytes);
            }
        }
    }

    #[test]
    fn fuzz_assembler_never_panics(text in "[ -~\n]{0,60}") {
        if let Some(all) = isas() {
            for isa in all {
                let _ = isa.assemble(&text);
            }
        }
    }

    #[test]
    fn fuzz_assembler_structured(
        m in prop::sample::select(vec!["s_mov_b32", "s_add_u32", "s_load_b32", "s_waitcnt",
            "s_getreg_b32", "s_sendmsg", "s_cmp_eq_u32", "s_movk_i32", "s_delay_alu", "s_load_dword"]),
        ops in proptest::collection::vec(
            "(s[0-9]{1,3}|s\\[[0-9]{1,3}:[0-9]{1,3}\\]|-?[0-9]{1,12}|0x[0-9a-f]{1,17}|vcc|hwreg\\([A-Z_]{0,9}, ?[0-9]{1,3}\\)|vmcnt\\([0-9]+\\)|lit\\(-?[0-9.]+\\)|offset:-?[0-9]+|[a-z_:()&|,\\[\\]]{1,6})", 0..5),
    ) {
        if let Some(all) = isas() {
            let text = format!("{m} {}", ops.join(", "));
            for isa in all {
                let _ = isa.assemble(&text);
            }
        }
    }
}

/// Forces the first instruction word of `bytes` into a DPP/SDWA or VOPD encoding: `kind`
/// picks VOP1/VOP2/VOPC with a DPP16/DPP8/SDWA `src0`, a VOP3/VOP3P word with a DPP `src0`,
/// or a VOPD word.
fn steer_ext(bytes: &mut [u8], kind: u8, code_pick: u8) {
    let codes = [0xfa_u32, 0xe9, 0xea, 0xf9];
    let code = codes[usize::from(code_pick) % codes.len()];
    let w0 = u32::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]);
    let w0 = match kind % 6 {
        0 => (w0 & 0x01ff_fe00) | 0x7e00_0000 | code,
        1 => (w0 & 0x7fff_fe00) | code,
        2 => (w0 & 0x01ff_fe00) | 0x7c00_0000 | code,
        3 => (w0 & 0x03ff_ffff) | 0xd400_0000,
        4 => (w0 & 0x00ff_ffff) | 0xcc00_0000,
        _ => (w0 & 0x03ff_ffff) | 0xc800_0000,
    };
    bytes[..4].copy_from_slice(&w0.to_le_bytes());
    if matches!(kind % 6, 3 | 4) {
        let w1 = u32::from_le_bytes([bytes[4], bytes[5], bytes[6], bytes[7]]);
        let w1 = (w1 & !0x1ff) | code;
        bytes[4..8].copy_from_slice(&w1.to_le_bytes());
    }
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: 3000,
        rng_seed: proptest::test_runner::RngSeed::Fixed(0x5eed),
        ..ProptestConfig::default()
    })]

    /// DPP/SDWA and VOPD words decode without panicking, and whatever text the decoder
    /// prints, if our assembler takes it back, decodes to the same text again.
    #[test]
    fn fuzz_dpp_sdwa_vopd_round_trip(
        mut bytes in proptest::collection::vec(any::<u8>(), 16),
        kind in any::<u8>(),
        code in any::<u8>(),
        cut in 0usize..16,
    ) {
        steer_ext(&mut bytes, kind, code);
        if let Some(all) = isas() {
            for isa in all {
                // Truncated words are reported, never read out of bounds.
                let _ = isa.decode(&bytes[..cut]);
                let Ok((inst, len)) = isa.decode(&bytes) else { continue };
                prop_assert!(len <= bytes.len());
                let text = isa.print(&inst);
                if let Ok(again) = isa.assemble(&text) {
                    let (inst2, len2) = isa.decode(&again).expect("re-assembled bytes decode");
                    prop_assert_eq!(len2, again.len(), "{} `{}`", isa.arch(), text);
                    prop_assert_eq!(isa.print(&inst2), text.clone(), "{}", isa.arch());
                }
            }
        }
    }

    #[test]
    fn fuzz_assembler_dpp_vopd(
        m in prop::sample::select(vec!["v_mov_b32_dpp", "v_add_f32_dpp", "v_add_f32_e64_dpp",
            "v_cmp_eq_f32", "v_add_f32_sdwa", "v_cmp_eq_f32_sdwa", "v_fma_mix_f32_e64_dpp",
            "v_dual_add_f32", "v_dual_fmamk_f32", "v_nop"]),
        ops in proptest::collection::vec(
            "(v[0-9]{1,3}(\\.[lh])?|-?\\|?v[0-9]{1,3}\\|?|s[0-9]{1,3}|vcc(_lo)?|-?[0-9]{1,12}|0x[0-9a-f]{1,9}|sext\\(v[0-9]\\))", 0..5),
        mods in proptest::collection::vec(
            "(quad_perm:\\[[0-4](,[0-4]){0,4}\\]|row_(shl|shr|ror|share|xmask|newbcast|bcast):[0-9]{1,2}|row_(half_)?mirror|wave_(shl|rol|shr|ror):[0-2]|row_mask:0x[0-9a-f]{1,2}|bank_mask:[0-9]{1,2}|bound_ctrl:[0-2]|fi:[0-2]|dpp8:\\[[0-8](,[0-8]){0,8}\\]|(dst|src0|src1)_sel:(BYTE_[0-4]|WORD_[0-2]|DWORD)|dst_unused:UNUSED_(PAD|SEXT|PRESERVE)|clamp|mul:[24])", 0..4),
        pair in prop::option::of("v_dual_(mov_b32|add_f32|fmaak_f32|cndmask_b32) v[0-9]{1,3}, [sv]?[0-9]{1,3}(, v[0-9]{1,3})?"),
    ) {
        if let Some(all) = isas() {
            let mut text = format!("{m} {} {}", ops.join(", "), mods.join(" "));
            if let Some(p) = pair {
                text.push_str(" :: ");
                text.push_str(&p);
            }
            for isa in all {
                if let Ok(bytes) = isa.assemble(&text) {
                    // Whatever we accept decodes back to one instruction of that length.
                    let (_, len) = isa.decode(&bytes).expect("assembled bytes decode");
                    prop_assert_eq!(len, bytes.len());
                }
            }
        }
    }
}

//! The `bitop3:` truth table of `v_bitop3_b16`/`v_bitop3_b32` (CDNA 4 gfx950, CDNA 5 gfx1250):
//! the assembler takes it, the printer writes it, both as llvm-mc-22 does. Fixed cases carry
//! llvm-mc-22's bytes (`llvm-mc-22 -triple=amdgcn -mcpu=gfx950|gfx1250 -show-encoding`); the
//! sweep over all 256 tables compares with llvm-mc-22 itself and skips without it.

use std::io::Write;
use std::process::{Command, Stdio};

mod common;

use amdpcode::spec::Arch;
use common::asm::{isa, llvm_mc, round_trip};

#[test]
fn gfx950_bitop3_tables_assemble_and_print_as_llvm_mc_does() {
    let Some(isa) = isa(Arch::Cdna) else { return };
    let cases: [(&str, &[u8]); 5] = [
        (
            "v_bitop3_b32 v0, v1, v2, v3 bitop3:0x6c",
            &[0x00, 0x05, 0x34, 0xd2, 0x01, 0x05, 0x0e, 0x8c],
        ),
        // Up to 10 the table prints in decimal.
        (
            "v_bitop3_b32 v5, s1, 1.0, v3 bitop3:10",
            &[0x05, 0x01, 0x34, 0xd2, 0x01, 0xe4, 0x0d, 0x44],
        ),
        (
            "v_bitop3_b16 v1, v2, v3, v4 bitop3:0xe4 op_sel:[1,0,1,1]",
            &[0x01, 0x6c, 0x33, 0xd2, 0x02, 0x07, 0x12, 0x9c],
        ),
        // A zero table is not printed.
        (
            "v_bitop3_b32 v0, v1, v2, v3",
            &[0x00, 0x00, 0x34, 0xd2, 0x01, 0x05, 0x0e, 0x04],
        ),
        (
            "v_bitop3_b16 v0, -1, v2, s3 bitop3:0xff",
            &[0x00, 0x07, 0x33, 0xd2, 0xc1, 0x04, 0x0e, 0xf8],
        ),
    ];
    for (text, bytes) in cases {
        round_trip(&isa, text, bytes);
    }
    // `bitop3:0` is the table the plain form has.
    assert_eq!(
        isa.assemble("v_bitop3_b32 v0, v1, v2, v3 bitop3:0")
            .unwrap(),
        isa.assemble("v_bitop3_b32 v0, v1, v2, v3").unwrap()
    );
}

#[test]
fn gfx1250_bitop3_tables_assemble_and_print_as_llvm_mc_does() {
    let Some(isa) = isa(Arch::Cdna5) else { return };
    let cases: [(&str, &[u8]); 6] = [
        (
            "v_bitop3_b32 v0, v1, v2, v3 bitop3:0x6c",
            &[0x00, 0x05, 0x34, 0xd6, 0x01, 0x05, 0x0e, 0x8c],
        ),
        (
            "v_bitop3_b32 v0, s1, 0x1234, v3 bitop3:0x80",
            &[
                0x00, 0x00, 0x34, 0xd6, 0x01, 0xfe, 0x0d, 0x14, 0x34, 0x12, 0x00, 0x00,
            ],
        ),
        (
            "v_bitop3_b16 v1, v2, v3, v4 bitop3:0xe4 op_sel:[1,0,1,1]",
            &[0x01, 0x6c, 0x33, 0xd6, 0x02, 0x07, 0x12, 0x9c],
        ),
        (
            "v_bitop3_b32_e64_dpp v0, v1, v2, v3 bitop3:0x6c quad_perm:[0,1,2,3] row_mask:0xf bank_mask:0xf",
            &[
                0x00, 0x05, 0x34, 0xd6, 0xfa, 0x04, 0x0e, 0x8c, 0x01, 0xe4, 0x00, 0xff,
            ],
        ),
        (
            "v_bitop3_b32_e64_dpp v0, v1, v2, v3 bitop3:3 dpp8:[7,6,5,4,3,2,1,0]",
            &[
                0x00, 0x00, 0x34, 0xd6, 0xe9, 0x04, 0x0e, 0x64, 0x01, 0x77, 0x39, 0x05,
            ],
        ),
        // VOPD3's `v_dual_bitop2_b32` spells its table the same way.
        (
            "v_dual_mov_b32 v1, v2 :: v_dual_bitop2_b32 v4, v5, v7 bitop3:9",
            &[
                0x02, 0x21, 0x21, 0xcf, 0x05, 0x01, 0x00, 0x00, 0x01, 0x07, 0x09, 0x04,
            ],
        ),
    ];
    for (text, bytes) in cases {
        round_trip(&isa, text, bytes);
    }
}

#[test]
fn bad_bitop3_tables_are_refused_with_the_column() {
    let Some(isa) = isa(Arch::Cdna) else { return };
    for (text, col, msg) in [
        (
            "v_bitop3_b32 v0, v1, v2, v3 bitop3:256",
            29,
            "invalid bitop3 value: expected 0..255",
        ),
        (
            "v_bitop3_b32 v0, v1, v2, v3 bitop3:-1",
            29,
            "invalid bitop3 value: expected 0..255",
        ),
        // One table only, no clamp (llvm-mc-22 refuses both), and only on the truth tables.
        (
            "v_bitop3_b32 v0, v1, v2, v3 bitop3:0x14 bitop3:0x15",
            41,
            "invalid modifier for instruction",
        ),
        (
            "v_bitop3_b32 v0, v1, v2, v3 bitop3:0x6c clamp",
            41,
            "invalid modifier for instruction",
        ),
        (
            "v_add3_u32 v0, v1, v2, v3 bitop3:0x6c",
            27,
            "invalid modifier for instruction",
        ),
    ] {
        let err = isa.assemble(text).expect_err(text).to_string();
        assert!(err.contains(msg), "{text}: {err}");
        assert!(err.contains(&format!(":{col}:")), "{text}: {err}");
    }
}

/// llvm-mc's output lines that carry an encoding, for `input` given on stdin with `args`.
fn mc(tool: &str, args: &[&str], input: &str) -> (Vec<String>, String) {
    let mut child = Command::new(tool)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("llvm-mc runs");
    let mut stdin = child.stdin.take().unwrap();
    let text = input.to_string();
    let writer = std::thread::spawn(move || stdin.write_all(text.as_bytes()));
    let out = child.wait_with_output().expect("llvm-mc output");
    writer.join().unwrap().unwrap();
    let lines = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('.'))
        .map(str::to_string)
        .collect();
    (lines, String::from_utf8_lossy(&out.stderr).into_owned())
}

fn encoding_of(line: &str) -> Vec<u8> {
    let inner = line.split("encoding: [").nth(1).expect(line);
    inner
        .trim_end_matches(']')
        .split(',')
        .map(|b| u8::from_str_radix(b.trim().trim_start_matches("0x"), 16).expect(line))
        .collect()
}

/// Every table of both instructions, on operand shapes that vary with the table (VGPRs,
/// SGPRs, inline constants, `op_sel` halves of the 16-bit form): our assembler gives
/// llvm-mc's bytes, and our printer gives llvm-mc's disassembly of them.
#[test]
fn every_bitop3_table_round_trips_like_llvm_mc() {
    let Some(tool) = llvm_mc() else {
        eprintln!("skipped: llvm-mc-22 not found (apt-get install -y llvm-22)");
        return;
    };
    for arch in [Arch::Cdna, Arch::Cdna5] {
        let Some(isa) = isa(arch) else { return };
        let srcs = ["v1, v2, v3", "s4, v2, v3", "v1, 0.5, v3", "v7, v2, -4"];
        // (A float constant in a 16-bit integer source is printed as its f16 bits by
        // llvm-mc, `0x3800` for 0.5, and as `0.5` by amdpcode: not a `bitop3:` matter.)
        let srcs16 = ["v1, v2, v3", "s4, v2, v3", "v1, -4, v3", "v7, v2, 64"];
        let opsels = ["", " op_sel:[1,0,0,0]", " op_sel:[0,1,1,1]"];
        let mut texts = Vec::new();
        for table in 0..256u32 {
            let t = match table {
                0 => String::new(),
                1..=10 => format!(" bitop3:{table}"),
                _ => format!(" bitop3:0x{table:x}"),
            };
            let k = table as usize;
            texts.push(format!("v_bitop3_b32 v0, {}{t}", srcs[k % 4]));
            texts.push(format!(
                "v_bitop3_b16 v5, {}{t}{}",
                srcs16[(k / 4) % 4],
                opsels[k % 3]
            ));
        }
        let cpu = format!("-mcpu={}", arch.target());
        let (lines, err) = mc(
            &tool,
            &["-triple=amdgcn", &cpu, "-show-encoding"],
            &(texts.join("\n") + "\n"),
        );
        assert!(err.is_empty(), "{arch}: llvm-mc refused a line: {err}");
        assert_eq!(lines.len(), texts.len(), "{arch}");
        let mut hex = String::new();
        for (text, line) in texts.iter().zip(&lines) {
            let theirs = encoding_of(line);
            let ours = isa
                .assemble(text)
                .unwrap_or_else(|e| panic!("{arch} {text}: {e}"));
            assert_eq!(ours, theirs, "{arch} {text}");
            let (inst, _) = isa.decode(&ours).expect(text);
            assert_eq!(&isa.print(&inst), text, "{arch}: printed back");
            let bytes: Vec<String> = ours.iter().map(|b| format!("0x{b:02x}")).collect();
            hex.push_str(&bytes.join(","));
            hex.push('\n');
        }
        // llvm-mc's disassembly of the bytes is our text.
        let (dis, err) = mc(&tool, &["-triple=amdgcn", &cpu, "-disassemble"], &hex);
        assert!(err.is_empty(), "{arch}: {err}");
        assert_eq!(dis.len(), texts.len(), "{arch}");
        for (text, line) in texts.iter().zip(&dis) {
            let squash = |s: &str| s.split_whitespace().collect::<Vec<_>>().join(" ");
            assert_eq!(squash(line), squash(text), "{arch}: llvm-mc's disassembly");
        }
    }
}

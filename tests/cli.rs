//! The command line as a user runs it: exit codes, diagnostics, output shapes.

mod common;

use std::process::Command;

fn run(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(common::bin())
        .args(args)
        .env("NO_COLOR", "1")
        .output()
        .expect("runs the binary");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn temp_file(name: &str, text: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("amdpcode-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let p = dir.join(name);
    std::fs::write(&p, text).expect("write temp file");
    p
}

#[test]
fn show_ir_of_s_wqm_b64() {
    let (code, out, err) = run(&["show", "--arch", "rdna3", "S_WQM_B64", "--ir"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("for $i:u6"), "{out}");
    assert!(out.contains("+: 4]"), "{out}");
}

#[test]
fn check_text_missing_endif() {
    let p = temp_file(
        "missing_endif.pcode",
        "if S0.u32 > 1U then\n  D0.u32 = 1U\n",
    );
    let (code, _, err) = run(&["check-text", p.to_str().expect("utf8")]);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("error: [parse]"), "{err}");
    assert!(err.contains("missing_endif.pcode:2:14"), "{err}");
    assert!(err.contains('^'), "no caret: {err}");
}

#[test]
fn check_text_unknown_operator() {
    let p = temp_file("bad_op.pcode", "D0.u32 = S0.u32 @ S1.u32\n");
    let (code, _, err) = run(&["check-text", p.to_str().expect("utf8")]);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("bad_op.pcode:1:17"), "{err}");
    assert!(err.contains('^'), "{err}");
}

#[test]
fn check_text_unknown_identifier() {
    let p = temp_file("unknown.pcode", "D0.u32 = S0.u32;\nD0.u32 = bogus + 1U\n");
    let (code, _, err) = run(&["check-text", p.to_str().expect("utf8")]);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("error: [type]"), "{err}");
    assert!(err.contains("unknown identifier `bogus`"), "{err}");
    assert!(err.contains("unknown.pcode:2:10"), "{err}");
}

#[test]
fn check_text_accepts_good_text() {
    let p = temp_file(
        "good.pcode",
        "tmp = S0.u32 + S1.u32\nD0.u32 = tmp; SCC = tmp < S0.u32\n",
    );
    let (code, out, err) = run(&["check-text", p.to_str().expect("utf8")]);
    assert_eq!(code, 0, "{err}");
    assert!(out.starts_with("ok:"), "{out}");
}

#[test]
fn check_text_missing_file() {
    let (code, _, err) = run(&["check-text", "/nonexistent/file.pcode"]);
    assert_eq!(code, 1);
    assert!(err.contains("cannot read"), "{err}");
}

#[test]
fn unknown_instruction_and_arch() {
    let (code, _, err) = run(&["show", "--arch", "rdna3", "S_NOT_A_THING"]);
    assert_eq!(code, 1);
    assert!(err.contains("unknown instruction `S_NOT_A_THING`"), "{err}");
    let (code, _, err) = run(&["show", "--arch", "gfx8", "S_WQM_B64"]);
    assert_eq!(code, 1);
    assert!(err.contains("unknown arch"), "{err}");
}

#[test]
fn spec_stats_json_shape() {
    let (code, out, err) = run(&["spec", "stats", "--json", "--samples", "2"]);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).expect("json");
    for arch in ["rdna3", "rdna4", "cdna"] {
        let a = &v["archs"][arch];
        for key in [
            "total",
            "parsed",
            "typed",
            "lowered",
            "errata",
            "alu_total",
            "executes",
        ] {
            assert!(a[key].as_u64().is_some(), "{arch}.{key} missing");
        }
        let failures = a["failures"].as_array().expect("failures array");
        for f in failures {
            assert!(f["inst"].is_string() && f["error"].is_string());
            assert!(["parse", "type", "lower"].contains(&f["stage"].as_str().unwrap_or("")));
        }
    }
    assert_eq!(v["archs"]["rdna3"]["total"], 1392);
}

#[test]
fn spec_list_json_has_seed() {
    let (code, out, err) = run(&["spec", "list", "--arch", "cdna", "--json"]);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).expect("json");
    let wqm = v
        .as_array()
        .expect("array")
        .iter()
        .find(|i| i["inst"] == "S_WQM_B64")
        .expect("S_WQM_B64 listed");
    assert_eq!(wqm["encoding"], "SOP1");
    assert_eq!(wqm["opcode"], 7);
    assert!(wqm["operands"].as_array().is_some_and(|o| !o.is_empty()));
}

#[test]
fn offline_without_wheel_explains() {
    let out = Command::new(common::bin())
        .args(["--offline", "spec", "stats"])
        .env("AMDPCODE_SPEC", "/nonexistent/x.whl")
        .env("AMDPCODE_CACHE", "/nonexistent/cache")
        .current_dir(std::env::temp_dir())
        .output()
        .expect("runs");
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(
        err.contains("spec fetch") || err.contains("pip download"),
        "{err}"
    );
}

//! Generates the pseudocode parser from `grammar/pcode.lalrpop` into `OUT_DIR`, and a table
//! of the errata files under `semantics/errata/<arch>/<INSTRUCTION>.pcode` so that the binary
//! carries them, and the hash of the wheel-reading code that keys the prepared-database cache.

use std::fmt::Write as _;
use std::path::Path;

fn main() {
    lalrpop::Configuration::new()
        .set_in_dir("grammar")
        .emit_rerun_directives(true)
        .process()
        .expect("bug: lalrpop failed to generate the parser from grammar/");
    write_errata_table();
    hash_spec_reader();
}

/// Hashes the code that reads the wheel and writes the prepared-database cache
/// (`src/spec/*.rs`) into `AMDPCODE_SPEC_CODE_HASH`: the cache key changes with that code.
fn hash_spec_reader() {
    let dir = Path::new("src/spec");
    println!("cargo:rerun-if-changed=src/spec");
    let mut files: Vec<_> = std::fs::read_dir(dir)
        .map(|d| d.flatten().map(|e| e.path()).collect())
        .unwrap_or_default();
    files.sort();
    // FNV-1a over each file's name and bytes.
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for p in files {
        if p.extension().and_then(|e| e.to_str()) != Some("rs") {
            continue;
        }
        println!("cargo:rerun-if-changed={}", p.display());
        let name = p.file_name().map(|n| n.to_string_lossy().into_owned());
        let bytes = std::fs::read(&p).expect("bug: cannot read src/spec");
        for &b in name.unwrap_or_default().as_bytes().iter().chain(&bytes) {
            h = (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3);
        }
    }
    println!("cargo:rustc-env=AMDPCODE_SPEC_CODE_HASH={h:016x}");
}

fn write_errata_table() {
    let root = Path::new("semantics/errata");
    println!("cargo:rerun-if-changed=semantics/errata");
    let mut entries = Vec::new();
    if let Ok(archs) = std::fs::read_dir(root) {
        for arch in archs.flatten() {
            let arch_path = arch.path();
            if !arch_path.is_dir() {
                continue;
            }
            println!("cargo:rerun-if-changed={}", arch_path.display());
            let arch_name = arch.file_name().to_string_lossy().into_owned();
            if let Ok(files) = std::fs::read_dir(&arch_path) {
                for f in files.flatten() {
                    let p = f.path();
                    if p.extension().and_then(|e| e.to_str()) == Some("pcode") {
                        println!("cargo:rerun-if-changed={}", p.display());
                        let inst = p
                            .file_stem()
                            .map(|s| s.to_string_lossy().into_owned())
                            .unwrap_or_default();
                        let abs = std::fs::canonicalize(&p).expect("bug: errata path");
                        entries.push((arch_name.clone(), inst, abs));
                    }
                }
            }
        }
    }
    entries.sort();
    let mut out = String::from("/// `(arch, instruction, file text)` of every erratum.\n");
    out.push_str("pub(crate) static ERRATA: &[(&str, &str, &str)] = &[\n");
    for (arch, inst, path) in entries {
        let _ = writeln!(
            out,
            "    ({arch:?}, {inst:?}, include_str!({:?})),",
            path.display().to_string()
        );
    }
    out.push_str("];\n");
    let dest = Path::new(&std::env::var("OUT_DIR").expect("OUT_DIR")).join("errata_table.rs");
    std::fs::write(dest, out).expect("bug: cannot write errata table");
}

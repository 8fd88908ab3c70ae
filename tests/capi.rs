//! The C ABI: `examples/c/dispatch.c` compiled against `include/amdpcode.h` with
//! the system C compiler and linked to the cdylib, dispatching OpenCL kernels that clang-22
//! compiles here: a vector add on the host's own arrays, and a kernel writing outside the
//! declared memory (a fault naming the address; the host's memory unchanged, the process
//! going on), and the host memory exactly as declared under both engines (a read past a
//! buffer inside its page sees zeros, a store past it faults at the first such store, memory
//! unchanged). Without clang-22 the tests are skipped with a notice, except under `CI=true`.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

fn have(tool: &str) -> bool {
    Command::new(tool)
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
}

/// The folder of the cdylib: `target/<profile>`, the parent of this test's `deps` folder.
fn lib_dir() -> PathBuf {
    let exe = std::env::current_exe().expect("test executable path");
    exe.parent()
        .and_then(Path::parent)
        .expect("target/<profile>/deps/<test>")
        .to_path_buf()
}

fn run(cmd: &mut Command) -> String {
    let o = cmd.output().unwrap_or_else(|e| panic!("{cmd:?}: {e}"));
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    );
    assert!(o.status.success(), "{cmd:?} failed:\n{text}");
    text
}

/// Builds the code object and the C program in a fresh folder; None (after a notice) when
/// clang-22 is missing outside CI.
fn build() -> Option<(PathBuf, PathBuf)> {
    // Both tests use one build: building twice into one folder raced (a test ran the C
    // program while the other was writing it).
    static BUILT: std::sync::OnceLock<Option<(PathBuf, PathBuf)>> = std::sync::OnceLock::new();
    BUILT.get_or_init(build_once).clone()
}

fn build_once() -> Option<(PathBuf, PathBuf)> {
    if !have("clang-22") || !have("ld.lld-22") {
        assert!(
            std::env::var("CI").as_deref() != Ok("true"),
            "clang-22 and ld.lld-22 are required under CI"
        );
        eprintln!("notice: clang-22/ld.lld-22 not installed; skipping the C ABI test");
        return None;
    }
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let dir = std::env::temp_dir().join(format!("amdpcode-capi-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let obj = dir.join("kernels.o");
    let co = dir.join("kernels.hsaco");
    run(Command::new("clang-22")
        .args(["-x", "cl", "-cl-std=CL2.0", "-target", "amdgcn-amd-amdhsa"])
        .args([
            "-mcpu=gfx1100",
            "-nogpulib",
            "-Xclang",
            "-finclude-default-header",
        ])
        .args(["-O2", "-c"])
        .arg(root.join("examples/c/kernels.cl"))
        .arg("-o")
        .arg(&obj));
    run(Command::new("ld.lld-22")
        .arg("-shared")
        .arg(&obj)
        .arg("-o")
        .arg(&co));
    let lib = lib_dir();
    if !lib.join("libamdpcode.so").exists() {
        // `cargo test` builds the library as an rlib only: build the cdylib into the same
        // target folder and profile (cargo's lock is free while tests run).
        let target = lib.parent().expect("target folder");
        let mut cargo = Command::new(env!("CARGO"));
        cargo
            .args(["build", "--lib", "--manifest-path"])
            .arg(root.join("Cargo.toml"))
            .arg("--target-dir")
            .arg(target);
        if lib.file_name().and_then(|n| n.to_str()) == Some("release") {
            cargo.arg("--release");
        }
        run(&mut cargo);
    }
    assert!(
        lib.join("libamdpcode.so").exists(),
        "the cdylib is not at {} (cargo builds it with the tests)",
        lib.display()
    );
    let exe = dir.join("dispatch");
    run(Command::new("cc")
        .args(["-std=c11", "-Wall", "-Wextra", "-Werror", "-O1"])
        .arg("-I")
        .arg(root.join("include"))
        .arg(root.join("examples/c/dispatch.c"))
        .arg("-o")
        .arg(&exe)
        .arg("-L")
        .arg(&lib)
        .arg(format!("-Wl,-rpath,{}", lib.display()))
        .arg("-lamdpcode"));
    Some((exe, co))
}

fn spec_env(cmd: &mut Command) -> &mut Command {
    // The C program uses the default lookup; point it at the wheel the tests use.
    let wheel = amdpcode::spec::find_wheel(&Default::default()).expect("spec wheel");
    cmd.env("AMDPCODE_SPEC", wheel)
}

#[test]
fn c_program_adds_vectors_in_host_memory() {
    let Some((exe, co)) = build() else { return };
    let out = run(spec_env(Command::new(&exe).arg(&co).arg("vadd")));
    assert!(
        out.contains("vadd: 0 of 1000 elements wrong"),
        "unexpected output:\n{out}"
    );
}

#[test]
fn c_program_runs_workgroups_on_two_threads_with_one_threads_results() {
    let Some((exe, co)) = build() else { return };
    let out = run(spec_env(Command::new(&exe).arg(&co).arg("threads")));
    assert!(
        out.contains("threads: 0 and 0 elements wrong, ran on 1 then 2 threads, identical"),
        "unexpected output:\n{out}"
    );
}

#[test]
fn c_program_write_outside_declared_memory_faults() {
    let Some((exe, co)) = build() else { return };
    let out = run(spec_env(Command::new(&exe).arg(&co).arg("poke")));
    assert!(
        out.contains("poke: fault reported, memory unchanged"),
        "unexpected output:\n{out}"
    );
    assert!(out.contains("memory fault"), "{out}");
    // The process went on to run a correct kernel on the same engine.
    assert!(out.contains("vadd: 0 of 1000 elements wrong"), "{out}");
}

#[test]
fn c_program_over_read_past_a_buffer_in_its_page_sees_zeros() {
    let Some((exe, co)) = build() else { return };
    for engine in ["jit", "interp"] {
        let out = run(spec_env(
            Command::new(&exe).arg(&co).arg("overread").arg(engine),
        ));
        assert!(
            out.contains("overread: zeros past the buffers, pages unchanged"),
            "{engine}: unexpected output:\n{out}"
        );
    }
}

#[test]
fn c_program_access_past_a_buffer_faults_at_the_first_one_memory_unchanged() {
    let Some((exe, co)) = build() else { return };
    for engine in ["jit", "interp"] {
        let out = run(spec_env(
            Command::new(&exe).arg(&co).arg("pastend").arg(engine),
        ));
        assert!(
            out.contains("pastend: faults at the first access past the buffers, memory unchanged"),
            "{engine}: unexpected output:\n{out}"
        );
        assert!(
            out.contains("vadd: 0 of 1000 elements wrong"),
            "{engine}: {out}"
        );
    }
}

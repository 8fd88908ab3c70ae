//! The compiled kernel suite's harness: compiles `tests/kernels/*.cl` with clang-22 and
//! ld.lld-22 for a target, reads the kernel metadata, builds `amdpcode dispatch` launch lines,
//! runs them in one `--batch` process per engine and parses the output.
//!
//! Without clang-22, ld.lld-22 or llvm-readelf-22 the tests print a notice and pass, except under
//! `CI=true`, where a missing tool is a failure.

use std::collections::BTreeMap;
use std::fmt::Debug;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use sha2::{Digest, Sha256};

/// The LLVM tools the suite needs, found on `PATH`.
pub struct Toolchain {
    clang: PathBuf,
    lld: PathBuf,
    readelf: PathBuf,
}

fn find_on_path(name: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|dir| dir.join(name))
        .find(|p| p.is_file())
}

/// The toolchain, or `None` (after a printed notice) when a tool is missing. Under `CI=true` a
/// missing tool panics: CI installs them (`.ci/run`).
pub fn toolchain() -> Option<&'static Toolchain> {
    static TOOLS: OnceLock<Result<Toolchain, String>> = OnceLock::new();
    let tools = TOOLS.get_or_init(|| {
        let get = |name: &str| find_on_path(name).ok_or_else(|| name.to_string());
        match (get("clang-22"), get("ld.lld-22"), get("llvm-readelf-22")) {
            (Ok(clang), Ok(lld), Ok(readelf)) => Ok(Toolchain {
                clang,
                lld,
                readelf,
            }),
            (a, b, c) => Err([a.err(), b.err(), c.err()]
                .into_iter()
                .flatten()
                .collect::<Vec<_>>()
                .join(", ")),
        }
    });
    match tools {
        Ok(t) => Some(t),
        Err(missing) => {
            if std::env::var("CI").as_deref() == Ok("true") {
                panic!("CI=true: the kernel suite needs {missing} (apt-get install -y clang-22 lld-22 llvm-22)");
            }
            eprintln!("skipped: {missing} not found (apt-get install -y clang-22 lld-22 llvm-22)");
            None
        }
    }
}

/// A compilation target of the suite.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Target {
    /// RDNA 3, wave32.
    Gfx1100,
    /// RDNA 3, wave64 (`-mwavefrontsize64`).
    Gfx1100W64,
    /// RDNA 4 (wave32).
    Gfx1200,
    /// CDNA 4 (wave64).
    Gfx950,
    /// CDNA 5 (wave32 only).
    Gfx1250,
    /// CDNA 1 (wave64).
    Gfx908,
    /// CDNA 2 (wave64).
    Gfx90a,
    /// CDNA 3 (wave64).
    Gfx942,
    /// RDNA 1, wave32.
    Gfx1010,
    /// RDNA 1, wave64 (`-mwavefrontsize64`).
    Gfx1010W64,
    /// RDNA 2, wave32.
    Gfx1030,
    /// RDNA 2, wave64 (`-mwavefrontsize64`).
    Gfx1030W64,
}

impl Target {
    /// Every target, in report order.
    pub const ALL: [Target; 12] = [
        Target::Gfx1100,
        Target::Gfx1100W64,
        Target::Gfx1200,
        Target::Gfx950,
        Target::Gfx1250,
        Target::Gfx908,
        Target::Gfx90a,
        Target::Gfx942,
        Target::Gfx1010,
        Target::Gfx1010W64,
        Target::Gfx1030,
        Target::Gfx1030W64,
    ];

    /// The `-mcpu` value.
    pub fn mcpu(self) -> &'static str {
        match self {
            Target::Gfx1100 | Target::Gfx1100W64 => "gfx1100",
            Target::Gfx1200 => "gfx1200",
            Target::Gfx950 => "gfx950",
            Target::Gfx1250 => "gfx1250",
            Target::Gfx908 => "gfx908",
            Target::Gfx90a => "gfx90a",
            Target::Gfx942 => "gfx942",
            Target::Gfx1010 | Target::Gfx1010W64 => "gfx1010",
            Target::Gfx1030 | Target::Gfx1030W64 => "gfx1030",
        }
    }

    /// Whether the target is CDNA (GFX9: gfx908, gfx90a, gfx942, gfx950).
    pub fn is_cdna(self) -> bool {
        matches!(
            self,
            Target::Gfx950 | Target::Gfx908 | Target::Gfx90a | Target::Gfx942
        )
    }

    /// Whether the target is RDNA 1 or 2 (GFX10), which has no matrix cores.
    pub fn is_gfx10(self) -> bool {
        matches!(
            self,
            Target::Gfx1010 | Target::Gfx1010W64 | Target::Gfx1030 | Target::Gfx1030W64
        )
    }

    /// Whether the target is compiled with `-mwavefrontsize64` (RDNA in wave64).
    pub fn rdna_wave64(self) -> bool {
        matches!(
            self,
            Target::Gfx1100W64 | Target::Gfx1010W64 | Target::Gfx1030W64
        )
    }

    /// Lanes per wave.
    pub fn wave(self) -> u32 {
        match self {
            Target::Gfx1100
            | Target::Gfx1200
            | Target::Gfx1250
            | Target::Gfx1010
            | Target::Gfx1030 => 32,
            Target::Gfx1100W64
            | Target::Gfx950
            | Target::Gfx908
            | Target::Gfx90a
            | Target::Gfx942
            | Target::Gfx1010W64
            | Target::Gfx1030W64 => 64,
        }
    }

    /// The name used in labels and file names.
    pub fn name(self) -> &'static str {
        match self {
            Target::Gfx1100 => "gfx1100",
            Target::Gfx1100W64 => "gfx1100w64",
            Target::Gfx1200 => "gfx1200",
            Target::Gfx950 => "gfx950",
            Target::Gfx1250 => "gfx1250",
            Target::Gfx908 => "gfx908",
            Target::Gfx90a => "gfx90a",
            Target::Gfx942 => "gfx942",
            Target::Gfx1010 => "gfx1010",
            Target::Gfx1010W64 => "gfx1010w64",
            Target::Gfx1030 => "gfx1030",
            Target::Gfx1030W64 => "gfx1030w64",
        }
    }
}

/// An optimisation level of the suite.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Opt {
    /// `-O0`: everything through the stack, real calls.
    O0,
    /// `-O2`.
    O2,
}

impl Opt {
    /// `O0` or `O2`.
    pub fn name(self) -> &'static str {
        match self {
            Opt::O0 => "O0",
            Opt::O2 => "O2",
        }
    }
}

/// One explicit kernel argument from the metadata.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ArgMeta {
    /// Byte offset in the kernarg segment.
    pub offset: usize,
    /// Size in bytes.
    pub size: usize,
    /// `.value_kind` (`global_buffer`, `by_value`, ...).
    pub kind: String,
}

/// What the suite reads from a kernel's `amdhsa.kernels` metadata entry.
#[derive(Clone, Debug, Default)]
pub struct KernelMeta {
    /// The explicit arguments (hidden ones left out), in declaration order.
    pub args: Vec<ArgMeta>,
    /// Offset of the first hidden argument.
    pub first_hidden: Option<usize>,
    /// `.kernarg_segment_size`.
    pub kernarg_size: usize,
    /// `.group_segment_fixed_size` (LDS bytes).
    pub group_segment: usize,
    /// `.private_segment_fixed_size` (scratch bytes per lane).
    pub private_segment: usize,
    /// `.wavefront_size`.
    pub wavefront_size: u32,
}

/// A compiled code object and its kernels' metadata.
pub struct CodeObject {
    /// Path of the `.hsaco`.
    pub path: PathBuf,
    /// The target it was compiled for.
    pub target: Target,
    /// The optimisation level.
    pub opt: Opt,
    /// Metadata per kernel name.
    pub kernels: BTreeMap<String, KernelMeta>,
}

/// Parses the YAML that `llvm-readelf --notes` prints for `amdhsa.kernels`: kernel entries start
/// with `- ` at indent 2, their keys sit at indent 4, argument entries start with `- .` at indent
/// 6 under `.args:` and their keys sit at indent 8.
pub fn parse_notes(text: &str) -> BTreeMap<String, KernelMeta> {
    let mut kernels = BTreeMap::new();
    let mut current: Option<(Option<String>, KernelMeta)> = None;
    let mut in_args = false;
    let mut in_kernels = false;
    let mut arg: Option<(Option<usize>, Option<usize>, String)> = None;
    let flush_arg = |arg: &mut Option<(Option<usize>, Option<usize>, String)>,
                     meta: &mut KernelMeta| {
        if let Some((offset, size, kind)) = arg.take() {
            let (offset, size) = (offset.expect("arg offset"), size.expect("arg size"));
            if kind.starts_with("hidden_") {
                meta.first_hidden =
                    Some(meta.first_hidden.map_or(offset, |o: usize| o.min(offset)));
            } else {
                meta.args.push(ArgMeta { offset, size, kind });
            }
        }
    };
    for line in text.lines() {
        let trimmed = line.trim_start();
        let mut indent = line.len() - trimmed.len();
        let mut body = trimmed;
        if indent == 0 {
            in_kernels = body.starts_with("amdhsa.kernels:");
            continue;
        }
        if !in_kernels {
            continue;
        }
        if indent == 2 && body.starts_with("- ") {
            if let Some((name, mut meta)) = current.take() {
                flush_arg(&mut arg, &mut meta);
                kernels.insert(name.expect("kernel .name"), meta);
            }
            current = Some((None, KernelMeta::default()));
            in_args = false;
            body = &body[2..];
            indent = 4;
        }
        let Some((name, meta)) = current.as_mut() else {
            continue;
        };
        if indent == 6 && in_args && body.starts_with("- .") {
            flush_arg(&mut arg, meta);
            arg = Some((None, None, String::new()));
            body = &body[2..];
            indent = 8;
        }
        let Some((key, value)) = body.split_once(':') else {
            continue;
        };
        let value = value.trim();
        if indent == 4 {
            flush_arg(&mut arg, meta);
            in_args = key == ".args";
            let num = || value.parse::<usize>().unwrap_or(0);
            match key {
                ".name" => *name = Some(value.to_string()),
                ".kernarg_segment_size" => meta.kernarg_size = num(),
                ".group_segment_fixed_size" => meta.group_segment = num(),
                ".private_segment_fixed_size" => meta.private_segment = num(),
                ".wavefront_size" => meta.wavefront_size = num() as u32,
                _ => {}
            }
        } else if indent == 8 && in_args {
            if let Some(a) = arg.as_mut() {
                match key {
                    ".offset" => a.0 = value.parse().ok(),
                    ".size" => a.1 = value.parse().ok(),
                    ".value_kind" => a.2 = value.to_string(),
                    _ => {}
                }
            }
        }
    }
    if let Some((name, mut meta)) = current.take() {
        flush_arg(&mut arg, &mut meta);
        kernels.insert(name.expect("kernel .name"), meta);
    }
    kernels
}

fn kernels_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/kernels")
}

fn out_dir() -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("kernels");
    std::fs::create_dir_all(&dir).expect("test setup: creating the kernel output directory");
    dir
}

fn run_tool(cmd: &mut Command) -> String {
    let out = cmd
        .output()
        .unwrap_or_else(|e| panic!("test setup: running {cmd:?}: {e}"));
    assert!(
        out.status.success(),
        "{cmd:?} failed:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// Compiles `tests/kernels/{file}` for a target at an optimisation level (with `-DWAVE=32|64`)
/// into the test's temporary directory, links it and reads its metadata. The output is cached
/// by a hash of the source and the command line.
pub fn compile(tools: &Toolchain, file: &str, target: Target, opt: Opt) -> CodeObject {
    let src = kernels_dir().join(file);
    let text = std::fs::read(&src).unwrap_or_else(|e| panic!("reading {}: {e}", src.display()));
    let mut args: Vec<String> = [
        "-x",
        "cl",
        "-cl-std=CL2.0",
        "-target",
        "amdgcn-amd-amdhsa",
        "-nogpulib",
        "-Xclang",
        "-finclude-default-header",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    args.push(format!("-mcpu={}", target.mcpu()));
    if target.rdna_wave64() {
        args.push("-mwavefrontsize64".into());
    }
    args.push(format!("-DWAVE={}", target.wave()));
    args.push(format!("-{}", opt.name()));
    let mut hasher = Sha256::new();
    hasher.update(&text);
    hasher.update(args.join(" ").as_bytes());
    let hash: String = hasher.finalize()[..6]
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    let stem = file.trim_end_matches(".cl");
    let base = format!("{stem}-{}-{}-{hash}", target.name(), opt.name());
    let dir = out_dir();
    let hsaco = dir.join(format!("{base}.hsaco"));
    if !hsaco.exists() {
        let obj = dir.join(format!("{base}.o"));
        run_tool(
            Command::new(&tools.clang)
                .args(&args)
                .arg("-c")
                .arg(&src)
                .arg("-o")
                .arg(&obj),
        );
        let tmp = dir.join(format!("{base}.hsaco.tmp{}", std::process::id()));
        run_tool(
            Command::new(&tools.lld)
                .arg("-shared")
                .arg(&obj)
                .arg("-o")
                .arg(&tmp),
        );
        std::fs::rename(&tmp, &hsaco).expect("renaming the linked code object");
    }
    let notes = run_tool(Command::new(&tools.readelf).arg("--notes").arg(&hsaco));
    let kernels = parse_notes(&notes);
    for (name, meta) in &kernels {
        assert_eq!(
            meta.wavefront_size,
            target.wave(),
            "{name} in {}: wavefront size",
            hsaco.display()
        );
    }
    CodeObject {
        path: hsaco,
        target,
        opt,
        kernels,
    }
}

/// A value that lives in device memory as little-endian bytes.
pub trait Elem: Copy + Debug + PartialEq {
    /// Size in bytes.
    const SIZE: usize;
    /// Appends the bytes.
    fn put(self, out: &mut Vec<u8>);
    /// Reads from the first `SIZE` bytes.
    fn get(bytes: &[u8]) -> Self;
}

macro_rules! elem {
    ($($t:ty),*) => {$(
        impl Elem for $t {
            const SIZE: usize = std::mem::size_of::<$t>();
            fn put(self, out: &mut Vec<u8>) {
                out.extend_from_slice(&self.to_le_bytes());
            }
            fn get(bytes: &[u8]) -> Self {
                <$t>::from_le_bytes(bytes[..Self::SIZE].try_into().unwrap())
            }
        }
    )*};
}
elem!(u8, i8, u16, u32, i32, u64, i64, f32, f64);

/// The bytes of a slice.
pub fn bytes<T: Elem>(values: &[T]) -> Vec<u8> {
    let mut out = Vec::with_capacity(values.len() * T::SIZE);
    for &v in values {
        v.put(&mut out);
    }
    out
}

/// The values in a byte slice.
pub fn values<T: Elem>(bytes: &[u8]) -> Vec<T> {
    bytes.chunks_exact(T::SIZE).map(T::get).collect()
}

/// The address of the suite's buffer number `k` (4 GiB apart, from 0x1_0000_0000).
pub fn buf(k: u64) -> u64 {
    0x1_0000_0000 * (k + 1)
}

/// An explicit kernel argument.
#[derive(Clone, Copy, Debug)]
pub enum Arg {
    /// A pointer (8 bytes).
    Ptr(u64),
    /// `uint`.
    U32(u32),
    /// `int`.
    I32(i32),
    /// `float`.
    F32(f32),
}

impl Arg {
    fn size(self) -> usize {
        match self {
            Arg::Ptr(_) => 8,
            Arg::U32(_) | Arg::I32(_) | Arg::F32(_) => 4,
        }
    }

    fn put(self, out: &mut Vec<u8>) {
        match self {
            Arg::Ptr(v) => v.put(out),
            Arg::U32(v) => v.put(out),
            Arg::I32(v) => v.put(out),
            Arg::F32(v) => v.put(out),
        }
    }
}

/// Lays out explicit arguments in declaration order with natural alignment, and checks the
/// layout against the metadata (count, offsets, sizes, and that the hidden arguments follow).
pub fn kernarg(meta: &KernelMeta, args: &[Arg]) -> Result<Vec<u8>, String> {
    if meta.args.len() != args.len() {
        return Err(format!(
            "{} arguments given, the metadata has {}",
            args.len(),
            meta.args.len()
        ));
    }
    let mut out = Vec::new();
    for (k, (arg, m)) in args.iter().zip(&meta.args).enumerate() {
        let size = arg.size();
        while !out.len().is_multiple_of(size) {
            out.push(0);
        }
        if (out.len(), size) != (m.offset, m.size) {
            return Err(format!(
                "argument {k}: laid out at {} size {size}, the metadata says {} size {} ({})",
                out.len(),
                m.offset,
                m.size,
                m.kind
            ));
        }
        if matches!(arg, Arg::Ptr(_)) != (m.kind == "global_buffer") {
            return Err(format!(
                "argument {k}: pointer-ness differs from {}",
                m.kind
            ));
        }
        arg.put(&mut out);
    }
    if let Some(first_hidden) = meta.first_hidden {
        if first_hidden < out.len() {
            return Err(format!(
                "hidden arguments start at {first_hidden}, inside the explicit ones (end {})",
                out.len()
            ));
        }
    }
    Ok(out)
}

/// One launch of the batch.
#[derive(Clone, Debug)]
pub struct Launch {
    /// The JSON line.
    pub json: String,
}

impl CodeObject {
    /// The launch of `kernel` over `grid` workgroups of `block` work-items, with `memory` mapped.
    pub fn launch(
        &self,
        kernel: &str,
        grid: [u32; 3],
        block: [u32; 3],
        args: &[Arg],
        memory: &[(u64, Vec<u8>)],
    ) -> Launch {
        let meta = self
            .kernels
            .get(kernel)
            .unwrap_or_else(|| panic!("no kernel {kernel} in {}", self.path.display()));
        let kernarg = kernarg(meta, args).unwrap_or_else(|e| {
            panic!(
                "{kernel} ({}): kernarg layout against the metadata: {e}",
                self.path.display()
            )
        });
        let memory: Vec<serde_json::Value> = memory
            .iter()
            .map(|(addr, data)| serde_json::json!({"addr": format!("{addr:#x}"), "hex": hex(data)}))
            .collect();
        let json = serde_json::json!({
            "code_object": self.path.to_str().expect("utf-8 path"),
            "kernel": kernel,
            "grid": grid,
            "block": block,
            "kernarg_hex": hex(&kernarg),
            "memory": memory,
        });
        Launch {
            json: json.to_string(),
        }
    }
}

fn hex(data: &[u8]) -> String {
    let mut s = String::with_capacity(data.len() * 2);
    for b in data {
        let _ = write!(s, "{b:02x}");
    }
    s
}

fn unhex(s: &str) -> Result<Vec<u8>, String> {
    if !s.len().is_multiple_of(2) {
        return Err(format!("odd hex length {}", s.len()));
    }
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).map_err(|e| format!("hex: {e}")))
        .collect()
}

fn parse_num(v: &serde_json::Value) -> Result<u64, String> {
    match v {
        serde_json::Value::Number(n) => n.as_u64().ok_or_else(|| format!("number {n}")),
        serde_json::Value::String(s) => match s.strip_prefix("0x") {
            Some(h) => u64::from_str_radix(h, 16).map_err(|e| format!("{s}: {e}")),
            None => s.parse().map_err(|e| format!("{s}: {e}")),
        },
        other => Err(format!("not a number: {other}")),
    }
}

/// The result of one launch.
#[derive(Clone, Debug, PartialEq)]
pub struct Output {
    /// Memory ranges after the run, by address.
    pub memory: BTreeMap<u64, Vec<u8>>,
    /// Waves run.
    pub waves: u64,
    /// Instructions executed.
    pub instructions: u64,
}

impl Output {
    fn parse(line: &str) -> Result<Output, String> {
        let v: serde_json::Value = serde_json::from_str(line)
            .map_err(|e| format!("output line is not JSON: {e}: {line}"))?;
        if let Some(err) = v.get("error") {
            return Err(format!("dispatch error: {err}"));
        }
        // Under `AMDPCODE_KERNELS_CHECK=1` (see `run_batch`): compiler output must be clean.
        if let Some(f) = v["findings"].as_array().filter(|f| !f.is_empty()) {
            return Err(format!(
                "sanitizer: {} finding(s), first: {}",
                f.len(),
                f[0]
            ));
        }
        let mut memory = BTreeMap::new();
        for range in v["memory"].as_array().ok_or("no memory list")? {
            let addr = parse_num(&range["addr"])?;
            let data = unhex(range["hex"].as_str().ok_or("no hex")?)?;
            memory.insert(addr, data);
        }
        Ok(Output {
            memory,
            waves: parse_num(&v["waves"])?,
            instructions: parse_num(&v["instructions"])?,
        })
    }

    /// `count` values at `addr` (inside one returned range).
    pub fn read<T: Elem>(&self, addr: u64, count: usize) -> Result<Vec<T>, String> {
        let (&base, data) = self
            .memory
            .range(..=addr)
            .next_back()
            .ok_or_else(|| format!("no memory range at {addr:#x}"))?;
        let start = (addr - base) as usize;
        let end = start + count * T::SIZE;
        if end > data.len() {
            return Err(format!(
                "range at {base:#x} has {} bytes, {end} needed from it",
                data.len()
            ));
        }
        Ok(values(&data[start..end]))
    }
}

/// A dispatch engine.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Engine {
    /// `--engine interp`.
    Interp,
    /// `--engine jit`.
    Jit,
}

impl Engine {
    /// The CLI spelling.
    pub fn name(self) -> &'static str {
        match self {
            Engine::Interp => "interp",
            Engine::Jit => "jit",
        }
    }
}

/// Runs launches in one `amdpcode dispatch --batch --json` process; one result per launch.
pub fn run_batch(tag: &str, launches: &[Launch], engine: Engine) -> Vec<Result<Output, String>> {
    let file = out_dir().join(format!("{tag}-{}.jsonl", engine.name()));
    let mut text = String::new();
    for l in launches {
        text.push_str(&l.json);
        text.push('\n');
    }
    std::fs::write(&file, text).expect("writing the batch file");
    // `AMDPCODE_KERNELS_CHECK=1` runs the interpreter's batch under the sanitizer (compiler
    // output has no findings); the JIT's batch runs as usual.
    let check =
        engine == Engine::Interp && std::env::var("AMDPCODE_KERNELS_CHECK").as_deref() == Ok("1");
    let out = Command::new(super::bin())
        .args(["dispatch", "--batch"])
        .arg(&file)
        .args(["--json", "--engine", engine.name()])
        .args(if check { &["--check"][..] } else { &[] })
        .env("NO_COLOR", "1")
        .output()
        .expect("running amdpcode dispatch");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let lines: Vec<&str> = stdout.lines().collect();
    if lines.len() != launches.len() {
        panic!(
            "amdpcode dispatch --batch {} --engine {} (exit {:?}) printed {} lines for {} launches; stderr:\n{}",
            file.display(),
            engine.name(),
            out.status.code(),
            lines.len(),
            launches.len(),
            String::from_utf8_lossy(&out.stderr)
        );
    }
    lines.into_iter().map(Output::parse).collect()
}

/// A check of one launch's output against the reference.
pub type Check = Box<dyn Fn(&Output) -> Result<(), String>>;

/// A launch and its expected result.
pub struct Case {
    /// `kernel target opt`, for messages.
    pub label: String,
    /// The kernel's name.
    pub kernel: String,
    /// The code object's target.
    pub target: Target,
    /// The code object's optimisation level.
    pub opt: Opt,
    /// The launch.
    pub launch: Launch,
    /// The comparison with the Rust reference.
    pub check: Check,
}

impl CodeObject {
    /// The case of launching `kernel` (see [`CodeObject::launch`]) and checking its output.
    pub fn case(
        &self,
        kernel: &str,
        grid: [u32; 3],
        block: [u32; 3],
        args: &[Arg],
        memory: &[(u64, Vec<u8>)],
        check: Check,
    ) -> Case {
        Case::new(
            self,
            kernel,
            self.launch(kernel, grid, block, args, memory),
            check,
        )
    }
}

impl Case {
    /// A case labelled from its code object.
    pub fn new(co: &CodeObject, kernel: &str, launch: Launch, check: Check) -> Case {
        Case {
            label: format!("{kernel} {} {}", co.target.name(), co.opt.name()),
            kernel: kernel.to_string(),
            target: co.target,
            opt: co.opt,
            launch,
            check,
        }
    }
}

fn first_difference(a: &Output, b: &Output) -> String {
    if a.memory.keys().ne(b.memory.keys()) {
        return format!(
            "ranges differ: {:x?} vs {:x?}",
            a.memory.keys().collect::<Vec<_>>(),
            b.memory.keys().collect::<Vec<_>>()
        );
    }
    for ((addr, x), y) in a.memory.iter().zip(b.memory.values()) {
        if x != y {
            let at = x
                .iter()
                .zip(y)
                .position(|(p, q)| p != q)
                .unwrap_or(x.len().min(y.len()));
            return format!(
                "range {addr:#x}: first difference at byte {at} (lengths {} and {})",
                x.len(),
                y.len()
            );
        }
    }
    format!(
        "counts differ: waves {} vs {}, instructions {} vs {}",
        a.waves, b.waves, a.instructions, b.instructions
    )
}

/// Runs every case under both engines (one batch process each), requires identical memory from
/// the two, checks the interpreter's result against the reference, prints one line per case and
/// engine, and panics listing every failure. A failing launch's line stays in
/// `CARGO_TARGET_TMPDIR/kernels/{family}-{engine}.jsonl` (line number = case number + 1).
pub fn run_cases(family: &str, cases: Vec<Case>) {
    let launches: Vec<Launch> = cases.iter().map(|c| c.launch.clone()).collect();
    let interp = run_batch(family, &launches, Engine::Interp);
    let jit = run_batch(family, &launches, Engine::Jit);
    let mut failures = Vec::new();
    for (k, case) in cases.iter().enumerate() {
        let mut verdicts = Vec::new();
        for (engine, result) in [(Engine::Interp, &interp[k]), (Engine::Jit, &jit[k])] {
            let verdict = match result {
                Ok(out) => (case.check)(out),
                Err(e) => Err(e.clone()),
            };
            let mark = if verdict.is_ok() { "pass" } else { "FAIL" };
            eprintln!("{mark} {} {}", case.label, engine.name());
            if let Err(e) = &verdict {
                failures.push(format!(
                    "{} {} (line {}): {e}",
                    case.label,
                    engine.name(),
                    k + 1
                ));
            }
            verdicts.push(verdict);
        }
        if let (Ok(a), Ok(b)) = (&interp[k], &jit[k]) {
            if a != b {
                failures.push(format!(
                    "{} (line {}): interp and jit differ: {}",
                    case.label,
                    k + 1,
                    first_difference(a, b)
                ));
            }
        }
    }
    if !failures.is_empty() {
        panic!(
            "{family}: {} failures (launches in {}):\n{}",
            failures.len(),
            out_dir().join(format!("{family}-*.jsonl")).display(),
            failures.join("\n")
        );
    }
}

/// Exact comparison of two value lists; names the first few mismatches.
pub fn expect_eq<T: Elem>(what: &str, got: &[T], want: &[T]) -> Result<(), String> {
    if got.len() != want.len() {
        return Err(format!(
            "{what}: {} values, expected {}",
            got.len(),
            want.len()
        ));
    }
    let bad: Vec<usize> = (0..got.len()).filter(|&k| !same(got[k], want[k])).collect();
    if bad.is_empty() {
        return Ok(());
    }
    let shown: Vec<String> = bad
        .iter()
        .take(5)
        .map(|&k| format!("[{k}] got {:?} want {:?}", got[k], want[k]))
        .collect();
    Err(format!(
        "{what}: {} of {} differ: {}",
        bad.len(),
        got.len(),
        shown.join(", ")
    ))
}

/// Equality by bytes, so floats compare bit for bit (NaN payloads and the sign of zero count).
fn same<T: Elem>(a: T, b: T) -> bool {
    bytes(&[a]) == bytes(&[b])
}

/// Reads `want.len()` values at `addr` and compares them exactly.
pub fn expect_at<T: Elem>(out: &Output, what: &str, addr: u64, want: &[T]) -> Result<(), String> {
    expect_eq(what, &out.read::<T>(addr, want.len())?, want)
}

/// Distance in units in the last place between two finite f32 values.
pub fn ulps_f32(a: f32, b: f32) -> u64 {
    let key = |x: f32| {
        let bits = x.to_bits() as i64;
        if bits < 0x8000_0000 {
            bits
        } else {
            0x8000_0000 - bits
        }
    };
    (key(a) - key(b)).unsigned_abs()
}

/// Compares f32 values within `ulps` units in the last place (for the hardware's approximate
/// instructions only).
pub fn expect_f32_near(what: &str, got: &[f32], want: &[f32], ulps: u64) -> Result<(), String> {
    let bad: Vec<usize> = (0..want.len())
        .filter(|&k| {
            !(got[k].to_bits() == want[k].to_bits()
                || (got[k].is_finite() && want[k].is_finite() && ulps_f32(got[k], want[k]) <= ulps))
        })
        .collect();
    if bad.is_empty() {
        return Ok(());
    }
    let shown: Vec<String> = bad
        .iter()
        .take(5)
        .map(|&k| format!("[{k}] got {:e} want {:e}", got[k], want[k]))
        .collect();
    Err(format!(
        "{what}: {} of {} beyond {ulps} ulp: {}",
        bad.len(),
        want.len(),
        shown.join(", ")
    ))
}

/// A deterministic generator (SplitMix64) for the inputs.
pub struct Rng(u64);

impl Rng {
    /// A generator from a seed.
    pub fn new(seed: u64) -> Rng {
        Rng(seed)
    }

    /// 64 random bits.
    pub fn u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// 32 random bits.
    pub fn u32(&mut self) -> u32 {
        (self.u64() >> 32) as u32
    }

    /// Uniform in `0..n`.
    pub fn below(&mut self, n: u32) -> u32 {
        ((self.u32() as u64 * n as u64) >> 32) as u32
    }

    /// `n` random words.
    pub fn u32s(&mut self, n: usize) -> Vec<u32> {
        (0..n).map(|_| self.u32()).collect()
    }

    /// `n` random signed words.
    pub fn i32s(&mut self, n: usize) -> Vec<i32> {
        (0..n).map(|_| self.u32() as i32).collect()
    }

    /// A finite nonzero f32 with a random sign, mantissa and binary exponent in `lo..=hi`.
    pub fn f32_exp(&mut self, lo: i32, hi: i32) -> f32 {
        let e = lo + self.below((hi - lo + 1) as u32) as i32;
        let sign = if self.u32() & 1 == 1 { -1.0 } else { 1.0 };
        let m = 1.0 + (self.u32() >> 9) as f64 / (1u64 << 23) as f64;
        (sign * m * 2f64.powi(e)) as f32
    }

    /// A finite nonzero f64 with a random sign, mantissa and binary exponent in `lo..=hi`.
    pub fn f64_exp(&mut self, lo: i32, hi: i32) -> f64 {
        let e = lo + self.below((hi - lo + 1) as u32) as i32;
        let sign = if self.u32() & 1 == 1 { -1.0 } else { 1.0 };
        let m = 1.0 + (self.u64() >> 12) as f64 / (1u64 << 52) as f64;
        sign * m * 2f64.powi(e)
    }
}

/// The value of an IEEE binary16 bit pattern.
pub fn f16_to_f64(h: u16) -> f64 {
    let sign = if h & 0x8000 != 0 { -1.0 } else { 1.0 };
    let exp = ((h >> 10) & 0x1f) as i32;
    let man = (h & 0x3ff) as f64;
    match exp {
        0 => sign * man * 2f64.powi(-24),
        31 if man == 0.0 => sign * f64::INFINITY,
        31 => f64::NAN,
        _ => sign * (1.0 + man / 1024.0) * 2f64.powi(exp - 15),
    }
}

/// The binary16 nearest to `x` (ties to even), with overflow to infinity and subnormals.
pub fn f64_to_f16(x: f64) -> u16 {
    if x.is_nan() {
        return 0x7e00;
    }
    let sign: u16 = if x.is_sign_negative() { 0x8000 } else { 0 };
    let a = x.abs();
    if a >= 65520.0 {
        return sign | 0x7c00;
    }
    if a < 2f64.powi(-14) {
        // Subnormal (or rounds up to the smallest normal: 1024 is exponent 1, mantissa 0).
        return sign | (a * 2f64.powi(24)).round_ties_even() as u16;
    }
    let mut e = a.log2().floor() as i32;
    if 2f64.powi(e) > a {
        e -= 1;
    } else if 2f64.powi(e + 1) <= a {
        e += 1;
    }
    let mut r = (a * 2f64.powi(10 - e)).round_ties_even() as u32;
    if r == 2048 {
        r = 1024;
        e += 1;
    }
    if e + 15 >= 31 {
        return sign | 0x7c00;
    }
    sign | (((e + 15) as u16) << 10) | (r - 1024) as u16
}

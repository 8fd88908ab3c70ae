//! `amdpcode dispatch`: the command behind the CLI subcommand. A single launch builds its
//! whole output before returning (a failure never leaves a partial result on stdout); a
//! batch prints one line per launch as it goes, an error line for a launch that fails.

use std::collections::HashMap;
use std::io::Write;
use std::path::{Path, PathBuf};

use serde_json::{json, Value};

use amdpcode::dispatch::launch::number;
use amdpcode::dispatch::{
    launch_arch, CodeObject, DispatchError, Dispatcher, KernelArg, Launch, Outcome,
};
use amdpcode::sniff::Content;
use amdpcode::spec::{Arch, Spec};
use amdpcode::wave::Engine;

/// The options of `amdpcode dispatch`.
#[derive(Clone, Debug, Default)]
pub struct DispatchOptions {
    /// `interp`, `jit` or `auto` (the JIT, with the interpreter for entries it cannot compile).
    pub engine: String,
    /// Print JSON.
    pub json: bool,
    /// Print every executed instruction.
    pub trace: bool,
    /// A LAUNCH.json file, or a code object with the short form's options.
    pub input: Option<PathBuf>,
    /// A JSON Lines file of launches (`-`: standard input).
    pub batch: Option<PathBuf>,
    /// Short form: the kernel.
    pub kernel: Option<String>,
    /// Short form: workgroups per dimension (`X[,Y,Z]`).
    pub grid: Option<String>,
    /// Short form: work-items per workgroup (`X[,Y,Z]`).
    pub block: Option<String>,
    /// Short form: the kernel arguments in order.
    pub args: Vec<String>,
    /// Short form: the argument indices whose buffers are printed after the run.
    pub print: Vec<usize>,
    /// Run under the sanitizer (`--check`); findings are printed after the result.
    pub check: Option<amdpcode::sanitizer::Options>,
    /// Threads (`--threads`): a launch's workgroups, or a batch's launches, run on up to
    /// this many (0 counts as 1).
    pub threads: usize,
}

/// A failure of the command, with its message (exit 1).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CliError(pub String);

fn err(e: impl std::fmt::Display) -> CliError {
    CliError(format!("error: {e}"))
}

fn engine_of(name: &str) -> Result<Engine, CliError> {
    match name {
        "interp" => Ok(Engine::Interp),
        "jit" | "auto" => Ok(Engine::Jit),
        o => Err(err(format!("unknown engine `{o}` (interp, jit or auto)"))),
    }
}

/// Dispatchers by arch, created on first use (a batch shares them across lines).
struct Pool<'s> {
    spec: &'s Spec,
    engine: Engine,
    /// Threads each dispatcher may run a launch's workgroups on.
    threads: usize,
    by_arch: HashMap<Arch, Dispatcher>,
}

impl Pool<'_> {
    fn get(&mut self, arch: Arch) -> Result<&mut Dispatcher, CliError> {
        if !self.by_arch.contains_key(&arch) {
            let db = self.spec.get(arch).map_err(err)?;
            let mut d = Dispatcher::new(db, self.engine).map_err(err)?;
            d.executor_mut().jit_threshold = amdpcode::wave::cli_jit_threshold();
            d.set_threads(self.threads);
            self.by_arch.insert(arch, d);
        }
        Ok(self
            .by_arch
            .get_mut(&arch)
            .expect("bug: dispatcher just inserted"))
    }
}

/// The `--json` output of a launch as a value: what [`write_outcome_json`] streams.
#[cfg(test)]
fn outcome_json(o: &Outcome) -> Value {
    let range = |(a, b): &(u64, Vec<u8>)| json!({"addr": format!("0x{a:x}"), "hex": to_hex(b)});
    let memory: Vec<Value> = o
        .memory
        .iter()
        .chain(o.written_elsewhere.iter())
        .map(range)
        .collect();
    json!({
        "memory": memory,
        "waves": o.waves,
        "workgroups": o.workgroups,
        "instructions": o.instructions,
    })
}

/// Writes [`outcome_json`] (with `findings` when given) as compact JSON, byte for byte what
/// `serde_json` prints for it (keys in order), without building the value: a launch's input
/// ranges can be tens of MiB, and encoding their hex straight into `out` costs a fraction of
/// building strings, escaping them and copying them again.
///
/// # Errors
/// What writing to `out` returns.
pub fn write_outcome_json(
    o: &Outcome,
    findings: Option<&Value>,
    out: &mut impl std::io::Write,
) -> std::io::Result<()> {
    out.write_all(b"{")?;
    if let Some(f) = findings {
        write!(out, "\"findings\":{f},")?;
    }
    write!(out, "\"instructions\":{},\"memory\":[", o.instructions)?;
    let mut buf = Vec::new();
    for (i, (a, b)) in o
        .memory
        .iter()
        .chain(o.written_elsewhere.iter())
        .enumerate()
    {
        let sep = if i == 0 { "" } else { "," };
        write!(out, "{sep}{{\"addr\":\"0x{a:x}\",\"hex\":\"")?;
        for chunk in b.chunks(1 << 16) {
            buf.clear();
            push_hex(chunk, &mut buf);
            out.write_all(&buf)?;
        }
        out.write_all(b"\"}")?;
    }
    write!(
        out,
        "],\"waves\":{},\"workgroups\":{}}}",
        o.waves, o.workgroups
    )
}

/// Appends the lowercase hex digits of `b` to `out`.
fn push_hex(b: &[u8], out: &mut Vec<u8>) {
    // The two digits of every byte, so a byte costs one table load and one 2-byte store.
    const PAIRS: [[u8; 2]; 256] = {
        const DIGITS: &[u8; 16] = b"0123456789abcdef";
        let mut t = [[0u8; 2]; 256];
        let mut i = 0;
        while i < 256 {
            t[i] = [DIGITS[i >> 4], DIGITS[i & 15]];
            i += 1;
        }
        t
    };
    let start = out.len();
    out.resize(start + 2 * b.len(), 0);
    for (d, &x) in out[start..].chunks_exact_mut(2).zip(b) {
        d.copy_from_slice(&PAIRS[x as usize]);
    }
}

fn to_hex(b: &[u8]) -> String {
    let mut v = Vec::with_capacity(2 * b.len());
    push_hex(b, &mut v);
    // Hex digits are ASCII.
    String::from_utf8(v).unwrap_or_default()
}

/// Runs the command and returns its standard output and the number of sanitizer findings
/// (0 without `check`; a checked batch gives each line a `findings` array instead).
///
/// # Errors
/// [`CliError`] with the message to print (exit 1).
pub fn run_checked(spec: &Spec, opts: &DispatchOptions) -> Result<(String, usize), CliError> {
    let engine = engine_of(&opts.engine)?;
    if let Some(batch) = &opts.batch {
        return run_batch(spec, engine, batch, opts).map(|t| (t, 0));
    }
    let mut pool = Pool {
        spec,
        engine,
        threads: opts.threads.max(1),
        by_arch: HashMap::new(),
    };
    let input = opts
        .input
        .as_ref()
        .ok_or_else(|| err("give a LAUNCH.json, a code object with --kernel, or --batch FILE"))?;
    let what = "a code object or LAUNCH.json";
    let bytes = amdpcode::sniff::read(input, what).map_err(err)?;
    let dir = input.parent().unwrap_or(Path::new(".")).to_path_buf();
    let name = input.display().to_string();
    let short = opts.kernel.is_some() || opts.grid.is_some() || !opts.args.is_empty();
    let (launch, prints) = match amdpcode::sniff::content(&bytes) {
        Content::Elf => short_form(&bytes, input, opts)?,
        Content::Json if short => {
            return Err(err(format!(
                "{name}: JSON text, not a code object: --kernel/--grid/--block/--arg go with \
                 a code object (a LAUNCH.json names its own kernel)"
            )))
        }
        Content::Json => {
            let text =
                amdpcode::sniff::text_of(bytes, &name, "a LAUNCH.json", false).map_err(err)?;
            let l = Launch::from_json(&text, &dir).map_err(|e| {
                let mut lines = text.lines().filter(|l| !l.trim().is_empty());
                let objects = lines.clone().count();
                let hint = if objects > 1 && lines.all(|l| l.trim_start().starts_with('{')) {
                    format!(
                        " (one launch per line: a JSON Lines batch? run it with --batch {name})"
                    )
                } else {
                    String::new()
                };
                err(format!("{name}: {e}{hint}"))
            })?;
            (l, Vec::new())
        }
        _ if short => {
            return Err(err(amdpcode::sniff::not_a(
                &name,
                "an ELF code object",
                &bytes,
            )))
        }
        _ => {
            return Err(err(amdpcode::sniff::not_a(
                &name,
                "an ELF code object or a LAUNCH.json",
                &bytes,
            )))
        }
    };
    let arch = launch_arch(&launch).map_err(|e| err(format!("{}: {e}", input.display())))?;
    let d = pool.get(arch)?;
    let mut trace_text = String::new();
    let isa = d.executor().isa().clone();
    let mut checker = opts
        .check
        .map(|o| amdpcode::sanitizer::Sanitizer::new(spec.db(arch), &isa, o));
    let outcome = if let Some(san) = checker.as_mut() {
        let initial = amdpcode::sanitizer::Initial::launch(d, &launch)
            .map_err(|e| err(format!("{}: {e}", input.display())))?;
        san.set_initial(initial);
        let trace = opts.trace;
        // The sanitizer reads only the state after each step: no clone per step.
        d.executor_mut().trace_after_only = !trace;
        let mut t = |wg: [u32; 3],
                     wave: u32,
                     dec: &amdpcode::wave::Decoded,
                     a: &amdpcode::wave::WaveState,
                     b: &amdpcode::wave::WaveState| {
            if trace {
                trace_text.push_str(&format!("wg({},{},{}) w{wave} ", wg[0], wg[1], wg[2]));
                trace_text.push_str(&super::run::trace_line(&isa, dec, a, b));
            }
            san.observe(wg, wave, dec, a, b);
        };
        let r = d.run_traced(&launch, Some(&mut t));
        d.executor_mut().trace_after_only = false;
        r
    } else if opts.trace {
        let mut t = |wg: [u32; 3],
                     wave: u32,
                     dec: &amdpcode::wave::Decoded,
                     a: &amdpcode::wave::WaveState,
                     b: &amdpcode::wave::WaveState| {
            trace_text.push_str(&format!("wg({},{},{}) w{wave} ", wg[0], wg[1], wg[2]));
            trace_text.push_str(&super::run::trace_line(&isa, dec, a, b));
        };
        d.run_traced(&launch, Some(&mut t))
    } else {
        d.run(&launch)
    }
    // With --trace, a failing launch shows the instructions that led to the fault (on
    // standard error with the message; standard output stays empty).
    .map_err(|e| CliError(format!("{trace_text}error: {}: {e}", input.display())))?;
    let mut out = trace_text;
    let findings = checker.map(|c| c.findings().to_vec()).unwrap_or_default();
    if opts.json {
        let f = opts
            .check
            .map(|_| amdpcode::sanitizer::findings_json(&findings));
        let mut bytes = std::mem::take(&mut out).into_bytes();
        // Writing to a vector cannot fail.
        let _ = write_outcome_json(&outcome, f.as_ref(), &mut bytes);
        bytes.push(b'\n');
        out = String::from_utf8(bytes).unwrap_or_default();
    } else {
        out.push_str(&format!(
            "ran {} workgroup(s), {} wave(s), {} instruction(s)\n",
            outcome.workgroups, outcome.waves, outcome.instructions
        ));
        for p in &prints {
            out.push_str(&p.render(&outcome));
        }
        if prints.is_empty() {
            for (a, b) in outcome
                .memory
                .iter()
                .chain(outcome.written_elsewhere.iter())
            {
                let shown = &b[..b.len().min(64)];
                let more = if b.len() > 64 { " ..." } else { "" };
                out.push_str(&format!(
                    "0x{a:x} ({} bytes): {}{more}\n",
                    b.len(),
                    to_hex(shown)
                ));
            }
        }
        if opts.check.is_some() {
            out.push_str(&super::common::findings_text(&findings));
        }
    }
    Ok((out, findings.len()))
}

/// Runs a batch: one launch per line, each line's output written in line order as soon as it
/// and every line before it are done. With more than one thread each thread, with its own
/// dispatchers, takes the next line no thread has taken yet whenever it is free (so a long
/// launch does not hold up the lines dealt to the same thread); launches of a batch are
/// independent (each has its own memory), so every line's output is what one thread gives.
fn run_batch(
    spec: &Spec,
    engine: Engine,
    path: &Path,
    opts: &DispatchOptions,
) -> Result<String, CliError> {
    let what = "a JSON Lines batch of launches";
    let (bytes, name) = if path == Path::new("-") {
        let mut b = Vec::new();
        std::io::Read::read_to_end(&mut std::io::stdin(), &mut b)
            .map_err(|e| err(format!("reading standard input: {e}")))?;
        (b, "standard input".to_string())
    } else {
        (
            amdpcode::sniff::read(path, what).map_err(err)?,
            path.display().to_string(),
        )
    };
    // An empty stream is a batch of no launches; an empty file is a mistake.
    let stdin = path == Path::new("-");
    let elf = amdpcode::sniff::content(&bytes) == Content::Elf;
    let text = amdpcode::sniff::text_of(bytes, &name, what, stdin).map_err(|e| {
        let hint = if elf {
            " (a code object runs as `amdpcode dispatch FILE --kernel NAME ...`)"
        } else {
            ""
        };
        err(format!("{e}{hint}"))
    })?;
    // The first launch shows whether this is a batch at all (later bad lines are reported
    // line by line).
    if let Some((i, line)) = text.lines().enumerate().find(|(_, l)| !l.trim().is_empty()) {
        if !line.trim_start().starts_with('{') {
            return Err(err(format!(
                "{name}: not {what}: line {} is not a JSON object ({})",
                i + 1,
                amdpcode::sniff::start(line.as_bytes())
            )));
        }
    }
    let dir = path.parent().unwrap_or(Path::new(".")).to_path_buf();
    // A launch's zero-filled ranges (`"size"`) are allocated zeroed and mostly never
    // touched. glibc serves large blocks from fresh mappings (zero pages the kernel fills
    // when first touched) only up to a threshold it raises after each free; fixed, every
    // such block is a fresh mapping, instead of a reused heap block zeroed byte by byte.
    #[cfg(all(target_os = "linux", target_arch = "x86_64", target_env = "gnu"))]
    // SAFETY: mallopt only changes the allocator's tuning; no memory is touched.
    unsafe {
        libc::mallopt(libc::M_MMAP_THRESHOLD, 1 << 20);
    }
    let lines: Vec<(usize, &str)> = text
        .lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
        .collect();
    let threads = opts.threads.max(1).min(lines.len().max(1));
    let stdout = std::io::stdout();
    // Lines go out whole, as each launch ends (a reader can follow the batch).
    let mut out = std::io::BufWriter::with_capacity(1 << 20, stdout.lock());
    let pool = |threads| Pool {
        spec,
        engine,
        threads,
        by_arch: HashMap::new(),
    };
    if threads == 1 {
        let mut pool = pool(opts.threads.max(1));
        for &(i, line) in &lines {
            let bytes = batch_line(&mut pool, i, line, &dir, opts);
            // A closed pipe ends the batch quietly.
            if out.write_all(&bytes).and_then(|()| out.flush()).is_err() {
                break;
            }
        }
        return Ok(String::new());
    }
    // One slot per line, filled by the thread that runs it; the writer takes them in order.
    let slots: Vec<std::sync::Mutex<Option<Vec<u8>>>> =
        lines.iter().map(|_| std::sync::Mutex::new(None)).collect();
    let filled = std::sync::Condvar::new();
    let stop = std::sync::atomic::AtomicBool::new(false);
    let next = std::sync::atomic::AtomicUsize::new(0);
    std::thread::scope(|s| {
        for _ in 0..threads {
            let (lines, slots, filled, stop, next, dir) =
                (&lines, &slots, &filled, &stop, &next, &dir);
            s.spawn(move || {
                // Each thread runs whole launches: their workgroups stay on it.
                let mut pool = pool(1);
                loop {
                    let k = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                    if k >= lines.len() || stop.load(std::sync::atomic::Ordering::Relaxed) {
                        return;
                    }
                    let (i, line) = lines[k];
                    let bytes = batch_line(&mut pool, i, line, dir, opts);
                    *slots[k].lock().unwrap_or_else(|e| e.into_inner()) = Some(bytes);
                    filled.notify_all();
                }
            });
        }
        for slot in &slots {
            let mut guard = slot.lock().unwrap_or_else(|e| e.into_inner());
            while guard.is_none() {
                guard = filled.wait(guard).unwrap_or_else(|e| e.into_inner());
            }
            let bytes = guard.take().unwrap_or_default();
            drop(guard);
            if out.write_all(&bytes).and_then(|()| out.flush()).is_err() {
                stop.store(true, std::sync::atomic::Ordering::Relaxed);
                break;
            }
        }
    });
    Ok(String::new())
}

/// The output of line `i` (0-based) of a batch: the launch's result or its error, one line.
fn batch_line(
    pool: &mut Pool<'_>,
    i: usize,
    line: &str,
    dir: &Path,
    opts: &DispatchOptions,
) -> Vec<u8> {
    let spec = pool.spec;
    let mut findings = None;
    let result = Launch::from_json(line, dir).and_then(|l| {
        let arch = launch_arch(&l)?;
        let d = pool.get(arch).map_err(|e| DispatchError::Launch(e.0))?;
        let Some(o) = opts.check else {
            // The launch is not needed afterwards: its buffers become the memory.
            return d.run_owned(l);
        };
        // Checked: one sanitizer per launch; its findings join the line.
        let isa = d.executor().isa().clone();
        let mut san = amdpcode::sanitizer::Sanitizer::new(spec.db(arch), &isa, o);
        san.set_initial(amdpcode::sanitizer::Initial::launch(d, &l)?);
        d.executor_mut().trace_after_only = true;
        let mut t =
            |wg: [u32; 3],
             wave: u32,
             dec: &amdpcode::wave::Decoded,
             a: &amdpcode::wave::WaveState,
             b: &amdpcode::wave::WaveState| san.observe(wg, wave, dec, a, b);
        let r = d.run_traced(&l, Some(&mut t));
        d.executor_mut().trace_after_only = false;
        findings = Some(amdpcode::sanitizer::findings_json(san.findings()));
        r
    });
    let mut out = Vec::new();
    match result {
        Ok(o) if opts.json => {
            // Writing to a vector cannot fail.
            let _ = write_outcome_json(&o, findings.as_ref(), &mut out);
        }
        r => {
            let mut v = match r {
                Ok(o) => json!({"waves": o.waves, "instructions": o.instructions}),
                Err(e) => json!({"error": format!("line {}: {e}", i + 1)}),
            };
            if let (Some(f), Some(obj)) = (findings, v.as_object_mut()) {
                obj.insert("findings".into(), f);
            }
            out.extend_from_slice(v.to_string().as_bytes());
        }
    }
    out.push(b'\n');
    out
}

/// A buffer to print after a short-form run.
struct Print {
    index: usize,
    addr: u64,
    ty: ElemType,
}

impl Print {
    fn render(&self, o: &Outcome) -> String {
        let Some((_, bytes)) = o.memory.iter().find(|(a, _)| *a == self.addr) else {
            return String::new();
        };
        let vals: Vec<String> = bytes
            .chunks(self.ty.size())
            .filter(|c| c.len() == self.ty.size())
            .map(|c| self.ty.show(c))
            .collect();
        format!("arg {}: [{}]\n", self.index, vals.join(", "))
    }
}

#[derive(Clone, Copy)]
enum ElemType {
    U8,
    I8,
    U16,
    I16,
    U32,
    I32,
    U64,
    I64,
    F16,
    F32,
    F64,
}

impl ElemType {
    fn parse(s: &str) -> Option<ElemType> {
        Some(match s {
            "u8" => ElemType::U8,
            "i8" => ElemType::I8,
            "u16" => ElemType::U16,
            "i16" => ElemType::I16,
            "u32" => ElemType::U32,
            "i32" => ElemType::I32,
            "u64" => ElemType::U64,
            "i64" => ElemType::I64,
            "f16" => ElemType::F16,
            "f32" => ElemType::F32,
            "f64" => ElemType::F64,
            _ => return None,
        })
    }
    fn size(self) -> usize {
        match self {
            ElemType::U8 | ElemType::I8 => 1,
            ElemType::U16 | ElemType::I16 | ElemType::F16 => 2,
            ElemType::U32 | ElemType::I32 | ElemType::F32 => 4,
            _ => 8,
        }
    }
    fn encode(self, text: &str) -> Option<Vec<u8>> {
        let t = text.trim();
        let int = || -> Option<i128> {
            match t.strip_prefix("0x") {
                Some(h) => i128::from_str_radix(h, 16).ok(),
                None => t.parse().ok(),
            }
        };
        Some(match self {
            ElemType::F32 => t.parse::<f32>().ok()?.to_le_bytes().to_vec(),
            ElemType::F64 => t.parse::<f64>().ok()?.to_le_bytes().to_vec(),
            ElemType::F16 => {
                let f = t.parse::<f64>().ok()?;
                let mut flags = amdpcode::float::Flags::default();
                let h = amdpcode::float::from_f64(
                    amdpcode::float::F16,
                    f,
                    amdpcode::float::Round::NearestEven,
                    &mut flags,
                );
                (h as u16).to_le_bytes().to_vec()
            }
            _ => {
                let v = int()?;
                let n = self.size();
                let (lo, hi) = match self {
                    ElemType::I8 | ElemType::I16 | ElemType::I32 | ElemType::I64 => {
                        (-(1i128 << (8 * n - 1)), (1i128 << (8 * n - 1)) - 1)
                    }
                    _ => (0, (1i128 << (8 * n)) - 1),
                };
                if v < lo || v > hi {
                    return None;
                }
                (v as u64).to_le_bytes()[..n].to_vec()
            }
        })
    }
    fn show(self, b: &[u8]) -> String {
        let mut w = [0u8; 8];
        w[..b.len()].copy_from_slice(b);
        let u = u64::from_le_bytes(w);
        match self {
            ElemType::U8 | ElemType::U16 | ElemType::U32 | ElemType::U64 => u.to_string(),
            ElemType::I8 => (u as i8).to_string(),
            ElemType::I16 => (u as i16).to_string(),
            ElemType::I32 => (u as i32).to_string(),
            ElemType::I64 => (u as i64).to_string(),
            ElemType::F16 => format!(
                "{}",
                amdpcode::float::to_f64_exact(amdpcode::float::F16, u & 0xffff)
            ),
            ElemType::F32 => format!("{}", f32::from_bits(u as u32)),
            ElemType::F64 => format!("{}", f64::from_bits(u)),
        }
    }
}

/// Where the short form places argument `i`'s buffer.
fn buffer_addr(i: usize) -> u64 {
    (i as u64 + 1) << 32
}

/// Builds a launch from `K.hsaco --kernel NAME --grid X[,Y,Z] --block X[,Y,Z] --arg ...`.
///
/// Arguments, in the kernel's order: a scalar `TYPE=VALUE` (`u32=5`, `f32=1.5`), or a buffer
/// `buf=TYPExN:FILL` with FILL `zero`, `rand` (seeded), `iota`, or comma-separated values,
/// or `buf=file:PATH` (its bytes). Buffers are mapped at (index + 1) << 32.
fn short_form(
    bytes: &[u8],
    path: &Path,
    opts: &DispatchOptions,
) -> Result<(Launch, Vec<Print>), CliError> {
    let co = CodeObject::parse(bytes).map_err(|e| err(format!("{}: {e}", path.display())))?;
    let kname = opts
        .kernel
        .as_ref()
        .ok_or_else(|| err("--kernel NAME is required with a code object"))?;
    let k = co
        .kernel(kname)
        .map_err(|e| err(format!("{}: {e}", path.display())))?;
    let dims = |flag: &str, v: &Option<String>| -> Result<Value, CliError> {
        let v = v
            .as_ref()
            .ok_or_else(|| err(format!("{flag} X[,Y,Z] is required")))?;
        let mut out = Vec::new();
        for part in v.split(',') {
            let n = number(flag, &Value::String(part.into())).map_err(err)?;
            out.push(Value::from(n));
        }
        Ok(Value::Array(out))
    };
    let explicit: Vec<&KernelArg> = k
        .args
        .iter()
        .filter(|a| !a.kind.starts_with("hidden_"))
        .collect();
    if opts.args.len() != explicit.len() {
        return Err(err(format!(
            "kernel {kname} takes {} argument(s), {} --arg given",
            explicit.len(),
            opts.args.len()
        )));
    }
    let mut kernarg = vec![
        0u8;
        explicit
            .iter()
            .map(|a| (a.offset + a.size) as usize)
            .max()
            .unwrap_or(0)
    ];
    let mut memory = Vec::new();
    let mut prints = Vec::new();
    let mut seed = 0x2545_f491_4f6c_dd1du64;
    for (i, (text, a)) in opts.args.iter().zip(&explicit).enumerate() {
        let bad = |m: String| err(format!("--arg {} (`{text}`): {m}", i));
        let (kind, value) = text
            .split_once('=')
            .ok_or_else(|| bad("expected TYPE=VALUE or buf=...".into()))?;
        let field: Vec<u8> = if kind == "buf" {
            let addr = buffer_addr(i);
            let (data, ty) = if let Some(file) = value.strip_prefix("file:") {
                (
                    std::fs::read(file).map_err(|e| bad(format!("cannot read {file}: {e}")))?,
                    ElemType::U8,
                )
            } else {
                let (shape, fill) = value
                    .split_once(':')
                    .ok_or_else(|| bad("expected TYPExN:FILL".into()))?;
                let (ty, n) = shape
                    .split_once('x')
                    .ok_or_else(|| bad("expected TYPExN".into()))?;
                let ty = ElemType::parse(ty).ok_or_else(|| bad(format!("unknown type `{ty}`")))?;
                let n: usize = n
                    .parse()
                    .map_err(|_| bad(format!("`{n}` is not a count")))?;
                if n * ty.size() > 1 << 30 {
                    return Err(bad("buffer over 1 GiB".into()));
                }
                let data = match fill {
                    "zero" => vec![0u8; n * ty.size()],
                    "rand" => (0..n * ty.size())
                        .map(|_| {
                            seed ^= seed << 13;
                            seed ^= seed >> 7;
                            seed ^= seed << 17;
                            (seed >> 24) as u8
                        })
                        .collect(),
                    "iota" => (0..n)
                        .flat_map(|j| {
                            ty.encode(&j.to_string())
                                .unwrap_or_else(|| vec![0; ty.size()])
                        })
                        .collect(),
                    list => {
                        let vals: Vec<&str> = list.split(',').collect();
                        if vals.len() != n {
                            return Err(bad(format!("{} values for {n} elements", vals.len())));
                        }
                        let mut d = Vec::new();
                        for v in vals {
                            d.extend(
                                ty.encode(v)
                                    .ok_or_else(|| bad(format!("`{v}` is not a {shape} value")))?,
                            );
                        }
                        d
                    }
                };
                (data, ty)
            };
            memory.push(json!({"addr": format!("0x{addr:x}"), "hex": to_hex(&data)}));
            if opts.print.contains(&i) {
                prints.push(Print { index: i, addr, ty });
            }
            addr.to_le_bytes().to_vec()
        } else {
            let ty = ElemType::parse(kind).ok_or_else(|| bad(format!("unknown type `{kind}`")))?;
            ty.encode(value)
                .ok_or_else(|| bad(format!("`{value}` is not a {kind} value")))?
        };
        if field.len() as u32 != a.size {
            return Err(bad(format!(
                "the kernel's argument {i} is {} bytes ({}), this value {}",
                a.size,
                a.kind,
                field.len()
            )));
        }
        let at = a.offset as usize;
        kernarg[at..at + field.len()].copy_from_slice(&field);
    }
    for &p in &opts.print {
        if !prints.iter().any(|x| x.index == p) {
            return Err(err(format!("--print {p}: argument {p} is not a buffer")));
        }
    }
    let launch = json!({
        "code_object": path.display().to_string(),
        "kernel": kname,
        "grid": dims("--grid", &opts.grid)?,
        "block": dims("--block", &opts.block)?,
        "kernarg_hex": to_hex(&kernarg),
        "memory": memory,
    });
    let l = Launch::from_value(&launch, Path::new(".")).map_err(err)?;
    Ok((l, prints))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn streamed_json_is_what_serde_prints() {
        let o = Outcome {
            memory: vec![(0x1000, (0..=255).collect()), (0x7f68_6240_000e, vec![])],
            written_elsewhere: vec![(0xffff_ffff_ffff_fff0, vec![0xab, 0x0f])],
            waves: 3,
            workgroups: 2,
            instructions: 1234,
            lane_ops: 99,
        };
        let findings = json!([{"kind": "race", "note": "a \"quoted\" word"}]);
        for f in [None, Some(&findings)] {
            let mut v = outcome_json(&o);
            if let Some(f) = f {
                v["findings"] = f.clone();
            }
            let mut out = Vec::new();
            write_outcome_json(&o, f, &mut out).unwrap();
            assert_eq!(String::from_utf8(out).unwrap(), v.to_string());
        }
        assert_eq!(to_hex(&[0x00, 0x9a, 0xff]), "009aff");
    }
}

//! `amdpcode eval` (one instruction, pseudocode text, or a JSON Lines batch of cases) and
//! `amdpcode check-text`.

use std::io::Write;
use std::path::PathBuf;

use clap::Args;
use serde_json::json;

use amdpcode::ir::OperandWidths;
use amdpcode::spec::{Arch, Spec};
use amdpcode::{exec, frontend, inputs, jit};

use super::common::{find_inst, lookup, parse_arch, print_out, render_front_error, Failure, Wheel};

#[derive(Args)]
pub struct Eval {
    /// rdna1 .. rdna4, cdna1 .. cdna5 (cdna = cdna4) or a processor name (required with an instruction name).
    #[arg(long)]
    arch: Option<String>,
    /// The instruction, e.g. S_WQM_B64.
    inst: Option<String>,
    /// Run pseudocode from this file instead of an instruction (operands 32-bit unless typed).
    #[arg(long, conflicts_with_all = ["inst", "batch"])]
    text: Option<PathBuf>,
    /// With --text: run the text once per active lane, like a vector instruction.
    #[arg(long, requires = "text")]
    vector: bool,
    /// Run the JSON Lines cases of this file ('-' for standard input).
    #[arg(long, conflicts_with = "inst")]
    batch: Option<PathBuf>,
    /// Inputs, e.g. S0=0x1f,S1=-1,SCC=1,EXEC=0xff or S0=[1,2,3] per lane; repeatable.
    #[arg(long = "set")]
    set: Vec<String>,
    /// Wave size.
    #[arg(long, default_value_t = 32, value_parser = clap::value_parser!(u32).range(32..=64))]
    wave: u32,
    /// Print JSON.
    #[arg(long)]
    json: bool,
    /// The execution engine: the interpreter, the Cranelift JIT, or the JIT with a
    /// fallback to the interpreter for entries it cannot compile.
    #[arg(long, default_value = "interp", value_parser = ["interp", "jit", "auto"])]
    engine: String,
}

#[derive(Args)]
pub struct CheckText {
    /// The file.
    file: PathBuf,
}

pub fn run(c: Eval, wheel: &Wheel) -> Result<(), Failure> {
    let Eval {
        arch,
        inst,
        text,
        vector,
        batch,
        set,
        wave,
        json,
        engine,
    } = c;
    let mut values = Vec::new();
    for s in &set {
        values.extend(
            inputs::parse_assignments(s).map_err(|e| Failure(format!("error: --set: {e}")))?,
        );
    }
    if let Some(batch) = batch {
        let spec = wheel.load()?;
        return eval_batch(spec, &batch, &engine);
    }
    let prepared = match (&text, &inst) {
        (Some(file), _) => {
            let src = amdpcode::sniff::read_text(file, "pseudocode text", false)
                .map_err(|e| Failure(format!("error: {e}")))?;
            let origin = file.display().to_string();
            let c = frontend::compile_text(&origin, "TEXT", &src, &OperandWidths::uniform(32))
                .map_err(render_front_error)?;
            let enc = if vector { "VOP3" } else { "SOP2" };
            (exec::Prepared::new(None, enc, c.function, None), src)
        }
        (None, Some(name)) => {
            let arch =
                parse_arch(arch.as_deref().ok_or_else(|| {
                    Failure("error: --arch is required with an instruction".into())
                })?)?;
            let spec = wheel.load()?;
            let inst = find_inst(spec, arch, name)?;
            let p = exec::prepare(arch, inst).map_err(render_front_error)?;
            let text = frontend::entry_text(arch, inst)
                .map(|t| t.0)
                .unwrap_or_default();
            (p, text)
        }
        (None, None) => {
            return Err(Failure(
                "error: name an instruction (with --arch), or give --text FILE or --batch FILE"
                    .into(),
            ))
        }
    };
    let (p, src) = prepared;
    if wave != 32 && wave != 64 {
        return Err(Failure(format!(
            "error: --wave must be 32 or 64, not {wave}"
        )));
    }
    let mut m = exec::Machine::new(wave);
    for (name, v) in values {
        m.values.insert(name, v);
    }
    let jit = jit::Jit::new().map_err(|e| Failure(format!("error: {e}")))?;
    let out = run_engine(&engine, &jit, &p, &mut m)
        .map_err(|e| Failure(format!("error: {}", e.describe(&p, &src))))?;
    if json {
        let v = json!({ "outputs": inputs::outputs_json(&out.values) });
        print_out(&format!("{v}\n"))
    } else {
        let mut text = String::new();
        for (name, v) in &out.values {
            text.push_str(&format!("{name} = {}\n", inputs::hex(v)));
        }
        print_out(&text)
    }
}

pub fn check_text(c: CheckText) -> Result<(), Failure> {
    let file = c.file.as_path();
    let text = amdpcode::sniff::read_text(file, "pseudocode text", false)
        .map_err(|e| Failure(format!("error: {e}")))?;
    let origin = file.display().to_string();
    let c = frontend::compile_text(&origin, "TEXT", &text, &OperandWidths::uniform(32))
        .map_err(render_front_error)?;
    let stmts = c.function.body.len();
    println!(
        "ok: {origin}: {stmts} statement(s), {} register(s), {} local(s)",
        c.function.regs.len(),
        c.function.locals.len()
    );
    Ok(())
}

/// Runs JSON Lines cases; a bad case yields an `error` line and never stops the batch.
fn eval_batch(spec: &Spec, path: &PathBuf, engine: &str) -> Result<(), Failure> {
    use std::collections::HashMap;
    use std::io::BufRead;
    let reader: Box<dyn BufRead> = if path.as_os_str() == "-" {
        Box::new(std::io::stdin().lock())
    } else {
        let what = "a JSON Lines batch of cases";
        if path.is_dir() {
            return Err(Failure(format!(
                "error: {}: a directory, not {what}",
                path.display()
            )));
        }
        let mut f = std::fs::File::open(path)
            .map_err(|e| Failure(format!("error: cannot read {}: {e}", path.display())))?;
        // The first bytes say whether this is text at all (a case per line follows).
        let mut head = Vec::new();
        std::io::Read::read_to_end(&mut std::io::Read::take(&mut f, 256), &mut head)
            .map_err(|e| Failure(format!("error: cannot read {}: {e}", path.display())))?;
        // A UTF-8 sequence cut at the end of the head is still text.
        let sniffed = match std::str::from_utf8(&head) {
            Err(e) if e.error_len().is_none() => &head[..e.valid_up_to()],
            _ => &head[..],
        };
        let whole = head.len() < 256;
        let kind = amdpcode::sniff::content(sniffed);
        if matches!(
            kind,
            amdpcode::sniff::Content::Elf | amdpcode::sniff::Content::Binary
        ) || (whole && kind == amdpcode::sniff::Content::Empty)
        {
            let name = path.display().to_string();
            return Err(Failure(format!(
                "error: {}",
                amdpcode::sniff::not_a(&name, what, &head)
            )));
        }
        Box::new(std::io::BufReader::new(std::io::Read::chain(
            std::io::Cursor::new(head),
            f,
        )))
    };
    let mut cache: Cache = HashMap::new();
    let jit = jit::Jit::new().map_err(|e| Failure(format!("error: {e}")))?;
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    for (n, line) in reader.lines().enumerate() {
        let line = line.map_err(|e| Failure(format!("error: reading {}: {e}", path.display())))?;
        if line.trim().is_empty() {
            continue;
        }
        let result = eval_case(spec, &line, &mut cache, &jit, engine)
            .map_err(|e| format!("line {}: {e}", n + 1));
        let v = match result {
            Ok(values) => json!({ "outputs": inputs::outputs_json(&values) }),
            Err(e) => json!({ "error": e }),
        };
        if writeln!(out, "{v}").is_err() {
            return Ok(());
        }
    }
    let _ = out.flush();
    Ok(())
}

type Cache = std::collections::HashMap<(Arch, String), Result<Entry, String>>;

/// A batch cache entry: the prepared instruction, its text, and its kernel once compiled.
struct Entry {
    prepared: exec::Prepared,
    text: String,
    kernel: Option<Result<jit::Kernel, String>>,
}

/// Why running an instruction failed.
enum RunError {
    Exec(amdpcode::interp::ExecError),
    Jit(String),
}

impl RunError {
    fn describe(&self, p: &exec::Prepared, text: &str) -> String {
        match self {
            RunError::Exec(e) => exec::describe_error(p, text, e),
            RunError::Jit(m) => format!("{}: {m}", p.name),
        }
    }
}

fn run_engine(
    engine: &str,
    jit: &jit::Jit,
    p: &exec::Prepared,
    m: &mut exec::Machine,
) -> Result<exec::Outputs, RunError> {
    if engine == "interp" {
        return exec::run_interp(p, m).map_err(RunError::Exec);
    }
    match jit.compile(p) {
        Ok(k) => k.run(m).map_err(RunError::Exec),
        Err(e) if engine == "auto" => {
            let _ = e;
            exec::run_interp(p, m).map_err(RunError::Exec)
        }
        Err(e) => Err(RunError::Jit(e.to_string())),
    }
}

fn eval_case(
    spec: &Spec,
    line: &str,
    cache: &mut Cache,
    jit: &jit::Jit,
    engine: &str,
) -> Result<Vec<(String, amdpcode::interp::RegValue)>, String> {
    let case: serde_json::Value =
        serde_json::from_str(line).map_err(|e| format!("not JSON: {e}"))?;
    let arch_name = case["arch"].as_str().ok_or("missing \"arch\"")?;
    let arch = Arch::from_name(arch_name).ok_or_else(|| format!("unknown arch `{arch_name}`"))?;
    let inst_name = case["inst"].as_str().ok_or("missing \"inst\"")?;
    let wave = match &case["wave"] {
        serde_json::Value::Null => 32,
        v => match v.as_u64() {
            Some(32) => 32,
            Some(64) => 64,
            _ => return Err(format!("\"wave\" must be 32 or 64, not {v}")),
        },
    };
    spec.get(arch).map_err(|e| e.to_string())?;
    let key = (arch, inst_name.to_ascii_uppercase());
    let entry = cache.entry(key).or_insert_with(|| {
        let inst = lookup(spec, arch, inst_name)
            .ok_or_else(|| format!("unknown instruction `{inst_name}` for {arch}"))?;
        let text = frontend::entry_text(arch, inst)
            .map(|t| t.0)
            .unwrap_or_default();
        exec::prepare(arch, inst)
            .map(|p| Entry {
                prepared: p,
                text,
                kernel: None,
            })
            .map_err(|e| e.diagnostic.summary())
    });
    let entry = entry.as_mut().map_err(|e| e.clone())?;
    let mut m = exec::Machine::new(wave);
    if let Some(set) = case["set"].as_object() {
        for (name, v) in set {
            let v = inputs::json_value(v).map_err(|e| format!("set {name}: {e}"))?;
            m.values.insert(name.clone(), v);
        }
    }
    let p = &entry.prepared;
    let text = &entry.text;
    let out = if engine == "interp" {
        exec::run_interp(p, &mut m).map_err(|e| exec::describe_error(p, text, &e))?
    } else {
        let kernel = entry
            .kernel
            .get_or_insert_with(|| jit.compile(p).map_err(|e| e.to_string()));
        match kernel {
            Ok(k) => k
                .run(&mut m)
                .map_err(|e| exec::describe_error(p, text, &e))?,
            Err(_) if engine == "auto" => {
                exec::run_interp(p, &mut m).map_err(|e| exec::describe_error(p, text, &e))?
            }
            Err(e) => return Err(format!("{}: {e}", p.name)),
        }
    };
    Ok(out.values)
}

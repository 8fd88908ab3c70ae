//! The Python extension module `amdpcode._amdpcode`: an `Engine` per arch that evaluates one
//! instruction's pseudocode, runs a wave program and dispatches kernels on host memory
//! (NumPy arrays and other buffers, by address). The Python package (`amdpcode/`) wraps it
//! with `eval`, `run`, `dispatch` and the tinygrad plugin.
//!
//! This module owns the binding only: every failure becomes a Python exception carrying the
//! library's message (`amdpcode.Error`, or `amdpcode.FaultError` when a wave faulted), and
//! nothing panics into Python (PyO3 turns a panic into `PanicException`).

use std::path::PathBuf;
use std::sync::Arc;

use amdpcode::dispatch::{Code, CodeObject, DispatchError, Dispatcher, Launch, Unmapped};
use amdpcode::embed::{run_on_host, HostRange};
use amdpcode::spec::{Arch, Spec};
use amdpcode::wave::{Engine as WaveEngine, Executor, Program, WaveState};
use amdpcode::{exec, frontend, inputs, jit};
use pyo3::create_exception;
use pyo3::exceptions::PyException;
use pyo3::prelude::*;

create_exception!(
    _amdpcode,
    Error,
    PyException,
    "An amdpcode error (the message says what)."
);
create_exception!(
    _amdpcode,
    FaultError,
    Error,
    "A wave faulted during a dispatch (memory fault, unsupported instruction, step budget, deadlock)."
);

fn err(message: impl std::fmt::Display) -> PyErr {
    Error::new_err(message.to_string())
}

fn dispatch_err(e: DispatchError) -> PyErr {
    match e {
        DispatchError::Wave { .. } | DispatchError::Deadlock { .. } => {
            FaultError::new_err(e.to_string())
        }
        other => err(other),
    }
}

fn parse_arch(name: &str) -> PyResult<Arch> {
    Arch::from_name(name).ok_or_else(|| {
        err(format!(
            "unknown arch `{name}` (expected rdna3, rdna4 or cdna)"
        ))
    })
}

/// One arch's engine: its executor (and JIT kernels) is kept across dispatches.
#[pyclass(unsendable, module = "amdpcode._amdpcode")]
struct Engine {
    spec: Arc<Spec>,
    arch: Arch,
    engine: WaveEngine,
    dispatcher: Dispatcher,
}

/// A thread count: `None` or 0 for every core this process may run on.
fn threads_or_all(threads: Option<usize>) -> usize {
    match threads {
        None | Some(0) => amdpcode::dispatch::all_cores(),
        Some(n) => n,
    }
}

fn dims(v: Vec<u32>, what: &str) -> PyResult<[u32; 3]> {
    if v.is_empty() || v.len() > 3 || v.contains(&0) {
        return Err(err(format!(
            "{what}: expected 1 to 3 sizes, each at least 1, not {v:?}"
        )));
    }
    let mut out = [1; 3];
    out[..v.len()].copy_from_slice(&v);
    Ok(out)
}

fn ranges(v: Vec<(u64, u64)>) -> Vec<HostRange> {
    v.into_iter()
        .map(|(addr, len)| HostRange { addr, len })
        .collect()
}

#[pymethods]
impl Engine {
    /// Engine(arch, engine="jit", spec=None, threads=None): arch is rdna3, rdna4 or cdna;
    /// engine is jit or interp; spec is the spec wheel's path (default: as the CLI finds it);
    /// threads is the most threads a dispatch's workgroups run on (default: every core).
    #[new]
    #[pyo3(signature = (arch, engine = "jit", spec = None, threads = None))]
    fn new(
        arch: &str,
        engine: &str,
        spec: Option<PathBuf>,
        threads: Option<usize>,
    ) -> PyResult<Engine> {
        let arch = parse_arch(arch)?;
        let engine = WaveEngine::from_name(engine).ok_or_else(|| {
            err(format!(
                "unknown engine `{engine}` (expected jit or interp)"
            ))
        })?;
        let spec = amdpcode::embed::spec(spec).map_err(err)?;
        let db = spec.get(arch).map_err(err)?;
        let mut dispatcher = Dispatcher::new(db, engine).map_err(err)?;
        // Tiering as in the CLI: an instruction is interpreted until it is hot, so the many
        // one-off kernels of a framework's test suite do not pay a Cranelift compile each.
        dispatcher.executor_mut().jit_threshold = amdpcode::wave::cli_jit_threshold();
        dispatcher.set_threads(threads_or_all(threads));
        Ok(Engine {
            spec,
            arch,
            engine,
            dispatcher,
        })
    }

    /// The arch's name.
    #[getter]
    fn arch(&self) -> &'static str {
        self.arch.name()
    }

    /// The most threads a dispatch's workgroups run on; set to None or 0 for every core, 1
    /// for the calling thread only. Results are those of one thread for race-free kernels;
    /// launches with global atomics run on one thread.
    #[getter]
    fn threads(&self) -> usize {
        self.dispatcher.threads()
    }

    #[setter]
    fn set_threads(&mut self, threads: Option<usize>) {
        self.dispatcher.set_threads(threads_or_all(threads));
    }

    /// The threads the last dispatch's workgroups ran on (1: the calling thread only).
    #[getter]
    fn last_threads(&self) -> usize {
        self.dispatcher.last_threads()
    }

    /// Evaluates one instruction's pseudocode with the named inputs (`set_json`: a JSON object
    /// of name -> value as `amdpcode eval --batch` takes) and returns the outputs as JSON text.
    #[pyo3(signature = (inst, set_json = None, wave = 32))]
    fn eval(&self, inst: &str, set_json: Option<&str>, wave: u32) -> PyResult<String> {
        if wave != 32 && wave != 64 {
            return Err(err(format!("wave must be 32 or 64, not {wave}")));
        }
        let db = self.spec.db(self.arch);
        let entry = db
            .get(inst)
            .or_else(|| {
                amdpcode::isa::tables::mnemonic_alias(self.arch, inst).and_then(|c| db.get(&c))
            })
            .ok_or_else(|| {
                err(format!(
                    "unknown instruction `{inst}` for {}",
                    self.arch.name()
                ))
            })?;
        let p = exec::prepare(self.arch, entry).map_err(|e| err(e.diagnostic.summary()))?;
        let text = frontend::entry_text(self.arch, entry)
            .map(|t| t.0)
            .unwrap_or_default();
        let mut m = exec::Machine::new(wave);
        if let Some(s) = set_json {
            let v: serde_json::Value =
                serde_json::from_str(s).map_err(|e| err(format!("inputs: not JSON: {e}")))?;
            let obj = v
                .as_object()
                .ok_or_else(|| err("inputs: expected a JSON object of name -> value"))?;
            for (name, v) in obj {
                let v = inputs::json_value(v).map_err(|e| err(format!("input {name}: {e}")))?;
                m.values.insert(name.clone(), v);
            }
        }
        let out = match self.engine {
            WaveEngine::Interp => exec::run_interp(&p, &mut m),
            WaveEngine::Jit => {
                let j = jit::Jit::new().map_err(err)?;
                let k = j.compile(&p).map_err(err)?;
                k.run(&mut m)
            }
        }
        .map_err(|e| err(exec::describe_error(&p, &text, &e)))?;
        Ok(inputs::outputs_json(&out.values).to_string())
    }

    /// Runs a wave program (assembly, or hex bytes when `hex`) from the initial state
    /// `state_json` (the `amdpcode run --state` format) and returns the final state as JSON.
    #[pyo3(signature = (program, state_json = None, wave = None, hex = false))]
    fn run(
        &self,
        program: &str,
        state_json: Option<&str>,
        wave: Option<u32>,
        hex: bool,
    ) -> PyResult<String> {
        let wave_size = wave.unwrap_or(if self.arch == Arch::Cdna { 64 } else { 32 });
        if wave_size != 32 && wave_size != 64 || self.arch == Arch::Cdna && wave_size != 64 {
            return Err(err(format!(
                "wave: {wave_size} is not a wave size of {}",
                self.arch.name()
            )));
        }
        let mut ex = Executor::new(self.spec.db(self.arch), self.engine).map_err(err)?;
        let program = if hex {
            Program::from_hex(ex.isa(), program)
        } else {
            Program::assemble(ex.isa(), program)
        }
        .map_err(|e| err(format!("program: {e}")))?;
        let mut w = WaveState::new(self.arch, wave_size);
        if let Some(s) = state_json {
            amdpcode::wave::json::apply(&mut w, s).map_err(|e| err(format!("state: {e}")))?;
        }
        ex.run_fast(&program, &mut w).map_err(err)?;
        Ok(amdpcode::wave::json::to_json(&w).to_string())
    }

    /// Assembles LLVM-syntax assembly into machine code.
    fn assemble(&self, text: &str) -> PyResult<Vec<u8>> {
        let isa = amdpcode::isa::Isa::new(self.spec.db(self.arch));
        let lines = isa
            .assemble_lines(text)
            .map_err(|e| err(format!("line {}: {}", e.line, e.message)))?;
        Ok(lines.into_iter().flat_map(|a| a.bytes).collect())
    }

    /// The arguments of `kernel` in a code object: (name, kind, offset, size) each.
    fn kernel_args(
        &self,
        code_object: &[u8],
        kernel: &str,
    ) -> PyResult<Vec<(String, String, u64, u64)>> {
        let co = CodeObject::parse(code_object).map_err(dispatch_err)?;
        let k = co.kernel(kernel).map_err(dispatch_err)?;
        Ok(k.args
            .iter()
            .map(|a| {
                (
                    a.name.clone().unwrap_or_default(),
                    a.kind.clone(),
                    a.offset as u64,
                    a.size as u64,
                )
            })
            .collect())
    }

    /// Dispatches `kernel` of a code object over `grid` workgroups of `block` work-items,
    /// on host memory: `ranges` are (address, length) pairs of this process's memory the
    /// kernel may access (every other global access faults). Returns the dynamic wave
    /// instructions executed.
    ///
    /// The caller vouches that every range is valid, writable memory of this process (the
    /// Python package passes the buffers it was given).
    #[pyo3(signature = (code_object, kernel, kernarg, grid, block, ranges, step_budget = None))]
    #[allow(clippy::too_many_arguments)]
    fn dispatch_code_object(
        &mut self,
        code_object: &[u8],
        kernel: &str,
        kernarg: &[u8],
        grid: Vec<u32>,
        block: Vec<u32>,
        ranges: Vec<(u64, u64)>,
        step_budget: Option<u64>,
    ) -> PyResult<u64> {
        let launch = Launch {
            arch: None,
            code: Code::Object {
                bytes: code_object.to_vec(),
                path: "<code object>".into(),
                kernel: kernel.into(),
                kernarg: kernarg.to_vec(),
            },
            grid: dims(grid, "grid")?,
            block: dims(block, "block")?,
            grid_items: None,
            wave: None,
            lds_bytes: None,
            scratch_bytes: None,
            memory: Vec::new(),
            unmapped: Unmapped::Fault,
            step_budget,
        };
        self.launch(&launch, &ranges)
    }

    /// Dispatches raw code (entry at its first byte, mapped at `code_addr`) with the
    /// registers a command processor sets, on host memory as `dispatch_code_object`.
    #[pyo3(signature = (code, code_addr, rsrc1, rsrc2, rsrc3, user_sgprs, grid, block, ranges,
                        wave = None, lds_bytes = None, scratch_bytes = None, step_budget = None))]
    #[allow(clippy::too_many_arguments)]
    fn dispatch_raw(
        &mut self,
        code: &[u8],
        code_addr: u64,
        rsrc1: u32,
        rsrc2: u32,
        rsrc3: u32,
        user_sgprs: Vec<u32>,
        grid: Vec<u32>,
        block: Vec<u32>,
        ranges: Vec<(u64, u64)>,
        wave: Option<u32>,
        lds_bytes: Option<u64>,
        scratch_bytes: Option<u64>,
        step_budget: Option<u64>,
    ) -> PyResult<u64> {
        let launch = Launch {
            arch: Some(self.arch),
            code: Code::Raw {
                bytes: code.to_vec(),
                addr: code_addr,
                rsrc1,
                rsrc2,
                rsrc3,
                user_sgprs,
            },
            grid: dims(grid, "grid")?,
            block: dims(block, "block")?,
            grid_items: None,
            wave,
            lds_bytes,
            scratch_bytes,
            memory: Vec::new(),
            unmapped: Unmapped::Fault,
            step_budget,
        };
        self.launch(&launch, &ranges)
    }
}

impl Engine {
    fn launch(&mut self, launch: &Launch, host: &[(u64, u64)]) -> PyResult<u64> {
        let host = ranges(host.to_vec());
        // SAFETY: the Python package passes the addresses of buffers it holds for the call
        // (or, for tinygrad, the mock GPU's mapped ranges), valid and writable; the GIL is
        // held, so no Python code touches them meanwhile.
        let out =
            unsafe { run_on_host(&mut self.dispatcher, launch, &host) }.map_err(dispatch_err)?;
        Ok(out.instructions)
    }
}

/// The arch a code object is for (rdna3, rdna4 or cdna), from its ELF header.
#[pyfunction]
fn code_object_arch(code_object: &[u8]) -> PyResult<&'static str> {
    Ok(CodeObject::parse(code_object)
        .map_err(dispatch_err)?
        .arch
        .name())
}

#[pymodule]
fn _amdpcode(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<Engine>()?;
    m.add_function(wrap_pyfunction!(code_object_arch, m)?)?;
    m.add("Error", m.py().get_type::<Error>())?;
    m.add("FaultError", m.py().get_type::<FaultError>())?;
    Ok(())
}

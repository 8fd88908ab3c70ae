//! The wavefront's architectural state: scalar and vector register files, EXEC, VCC, SCC, M0,
//! PC, MODE and the memories, behind a small method API.
//!
//! SGPRs are stored by their 8-bit operand code (`s0..s105`, `vcc_lo`/`vcc_hi`, `ttmp0..15`,
//! `m0`, `exec_lo`/`exec_hi`), so an operand field indexes the file directly. VGPRs are stored
//! register-major with 64 lane slots per register whatever the wave size, so a register of
//! one lane is `vgpr[reg * 64 + lane]`. CDNA's accumulation registers `a0..a255` are rows
//! `AGPR_ROW..AGPR_ROW + 256` of the same file (`a5` of a lane is row 261), so the register
//! paths that already move VGPR rows move AGPRs once an instruction's `a`-file fields are
//! rebased onto those rows (`wave::agpr`).

use std::collections::BTreeMap;

use crate::sparse::SparseMemory;

use crate::spec::{Arch, Family, Wheel};

/// Lane slots per VGPR in the flat VGPR file.
pub const LANE_SLOTS: usize = 64;
/// The number of VGPRs per lane.
pub const N_VGPRS: usize = 256;
/// The number of accumulation registers (AGPRs) per lane on CDNA.
pub const N_AGPRS: usize = 256;
/// The VGPR-file row of `a0` (CDNA): AGPRs follow the 256 VGPRs.
pub const AGPR_ROW: u32 = N_VGPRS as u32;

/// The rows of an arch's vector register file: 256 VGPRs, plus 256 AGPRs on CDNA.
pub fn vgpr_rows(arch: Arch) -> usize {
    N_VGPRS + arch.profile().agprs as usize
}

/// The number of scalar operand codes the SGPR file covers (0..=127).
pub const N_SCALAR_CODES: usize = 128;

/// Scalar operand codes shared by every arch.
pub mod code {
    /// `vcc_lo`.
    pub const VCC_LO: u32 = 106;
    /// `vcc_hi`.
    pub const VCC_HI: u32 = 107;
    /// `ttmp0`.
    pub const TTMP0: u32 = 108;
    /// `exec_lo`.
    pub const EXEC_LO: u32 = 126;
    /// `exec_hi`.
    pub const EXEC_HI: u32 = 127;
}

/// The MODE register's fields (hardware layout): bits 3:0 `FP_ROUND` (f32 in 1:0, f16/f64
/// in 3:2), bits 7:4 `FP_DENORM` (f32 in 5:4, f16/f64 in 7:6; 3 keeps input and output
/// denormals, 0 flushes both), bit 8 `DX10_CLAMP`, bit 9 `IEEE`.
pub mod mode {
    /// `FP_ROUND` (bits 3:0).
    pub const FP_ROUND: u32 = 0xf;
    /// `FP_DENORM` f32 (bits 5:4).
    pub const FP_DENORM_F32: u32 = 0x30;
    /// `FP_DENORM` f16/f64 (bits 7:6).
    pub const FP_DENORM_F16_F64: u32 = 0xc0;
    /// `DX10_CLAMP` (bit 8): clamp turns NaN into 0.
    pub const DX10_CLAMP: u32 = 1 << 8;
    /// `IEEE` (bit 9): IEEE mode (signalling-NaN handling, output modifiers off).
    pub const IEEE: u32 = 1 << 9;
}

/// The MODE a wave starts with when nothing dispatches it: what a kernel descriptor written
/// with LLVM's default `.amdhsa_*` directives gives (FLOAT_MODE 0xc0: f32 denormals flushed,
/// f16/f64 denormals kept, round to nearest even; DX10 clamp on; IEEE mode on where the arch
/// has it, which RDNA 4 does not).
pub fn default_mode(arch: Arch) -> u32 {
    // COMPUTE_PGM_RSRC1 of that descriptor: FLOAT_MODE 0xc0, DX10_CLAMP, IEEE_MODE.
    mode_from_rsrc1(arch, 0xc0 << 12 | 1 << 21 | 1 << 23)
}

/// The MODE a dispatch gives a wave from its kernel descriptor's `COMPUTE_PGM_RSRC1`:
/// FLOAT_MODE (bits 19:12) becomes MODE bits 7:0, ENABLE_DX10_CLAMP (bit 21) bit 8 and
/// ENABLE_IEEE_MODE (bit 23) bit 9. RDNA 4 has neither bit in RSRC1 (bits 21/23 mean other
/// things there) nor an IEEE mode: its MODE has DX10 clamp on and IEEE off.
pub fn mode_from_rsrc1(arch: Arch, rsrc1: u32) -> u32 {
    let float_mode = rsrc1 >> 12 & 0xff;
    match arch.wheel() {
        Wheel::Rdna4 => float_mode | mode::DX10_CLAMP,
        _ => {
            let dx10 = rsrc1 >> 21 & 1;
            let ieee = rsrc1 >> 23 & 1;
            float_mode | dx10 << 8 | ieee << 9
        }
    }
}

/// The number of numbered SGPRs of an arch (`s0..s105` on RDNA, `s0..s101` on CDNA).
pub fn n_sgprs(arch: Arch) -> u32 {
    crate::isa::operands::sgpr_limit(arch)
}

/// The operand code of `m0`.
pub fn m0_code(arch: Arch) -> u32 {
    match arch.family() {
        Family::Gfx9 | Family::Gfx10 => 124,
        _ => 125,
    }
}

/// The operand code of `null` (RDNA only).
pub fn null_code(arch: Arch) -> Option<u32> {
    match arch.family() {
        Family::Gfx9 => None,
        // llvm-mc-22 (gfx1030): `s_mov_b32 s1, null` reads code 125, `m0` 124.
        Family::Gfx10 => Some(125),
        _ => Some(124),
    }
}

/// The operand code of dword `i` of a scalar operand that starts at `code`. `null` is null in
/// every dword: a 64-bit `null` destination (wave64's discarded carry-out, `v_add_co_ci_u32_e64
/// v4, null, ...`) writes nothing and a 64-bit `null` source reads zero, rather than reaching
/// the code after it (EXEC_LO on GFX10, M0 on GFX11).
pub fn dword_code(arch: Arch, code: u32, i: u32) -> u32 {
    if Some(code) == null_code(arch) {
        code
    } else {
        code + i
    }
}

/// The base of the generic (flat) address aperture that maps to LDS: a flat address
/// `SHARED_APERTURE + a` is LDS byte `a` (`src_shared_base` reads its high half).
pub const SHARED_APERTURE: u64 = 0x0001_0000_0000_0000;
/// The base of the generic address aperture that maps to the lane's scratch
/// (`src_private_base` reads its high half).
pub const PRIVATE_APERTURE: u64 = 0x0002_0000_0000_0000;
/// gfx1250's flat scratch base (`src_flat_scratch_base_lo/hi`): the flat address of lane 0's
/// private byte 0; lane `l`'s byte `x` is at `FLAT_SCRATCH_BASE + (l << 52) + x` (the
/// private aperture spans 57 bits). Placed at the other arches' private aperture.
pub const FLAT_SCRATCH_BASE: u64 = PRIVATE_APERTURE;

/// The memory a launch mapped. A wave that has bounds faults on any access outside them;
/// a wave without (the single-wave `run`) reads unwritten memory as zero.
///
/// This is the one place that decides which global accesses fault: every memory path (the
/// pseudocode step, the prepared and row paths of `memprep`, blocks) asks
/// [`Bounds::global_readable`] and [`Bounds::global_mapped`] for one lane's access, or
/// [`Bounds::global_span_readable`] for a span holding many.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Bounds {
    /// Global ranges `[start, end)`.
    pub global: Vec<(u64, u64)>,
    /// LDS bytes of the workgroup.
    pub lds: u64,
    /// Scratch bytes per lane.
    pub scratch: u64,
    /// How loads that reach past the ranges are judged.
    pub loads: LoadRule,
}

/// How a global load that reaches bytes outside every mapped range is judged (stores and
/// atomics always need every byte mapped). The bytes outside the ranges read as the memory
/// holds them: zero, since a store outside the ranges faults.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum LoadRule {
    /// GPU virtual memory: a load passes when each of its bytes lies in a 4 KiB page that a
    /// mapped range touches (a raw or LAUNCH.json launch, whose addresses the launch chose).
    #[default]
    Page,
    /// Declared host memory (embedding): a load passes when it touches a byte of a mapped
    /// range (an over-read at a range's end never faults, wherever the host placed the
    /// range), or when it passes [`LoadRule::Page`] (a load wholly past a range's end, in a
    /// page the range touches).
    Declared,
}

/// Bytes per page of the page rule.
const BOUND_PAGE: u64 = 4096;

impl Bounds {
    /// Whether one access of the `n` global bytes at `addr` may load (see [`LoadRule`]).
    /// GPU virtual memory faults by page, so a load reaching past the end of a buffer into
    /// the rest of its last page (LLVM's `s_load_b128` of a 12-byte argument block does)
    /// does not fault.
    #[inline]
    pub fn global_readable(&self, addr: u64, n: u64) -> bool {
        self.in_mapped_pages(addr, n)
            || (self.loads == LoadRule::Declared && n > 0 && self.touches(addr, n))
    }

    /// Whether every load inside the `n` bytes at `addr` passes [`Bounds::global_readable`]
    /// (sufficient, not necessary): a check of the span of many lanes' accesses at once.
    /// False says nothing; each access is then judged on its own.
    #[inline]
    pub fn global_span_readable(&self, addr: u64, n: u64) -> bool {
        // Each access inside the span lies in pages of the span: when all of them are
        // touched by a range, every access passes the page rule (and so either rule).
        self.in_mapped_pages(addr, n)
    }

    /// Whether each of the `n` bytes at `addr` lies in a page that a mapped range touches.
    fn in_mapped_pages(&self, addr: u64, n: u64) -> bool {
        let Some(end) = addr.checked_add(n) else {
            return false;
        };
        let mut at = addr;
        while at < end {
            let page = at & !(BOUND_PAGE - 1);
            let page_end = page.saturating_add(BOUND_PAGE);
            if !self.global.iter().any(|&(s, e)| s < page_end && e > page) {
                return false;
            }
            if page_end == u64::MAX {
                break;
            }
            at = page_end;
        }
        true
    }

    /// Whether one of the `n` bytes at `addr` lies in a mapped range.
    fn touches(&self, addr: u64, n: u64) -> bool {
        let end = addr.saturating_add(n);
        self.global.iter().any(|&(s, e)| s < end && addr < e)
    }

    /// Whether the `n` global bytes at `addr` are all mapped (ranges may touch): what a
    /// write or an atomic needs.
    pub fn global_mapped(&self, addr: u64, n: u64) -> bool {
        let mut at = addr;
        let end = match addr.checked_add(n) {
            Some(e) => e,
            None => return false,
        };
        // Ranges are few (one per buffer); walk them until the span is covered.
        'cover: while at < end {
            for &(s, e) in &self.global {
                if s <= at && at < e {
                    at = e;
                    continue 'cover;
                }
            }
            return false;
        }
        true
    }
}

/// One wavefront.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WaveState {
    /// The arch.
    pub arch: Arch,
    /// 32 or 64.
    pub wave_size: u32,
    /// The scalar file by operand code.
    pub sgpr: Vec<u32>,
    /// The scalar condition code.
    pub scc: bool,
    /// The byte offset of the next instruction in the program.
    pub pc: u64,
    /// The VGPR file: `vgpr[reg * 64 + lane]`; on CDNA AGPR `a_k` is row `AGPR_ROW + k`.
    pub vgpr: Vec<u32>,
    /// The MODE register (hardware layout, see [`mode`]): round and denormal modes,
    /// DX10 clamp, IEEE. A new wave starts with [`default_mode`].
    pub mode: u32,
    /// Global memory, byte addressed and sparse.
    pub memory: SparseMemory,
    /// The workgroup's LDS, byte addressed and sparse.
    pub lds: SparseMemory,
    /// Scratch: lane `l`'s private byte `a` is at `l * 64 MiB + a`.
    pub scratch: SparseMemory,
    /// Global memory bytes written since the state was made (address → value), kept
    /// while `track_writes` is on.
    pub written: BTreeMap<u64, u8>,
    /// Whether stores are recorded in `written` (a dispatch that maps all its memory
    /// knows where stores land and turns it off).
    pub track_writes: bool,
    /// The memory a launch mapped (`None`: everything reads, unwritten bytes as zero).
    pub bounds: Option<std::sync::Arc<Bounds>>,
    /// When `Some`, each memory instruction leaves here the accesses it made (for observers
    /// such as `crate::sanitizer`); `None` (the default) records nothing.
    pub last_access: Option<Vec<MemAccess>>,
    /// The number of instructions the wave has executed: the model's clock, read by
    /// `s_memtime`, `s_memrealtime`, `MSG_RTN_GET_REALTIME` and the `SHADER_CYCLES` hardware
    /// registers (one tick per instruction, the same under every engine).
    pub retired: u64,
}

/// The memory an instruction accessed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MemSpace {
    /// Global memory (GLOBAL, FLAT outside the apertures, SMEM).
    Global,
    /// The workgroup's LDS.
    Lds,
    /// Lane-private scratch (keys as in `SCRATCH_LANE_SPAN`).
    Scratch,
}

/// One byte range one lane (or, for SMEM, the wave) accessed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MemAccess {
    /// The memory.
    pub space: MemSpace,
    /// The lane (0 for SMEM).
    pub lane: u32,
    /// The first byte.
    pub addr: u64,
    /// The number of bytes.
    pub bytes: u64,
}

impl WaveState {
    /// Whether f32 denormals are flushed (MODE `FP_DENORM` f32 bits clear).
    pub fn flushes_f32_denormals(&self) -> bool {
        self.mode & mode::FP_DENORM_F32 == 0
    }

    /// Whether IEEE mode is on.
    pub fn ieee(&self) -> bool {
        self.mode & mode::IEEE != 0
    }

    /// A zeroed wave with a full EXEC mask and the default MODE.
    pub fn new(arch: Arch, wave_size: u32) -> WaveState {
        let mut w = WaveState {
            arch,
            wave_size,
            sgpr: vec![0; N_SCALAR_CODES],
            scc: false,
            pc: 0,
            vgpr: vec![0; vgpr_rows(arch) * LANE_SLOTS],
            mode: default_mode(arch),
            memory: SparseMemory::new(),
            lds: SparseMemory::new(),
            scratch: SparseMemory::new(),
            written: BTreeMap::new(),
            track_writes: true,
            bounds: None,
            last_access: None,
            retired: 0,
        };
        w.set_exec(w.full_mask());
        w
    }

    /// Resets the state to what [`WaveState::new`] gives for this arch and `wave_size`,
    /// zeroing only the lane slots below `lanes` of the VGPR rows below `rows`: the caller
    /// guarantees every other slot is zero already (`dispatch`'s wave pool).
    pub fn reset(&mut self, wave_size: u32, rows: usize, lanes: usize) {
        self.wave_size = wave_size;
        if self.sgpr.len() == N_SCALAR_CODES {
            self.sgpr.fill(0);
        } else {
            self.sgpr = vec![0; N_SCALAR_CODES];
        }
        self.scc = false;
        self.pc = 0;
        self.retired = 0;
        let full = vgpr_rows(self.arch) * LANE_SLOTS;
        if self.vgpr.len() == full {
            let n = (rows * LANE_SLOTS).min(full);
            if lanes >= LANE_SLOTS {
                self.vgpr[..n].fill(0);
            } else if lanes == 32 {
                // A constant length: the compiler stores the zeros without calling memset.
                for row in self.vgpr[..n].chunks_exact_mut(LANE_SLOTS) {
                    row[..32].fill(0);
                }
            } else {
                for row in self.vgpr[..n].chunks_exact_mut(LANE_SLOTS) {
                    row[..lanes].fill(0);
                }
            }
        } else {
            self.vgpr = vec![0; full];
        }
        self.mode = default_mode(self.arch);
        self.memory = SparseMemory::new();
        self.lds = SparseMemory::new();
        self.scratch = SparseMemory::new();
        self.written = BTreeMap::new();
        self.track_writes = true;
        self.bounds = None;
        self.last_access = None;
        self.set_exec(self.full_mask());
    }

    /// The mask of every lane of the wave.
    pub fn full_mask(&self) -> u64 {
        if self.wave_size >= 64 {
            u64::MAX
        } else {
            (1u64 << self.wave_size) - 1
        }
    }

    /// Reads a 64-bit pair of scalar codes.
    pub fn sgpr_pair(&self, lo: u32) -> u64 {
        self.read_sgpr(lo) as u64 | (self.read_sgpr(dword_code(self.arch, lo, 1)) as u64) << 32
    }

    /// Reads one scalar code (`null` and unknown codes read zero).
    pub fn read_sgpr(&self, code: u32) -> u32 {
        if Some(code) == null_code(self.arch) {
            return 0;
        }
        self.sgpr.get(code as usize).copied().unwrap_or(0)
    }

    /// Writes one scalar code (`null` and codes past the file discard the write).
    pub fn write_sgpr(&mut self, code: u32, value: u32) {
        if Some(code) == null_code(self.arch) {
            return;
        }
        if let Some(slot) = self.sgpr.get_mut(code as usize) {
            *slot = value;
        }
    }

    /// EXEC (in wave32 only the low half).
    pub fn exec(&self) -> u64 {
        self.sgpr_pair(code::EXEC_LO) & self.full_mask()
    }

    /// Sets EXEC (both halves).
    pub fn set_exec(&mut self, v: u64) {
        self.write_sgpr(code::EXEC_LO, v as u32);
        self.write_sgpr(code::EXEC_HI, (v >> 32) as u32);
    }

    /// VCC as a 64-bit pair.
    pub fn vcc(&self) -> u64 {
        self.sgpr_pair(code::VCC_LO)
    }

    /// M0.
    pub fn m0(&self) -> u32 {
        self.read_sgpr(m0_code(self.arch))
    }

    /// VGPR `reg` of `lane`.
    pub fn vgpr(&self, lane: u32, reg: u32) -> u32 {
        self.vgpr
            .get(reg as usize * LANE_SLOTS + lane as usize)
            .copied()
            .unwrap_or(0)
    }

    /// The rows of the vector register file (VGPRs, then AGPRs on CDNA).
    pub fn vgpr_rows(&self) -> usize {
        self.vgpr.len() / LANE_SLOTS
    }

    /// AGPR `a{index}` of `lane` (CDNA; zero where the arch has none).
    pub fn agpr(&self, lane: u32, index: u32) -> u32 {
        if self.arch.profile().agprs == 0 {
            return 0;
        }
        self.vgpr(lane, AGPR_ROW + index)
    }

    /// Sets AGPR `a{index}` of `lane` (CDNA; ignored elsewhere and past a255).
    pub fn set_agpr(&mut self, lane: u32, index: u32, value: u32) {
        if index < self.arch.profile().agprs {
            self.set_vgpr(lane, AGPR_ROW + index, value);
        }
    }

    /// The 64 lane values of VGPR `reg` (`None` beyond the file).
    pub fn vgpr_row(&self, reg: u32) -> Option<&[u32]> {
        let start = reg as usize * LANE_SLOTS;
        self.vgpr.get(start..start + LANE_SLOTS)
    }

    /// The 64 lane values of VGPR `reg`, writable (`None` beyond the file).
    pub fn vgpr_row_mut(&mut self, reg: u32) -> Option<&mut [u32]> {
        let start = reg as usize * LANE_SLOTS;
        self.vgpr.get_mut(start..start + LANE_SLOTS)
    }

    /// Writes VGPR `reg` of `lane` (ignored beyond the file).
    pub fn set_vgpr(&mut self, lane: u32, reg: u32, value: u32) {
        if let Some(slot) = self.vgpr.get_mut(reg as usize * LANE_SLOTS + lane as usize) {
            *slot = value;
        }
    }

    /// Reads `n` bytes of global memory (little-endian, unwritten bytes are zero).
    pub fn read_memory(&self, addr: u64, n: usize) -> Vec<u8> {
        (0..n as u64)
            .map(|i| self.memory.byte(addr.wrapping_add(i)))
            .collect()
    }

    /// Writes bytes of global memory without recording them as written by the program.
    pub fn load_memory(&mut self, addr: u64, bytes: &[u8]) {
        for (i, b) in bytes.iter().enumerate() {
            self.memory.set(addr.wrapping_add(i as u64), *b);
        }
    }

    /// The global memory ranges the program wrote, as `(address, bytes)` runs.
    pub fn written_ranges(&self) -> Vec<(u64, Vec<u8>)> {
        let mut out: Vec<(u64, Vec<u8>)> = Vec::new();
        for (&a, &b) in &self.written {
            match out.last_mut() {
                Some((start, bytes)) if *start + bytes.len() as u64 == a => bytes.push(b),
                _ => out.push((a, vec![b])),
            }
        }
        out
    }
}

/// The printable name of a scalar code.
pub fn sgpr_name(arch: Arch, code: u32) -> String {
    crate::isa::operands::sreg_text(arch, code, 1).unwrap_or_else(|| format!("?{code}"))
}
